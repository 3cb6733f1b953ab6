#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# .ci/stages/50-install-example.sh: install gcoo from the CI build into a scratch prefix, then
# build every example under examples/ against that prefix the two ways users do, with CMake
# (find_package(gcoo CONFIG), shared and static) and with pkg-config (Makefiles, shared and
# static), and run them (MPI ones with mpirun -np 2 and 4, CPU backend); before them, a plain
# `cc app.c $(pkg-config --cflags --libs gcoo)` that must run without LD_LIBRARY_PATH and the
# same with gcoo-static that must not load libgcoo.so; the Fortran example (module gcoo) the same
# two ways when gcoo was built with its Fortran module. Fails on any error:
# a missing installed file, a warning in an example, a wrong result, a non-zero exit.
#   GCOO_BUILD_DIR         the configured and built tree to install (default: build/)
#   GCOO_EXAMPLE_BACKEND   backend the examples run on (default cpu). On a GPU machine:
#                          GCOO_EXAMPLE_BACKEND=cuda GCOO_ALLOW_SHARED_GPU=1 (4 ranks, maybe 1 GPU)
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${GCOO_BUILD_DIR:-$top/build}"
work="$(mktemp -d "${TMPDIR:-/tmp}/gcoo-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
backend="${GCOO_EXAMPLE_BACKEND:-cpu}"
export GCOO_BACKEND="$backend"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)

# shellcheck source=../stage_lib.sh
source "$top/.ci/stage_lib.sh"  # fail, run_expect

# ---- 1. install and look at what was installed -----------------------------------------------
echo "--- cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
pc="$(find "$prefix" -name gcoo.pc -path '*/pkgconfig/*' | head -1)"
[ -n "$pc" ] || fail "no gcoo.pc installed"
libdir="$(dirname "$(dirname "$pc")")"
for f in include/gcoo/gcoo.h include/gcoo/config.h include/gcoo/spdm.h include/gcoo/backend.h \
         bin/gcoo_dist share/gcoo/jobs/README.md share/doc/gcoo/LICENSE; do
  [ -e "$prefix/$f" ] || fail "$prefix/$f was not installed"
done
for f in libgcoo.so libgcoo.a pkgconfig/gcoo.pc pkgconfig/gcoo-static.pc cmake/gcoo/gcooConfig.cmake cmake/gcoo/gcooConfigVersion.cmake \
         cmake/gcoo/gcooTargets.cmake cmake/gcoo/FindNCCL.cmake; do
  [ -e "$libdir/$f" ] || fail "$libdir/$f was not installed"
done
# the Fortran module, when the build made it
fortran=0
if [ -e "$build/fortran/libgcoo_fortran.so" ]; then
  fortran=1
  for f in include/gcoo/fortran/gcoo.mod include/gcoo/fortran/gcoo_fortran_types.mod; do
    [ -e "$prefix/$f" ] || fail "$prefix/$f was not installed"
  done
  for f in libgcoo_fortran.so pkgconfig/gcoo-fortran.pc cmake/gcoo/gcooFortranTargets.cmake; do
    [ -e "$libdir/$f" ] || fail "$libdir/$f was not installed"
  done
fi
# the developer flags of the build (warnings, sanitizers) must not reach users
if grep -nE -- '-W(all|extra|shadow)|-fsanitize|gcoo_flags' "$libdir"/cmake/gcoo/gcooTargets*.cmake; then
  fail "build-only flags leak into the exported targets"
fi
# the installed command runs from the prefix (RUNPATH $ORIGIN/../lib), without LD_LIBRARY_PATH
run_expect '^gcoo_dist [0-9]+\.[0-9]+' env -u LD_LIBRARY_PATH "$prefix/bin/gcoo_dist" --version
run_expect 'spdm' "$prefix/bin/gcoo_dist" --help

export CMAKE_PREFIX_PATH="$prefix" PKG_CONFIG_PATH="$libdir/pkgconfig"
run_expect '^[0-9]+\.[0-9]+\.[0-9]+$' pkg-config --modversion gcoo
# the version file refuses another major version
mkdir -p "$work/vercheck"
cat >"$work/vercheck/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(vercheck LANGUAGES NONE)
find_package(gcoo 99 CONFIG QUIET)
if(gcoo_FOUND)
  message(FATAL_ERROR "find_package(gcoo 99) accepted version ${gcoo_VERSION}")
endif()
CM
cmake -S "$work/vercheck" -B "$work/vercheck/b" >/dev/null || fail "find_package(gcoo 99) was not refused"

