#!/usr/bin/env bash
# bench/spgemm_next_call.sh OUTDIR: the one GPU call that verifies the two variants prepared in
# session 3 without a GPU (docs/spgemm.md): GCOO_SPGEMM_RECOMPUTE=direct (overflowed rows
# recomputed with no host plan) and GCOO_SPGEMM_WARP_RANK=count (the warp bins' rows of more than
# 32 entries ranked by counting, not a bitonic network). On one H200, from the repository root
# (about 5 minutes):
#   1. build (Release, sm_90): t503-spgemm-gpu, spgemm_bench;
#   2. t503 with the default and with both variants on, and compute-sanitizer memcheck of t503
#      with both variants on (in parallel with the two t503 runs, before any timing);
#   3. the benchmark (the 32 products of bench/results/2026-12-01-h200-spgemm-s3.txt: 8 matrices,
#      the 2-D Laplacian 1500^2, random 400k x 16; A A and A A^T; double and float) with
#      --variant all: every product timed with the default and with each variant in the same
#      process, beside cuSPARSE ALG1/2/3 and OpSparse; the target lines are the default's, the
#      "variant" lines say what each variant changes.
# Environment (nothing of a peer is committed; absent: said, and left out):
#   MATS       folder with the .mtx.gz of shared/matrices (default: .mats, ../../.mats, shared/matrices)
#   OPSPARSE   OpSparse's reg_opsparse driver (lorentzbf/OpSparse, built outside gcoo)
#   PLAN_JSON  a `gcoo_dist spgemm --json` output for the plan-share target (optional)
#   BUILD      build folder (default build-gpu)
# Writes OUTDIR/{build,t503-default,t503-direct (both variants),memcheck-direct,bench}.log and OUTDIR/b/ (CSV);
# prints a short summary. Exit status: 0 when the tests and memcheck passed.
set -u
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: bench/spgemm_next_call.sh OUTDIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$top"
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
build="${BUILD:-build-gpu}"
mats="${MATS:-}"
if [ -z "$mats" ]; then
  for d in .mats ../../.mats shared/matrices /work/shared/matrices; do
    if [ -d "$d" ]; then mats="$d"; break; fi
  done
fi

# 1. build
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  timeout 240 cmake --build "$build" -j "$(nproc)" --target t503-spgemm-gpu spgemm_bench; } \
  >"$out/build.log" 2>&1 || { grep -B2 -A8 -E "error|FAILED" "$out/build.log" | head -40; exit 1; }
echo "build ok $(el) s"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

# 2. t503 default and with the variants; memcheck of t503 with the variants on, alongside
t503="$build/tests/gpu/t503-spgemm-gpu"
export GCOO_TEST_DATA=tests/data
(GCOO_SPGEMM_RECOMPUTE=direct GCOO_SPGEMM_WARP_RANK=count GCOO_TEST_DATA=tests/data timeout 240 compute-sanitizer \
  --tool memcheck --leak-check no --print-limit 20 "$t503" >"$out/memcheck-direct.log" 2>&1
 echo "memcheck rc $?" >>"$out/memcheck-direct.log") &
pmc=$!
GCOO_TEST_DATA=tests/data timeout 120 "$t503" >"$out/t503-default.log" 2>&1
r_def=$?
echo "t503 default rc $r_def $(el) s: $(tail -1 "$out/t503-default.log")"
GCOO_SPGEMM_RECOMPUTE=direct GCOO_SPGEMM_WARP_RANK=count timeout 120 "$t503" \
  >"$out/t503-direct.log" 2>&1
r_dir=$?
echo "t503 variants rc $r_dir $(el) s: $(tail -1 "$out/t503-direct.log")"
grep -iE "fail" "$out/t503-default.log" "$out/t503-direct.log" | head -8
wait "$pmc"
echo "memcheck (variants) $(el) s: $(grep -E "ERROR SUMMARY|memcheck rc" "$out/memcheck-direct.log" | tr '\n' ' ')"
r_mc=1
grep -q "ERROR SUMMARY: 0 errors" "$out/memcheck-direct.log" && grep -q "memcheck rc 0" "$out/memcheck-direct.log" && r_mc=0

# 3. the benchmark, default and variant side by side
files=()
for f in add32 adder_dcop_05 bcsstk13 bcsstk33 ca-CondMat_snapderived cage11 rajat01 \
         wiki-Vote_snapderived; do
  if [ -n "$mats" ] && [ -f "$mats/$f.mtx.gz" ]; then files+=("$mats/$f.mtx.gz"); else echo "matrix $f not found (MATS)"; fi
done
extra=()
if [ -n "${OPSPARSE:-}" ] && [ -f "${OPSPARSE}" ]; then
  [ -x "$OPSPARSE" ] || chmod +x "$OPSPARSE" 2>/dev/null || true
  extra+=(--opsparse "$OPSPARSE" --opsparse-dir "$out/opsparse")
else
  echo "OpSparse not available (set OPSPARSE to its reg_opsparse)"
fi
[ -n "${PLAN_JSON:-}" ] && [ -f "${PLAN_JSON}" ] && extra+=(--plan-json "$PLAN_JSON")
if [ $r_def -eq 0 ] && [ $r_dir -eq 0 ]; then
  timeout 330 "$build/bench/spgemm_bench" --reps 5 --dtype both --gen lr --variant all \
    "${extra[@]}" --out "$out/b" "${files[@]}" >"$out/bench.log" 2>&1
  echo "bench rc $? $(el) s"
  grep -E "variant|^target|MISMATCH|worst" "$out/bench.log" | cut -c1-160
else
  echo "benchmark not run: t503 failed"
fi
rm -rf "$out/opsparse"
echo "done $(el) s: t503 default $r_def, variants $r_dir, memcheck variants $r_mc"
[ $r_def -eq 0 ] && [ $r_dir -eq 0 ] && [ $r_mc -eq 0 ]
