#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/datapath.sh: from file to answer, beside the disk's own rate (issue 19, docs/datapath.md).
#
# For each matrix file: the disk (dd, buffered and O_DIRECT, cold), h5py reading every dataset of
# the group (cold and warm), and `gcoo_dist spdm --json` at 1 and 2 ranks (cold and warm) with
# each phase (read, setup, dense operand, upload, kernel, check, total) and the peak RSS of
# rank 0. Cold = `echo 3 > /proc/sys/vm/drop_caches` before the run (root); where that is not
# permitted, every run is warm and the lines say so. Ends with one line per target of issue 19:
#   target spdm-file-floor:   wall time of a cold 1-rank GPU spdm over the floor
#                             (file bytes / cold dd rate + kernel time + output bytes / write
#                             rate; no --out, so no output bytes), goal <= 1.5x
#   target spgemm-file-floor: the same for `gcoo_dist spgemm` (A * A), goal <= 1.5x
#   target read-2rank:        aggregate read rate at 2 ranks over 1 rank's (cold), goal >= 1.0x
# and, before them, the CPU target: read + setup over h5py's read of the same file, goal <= 2x.
# With --backend gpu and more ranks than GPUs, the ranks share the GPUs (GCOO_ALLOW_SHARED_GPU=1)
# and the lines say so: the read rate is still the ranks' aggregate from the one disk.
#
# Usage: bench/datapath.sh [options]
#   --gcoo DIR       build with src/cli/gcoo_dist (or cli/gcoo_dist) [build]
#   --dir DIR        scratch folder for the files, on the file system to measure [/tmp/gcoo-datapath]
#   --grid N         27-point Poisson N^3 made by `gcoo_dist gen` [100]
#   --real FILE.mtx  also a real matrix (converted to HDF5 CSR with `gcoo_dist convert`)
#   --backend B      cpu or gpu [cpu]
#   --ncols N        columns of X [32]
#   --reps R         repetitions, cold and warm each (medians reported) [3]
#   --nps "1 2"      rank counts [1 2]
#   --spgemm N       also time `gcoo_dist spgemm --a F` (C = A A) on a 27-point N^3 file, cold
#   --ab             also one cold 1-rank run of the first file without the start-up overlap
#                    and direct reads (GCOO_FAST_STARTUP=0 GCOO_H5_DIRECT=0), one with cuBLAS
#                    loaded at start-up (LD_PRELOAD, as when libgcoo was linked with it), beside
#                    the default (DATAPATH_CUBLAS=0: not that one), the process's own start-up
#                    (gcoo_dist --version, cold) and the null MPI + CUDA command
#                    (bench/startup_null: plain, as gcoo_dist starts, and reading the file
#                    beside it: the least any MPI + CUDA job reading it takes on this machine)
#
# Every run's start-up is broken down as well: exec to main(), MPI_Init, gcoo_dist_create, the
# phases, and the tear-down after the report (the command's --json startup_s marks against the
# wall clock around it).
set -u
gcoo=build dir=/tmp/gcoo-datapath grid=100 real="" backend=cpu ncols=32 reps=3 spgemm=0 nps="1 2" ab=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gcoo) gcoo=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --grid) grid=$2; shift 2 ;;
    --real) real=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --ncols) ncols=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --spgemm) spgemm=$2; shift 2 ;;
    --nps) nps=$2; shift 2 ;;
    --ab) ab=1; shift ;;
    *) echo "datapath.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bin=$(realpath "$gcoo")/cli/gcoo_dist
[ -x "$bin" ] || bin=$(realpath "$gcoo")/src/cli/gcoo_dist
[ -x "$bin" ] || { echo "datapath.sh: no gcoo_dist under $gcoo" >&2; exit 2; }
nullbin=$(realpath "$gcoo")/bench/startup_null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$dir"
log=$dir/runs.jsonl
: >"$log"

