#!/usr/bin/env bash
# scripts/test.sh: the README's test command. Installs what is missing, builds, runs every
# ctest suite (unit, io, mpi, cli; gpu tests skip without a GPU) and prints the summary.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$top/scripts/deps.sh"
"$top/scripts/build.sh" "$top/build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
ctest --test-dir "$top/build" --output-on-failure -j "$(nproc)" "$@"
