#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/io/t420-cli-h5.sh GCOO_DIST MPIEXEC PYTHON SCRIPT: gcoo_dist info and convert on HDF5
# files: statistics checked against an independent computation from the Python side's text
# form, conversion chains (CSR -> GCOO -> CSC -> CSR, dense <-> sparse) read back by h5py/scipy,
# every bad input refused with a clear message and a non-zero exit, and the same under mpiexec
# (rank 0 works, every rank leaves with its exit code).
. "$(dirname "$0")/cli_lib.sh"
start t420

# info: text, and JSON checked against the triplets
nnz=$(head -1 anndata_X.txt | cut -d' ' -f3)
expect 0 "40 x 23, $nnz entries" "$G" info --in anndata.h5:/X
"$G" info --in anndata.h5:/X --json --p 10 > x.json || note "info --json failed"
check_json x.json "j['kind']=='sparse' and j['format']=='csr' and j['dtype']=='float32' and j['index_type']=='int32' and (j['a']['rows'],j['a']['cols'],j['a']['nnz'])==(40,23,$nnz) and [g['p'] for g in j['groups']]==[4,10,32,128,512] and j['p']==10"
# groups, empty groups and reuse from the triplets, computed here independently
check_json x.json "all(g['groups']==(40+g['p']-1)//g['p'] and abs(g['reuse'] - (lambda t: len(t)/len({(r//g['p'],c) for r,c in t}))([tuple(map(int,l.split()[:2])) for l in open('anndata_X.txt').read().split(chr(10))[1:] if l])) < 1e-6 and g['nnz_max']>=g['nnz_mean']>=g['nnz_min'] for g in j['groups'])"
check_json x.json "j['row_nnz']['empty']==40-len({int(l.split()[0]) for l in open('anndata_X.txt').read().split(chr(10))[1:] if l})"

# conversion chain: csr float32 -> gcoo p=4 -> csc float64 -> csr float32
expect 0 "-> g.h5:/A (gcoo p=4 float32)" "$G" convert --in anndata.h5:/X --out g.h5:/A --format gcoo --p 4
expect 0 "" "$G" convert --in g.h5:/A --out c.h5:/m/B --format csc --dtype float64
expect 0 "" "$G" convert --in c.h5:/m/B --out r.h5:/C --format csr --dtype float32
"$G" info --in g.h5:/A --json > g.json || note "info on the GCOO file failed"
check_json g.json "j['format']=='gcoo' and j['stored_p']==4 and j['a']['nnz']==$nnz"
"$G" info --in c.h5:/m/B --json > c.json || note "info on the CSC file failed"
check_json c.json "j['format']=='csc' and j['dtype']=='float64' and j['a']['nnz']==$nnz"
printf 'sparse g.h5 /A anndata_X.txt\nsparse c.h5 /m/B anndata_X.txt\nsparse r.h5 /C anndata_X.txt\n' >> manifest.txt
# default output format is the input's; p kept
expect 0 "(gcoo p=4 float32)" "$G" convert --in g.h5:/A --out g2.h5:/A
# unsorted columns and duplicates come out canonical
expect 0 "" "$G" convert --in unsorted.h5:/U --out u.h5:/U
echo "sparse u.h5 /U unsorted.txt" >> manifest.txt
# dense -> dense, dense -> sparse, sparse -> dense
expect 0 "(dense 9 x 7, float64) -> d.h5:/Y (dense float64)" "$G" convert --in dense.h5:/D64 --out d.h5:/Y
echo "dense d.h5 /Y dense_D64.dense.txt" >> manifest.txt
expect 0 "" "$G" convert --in dense.h5:/Dint --out ds.h5:/S --format csr
"$G" info --in ds.h5:/S --json > ds.json || note "info on dense->sparse failed"
check_json ds.json "j['a']['nnz']==sum(1 for l in open('dense_Dint.dense.txt').read().split()[2:] if float(l)!=0) and j['dtype']=='float64'"
expect 0 "" "$G" convert --in fixed.h5:/M --out fd.h5:/F --format dense
"$G" info --in fd.h5:/F --json > fd.json || note "info on sparse->dense failed"
check_json fd.json "j['kind']=='dense' and (j['a']['rows'],j['a']['cols'])==(17,31)"
expect 0 "kind     dense, float64 (column-major)" "$G" info --in dense.h5:/colmajor

