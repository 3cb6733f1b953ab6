#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_check_call.sh [OUTDIR]: the check a tree needs on the GPU machine before its device
# code is trusted, as one device call (from the repository root, carry [".device-kit"], with
# .device-kit/setup.sh from ../shared/device for MPI and parallel HDF5): configure and build
# everything in build-gpu, run every test labelled gpu, then the GPU tests of the device code
# most exposed to a change (the SpDM kernels, the SpGEMM, block CG on the device at 1 and 2
# ranks) under compute-sanitizer memcheck, and the split-K sum under racecheck; then, with the
# time left, CG on the device beside CuPy's (bench/krylov_gpu.py, krylov-gpu.txt). Writes
# gpu-check.txt (the machine, the tree, each step's result and time) and the logs to OUTDIR
# (default $OUT). Keeps to CALL_BUDGET_S (default 560 s): a step that would start too late is
# skipped and said.
set -u -o pipefail
out="${1:-${OUT:?set OUT or give OUTDIR}}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
top="$(pwd)"
# shellcheck disable=SC1091
[ -f .device-kit/setup.sh ] && source .device-kit/setup.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export GCOO_TEST_DATA="$top/tests/data"
budget="${CALL_BUDGET_S:-560}"
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
rep="$out/gpu-check.txt"
say() { echo "[$(el) s] $*" | tee -a "$rep"; }
{
  echo "# gcoo GPU check: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
  echo "# tree: $(cat .device-kit/COMMIT 2>/dev/null | head -1 || echo unknown)"
  echo "# command: bash bench/gpu_check_call.sh"
} >"$rep"
step() { # step NAME SECONDS_NEEDED COMMAND...: run unless too late; its log in OUT
  local name="$1" need="$2"
  shift 2
  if [ $(($(el) + need)) -gt "$budget" ]; then
    say "$name: skipped (about ${need} s needed, $((budget - $(el))) s left)"
    return 0
  fi
  local s=$(date +%s)
  if "$@" >"$out/$name.log" 2>&1; then
    say "$name: passed in $(($(date +%s) - s)) s"
  else
    say "$name: FAILED in $(($(date +%s) - s)) s (tail of $name.log:)"
    tail -30 "$out/$name.log" | sed 's/^/    /' | tee -a "$rep"
  fi
}
step configure 60 cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo
step build 300 cmake --build build-gpu -j 16
step ctest-gpu 180 ctest --test-dir build-gpu -L gpu --output-on-failure -j 4
grep -E "tests passed|FAILED|Failed|Not Run" "$out/ctest-gpu.log" | sed 's/^/    /' >>"$rep"
step memcheck 150 env GCOO_SANITIZER_BUILD="$top/build-gpu" GCOO_SANITIZER_TOOLS=memcheck \
  GCOO_SANITIZER_SELECT="-R t302|t303|t503-spgemm-gpu$|t610-bcg_np1_cuda" \
  bash .ci/stages/39-compute-sanitizer.sh
step racecheck 60 env GCOO_SANITIZER_BUILD="$top/build-gpu" GCOO_SANITIZER_TOOLS=racecheck \
  GCOO_SANITIZER_SELECT="-R t305" bash .ci/stages/39-compute-sanitizer.sh
step krylov-gpu 120 /usr/bin/env python3 bench/krylov_gpu.py build-gpu/cli/gcoo_dist
cp "$out/krylov-gpu.log" "$out/krylov-gpu.txt" 2>/dev/null
say "done"
