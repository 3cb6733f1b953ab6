#!/usr/bin/env bash
# bench/gpu_tc_ncu.sh OUT MATS: issue 15, one GPU call: Release build of spdm_bench,
# ncu (--clock-control none) of the tensor-core kernel (untimed: GCOO_AUTO_TRIAL=0) on the FEM
# matrices of the tc-speedup target where it serves (bcsstk33 and cavity19 at N = 512, bcsstk24
# at N = 128) and of the tuned kernel on bcsstk33 at N = 512: bytes, throughputs, occupancy and
# warp stall reasons (bench/ncu_stalls.py). Blocks of 4 warps: 8 were slower on 17 of the 18
# cases.
# From the repository root, after `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT MATS}; mats=${2:?}
mkdir -p "$out"; t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
{ cmake -S . -B bg -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGCOO_DEVELOPER=ON &&
  cmake --build bg -j"$(nproc)" --target spdm_bench t305-cuda-tc; } >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "$(el) built"
ctest --test-dir bg -R t305 --output-on-failure --timeout 120 >"$out/tests.log" 2>&1; echo "$(el) t305 rc $?"
SECS=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis)
K='regex:tc_kernel|batched_kernel|direct_kernel|staged_kernel|resident_kernel|split_items'
for c in "bcsstk33 512 tc" "cavity19 512 tc" "bcsstk24 128 tc" "bcsstk33 512 tuned"; do
  set -- $c
  echo "## ncu $1 N=$2 $3"
  raw="$out/raw-$1-$2-$3.log"
  GCOO_AUTO_TRIAL=0 timeout 90 ncu --clock-control none --kernel-name-base mangled -k "$K" "${SECS[@]}" --launch-count 40 \
    --csv --page raw bg/bench/spdm_bench --out /tmp/ncu-b --matrices "$mats" --sections real --match "$1" \
    --quick --lean --n "$2" --methods "$3" >"$raw" 2>&1
  grep '^"' "$raw" >/tmp/ncu.csv || { echo "  (ncu printed no rows; its other lines:)"; grep -v '^"' "$raw" | tail -8; }
  python3 bench/ncu_stalls.py /tmp/ncu.csv
done >"$out/ncu.txt" 2>&1
echo "$(el) ncu"; grep -E "^##|kernel |gpu__time_duration.sum|sector_hit_rate.pct |long_scoreboard|warps_active.avg.pct|lts__throughput.avg.pct|l1tex__throughput.avg.pct" "$out/ncu.txt" | cut -c1-140 | head -70
echo "$(el) done"
