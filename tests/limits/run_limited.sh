#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/limits/run_limited.sh KIB COMMAND...: run COMMAND with its address space limited to KIB
# KiB (ulimit -v), so that large allocations really fail (Linux overcommits: without a limit a
# 16 GiB calloc "succeeds" and the process dies later, when it touches the pages). One OpenMP
# thread: thread stacks count against the limit too. Not usable under AddressSanitizer (its
# shadow memory alone reserves terabytes of address space).
kib="$1"
shift
ulimit -v "$kib" || { echo "run_limited.sh: cannot set ulimit -v $kib" >&2; exit 1; }
export OMP_NUM_THREADS=1
exec "$@"
