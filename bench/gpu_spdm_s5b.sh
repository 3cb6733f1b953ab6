#!/usr/bin/env bash
# bench/gpu_spdm_s5b.sh OUT MATS: issue 15, session 5, the second (short) GPU call. Runs the SpDM
# GPU tests (t300-t305), memcheck of t303 --quick and spdm_bench --lean over the real and large
# sections (float and double) with binaries built on the development machine (Release, sm_90)
# and carried in .prebuilt/ (library and executables; saves the ~50 s build); where they do not
# start, it builds them here and runs a shorter benchmark. From the repository root, after
# `source .device-kit/setup.sh`.
set -u
out=${1:?usage: $0 OUT MATS}; mats=${2:?}
mkdir -p "$out"; t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
P=$PWD/.prebuilt; budget=60
export LD_LIBRARY_PATH=$P:/usr/lib/x86_64-linux-gnu/openmpi/lib:/usr/lib/x86_64-linux-gnu/hdf5/openmpi:${LD_LIBRARY_PATH:-}
if ! timeout 30 "$P/t300-cuda-ctx" >"$out/t300-probe.log" 2>&1; then
  echo "prebuilt binaries do not run here:"; tail -3 "$out/t300-probe.log"
  cmake -S . -B bg -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/build.log" 2>&1 &&
    cmake --build bg -j"$(nproc)" --target spdm_bench t300-cuda-ctx t301-cuda-convert t302-cuda-spdm \
      t303-cuda-tuned t304-dispatch t305-cuda-tc >>"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
  mkdir -p bgp; cp bg/bench/spdm_bench bg/tests/gpu/t30[0-5]-* bgp/; P=$PWD/bgp; budget=25
  echo "$(el) built here"
fi
fails=0
for t in t300-cuda-ctx t301-cuda-convert t302-cuda-spdm t303-cuda-tuned t304-dispatch t305-cuda-tc; do
  timeout 60 "$P/$t" >"$out/$t.log" 2>&1; rc=$?
  echo "$t rc $rc $(tail -1 "$out/$t.log" | cut -c1-100)"; [ "$rc" = 0 ] || fails=$((fails + 1))
done
echo "$(el) tests: $fails failed"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$P/t303-cuda-tuned" --quick >"$out/memcheck-t303.log" 2>&1
mrc=$?; grep "ERROR SUMMARY" "$out/memcheck-t303.log"; echo "$(el) memcheck t303 rc $mrc"
[ "$fails" = 0 ] && [ "$mrc" = 0 ] || exit 2
secs=real,real-f64,large,large-f64; [ "$budget" -lt 60 ] && secs=real,large
"$P/spdm_bench" --out "$out/b" --matrices "$mats" --lean --budget "$budget" --sections "$secs" >"$out/bench.txt" 2>&1
echo "$(el) bench rc $?"; sed -n '/== summary/,$p' "$out/bench.txt"
