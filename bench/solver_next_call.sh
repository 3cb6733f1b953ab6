#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/solver_next_call.sh [BUILD_DIR]: one GPU call that checks and times block CG's fused-kernel
# variants (kernels/solver_cuda.cu: GCOO_BCG_STAGES, GCOO_BCG_GRAM2, GCOO_BCG_W_IN_R,
# GCOO_BCG_KK_THREADS; issue 14), prepared in session 3 without a GPU. Run from the repository
# root on the GPU machine:
#   1. build (Release, sm_90) gcoo_dist and t610-bcg                                       ~35 s
#   2. ctest t610 cuda np1 + np2 (device vs host for every variant, a bad switch refused)   ~40 s
#   3. compute-sanitizer memcheck of t610 cuda; racecheck of two variants' solves           ~90 s
#   4. bench/run_solver.sh, Poisson 100^3, k = 32, 16, 1: the default, every variant row,
#      the GEMM path and PyTorch side by side                                             ~120 s
#   5. ncu of the three fused kernels for the default and five variants, if time is left    ~80 s
#   6. the summary: test verdicts, the variant rows, the target lines
# The next session's call (the device runs /work/main; the branch is copied into an ignored
# folder of it, with its commit noted):
#   rsync -a --delete --exclude build --exclude 'build-*' --exclude .git /work/wt/solver/ /work/main/.wt/solver/
#   git -C /work/wt/solver log -1 --format='%H %s' > /work/main/.wt/solver/COMMIT
#   run: cd .wt/solver && DEVICE_KIT=../../.device-kit/setup.sh bash bench/solver_next_call.sh build-gpu
#        carry [".wt/solver", ".device-kit"], timeout_s 600
# Everything goes to $OUT (solver-next.tgz with every log; bench.txt, summary.txt beside it).
# CALL_BUDGET_S (default 540): phases are skipped, never cut short, once their start would leave
# too little of it. DEVICE_KIT: a setup.sh to source first (parallel HDF5 of the device kit).
# DRY=1: a dry run on a machine without a GPU, with BUILD_DIR an existing CUDA build: no cmake,
# the GPU tests skip (77), the GPU tools are reported missing, the benchmark runs
# SOLVER_BENCH_BACKEND=cpu on a 12^3 grid: it checks the script's plumbing, not the code.
set -u -o pipefail
B=${1:-build-gpu}
: "${OUT:?set OUT to the folder the logs go to}"
budget=${CALL_BUDGET_S:-540}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck disable=SC1090 # the kit is named at run time
[ -n "${DEVICE_KIT:-}" ] && { source "$DEVICE_KIT" >/dev/null 2>&1 || echo "source $DEVICE_KIT failed"; }
t0=$(date +%s)
el() { echo "[$(($(date +%s) - t0)) s]"; }
left() { echo $((budget - ($(date +%s) - t0))); }
W=$(mktemp -d /tmp/solver-next.XXXXXX)
pack() {
  tar -czf "$OUT/solver-next.tgz" -C "$W" . 2>/dev/null
  cp "$W/bench.txt" "$OUT/bench.txt" 2>/dev/null
  cp "$W/summary.txt" "$OUT/summary.txt" 2>/dev/null
  true
}
have() { command -v "$1" >/dev/null 2>&1; }
gpu_tool() { [ -z "${DRY:-}" ] && have "$1"; } # a dry run reports the GPU tools missing
{
  date -u
  gpu_tool nvidia-smi && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  # a copy without .git: the caller writes the commit it copied into COMMIT
  git log -1 --format='%H %s' 2>/dev/null || cat COMMIT 2>/dev/null || echo "(no .git, no COMMIT file)"
} | tee "$W/gpu.txt"

# 1. build
if [ -z "${DRY:-}" ]; then
  { cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
    cmake --build "$B" -j16 --target gcoo_dist t610-bcg; } >"$W/build.log" 2>&1 || {
    tail -40 "$W/build.log"
    pack
    exit 1
  }
fi
echo "build ok $(el)"
pack

# 2. t610 cuda, 1 and 2 ranks
timeout 150 ctest --test-dir "$B" -L gpu -R t610 --output-on-failure --timeout 140 >"$W/ctest.log" 2>&1
echo "ctest t610 cuda rc $? $(el)"
grep -E "Test +#|tests passed" "$W/ctest.log"
grep -E "FAIL|device vs host double k (16|32)|device vs host float k 32 GCOO_BCG_FUSED=1 " "$W/ctest.log" | head -24
pack

