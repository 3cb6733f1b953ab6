#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/faults/run_writes.sh SCENARIO: writes that never lie (issue 18), through `gcoo_dist` on
# the CPU backend. Every scenario requires: a clear error (or a correct result), the earlier file
# at the target intact byte for byte (cmp), and no temporary file left. Scenarios:
#   full-disk     a 2 MB tmpfs holding a valid y.h5 and an 8 MB result, at 1, 2 and 4 ranks,
#                 through POSIX writes (the default), OMPIO and ROMIO (GCOO_H5_MPIO=1 with
#                 OMPI_MCA_io=ompio / romio321): each fails within 60 s naming the rank, the
#                 path and ENOSPC. Needs root (mount): exit 77 otherwise
#   full-disk-big the same at 4 ranks with a 128 MB result (the case that hung), POSIX and OMPIO
#   concurrent    two 2-rank jobs writing the same new object at once, without --overwrite:
#                 exactly one publishes, the other says the file exists or changed meanwhile
#   concurrent-overwrite  the same with --overwrite (twice): the file holds one whole result
#   sigterm       SIGTERM to every rank while the temporary file is being written: every rank
#                 exits non-zero, the temporary file is gone, y.h5 untouched
#   signals       the same with SIGUSR1 (sent to mpirun, which forwards it), SIGUSR2, SIGHUP (at
#                 1 rank), SIGXCPU and a real-time signal: every one removes the temporary file
#   sigkill       SIGKILL of every rank during the write: the temporary file stays (nothing can
#                 remove it) but its name says so and every reader refuses it ("never finished")
#                 Either: a job that published its finished result before the signal came is
#                 run again, at most 3 times (the signal missed the write)
#   eio-write     every write of rank 2 (then rank 0) to the temporary file fails with EIO from
#                 its 1st, 2nd and 3rd (rank 0: 5th) write on (the LD_PRELOAD shim, tests/faults/fault_shim.c),
#                 4 ranks, POSIX writes (the default): the job fails within 60 s, the message
#                 names the rank and the I/O error, y.h5 intact, no temporary file. Known: when
#                 the failing write is one of HDF5's flushes, HDF5 1.10.8 then crashes in
#                 MPI_Finalize (reported as KNOWN, docs/reliability.md §5). With MPI-IO the same
#                 fault hangs inside HDF5's collective flush (not run here)
#   overwrite     an existing /Y without --overwrite is an error; with it /Y is replaced and the
#                 file's other objects are kept (spdm, solve, spgemm, gen, convert; 1 and 2 ranks)
# Environment: GCOO_DIST, MPIEXEC and the Open MPI root/oversubscribe variables.
set -u
scenario="$1"
here="$(cd "$(dirname "$0")" && pwd)"
: "${GCOO_DIST:?GCOO_DIST must name gcoo_dist}"
MPIEXEC="${MPIEXEC:-mpirun}"
export OMP_NUM_THREADS=1
work="$(mktemp -d "${TMPDIR:-/tmp}/gcoo-writes-XXXXXX")"
mnt=""
cleanup() {
  [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
failures=0
fail() {
  echo "FAIL $scenario: $*"
  failures=$((failures + 1))
}
tmp_left() { ls "$1".tmp.* 2>/dev/null | head -1; }

# a small valid earlier result: ref.h5 (the copy to compare against)
make_ref() {
  "$GCOO_DIST" spdm --stencil 7 --grid 8 --ncols 2 --repeat 1 --backend cpu --out "$1:/Y" \
    >/dev/null 2>&1 || { echo "cannot make the earlier result"; exit 1; }
}

mount_small() { # a fresh 2 MB tmpfs at $work/full with y.h5 in it
  mnt="$work/full"
  mkdir -p "$mnt"
  if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=2m tmpfs "$mnt" 2>/dev/null; then
    echo "SKIP $scenario: needs root to mount a small tmpfs"
    exit 77
  fi
  cp ref.h5 "$mnt/y.h5"
}

# full_disk ENV NP GRID: one job onto the full tmpfs
full_disk() {
  env_="$1" np="$2" grid="$3"
  mount_small
  start=$(date +%s)
  env $env_ timeout 120 "$MPIEXEC" -np "$np" "$GCOO_DIST" spdm --stencil 7 --grid "$grid" \
    --ncols 32 --repeat 1 --backend cpu --out "$mnt/y.h5:/Y" --overwrite >out.txt 2>err.txt
  rc=$?
  took=$(($(date +%s) - start))
  what="[$env_ np=$np grid=$grid]"
  [ "$rc" != 0 ] || fail "$what exited 0 on a full disk"
  [ "$rc" != 124 ] || fail "$what hung (killed after 120 s)"
  [ "$rc" -lt 128 ] || fail "$what died of a signal (rc $rc)"
  grep -q "rank [0-9]*: .*y.h5.*No space left on device" err.txt ||
    fail "$what: no message naming the rank, the path and ENOSPC: $(head -c 600 err.txt)"
  cmp -s ref.h5 "$mnt/y.h5" || fail "$what: the earlier y.h5 changed"
  [ -z "$(tmp_left "$mnt/y.h5")" ] || fail "$what: temporary file left: $(ls "$mnt")"
  echo "$what rc=$rc in ${took}s: $(grep -m1 'No space' err.txt | cut -c1-200)"
  umount "$mnt"
  mnt=""
}

make_ref ref.h5
case "$scenario" in
full-disk)
  for io in "GCOO_H5_MPIO=0" "GCOO_H5_MPIO=1 OMPI_MCA_io=ompio" "GCOO_H5_MPIO=1 OMPI_MCA_io=romio321"; do
    for np in 1 2 4; do full_disk "$io" "$np" 40; done
  done
  ;;
full-disk-big)
  for io in "GCOO_H5_MPIO=0" "GCOO_H5_MPIO=1 OMPI_MCA_io=ompio"; do full_disk "$io" 4 100; done
  ;;
