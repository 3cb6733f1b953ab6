#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run_spdm.sh: run the SpDM benchmark on one GPU and plot it.
#
#   bench/run_spdm.sh BUILD_DIR MATRICES_DIR OUT_DIR [spdm_bench options, e.g. --budget 240]
#
# BUILD_DIR holds a Release build with CUDA (bench/spdm_bench); MATRICES_DIR the Matrix Market
# files (the project's shared matrices); OUT_DIR receives spdm.csv, convert.csv,
# spdm_bench.log and the PNG plots (bench/plot_spdm.py). The summary is printed last.
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_DIR MATRICES_DIR OUT_DIR [spdm_bench options]" >&2
  exit 2
fi
build=$1 mats=$2 out=$3
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"
"$build/bench/spdm_bench" --out "$out" --matrices "$mats" "$@"
rc=$?
if command -v python3 >/dev/null; then
  python3 "$here/plot_spdm.py" "$out" || echo "run_spdm.sh: plotting failed (the CSV is in $out)"
fi
exit $rc
