#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_fair_call.sh PART [OUTDIR]: the GPU calls that measure every headline under the
# benchmarks' one timing rule (bench/bench_stat.h, docs/benchmarks.md) and write the results
# files, each with its date, machine, command and commit. From the repository root on the device
# machine, after bench/gpu_fair_prepare.sh filled .device-kit/ (matrices, OpSparse's source, the
# commit); run with carry [".device-kit"]. OUTDIR defaults to $OUT; the files named for the
# device (h200-... or h100-...) are what goes to bench/results/. PART:
#   spgemm       (~7 min) build spgemm_bench, t503 and gcoo_dist; OpSparse's peer library and its
#                own driver (bench/opsparse/build.sh); t503; the plan share of `gcoo_dist spgemm`
#                on a 27-point 120^3 stencil; spgemm_bench on the 92 products of the first
#                benchmark (A A and A A^T of the shared matrices but TSOPF_RS_b39_c30, the 2-D
#                Laplacian 1500^2, random 400k x 16, a 27-point stencil 100^3; double and float;
#                32 tuned on, 60 not) beside cuSPARSE ALG1/2/3 and OpSparse in the same process,
#                OpSparse's own driver on four products as a reference; then the whole benchmark
#                again with --previous, for the worst product over two runs. Writes
#                <gpu>-spgemm.txt, <gpu>-spgemm.csv, <gpu>-spgemm-run1.csv, spgemm-logs.tgz.
#   spdm-solver  (~9 min) build spdm_bench, solve_bench, t302; t302; spdm_bench --lean on the
#                random sweep, the real matrices and the constructions (float and double; BSR
#                where A has dense blocks; the error tolerance; set-up and break-even); the
#                solver benchmark (bench/run_solver.sh: gcoo's warm time to solution against
#                PyTorch's plain, careful and block CG; Poisson 100^3 at k = 1, 8, 32, 128 and
#                msc04515, bcsstk24 at k = 1, 8). Writes <gpu>-spdm.txt, <gpu>-spdm.csv,
#                <gpu>-solver.txt, <gpu>-solver.jsonl, spdm-solver-logs.tgz.
#   all          both, one after the other (more than one call's 10 minutes: not for the device
#                tool; for a machine of one's own).
# Each part keeps to CALL_BUDGET_S (default 570 s): a step that would start too late is skipped
# and said. DRY=1 BUILD=DIR: a dry run on a machine without a GPU with DIR an existing CUDA build:
# no cmake, the GPU programs exit 77 (said), the solvers run on the CPU backend on a 12^3 grid;
# it checks the script's plumbing, not the numbers.
set -u -o pipefail
part="${1:?usage: bench/gpu_fair_call.sh spgemm|spdm-solver|all [OUTDIR]}"
out="${2:-${OUT:?set OUT or give OUTDIR}}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1 # the repository root
top="$(pwd)"
kit="$top/.device-kit"
# shellcheck disable=SC1091
[ -f "$kit/setup.sh" ] && source "$kit/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dry="${DRY:-0}"
build="${BUILD:-build-gpu}"
mats="$kit/mats"
[ -d "$mats" ] || mats="${MATS:-$top/../shared/matrices}"
budget="${CALL_BUDGET_S:-570}"
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
left() { echo $((budget - $(el))); }
work="$out/work"
mkdir -p "$work"
log() { echo "[$(el) s] $*" | tee -a "$work/call.log"; }

# the machine and the tree, for every results file's head
gpu_line="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
[ -n "$gpu_line" ] || gpu_line="no GPU (dry run)"
case "$gpu_line" in *H100*) tag=h100 ;; *H200*) tag=h200 ;; *) tag=gpu ;; esac
[ "$dry" = 1 ] && tag=dry
cuda_v="$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
if [ -f "$kit/COMMIT" ]; then tree="$(cat "$kit/COMMIT")"; else tree="$(git log -1 --format=%h 2>/dev/null || echo unknown)"; fi
ops_commit="$(cat "$kit/opsparse/COMMIT" 2>/dev/null || echo unknown)"
header() { # FILE WHAT COMMAND...
  local f="$1" what="$2"
  shift 2
  {
    echo "# $(date -u +%Y-%m-%d), one $gpu_line (CUDA ${cuda_v:-?}), tree $tree, built on the device (Release, sm_90)"
    echo "# $what"
    echo "# call: bash bench/gpu_fair_call.sh $part (bench/gpu_fair_prepare.sh before it); the command of this file:"
    for c in "$@"; do echo "#   $c"; done
  } >"$f"
}
log "gcoo fair call: $part on $gpu_line, tree $tree"

configure() { # TARGETS...
  [ "$dry" = 1 ] && return 0
  { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGCOO_DEVELOPER=ON && # the solver rows' GCOO_BCG_* variants are developer parameters
    timeout 300 cmake --build "$build" -j "$(nproc)" --target "$@"; } >"$work/build.log" 2>&1
}

