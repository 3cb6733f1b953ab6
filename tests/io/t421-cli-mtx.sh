#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/io/t421-cli-mtx.sh GCOO_DIST MPIEXEC PYTHON SCRIPT: gcoo_dist convert and info between
# Matrix Market files written by scipy.io.mmwrite (general, symmetric, array) and HDF5, read back
# with scipy/h5py and compared with the Python side's text form.
. "$(dirname "$0")/cli_lib.sh"
start t421

nnz=$(head -1 mm_general.txt | cut -d' ' -f3)
"$G" info --in mm_general.mtx --json > m.json || note "info on a .mtx failed"
check_json m.json "j['format']=='coordinate' and j['file_type']=='matrix-market' and (j['a']['rows'],j['a']['cols'],j['a']['nnz'])==(30,20,$nnz) and j['detail']=='coordinate real general'"
expect 0 "(gcoo p=8 float64)" "$G" convert --in mm_general.mtx --out a.h5:/A --format gcoo --p 8
expect 0 "-> b.mtx.gz (coordinate float64)" "$G" convert --in a.h5:/A --out b.mtx.gz
expect 0 "" "$G" convert --in b.mtx.gz --out b.h5:/B --dtype float32
printf 'sparse a.h5 /A mm_general.txt\nmtx b.mtx.gz - mm_general.txt\nsparse b.h5 /B mm_general.txt\n' >> manifest.txt
# symmetric files are expanded to both triangles
expect 0 "" "$G" convert --in mm_sym.mtx --out s.h5:/S
echo "sparse s.h5 /S mm_sym.txt" >> manifest.txt
snnz=$(head -1 mm_sym.txt | cut -d' ' -f3)
expect 0 "15 x 15, $snnz entries" "$G" info --in mm_sym.mtx
# array files are dense, both ways
expect 0 "(dense 6 x 4, real) -> ar.h5:/X (dense float64)" "$G" convert --in mm_array.mtx --out ar.h5:/X
echo "dense ar.h5 /X mm_array.dense.txt" >> manifest.txt
expect 0 "-> d.mtx (array float64)" "$G" convert --in dense.h5:/D64 --out d.mtx
echo "mtx d.mtx - dense_D64.dense.txt" >> manifest.txt
expect 0 "kind     dense" "$G" info --in mm_array.mtx
# bad Matrix Market input
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n' > short.mtx
expect 1 "short.mtx" "$G" convert --in short.mtx --out x.h5:/A
expect 1 "nothere.mtx" "$G" info --in nothere.mtx
cp anndata.h5 fake.mtx   # an HDF5 file named .mtx: the Matrix Market reader says so
expect 1 "fake.mtx" "$G" convert --in fake.mtx --out x.h5:/A
[ ! -e x.h5 ] || note "a failed convert left x.h5"

finish t421-cli-mtx
