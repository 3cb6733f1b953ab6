#!/usr/bin/env bash
# .ci/stages/10-sanitize.sh: memory and undefined-behaviour checks of the CPU code.
#  1. A second build (build-asan) with AddressSanitizer + UndefinedBehaviorSanitizer, CPU only,
#     MPI on, running the unit and io suites; any report (error, leak, UB) fails the stage:
#     ASan aborts on the first error, LSan makes the test exit non-zero, UBSan halts.
#     Tests labelled mpi are left out here: Open MPI's own allocations drown LSan in reports
#     that are not ours; they run unsanitized in the main suite.
#  2. The unit test binaries of the main build under valgrind memcheck (leaks included), except
#     t050-spdm-reference, whose naive O(m k N) loops take minutes under valgrind and whose
#     code paths t060-op-cpu covers. .ci/valgrind.supp silences one libgomp false positive.
# Takes about 2 minutes on 2 cores.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
start=$(date +%s)

echo "--- sanitize: ASan + UBSan build in build-asan"
"$top/scripts/build.sh" "$top/build-asan" -DGCOO_SANITIZE=ON -DGCOO_ENABLE_CUDA=OFF \
  -DGCOO_ENABLE_MPI=ON -DGCOO_BUILD_BENCH=OFF
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --test-dir "$top/build-asan" -L "unit|io" -LE mpi --output-on-failure -j "$(nproc)"
unset ASAN_OPTIONS UBSAN_OPTIONS

echo "--- sanitize: valgrind memcheck on the unit test binaries ($(( $(date +%s) - start )) s so far)"
build="$top/build"
[ -x "$build/tests/unit/t001-status" ] || "$top/scripts/build.sh" "$build"
export GCOO_TEST_DATA="$top/tests/data" OMP_NUM_THREADS=2
for bin in "$build"/tests/unit/t[0-9][0-9][0-9]-*; do
  [ -x "$bin" ] || continue
  case "$(basename "$bin")" in t050-spdm-reference) continue ;; esac
  echo "valgrind $(basename "$bin")"
  valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,possible \
    --suppressions="$top/.ci/valgrind.supp" "$bin" >/dev/null
done
echo "--- sanitize: clean in $(( $(date +%s) - start )) s"
