#!/usr/bin/env bash
# bench/gpu_spdm_s5.sh OUT MATS [BUDGET]: issue 15, session 5, one GPU call: Release build of the
# SpDM targets, the SpDM GPU tests (t302-t305) and memcheck of t303 --quick (the tuned kernels),
# an ncu profile of the tuned kernel and cuSPARSE on kron4:cage11 (float N = 32, double N = 512:
# trials off so that each op runs its rule's kernel), then spdm_bench --lean over the random,
# real and large sections in float and double (the cases the targets are computed on).
# Run from the repository root after `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT MATS [BUDGET]}; mats=${2:?}; budget=${3:-80}
mkdir -p "$out"; t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
git log -1 --format='tree %h %s' 2>/dev/null | cut -c1-100
{ cmake -S . -B bg -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build bg -j"$(nproc)" --target spdm_bench t300-cuda-ctx t301-cuda-convert t302-cuda-spdm \
    t303-cuda-tuned t304-dispatch t305-cuda-tc; } >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "$(el) built"
ctest --test-dir bg -R "t30[0-5]" --output-on-failure --timeout 120 >"$out/tests.log" 2>&1
rc=$?; grep -E "Test +#|tests passed|FAIL" "$out/tests.log" | cut -c1-140 | head -20; echo "$(el) ctest rc $rc"
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 bg/tests/gpu/t303-cuda-tuned --quick >"$out/memcheck-t303.log" 2>&1
mrc=$?; grep "ERROR SUMMARY" "$out/memcheck-t303.log"; echo "$(el) memcheck t303 rc $mrc"
[ "$rc" = 0 ] && [ "$mrc" = 0 ] || { tail -40 "$out/tests.log"; exit 2; }
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size
for c in "large 32" "large-f64 512"; do
  set -- $c
  for m in tuned csp_alg2 csp_alg3; do
    echo "## ncu $1 kron4:cage11 N=$2 $m"
    GCOO_AUTO_TRIAL=0 timeout 40 ncu --clock-control none --metrics "$M" --launch-count 70 --csv --page raw \
      bg/bench/spdm_bench --out /tmp/ncu-b --matrices "$mats" --sections "$1" --match cage11 --quick --lean \
      --n "$2" --methods "$m" 2>&1 | grep '^"' >/tmp/ncu.csv
    python3 bench/ncu_brief.py /tmp/ncu.csv
  done
done >"$out/ncu.txt" 2>&1
echo "$(el) ncu"; cat "$out/ncu.txt" | cut -c1-400
bg/bench/spdm_bench --out "$out/b" --matrices "$mats" --lean --budget "$budget" \
  --sections random,real,real-f64,large,large-f64 >"$out/bench.txt" 2>&1
echo "$(el) bench rc $?"; cp "$out/b/spdm.csv" "$out/spdm.csv" 2>/dev/null
sed -n '/== summary/,$p' "$out/bench.txt"
