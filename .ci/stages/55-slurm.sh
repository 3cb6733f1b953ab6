#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# .ci/stages/55-slurm.sh: the batch scripts of jobs/, submitted for real with sbatch to a Slurm
# cluster started here (Debian's slurm-wlm 22.05 + munge, two nodes on localhost: see
# .ci/slurm/cluster.sh), on small inputs with the CPU backend. Each job's script is submitted as
# it is shipped (8 tasks and 8 GPUs per node, srun --mpi=pmix or mpirun), except for what the
# CI nodes cannot give: --cpus-per-task=1 and a short --time. Checks every job's final state and
# exit code (scontrol show job: there is no accounting daemon for sacct), its log and its output
# files (JSON objects parse, HDF5 outputs hold their dataset), and that a job given a broken
# input FAILS. A job that fails only because Open MPI could not wire up TCP between the two
# "nodes" of this one host is resubmitted once (see below). Stops every daemon it started, on any
# exit. Budget: well under 4 minutes.
#   GCOO_BUILD_DIR  the built tree whose gcoo_dist the jobs run (default: build/)
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${GCOO_BUILD_DIR:-$top/build}"
deadline=$(($(date +%s) + ${GCOO_CI_SLURM_BUDGET:-200}))
py=/usr/bin/python3
[ -x "$py" ] || py=python3

fail() {
  echo "55-slurm: FAILED: $*" >&2
  exit 1
}

bash "$top/.ci/slurm/cluster.sh" install
work="$(mktemp -d "${TMPDIR:-/tmp}/gcoo-slurm.XXXXXX")"
chmod 755 "$work"
cleanup() {
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    bash "$top/.ci/slurm/cluster.sh" logs "$work" || true
  fi
  bash "$top/.ci/slurm/cluster.sh" stop "$work" || rc=1
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM  # so that an interrupted CI still stops the daemons (cleanup on EXIT)
bash "$top/.ci/slurm/cluster.sh" start "$work"
# shellcheck disable=SC1091
source "$work/env.sh"

# ---- inputs ----------------------------------------------------------------------------------
run="$work/run"
mkdir -p "$run"
# the 2-D 5-point Laplacian on a 20 x 20 grid (400 rows, symmetric positive definite), general
# coordinate format, and its gzip copy
awk -v n=20 'BEGIN {
  N = n * n; nnz = 5 * N - 4 * n
  print "%%MatrixMarket matrix coordinate real general"
  print "% 2-D Laplacian, written by .ci/stages/55-slurm.sh"
  print N, N, nnz
  for (i = 0; i < N; i++) {
    x = i % n; y = int(i / n)
    if (y > 0) print i + 1, i + 1 - n, -1
    if (x > 0) print i + 1, i, -1
    print i + 1, i + 1, 4
    if (x < n - 1) print i + 1, i + 2, -1
    if (y < n - 1) print i + 1, i + 1 + n, -1
  }
}' >"$run/lap.mtx"
gzip -c "$run/lap.mtx" >"$run/lap.mtx.gz"
# a broken file: the header promises 2 entries, the body has 1
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n' >"$run/bad.mtx"

# ---- submission --------------------------------------------------------------------------------
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export BACKEND=cpu
if [ "$build" != "$top/build" ]; then export GCOO_DIST="$build/cli/gcoo_dist"; fi
[ -x "${GCOO_DIST:-$top/build/cli/gcoo_dist}" ] || fail "no gcoo_dist in $build: build first"

declare -A job_script job_expect job_args
job_names=()
# submit <name> <expect: ok|fail> <script> [sbatch options] -- [env assignments]
# (again with the same name: a resubmission, which replaces the job checked under that name)
submit() {
  local name="$1" expect="$2" script="$3" opts=() envs=() id
  shift
  job_args[$name]="$(printf '%q ' "$@")"
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  envs=("$@")
  # its own TMPDIR: jobs that start in the same instant on one host otherwise race to create and
  # remove Open MPI's per-user job directory (open-mpi/ompi#8510), as a site's per-job TMPDIR
  # would prevent
  mkdir -p "$run/tmp.$name"
  envs+=("TMPDIR=$run/tmp.$name")
  id=$(cd "$run" && env "${envs[@]}" sbatch --parsable --cpus-per-task=1 --time=4 "${opts[@]}" \
       "$top/jobs/$script") || fail "sbatch of $name ($script) refused"
  id="${id%%;*}"
  [ -n "${job_script[$name]:-}" ] || job_names+=("$name")
  job_script[$name]="$script:$id"
  job_expect[$name]="$expect"
  echo "55-slurm: submitted $name: job $id = ${envs[*]} sbatch ${opts[*]} jobs/$script"
}

submit check-srun ok check-launch.sbatch --
submit check-mpirun-2nodes ok check-launch.sbatch --nodes=2 -- LAUNCHER=mpirun
submit spdm-srun ok spdm-node.sbatch -- INPUT="$run/lap.mtx" NCOLS=8 DTYPE=float64 REPEAT=2 CHECK=1
submit spdm-mpirun ok spdm-node.sbatch -- LAUNCHER=mpirun INPUT="$run/lap.mtx.gz" NCOLS=5 \
  DTYPE=float32 REPEAT=2 CHECK=1
submit spdm-2nodes-gen ok spdm-nodes.sbatch -- GEN_ROWS=300 GEN_SPARSITY=0.98 NCOLS=4 REPEAT=2 CHECK=1
submit spgemm-srun ok spgemm.sbatch -- INPUT="$run/lap.mtx" EXACT=1
submit solve-srun ok solve.sbatch -- INPUT="$run/lap.mtx" K=2 TOL=1e-8 MAXIT=500
submit spdm-bad-input fail spdm-node.sbatch -- INPUT="$run/bad.mtx" NCOLS=2 REPEAT=1

