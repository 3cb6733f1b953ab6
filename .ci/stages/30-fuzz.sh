#!/usr/bin/env bash
# .ci/stages/30-fuzz.sh: fuzzing (docs/reliability.md). Builds the libFuzzer programs of
# tests/fuzz with clang (build-fuzz: -fsanitize=fuzzer,address,undefined, CPU only, no OpenMP),
# then for each harness (mtx, mtx_gz, cli, and h5 once the HDF5 reader is in the tree):
#   1. replays every committed input (tests/fuzz/regressions/<h>/ and corpus/<h>/) once;
#   2. fuzzes for GCOO_FUZZ_SECONDS (default 40) from the committed corpus, in a scratch copy
#      (the committed corpus is never modified), with -timeout=5 and -rss_limit_mb=2048.
# Any crash, sanitizer report, leak, broken invariant, timeout or memory blow-up fails the stage;
# the input is kept under build-fuzz/artifacts/ and printed in hex, to be committed under
# tests/fuzz/regressions/<h>/ with the fix. About 3 minutes on 2 cores (build ~40 s).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${GCOO_FUZZ_BUILD:-$top/build-fuzz}"
secs="${GCOO_FUZZ_SECONDS:-40}"
start=$(date +%s)
command -v clang >/dev/null || { echo "fuzz: clang is missing (.ci/packages/reliab.txt)"; exit 1; }

echo "--- fuzz: building the fuzzers with clang in $build"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
CC=clang CXX=clang++ cmake -S "$top" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGCOO_BUILD_FUZZERS=ON -DGCOO_ENABLE_CUDA=OFF -DGCOO_ENABLE_OPENMP=OFF \
  -DGCOO_ENABLE_NCCL=OFF -DGCOO_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target gcoo_fuzzers -j "$(nproc)" >/dev/null

declare -A max_len=([mtx]=16384 [mtx_gz]=16384 [cli]=1024 [h5]=16384)
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
mkdir -p "$build/artifacts"
status=0
for fuzzer in "$build"/tests/fuzz/fuzz_*; do
  h="$(basename "$fuzzer")"
  h="${h#fuzz_}"
  case "$h" in *_replay) continue ;; esac
  [ -x "$fuzzer" ] || continue
  corpus="$top/tests/fuzz/corpus/$h"
  regress="$top/tests/fuzz/regressions/$h"
  dict=()
  [ -f "$top/tests/fuzz/dict/$h.dict" ] && dict=(-dict="$top/tests/fuzz/dict/$h.dict")
  work="$(mktemp -d)"
  echo "--- fuzz $h: replay $(ls "$regress" 2>/dev/null | wc -l) regressions and $(ls "$corpus" | wc -l) seeds"
  if ! "$fuzzer" -runs=0 -timeout=5 -rss_limit_mb=2048 "$regress" "$corpus" >"$work/replay.log" 2>&1; then
    tail -40 "$work/replay.log"
    echo "fuzz $h: a committed input fails"
    status=1
    rm -rf "$work"
    continue
  fi
  echo "--- fuzz $h: ${secs} s, -max_len=${max_len[$h]:-4096}"
  if "$fuzzer" "$work" "$corpus" "${dict[@]}" -max_total_time="$secs" -max_len="${max_len[$h]:-4096}" \
      -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$h-" >"$work/fuzz.log" 2>&1; then
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)|DONE|cov:" \
      "$work/fuzz.log" | tail -6
  else
    tail -60 "$work/fuzz.log"
    for a in "$build/artifacts/$h-"*; do
      [ -f "$a" ] || continue
      echo "fuzz $h: failing input $a ($(stat -c %s "$a") bytes):"
      od -A d -t x1z "$a" | head -40
    done
    echo "fuzz $h: FAILED (commit the input under tests/fuzz/regressions/$h/ with the fix)"
    status=1
  fi
  rm -rf "$work"
done
echo "--- fuzz: done in $(( $(date +%s) - start )) s"
exit $status
