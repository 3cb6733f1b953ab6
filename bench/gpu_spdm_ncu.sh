#!/usr/bin/env bash
# bench/gpu_spdm_ncu.sh OUT MATS [N]: issue 15, one GPU call: Release build of
# spdm_bench, then an ncu profile (--clock-control none) of the tuned kernel (GCOO without p: its
# shape trial's candidates, then its choice) and of cuSPARSE CSR_ALG3 on the float N = 32 cases
# where AUTO trails or stays level (kron4:ca-CondMat, kron8:rajat01, kron4:cage11,
# ct2010), grouped by kernel and launch shape (bench/ncu_group.py).
# From the repository root, after `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT MATS [N]}; mats=${2:?}; n=${3:-32}
mkdir -p "$out"; t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
{ cmake -S . -B bg -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build bg -j"$(nproc)" --target spdm_bench; } >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "$(el) built"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size
K='regex:batched_kernel|split_items|split_reduce|direct_kernel|staged_kernel|resident_kernel|csrmm'
# --match reads the base name of a large input (ca-CondMat, not kron4:ca-CondMat)
for c in "large ca-CondMat" "large rajat01" "large cage11" "real ct2010"; do
  set -- $c
  for m in tuned csp_alg3; do
    echo "## ncu $2 ($1) N=$n $m"
    raw="$out/raw-$2-$m.log"
    timeout 60 ncu --clock-control none --kernel-name-base mangled -k "$K" --metrics "$M" --launch-count 150 \
      --csv --page raw bg/bench/spdm_bench --out /tmp/ncu-b --matrices "$mats" --sections "$1" --match "$2" \
      --quick --lean --n "$n" --methods "$m" >"$raw" 2>&1
    grep '^"' "$raw" >/tmp/ncu.csv || { echo "  (ncu printed no rows; its other lines:)"; grep -v '^"' "$raw" | tail -8; }
    python3 bench/ncu_group.py /tmp/ncu.csv
  done
done >"$out/ncu.txt" 2>&1
echo "$(el) ncu"; cut -c1-330 "$out/ncu.txt"
