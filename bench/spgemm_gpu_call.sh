#!/usr/bin/env bash
# bench/spgemm_gpu_call.sh OUTDIR: one GPU call that checks and times gcoo's SpGEMM (docs/spgemm.md)
# on one H200, from the repository root (about 2 minutes):
#   1. build (Release, sm_90, -DGCOO_DEVELOPER=ON: the variants' parameters read from the
#      environment): t503-spgemm-gpu, spgemm_bench;
#   2. t503 with the defaults and with --sampled (every product predicted, none computed at its
#      bounds), and compute-sanitizer memcheck of both (alongside, before any timing); t503 with
#      the parameter of each variant timed (dense-0, dense-2; left out of the benchmark if it fails);
#   3. the benchmark (8 matrices of shared/matrices, the 2-D Laplacian 1500^2, random 400k x 16;
#      A A and A A^T; double and float) beside cuSPARSE ALG1/2/3 and OpSparse, with the variants
#      named in VARIANTS (default none) timed beside the default in the same process; the target
#      lines are the default's;
#   4. with NCU=1 (default): ncu's kernel durations of gcoo on the 2-D Laplacian and random
#      400k x 16 A A^T, double (the worst products), one timed run after the warm-up, per kernel;
#      with NCU_SRC=1 (default) also ncu's source counters and warp states (SASS lines with their
#      instructions executed and warp stalls) of the bins on the 2-D Laplacian and random 400k x 16
#      A A^T, double (the build carries -lineinfo: no change to the code), as ncu-src.tgz.
# Environment (nothing of a peer is committed; absent: said, and left out):
#   MATS       folder with the .mtx.gz of shared/matrices (default: .mats, ../../.mats, shared/matrices)
#   OPSPARSE_SRC  a fetched OpSparse (the folder holding OpSparse/; default .device-kit/opsparse,
#              bench/gpu_fair_prepare.sh): its peer library is built (bench/opsparse/build.sh) and
#              timed in the benchmark's process
#   PLAN_JSON  a `gcoo_dist spgemm --json` output for the plan-share target (optional)
#   BUILD      build folder (default build-gpu)
#   MATRICES   names of the matrices to time (default the 8 below), GEN the generated products
#              (spgemm_bench --gen; default lr), DTYPE (default both): a shorter call for a check of
#              one change (its target lines then cover only those products)
# Writes OUTDIR/{build,t503-default,t503-sampled,t503-VARIANT,memcheck,memcheck-sampled,bench,ncu}.log and OUTDIR/b/ (CSV);
# prints a short summary. Exit status: 0 when the tests and memcheck passed.
set -u
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: bench/spgemm_gpu_call.sh OUTDIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$top"
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
build="${BUILD:-build-gpu}"
variants="${VARIANTS-}"
mats="${MATS:-}"
if [ -z "$mats" ]; then
  for d in .mats ../../.mats shared/matrices /work/shared/matrices; do
    if [ -d "$d" ]; then mats="$d"; break; fi
  done
fi

# 1. build
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGCOO_DEVELOPER=ON \
    -DCMAKE_CUDA_FLAGS=-lineinfo &&
  timeout 240 cmake --build "$build" -j "$(nproc)" --target t503-spgemm-gpu spgemm_bench; } \
  >"$out/build.log" 2>&1 || { grep -B2 -A8 -E "error|FAILED" "$out/build.log" | head -40; exit 1; }
echo "build ok $(el) s"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
# the commit under test: .commit (written by whoever copied a tree without its .git) or git's
if [ -f .commit ]; then echo "tree $(cat .commit)"; else git log -1 --format='tree %h %s' 2>/dev/null | cut -c1-120; fi

# 2. t503 default and --sampled; memcheck of t503 (defaults) alongside
t503="$build/tests/gpu/t503-spgemm-gpu"
export GCOO_TEST_DATA=tests/data
(timeout 240 compute-sanitizer --tool memcheck --leak-check no --print-limit 20 "$t503" \
   >"$out/memcheck.log" 2>&1
 echo "memcheck rc $?" >>"$out/memcheck.log") &
pmc=$!
(timeout 240 compute-sanitizer --tool memcheck --leak-check no --print-limit 20 "$t503" --sampled \
   >"$out/memcheck-sampled.log" 2>&1
 echo "memcheck rc $?" >>"$out/memcheck-sampled.log") &
pmc2=$!
timeout 120 "$t503" >"$out/t503-default.log" 2>&1
r_def=$?
echo "t503 default rc $r_def $(el) s: $(tail -1 "$out/t503-default.log")"
timeout 120 "$t503" --sampled >"$out/t503-sampled.log" 2>&1
r_smp=$?
echo "t503 --sampled rc $r_smp $(el) s: $(tail -1 "$out/t503-sampled.log")"
# a variant that is timed runs t503 with its switch first; left out of the benchmark if it fails
r_rs=-
for v in $variants; do
  case "$v" in
    dense-0) env_v="GCOO_SPGEMM_DENSE_REACH=0" ;;
    dense-2) env_v="GCOO_SPGEMM_DENSE_REACH=2" ;;
    *) continue ;;
  esac
  timeout 120 env "$env_v" "$t503" >"$out/t503-$v.log" 2>&1
  r_v=$?
  echo "t503 $env_v rc $r_v $(el) s: $(tail -1 "$out/t503-$v.log")"
  [ "$r_rs" = - ] && r_rs=0  # 0 while every variant's t503 passed, else a failing one's status
  [ $r_v -eq 0 ] || r_rs=$r_v
  [ $r_v -eq 0 ] || variants="${variants//$v/}"