cold_ok=0
if sync && (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then cold_ok=1; fi
drop() { [ "$cold_ok" = 1 ] && sync && echo 3 >/proc/sys/vm/drop_caches; }

echo "# datapath benchmark (issue 19)"
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "host:    $(uname -n), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
echo "gpu:     ${gpu:-none}$([ "$ngpus" -gt 1 ] && echo " (x$ngpus)")"
# COMMIT: written beside a copy of the worktree sent to another machine (no .git there)
echo "commit:  $(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)$([ -f COMMIT ] && echo ' (copy of the worktree)')"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start"
echo "command: bench/datapath.sh --grid $grid --backend $backend --ncols $ncols --reps $reps${real:+ --real $real}$([ "$spgemm" != 0 ] && echo " --spgemm $spgemm")"
echo "cache:   $([ $cold_ok = 1 ] && echo 'cold runs after drop_caches' || echo 'drop_caches not permitted: every run is WARM')"
echo "disk:    $(df -h "$dir" | awk 'NR==2 {print $1, $2}') ($dir)"
# the I/O scheduler (the prefetch's idle class counts only under BFQ or mq-deadline) and THP
dev=$(df "$dir" | awk 'NR==2 {print $1}' | sed 's|/dev/||; s|[0-9]*$||; s|p$||')
echo "sched:   $(cat /sys/block/"$dev"/queue/scheduler 2>/dev/null || echo unknown) ($dev); THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
echo

# dd rate in bytes/s of reading a file (buffered or direct), cold when allowed
dd_rate() { # file [direct]
  drop
  local flag=""
  [ "${2:-}" = direct ] && flag="iflag=direct"
  dd if="$1" of=/dev/null bs=16M $flag 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") printf "%.0f\n", $1 / $(i - 1)}'
}
dd_write_rate() { # bytes
  local n=$(( ($1 + 16777215) / 16777216 ))
  [ $n -lt 1 ] && n=1
  local r
  r=$(dd if=/dev/zero of="$dir/ddwrite.tmp" bs=16M count=$n conv=fsync 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") printf "%.0f\n", $1 / $(i - 1)}')
  rm -f "$dir/ddwrite.tmp"
  echo "$r"
}

h5py_read() { # file [cold] -> seconds
  [ "${2:-}" = cold ] && drop
  python3 - "$1" <<'EOF'
import sys, time
import h5py
t = time.perf_counter()
with h5py.File(sys.argv[1], "r") as f:
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            obj[...]
    f.visititems(visit)
print(f"{time.perf_counter() - t:.6f}")
EOF
}

# a command's wall time and the largest peak RSS among its processes (RUSAGE_CHILDREN: the
# ranks under mpirun too), on stderr as WALL_S and RSS_KB; no /usr/bin/time needed
measured() {
  python3 -c '
import resource, subprocess, sys, time
e0 = time.time()
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)
w = time.perf_counter() - t
e1 = time.time()
sys.stdout.write(p.stdout.decode())
sys.stderr.write("RSS_KB %d\nWALL_S %.6f\nEPOCHS %.6f %.6f\n" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, w, e0, e1))
sys.exit(p.returncode)' "$@"
}

# one gcoo_dist run: np cold|warm command... -> appends a JSON line (with peak RSS) to the log
run_json() { # label np mode args...
  local label=$1 np=$2 mode=$3
  shift 3
  [ "$mode" = cold ] && drop
  local out rss wall
  if [ "$np" = 1 ]; then
    # (timeout: a run that hangs ends the benchmark's run, not the machine's whole allowance)
    out=$(measured timeout 120 "$bin" "$@" --json 2>"$dir/err.txt")
  else
    # one OpenMP team per rank sized to its share of the cores (as a user would run it)
    local th=$(( $(nproc) / np ))
    [ $th -lt 1 ] && th=1
    # more ranks than GPUs (a one-GPU machine): the ranks share the GPU round robin
    # (GCOO_ALLOW_SHARED_GPU=1, no NCCL); the read, a host phase, is the same code either way
    local shared=0
    [ "$backend" = gpu ] && [ "$np" -gt "$ngpus" ] && shared=1
    # --bind-to none: Open MPI binds each of 2 or fewer ranks to one core by default, which
    # would run each rank's $th threads on one core
    out=$(OMP_NUM_THREADS=$th GCOO_ALLOW_SHARED_GPU=$shared measured timeout 120 mpirun -np "$np" --bind-to none \
      -x OMP_NUM_THREADS -x GCOO_ALLOW_SHARED_GPU "$bin" "$@" --json 2>"$dir/err.txt")
  fi
  local rc=$?
  rss=$(awk '/^RSS_KB/ {print $2}' "$dir/err.txt")
  wall=$(awk '/^WALL_S/ {print $2}' "$dir/err.txt")
  epochs=$(awk '/^EPOCHS/ {print $2, $3}' "$dir/err.txt")
  python3 - "$label" "$np" "$mode" "$rc" "$wall" "${rss:-0}" "$out" ${epochs:-0 0} >>"$log" <<'EOF'
import json, sys
label, np, mode, rc, wall, rss, out, e0, e1 = sys.argv[1:10]
try:
    d = json.loads(out)
except Exception:
    d = {"error": out[-400:]}
d.update({"label": label, "np": int(np), "mode": mode, "rc": int(rc), "wall_s": float(wall),
          "rss_kb": int(rss), "launch_epoch": float(e0), "exit_epoch": float(e1)})
print(json.dumps(d))
EOF
  [ $rc = 0 ] || { echo "  $label np=$np $mode: rc $rc: $(tail -3 "$dir/err.txt")"; }
}

