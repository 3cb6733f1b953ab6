#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/startup_profile.sh: what a command reads off the disk before and around its own work
# (issue 19, docs/datapath.md "Start-up"), without strace or perf: the shared objects the process
# loads (the dynamic loader's own list, LD_DEBUG=files: those linked and those opened later, MPI's
# plugins and the CUDA driver included), then, after drop_caches, one cold run of the command and
# the bytes of each of those files the page cache then holds (fincore): what the run read of it.
# Also the loader's own statistics (LD_DEBUG=statistics: relocations, time in the loader) of a
# cold run. Needs root for drop_caches (otherwise the numbers are warm and say so).
#   usage: bench/startup_profile.sh COMMAND [ARGS...]
set -u
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cold=0
if sync && (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then cold=1; fi
drop() { [ "$cold" = 1 ] && sync && echo 3 >/proc/sys/vm/drop_caches; }

# 1. the objects the process loads (warm run; the loader names each one it initialises)
LD_DEBUG=files LD_DEBUG_OUTPUT=$tmp/files "$@" >/dev/null 2>&1
cat "$tmp"/files.* 2>/dev/null | sed -n 's/.*calling init: \(.*\)$/\1/p' | sort -u >"$tmp/libs"
echo "$1" >>"$tmp/libs"
n=$(wc -l <"$tmp/libs")

# 2. one cold run, then what of those files is in the page cache
drop
t0=$(date +%s.%N)
"$@" >/dev/null 2>&1
rc=$?
t1=$(date +%s.%N)
echo "startup profile: $* (rc $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') s, $([ $cold = 1 ] && echo cold || echo 'WARM: drop_caches not permitted'))"
if command -v fincore >/dev/null; then
  xargs -a "$tmp/libs" -d '\n' fincore -b -n -o RES,SIZE,FILE 2>/dev/null | sort -n -r >"$tmp/res"
  awk -v n="$n" '{res += $1; size += $2} END {
    printf "  %d shared objects loaded; read from the disk in this run: %.1f MB of their %.1f MB\n", n, res / 1e6, size / 1e6 }' "$tmp/res"
  head -12 "$tmp/res" | awk '{printf "  %8.1f MB of %7.1f MB  %s\n", $1 / 1e6, $2 / 1e6, $3}'
else
  echo "  (no fincore here: the bytes per file are not measured)"
fi
# what kinds of objects: Open MPI's components, hwloc's plugins, and the large libraries
echo "  $n shared objects loaded: $(grep -c '/mca_' "$tmp/libs") Open MPI components, hwloc plugins:" \
  "$(grep -o 'hwloc_[a-z_]*\.so' "$tmp/libs" | sort -u | tr '\n' ' ')"
echo "  others: $(grep -v '/mca_' "$tmp/libs" | sed 's|.*/||' | sort -u | tr '\n' ' ')"

# 3. the loader's statistics of a cold start
drop
LD_DEBUG=statistics LD_DEBUG_OUTPUT=$tmp/stats "$@" >/dev/null 2>&1
cat "$tmp"/stats.* 2>/dev/null | sed -n 's/^ *[0-9]*: *//p' | grep -E "total startup time|time needed for relocation|number of relocations|load time" | sort -u | head -8 | sed 's/^/  loader: /'
