#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run_lu.sh BUILD_DIR OUT_DIR [MATS_DIR] [RANKS]: the direct solve, side by side in one
# run: gcoo's preonly + lu through MUMPS (bench/lu_bench.c) against PETSc's preonly + lu through
# MUMPS and through SuperLU_DIST (bench/lu_petsc.py, Debian's petsc4py), on every square matrix
# of MATS_DIR (default: the project's shared/matrices), at each rank count of RANKS (default
# "1 2"), one thread a rank (OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = 1: the ranks are the
# parallelism, as in PETSc's runs). Every solver solves the same b (lu_bench.c's formula); each
# reports its fastest of 3 set-up + solve cycles (reading the matrix not timed) and the true
# relative residual of that answer, recomputed for every solver by the same code in extended
# precision (bench/lu_summary.py; at 1e-10 the rounding of a double residual is part of what is
# measured: adder_dcop_05, the same answer to 2e-16, reads 5.6e-11 or 2.7e-10 in double, 1.3e-10
# exactly). Each (matrix, ranks, solver) is its own process with a
# time limit (LU_BENCH_TIMEOUT seconds, default 600), so a solver that exits on a matrix
# (SuperLU_DIST on a zero diagonal) or runs too long costs only its own row. Prints the table and
# the line of issue 35's target direct-solves (bench/lu_summary.py); the JSON lines are in
# OUT_DIR/lu.jsonl. Time it on a quiet machine: the cores are shared by every rank and solver.
set -u -o pipefail
build=${1:?usage: $0 BUILD_DIR OUT_DIR [MATS_DIR] [RANKS]}
out=${2:?usage: $0 BUILD_DIR OUT_DIR [MATS_DIR] [RANKS]}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
mats=${3:-}
if [ -z "$mats" ]; then
  for d in "$top/../shared/matrices" "$top/../../shared/matrices" /work/shared/matrices; do
    [ -d "$d" ] && mats=$d && break
  done
fi
ranks=${4:-1 2}
limit=${LU_BENCH_TIMEOUT:-600}
[ -d "$mats" ] || { echo "run_lu.sh: no matrix folder '$mats'" >&2; exit 2; }
[ -x "$build/bench/lu_bench" ] || { echo "run_lu.sh: $build/bench/lu_bench not built" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export PETSC_DIR=${PETSC_DIR:-/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real}
mkdir -p "$out"
: >"$out/lu.jsonl"
rm -rf "$out/x" && mkdir -p "$out/x"
# shellcheck source=bench/results_header.sh
source "$here/results_header.sh"
results_header "direct solves against PETSc (MUMPS, SuperLU_DIST)" "bench/run_lu.sh $*"
echo "# matrices: $mats"

# square FILE: the size line of a Matrix Market file has equal rows and columns (the status of
# the pipeline, which head cuts short, is not the answer)
square() {
  local size
  size=$(zcat -f "$1" | grep -v '^%' | head -1)
  set -- $size
  [ -n "${1:-}" ] && [ "$1" = "${2:-}" ]
}

# run NAME RANKS SOLVER COMMAND...: one process group, its JSON line (or why it has none)
run() {
  local name=$1 np=$2 solver=$3 line rc
  shift 3
  timeout "$limit" mpirun -np "$np" "$@" >"$out/last.out" 2>"$out/last.err"
  rc=$?
  line=$(grep '^{' "$out/last.out" | tail -1)
  if [ -z "$line" ]; then
    local why
    # the first line that is not Open MPI's report of the exit (SuperLU_DIST prints its reason)
    why=$(cat "$out/last.out" "$out/last.err" | grep -v -E '^\s*$|^-+$|Primary job|mpirun|Process name|Exit code|returned|aborted|job to be terminated' |
      head -1 | tr -d '"\\' | cut -c1-160)
    [ "$rc" -eq 124 ] && why="no answer in $limit s"
    line="{\"solver\": \"$solver\", \"matrix\": \"$name\", \"ranks\": $np, \"status\": \"died\", \"error\": \"${why:-exit $rc}\"}"
  fi
  echo "$line" | tee -a "$out/lu.jsonl"
}

for f in "$mats"/*.mtx.gz; do
  square "$f" || continue
  name=$(basename "$f" .mtx.gz)
  for np in $ranks; do
    run "$name" "$np" gcoo-mumps "$build/bench/lu_bench" --x-dir "$out/x" "$f"
    for s in mumps superlu_dist; do
      run "$name" "$np" "petsc-$s" /usr/bin/python3 "$here/lu_petsc.py" --solver "$s" --x-dir "$out/x" "$f"
    done
  done
done
rm -f "$out/last.out" "$out/last.err"
/usr/bin/python3 "$here/lu_summary.py" "$out/lu.jsonl" "$mats" "$out/x"
[ "${LU_BENCH_KEEP_X:-0}" = 1 ] || rm -rf "$out/x"