# the null MPI + CUDA command (bench/startup_null.c), cold: label args... -> a JSON line
null_json() {
  local label=$1
  shift
  [ -x "$nullbin" ] || return 0
  drop
  local out
  out=$(measured timeout 60 "$nullbin" "$@" 2>"$dir/err.txt")
  local rc=$?
  python3 - "$label" "$rc" "$out" $(awk '/^WALL_S/ {print $2} /^EPOCHS/ {print $2, $3}' "$dir/err.txt") >>"$log" <<'EOF2'
import json, sys
label, rc, out, wall, e0, e1 = sys.argv[1:7]
try:
    d = json.loads(out)
except Exception:
    d = {"error": out[-400:]}
d.update({"label": label, "rc": int(rc), "wall_s": float(wall), "launch_epoch": float(e0),
          "exit_epoch": float(e1)})
print(json.dumps(d))
EOF2
}

gen() { # file grid
  if [ "${GEN_NP:-1}" -gt 1 ]; then
    mpirun -np "$GEN_NP" "$bin" gen --stencil 27 --grid "$2" --out "$1" >/dev/null
  else
    "$bin" gen --stencil 27 --grid "$2" --out "$1" >/dev/null
  fi
}

files=()
f=$dir/poisson27_$grid.h5
if [ ! -s "$f" ]; then
  echo "making $f (gcoo_dist gen --stencil 27 --grid $grid, ${GEN_NP:-1} ranks)"
  gen "$f" "$grid" || exit 1
fi
files+=("$f")
if [ -n "$real" ]; then
  r=$dir/$(basename "${real%%.mtx*}").h5
  [ -s "$r" ] || "$bin" convert --in "$real" --out "$r:/A" --format csr >/dev/null || exit 1
  files+=("$r:/A")
fi