concurrent | concurrent-overwrite)
  ow=""
  [ "$scenario" = concurrent-overwrite ] && { ow="--overwrite"; cp ref.h5 y.h5; }
  [ "$scenario" = concurrent ] && cp ref.h5 y.h5 # holds /Y: write /Z, which it does not hold
  obj=/Z
  [ -n "$ow" ] && obj=/Y
  # Each job gets its own TMPDIR: two mpirun started in the same instant race to create Open
  # MPI's per-user job directory (TMPDIR/ompi.HOST.UID) and the loser dies with "A call to
  # mkdir was unable to create the desired directory ... File exists" (open-mpi/ompi#8510)
  # before gcoo runs at all. That is the launcher's race, not the one this test is about.
  for s in 7 8; do
    mkdir -p "$work/tmp$s"
    TMPDIR="$work/tmp$s" "$MPIEXEC" -np 2 "$GCOO_DIST" spdm --stencil 7 --grid 30 --ncols 16 \
      --seed $s --repeat 1 --backend cpu --out "y.h5:$obj" $ow --json >out$s.txt 2>err$s.txt &
  done
  wait %1; rc7=$?
  wait %2; rc8=$?
  echo "job seed 7: rc $rc7 $(head -c 300 err7.txt)"
  echo "job seed 8: rc $rc8 $(head -c 300 err8.txt)"
  [ -z "$(tmp_left y.h5)" ] || fail "temporary file left: $(ls)"
  if [ -z "$ow" ]; then
    [ $((rc7 == 0)) -ne $((rc8 == 0)) ] || fail "exactly one job must publish (rc $rc7 and $rc8)"
    for s in 7 8; do
      r=$(eval echo \$rc$s)
      [ "$r" = 0 ] || grep -q "exists\|since this write started" err$s.txt ||
        fail "the refused job (seed $s) does not say why: $(head -c 300 err$s.txt)"
    done
  else
    [ "$rc7" = 0 ] || [ "$rc8" = 0 ] || fail "neither job published"
    for s in 7 8; do
      r=$(eval echo \$rc$s)
      [ "$r" = 0 ] || grep -q "since this write started" err$s.txt ||
        fail "the refused job (seed $s) does not say why: $(head -c 300 err$s.txt)"
    done
  fi
  # the file holds a whole result of a job that reported success, and the earlier objects
  "$GCOO_DIST" info --in "y.h5:$obj" >info.txt 2>&1 || fail "y.h5:$obj does not read: $(cat info.txt)"
  grep -q "27000" info.txt || fail "y.h5:$obj is not a 27000-row result: $(cat info.txt)"
  if [ -z "$ow" ]; then
    "$GCOO_DIST" info --in "y.h5:/Y" >/dev/null 2>&1 || fail "the earlier /Y was lost"
  fi
  ;;
