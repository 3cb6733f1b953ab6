#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/solver_next_call.sh [BUILD_DIR]: one GPU call that checks and times block CG's device
# path (issue 14): the W form (GCOO_BCG_WFORM, GCOO_BCG_WFORM_RATIO) and the fused
# kernels' defaults per element type and width. Run from the repository root on the GPU machine:
#   1. build (Release, sm_90) gcoo_dist, solve_bench, t610-bcg                                     ~35 s
#   2. ctest t610 cuda np1 + np2 (device vs host for every variant, bad switches refused)  ~45 s
#   3. bench/run_solver.sh, Poisson 100^3, k = 32, 16, 1: the default, the variant rows, the
#      GEMM path and PyTorch side by side, the target lines                               ~60 s
#   4. compute-sanitizer memcheck of k = 32, 40, 16 solves (W form, P made explicit every
#      iteration, the P form), racecheck of a k = 32 solve                                ~40 s
#   5. ncu of one iteration's kernels (default), if time is left                          ~20 s
#   5b. the whole t610 cuda under memcheck, in the time left
#   6. the summary: test verdicts, the rows, the target lines
# The call (the device runs /work/main; the branch is copied into an ignored folder of it, with
# its commit noted):
#   rsync -a --delete --exclude build --exclude 'build-*' --exclude .git /work/wt/solver/ /work/main/.wt/solver/
#   git -C /work/wt/solver log -1 --format='%H %s' > /work/main/.wt/solver/COMMIT
#   run: cd .wt/solver && DEVICE_KIT=../../.device-kit/setup.sh CALL_BUDGET_S=205 bash bench/solver_next_call.sh build-gpu
#        carry [".wt/solver", ".device-kit"], timeout_s 230
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
  { cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGCOO_DEVELOPER=ON && # the GCOO_BCG_* variants are developer parameters
    cmake --build "$B" -j16 --target gcoo_dist solve_bench t610-bcg; } >"$W/build.log" 2>&1 || {
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

# 3. the benchmark: every variant row beside the default, the GEMM path and PyTorch
dl=$((t0 + budget - 85)) # runs not started by then are skipped; the table still prints
if [ -n "${DRY:-}" ]; then
  SOLVER_BENCH_DEADLINE=$dl SOLVER_BENCH_BACKEND=cpu SOLVER_BENCH_GRID=12 \
    bash bench/run_solver.sh "$B" "$W/bench" "" "32 16 1" 2>&1 | tee "$W/bench.txt"
else
  SOLVER_BENCH_DEADLINE=$dl bash bench/run_solver.sh "$B" "$W/bench" "" "32 16 1" 2>&1 | tee "$W/bench.txt"
fi
echo "bench $(el)"
pack

# 4. memcheck of short solves in the W form (default), with P made explicit every iteration
#    (ratio 1: bcg_transform each time), in the P form, and k = 40 (k x k arrays in global
#    memory); racecheck of the default k = 32 solve
if gpu_tool compute-sanitizer; then
  for v in "32|" "32|GCOO_BCG_WFORM_RATIO=1" "32|GCOO_BCG_WFORM=0" "40|GCOO_BCG_WFORM_RATIO=1" "16|"; do
    k=${v%%|*} e=${v#*|}
    [ "$(left)" -gt 50 ] || { echo "memcheck k $k '$e' skipped (time)"; continue; }
    f="$W/memcheck-k$k-${e//[ =,]/_}.log"
    # shellcheck disable=SC2086
    env $e timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$B/cli/gcoo_dist" solve --backend gpu --stencil 7 --grid 24 --k "$k" --tol 1e-8 --maxit 12 >"$f" 2>&1
    echo "memcheck k $k '$e': rc $? $(grep -hE 'ERROR SUMMARY' "$f" | tail -1) $(el)"
  done
  if [ "$(left)" -gt 50 ]; then
    timeout 40 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 \
      "$B/cli/gcoo_dist" solve --backend gpu --stencil 7 --grid 24 --k 32 --tol 1e-8 --maxit 12 \
      >"$W/racecheck-k32.log" 2>&1
    echo "racecheck k 32: rc $? $(grep -hE 'RACECHECK SUMMARY|ERROR SUMMARY' "$W/racecheck-k32.log" | tail -1) $(el)"
  fi
else
  echo "compute-sanitizer: missing"
fi
pack

# 5. per kernel (ncu's locked clock): the kernels of iterations 2-3 of a k = 32 solve
if gpu_tool ncu && [ "$(left)" -gt 25 ]; then
  f="$W/ncu-default.csv"
  timeout 25 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread \
    --csv --page raw --kernel-name regex:'bcg_|gemm|column_totals|spdm|gcoo' --launch-skip 40 --launch-count 24 \
    "$B/cli/gcoo_dist" solve --backend gpu --stencil 7 --grid 100 --k 32 --tol 1e-8 --maxit 4 >"$f" 2>"$f.err"
  echo "ncu default: rc $? $(el)"
  python3 - "$f" <<'PY' | tee -a "$W/ncu.txt"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 3]
hs = [i for i, r in enumerate(rows) if 'Kernel Name' in r]
if not hs or len(rows) < hs[0] + 3:
    print("  ncu: no rows"); sys.exit(0)
rows = rows[hs[0]:]
ix = {n: i for i, n in enumerate(rows[0])}
f = lambda s: float(s.replace(',', '')) if s.strip() else float('nan')
for r in rows[2:]:  # row 1 holds the units
    t = f(r[ix['gpu__time_duration.sum']]) / 1e3  # ns -> us
    b = (f(r[ix['dram__bytes_read.sum']]) + f(r[ix['dram__bytes_write.sum']])) / 1e6  # MB; MB / us = TB/s
    print(f"  {r[ix['Kernel Name']][:58]:58s} {t:8.1f} us {b:7.1f} MB {b / t if t else 0:5.2f} TB/s "
          f"reg {r[ix['launch__registers_per_thread']]}")
PY
else
  echo "ncu: $(gpu_tool ncu && echo "skipped (time)" || echo missing)"
fi
pack

# 5b. all of t610 cuda under memcheck, in the time left
if gpu_tool compute-sanitizer && [ "$(left)" -gt 45 ]; then
  GCOO_ALLOW_SHARED_GPU=1 timeout $(($(left) - 12)) compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$B/tests/solver/t610-bcg" cuda >"$W/memcheck-t610.log" 2>&1
  echo "memcheck t610 cuda rc $? $(el)"
  grep -E "ERROR SUMMARY|all checks|FAIL" "$W/memcheck-t610.log" | tail -4
else
  echo "memcheck t610 cuda: skipped ($(gpu_tool compute-sanitizer && echo time || echo missing))"
fi
pack

# 6. the summary
{
  echo "== solver-next summary $(el)"
  grep -E "tests passed|Test +#" "$W/ctest.log"
  grep -HE "ERROR SUMMARY|RACECHECK SUMMARY" "$W"/memcheck*.log "$W"/racecheck-*.log 2>/dev/null | sed "s|$W/||"
  grep -E "FAIL" "$W/ctest.log" | head -8
  grep -E "^poisson +(32|16) " "$W/bench.txt"
  grep -E "fastest row|x$" "$W/bench.txt"
  grep -E "^target " "$W/bench.txt"
} | tee "$W/summary.txt"
pack
echo "done $(el)"
