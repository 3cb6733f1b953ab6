#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_datapath.sh: issue 19 on one GPU in one short call: the Release build with CUDA, the
# GPU tests and the operator/file tests (whose contexts are CUDA there: GCOO_BACKEND unset means
# auto), then bench/datapath.sh on the GPU backend: a 27-point Poisson file that fills much of an
# H200 (--grid, default 160: 4.1M rows, 109M nnz, 909 MB), a real matrix (--real), and
# spgemm on a smaller Poisson file (--spgemm). Logs under $OUT (or ./gpu-datapath-out).
# --nps: the rank counts of datapath.sh (default "1 2": on a one-GPU machine the 2 ranks share it,
# which is what read-2rank then measures). Then the cold job's start-up profile
# (bench/startup_profile.sh).
#   usage: bench/gpu_datapath.sh [--grid N] [--real FILE.mtx.gz] [--spgemm N] [--nps "1 2"]
#                                [--tests-timeout S (default 60: 30 s stopped the 13th GPU test in session 3)]
set -u
grid=160 real="" spgemm=80 tmo=60 nps="1 2"
while [ $# -gt 0 ]; do
  case "$1" in
    --grid) grid=$2; shift 2 ;;
    --real) real=$2; shift 2 ;;
    --spgemm) spgemm=$2; shift 2 ;;
    --tests-timeout) tmo=$2; shift 2 ;;
    --nps) nps=$2; shift 2 ;;
    *) echo "gpu_datapath.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
out=${OUT:-gpu-datapath-out}
mkdir -p "$out"
start=$(date +%s)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build build-gpu -j "$(nproc)"; } >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "=== build ok ($(( $(date +%s) - start )) s)"
timeout "$tmo" ctest --test-dir build-gpu -L gpu -j 4 --timeout "$tmo" >"$out/ctest-gpu.log" 2>&1
echo "=== ctest -L gpu: rc $? ($(( $(date +%s) - start )) s)"
grep -E "tests passed|Failed|\*\*\*" "$out/ctest-gpu.log" | cut -c1-110 | head -20
GCOO_TEST_BACKEND=cuda GCOO_ALLOW_SHARED_GPU=1 timeout 20 ctest --test-dir build-gpu -R "t031|t060|t402-dist|t404" -j 8 --timeout 20 >"$out/ctest-ops.log" 2>&1
echo "=== operator and file tests (t404: every file layout through the CUDA backend): rc $? ($(( $(date +%s) - start )) s)"
grep -E "tests passed|Failed|\*\*\*" "$out/ctest-ops.log" | cut -c1-110 | head -20
GEN_NP=8 bench/datapath.sh --gcoo build-gpu --dir /tmp/gcoo-datapath --grid "$grid" --backend gpu --reps 1 \
  --nps "$nps" --spgemm "$spgemm" --ab ${real:+--real "$real"} 2>&1 | tee "$out/datapath.txt"
cp /tmp/gcoo-datapath/runs.jsonl "$out/datapath-runs.jsonl" 2>/dev/null
# what the cold job reads of its shared objects, and the loader's statistics
echo "=== start-up profile ($(( $(date +%s) - start )) s)"
bench/startup_profile.sh build-gpu/cli/gcoo_dist spdm --a /tmp/gcoo-datapath/poisson27_"$grid".h5 \
  --ncols 32 --backend gpu --repeat 5 --check 2>&1 | tee "$out/startup-profile.txt"
echo "=== done ($(( $(date +%s) - start )) s)"
