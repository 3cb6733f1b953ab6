#!/usr/bin/env bash
# bench/gpu_bench_all.sh OUT_DIR [MATRICES_DIR]: one GPU call for the single-GPU results: Release
# build, ctest -L gpu, the SpDM benchmark (bench/run_spdm.sh), the SpGEMM benchmark
# (spgemm_bench) and the solver benchmark (bench/run_solver.sh), on GPU 0, archived into
# OUT_DIR.tgz. Run from the repository root after `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT_DIR [MATRICES_DIR]}
mats=${2:-.mats}
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prepare.sh"
export CUDA_VISIBLE_DEVICES=0
timeout 150 bash bench/run_spdm.sh "$build" "$mats" "$out/spdm" --budget 130 >"$out/spdm.out" 2>&1
echo "=== SpDM benchmark rc $? ($(( $(date +%s) - start )) s)"
timeout 180 "$build/bench/spgemm_bench" --reps 5 --budget-test --out "$out/spgemm" "$mats"/*.mtx.gz >"$out/spgemm.out" 2>&1
echo "=== SpGEMM benchmark rc $? ($(( $(date +%s) - start )) s)"
timeout 300 bash bench/run_solver.sh "$build" "$out/solver" "$mats" "1 8 32 128" "auto gcoo" >"$out/solver.out" 2>&1
echo "=== solver benchmark rc $? ($(( $(date +%s) - start )) s)"
echo; echo "=== SpDM summary"; sed -n '/^== summary/,$p' "$out/spdm.out" | cut -c1-200
echo; echo "=== SpGEMM summary"; tail -25 "$out/spgemm.out" | cut -c1-200
echo; echo "=== solver"; cat "$out/solver.out" | cut -c1-200
tar -czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "archive: $out.tgz"
