#!/usr/bin/env bash
# scripts/gpu_check.sh OUT_DIR [MATRICES_DIR]: what must pass on a GPU machine before a GPU
# change lands, in one call (about 6-8 minutes on 1-2 H200s). Run from the repository root
# after `source .device-kit/setup.sh`. Steps (each with its own time limit; a failing step is
# reported and the next one runs; everything is logged under OUT_DIR):
#   1. Release build with CUDA (sm_90), NCCL, parallel HDF5
#   2. ctest -L gpu: kernels, conversions, every SpDM algorithm, SpGEMM, distributed operators
#      and block CG on 1..G GPUs
#   3. compute-sanitizer memcheck + racecheck on the tuned SpDM test, memcheck on SpGEMM
#   4. the command on the GPUs: default job, spdm --check on both readings, solve
#   5. the tuned-kernel sweep (variants x p) that the SpDM defaults are chosen from
set -u
out=${1:?usage: $0 OUT_DIR [MATRICES_DIR]}
mats=${2:-.mats}
mkdir -p "$out"
build=build-gpu
start=$(date +%s)
status=()
elapsed() { echo $(( $(date +%s) - start )); }
step() { status+=("$(printf '%-34s %s (%ss)' "$1" "$([ "$2" = 0 ] && echo ok || echo "FAILED (rc $2)")" "$(elapsed)")"); }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "=== gcoo GPU check $(date -u), $gpus GPU(s)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

echo "=== 1. build"
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  timeout 400 cmake --build "$build" -j "$(nproc)"; } >"$out/build.log" 2>&1
rc=$?; grep -E "gcoo 0|error|spill" "$out/build.log" | head -8; step build $rc

echo "=== 2. ctest -L gpu"
timeout 300 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 200 >"$out/ctest-gpu.log" 2>&1
rc=$?; grep -E "Test +#|tests passed" "$out/ctest-gpu.log" | cut -c1-110; step "ctest -L gpu" $rc

echo "=== 3. compute-sanitizer"
t303="$build/tests/gpu/t303-cuda-tuned"; t503="$build/tests/gpu/t503-spgemm-gpu"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$t303" --quick >"$out/memcheck-t303.log" 2>&1
rc=$?; grep "ERROR SUMMARY" "$out/memcheck-t303.log"; step "memcheck t303 (tuned SpDM)" $rc
timeout 120 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$t303" --quick >"$out/racecheck-t303.log" 2>&1
rc=$?; grep "RACECHECK SUMMARY\|ERROR SUMMARY" "$out/racecheck-t303.log"; step "racecheck t303 (tuned SpDM)" $rc
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$t503" >"$out/memcheck-t503.log" 2>&1
rc=$?; grep "ERROR SUMMARY" "$out/memcheck-t503.log"; step "memcheck t503 (SpGEMM)" $rc
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/gpu/t302-cuda-spdm" >"$out/memcheck-t302.log" 2>&1
rc=$?; grep "ERROR SUMMARY" "$out/memcheck-t302.log"; step "memcheck t302 (every SpDM alg)" $rc

echo "=== 4. gcoo_dist on the GPUs"
gd="$build/cli/gcoo_dist"
GCOO_BACKEND=cuda timeout 60 mpirun -np "$gpus" "$gd" >"$out/default.txt" 2>&1
rc=$?; tail -n 4 "$out/default.txt"; step "default job on $gpus GPU(s)" $rc
for reading in sparse-dense dense-sparse; do
  timeout 60 mpirun -np "$gpus" "$gd" spdm --backend gpu --stencil 27 --grid 64 --ncols 64 --reading $reading --check --json >"$out/spdm-$reading.json" 2>"$out/spdm-$reading.err"
  rc=$?; head -c 400 "$out/spdm-$reading.json"; echo; step "spdm --check $reading" $rc
done
timeout 90 mpirun -np "$gpus" "$gd" solve --backend gpu --stencil 7 --grid 48 --k 16 --json >"$out/solve.json" 2>"$out/solve.err"
rc=$?; head -c 600 "$out/solve.json"; echo; step "solve k=16 on $gpus GPU(s)" $rc

echo "=== 5. tuned-kernel sweep"
mkdir -p "$out/sweep"
left=$(( 540 - $(elapsed) )); [ $left -gt ${GCOO_SWEEP_SECONDS:-150} ] && left=${GCOO_SWEEP_SECONDS:-150}
if [ $left -gt 40 ]; then
  timeout $left "$build/bench/spdm_bench" --sweep --out "$out/sweep" --matrices "$mats" --budget $((left - 15)) >"$out/sweep/sweep.out" 2>&1
  rc=$?; step sweep $rc
  sed -n '/== sweep summary/,$p' "$out/sweep/sweep.out" | cut -c1-200 | head -40
fi

echo "=== summary ($(elapsed) s)"
for s in "${status[@]}"; do echo "$s"; done
# one archive, so that every log comes back whatever the number of files
tar -czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "archive: $out.tgz"
