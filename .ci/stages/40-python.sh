#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# .ci/stages/40-python.sh: the Python package as the README installs it, from this tree: a venv of
# Debian's Python (/usr/bin/python3, with numpy, scipy, h5py, mpi4py and pytest from
# .ci/packages/python.txt; --system-site-packages), `pip install ./python` at the top of the tree
# (pip's build environment gets scikit-build-core and nanobind from PyPI; libgcoo is compiled
# into the extension, with the CUDA backend when nvcc is found, as the C build does), then the
# package's tests (python/tests: results against scipy, zero copies, errors, 2 MPI ranks with and
# without mpi4py) and the README's two Python programs run as written, the second on 2 ranks.
# Fails on any error. About 2 CPU-minutes, most of it compiling libgcoo with its CUDA kernels:
# 2.5 minutes on 2 cores at load 4-5 (others building beside it).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/gcoo-python.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# shellcheck source=../stage_lib.sh
source "$top/.ci/stage_lib.sh"  # fail, run_expect

# the README's set-up, word for word but for the venv's place
echo "--- /usr/bin/python3 -m venv --system-site-packages; pip install ./python"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# shellcheck disable=SC1091
source "$work/venv/bin/activate"
start=$(date +%s)
(cd "$top" && pip install ./python) >"$work/pip.log" 2>&1 || { tail -60 "$work/pip.log"; fail "pip install ./python"; }
cd "$work"  # away from the source tree: what is tested is the installed package
run_expect '^gcoo [0-9.]+ \(.*MPI' python -c 'import gcoo; print(gcoo.version())'
echo "    (built and installed in $(( $(date +%s) - start )) s)"

echo "--- pytest python/tests"
python -m pytest -q -p no:cacheprovider "$top/python/tests" || fail "pytest python/tests"

# readme_block <tag>: the ```python block after the README's <!-- readme-python: <tag> --> marker
readme_block() {
  awk -v tag="<!-- readme-python: $1 " 'index($0, tag) == 1 { found = 1; next }
    found && /^```python/ { inside = 1; next } inside && /^```/ { exit } inside' "$top/README.md"
}
readme_block quickstart >quickstart.py
readme_block mpi >dist_solve.py
[ -s quickstart.py ] && [ -s dist_solve.py ] || fail "the README's Python blocks were not found"
echo "--- the README's quick start"
out="$(python quickstart.py 2>&1)" || { printf '%s\n' "$out"; fail "the quick start failed"; }
printf '%s\n' "$out" | sed 's/^/    /'
for line in '^SpMM error: [0-9.e-]+$' '^SpGEMM: [0-9]+ entries, [0-9]+ predicted$' \
            '^CG: [0-9]+ iterations, residual [0-9.e-]+$'; do
  grep -qE "$line" <<<"$out" || fail "quick start: no line matching '$line'"
done
echo "--- the README's MPI program on 2 ranks"
run_expect '^distributed CG on 2 ranks: [0-9]+ iterations' mpirun -np 2 python dist_solve.py
echo "--- 40-python: package built, tests and README programs passed"
