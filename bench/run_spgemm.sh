#!/usr/bin/env bash
# bench/run_spgemm.sh [outdir]: on the GPU machine (one H200): build gcoo, run the SpGEMM tests
# (t501-t504: predictor, CPU SpGEMM, GPU SpGEMM, distributed at 1-4 ranks), the plan share of
# `gcoo_dist spgemm` on a 27-point 120^3 stencil from HDF5, then the benchmark: A*A and A*A^T of
# every matrix in shared/matrices plus three generated ones, double and float, gcoo against
# cuSPARSE ALG1/ALG2/ALG3 and, when OPSPARSE_SRC names a fetched OpSparse (the folder holding
# OpSparse/; not part of gcoo), OpSparse in the same process (bench/opsparse/build.sh builds its
# peer library). CSV and summary go to outdir; the target lines come last.
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
gd="$(find "$top/build" -name gcoo_dist -type f | head -1)"
"$gd" gen --stencil 27 --grid 120 --dtype float64 --out "$out/s27.h5" >"$out/gen.log" 2>&1
"$gd" spgemm --a "$out/s27.h5" --backend cuda --json >"$out/plan.json"
rm -f "$out/s27.h5"
ops=()
[ -n "${OPSPARSE_SRC:-}" ] && bash "$top/bench/opsparse/build.sh" "$OPSPARSE_SRC" "$out/opsparse" &&
  ops=(--peer-lib "$out/opsparse/libspgemm_opsparse.so")
"$top/build/bench/spgemm_bench" --reps 5 --dtype both --plan-json "$out/plan.json" "${ops[@]}" \
  --out "$out" "${files[@]}" | tee "$out/summary.txt"
