#!/usr/bin/env bash
# bench/gpu_bench_dist.sh OUT_DIR [MATRICES_DIR]: distributed SpDM, SpGEMM and block CG on 1, 2,
# 4 and 8 GPUs of one host: every one of those rank counts up to the GPUs present, so the same
# script runs unchanged on a 1-, 2-, 4- or 8-GPU machine. In one call: the peer-copy bandwidth
# between two GPUs (PyTorch, the yardstick of the gather), `gcoo_dist spdm --json` per case and
# rank count (time per phase: read, setup, kernel, gather), the gather again in 64 MiB chunks
# (GCOO_GATHER_CHUNK_MB) on 2 GPUs, `gcoo_dist spgemm` of a 27-point stencil squared, block CG
# (k = 32) on 10^6 and 8 x 10^6 rows, weak scaling on 8 GPUs (each spdm run also times the
# product and the gather overlapped in 8 row blocks, --overlap 8), then bench/dist_summary.py: the
# table and the issue-17 target lines (`not measured (...)` where the machine has too few GPUs),
# model-error from bench/scaling_model.py. JSON lines and logs in OUT_DIR, archived into
# OUT_DIR.tgz. Run from the repository root after `source .device-kit/setup.sh`.
#
# GCOO_BENCH_SMOKE=1 runs the same steps on the CPU backend with tiny cases and the existing
# CPU build in build/ (no GPU, no PyTorch), GCOO_BENCH_GPUS ranks at most: to check the script
# itself where there is no GPU machine. GCOO_BENCH_WHY (e.g. "only one-GPU machines are
# available") replaces the default reason of each target line printed as not measured.
set -u
out=${1:?usage: $0 OUT_DIR [MATRICES_DIR]}
mats=${2:-.mats}
mkdir -p "$out"
here=$(dirname "${BASH_SOURCE[0]}")
smoke=${GCOO_BENCH_SMOKE:-0}
if [ "$smoke" = 1 ]; then
  build=${GCOO_BENCH_BUILD:-build}; start=$(date +%s); backend=cpu
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  gpus=${GCOO_BENCH_GPUS:-2}
else
  source "$here/gpu_prepare.sh"
  backend=gpu
  gpus=$(nvidia-smi -L | wc -l)
fi
nps=()
for np in 1 2 4 8; do [ "$np" -le "$gpus" ] && nps+=("$np"); done
echo "=== $gpus GPU(s): rank counts ${nps[*]:-none}"
if [ "${#nps[@]}" -eq 0 ]; then # no GPU at all: the target lines (not measured) and the model's
  python3 "$here/dist_summary.py" "$out" 0 | tee "$out/summary.txt"
  exit 0
fi
gd=$build/cli/gcoo_dist
[ -x "$gd" ] || gd=$build/src/cli/gcoo_dist
if [ "$gpus" -ge 2 ] && [ "$smoke" != 1 ]; then
  python3 - >"$out/peer.txt" 2>&1 <<'PY'
import torch
n = 256 << 20
x = torch.empty(n, dtype=torch.uint8, device='cuda:0'); y = torch.empty(n, dtype=torch.uint8, device='cuda:1')
for _ in range(3): y.copy_(x)
torch.cuda.synchronize(0); torch.cuda.synchronize(1)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record(); [y.copy_(x) for _ in range(10)]; e.record(); e.synchronize()
print(f"peer copy GPU0->GPU1: {10 * n / (s.elapsed_time(e) * 1e-3) / 1e9:.1f} GB/s")
PY
else
  echo "peer copy: not measured ($gpus GPU(s) or smoke run)" >"$out/peer.txt"
fi
cat "$out/peer.txt"

# one JSON line (rank 0's stdout) appended to FILE, or a {"failed": ...} line saying what failed;
# `solve` exits 1 when not converged within --maxit but still reports, which counts here
run_json() {
  local file=$1 what=$2; shift 2
  local got
  got=$(timeout 300 "$@" 2>>"$out/errors.log" | grep '^{' | tail -1)
  if [ -n "$got" ]; then echo "$got" >>"$out/$file"; else echo "{\"failed\": \"$what\"}" >>"$out/$file"; fi
}

if [ "$smoke" = 1 ]; then
  cases=("--rows 600 --cols 600 --sparsity 0.99 --ncols 64"
         "--stencil 27 --grid 12 --ncols 16")
  grid1m=10; grid8m=20; sgrid=10; maxit=5; weak_spdm=(8 16); weak_bcg=(10 20)
