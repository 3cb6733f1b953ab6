#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run_solver.sh BUILD_DIR OUT_DIR [MATS_DIR] [KS] [ALGS]: gcoo's solver against PyTorch's
# (bench/torch_cg.py: the plain script, the careful one with int32 indices, a convergence check
# every 10 iterations and a CUDA graph, and block CG) on one GPU, side by side in the same run,
# every side timed as a user waits for it: the warm time to solution (bench/solve_bench for gcoo:
# a solver made and set up for each solve; the same for PyTorch's set-up), the median of 5 solves
# after a warm-up solve in the same process (bench/bench_stat.h), with the set-up and the
# iterations beside it. Problems: the 3-D Poisson 7-point 100^3 (10^6 rows) and, when MATS_DIR
# holds them, the SPD matrices msc04515 and bcsstk24 (SuiteSparse); float64, Jacobi, tol 1e-8,
# for k in KS (default "1 8 32 128"). ALGS (default "auto"): the SpDM algorithms of the operator
# to try for k > 1 (e.g. "auto cusparse_csr_alg3 gcoo"); the fastest is the row the targets use.
# For k = 8, 16, 32 the block CG kernels' variants (kernels/solver/: GCOO_BCG_FUSED,
# GCOO_BCG_WFORM, GCOO_BCG_STAGES, ...: developer parameters, read from the environment only by a
# build configured with -DGCOO_DEVELOPER=ON, docs/parameters.md) run as extra rows; SOLVER_BENCH_VARIANTS replaces that
# list for every k > 1 (names as in variant_env below; "" for none). TORCH_VARIANTS (default
# "plain,fast,block") chooses PyTorch's.
# Prints one table and the target lines (bench/solver_report.py), from the rows of the default
# settings; JSON of every run in OUT_DIR/solver.jsonl.
# SOLVER_BENCH_DEADLINE (optional, seconds since the epoch): runs not started by then are skipped
# (listed as such) and the table is still printed, so a time-limited device call ends with it.
# SOLVER_BENCH_MATRIX_KS (default KS): the k for the SuiteSparse matrices.
# SOLVER_BENCH_BACKEND (default gpu) and SOLVER_BENCH_GRID (default 100): for a dry run of the
# script on a CPU machine (e.g. cpu and 12; PyTorch then runs on the CPU if it is installed).
set -u -o pipefail
build=${1:?usage: $0 BUILD_DIR OUT_DIR [MATS_DIR] [KS] [ALGS]}
out=${2:?usage: $0 BUILD_DIR OUT_DIR [MATS_DIR] [KS] [ALGS]}
mats=${3:-}
ks=${4:-1 8 32 128}
algs=${5:-auto}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
: >"$out/solver.jsonl"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sb="$build/bench/solve_bench"
backend=${SOLVER_BENCH_BACKEND:-gpu}
grid=${SOLVER_BENCH_GRID:-100}
torch_variants=${TORCH_VARIANTS-plain,fast,block}
problems=("poisson|--stencil 7 --grid $grid|--grid $grid|$ks")
for m in msc04515 bcsstk24; do
  [ -n "$mats" ] && [ -f "$mats/$m.mtx.gz" ] &&
    problems+=("$m|--a $mats/$m.mtx.gz|--mtx $mats/$m.mtx.gz|${SOLVER_BENCH_MATRIX_KS:-$ks}")
