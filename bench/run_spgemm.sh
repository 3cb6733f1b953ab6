#!/usr/bin/env bash
# bench/run_spgemm.sh [outdir]: on the GPU machine (one H200): build gcoo, run the SpGEMM tests
# (t501-t504: predictor, CPU SpGEMM, GPU SpGEMM, distributed at 1-4 ranks), then the benchmark:
# A*A and A*A^T of every matrix in shared/matrices plus two generated ones, gcoo against
# cuSPARSE ALG1/ALG2/ALG3 (time, peak memory, nnz(C), prediction error), and one batched run
# per product under a quarter of gcoo's own peak memory. CSV and summary go to outdir.
# Expected to take under 4 minutes; the summary is the last lines printed.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$top/bench/out/spgemm-$(date -u +%Y%m%d-%H%M%S)}"
mats=""
for d in "$top/shared/matrices" "$top/../shared/matrices" /work/shared/matrices; do
  if [ -d "$d" ]; then mats="$d"; break; fi
done
mkdir -p "$out"
"$top/scripts/build.sh" "$top/build" >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
ctest --test-dir "$top/build" -R 't50[1-9]' --output-on-failure 2>&1 | tee "$out/tests.log" | tail -15
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
files=()
[ -n "$mats" ] && files=("$mats"/*.mtx.gz)
"$top/build/bench/spgemm_bench" --reps 5 --budget-test --out "$out" "${files[@]}" | tee "$out/summary.txt"