for spec in "${files[@]}"; do
  file=${spec%%:/*}
  bytes=$(stat -c %s "$file")
  echo "== $spec: $bytes bytes"
  rb=$(dd_rate "$file")
  rd=$(dd_rate "$file" direct)
  rwarm=$(dd if="$file" of=/dev/null bs=16M 2>/dev/null; dd if="$file" of=/dev/null bs=16M 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") printf "%.0f\n", $1 / $(i - 1)}')
  hc=$(h5py_read "$file" cold)
  hw=$(h5py_read "$file" warm)
  hw2=$(h5py_read "$file" warm)
  hw=$(python3 -c "print(min($hw, $hw2))")
  awk -v b="$rb" -v d="$rd" -v w="$rwarm" -v n="$bytes" -v hc="$hc" -v hw="$hw" 'BEGIN {
    printf "  dd: cold buffered %.2f GB/s, cold direct %.2f GB/s, warm %.2f GB/s\n", b / 1e9, d / 1e9, w / 1e9
    printf "  h5py every dataset: cold %.3f s (%.2f GB/s), warm %.3f s\n", hc, n / hc / 1e9, hw }'
  echo "{\"label\": \"disk\", \"file\": \"$spec\", \"bytes\": $bytes, \"dd_cold\": $rb, \"dd_direct\": $rd, \"dd_warm\": $rwarm, \"h5py_cold\": $hc, \"h5py_warm\": $hw}" >>"$log"
  if [ "$ab" = 1 ] && [ "$spec" = "${files[0]}" ]; then
    # the process alone: loader (MPI, HDF5, CUDA libraries), MPI_Init, MPI_Finalize
    drop
    vc=$(measured "$bin" --version 2>&1 >/dev/null | awk '/^WALL_S/ {print $2}')
    vw=$(measured "$bin" --version 2>&1 >/dev/null | awk '/^WALL_S/ {print $2}')
    echo "  process start-up alone (gcoo_dist --version): cold $vc s, warm $vw s"
    echo "{\"label\": \"version\", \"cold\": $vc, \"warm\": $vw}" >>"$log"
    # the null MPI + CUDA command: without gcoo_dist's environment defaults, as gcoo_dist starts
    # (its defaults; MPI_Init, then the context), with the context on a thread beside
    # MPI_Init, without the cuSPARSE handle, and as gcoo_dist reading the file whole from main() on:
    # the least any MPI + CUDA job that reads this file can take here
    null_json "null-plain" --plain
    null_json "null"
    null_json "null-overlap" --overlap
    null_json "null-nocusparse" --no-cusparse
    null_json "null-read:$spec" --read "$file"
    GCOO_FAST_STARTUP=0 GCOO_H5_DIRECT=0 run_json "spdm-off:$spec" 1 cold spdm --a "$spec" \
      --ncols "$ncols" --backend "$backend" --repeat 5 --check
    # cuBLAS loaded at start-up as when libgcoo is linked with it: preloaded
    [ "${DATAPATH_CUBLAS:-1}" = 0 ] && cublas_skip=1 || cublas_skip=0
    cublas=$(ldd "$bin" 2>/dev/null | awk '/libcudart/ {print $3}' | xargs -r dirname)
    cublas=$(ls "$cublas"/libcublas.so.[0-9]* /usr/local/cuda/lib64/libcublas.so.[0-9]* 2>/dev/null | head -1)
    if [ -n "$cublas" ] && [ "$cublas_skip" = 0 ]; then
      drop
      vp=$(LD_PRELOAD=$cublas measured "$bin" --version 2>&1 >/dev/null | awk '/^WALL_S/ {print $2}')
      echo "  the same with cuBLAS loaded at start-up (LD_PRELOAD=$cublas): cold $vp s"
      echo "{\"label\": \"version-cublas\", \"cold\": $vp}" >>"$log"
      LD_PRELOAD=$cublas run_json "spdm-cublas:$spec" 1 cold spdm --a "$spec" \
        --ncols "$ncols" --backend "$backend" --repeat 5 --check
    fi
  fi
  for np in $nps; do
    for ((i = 0; i < reps; i++)); do
      run_json "spdm:$spec" "$np" cold spdm --a "$spec" --ncols "$ncols" --backend "$backend" --repeat 5 --check
    done
    for ((i = 0; i < reps; i++)); do
      run_json "spdm:$spec" "$np" warm spdm --a "$spec" --ncols "$ncols" --backend "$backend" --repeat 5 --check
    done
  done
  # the write rate for the floor's output term, at the size of the product (here: none written)
  echo "{\"label\": \"write\", \"file\": \"$spec\", \"dd_write\": $(dd_write_rate 268435456)}" >>"$log"
done

if [ "$spgemm" != 0 ]; then
  g=$dir/poisson27_$spgemm.h5
  [ -s "$g" ] || gen "$g" "$spgemm" || exit 1
  gb=$(stat -c %s "$g")
  gr=$(dd_rate "$g")
  echo "== spgemm C = A A, $g: $gb bytes, dd cold $(awk -v r="$gr" 'BEGIN {printf "%.2f", r / 1e9}') GB/s"
  echo "{\"label\": \"spgemm-disk\", \"file\": \"$g\", \"bytes\": $gb, \"dd_cold\": $gr}" >>"$log"
  [ "$ab" = 1 ] && null_json "null-read:$g" --read "$g"
  run_json "spgemm:$g" 1 cold spgemm --a "$g" --backend "$backend" --dtype float32
  run_json "spgemm:$g" 1 warm spgemm --a "$g" --backend "$backend" --dtype float32
fi

python3 - "$log" "$backend" "$cold_ok" "$ngpus" <<'EOF'
import json, statistics, sys
log, backend, cold_ok, ngpus = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
rows = [json.loads(l) for l in open(log) if l.strip()]
disk = {r["file"]: r for r in rows if r["label"] == "disk"}
write = {r["file"]: r for r in rows if r["label"] == "write"}
def runs(label, np, mode):
    return [r for r in rows if r["label"] == label and r["np"] == np and r["mode"] == mode
            and r.get("rc") == 0 and "time_s" in r]
def med(rs, key):
    v = [r["time_s"][key] for r in rs]
    return statistics.median(v) if v else float("nan")
print()
print("phases (seconds; warm: median of the repetitions; rss: rank 0's peak, MB)")
print(f"{'file':28s} {'np':>2s} {'cache':5s} {'read':>7s} {'setup':>7s} {'dense':>7s} {'upload':>7s} "
      f"{'kernel':>8s} {'check':>7s} {'total':>7s} {'wall':>7s} {'GB/s':>6s} {'rss':>6s} check")
targets = {}
mem = []
for f, dk in disk.items():
    for np in (1, 2):
        for mode in ("cold", "warm"):
            rs = runs("spdm:" + f, np, mode)
            if not rs:
                continue
            rd = med(rs, "read")
            rate = dk["bytes"] / rd / 1e9 if rd > 0 else float("nan")
            wall = statistics.median(r["wall_s"] for r in rs)
            rss = max(r["rss_kb"] for r in rs) / 1024
            ok = all(r.get("check", {}).get("pass") for r in rs)
            print(f"{f[-28:]:28s} {np:2d} {mode:5s} {rd:7.3f} {med(rs, 'setup'):7.3f} "
                  f"{med(rs, 'dense_operand'):7.3f} {med(rs, 'upload'):7.3f} {med(rs, 'kernel'):8.4f} "
                  f"{med(rs, 'check'):7.4f} {med(rs, 'total'):7.3f} {wall:7.3f} {rate:6.2f} {rss:6.0f} "
                  f"{'PASS' if ok else 'FAIL'}")
            targets.setdefault(f, {})[(np, mode)] = (rd, med(rs, "setup"), med(rs, "kernel"), wall)
            if mode == "cold":
                # host memory: 1.5 x the rank's share of the file plus its dense operands (X rows
                # held and Y rows: PARTITIONED holds its own rows of X)
                r = rs[0]
                es = 8 if r.get("dtype") == "float64" else 4
                m, N = r["a"]["rows"], r["b"]["cols"]
                own = m / np
                xrows = own if r.get("xmode") == "partitioned" else r["a"]["cols"]
                bound = 1.5 * dk["bytes"] / np + (xrows + own) * N * es
                mem.append(f"host peak {f[-28:]} np={np}: {rss:.0f} MB (rank 0), bound 1.5 x slab + "
                           f"dense operands = {bound / 2**20:.0f} MB: {'within' if rss * 2**20 <= bound else 'ABOVE'}")
    print(f"{f[-28:]:28s} disk: dd cold {dk['dd_cold']/1e9:.2f} GB/s, direct {dk['dd_direct']/1e9:.2f} GB/s, "
          f"warm {dk['dd_warm']/1e9:.2f} GB/s; h5py cold {dk['h5py_cold']:.3f} s, warm {dk['h5py_warm']:.3f} s")
print("\n".join(mem) + ("\n(peak RSS includes the process's own ~40-50 MB of MPI, HDF5 and CUDA libraries)" if mem else ""))
print()
# where the wall time of each cold 1-rank run goes: before main(), MPI_Init, gcoo_dist_create,
# the phases, the tear-down after the report, and what is left (the launch, the JSON's printing)
print("wall time of cold 1-rank runs (seconds): exec->main, MPI_Init, dist_create, read, setup, "
      "dense+upload, products+check, tear-down, other")
for r in rows:
    if not (r["label"].startswith("spdm") and r.get("np") == 1 and r.get("mode") == "cold"
            and r.get("rc") == 0 and "startup_s" in r):
        continue
    t, s = r["time_s"], r["startup_s"]
    end = s["report_epoch_us"] * 1e-6
    teardown = r["exit_epoch"] - end
    # dist_create: the context and the wait for the GPU, at gcoo_dist_create or after the read
    gpu = t["dist_create"] + t.get("dist_bind", 0.0)
    prod = t["total"] - gpu - t["read"] - t["setup"] - t["dense_operand"] - t["upload"]
    parts = [s["exec_to_main"], s["mpi_init"], gpu, t["read"], t["setup"],
             t["dense_operand"] + t["upload"], prod, teardown]
    other = r["wall_s"] - sum(parts)
    name = ("without overlap/direct reads " if r["label"].startswith("spdm-off") else
            "cuBLAS loaded at start-up " if r["label"].startswith("spdm-cublas") else "") + r["label"].split(":", 1)[1][-28:]
    print(f"  {name}: " + " ".join(f"{v:.3f}" for v in parts) + f" {other:.3f} = wall {r['wall_s']:.3f}")
# the null MPI + CUDA command (bench/startup_null.c), cold, in the same columns: what any such
# job pays before and after its own work on this machine
nulls = [r for r in rows if r["label"].startswith("null") and r.get("rc") == 0 and r.get("cuda_ok")]
for r in nulls:
    teardown = r["exit_epoch"] - r["report_epoch_us"] * 1e-6
    name = {"null-plain": "null MPI + CUDA command, plain (no environment defaults)",
            "null": "null MPI + CUDA command as gcoo_dist starts (defaults; MPI_Init, then the context)",
            "null-overlap": "the same with the context on a thread beside MPI_Init",
            "null-nocusparse": "the same as gcoo_dist, without the cuSPARSE handle"}.get(
        r["label"], "the same as gcoo_dist, reading " + r["label"].split(":", 1)[-1].split("/")[-1] + " whole from main()")
    print(f"  {name}: exec->main {r['exec_to_main']:.3f}, MPI_Init {r['mpi_init']:.3f}, context "
          f"ready {r['cuda_ready']:.3f}" + (f", file read {r['read_done']:.3f}" if r.get("read_bytes", 0) > 0 else "")
          + f" (since main), tear-down {teardown:.3f} = wall {r['wall_s']:.3f}")
ver = next((r for r in rows if r["label"] == "version"), None)
if ver:
    print(f"  process start-up alone (gcoo_dist --version): cold {ver['cold']:.3f} s, warm {ver['warm']:.3f} s")
verc = next((r for r in rows if r["label"] == "version-cublas"), None)
if verc:
    print(f"  process start-up alone with cuBLAS loaded at start-up (LD_PRELOAD): cold {verc['cold']:.3f} s")
print()
first = next(iter(disk), None)
lines = []
# the CPU target: read + setup over h5py's read, same cache state
if backend == "cpu" and first in targets:
    mode = "cold" if cold_ok else "warm"
    t = targets[first].get((1, mode))
    h = disk[first]["h5py_cold" if cold_ok else "h5py_warm"]
    if t:
        ratio = (t[0] + t[1]) / h
        print(f"cpu read+setup ({mode}): {t[0] + t[1]:.3f} s vs h5py {h:.3f} s")
        lines.append(f"target cpu-read-setup: {ratio:.2f}x (goal <= 2x) {'met' if ratio <= 2 else 'missed'}")
    tw = targets[first].get((1, "warm"))
    if tw:
        hw = disk[first]["h5py_warm"]
        print(f"cpu read+setup (warm): {tw[0] + tw[1]:.3f} s vs h5py {hw:.3f} s: {(tw[0] + tw[1]) / hw:.2f}x")
# spdm floor: GPU only
if backend == "gpu" and first in targets and (1, "cold") in targets[first]:
    rd, su, kern, wall = targets[first][(1, "cold")]
    floor = disk[first]["bytes"] / disk[first]["dd_cold"] + kern
    r = wall / floor
    print(f"spdm floor: {disk[first]['bytes']} B / {disk[first]['dd_cold']/1e9:.2f} GB/s + kernel "
          f"{kern*1e3:.2f} ms = {floor:.3f} s; wall {wall:.3f} s")
    nr = next((x for x in nulls if x["label"] == "null-read:" + first), None)
    n0 = next((x for x in nulls if x["label"] == "null"), None)
    if n0:
        print(f"null MPI + CUDA command (cold): {n0['wall_s']:.3f} s = {n0['wall_s'] / floor:.2f}x the floor")
    if nr:
        left = 1.5 * floor - nr["wall_s"]
        print(f"null MPI + CUDA command reading the file (cold): {nr['wall_s']:.3f} s = "
              f"{nr['wall_s'] / floor:.2f}x the floor; 1.5x the floor = {1.5 * floor:.3f} s leaves "
              f"{left:.3f} s for the job's own work (it takes {wall - nr['wall_s']:.3f} s more than the null)"
              + ("" if left > 0 else ": the goal is below what any MPI + CUDA job reading this file takes here"))
    lines.append(f"target spdm-file-floor: {r:.2f}x (goal <= 1.5x) {'met' if r <= 1.5 else 'missed'}")
else:
    lines.append("target spdm-file-floor: not measured (no GPU run in this benchmark)")
sd = next((r for r in rows if r["label"] == "spgemm-disk"), None)
sg = [r for r in rows if r["label"].startswith("spgemm:") and r.get("rc") == 0 and "time_s" in r]
for r0 in sg:
    t0 = r0["time_s"]
    print(f"spgemm {r0['mode']}: wall {r0['wall_s']:.3f} s, read {t0['read']:.3f} s, plan "
          f"{t0['plan']:.3f} s, compute {t0['compute']:.3f} s, nnz(C) {r0['c']['nnz']}, "
          f"backend {r0['backend']}, rss {r0['rss_kb'] / 1024:.0f} MB")
    s0 = r0.get("startup_s")
    if s0:
        # exec->main, MPI_Init, then the command (its wait for the GPU after the read apart),
        # and the tear-down after the report
        teardown = r0["exit_epoch"] - s0["report_epoch_us"] * 1e-6
        bind = t0.get("bind", 0.0)
        cmd = t0["total"] - t0["write"]  # the read, the binding, plan, compute
        other = r0["wall_s"] - s0["exec_to_main"] - s0["mpi_init"] - cmd - teardown
        print(f"  spgemm {r0['mode']} wall: exec->main {s0['exec_to_main']:.3f}, MPI_Init {s0['mpi_init']:.3f}, "
              f"read {t0['read']:.3f}, GPU wait after the read {bind:.3f}, plan + slabs + compute "
              f"{cmd - t0['read'] - bind:.3f}, tear-down {teardown:.3f}, other {other:.3f}")
cold = [r for r in sg if r["mode"] == "cold"]
if backend == "gpu" and cold and sd:
    r0 = cold[0]
    floor = sd["bytes"] / sd["dd_cold"] + r0["time_s"]["compute"]
    r = r0["wall_s"] / floor
    print(f"spgemm floor: {sd['bytes']} B / {sd['dd_cold']/1e9:.2f} GB/s + compute "
          f"{r0['time_s']['compute']:.3f} s (no output written) = {floor:.3f} s; wall {r0['wall_s']:.3f} s")
    nr = next((x for x in nulls if x["label"] == "null-read:" + sd["file"]), None)
    if nr:
        left = 1.5 * floor - nr["wall_s"]
        print(f"null MPI + CUDA command reading the spgemm file (cold): {nr['wall_s']:.3f} s = "
              f"{nr['wall_s'] / floor:.2f}x the floor; 1.5x the floor leaves {left:.3f} s for the job's own work"
              + ("" if left > 0 else " (none: the goal is below what any MPI + CUDA job reading this file takes here)"))
    lines.append(f"target spgemm-file-floor: {r:.2f}x (goal <= 1.5x) {'met' if r <= 1.5 else 'missed'}")
else:
    lines.append("target spgemm-file-floor: not measured (" +
                 ("no spgemm run" if backend == "gpu" else "no GPU run in this benchmark") + ")")
mode = "cold" if cold_ok else "warm"
if first in targets and (1, mode) in targets[first] and (2, mode) in targets[first]:
    r1 = disk[first]["bytes"] / targets[first][(1, mode)][0]
    r2 = disk[first]["bytes"] / targets[first][(2, mode)][0]
    print(f"read rate ({mode}): 1 rank {r1/1e9:.2f} GB/s, 2 ranks {r2/1e9:.2f} GB/s aggregate")
    q = r2 / r1
    lines.append(f"target read-2rank: {q:.2f}x (goal >= 1.0x) {'met' if q >= 1.0 else 'missed'}"
                 + ("" if cold_ok else " (warm cache)")
                 + (f" (2 ranks sharing {ngpus} GPU)" if backend == "gpu" and ngpus < 2 else ""))
elif first in targets and not any(k[0] == 2 for k in targets[first]):
    lines.append("target read-2rank: not measured (no 2-rank run: --nps did not ask for one)")
else:
    lines.append("target read-2rank: not measured (a 1- or 2-rank run failed)")
print()
print("\n".join(lines))
EOF
