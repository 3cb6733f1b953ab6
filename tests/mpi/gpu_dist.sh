#!/usr/bin/env bash
# tests/mpi/gpu_dist.sh [build-dir]: one shot on the GPU machine for the distributed layer:
# build with CUDA + NCCL, run the MPI and CLI suites (CPU backend), the device test t408 at
# 1..G ranks (G = GPUs), the default job and spdm on the GPUs, then a small benchmark of both
# X modes with JSON lines in $OUT (or ./gpu_dist_out). Needs the CUDA backend (kernels/) merged.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$top/build-gpu}"
out="${OUT:-$PWD/gpu_dist_out}"
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$top/scripts/build.sh" "$build" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
grep -q "NCCL=ON" "$out/build.log" || echo "warning: built without NCCL (see $out/build.log)"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "== $gpus GPU(s)"
ctest --test-dir "$build" -L "mpi|cli" -LE gpu --output-on-failure -j 4 2>&1 | tail -15
gd="$build/cli/gcoo_dist"
np=1
while [ "$np" -le "$gpus" ]; do
  echo "== t408-dist-gpu on $np rank(s)"
  mpirun -np "$np" "$build/tests/mpi/t408-dist-gpu"
  echo "== default job on $np GPU(s)"
  GCOO_BACKEND=cuda mpirun -np "$np" "$gd" | tee "$out/default_np$np.txt"
  np=$((np * 2))
done
echo "== 2 ranks sharing GPU 0 (GCOO_ALLOW_SHARED_GPU=1: host-staged collectives)"
CUDA_VISIBLE_DEVICES=0 GCOO_ALLOW_SHARED_GPU=1 mpirun -np 2 "$build/tests/mpi/t408-dist-gpu"
echo "== 2 ranks on one GPU without the override must fail on every rank, naming the fix"
if CUDA_VISIBLE_DEVICES=0 mpirun -np 2 "$gd" spdm --backend gpu --stencil 7 --grid 8 2>"$out/dup.err"; then
  echo "FAIL: shared GPU accepted"; exit 1
fi
grep -q "GCOO_ALLOW_SHARED_GPU" "$out/dup.err" && echo "ok: $(grep -m1 'share the GPU' "$out/dup.err")"
echo "== benchmark: 27-point Poisson 160^3 (4.1 M rows), 64 columns, float32, $gpus GPU(s)"
for xmode in partitioned replicated; do
  for alg in auto gcoo cusparse; do
    mpirun -np "$gpus" "$gd" spdm --backend gpu --stencil 27 --grid 160 --ncols 64 --repeat 20 \
      --xmode "$xmode" --alg "$alg" --check --gather root --json | tee -a "$out/bench.jsonl"
  done
done
/usr/bin/python3 - "$out/bench.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    t = d["time_s"]
    print(f'{d["xmode"]:12s} {d["algorithm"]:18s} kernel {1e3*t["kernel"]:8.3f} ms  {d["gflops"]:8.1f} GFLOP/s  '
          f'halo {d["halo"]["bytes_per_apply"]/1e6:7.2f} MB  gather {1e3*t["gather"]:7.2f} ms  check {d["check"]["pass"]}')
PY
