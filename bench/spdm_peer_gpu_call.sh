#!/usr/bin/env bash
# bench/spdm_peer_gpu_call.sh OUTDIR: one GPU call that times gcoo's AUTO and the best cuSPARSE
# SpMM beside peer SpMM libraries (docs/kernels.md, "Peers"), from the repository root:
#   1. build (Release, sm_90): spdm_peer_bench;
#   2. spdm_peer_bench on the real matrices and spdm_bench's "large" inputs, N = 32, 128, 512,
#      every peer in the same process; if a peer leaves the CUDA context unusable (exit 3, named
#      in peer_lost.txt) the benchmark runs once more without it.
# Environment (nothing of a peer is committed; absent: said, and gcoo and cuSPARSE run alone):
#   GCOO_SPDM_PEER  peer libraries (the bench/spdm_peer.h interface), separated by ':'
#   MATS      folder with the .mtx.gz of shared/matrices (default: .mats, ../../.mats, shared/matrices)
#   SECTIONS  spdm_peer_bench --sections (default real,large)
#   BUDGET    spdm_peer_bench --budget in seconds (default 80)
#   BUILD     build folder (default build-gpu)
# Writes OUTDIR/{build,bench}.log, OUTDIR/wins.txt (bench/spdm_peer_wins.py) and OUTDIR/b/
# (spdm_peer.csv, spdm_bench.log); prints the summary. Exit status: the benchmark's.
set -u
out="$(mkdir -p "${1:?usage: bench/spdm_peer_gpu_call.sh OUTDIR}" && cd "$1" && pwd)" || exit 1
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1   # the repository root: relative paths from here
build="${BUILD:-build-gpu}"
mats="${MATS:-$(for d in .mats ../../.mats shared/matrices /work/shared/matrices; do
  [ -d "$d" ] && echo "$d" && break; done)}"
SECONDS=0
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  timeout 300 cmake --build "$build" -j "$(nproc)" --target spdm_peer_bench; } \
  >"$out/build.log" 2>&1 || { grep -B2 -A8 -E "error|FAILED" "$out/build.log" | head -40; exit 1; }
echo "build ok $SECONDS s"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
if [ -f .commit ]; then echo "tree $(cat .commit)"; else git log -1 --format='tree %h %s' 2>/dev/null | cut -c1-120; fi

peers=""
IFS=: read -r -a list <<<"${GCOO_SPDM_PEER:-}"
for p in "${list[@]}"; do
  [ -z "$p" ] && continue
  if [ -f "$p" ]; then peers="${peers:+$peers:}$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"
  else echo "peer not available ($p not found)"; fi
done
[ -z "$peers" ] && echo "peer not available (set GCOO_SPDM_PEER to peer libraries; docs/kernels.md)"

run_bench() {
  GCOO_SPDM_PEER="$1" timeout 400 "$build/bench/spdm_peer_bench" --out "$out/b" --matrices "$mats" \
    --sections "${SECTIONS:-real,large}" --budget "${BUDGET:-80}" >>"$out/bench.log" 2>&1
}
mkdir -p "$out/b"
run_bench "$peers"
rc=$?
if [ $rc -eq 3 ] && [ -f "$out/b/peer_lost.txt" ]; then
  lost="$(cat "$out/b/peer_lost.txt")"
  echo "peer $lost lost the CUDA context: the benchmark again without it"
  keep="$(tr ':' '\n' <<<"$peers" | grep -vxF "$lost" | paste -sd: -)"
  mv "$out/b/spdm_peer.csv" "$out/b/spdm_peer-run1.csv" 2>/dev/null
  echo "== run 2 without $lost" >>"$out/bench.log"
  run_bench "$keep"
  rc=$?
fi
echo "bench rc $rc $SECONDS s"
grep -E "^peer|^summary|WRONG|failed|context lost|budget" "$out/bench.log" | cut -c1-240
# where a peer beats AUTO, and AUTO over the fastest peer of each case (from the CSV)
[ -f "$out/b/spdm_peer.csv" ] && python3 bench/spdm_peer_wins.py "$out/b/spdm_peer.csv" >"$out/wins.txt" 2>&1 &&
  grep -E "^peer faster|^gcoo AUTO" "$out/wins.txt"
exit $rc
