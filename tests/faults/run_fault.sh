#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/faults/run_fault.sh SCENARIO: one fault injected into `mpirun -np 4 gcoo_dist spdm` (CPU
# backend), and what must follow: every rank exits non-zero (each rank's status is recorded by
# rank_wrap.sh; mpirun is told not to kill the others when the first exits, so that a rank that
# would hang is seen hanging), within 30 seconds, stderr names the rank and the cause, and no
# output file is left (neither Y.h5 nor a temporary). Scenarios:
#   clean           no fault: all ranks exit 0 and Y.h5 is written (the harness works)
#   clean-shim      the memory shim on rank 2 with a small problem: still exit 0
#   slab-index      column indices out of range in rows only rank 2 reads (HDF5 CSR)
#   slab-nan        NaN values in those rows
#   slab-bytes      those rows' index bytes overwritten on disk (0xff: -1)
#   mtx-line        a malformed line 1000 of a Matrix Market file (read on rank 0)
#   nomem           rank 2's address space limited to its size after MPI_Init + 32 MiB, and a
#                   replicated X of 64 MB (--xmode replicated --ncols 4096)
#   eio-rank2       every read of the input on rank 2 fails with EIO, from the 1st, the middle
#                   and the last of its reads (counted in a clean run)
#   eio-rank0       the same on rank 0, which also reads the shared metadata
#   truncate        the input file is truncated to 0 bytes on disk when rank 0 starts its last
#                   read: the data disappears between open and read, under every rank
# Environment: GCOO_DIST (gcoo_dist), GCOO_FAULT_SHIM (libgcoo_fault_shim.so), MPIEXEC,
# PYTHON (with numpy, scipy, h5py), and the Open MPI root/oversubscribe variables.
set -u
scenario="$1"
here="$(cd "$(dirname "$0")" && pwd)"
: "${GCOO_DIST:?GCOO_DIST must name gcoo_dist}" "${GCOO_FAULT_SHIM:?GCOO_FAULT_SHIM must name the shim}"
MPIEXEC="${MPIEXEC:-mpirun}"
PYTHON="${PYTHON:-/usr/bin/python3}"
export OMP_NUM_THREADS=1
work="$(mktemp -d "${TMPDIR:-/tmp}/gcoo-fault-XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$PYTHON" "$here/make_fault_files.py" "$work" 4000 >/dev/null || { echo "cannot make the inputs"; exit 1; }
cd "$work" || exit 1
failures=0
fail() {
  echo "FAIL $scenario: $*"
  failures=$((failures + 1))
}

# job FILE [extra gcoo_dist options]: run the job with the fault variables of the caller
job() {
  a="$1"
  shift
  rm -f rc.* Y.h5* err.txt out.txt
  t0=$(date +%s)
  timeout 60 "$MPIEXEC" -np 4 --oversubscribe --mca orte_abort_on_non_zero_status 0 \
    "$here/rank_wrap.sh" "$work" "$GCOO_DIST" spdm --a "$a" --ncols 8 --backend cpu \
    --out Y.h5:/Y --repeat 1 "$@" >out.txt 2>err.txt
  mpirc=$?
  elapsed=$(( $(date +%s) - t0 ))
}

# expect_clean_failure RANK CAUSE-REGEX: every rank non-zero, fast, named, no output
expect_clean_failure() {
  if [ "$mpirc" -eq 124 ]; then
    fail "HANG: the job was still running after 60 s"
  fi
  for rk in 0 1 2 3; do
    if [ ! -f "rc.$rk" ]; then
      fail "rank $rk did not exit (killed or hung)"
    elif [ "$(cat "rc.$rk")" = 0 ]; then
      fail "rank $rk exited 0 after the fault"
    fi
  done
  [ "$elapsed" -le 30 ] || fail "took $elapsed s (more than 30 s)"
  grep -q "rank $1" err.txt || fail "no message names rank $1"
  grep -Eq "$2" err.txt || fail "no message gives the cause (/$2/)"
  if ls Y.h5* >/dev/null 2>&1; then fail "output left behind: $(ls Y.h5*)"; fi
  echo "--- $scenario ${3:-}: ranks $(cat rc.0 rc.1 rc.2 rc.3 2>/dev/null | tr '\n' ' ')in ${elapsed} s"
  grep "rank" err.txt | head -2 | cut -c1-300
}

expect_success() {
  for rk in 0 1 2 3; do
    [ -f "rc.$rk" ] && [ "$(cat "rc.$rk")" = 0 ] || fail "rank $rk: $(cat "rc.$rk" 2>/dev/null || echo 'no exit status')"
  done
  [ -f Y.h5 ] || fail "no output"
  [ "$failures" -eq 0 ] || cat err.txt
}

# reads N of the input on rank R in a clean run (through the shim's count mode)
count_reads() {
  GCOO_FAULT_RANK="$1" GCOO_FAULT_MODE=count GCOO_FAULT_PATH="$2" GCOO_FAULT_OUT="$work/count" \
    job "$2"
  cat "$work/count.$1" 2>/dev/null || echo 0
}

export GCOO_FAULT_SHIM
case "$scenario" in
  clean) job good.h5; expect_success ;;
  clean-shim)
    GCOO_FAULT_RANK=2 GCOO_FAULT_MODE=memory GCOO_FAULT_MARGIN_MB=32 job good.h5 --ncols 64 \
      --xmode replicated
    expect_success ;;
  slab-index) job index.h5; expect_clean_failure 2 "outside|out of range" ;;
  slab-nan) job nan.h5; expect_clean_failure 2 "NaN|not finite|infinite" ;;
  slab-bytes) job bytes.h5; expect_clean_failure 2 "not an index|outside|out of range" ;;
  mtx-line) job line.mtx; expect_clean_failure 0 "line 1000" ;;
  nomem)
    GCOO_FAULT_RANK=2 GCOO_FAULT_MODE=memory GCOO_FAULT_MARGIN_MB=32 job good.h5 --ncols 4096 \
      --xmode replicated
    expect_clean_failure 2 "out of memory|cannot allocate" ;;
  eio-rank0 | eio-rank2)
    frank="${scenario#eio-rank}"
    n=$(count_reads "$frank" good.h5)
    [ "$n" -gt 0 ] || fail "rank $frank never read the input"
    for k in 1 $(( (n + 1) / 2 )) "$n"; do
      GCOO_FAULT_RANK="$frank" GCOO_FAULT_MODE=eio GCOO_FAULT_PATH=good.h5 GCOO_FAULT_AFTER="$k" \
        job good.h5
      expect_clean_failure "$frank" "Input/output error|read failed|cannot read" "(read $k of $n)"
    done ;;
  truncate)
    n=$(count_reads 0 good.h5)
    cp good.h5 t.h5
    GCOO_FAULT_RANK=0 GCOO_FAULT_MODE=truncate GCOO_FAULT_PATH=t.h5 GCOO_FAULT_AFTER="$n" job t.h5
    expect_clean_failure "[0-3]" "truncat|shrank|end of (the )?file|bytes" "(at read $n of $n)" ;;
  *) echo "unknown scenario $scenario"; exit 2 ;;
esac
[ "$failures" -eq 0 ] || { echo "--- stderr of the last job:"; cut -c1-400 err.txt | head -20; exit 1; }
echo "$scenario: passed"