sigterm | sigkill | signals)
  # SIGTERM: an update of y.h5 (its copy, then the new /Y); SIGKILL: a new file; signals: the
  # other signals that end a process (Slurm's --signal sends SIGUSR1/SIGUSR2, SIGUSR1 here to
  # mpirun, which forwards it), at 2 ranks and one at 1 rank, as SIGTERM
  case "$scenario" in
    sigterm) runs="TERM:2" ;;
    sigkill) runs="KILL:2" ;;
    signals) runs="USR1:2:mpirun USR2:2 HUP:1 XCPU:2 RTMIN+3:2" ;;
  esac
  for r in $runs; do
    sig=${r%%:*} rest=${r#*:} np=${rest%%:*} to=${rest#*:}
    [ "$to" = "$rest" ] && to=ranks
    target=y.h5 ow=--overwrite
    [ "$sig" = KILL ] && { target=new.h5; ow=""; }
    # The signal is sent once the write is under way; a job that outruns the test (it published
    # a finished result before the signal came: no rank removed a temporary file, none is left,
    # and the target reads as finished) did not test anything, so it is run again, at most 3
    # times.
    attempt=1
    while :; do
      cp ref.h5 y.h5
      rm -f new.h5 y.h5.tmp.* new.h5.tmp.*
      # small rounds make the write last long enough to be caught in the middle
      GCOO_H5_CHUNK_BYTES=4096 "$MPIEXEC" -np "$np" "$GCOO_DIST" spdm --stencil 7 --grid 60 \
        --ncols 64 --repeat 1 --backend cpu --out "$target:/Y" $ow >out.txt 2>err.txt &
      job=$!
      i=0 # until the data is being written (the file is past its first MB)
      while [ $i -lt 3000 ]; do
        t="$(tmp_left $target)"
        [ -n "$t" ] && [ "$(stat -c %s "$t" 2>/dev/null || echo 0)" -gt 1048576 ] && break
        sleep 0.01
        i=$((i + 1))
      done
      [ -n "$(tmp_left $target)" ] || fail "[SIG$sig] the write never started"
      if [ "$to" = mpirun ]; then
        kill -$sig $job 2>/dev/null
      else
        kill -$sig $(pgrep -f "gcoo_dist spdm --stencil 7 --grid 60" | grep -v "^$job\$") 2>/dev/null
      fi
      wait $job
      rc=$?
      [ $attempt -lt 3 ] && ! grep -q "removed the temporary file" err.txt &&
        [ -z "$(tmp_left $target)" ] && [ -e "$target" ] && ! cmp -s ref.h5 "$target" &&
        "$GCOO_DIST" info --in "$target:/Y" >/dev/null 2>&1 || break
      echo "attempt $attempt: the job published $target before SIG$sig came; again"
      attempt=$((attempt + 1))
    done
    echo "after SIG$sig to $to at $np rank(s): rc $rc; $(head -c 400 err.txt)"
    [ "$rc" != 0 ] || fail "exited 0 after SIG$sig"
    cmp -s ref.h5 y.h5 || fail "y.h5 changed (SIG$sig)"
    if [ "$sig" != KILL ]; then
      [ -z "$(tmp_left y.h5)" ] || fail "temporary file left after SIG$sig: $(ls)"
      grep -q "rank [0-9]: stopped by SIG$sig; removed the temporary file" err.txt ||
        fail "no message after SIG$sig: $(head -c 300 err.txt)"
    else
      [ ! -e new.h5 ] || fail "a killed write published new.h5"
      left="$(tmp_left new.h5)"
      [ -n "$left" ] || fail "no temporary file after SIGKILL (nothing to check)"
      # under its own name the readers refuse it; under any name its object is marked unfinished
      "$GCOO_DIST" spdm --stencil 7 --grid 60 --b "$left:/Y" --backend cpu >o.txt 2>&1 &&
        fail "spdm read a killed write's temporary file as its operand"
      cp "$left" left.h5
      "$GCOO_DIST" info --in left.h5:/Y >info.txt 2>&1 && fail "a killed write's file reads: $(cat info.txt)"
      grep -q "never finished" info.txt || fail "no 'never finished': $(head -c 300 info.txt)"
      "$GCOO_DIST" spdm --stencil 7 --grid 60 --b left.h5:/Y --backend cpu >o.txt 2>&1 &&
        fail "spdm read a killed write's file as its operand"
      grep -q "never finished" o.txt || fail "spdm --b: no 'never finished': $(head -c 300 o.txt)"
    fi
  done
  ;;
eio-write)
  : "${GCOO_FAULT_SHIM:?GCOO_FAULT_SHIM must name the shim}"
  for rank in 2 0; do
    for after in 1 2 5; do
      [ $rank = 2 ] && [ $after = 5 ] && after=3 # rank 2 writes little: its 3rd write is its data
      cp ref.h5 y.h5
      what="[rank $rank, write $after]"
      GCOO_FAULT_RANK=$rank GCOO_FAULT_MODE=weio GCOO_FAULT_PATH=.tmp. GCOO_FAULT_AFTER=$after \
        timeout 60 "$MPIEXEC" -np 4 sh "$here/rank_wrap.sh" . \
        "$GCOO_DIST" spdm --stencil 7 --grid 40 --ncols 32 --repeat 1 --backend cpu \
        --out y.h5:/Y --overwrite >out.txt 2>err.txt
      rc=$?
      [ "$rc" != 124 ] || fail "$what hung"
      [ "$rc" != 0 ] || fail "$what exited 0"
      grep -q "rank $rank: .*\(Input/output error\|write failed\|cannot\)" err.txt ||
        fail "$what: no message naming rank $rank and the cause: $(head -c 400 err.txt)"
      cmp -s ref.h5 y.h5 || fail "$what: y.h5 changed"
      [ -z "$(tmp_left y.h5)" ] || fail "$what: temporary file left"
      # known, upstream: HDF5 1.10.8 crashes in MPI_Finalize on a file whose flush failed
      grep -q "Segmentation fault" err.txt && echo "KNOWN $what: HDF5 crashed at exit (H5F__close_cb) after the reported error"
      echo "$what rc $rc: $(grep -m1 "rank $rank:" err.txt | cut -c1-160)"
    done
  done
  ;;
