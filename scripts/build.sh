#!/usr/bin/env bash
# scripts/build.sh [build-dir] [extra cmake args...]: configure and build gcoo (Release-ish,
# CUDA kernels compiled when nvcc is found, even on machines without a GPU).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$top/build}"
shift || true
export HDF5_PREFER_PARALLEL=ON
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$top" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$build" -j "$(nproc)"
