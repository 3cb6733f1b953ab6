#!/usr/bin/env bash
# scripts/demo.sh: the README's first command. Installs what building and running gcoo needs
# (.ci/packages/build.txt, not the tests' or CI's tools), builds, and runs the main job on its
# embedded default (gcoo_dist with no arguments) on 2 MPI ranks.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$top/scripts/deps.sh" build
"$top/scripts/build.sh" "$top/build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ranks="${GCOO_DEMO_RANKS:-2}"
exec mpirun -np "$ranks" --oversubscribe "$top/build/cli/gcoo_dist" "$@"