else
  # as in the committed 2-GPU run (bench/results/h200x2-dist.txt), so the two can be compared
  cases=("--rows 14000 --cols 14000 --sparsity 0.99 --ncols 14000"
         "--rows 14000 --cols 14000 --sparsity 0.999 --ncols 14000"
         "--stencil 27 --grid 128 --ncols 128"
         "--a $mats/TSOPF_RS_b39_c30.mtx.gz --ncols 512"
         "--a $mats/cage11.mtx.gz --ncols 512")
  grid1m=100; grid8m=200; sgrid=100; maxit=60; weak_spdm=(128 256); weak_bcg=(200 400)
fi
for c in "${cases[@]}"; do
  for np in "${nps[@]}"; do
    # one-shot SpDM as the paper runs it: every rank holds X (replicated), the slabs of Y are
    # gathered on rank 0 (device to device: NCCL, or a copy on one rank)
    # shellcheck disable=SC2086
    run_json spdm.jsonl "spdm $c np $np" mpirun -np "$np" "$gd" spdm $c --backend "$backend" \
      --dtype float32 --xmode replicated --gather root --overlap 8 --repeat 20 --check --json
  done
done
if [ "$gpus" -ge 2 ]; then # the same gather in 64 MiB chunks
  # shellcheck disable=SC2086
  run_json spdm-chunk.tmp "spdm chunked np 2" env GCOO_GATHER_CHUNK_MB=64 mpirun -x GCOO_GATHER_CHUNK_MB -np 2 "$gd" \
    spdm ${cases[0]} --backend "$backend" --xmode replicated --gather root --repeat 20 --check --json
  sed 's/^{"command"/{"_chunk_mb":64,"command"/' "$out/spdm-chunk.tmp" >"$out/spdm-chunk.jsonl"
fi
echo "=== spdm runs done ($(( $(date +%s) - start )) s)"

# distributed SpGEMM: the 27-point stencil squared (rows of A split, B's rows fetched once)
if mpirun -np "${nps[-1]}" "$gd" gen --stencil 27 --grid "$sgrid" --dtype float64 --out "$out/s27.h5" \
     >>"$out/errors.log" 2>&1; then
  for np in "${nps[@]}"; do
    run_json spgemm.jsonl "spgemm np $np" mpirun -np "$np" "$gd" spgemm --a "$out/s27.h5" --backend "$backend" --json
  done
else
  echo '{"failed": "gen of the SpGEMM operand"}' >>"$out/spgemm.jsonl"
fi
rm -f "$out/s27.h5"
echo "=== spgemm runs done ($(( $(date +%s) - start )) s)"

# block CG: 10^6 rows to convergence (as committed), 8 x 10^6 rows (the target) for --maxit
# iterations (the time an iteration is what counts)
for np in "${nps[@]}"; do
  run_json solve.jsonl "solve 10^6 np $np" mpirun -np "$np" "$gd" solve --backend "$backend" --stencil 7 \
    --grid "$grid1m" --k 32 --tol 1e-6 --json
  run_json solve-8m.jsonl "solve 8e6 np $np" mpirun -np "$np" "$gd" solve --backend "$backend" --stencil 7 \
    --grid "$grid8m" --k 32 --tol 1e-12 --maxit "$maxit" --json
done
echo "=== solve runs done ($(( $(date +%s) - start )) s)"

# weak scaling on 8 GPUs: the problem of one GPU, and 8 times it on 8 (grid side x 2)
if [ "$gpus" -ge 8 ]; then
  for i in 0 1; do
    np=$([ "$i" = 0 ] && echo 1 || echo 8)
    g=${weak_spdm[$i]}
    run_json weak-spdm.jsonl "weak spdm np $np" mpirun -np "$np" "$gd" spdm --stencil 27 --grid "$g" --ncols 128 \
      --backend "$backend" --xmode partitioned --repeat 20 --json
    g=${weak_bcg[$i]}
    run_json weak-bcg.jsonl "weak bcg np $np" mpirun -np "$np" "$gd" solve --backend "$backend" --stencil 7 \
      --grid "$g" --k 32 --tol 1e-12 --maxit "$maxit" --json
  done
fi
echo "=== weak-scaling runs done ($(( $(date +%s) - start )) s)"

python3 "$here/dist_summary.py" "$out" "$gpus" | tee "$out/summary.txt"
tar -czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "archive: $out.tgz"
