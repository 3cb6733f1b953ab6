#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/opsparse/build.sh SRC OUTDIR: build OpSparse as a peer of bench/spgemm_bench from a fetched
# copy of lorentzbf/OpSparse (SRC: the folder that holds its OpSparse/ folder; nothing of OpSparse
# is committed here). Makes, in OUTDIR:
#   libspgemm_opsparse.so  bench/opsparse/opsparse_peer.cu (the bench/spgemm_peer.h interface:
#                          OpSparse's kernels in its driver's steps, its streams made once, its
#                          buffers kept between calls), for spgemm_bench --peer-lib;
#   reg_opsparse           OpSparse's own benchmark driver as published, with the steady-clock
#                          fix of opsparse-steady-clock.patch (its TSC clock divides by cpuid leaf
#                          0x16, which reads 0 in a virtual machine), for spgemm_bench
#                          --opsparse-driver: a reference column, never a target (its timed
#                          function creates 8 streams and allocates on every call).
# SRC is not changed (the driver is built in a copy). ARCH (default 90) is the compute capability.
# Fetch SRC with git (git clone https://github.com/lorentzbf/OpSparse; the results name the
# commit: 0134b0c), or let bench/gpu_fair_prepare.sh place it in .device-kit/. Exit status 0 when
# the peer library was built (the driver is optional: said when it fails).
set -u
src="$(cd "${1:?usage: bench/opsparse/build.sh SRC OUTDIR}" && pwd)" || exit 1
mkdir -p "${2:?usage: bench/opsparse/build.sh SRC OUTDIR}" || exit 1
out="$(cd "$2" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
arch="${ARCH:-90}"
[ -f "$src/OpSparse/inc/numeric.cuh" ] || {
  echo "opsparse: $src/OpSparse/inc/numeric.cuh not found (SRC must hold OpSparse/)" >&2
  exit 1
}
if [ -f "$src/COMMIT" ]; then commit="$(cat "$src/COMMIT")"
elif [ -e "$src/.git" ]; then commit="$(git -C "$src" rev-parse --short HEAD)"
else commit=unknown; fi
nvcc -O3 -std=c++17 -arch="sm_$arch" -shared -Xcompiler -fPIC -cudart shared \
  -I"$src/OpSparse/inc" -DOPSPARSE_COMMIT="\"$commit\"" \
  "$here/opsparse_peer.cu" -o "$out/libspgemm_opsparse.so" || {
  echo "opsparse: the peer library did not build" >&2
  exit 1
}
echo "opsparse: $out/libspgemm_opsparse.so (OpSparse $commit, sm_$arch)"
rm -rf "$out/driver"
cp -r "$src/OpSparse" "$out/driver"
if (cd "$out/driver" && patch -s -p2 <"$here/opsparse-steady-clock.patch" &&
  make -s GENCODE="-arch=sm_$arch" reg_opsparse >build.log 2>&1); then
  cp "$out/driver/reg_opsparse" "$out/reg_opsparse"
  echo "opsparse: $out/reg_opsparse (its own driver, steady clock)"
else
  echo "opsparse: its own driver did not build (reference column left out): $out/driver/build.log"
fi
exit 0
