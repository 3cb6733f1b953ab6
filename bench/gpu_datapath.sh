#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_datapath.sh: issue 19 on one GPU in one short call: the Release build with CUDA, the
# GPU tests and the operator/file tests (whose contexts are CUDA there: GCOO_BACKEND unset means
# auto), then bench/datapath.sh on the GPU backend: a 27-point Poisson file that fills much of an
# H200 (--grid, default 160: 4.1M rows, 109M nnz, 909 MB), a real matrix (--real), and
# spgemm on a smaller Poisson file (--spgemm). Logs under $OUT (or ./gpu-datapath-out).
# --nps: the rank counts of datapath.sh (default "1 2": on a one-GPU machine the 2 ranks share it,
# which is what read-2rank then measures). Then the cold job's start-up profile
# (bench/startup_profile.sh).
# --checks: also the command's checks of scripts/gpu_check.sh (its step 4: the default job,
# spdm --check in both readings, solve) after the tests; --no-profile: without the profile.
#   usage: bench/gpu_datapath.sh [--grid N] [--real FILE.mtx.gz] [--spgemm N] [--nps "1 2"]
#                                [--tests-timeout S (default 60: 30 s is too short for the slowest GPU test)]
#                                [--checks] [--no-profile] [--tests REGEX (ctest -R instead of -L gpu)]
#                                [--targets "T1 T2" (build only these, and what they need)]
#                                [--starts N (N warm starts of a small spgemm job: any that dies of a signal)]
set -u
grid=160 real="" spgemm=80 tmo=60 nps="1 2" checks=0 profile=1 tests="" targets="" starts=0
while [ $# -gt 0 ]; do
  case "$1" in
    --grid) grid=$2; shift 2 ;;
    --real) real=$2; shift 2 ;;
    --spgemm) spgemm=$2; shift 2 ;;
    --tests-timeout) tmo=$2; shift 2 ;;
    --nps) nps=$2; shift 2 ;;
    --checks) checks=1; shift ;;
    --no-profile) profile=0; shift ;;
    --tests) tests=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --starts) starts=$2; shift 2 ;;
    *) echo "gpu_datapath.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
out=${OUT:-gpu-datapath-out}
mkdir -p "$out"
start=$(date +%s)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build build-gpu -j "$(nproc)" ${targets:+--target $targets}; } >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "=== build ok ($(( $(date +%s) - start )) s)"
if [ -n "$tests" ]; then
  timeout "$tmo" ctest --test-dir build-gpu -R "$tests" -j 4 --timeout "$tmo" >"$out/ctest-gpu.log" 2>&1
else
  timeout "$tmo" ctest --test-dir build-gpu -L gpu -j 4 --timeout "$tmo" >"$out/ctest-gpu.log" 2>&1
fi
echo "=== ctest ${tests:+-R $tests}${tests:--L gpu}: rc $? ($(( $(date +%s) - start )) s)"
grep -E "tests passed|Failed|\*\*\*" "$out/ctest-gpu.log" | cut -c1-110 | head -20
if [ -z "$tests" ]; then
  GCOO_TEST_BACKEND=cuda GCOO_ALLOW_SHARED_GPU=1 timeout 20 ctest --test-dir build-gpu -R "t031|t060|t402-dist|t404" -j 8 --timeout 20 >"$out/ctest-ops.log" 2>&1
  echo "=== operator and file tests (t404: every file layout through the CUDA backend): rc $? ($(( $(date +%s) - start )) s)"
  grep -E "tests passed|Failed|\*\*\*" "$out/ctest-ops.log" | cut -c1-110 | head -20
fi
if [ "$checks" = 1 ]; then
  gd=build-gpu/cli/gcoo_dist
  GCOO_BACKEND=cuda timeout 60 "$gd" >"$out/default.txt" 2>&1
  echo "=== check: default job rc $? ($(tail -n 1 "$out/default.txt" | cut -c1-100))"
  for reading in sparse-dense dense-sparse; do
    timeout 60 "$gd" spdm --backend gpu --stencil 27 --grid 64 --ncols 64 --reading $reading --check --json >"$out/spdm-$reading.json" 2>"$out/spdm-$reading.err"
    echo "=== check: spdm --check $reading rc $? ($(grep -o '"check": {[^}]*}' "$out/spdm-$reading.json"))"
  done
  timeout 90 "$gd" solve --backend gpu --stencil 7 --grid 48 --k 16 --json >"$out/solve.json" 2>"$out/solve.err"
  echo "=== check: solve k=16 rc $? ($(grep -o '"converged": [a-z]*' "$out/solve.json"))"
  # the product's bad input: a missing file and a dense dataset where A should be; nothing written
  timeout 30 "$gd" spdm --a /nonexistent.h5 --ncols 4 --backend gpu --out "$out/Y-missing.h5" >/dev/null 2>"$out/bad.err"
  echo "=== check: missing input rc $? (wants 1), output written: $([ -e "$out/Y-missing.h5" ] && echo YES || echo no); $(head -c 160 "$out/bad.err")"
fi
if [ "$starts" -gt 0 ]; then
  gd=build-gpu/cli/gcoo_dist sm=/tmp/gcoo-starts.h5
  "$gd" gen --stencil 7 --grid 24 --out "$sm" >/dev/null 2>&1
  died=0
  for ((i = 0; i < starts; i++)); do
    timeout 20 "$gd" spgemm --a "$sm" --backend gpu --dtype float32 >/dev/null 2>>"$out/starts.err"
    rc=$?
    [ $rc -gt 128 ] && died=$((died + 1)) && echo "start $i: rc $rc" >>"$out/starts.err"
  done
  echo "=== $starts warm starts of gcoo_dist spgemm (24^3): $died died of a signal"
fi
GEN_NP=8 bench/datapath.sh --gcoo build-gpu --dir /tmp/gcoo-datapath --grid "$grid" --backend gpu --reps 1 \
  --nps "$nps" --spgemm "$spgemm" --ab ${real:+--real "$real"} 2>&1 | tee "$out/datapath.txt"
cp /tmp/gcoo-datapath/runs.jsonl "$out/datapath-runs.jsonl" 2>/dev/null
# what the cold job reads of its shared objects, and the loader's statistics
[ "$profile" = 1 ] && echo "=== start-up profile ($(( $(date +%s) - start )) s)" &&
bench/startup_profile.sh build-gpu/cli/gcoo_dist spdm --a /tmp/gcoo-datapath/poisson27_"$grid".h5 \
  --ncols 32 --backend gpu --repeat 5 --check 2>&1 | tee "$out/startup-profile.txt"
echo "=== done ($(( $(date +%s) - start )) s)"
