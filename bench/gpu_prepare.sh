# SPDX-License-Identifier: MIT
# bench/gpu_prepare.sh: sourced by the bench/gpu_bench_*.sh scripts (not run on its own): the
# Release build with CUDA in build-gpu/ and the GPU test suite, which must pass before the
# numbers that follow count. Expects $out (a folder for the logs); sets $build and $start.
build=build-gpu
start=$(date +%s)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build "$build" -j "$(nproc)"; } >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "=== build ok ($(( $(date +%s) - start )) s)"
timeout 240 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 200 >"$out/ctest-gpu.log" 2>&1
echo "=== ctest -L gpu: rc $? ($(( $(date +%s) - start )) s)"
grep -E "Test +#|tests passed" "$out/ctest-gpu.log" | cut -c1-100
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
