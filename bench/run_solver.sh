#!/usr/bin/env bash
# bench/run_solver.sh BUILD_DIR OUT_DIR [GRID] [NP]: block CG against k separate CG solves on the
# GPU(s): 3-D Poisson 7-point on a GRID^3 grid (default 100: 10^6 rows), float64, Jacobi,
# tol 1e-6, for k = 1, 8, 32, 128, block and --separate, on NP ranks (default 1, one GPU each).
# One JSON line per run in OUT_DIR/solver.jsonl; a table (time to solution for all k right-hand
# sides, iterations, multiplies, share of time in SpDM / reductions / block operations) last.
set -u
build=${1:?usage: $0 BUILD_DIR OUT_DIR [GRID] [NP]}
out=${2:?usage: $0 BUILD_DIR OUT_DIR [GRID] [NP]}
grid=${3:-100}
np=${4:-1}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gd="$build/cli/gcoo_dist"
for k in 1 8 32 128; do
  for mode in block separate; do
    extra=""
    [ "$mode" = separate ] && extra="--separate"
    timeout 300 mpirun -np "$np" "$gd" solve --backend gpu --stencil 7 --grid "$grid" --k "$k" \
      --tol 1e-6 --maxit 5000 --json $extra >>"$out/solver.jsonl" 2>>"$out/solver.err" ||
      echo "{\"failed\": \"k=$k $mode\"}" >>"$out/solver.jsonl"
  done
done
/usr/bin/env python3 - "$out/solver.jsonl" <<'PY'
import json, sys
runs = {}
print(f"{'k':>4} {'mode':9s} {'solve s':>9} {'per rhs ms':>10} {'iters':>6} {'multiplies':>10} {'SpDM%':>6} {'reduce%':>7} {'blas%':>6} {'true res':>9}")
for line in open(sys.argv[1]):
    d = json.loads(line)
    if 'failed' in d:
        print('FAILED', d['failed']); continue
    t = d['seconds']; s = t['solve']
    runs[(d['k'], d['mode'])] = s
    print(f"{d['k']:4d} {d['mode']:9s} {s:9.3f} {1e3*s/d['k']:10.2f} {d['iterations']:6d} {d['spmm_calls']:10d} "
          f"{100*t['spmm']/s:6.1f} {100*t['reduce']/s:7.1f} {100*t['blas']/s:6.1f} {d['true_residual_max']:9.2e}")
for k in (1, 8, 32, 128):
    if (k, 'block') in runs and (k, 'separate') in runs:
        print(f"k = {k:3d}: block CG {runs[(k,'separate')]/runs[(k,'block')]:.2f}x faster than {k} separate solves")
PY
