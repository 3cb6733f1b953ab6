#!/usr/bin/env bash
# bench/gpu_bench_all.sh OUT_DIR [MATRICES_DIR]: one GPU call for the single-GPU results: Release
# build, ctest -L gpu, the SpDM benchmark (bench/run_spdm.sh), the SpGEMM benchmark
# (spgemm_bench) and the solver benchmark (bench/run_solver.sh), on GPU 0, archived into
# OUT_DIR.tgz. Run from the repository root after `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT_DIR [MATRICES_DIR]}
mats=${2:-.mats}
build=build-gpu
mkdir -p "$out"
start=$(date +%s)
t() { echo "$(( $(date +%s) - start )) s"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build "$build" -j "$(nproc)"; } >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "=== build ok ($(t))"
timeout 200 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 150 >"$out/ctest-gpu.log" 2>&1
echo "=== ctest -L gpu: rc $? ($(t))"; grep -E "tests passed|\*\*\*" "$out/ctest-gpu.log" | head
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1 >"$out/gpu.txt"
export CUDA_VISIBLE_DEVICES=0
timeout 150 bash bench/run_spdm.sh "$build" "$mats" "$out/spdm" --budget 130 >"$out/spdm.out" 2>&1
echo "=== SpDM benchmark rc $? ($(t))"
timeout 180 "$build/bench/spgemm_bench" --reps 5 --budget-test --out "$out/spgemm" "$mats"/*.mtx.gz >"$out/spgemm.out" 2>&1
echo "=== SpGEMM benchmark rc $? ($(t))"
timeout 130 bash bench/run_solver.sh "$build" "$out/solver" 100 1 >"$out/solver.out" 2>&1
echo "=== solver benchmark rc $? ($(t))"
echo; echo "=== SpDM summary"; sed -n '/^== summary/,$p' "$out/spdm.out" | cut -c1-200
echo; echo "=== SpGEMM summary"; tail -25 "$out/spgemm.out" | cut -c1-200
echo; echo "=== solver"; cat "$out/solver.out" | cut -c1-200
tar -czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "archive: $out.tgz"
