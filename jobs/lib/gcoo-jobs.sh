# SPDX-License-Identifier: MIT
# jobs/lib/gcoo-jobs.sh: what the batch scripts of jobs/ share. Sourced by them, never run.
#
# Settings, all environment variables with defaults (sbatch passes the submitting shell's
# environment to the job, so `NCOLS=512 sbatch jobs/spdm-node.sbatch` works):
#   GCOO_DIST     the gcoo_dist command. Default: gcoo_dist on PATH, else <prefix>/bin/gcoo_dist
#                 next to an installed <prefix>/share/gcoo/jobs, else build/cli/gcoo_dist of
#                 the source tree holding this jobs/ folder
#   LAUNCHER      srun (default) | mpirun        how ranks are started (jobs/README.md says when
#                                               to use which)
#   SRUN_MPI      srun's --mpi plugin: pmix (default) | pmi2 | ...   (`srun --mpi=list`)
#   SRUN_ARGS     more srun arguments, e.g. "--cpu-bind=cores"
#   MPIRUN_ARGS   mpirun arguments replacing the default mapping
#                 "--map-by ppr:<tasks per node>:node:PE=<cpus per task>"
#   BACKEND       gcoo backend: auto (default: CUDA when a GPU is usable) | cuda (or gpu) | cpu;
#                 exported as GCOO_BACKEND (cuda|cpu|auto, gcoo_ctx_create's names) and given to
#                 `gcoo_dist spdm --backend` (gpu|cpu|auto, the command's names)
#   OUTDIR        where results go; default ./gcoo-<job>-<job id> in the submission directory
# Input of the product scripts (spdm, spgemm, solve):
#   INPUT         the sparse matrix A: file.mtx, file.mtx.gz or file.h5:/object. When empty,
#                 a matrix is generated first with `gcoo_dist gen` into $OUTDIR/A.h5:
#                 GEN_STENCIL=7|27 with GEN_GRID=n (n^3 rows, symmetric positive definite), or
#                 GEN_ROWS x GEN_COLS at GEN_SPARSITY (fraction of zeros) with GEN_SEED
# The job's own arguments (sbatch jobs/x.sbatch --alg gcoo ...) are passed on to its main
# gcoo_dist command unchanged.

# ---- the job's frame -------------------------------------------------------------------------

# gcoo_job_begin <name>: results folder, the command, threads; prints what the job runs on.
gcoo_job_begin() {
  GCOO_JOB_NAME="$1"
  GCOO_JOB_T0=$(date +%s)
  local id="${SLURM_JOB_ID:-local$$}"
  OUTDIR="${OUTDIR:-${SLURM_SUBMIT_DIR:-$PWD}/gcoo-$GCOO_JOB_NAME-$id}"
  mkdir -p "$OUTDIR"
  LAUNCHER="${LAUNCHER:-srun}"
  SRUN_MPI="${SRUN_MPI:-pmix}"
  BACKEND="${BACKEND:-${GCOO_BACKEND:-auto}}"
  case "$BACKEND" in
    auto | cpu) GCOO_CLI_BACKEND="$BACKEND" ;;
    cuda* | gpu) GCOO_CLI_BACKEND=gpu ;;
    *) gcoo_die "BACKEND=$BACKEND: use auto, cuda (gpu) or cpu" ;;
  esac
  [ "$BACKEND" = gpu ] && BACKEND=cuda
  export GCOO_BACKEND="$BACKEND"
  # one OpenMP thread per CPU of the task (the CPU backend and the host-side conversions)
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-1}}"
  # Slurm 22.05's srun no longer reads SLURM_CPUS_PER_TASK: hand it over explicitly
  if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
    export SRUN_CPUS_PER_TASK="${SRUN_CPUS_PER_TASK:-$SLURM_CPUS_PER_TASK}"
  fi
  gcoo_find_dist
  case "$LAUNCHER" in
    srun | mpirun) ;;
    *) gcoo_die "LAUNCHER=$LAUNCHER: use srun or mpirun" ;;
  esac
  echo "=== gcoo job $GCOO_JOB_NAME ${SLURM_JOB_ID:+(Slurm job $SLURM_JOB_ID) }on $(hostname -s), $(date -u '+%F %T') UTC"
  echo "    nodes ${SLURM_JOB_NODELIST:-$(hostname -s)} (${SLURM_JOB_NUM_NODES:-1}), tasks ${SLURM_NTASKS:-1}" \
       "(${SLURM_NTASKS_PER_NODE:-?} per node), CPUs per task ${SLURM_CPUS_PER_TASK:-?}," \
       "GPUs per node ${SLURM_GPUS_ON_NODE:-${SLURM_GPUS_PER_NODE:-0}}"
  local how="$LAUNCHER"
  [ "$LAUNCHER" = srun ] && how+=" --mpi=$SRUN_MPI"
  echo "    launcher $how, backend $BACKEND, OMP_NUM_THREADS $OMP_NUM_THREADS"
  echo "    command $GCOO_DIST"
  echo "    results $OUTDIR"
}

# gcoo_job_end: how long it took and what it wrote.
gcoo_job_end() {
  echo "=== gcoo job $GCOO_JOB_NAME done in $(($(date +%s) - GCOO_JOB_T0)) s; results in $OUTDIR:"
  ls -l "$OUTDIR" | sed 1d | sed 's/^/    /'
}

gcoo_die() {
  echo "gcoo job${GCOO_JOB_NAME:+ $GCOO_JOB_NAME}: $*" >&2
  exit 1
}

