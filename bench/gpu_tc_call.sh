#!/usr/bin/env bash
# bench/gpu_tc_call.sh OUT MATS: issue 15, one GPU call for the tensor-core kernel
# on mma.sync m16n8k8: bench/gpu_spdm_call.sh (Release build, the SpDM GPU tests, memcheck, the
# benchmark over N = 32, 128, 512 on the random, real and large sections, float and double), then
# the tc-speedup target's 9 real matrices at N = 128 and 512 with the tensor-core kernel serving
# untimed (GCOO_AUTO_TRIAL=0) at 1 and 2 warps a window forced (GCOO_TC_KSPLIT), beside the
# best cuSPARSE algorithm; then bench/gpu_tc_ncu.sh (ncu of the tensor-core kernel). From the
# repository root, after
# `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT MATS}; mats=${2:?}
bash bench/gpu_spdm_call.sh "$out" "$mats" all random,real,real-f64,large,large-f64 || exit 1
target=TSOPF_RS_b39_c30,bcsstk24,bcsstk33,cavity19,cage11,ct2010,delaunay_n16,wiki-Vote,ca-CondMat
for b in bg; do
  for ks in 1 2; do
    for n in 128 512; do
      GCOO_AUTO_TRIAL=0 GCOO_TC_KSPLIT=$ks $b/bench/spdm_bench --out "$out/$b-k$ks-$n" --matrices "$mats" \
        --lean --budget 60 --n $n --sections real --match "$target" \
        --methods tuned,csp_default,csp_alg2,csp_alg3,tc >"$out/$b-k$ks-$n.txt" 2>&1
      echo "== $b, warps a window $ks, N = $n (tc untimed: GCOO_AUTO_TRIAL=0) rc $?"
      grep -E "^[A-Za-z]" "$out/$b-k$ks-$n.txt" | grep " $n |" | cut -c1-26,180-206
    done
  done
done
bash bench/gpu_tc_ncu.sh "$out/ncu" "$mats"