# ---- SpGEMM -------------------------------------------------------------------------------------
spgemm() {
  local have_dist=0 ops_lib="" ops_drv="" rc
  log "build: spgemm_bench t503-spgemm-gpu (and gcoo_dist where MPI is found); OpSparse alongside"
  if [ "$dry" != 1 ] && [ -d "$kit/opsparse/OpSparse" ]; then
    bash bench/opsparse/build.sh "$kit/opsparse" "$work/opsparse" >"$work/opsparse-build.log" 2>&1 &
    local ops_pid=$!
  fi
  configure spgemm_bench t503-spgemm-gpu || { log "build failed"; tail -20 "$work/build.log"; return 1; }
  [ "$dry" != 1 ] && cmake --build "$build" -j "$(nproc)" --target gcoo_dist >>"$work/build.log" 2>&1
  [ -x "$build/cli/gcoo_dist" ] && have_dist=1
  [ -n "${ops_pid:-}" ] && wait "$ops_pid"
  [ -f "$work/opsparse/libspgemm_opsparse.so" ] && ops_lib="$work/opsparse/libspgemm_opsparse.so"
  [ -x "$work/opsparse/reg_opsparse" ] && ops_drv="$work/opsparse/reg_opsparse"
  log "built; gcoo_dist: $have_dist; OpSparse peer: ${ops_lib:-none}; its own driver: ${ops_drv:-none}"
  cat "$work/opsparse-build.log" 2>/dev/null | tee -a "$work/call.log"

  export GCOO_TEST_DATA=tests/data
  timeout 120 "$build/tests/gpu/t503-spgemm-gpu" >"$work/t503.log" 2>&1
  rc=$?
  log "t503 rc $rc: $(tail -1 "$work/t503.log")"

  local plan=()
  if [ "$have_dist" = 1 ] && [ "$(left)" -gt 400 ]; then
    "$build/cli/gcoo_dist" gen --stencil 27 --grid 120 --dtype float64 --out "$work/s27.h5" >"$work/gen.log" 2>&1 &&
      timeout 120 "$build/cli/gcoo_dist" spgemm --a "$work/s27.h5" --backend cuda --json >"$work/plan.json" 2>"$work/plan.err" &&
      plan=(--plan-json "$work/plan.json")
    rm -f "$work/s27.h5"
    log "plan share run: ${plan[*]:-failed (see plan.err)}"
  fi
  local files=() f
  for f in "$mats"/*.mtx.gz; do files+=("$f"); done
  local common=(--reps 5 --dtype both --gen lrs --stencil 100
    --skip "TSOPF_RS_b39_c30:AA,TSOPF_RS_b39_c30:AAt" "${plan[@]}")
  [ -n "$ops_lib" ] && common+=(--peer-lib "$ops_lib")
  local drv=()
  [ -n "$ops_drv" ] && drv=(--opsparse-driver "$ops_drv" --opsparse-dir "$work/opsdrv"
    --opsparse-driver-match "bcsstk33,cage11,rajat01,wiki-Vote_snapderived")
  local cmd1="build-gpu/bench/spgemm_bench ${common[*]} ${drv[*]} --out run1 .device-kit/mats/*.mtx.gz"
  local cmd2="build-gpu/bench/spgemm_bench ${common[*]} --previous run1/spgemm.csv --out run2 .device-kit/mats/*.mtx.gz"
  cmd1="${cmd1//$work\//}"
  cmd2="${cmd2//$work\//}"
  if [ "$(left)" -gt 120 ]; then
    log "SpGEMM run 1 (${#files[@]} files)"
    timeout "$(( $(left) > 330 ? 300 : $(left) - 30 ))" "$build/bench/spgemm_bench" "${common[@]}" "${drv[@]}" \
      --out "$work/run1" "${files[@]}" >"$work/run1.log" 2>&1
    log "run 1 rc $?: $(grep -c '' "$work/run1/spgemm.csv" 2>/dev/null) CSV lines"
  fi
  if [ "$(left)" -gt 90 ] && [ -f "$work/run1/spgemm.csv" ]; then
    log "SpGEMM run 2 (--previous run 1)"
    timeout "$(( $(left) - 20 ))" "$build/bench/spgemm_bench" "${common[@]}" --previous "$work/run1/spgemm.csv" \
      --out "$work/run2" "${files[@]}" >"$work/run2.log" 2>&1
    log "run 2 rc $?"
  else
    log "SpGEMM run 2 not started: $(left) s left"
  fi
  local res="$out/$tag-spgemm.txt" body="$work/run2.log"
  [ -s "$body" ] || body="$work/run1.log"
  header "$res" "SpGEMM under the fair rule: every side in one process, a warm-up then the median of 5; OpSparse $ops_commit through bench/opsparse/ (streams once, buffers kept, phases timed, C checked)" \
    "$cmd1" "$cmd2"
  {
    echo "# t503-spgemm-gpu: $(tail -1 "$work/t503.log" 2>/dev/null)"
    [ "${#plan[@]}" -gt 0 ] && echo "# plan.json: gcoo_dist gen --stencil 27 --grid 120 --dtype float64; gcoo_dist spgemm --a s27.h5 --backend cuda --json"
    echo "# OpSparse build: $(grep -h '^opsparse' "$work/opsparse-build.log" 2>/dev/null | paste -sd';')"
    echo "# run 1's summary and target lines (its products, columns and CSV: ${tag}-spgemm-run1.csv; the reference column drv: OpSparse's own driver):"
    sed -n '/^=== summary/,$p' "$work/run1.log" 2>/dev/null | sed 's/^/#   /'
    echo
    cat "$body"
  } >>"$res"
  cp "$work/run2/spgemm.csv" "$out/$tag-spgemm.csv" 2>/dev/null
  cp "$work/run1/spgemm.csv" "$out/$tag-spgemm-run1.csv" 2>/dev/null
  grep -E "^target|^(all|unseen|tuned) +products|^worst|WRONG|MISMATCH" "$res" | cut -c1-220
  return 0
}

# ---- SpDM and the solvers ---------------------------------------------------------------------------
spdm_solver() {
  local targets=(spdm_bench t302-cuda-spdm) rc
  log "build: spdm_bench t302-cuda-spdm solve_bench"
  configure "${targets[@]}" || { log "build failed"; tail -20 "$work/build.log"; return 1; }
  [ "$dry" != 1 ] && cmake --build "$build" -j "$(nproc)" --target solve_bench >>"$work/build.log" 2>&1
  log "built; solve_bench: $([ -x "$build/bench/solve_bench" ] && echo yes || echo 'no (no MPI: the solver part is left out)')"
  export GCOO_TEST_DATA=tests/data
  timeout 120 "$build/tests/gpu/t302-cuda-spdm" >"$work/t302.log" 2>&1
  rc=$?
  log "t302 rc $rc: $(tail -1 "$work/t302.log")"
  local sbudget=${SPDM_BUDGET:-210}
  [ "$dry" = 1 ] && sbudget=20
  local cmd="build-gpu/bench/spdm_bench --out spdm --matrices .device-kit/mats --lean --budget $sbudget --sections random,real,real-f64,large,large-f64"
  log "SpDM benchmark (budget $sbudget s)"
  timeout $((sbudget + 60)) "$build/bench/spdm_bench" --out "$work/spdm" --matrices "$mats" --lean --budget "$sbudget" \
    --sections random,real,real-f64,large,large-f64 >"$work/spdm.log" 2>&1
  log "SpDM rc $?"
  header "$out/$tag-spdm.txt" "SpDM under the fair rule: CUDA events, a warm-up then the median of at least 5 launches; best cuSPARSE of ALG_DEFAULT, CSR_ALG2, CSR_ALG3 and BSR_ALG1 where A has dense blocks; error tolerance 1e-5 (float) / 1e-12 (double)" "$cmd"
  {
    echo "# t302-cuda-spdm: $(tail -1 "$work/t302.log" 2>/dev/null)"
    echo
    cat "$work/spdm.log"
  } >>"$out/$tag-spdm.txt"
  cp "$work/spdm/spdm.csv" "$out/$tag-spdm.csv" 2>/dev/null
  grep -E "^target|^  (float|double)" "$out/$tag-spdm.txt" | cut -c1-220

  if [ -x "$build/bench/solve_bench" ]; then
    local deadline=$(($(date +%s) + $(left) - 25)) grid=100 backend=gpu
    [ "$dry" = 1 ] && grid=12 backend=cpu
    local scmd="SOLVER_BENCH_VARIANTS= SOLVER_BENCH_MATRIX_KS='1 8' bash bench/run_solver.sh build-gpu solver .device-kit/mats '1 8 32 128'"
    log "solver benchmark (until $(left) - 25 s)"
    SOLVER_BENCH_VARIANTS="" SOLVER_BENCH_MATRIX_KS="1 8" SOLVER_BENCH_DEADLINE=$deadline \
      SOLVER_BENCH_GRID=$grid SOLVER_BENCH_BACKEND=$backend timeout "$(($(left) - 10))" \
      bash bench/run_solver.sh "$build" "$work/solver" "$mats" "1 8 32 128" >"$work/solver.log" 2>&1
    log "solver rc $?"
    header "$out/$tag-solver.txt" "the solvers under the fair rule: warm time to solution (a solver made and set up for each solve), the median of 5 solves after a warm-up solve, set-up and iterations beside it; PyTorch's plain, careful (int32, check every 10, CUDA graph) and block CG" "$scmd"
    cat "$work/solver.log" >>"$out/$tag-solver.txt"
    cp "$work/solver/solver.jsonl" "$out/$tag-solver.jsonl" 2>/dev/null
    grep -E "^target|time to solution" "$out/$tag-solver.txt" | cut -c1-220
  fi
  return 0
}

case "$part" in
spgemm) spgemm ;;
spdm-solver) spdm_solver ;;
all)
  spgemm
  r1=$?
  spdm_solver || r1=$?
  (exit $r1)
  ;;
*)
  echo "gpu_fair_call: PART is spgemm, spdm-solver or all" >&2
  exit 2
  ;;
esac
rc=$?
log "done ($part), rc $rc"
(cd "$out" && tar czf "${part}-logs.tgz" work && rm -rf work)
ls -la "$out"
exit $rc