# gcoo_find_dist: set GCOO_DIST (see the header) or stop with a message saying how to set it.
gcoo_find_dist() {
  if [ -n "${GCOO_DIST:-}" ]; then
    [ -x "$GCOO_DIST" ] || command -v "$GCOO_DIST" >/dev/null ||
      gcoo_die "GCOO_DIST=$GCOO_DIST is not an executable"
    return 0
  fi
  local here c
  here="$(cd "$GCOO_JOBS_DIR" && pwd)"
  for c in "$(command -v gcoo_dist 2>/dev/null || true)" "$here/../../../bin/gcoo_dist" \
           "$here/../build/cli/gcoo_dist"; do
    if [ -n "$c" ] && [ -x "$c" ]; then
      GCOO_DIST="$(cd "$(dirname "$c")" && pwd)/$(basename "$c")"
      return 0
    fi
  done
  gcoo_die "gcoo_dist not found: put it on PATH (module load / PATH=<prefix>/bin:\$PATH)" \
           "or set GCOO_DIST=/path/to/gcoo_dist"
}

# ---- starting ranks --------------------------------------------------------------------------

# gcoo_launch_cmd <program> [args...]: run one copy per task of the allocation.
#   srun:   srun --mpi=$SRUN_MPI --kill-on-bad-exit=1 $SRUN_ARGS program args
#           (one rank failing ends the step instead of leaving the others in a collective)
#   mpirun: mpirun -np $SLURM_NTASKS $MPIRUN_ARGS program args; inside the allocation, an
#           Open MPI built with Slurm support takes the node list from Slurm by itself
# GPUs are not bound here: every rank sees the node's GPUs and gcoo takes the one of its
# node-local rank (see jobs/README.md, "GPU binding").
gcoo_launch_cmd() {
  local cmd=()
  if [ "$LAUNCHER" = srun ]; then
    cmd=(srun "--mpi=$SRUN_MPI" --kill-on-bad-exit=1)
    # shellcheck disable=SC2206
    [ -n "${SRUN_ARGS:-}" ] && cmd+=($SRUN_ARGS)
  else
    cmd=(mpirun -np "${SLURM_NTASKS:-1}")
    if [ -n "${MPIRUN_ARGS+set}" ]; then
      # shellcheck disable=SC2206
      cmd+=($MPIRUN_ARGS)
    elif [ -n "${SLURM_NTASKS_PER_NODE:-}" ]; then
      local map="ppr:${SLURM_NTASKS_PER_NODE%%(*}:node"
      [ "${SLURM_CPUS_PER_TASK:-1}" -gt 1 ] && map+=":PE=$SLURM_CPUS_PER_TASK"
      cmd+=(--map-by "$map")
    fi
  fi
  echo "+ ${cmd[*]} $*" >&2
  "${cmd[@]}" "$@"
}

# gcoo_launch [gcoo_dist args...]: gcoo_dist on every task.
gcoo_launch() { gcoo_launch_cmd "$GCOO_DIST" "$@"; }

# gcoo_launch_json <file> [gcoo_dist args...]: the same with --json; rank 0's JSON object goes
# to <file> and into the job log.
gcoo_launch_json() {
  local file="$1"
  shift
  gcoo_launch "$@" --json >"$file"
  echo "--- $(basename "$file"):"
  cat "$file"
}

# ---- inputs ------------------------------------------------------------------------------------

# gcoo_input: make sure $INPUT names a matrix, generating one into $OUTDIR/A.h5:/A if empty.
gcoo_input() {
  if [ -n "${INPUT:-}" ]; then
    local file="${INPUT%%:/*}"
    [ -e "$file" ] || gcoo_die "INPUT=$INPUT: no file $file"
    return 0
  fi
  local gen=(gen --out "$OUTDIR/A.h5:/A")
  if [ -n "${GEN_STENCIL:-}" ]; then
    gen+=(--stencil "$GEN_STENCIL" --grid "${GEN_GRID:-64}")
  else
    gen+=(--rows "${GEN_ROWS:-100000}" --cols "${GEN_COLS:-${GEN_ROWS:-100000}}" \
          --sparsity "${GEN_SPARSITY:-0.999}" --seed "${GEN_SEED:-1}")
  fi
  gcoo_launch "${gen[@]}"
  INPUT="$OUTDIR/A.h5:/A"
}

# ---- the products ----------------------------------------------------------------------------

# gcoo_job_spdm [gcoo_dist spdm options]: Y = A X over all tasks (spdm-node and spdm-nodes).
# Parameters: INPUT (gcoo_input), DENSE or NCOLS/SEED, DTYPE, ALG, REPEAT, CHECK, OUTPUT (see
# jobs/spdm-node.sbatch).
gcoo_job_spdm() {
  gcoo_input
  local args=(spdm --a "$INPUT" --backend "$GCOO_CLI_BACKEND" --dtype "${DTYPE:-float32}" --repeat "${REPEAT:-10}")
  if [ -n "${DENSE:-}" ]; then
    args+=(--b "$DENSE")
  else
    args+=(--ncols "${NCOLS:-256}" --seed "${SEED:-1}")
  fi
  local out="${OUTPUT-$OUTDIR/Y.h5:/Y}"
  if [ -n "$out" ]; then args+=(--out "$out"); fi
  if [ -n "${ALG:-}" ]; then args+=(--alg "$ALG"); fi
  if [ "${CHECK:-0}" = 1 ]; then args+=(--check); fi
  gcoo_launch_json "$OUTDIR/spdm.json" "${args[@]}" "$@"
}