# bad input: a clear message and a non-zero exit, no output file
expect 2 "--in and --out are both required" "$G" convert --in anndata.h5:/X
expect 2 "--in PATH is required" "$G" info
expect 2 "cannot tell the file type of \"anndata.txt\"" "$G" convert --in anndata.txt --out x.h5:/A
expect 2 "cannot tell the file type of \"x.bin\"" "$G" convert --in anndata.h5:/X --out x.bin
expect 2 "cannot tell the file type" "$G" info --in foo.csv
expect 1 "cannot open \"nothere.h5\": No such file or directory" "$G" convert --in nothere.h5:/A --out x.h5:/A
expect 1 "no object \"nope\" in group / (it holds: X, layers, obs, var)" "$G" info --in anndata.h5:/nope
expect 1 "no attribute encoding-type" "$G" info --in bad.h5:/noenc
expect 1 "is not an HDF5 file" "$G" info --in notahdf5.h5
expect 1 "dense3d has 3 dimensions" "$G" convert --in bad.h5:/dense3d --out x.h5:/A
expect 1 "row 2 has column index 7 outside 0..4" "$G" convert --in bad.h5:/idx_range --out x.h5:/A
expect 2 "--format coo: expected csr, csc, gcoo or dense" "$G" convert --in anndata.h5:/X --out x.h5:/A --format coo
expect 2 "--dtype half: expected float32 or float64" "$G" convert --in anndata.h5:/X --out x.h5:/A --dtype half
expect 2 "--p applies to --format gcoo only" "$G" convert --in anndata.h5:/X --out x.h5:/A --format csr --p 8
expect 2 "--p 0: expected an integer in [1," "$G" info --in anndata.h5:/X --p 0
expect 2 "would overwrite the input" "$G" convert --in g.h5:/A --out g.h5:/A
expect 0 "-> g.h5:/B" "$G" convert --in g.h5:/A --out g.h5:/B
expect 0 "g.h5:/A (hdf5)" "$G" info --in g.h5:/A
expect 1 "needs a name in the file (for example dn.h5:/X)" "$G" convert --in dense.h5:/D64 --out dn.h5
expect 2 "unknown option \"--bogus\"" "$G" convert --bogus
expect 0 "usage: gcoo_dist convert --in PATH --out PATH" "$G" convert --help
expect 0 "usage: gcoo_dist info --in PATH" "$G" info --help
for f in x.h5 dn.h5 x.bin x.h5.tmp.* dn.h5.tmp.*; do [ ! -e "$f" ] || note "a failed command left $f"; done

# under mpiexec: rank 0 converts, the other ranks share its exit code, one summary line
out=$("$MPIEXEC" -n 2 --oversubscribe "$G" convert --in anndata.h5:/X --out m2.h5:/A 2>&1)
[ $? -eq 0 ] || note "mpiexec -n 2 convert failed: $out"
[ "$(grep -c 'gcoo_dist convert:' <<<"$out")" -eq 1 ] || note "expected one summary line: $out"
echo "sparse m2.h5 /A anndata_X.txt" >> manifest.txt
expect 1 "No such file or directory" "$MPIEXEC" -n 2 --oversubscribe "$G" convert --in none.h5:/A --out m3.h5:/A
expect 0 "\"nnz\":$nnz" "$MPIEXEC" -n 2 --oversubscribe "$G" info --in anndata.h5:/X --json

finish t420-cli-h5
