#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_fair_prepare.sh OPSPARSE_GIT [MATS]: on this machine, before the GPU calls of
# bench/gpu_fair_call.sh, put into the ignored folder .device-kit/ of the repository root what the
# device machine cannot fetch (it reaches no network), and say how to make the calls:
#   .device-kit/mats/             the shared Matrix Market files (MATS, default the shared folder
#                                 beside the checkout: ../shared/matrices or /work/shared/matrices)
#   .device-kit/opsparse/         OpSparse's source at the commit the results name (OPSPARSE_COMMIT,
#                                 default 0134b0c), taken from OPSPARSE_GIT: a clone of
#                                 lorentzbf/OpSparse or its bare git directory
#   .device-kit/COMMIT            the commit of this tree (the device's copy has no .git) and
#                                 whether the tree had changes not committed
# A .device-kit/setup.sh that puts MPI and parallel HDF5 on the device's paths (as the earlier
# calls used) is left as it is; without one, the parts that need MPI (gcoo_dist, the solver
# benchmark) say that they did not run. Prints the size of what the calls carry (64 MiB at most).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="${1:?usage: bench/gpu_fair_prepare.sh OPSPARSE_GIT [MATS]}"
mats="${2:-}"
if [ -z "$mats" ]; then
  for d in "$top/../shared/matrices" "$top/../../shared/matrices" /work/shared/matrices; do
    [ -d "$d" ] && mats="$d" && break
  done
fi
[ -d "$mats" ] || { echo "gpu_fair_prepare: no matrix folder (give MATS)" >&2; exit 1; }
commit="${OPSPARSE_COMMIT:-0134b0c}"
kit="$top/.device-kit"
mkdir -p "$kit"
rm -rf "$kit/mats" "$kit/opsparse"
mkdir -p "$kit/mats" "$kit/opsparse"
cp "$mats"/*.mtx.gz "$kit/mats/"
# a bare git directory or a work tree: git archive of the commit either way
if git --git-dir="$src" rev-parse --verify -q "$commit^{commit}" >/dev/null 2>&1; then
  git --git-dir="$src" archive "$commit" | tar -x -C "$kit/opsparse"
else
  git -C "$src" archive "$commit" | tar -x -C "$kit/opsparse"
fi
echo "$commit" >"$kit/opsparse/COMMIT"
{
  git -C "$top" rev-parse --short HEAD
  git -C "$top" status --porcelain --untracked-files=no | grep -q . && echo "with changes not committed" || true
} | paste -sd' ' >"$kit/COMMIT"
echo "gpu_fair_prepare: .device-kit ready: $(ls "$kit/mats" | wc -l) matrices, OpSparse $commit, tree $(cat "$kit/COMMIT")"
du -sh "$kit" | sed 's/^/gpu_fair_prepare: carried: /'
[ -f "$kit/setup.sh" ] || echo "gpu_fair_prepare: no .device-kit/setup.sh: the device's own MPI and HDF5, if any, will be used"
cat <<'EOF'
the calls (device tool `run`, carry [".device-kit"], timeout_s 600), one after the other:
  bash bench/gpu_fair_call.sh spgemm       # ~7 min: build, t503, OpSparse, SpGEMM twice
  bash bench/gpu_fair_call.sh spdm-solver  # ~9 min: build, t302, SpDM, the solvers
then copy the files under each call's files_at into bench/results/ (they are named for the
device: h200-*.txt or h100-*.txt) and read their target lines.
EOF