# ---- wait ------------------------------------------------------------------------------------
# wait_jobs <name>...: until the named jobs have left the queue (fails at the stage's deadline)
wait_jobs() {
  local ids=() name idlist
  for name in "$@"; do ids+=("${job_script[$name]#*:}"); done
  idlist="$(IFS=,; echo "${ids[*]}")"
  while [ -n "$(squeue -h -j "$idlist" -o %i 2>/dev/null)" ]; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      squeue -j "$idlist" >&2 || true
      fail "jobs still queued or running at the deadline (${GCOO_CI_SLURM_BUDGET:-200} s)"
    fi
    sleep 2
  done
}
# field <job id> <Name>: a field of `scontrol show job`
field() { scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# job_log <name>: the log of the job last submitted under that name (#SBATCH --output of jobs/)
job_log() {
  local s="${job_script[$1]%%:*}"
  echo "$run/gcoo-${s%.sbatch}-${job_script[$1]#*:}.out"
}
wait_jobs "${job_names[@]}"

# ---- Open MPI's TCP wire-up between the CI cluster's nodes -----------------------------------
# The nodes n1 and n2 are this one host, so the ranks of a two-node job talk over TCP (env.sh:
# btl self,tcp), some 50 ranks on 2 cores. Under that load Open MPI 4.1's TCP transport now and
# then fails a connection while wiring up ("Open MPI failed to TCP connect to a peer MPI
# process", the socket's error EINPROGRESS or EAGAIN) and the rank then crashes (SIGSEGV): a
# CI run here lost spdm-2nodes-gen so once. It is neither gcoo's code nor a real cluster's
# situation, so a job that was to succeed and failed with that message is resubmitted once, and
# says so.
again=()
for name in "${job_names[@]}"; do
  id="${job_script[$name]#*:}"
  log="$(job_log "$name")"
  [ "${job_expect[$name]}" = ok ] && [ "$(field "$id" JobState)" != COMPLETED ] || continue
  grep -q "Open MPI failed to TCP connect to a peer MPI process" "$log" 2>/dev/null || continue
  echo "55-slurm: $name (job $id) lost Open MPI's TCP wire-up between the CI nodes;" \
    "resubmitted once:"
  sed 's/^/    /' "$log" | grep -m3 "connect() to\|Signal:" || true
  eval "submit $name ${job_args[$name]}"
  again+=("$name")
done
[ "${#again[@]}" -eq 0 ] || wait_jobs "${again[@]}"

# ---- check -----------------------------------------------------------------------------------
json_object() { "$py" -c 'import json, sys; o = json.load(open(sys.argv[1])); assert isinstance(o, dict) and o, "not a non-empty JSON object"' "$1"; }
h5_has() { h5ls "$1" 2>/dev/null | grep -q "^$2 "; }

failures=0
bad() {
  echo "55-slurm: $1: $2" >&2
  failures=$((failures + 1))
}
for name in "${job_names[@]}"; do
  script="${job_script[$name]%%:*}"
  id="${job_script[$name]#*:}"
  log="$(job_log "$name")"
  out="${log%.out}"
  state="$(field "$id" JobState)"
  code="$(field "$id" ExitCode)"
  echo "===== $name: job $id, $state, exit $code ($log)"
  [ -f "$log" ] && sed 's/^/    /' "$log" | tail -60
  if [ "${job_expect[$name]}" = fail ]; then
    if [ "$state" != FAILED ] || [ "$code" = 0:0 ]; then
      bad "$name" "expected FAILED with a non-zero exit, got $state $code"
    fi
    grep -q "GCOO_ERR_FORMAT" "$log" || bad "$name" "the log does not say GCOO_ERR_FORMAT for the broken input"
    continue
  fi
  if [ "$state" != COMPLETED ] || [ "$code" != 0:0 ]; then
    bad "$name" "expected COMPLETED 0:0, got $state $code"
    continue
  fi
  grep -q "=== gcoo job .* done in" "$log" || bad "$name" "the log has no end line"
  case "$script" in
    check-launch.sbatch)
      want=$(field "$id" NumTasks)
      [ "$(wc -l <"$out/ranks.txt")" -eq "$want" ] || bad "$name" "ranks.txt has not $want lines"
      # node-local ranks 0..7 on every node
      [ "$(awk '{print $8, $4}' "$out/ranks.txt" | sort -u | wc -l)" -eq "$want" ] ||
        bad "$name" "(node, local rank) pairs are not distinct"
      [ "$(grep -c '^gcoo_dist ' "$out/version.txt")" -eq 1 ] || bad "$name" "not one MPI world" ;;
    spdm-node*.sbatch)
      json_object "$out/spdm.json" || bad "$name" "spdm.json is not a JSON object"
      h5_has "$out/Y.h5" Y || bad "$name" "Y.h5 has no dataset /Y"
      if [ "$script" = spdm-nodes.sbatch ]; then
        h5_has "$out/A.h5" A || bad "$name" "the generated A.h5 has no /A"
      fi ;;
    spgemm.sbatch)
      for j in predict spgemm C-info; do json_object "$out/$j.json" || bad "$name" "$j.json is not a JSON object"; done
      [ -s "$out/C.h5" ] || bad "$name" "no C.h5" ;;
    solve.sbatch)
      [ -s "$out/X.h5" ] || bad "$name" "no X.h5" ;;
  esac
done
[ "$failures" -eq 0 ] || fail "$failures check(s) failed"
echo "55-slurm: ${#job_names[@]} jobs behaved as expected ($(($(date +%s) - deadline + ${GCOO_CI_SLURM_BUDGET:-200})) s)"
