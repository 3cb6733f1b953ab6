#!/usr/bin/env bash
# bench/gpu_bench_spdm.sh OUT_DIR [MATRICES_DIR]: one GPU call for the SpDM results: Release
# build, the GPU test suite (must pass before numbers count), then bench/run_spdm.sh on GPU 0
# (random sweep, real matrices at N = 32/128/512, structured inputs, conversions), archived
# into OUT_DIR.tgz. Run from the repository root after `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT_DIR [MATRICES_DIR]}
mats=${2:-.mats}
build=build-gpu
mkdir -p "$out"
start=$(date +%s)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build "$build" -j "$(nproc)"; } >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "=== build ok ($(( $(date +%s) - start )) s)"
timeout 240 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 200 >"$out/ctest-gpu.log" 2>&1
echo "=== ctest -L gpu: rc $? ($(( $(date +%s) - start )) s)"
grep -E "Test +#|tests passed" "$out/ctest-gpu.log" | cut -c1-100
left=$(( ${GCOO_BENCH_SECONDS:-560} - ($(date +%s) - start) ))
echo "=== benchmark, budget $((left - 25)) s"
CUDA_VISIBLE_DEVICES=0 timeout "$left" bash bench/run_spdm.sh "$build" "$mats" "$out/bench" --budget $((left - 25)) >"$out/bench.out" 2>&1
echo "=== benchmark rc $? ($(( $(date +%s) - start )) s)"
sed -n '/^random sweep, ms/,$p' "$out/bench.out" | cut -c1-230 | tail -90
tar -czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "archive: $out.tgz"
