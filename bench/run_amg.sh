#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run_amg.sh BUILD_DIR OUT_DIR [MATS_DIR]: gcoo's CG + AMG against gcoo's CG + Jacobi,
# PETSc CG + GAMG, PETSc CG + hypre BoomerAMG and PyAMG's smoothed aggregation, on the CPU, one
# rank and one thread unless stated, side by side in one run, on the same matrices:
#   3-D Poisson 7- and 27-point 32^3, 64^3, 100^3; the 2-D Laplacian 1000^2; the SPD matrices of
#   MATS_DIR (default ../shared/matrices: bcsstk13, bcsstk21, bcsstk24, msc04515).
# Plus, for the targets: gcoo CG + AMG with k = 8 right-hand sides (block CG) on Poisson 64^3,
# and at 2 and 4 ranks on Poisson 64^3.
# Every run writes one JSON line to OUT_DIR/amg.jsonl; bench/amg_report.py prints the table
# (iterations, set-up, solve, total seconds, operator complexity) and the target lines of issue
# 40 from it. Needs Debian's python3-petsc4py (PETSc 3.18 with hypre) for /usr/bin/python3 and
# pyamg in a venv (AMG_BENCH_PYAMG_PYTHON, default OUT_DIR/venv/bin/python, made here with
# --system-site-packages when missing). Take timings on a quiet machine (uptime).
# Each side runs AMG_BENCH_REPS (default 3) set-up + solve cycles with a fresh solver and
# reports its fastest. AMG_BENCH_QUICK=1: 32^3 and 64^3 only, the 2-D Laplacian at 400^2 (a
# check of the script).
set -u -o pipefail
build=${1:?usage: $0 BUILD_DIR OUT_DIR [MATS_DIR]}
out=${2:?usage: $0 BUILD_DIR OUT_DIR [MATS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
mats=${3:-}
if [ -z "$mats" ]; then # the shared folder beside the checkout (main) or beside the worktrees
  for m in "$here/../../shared/matrices" "$here/../../../shared/matrices"; do
    [ -d "$m" ] && mats=$m && break
  done
fi
mkdir -p "$out"
jl="$out/amg.jsonl"
: >"$jl"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OPENBLAS_NUM_THREADS=1 PETSC_DIR=${PETSC_DIR:-/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real}
bench="$build/bench/amg_bench"
pyamg_py=${AMG_BENCH_PYAMG_PYTHON:-$out/venv/bin/python}
if [ ! -x "$pyamg_py" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$out/venv" && "$out/venv/bin/pip" install -q pyamg ||
    echo "run_amg: no pyamg (its rows are left out)" >&2
fi
# shellcheck source=bench/results_header.sh
source "$here/results_header.sh"
results_header "AMG against PETSc GAMG, hypre BoomerAMG, PyAMG (CPU)" "bench/run_amg.sh $*"
reps=${AMG_BENCH_REPS:-3} # set-up + solve cycles a run, each side reports its fastest
problems=()
if [ "${AMG_BENCH_QUICK:-0}" = 1 ]; then
  sizes="32 64"
  problems+=("laplace2d:400")
else
  sizes="32 64 100"
  problems+=("laplace2d:1000")
fi
for s in 7 27; do for n in $sizes; do problems+=("poisson$s:$n"); done; done
for m in bcsstk13 bcsstk21 bcsstk24 msc04515; do
  [ -f "$mats/$m.mtx.gz" ] && problems+=("$mats/$m.mtx.gz")
done
note() { echo "{\"problem\": \"$1\", \"solver\": \"$2\", \"failed\": \"$3\"}" >>"$jl"; }
for p in "${problems[@]}"; do
  echo "run_amg: $p" >&2
  for pc in amg jacobi; do
    mpirun -np 1 "$bench" "$p" $pc 1 "$reps" >>"$jl" || note "$p" "gcoo-$pc" "exit $?"
  done
  /usr/bin/python3 "$here/amg_petsc.py" "$p" --reps "$reps" >>"$jl" || note "$p" petsc "exit $?"
  if [ -x "$pyamg_py" ]; then
    "$pyamg_py" "$here/amg_petsc.py" "$p" --only-pyamg --reps "$reps" >>"$jl" ||
      note "$p" pyamg-sa "exit $?"
  fi
done
# k = 8 right-hand sides, and 2 and 4 ranks, on Poisson 64^3
# (block CG, and 8 CGs in lockstep: one SpMM a step either way)
mpirun -np 1 "$bench" poisson7:64 amg 8 "$reps" >>"$jl" || note poisson7:64 gcoo-amg "k = 8: exit $?"
mpirun -np 1 "$bench" poisson7:64 amg 8 "$reps" "-ksp_cg_block 0" >>"$jl" ||
  note poisson7:64 gcoo-amg "k = 8 lockstep: exit $?"
for r in 2 4; do
  mpirun -np $r --oversubscribe "$bench" poisson7:64 amg 1 "$reps" >>"$jl" ||
    note poisson7:64 gcoo-amg "$r ranks: exit $?"
done
python3 "$here/amg_report.py" "$jl"