done
grep -iE "fail" "$out"/t503-*.log | head -8
wait "$pmc" "$pmc2"
r_mc=0
for f in memcheck memcheck-sampled; do
  echo "$f $(el) s: $(grep -E "ERROR SUMMARY|memcheck rc" "$out/$f.log" | tr '\n' ' ')"
  grep -q "ERROR SUMMARY: 0 errors" "$out/$f.log" && grep -q "memcheck rc 0" "$out/$f.log" || r_mc=1
done

# 3. the benchmark, the default and the variants side by side
files=()
for f in ${MATRICES-add32 adder_dcop_05 bcsstk13 bcsstk33 ca-CondMat_snapderived cage11 rajat01 \
         wiki-Vote_snapderived}; do
  if [ -n "$mats" ] && [ -f "$mats/$f.mtx.gz" ]; then files+=("$mats/$f.mtx.gz"); else echo "matrix $f not found (MATS)"; fi
done
extra=()
ops_src="${OPSPARSE_SRC:-.device-kit/opsparse}"
if [ -d "$ops_src/OpSparse" ] && bash bench/opsparse/build.sh "$ops_src" "$out/opsparse" >"$out/opsparse-build.log" 2>&1; then
  extra+=(--peer-lib "$out/opsparse/libspgemm_opsparse.so")
else
  echo "OpSparse not available (OPSPARSE_SRC: a fetched OpSparse; $out/opsparse-build.log)"
fi
[ -n "${PLAN_JSON:-}" ] && [ -f "${PLAN_JSON}" ] && extra+=(--plan-json "$PLAN_JSON")
for v in $variants; do extra+=(--variant "$v"); done
if [ $r_def -eq 0 ] && [ $r_smp -eq 0 ]; then
  timeout 330 "$build/bench/spgemm_bench" --reps 5 --dtype "${DTYPE:-both}" --gen "${GEN:-lr}" \
    "${extra[@]}" --out "$out/b" "${files[@]}" >"$out/bench.log" 2>&1
  echo "bench rc $? $(el) s"
  grep -E "variant|^target|MISMATCH|worst|predictor:" "$out/bench.log" | grep -v " ms (default" | cut -c1-170
else
  echo "benchmark not run: t503 failed"
fi
rm -rf "$out/opsparse/driver"

# 4. where the worst product's time goes (kernels only: the host's part is the rest)
if [ "${NCU:-1}" = 1 ] && [ $r_def -eq 0 ]; then
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
    -k regex:'bounds_kernel|plan_kernel|bin_scatter|group_rows|block_rows|compact_rows|inplace_rows|DeviceScan|relist|reroom' \
    "$build/bench/spgemm_bench" --reps 1 --dtype double --gen lr --skip gen_random_400k_16:AA \
    --out "$out/ncu-b" >"$out/ncu.log" 2>&1
  echo "ncu rc $? $(el) s"
  grep -E "^gen_" "$out/ncu.log" | head -4
fi
if [ "${NCU_SRC:-1}" = 1 ] && [ $r_def -eq 0 ]; then
  mkdir -p "$out/src"
  timeout 200 ncu --clock-control none --import-source yes --section SpeedOfLight \
    --section LaunchStats --section Occupancy --section SourceCounters --section WarpStateStats \
    -k regex:'group_rows_kernel|block_rows_kernel' -c 24 -o "$out/src/prof" \
    "$build/bench/spgemm_bench" --reps 0 --dtype double --gen lr --skip gen_random_400k_16:AA \
    --out "$out/src/b" >"$out/src/ncu-src.log" 2>&1
  echo "ncu source rc $? $(el) s"
  ncu -i "$out/src/prof.ncu-rep" --page details --print-units base >"$out/src/details.txt" 2>&1
  ncu -i "$out/src/prof.ncu-rep" --page raw --csv >"$out/src/raw.csv" 2>&1
  ncu -i "$out/src/prof.ncu-rep" --page source --csv --print-source sass >"$out/src/sass.csv" 2>&1
  ncu -i "$out/src/prof.ncu-rep" --page source --csv --print-source cuda >"$out/src/cuda.csv" 2>&1
  grep -E "group_rows_kernel|block_rows_kernel|Duration|Registers Per|Achieved Occupancy|Executed Ipc A|Theoretical Occ|Block Limit" \
    "$out/src/details.txt" | grep -v "^ *-" | head -60 | cut -c1-150
  ls -la "$out/src" | head
  (cd "$out" && tar czf ncu-src.tgz src && rm -rf src)
fi
echo "done $(el) s: t503 default $r_def, --sampled $r_smp, variants $r_rs, memcheck $r_mc"
[ $r_def -eq 0 ] && [ $r_smp -eq 0 ] && [ $r_mc -eq 0 ]