done
late() { # past the deadline: note the skipped run
  [ -n "${SOLVER_BENCH_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$SOLVER_BENCH_DEADLINE" ] &&
    echo "{\"problem\": \"$1\", \"solver\": \"$4\", \"k\": $3, \"variant\": \"$2\", \"failed\": \"skipped (deadline)\"}" >>"$out/solver.jsonl"
}
# The environment of a row's variant (the name after "alg:"); "" is the default settings.
variant_env() {
  case $1 in
  "") echo "" ;;
  unfused) echo "GCOO_BCG_FUSED=0" ;;                                    # the cuBLAS GEMM path
  pform) echo "GCOO_BCG_WFORM=0" ;;                                      # P = W T formed every iteration
  wr4) echo "GCOO_BCG_WFORM_RATIO=1e-4" ;;                               # W form: explicit P sooner
  wr8) echo "GCOO_BCG_WFORM_RATIO=1e-8" ;;                               # ... later
  s334) echo "GCOO_BCG_STAGES=3,3,4 GCOO_BCG_GRAM2=async" ;;            # deeper staging of the passes
  nomarks) echo "GCOO_BCG_PHASE_MARKS=0" ;;                              # no events between the phases
  kk512) echo "GCOO_BCG_KK_THREADS=512" ;;
  cudacore) echo "GCOO_BCG_MMA=0" ;;                                     # CUDA-core X, R, W updates
  upd2) echo "GCOO_BCG_STAGES=3,2,4" ;;                                  # update 2 stages (2 blocks an SM)
  stages2) echo "GCOO_BCG_STAGES=3,2,3" ;;                               # + direction 3 stages
  upd2w) echo "GCOO_BCG_STAGES=3,2,4 GCOO_BCG_W_IN_R=1" ;;              # + W over R's tile (3 blocks an SM)
  stages2w) echo "GCOO_BCG_STAGES=3,2,3 GCOO_BCG_W_IN_R=1" ;;
  g2s2) echo "GCOO_BCG_STAGES=2,3,4" ;;                                  # gram2 2 stages
  g2regs) echo "GCOO_BCG_GRAM2=regs" ;;                                  # gram2 register prefetch
  g2v16) echo "GCOO_BCG_GRAM2=async16" ;;                                # gram2 16-byte cp.async
  next16) echo "GCOO_BCG_STAGES=2,2,3 GCOO_BCG_GRAM2=async16" ;;        # all three changes
  nextregs) echo "GCOO_BCG_STAGES=3,2,3 GCOO_BCG_GRAM2=regs" ;;
  kk32) echo "GCOO_BCG_KK_THREADS=32" ;;                                # k x k kernels: one warp
  kk64) echo "GCOO_BCG_KK_THREADS=64" ;;
  kk128) echo "GCOO_BCG_KK_THREADS=128" ;;
  *) return 1 ;;
  esac
}
for p in "${problems[@]}"; do
  IFS='|' read -r name gargs targs pks <<<"$p"
  for k in $pks; do
    case $k in
    8) rows="unfused kk32" ;;
    16) rows="unfused pform" ;;
    32) rows="unfused pform s334 wr4 wr8 nomarks kk512 kk128" ;;
    *) rows="" ;;
    esac
    [ -n "${SOLVER_BENCH_VARIANTS+set}" ] && rows=$SOLVER_BENCH_VARIANTS
    variants=""
    for a in $algs; do
      variants="$variants $a"
      [ "$a" = auto ] && for r in $rows; do variants="$variants auto:$r"; done
    done
    for v in $variants; do
      alg=${v%%:*}
      var=${v#"$alg"}
      var=${var#:}
      [ "$k" = 1 ] && [ "$v" != auto ] && continue # k = 1: the fused PCG (own SpMV)
      env=$(variant_env "$var") || {
        echo "run_solver.sh: unknown variant '$var'" >&2
        continue
      }
      late "$name" "$var" "$k" gcoo && continue
      fz=1 mz=1
      case $var in unfused) fz=0 ;; cudacore) mz=0 ;; esac
      # shellcheck disable=SC2086
      env $env timeout 300 "$sb" --backend "$backend" $gargs --k "$k" --tol 1e-8 --maxit 20000 --alg "$alg" \
        2>>"$out/solver.err" | sed "s/^{/{\"problem\": \"$name\", \"solver\": \"gcoo\", \"alg_asked\": \"$alg\", \"fused\": $fz, \"mma\": $mz, \"variant\": \"$var\", \"env\": \"$env\", /" \
        >>"$out/solver.jsonl" || echo "{\"problem\": \"$name\", \"solver\": \"gcoo\", \"k\": $k, \"variant\": \"$var\", \"failed\": \"$v\"}" >>"$out/solver.jsonl"
    done
    [ -n "$torch_variants" ] || continue
    late "$name" torch "$k" torch && continue
    # shellcheck disable=SC2086
    timeout 400 python3 "$here/torch_cg.py" $targs --k "$k" --tol 1e-8 --maxit 20000 \
      --variants "$torch_variants" 2>>"$out/solver.err" |
      sed "s/^{/{\"problem\": \"$name\", /" >>"$out/solver.jsonl" ||
      echo "{\"problem\": \"$name\", \"solver\": \"torch\", \"k\": $k, \"failed\": \"torch\"}" >>"$out/solver.jsonl"
  done
done
python3 "$here/solver_report.py" "$out/solver.jsonl"