# pkg-config as gcoo.pc promises, with nothing else on the command line: the shared build runs
# without LD_LIBRARY_PATH (rpath in Libs), gcoo-static links libgcoo.a (plain and --static)
cat >"$work/pc_app.c" <<'C'
#include <stdio.h>
#include "gcoo/gcoo.h"
int main(void) {
  gcoo_ctx ctx;
  gcoo_status st = gcoo_ctx_create(&ctx, "cpu");
  if (st < 0) return 1;
  gcoo_ctx_destroy(&ctx);
  printf("pc_app: %s: OK\n", gcoo_version_string());
  return 0;
}
C
echo "--- cc app.c \$(pkg-config --cflags --libs gcoo), run without LD_LIBRARY_PATH"
# shellcheck disable=SC2046
cc "$work/pc_app.c" $(pkg-config --cflags --libs gcoo) -o "$work/pc_shared" || fail "cc with pkg-config gcoo"
run_expect '^pc_app: .*: OK$' env -u LD_LIBRARY_PATH "$work/pc_shared"
loaded="$(ldd "$work/pc_shared" | awk '/libgcoo\.so/ {print $3}')"
[ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$libdir/libgcoo.so")" ] ||
  fail "pc_shared loads '$loaded', not the installed libgcoo.so"
for flags in "--libs gcoo-static" "--static --libs gcoo-static"; do
  echo "--- cc app.c \$(pkg-config --cflags $flags)"
  # shellcheck disable=SC2046,SC2086
  cc "$work/pc_app.c" $(pkg-config --cflags $flags) -o "$work/pc_static" || fail "cc with pkg-config $flags"
  ! ldd "$work/pc_static" | grep -q libgcoo || fail "pkg-config $flags linked the shared libgcoo"
  run_expect '^pc_app: .*: OK$' env -u LD_LIBRARY_PATH "$work/pc_static"
done

# ---- 2. the examples -----------------------------------------------------------------------
examples=(local_spdm dist_spdm)
if [ -e "$top/include/gcoo/spgemm.h" ]; then
  examples+=(spgemm)
else
  echo "--- examples/spgemm not built: include/gcoo/spgemm.h is not in this tree yet"
fi

if [ "$fortran" = 1 ]; then
  examples+=(fortran_poisson)
else
  echo "--- examples/fortran_poisson not built: gcoo was built without its Fortran module"
fi

# run_example <name> <binary>: run the way its README says, and check its verdict line.
run_example() {
  case "$1" in
    local_spdm)
      run_expect '^local_spdm: OK$' "$2" "$backend"
      run_expect '^local_spdm: OK$' "$2" "$backend" 7 5 3 ;;
    dist_spdm)
      run_expect '^dist_spdm: OK$' mpirun -np 2 --oversubscribe "$2" "$backend"
      run_expect '^dist_spdm: OK$' mpirun -np 4 --oversubscribe "$2" "$backend" 5 3 ;;
    spgemm)
      run_expect '^spgemm: .*: OK$' "$2" "$backend" 1000 ;;
    fortran_poisson) # the backend from $GCOO_BACKEND
      run_expect '^fortran_poisson: OK$' mpirun -np 2 --oversubscribe "$2" ;;
    *) fail "no run rule for example $1" ;;
  esac
}

for ex in "${examples[@]}"; do
  src="$top/examples/$ex"
  variants=(cmake-shared make-shared)
  [ "$ex" = local_spdm ] && variants+=(cmake-static make-static)
  for v in "${variants[@]}"; do
    out="$work/$ex-$v"
    mkdir -p "$out"
    echo "--- examples/$ex: $v"
    case "$v" in
      cmake-*)
        static=OFF
        [ "$v" = cmake-static ] && static=ON
        cmake -S "$src" -B "$out" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" \
              -DCMAKE_Fortran_FLAGS="-Wall -Wextra -Werror" \
              -DGCOO_EXAMPLE_STATIC=$static >"$out/configure.log" 2>&1 || { cat "$out/configure.log"; fail "$ex: cmake configure ($v)"; }
        cmake --build "$out" >"$out/build.log" 2>&1 || { cat "$out/build.log"; fail "$ex: cmake build ($v)"; } ;;
      make-*)
        static=0
        [ "$v" = make-static ] && static=1
        make -s -f "$src/Makefile" OUT="$out" STATIC=$static CFLAGS="-O2 -Wall -Wextra -Werror" \
             FFLAGS="-O2 -Wall -Wextra -Werror" \
             >"$out/build.log" 2>&1 || { cat "$out/build.log"; fail "$ex: pkg-config build ($v)"; } ;;
    esac
    [ -x "$out/$ex" ] || fail "$ex: no executable $out/$ex ($v)"
    if [ "${v#*-}" = static ] && ldd "$out/$ex" | grep -q libgcoo; then
      fail "$ex ($v) is linked to the shared libgcoo"
    fi
    run_example "$ex" "$out/$ex"
  done
done
echo "--- 50-install-example: install, find_package, pkg-config and ${#examples[@]} examples passed"
