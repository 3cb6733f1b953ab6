#!/usr/bin/env bash
# bench/gpu_bench_dist.sh OUT_DIR [MATRICES_DIR]: distributed SpDM and block CG on 1 and 2 GPUs
# of one host, in one call: the peer-copy bandwidth between the GPUs (PyTorch, as the yardstick
# of the gather), then `gcoo_dist spdm --json` per rank count and case (time per phase: read,
# setup, kernel, gather), then block CG (k = 32) on 1 and 2 GPUs. JSON lines and a table in
# OUT_DIR, archived into OUT_DIR.tgz. Run from the repository root after
# `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT_DIR [MATRICES_DIR]}
mats=${2:-.mats}
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prepare.sh"
gpus=$(nvidia-smi -L | wc -l)
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
cat "$out/peer.txt"
gd="$build/cli/gcoo_dist"
cases=("--rows 14000 --cols 14000 --sparsity 0.99 --ncols 14000"
       "--rows 14000 --cols 14000 --sparsity 0.999 --ncols 14000"
       "--stencil 27 --grid 128 --ncols 128"
       "--a $mats/TSOPF_RS_b39_c30.mtx.gz --ncols 512"
       "--a $mats/cage11.mtx.gz --ncols 512")
for c in "${cases[@]}"; do
  for np in 1 $gpus; do
    # one-shot SpDM as the paper runs it: every rank holds X (replicated), the slabs of Y are
    # gathered on rank 0 (device to device: NCCL, or a copy on one rank)
    timeout 120 mpirun -np "$np" "$gd" spdm $c --backend gpu --xmode replicated --gather root --repeat 20 --check --json \
      >>"$out/spdm.jsonl" 2>>"$out/spdm.err" || echo "{\"failed\": \"$c np $np\"}" >>"$out/spdm.jsonl"
  done
done
echo "=== spdm runs done ($(( $(date +%s) - start )) s)"
for np in 1 $gpus; do
  timeout 120 mpirun -np "$np" "$gd" solve --backend gpu --stencil 7 --grid 100 --k 32 --tol 1e-6 --json \
    >>"$out/solve.jsonl" 2>>"$out/solve.err" || echo "{\"failed\": \"solve np $np\"}" >>"$out/solve.jsonl"
done
echo "=== solve runs done ($(( $(date +%s) - start )) s)"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(f"{out}/spdm.jsonl")]
print(f"{'case':44s} {'np':>2} {'alg':8s} {'read s':>7} {'setup s':>7} {'kernel ms':>9} {'gather ms':>9} {'first ms':>8} {'GB/s':>7} {'k+g ms':>8} {'speedup':>7} check")
base = {}
for d in rows:
    if 'failed' in d:
        print('FAILED', d['failed']); continue
    name = d['a']['source'][:44]
    t = d['time_s']
    m, N = d['a']['rows'], d['b']['cols']
    gb = m * N * 4 * (d['ranks'] - 1) / d['ranks'] / max(t['gather'], 1e-12) / 1e9 if d['ranks'] > 1 else float('nan')
    kg = 1e3 * (t['kernel'] + t['gather'])
    if d['ranks'] == 1: base[name] = kg
    sp = base.get(name, float('nan')) / kg
    print(f"{name:44s} {d['ranks']:2d} {d['algorithm']:8s} {t['read']:7.3f} {t['setup']:7.3f} {1e3*t['kernel']:9.3f} {1e3*t['gather']:9.3f} {1e3*t['gather_first']:8.1f} {gb:7.1f} {kg:8.3f} {sp:7.2f} {d['check']['pass']}")
print()
for l in open(f"{out}/solve.jsonl"):
    d = json.loads(l)
    if 'failed' in d: print('FAILED', d['failed']); continue
    s = d['seconds']
    print(f"block CG k=32 on {d['ranks']} GPU(s): {d['iterations']} iterations, solve {s['solve']:.3f} s, SpDM {s['spmm']:.3f} s "
          f"({1e3*s['spmm']/d['spmm_calls']:.3f} ms per multiply), reductions {s['reduce']:.3f} s, halo {d['halo_rows_per_multiply']} rows per multiply, true residual {d['true_residual_max']:.2e}")
PY
tar -czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "archive: $out.tgz"