overwrite)
  for np in 1 2; do
    rm -f f.h5 c.mtx
    run() { "$MPIEXEC" -np "$np" "$GCOO_DIST" "$@" >o.txt 2>e.txt; }
    run gen --stencil 7 --grid 6 --out f.h5:/A || fail "np $np: gen: $(cat e.txt)"
    run spdm --a f.h5:/A --ncols 3 --repeat 1 --backend cpu --out f.h5:/Y || fail "np $np: spdm: $(cat e.txt)"
    cp f.h5 before.h5
    for cmd in "spdm --a f.h5:/A --ncols 3 --repeat 1 --backend cpu --out f.h5:/Y" \
               "gen --stencil 7 --grid 6 --out f.h5:/A" \
               "solve --a f.h5:/A --shift 1 --k 2 --backend cpu --out f.h5:/Y" \
               "spgemm --a f.h5:/A --b f.h5:/A --backend cpu --out f.h5:/Y"; do
      run $cmd && fail "np $np: '$cmd' replaced an existing object without --overwrite"
      grep -q "exists" e.txt || fail "np $np: '$cmd': no clear error: $(head -c 300 e.txt)"
      cmp -s before.h5 f.h5 || fail "np $np: '$cmd' changed the file it refused to write"
    done
    run solve --a f.h5:/A --shift 1 --k 2 --backend cpu --out f.h5:/X || fail "np $np: solve: $(cat e.txt)"
    run spgemm --a f.h5:/A --b f.h5:/A --backend cpu --out f.h5:/C || fail "np $np: spgemm: $(cat e.txt)"
    run spdm --a f.h5:/A --ncols 3 --seed 9 --repeat 1 --backend cpu --out f.h5:/Y --overwrite ||
      fail "np $np: spdm --overwrite: $(cat e.txt)"
    for o in /A /Y /X /C; do
      "$GCOO_DIST" info --in "f.h5:$o" >/dev/null 2>&1 || fail "np $np: f.h5:$o lost"
    done
    [ -z "$(tmp_left f.h5)" ] || fail "np $np: temporary file left"
    # Matrix Market: an existing file is replaced only with --overwrite
    run convert --in f.h5:/A --out c.mtx || fail "np $np: convert: $(cat e.txt)"
    cp c.mtx c0.mtx
    run convert --in f.h5:/C --out c.mtx && fail "np $np: convert replaced c.mtx without --overwrite"
    cmp -s c0.mtx c.mtx || fail "np $np: a refused convert changed c.mtx"
    run convert --in f.h5:/C --out c.mtx --overwrite || fail "np $np: convert --overwrite: $(cat e.txt)"
    rm -f g.h5
    run gen --stencil 7 --grid 5 --out g.h5:/A || fail "np $np: gen g.h5: $(cat e.txt)"
    run convert --in f.h5:/C --out g.h5:/C || fail "np $np: convert into g.h5: $(cat e.txt)"
    run convert --in f.h5:/C --out g.h5:/C && fail "np $np: convert replaced g.h5:/C without --overwrite"
    "$GCOO_DIST" info --in g.h5:/A >/dev/null 2>&1 || fail "np $np: convert lost g.h5:/A"
  done
  ;;
*)
  echo "unknown scenario $scenario"
  exit 2
  ;;
esac
[ $failures = 0 ] && echo "PASS $scenario"
[ $failures = 0 ]
