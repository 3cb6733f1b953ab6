#!/usr/bin/env bash
# bench/gpu_spdm_call.sh OUT MATS [N] [SECTIONS]: issue 15, one GPU call: Release
# build of the SpDM targets, the SpDM GPU tests (t302, t303, t305), memcheck of t303 and t305
# --quick (every tuned variant, the batched ones included; the tensor-core mode and its trial),
# then spdm_bench --lean at one width N (default 32) over the
# real and large sections, float and double, with GCOO_DEBUG=TRACE GCOO_DEBUG_SUBSYS=TRIAL (each shape-trial candidate's
# time in the log). N = all: 32, 128 and 512. From the repository root, after `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT MATS [N] [SECTIONS]}; mats=${2:?}; n=${3:-32}
secs=${4:-real,large,real-f64,large-f64}
mkdir -p "$out"; t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
{ cmake -S . -B bg -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGCOO_DEVELOPER=ON &&
  cmake --build bg -j"$(nproc)" --target spdm_bench t302-cuda-spdm t303-cuda-tuned t305-cuda-tc; } \
  >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "$(el) built"
ctest --test-dir bg -R "t30[235]" --output-on-failure --timeout 120 >"$out/tests.log" 2>&1
rc=$?; grep -E "Test +#|tests passed|FAIL" "$out/tests.log" | cut -c1-160 | head -20; echo "$(el) ctest rc $rc"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 bg/tests/gpu/t303-cuda-tuned --quick >"$out/memcheck-t303.log" 2>&1
mrc=$?; grep "ERROR SUMMARY" "$out/memcheck-t303.log"; echo "$(el) memcheck t303 rc $mrc"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 bg/tests/gpu/t305-cuda-tc --quick >"$out/memcheck-t305.log" 2>&1
m5=$?; grep "ERROR SUMMARY" "$out/memcheck-t305.log"; echo "$(el) memcheck t305 rc $m5"; [ "$m5" = 0 ] || mrc=$m5
[ "$rc" = 0 ] && [ "$mrc" = 0 ] || { tail -40 "$out/tests.log"; }
nopt=(--n "$n"); [ "$n" = all ] && nopt=()
GCOO_DEBUG=TRACE GCOO_DEBUG_SUBSYS=TRIAL bg/bench/spdm_bench --out "$out/b" --matrices "$mats" --lean --budget 150 "${nopt[@]}" \
  --sections "$secs" >"$out/bench.txt" 2>&1
echo "$(el) bench rc $?"; cp "$out/b/spdm.csv" "$out/spdm.csv" 2>/dev/null
sed -n '/== summary/,$p' "$out/bench.txt" | grep -v "^  " | head -40
