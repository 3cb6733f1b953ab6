#!/usr/bin/env bash
# bench/gpu_bench_spdm.sh OUT_DIR [MATRICES_DIR [spdm_bench options]]: one GPU call for the SpDM results: Release
# build, the GPU test suite (must pass before numbers count), then bench/run_spdm.sh on GPU 0
# (random sweep, real matrices at N = 32/128/512 in float and double, the larger Kronecker and
# block-diagonal constructions in both, structured inputs, conversions; the issue-15 target
# lines last), archived into OUT_DIR.tgz. Extra arguments go to spdm_bench (e.g. --lean, which
# bench/results/h200-spdm.txt used). Run from the repository root after `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT_DIR [MATRICES_DIR [spdm_bench options]]}
mats=${2:-.mats}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prepare.sh"
left=$(( ${GCOO_BENCH_SECONDS:-560} - ($(date +%s) - start) ))
echo "=== benchmark, budget $((left - 25)) s"
CUDA_VISIBLE_DEVICES=0 timeout "$left" bash bench/run_spdm.sh "$build" "$mats" "$out/bench" --budget $((left - 25)) "$@" >"$out/bench.out" 2>&1
echo "=== benchmark rc $? ($(( $(date +%s) - start )) s)"
sed -n '/^random sweep, ms/,$p' "$out/bench.out" | cut -c1-230 | tail -120
tar -czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "archive: $out.tgz"