# 3. memcheck of t610 cuda (every variant); racecheck of a k = 32 solve in two variants (the
#    pipelines' barriers, the one-warp k x k kernels)
if gpu_tool compute-sanitizer && [ "$(left)" -gt 330 ]; then
  GCOO_ALLOW_SHARED_GPU=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$B/tests/solver/t610-bcg" cuda >"$W/memcheck.log" 2>&1
  echo "memcheck t610 cuda rc $? $(el)"
  grep -E "ERROR SUMMARY|all checks|FAIL" "$W/memcheck.log" | tail -4
  for v in "GCOO_BCG_STAGES=2,2,3 GCOO_BCG_GRAM2=async16 GCOO_BCG_KK_THREADS=32" "GCOO_BCG_STAGES=3,2,3 GCOO_BCG_GRAM2=regs GCOO_BCG_W_IN_R=1"; do
    [ "$(left)" -gt 300 ] || { echo "racecheck '$v' skipped (time)"; continue; }
    # shellcheck disable=SC2086
    env $v timeout 60 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 \
      "$B/cli/gcoo_dist" solve --backend gpu --stencil 7 --grid 24 --k 32 --tol 1e-8 --maxit 12 \
      >"$W/racecheck-${v//[ =,]/_}.log" 2>&1
    echo "racecheck k 32 $v: rc $? $(grep -hE 'RACECHECK SUMMARY|ERROR SUMMARY' "$W/racecheck-${v//[ =,]/_}.log" | tail -1) $(el)"
  done
else
  echo "compute-sanitizer: $(gpu_tool compute-sanitizer && echo "skipped (time)" || echo missing)"
fi
pack

# 4. the benchmark: every variant row beside the default, the GEMM path and PyTorch
dl=$((t0 + budget - 75)) # runs not started by then are skipped; the table still prints
if [ -n "${DRY:-}" ]; then
  SOLVER_BENCH_DEADLINE=$dl SOLVER_BENCH_BACKEND=cpu SOLVER_BENCH_GRID=12 \
    bash bench/run_solver.sh "$B" "$W/bench" "" "32 16 1" 2>&1 | tee "$W/bench.txt"
else
  SOLVER_BENCH_DEADLINE=$dl bash bench/run_solver.sh "$B" "$W/bench" "" "32 16 1" 2>&1 | tee "$W/bench.txt"
fi
echo "bench $(el)"
pack

# 5. per kernel (ncu's locked clock; one iteration's three fused kernels, the last of 3)
if gpu_tool ncu; then
  for v in "" "GCOO_BCG_STAGES=3,2,3 GCOO_BCG_W_IN_R=1" "GCOO_BCG_STAGES=3,2,3" "GCOO_BCG_STAGES=2,3,4" \
    "GCOO_BCG_GRAM2=regs" "GCOO_BCG_GRAM2=async16"; do
    [ "$(left)" -gt 40 ] || { echo "ncu '$v' skipped (time)"; continue; }
    f="$W/ncu-${v:-default}.csv"
    f=${f//[ =,]/_}
    # shellcheck disable=SC2086
    # the four metrics of session 3's calls, and the Occupancy section (blocks an SM, achieved
    # occupancy: printed where its column names are found)
    env $v timeout 25 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread \
      --section Occupancy --csv --page raw --kernel-name regex:bcg_fused "$B/cli/gcoo_dist" solve --backend gpu --stencil 7 \
      --grid 100 --k 32 --tol 1e-8 --maxit 3 >"$f" 2>"$f.err"
    echo "ncu ${v:-default}: rc $? $(el)"
    python3 - "$f" <<'PY' | tee -a "$W/ncu.txt"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 3]
hs = [i for i, r in enumerate(rows) if 'Kernel Name' in r]
if not hs or len(rows) < hs[0] + 3:
    print("  ncu: no rows"); sys.exit(0)
rows = rows[hs[0]:]
ix = {n: i for i, n in enumerate(rows[0])}
f = lambda s: float(s.replace(',', '')) if s.strip() else float('nan')
col = lambda r, name: r[ix[name]] if name in ix else '?'
for r in rows[2:][-3:]:  # row 1 holds the units
    t = f(r[ix['gpu__time_duration.sum']]) / 1e3  # ns -> us
    b = (f(r[ix['dram__bytes_read.sum']]) + f(r[ix['dram__bytes_write.sum']])) / 1e6  # MB; MB / us = TB/s
    print(f"  {r[ix['Kernel Name']][:58]:58s} {t:8.1f} us {b:7.1f} MB {b / t if t else 0:5.2f} TB/s "
          f"reg {col(r, 'launch__registers_per_thread')} blocks/SM(smem) {col(r, 'launch__occupancy_limit_shared_mem')} "
          f"achieved occupancy {col(r, 'sm__warps_active.avg.pct_of_peak_sustained_active')}%")
PY
  done
else
  echo "ncu missing: no per-kernel times"
fi
pack

# 6. the summary
{
  echo "== solver-next summary $(el)"
  grep -E "tests passed|Test +#" "$W/ctest.log"
  grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$W"/memcheck.log "$W"/racecheck-*.log 2>/dev/null
  grep -E "^poisson +(32|16) " "$W/bench.txt"
  grep -E "fastest row|x$" "$W/bench.txt"
  grep -E "^target " "$W/bench.txt"
} | tee "$W/summary.txt"
pack
echo "done $(el)"
