#!/usr/bin/env bash
# bench/run_predict_accuracy.sh [build-dir] [matrix-dir]: accuracy and cost of every predictor
# on all ordered pairs of the matrices (bench/predict_accuracy.c), written with the date, the
# machine and the exact command to bench/results/cpu-predictor.txt (the current result; git
# keeps the earlier ones), and a CSV per pair to bench/out/.
# One OpenMP thread for both the predictor and the SpGEMM it is compared with: on a shared
# 2-core machine, thread wake-ups cost more than these small products (see docs/predictor.md).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$top/build}"
mats="${2:-$top/../shared/matrices}"
[ -d "$mats" ] || mats=/work/shared/matrices
date="$(date -u +%Y-%m-%d)"
out="$top/bench/results/cpu-predictor.txt"
mkdir -p "$top/bench/out"
csv="$top/bench/out/predictor-$date.csv"   # per pair, method and seed (not committed)
cmd=(env OMP_NUM_THREADS=1 "$build/bench/predict_accuracy" --seeds 5 --csv "$csv" "$mats"/*.mtx.gz)
{
  echo "# predictor accuracy and cost, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# machine: $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# git: $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet || echo ' (with uncommitted changes)')"
  echo "# command: OMP_NUM_THREADS=1 build/bench/predict_accuracy --seeds 5 --csv bench/out/predictor-$date.csv <matrices>/*.mtx.gz"
  echo "# matrices: $(ls "$mats"/*.mtx.gz | wc -l) files from $mats"
  echo
  "${cmd[@]}"
} | tee "$out"
echo "written: $out"
