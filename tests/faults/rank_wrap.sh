#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/faults/rank_wrap.sh DIR COMMAND...: one rank of an mpirun job (mpirun -np 4 rank_wrap.sh
# DIR gcoo_dist ...). Preloads the fault shim ($GCOO_FAULT_SHIM) on rank $GCOO_FAULT_RANK only
# (or on every rank with GCOO_FAULT_RANK=all; on none when unset) and records the rank's exit
# status in DIR/rc.<rank>, so that the test sees how every rank ended, not only mpirun's summary.
rank="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-0}}}"
dir="$1"
shift
if [ -n "$GCOO_FAULT_SHIM" ] && { [ "$GCOO_FAULT_RANK" = all ] || [ "$GCOO_FAULT_RANK" = "$rank" ]; }; then
  LD_PRELOAD="$GCOO_FAULT_SHIM${LD_PRELOAD:+:$LD_PRELOAD}"
  export LD_PRELOAD
  [ -n "$GCOO_FAULT_OUT" ] && GCOO_FAULT_OUT="$GCOO_FAULT_OUT.$rank" && export GCOO_FAULT_OUT
else
  unset GCOO_FAULT_MODE
fi
"$@"
rc=$?
echo "$rc" >"$dir/rc.$rank"
exit "$rc"
