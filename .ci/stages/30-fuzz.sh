#!/usr/bin/env bash
# .ci/stages/30-fuzz.sh: fuzzing (docs/reliability.md). Builds the libFuzzer programs of
# tests/fuzz with clang (build-fuzz: -fsanitize=fuzzer,address,undefined, CPU only, no OpenMP),
# then for each harness (mtx, mtx_gz, cli, and h5 once the HDF5 reader is in the tree):
#   1. replays every committed input (tests/fuzz/regressions/<h>/ and corpus/<h>/) once;
#   2. fuzzes for GCOO_FUZZ_SECONDS (default 35; h5: GCOO_FUZZ_SECONDS_H5, default 30) from the
#      committed corpus, in a scratch copy (the committed corpus is never modified), with
#      -timeout=5 and -rss_limit_mb=2048.
#      GCOO_FUZZ_ONLY="mtx h5" limits the run to some harnesses.
# Any crash, sanitizer report, leak, broken invariant, timeout or memory blow-up fails the stage;
# the input is kept under build-fuzz/artifacts/ and printed in hex, to be committed under
# tests/fuzz/regressions/<h>/ with the fix. One exception, for h5: libhdf5 1.10 is not hardened
# against malformed files and crashes inside itself (heap overflows in H5HG_read, ...); h5 runs
# with -fork=1 -ignore_crashes=1, and each crash is replayed and classified by the first stack
# frame past the sanitizer's interceptors: inside libhdf5 it is reported as upstream (listed, not
# failing; kept under build-fuzz/artifacts/upstream/), anywhere else it fails the stage.
# LeakSanitizer ignores libhdf5's own leaks (tests/fuzz/lsan.supp). 3 minutes on 2 cores with
# all four harnesses (179 s measured, clean clang build included).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${GCOO_FUZZ_BUILD:-$top/build-fuzz}"
secs="${GCOO_FUZZ_SECONDS:-35}"
secs_h5="${GCOO_FUZZ_SECONDS_H5:-30}" # its crashes in libhdf5 are replayed to be classified
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
export LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
mkdir -p "$build/artifacts/upstream"
status=0

# The first stack frame of a sanitizer report past the interceptors and allocators.
crash_site() {
  grep -E '^ +#[0-9]+ ' "$1" |
    grep -vE '__interceptor_|__asan|__sanitizer|__ubsan|__lsan|fuzzer::|libc\.so|sysdeps/|libstdc|'\
'pthread| in (malloc|calloc|realloc|free|str[a-z]*|mem[a-z]*|wcs[a-z]*|abort|raise|__mem[a-z_0-9]*) ' |
    head -1
}

# h5: keep fuzzing past crashes, then sort them into upstream (libhdf5) and ours.
fuzz_h5_classified() {
  local fuzzer="$1" work="$2" corpus="$3"
  shift 3
  local ours=0 upstream=0
  "$fuzzer" "$work" "$corpus" "$@" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs_h5" -max_len="${max_len[h5]}" -timeout=5 -rss_limit_mb=2048 \
    -artifact_prefix="$build/artifacts/h5-" >"$work/fuzz.log" 2>&1 || true
  grep -E "^#[0-9]+: cov:|DONE|stat::" "$work/fuzz.log" | tail -3
  for a in "$build/artifacts/h5-"*; do
    [ -f "$a" ] || continue
    "$fuzzer" -runs=1 -timeout=5 -rss_limit_mb=2048 "$a" >"$work/replay.txt" 2>&1 && continue
    if grep -q "out-of-memory" "$work/replay.txt"; then
      # replayed with the RSS watchdog out of the way of a single huge allocation, so that
      # libFuzzer's malloc hook reports it with the stack that made it (the watchdog, when it
      # fires first, prints no stack and the site could not be told)
      "$fuzzer" -runs=1 -timeout=5 -rss_limit_mb=8192 -malloc_limit_mb=2048 "$a" \
        >"$work/replay.txt" 2>&1 && continue
    fi
    local site
    site="$(crash_site "$work/replay.txt")"
    if grep -q "out-of-memory (used:" "$work/replay.txt" && ! grep -q "out-of-memory (malloc(" "$work/replay.txt"; then
      # the RSS limit, seen by libFuzzer's watchdog thread: no allocation stack to classify by
      echo "fuzz h5: unclassified: RSS limit (no allocation stack) for $a"
      mv "$a" "$build/artifacts/upstream/"
      continue
    fi
    if printf '%s' "$site" | grep -q libhdf5 && ! grep -q "FUZZ INVARIANT" "$work/replay.txt"; then
      upstream=$((upstream + 1))
      mv "$a" "$build/artifacts/upstream/"
      echo "fuzz h5: upstream (libhdf5) $(grep -m1 -E 'ERROR: |runtime error' "$work/replay.txt" | cut -c1-120)"
      echo "         at$site"
    else
      ours=$((ours + 1))
      tail -40 "$work/replay.txt"
      echo "fuzz h5: failing input $a ($(stat -c %s "$a") bytes), not inside libhdf5:"
      od -A d -t x1z "$a" | head -20
    fi
  done
  echo "fuzz h5: $upstream crash(es) inside libhdf5 (upstream, not failing), $ours of ours"
  [ "$ours" -eq 0 ]
}
for fuzzer in "$build"/tests/fuzz/fuzz_*; do
  h="$(basename "$fuzzer")"
  h="${h#fuzz_}"
  case "$h" in *_replay) continue ;; esac
  case " ${GCOO_FUZZ_ONLY:-$h} " in *" $h "*) ;; *) continue ;; esac
  [ -x "$fuzzer" ] || continue
  corpus="$top/tests/fuzz/corpus/$h"
  regress="$top/tests/fuzz/regressions/$h"
  dict=()
  [ -f "$top/tests/fuzz/dict/$h.dict" ] && dict=(-dict="$top/tests/fuzz/dict/$h.dict")
  work="$(mktemp -d)"
  export GCOO_FUZZ_TMPDIR="$work" # the harnesses' files, including those of crashed runs
  echo "--- fuzz $h: replay $(ls "$regress" 2>/dev/null | wc -l) regressions and $(ls "$corpus" | wc -l) corpus inputs"
  if ! "$fuzzer" -runs=0 -timeout=5 -rss_limit_mb=2048 "$regress" "$corpus" >"$work/replay.log" 2>&1; then
    tail -40 "$work/replay.log"
    echo "fuzz $h: a committed input fails"
    status=1
    rm -rf "$work"
    continue
  fi
  if [ "$h" = h5 ]; then
    echo "--- fuzz $h: ${secs_h5} s, -max_len=${max_len[$h]}, crashes classified"
    fuzz_h5_classified "$fuzzer" "$work" "$corpus" "${dict[@]}" || status=1
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
