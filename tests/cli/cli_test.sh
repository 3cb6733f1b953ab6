#!/usr/bin/env bash
# tests/cli/cli_test.sh CASE NP GCOO_DIST MPIEXEC: gcoo_dist end to end under mpirun.
# Each case is one ctest (label cli); failures print what was expected and what came out.
set -uo pipefail
case_name="$1"; np="$2"; gd="$3"; mpiexec="$4"
py=/usr/bin/python3
tmp="$(mktemp -d "${TMPDIR:-/tmp}/gcoo-cli-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export GCOO_BACKEND="${GCOO_BACKEND:-cpu}"
# progress is tested on purpose (case progress); elsewhere a terminal that runs this by hand
# must not change what the checks see
export GCOO_PROGRESS="${GCOO_PROGRESS:-0}"

fail() { echo "FAIL [$case_name np=$np]: $*" >&2; exit 1; }
# run N ARGS...: gcoo_dist on N ranks; stdout in $tmp/out, stderr in $tmp/err, status in $rc.
# Every rank of gcoo_dist leaves with the job's status, so mpirun need not end the job when one
# exits non-zero (Open MPI takes ~2 s to do that: most of a refused run); each rank's status is
# kept in $tmp/rc.RANK instead and $rc is the largest (mpirun's own when it failed, 124 on a
# timeout).
run() {
  local n="$1"; shift
  rm -f "$tmp"/rc.*
  OMPI_MCA_orte_abort_on_non_zero_status=0 timeout 50 "$mpiexec" -np "$n" --oversubscribe \
    sh -c '"$0" "$@"; echo $? >"$GCOO_TEST_RC.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}"' "$gd" "$@" \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" = 0 ]; then
    rc=$(cat "$tmp"/rc.* 2>/dev/null | sort -n | tail -1)
    [ "$(ls "$tmp"/rc.* 2>/dev/null | wc -l)" = "$n" ] || rc=255 # a rank left no status
  fi
}
export GCOO_TEST_RC="$tmp/rc"
expect_rc() { [ "$rc" = "$1" ] || { cat "$tmp/out" "$tmp/err" >&2; fail "exit status $rc, expected $1 ($2)"; }; }
expect_err() { grep -q -- "$1" "$tmp/err" || { cat "$tmp/err" >&2; fail "stderr lacks \"$1\" ($2)"; }; }
expect_out() { grep -q -- "$1" "$tmp/out" || { cat "$tmp/out" "$tmp/err" >&2; fail "stdout lacks \"$1\" ($2)"; }; }
no_err() { ! grep -q -- "$1" "$tmp/err" || { cat "$tmp/err" >&2; fail "stderr has \"$1\" ($2)"; }; }
# count PATTERN: lines of stderr matching it
count_err() { grep -c -- "$1" "$tmp/err"; }
# h5objs FILE: the object paths of an HDF5 file, sorted, one line
h5objs() { "$py" -c "
import h5py, sys
names = []
h5py.File(sys.argv[1], 'r').visit(names.append)
print(' '.join(sorted(names)))" "$1"; }
# same_h5 FILE SAVED: FILE still holds exactly what SAVED (a copy made before the run) holds
same_h5() { "$py" -c "
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1], 'r'), h5py.File(sys.argv[2], 'r')
na, nb = [], []
a.visit(na.append); b.visit(nb.append)
assert sorted(na) == sorted(nb), (sorted(na), sorted(nb))
for n in na:
  if isinstance(a[n], h5py.Dataset): assert np.array_equal(a[n][...], b[n][...]), n" "$1" "$2" || fail "$3: $1 changed"; }
# kept_h5 FILE SAVED: every object of SAVED is still in FILE with the same data (new ones allowed)
kept_h5() { "$py" -c "
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1], 'r'), h5py.File(sys.argv[2], 'r')
nb = []
b.visit(nb.append)
for n in nb:
  assert n in a, 'lost ' + n
  if isinstance(b[n], h5py.Dataset): assert np.array_equal(a[n][...], b[n][...]), n" "$1" "$2" || fail "$3: $1 lost what it held"; }
# mkinputs: a small sparse R.h5:/A (float64, 60 x 60), X.h5:/X (60 x 3), an SPD L.h5 with /A and /B
mkinputs() {
  "$py" -c "
import h5py, numpy as np, scipy.sparse as sp
rng = np.random.default_rng(5)
A = sp.random(60, 60, density=0.08, format='csr', random_state=3) + sp.eye(60, format='csr')
A = A.tocsr(); A.sort_indices()
def put(f, name, M):
  g = f.create_group(name)
  g.attrs['encoding-type'] = 'csr_matrix'; g.attrs['encoding-version'] = '0.1.0'
  g.attrs['shape'] = np.array(M.shape, dtype=np.int64)
  g['data'] = M.data; g['indices'] = M.indices.astype(np.int32); g['indptr'] = M.indptr.astype(np.int64)
with h5py.File('$tmp/R.h5', 'w') as f: put(f, 'A', A)
with h5py.File('$tmp/R32.h5', 'w') as f: put(f, 'A', A.astype(np.float32))
with h5py.File('$tmp/X.h5', 'w') as f: f['X'] = rng.standard_normal((60, 3))
L = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(50, 50), format='csr'); L.sort_indices()
with h5py.File('$tmp/L.h5', 'w') as f:
  put(f, 'A', L); f['B'] = rng.standard_normal((50, 2))
R = sp.random(30, 20, density=0.2, format='csr', random_state=4); R.sort_indices()
with h5py.File('$tmp/cells.h5ad', 'w') as f:
  put(f, 'X', R); f.create_group('obs'); f.create_group('var'); f.create_group('layers')
" || fail "cannot write the test inputs"
  for f in R X L; do cp "$tmp/$f.h5" "$tmp/$f.saved.h5"; done
}
json() { "$py" -c "import json,sys; d=json.load(open('$tmp/out')); $1" || { cat "$tmp/out" "$tmp/err" >&2; fail "JSON check: $1"; }; }

case "$case_name" in
default)  # the README's first command: no arguments, any rank count, PASS and exit 0
  run "$np"
  expect_rc 0 "default job"
  grep -q "check: 64 sampled rows.*PASS" "$tmp/out" || fail "no PASS line: $(cat "$tmp/out")"
  grep -q "on $np rank" "$tmp/out" || fail "rank count not reported"
  grep -q "nnz 760320" "$tmp/out" || fail "nnz of the 48^3 7-point matrix not reported"
  ;;
json)  # one JSON object with shapes, nnz, ranks, backend, devices, algorithm, p, times, check; the
       # same names in every subcommand; an error object when the job fails
  for reading in sparse-dense dense-sparse; do
    run "$np" spdm --stencil 27 --grid 12 --ncols 8 --check --json --reading "$reading" --gather root
    expect_rc 0 "spdm --json --reading $reading"
    json "
assert d['command']=='spdm' and d['ranks']==$np and d['reading']=='$reading', d
assert d['a']['nnz']==34**3 and d['a']['rows']==12**3==d['a']['cols'], d['a']
assert d['backend']=='cpu' and len(d['devices'])==$np and d['algorithm'] in ('csr','gcoo')
assert (d['p']>0) == (d['algorithm']=='gcoo')
for k in ('read','setup','kernel','gather','write','total'): assert d['time_s'][k]>=0, k
assert d['check']['pass'] and d['check']['rows']==64 and d['check']['max_rel_err']<=d['check']['tolerance']
assert d['imbalance']>=1.0 and d['xmode']=='partitioned'
assert ($np==1) == (d['halo']['rows_sent_total']==0), d['halo']"
  done
  # every subcommand: the same names for the same things (docs/guide.md, "--json")
  head="assert d['command']=='\$c' and d['version'] and d['ranks']==$np, d"
  run "$np" gen --stencil 7 --grid 6 --out "$tmp/j.mtx" --json; expect_rc 0 "gen --json"
  json "${head/\$c/gen}; assert d['a']['nnz']==1296 and d['a']['rows']==216 and d['out_written'] and d['time_s']['write']>=0"
  run "$np" convert --in "$tmp/j.mtx" --out "$tmp/j2.mtx" --json; expect_rc 0 "convert --json"
  json "${head/\$c/convert}; assert d['a']['nnz']==1296 and d['out']=='$tmp/j2.mtx' and d['out_written'] and d['time_s']['read']>=0"
  run "$np" info --in "$tmp/j2.mtx" --json; expect_rc 0 "info --json"
  json "${head/\$c/info}; assert d['a']==dict(source='$tmp/j2.mtx', rows=216, cols=216, nnz=1296), d['a']"
  run "$np" predict --a "$tmp/j.mtx" --json; expect_rc 0 "predict --json"
  json "${head/\$c/predict}; assert d['a']['nnz']==d['b']['nnz']==1296 and d['time_s']['predict']>=0"
  run "$np" spgemm --a "$tmp/j.mtx" --check --json; expect_rc 0 "spgemm --json"
  json "${head/\$c/spgemm}; assert d['a']['rows']==d['c']['rows']==216 and d['c']['nnz']>1296 and d['check']['pass'] and len(d['devices'])==$np and d['algorithm'] and d['time_s']['total']>=0"
  run "$np" solve --stencil 7 --grid 6 --json; expect_rc 0 "solve --json"
  json "${head/\$c/solve}; assert d['a']['nnz']==1296 and d['converged'] and len(d['devices'])==$np and d['algorithm'] and d['time_s']['solve']>=0"
  # a job that fails: an error object on stdout in place of the report
  run "$np" spdm --a "$tmp/missing.mtx" --ncols 4 --json; expect_rc 1 "a missing file with --json"
  json "${head/\$c/spdm}; assert d['status']=='GCOO_ERR_IO' and d['rank']==0 and 'missing.mtx' in d['message'] and d['exit_code']==1"
  run "$np" spgemm --a "$tmp/j.mtx" --safety -3 --json; expect_rc 2 "a bad option with --json"
  json "${head/\$c/spgemm}; assert d['status']=='GCOO_ERR_INVALID_ARG' and 'safety' in d['message'] and d['exit_code']==2"
  ;;
ranks)  # the product does not depend on the rank count (sums of Y at 1 and 3 ranks)
  for args in "--stencil 7 --grid 16 --ncols 4" "--rows 900 --cols 700 --sparsity 0.98 --ncols 5" \
              "--rows 600 --cols 600 --sparsity 0.97 --ncols 3 --xmode replicated" \
              "--rows 500 --cols 800 --sparsity 0.98 --ncols 6 --reading dense-sparse"; do
    run 1 spdm $args --dtype float64 --json; expect_rc 0 "np 1: $args"; cp "$tmp/out" "$tmp/one.json"
    run 3 spdm $args --dtype float64 --json; expect_rc 0 "np 3: $args"
    json "
o=json.load(open('$tmp/one.json'))
assert o['a']['nnz']==d['a']['nnz'], (o['a'], d['a'])
for k in ('y_sum','y_abs_sum'):
  assert abs(o[k]-d[k]) <= 1e-12*max(1.0,abs(o[k]),o['y_abs_sum']), (k, o[k], d[k])"
  done
  ;;
options)  # bad option values: exit 2 at once, naming the option (run without mpirun: Open MPI's
         # mpirun adds ~2 s to every non-zero exit, and parsing does not depend on the ranks)
  start=$(date +%s)
  one() { timeout 20 "$gd" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
  one spdm --stencil 7 --dtype float16;          expect_rc 2 "bad dtype"; expect_err "float16" "bad dtype"
  one spdm --stencil 5;                          expect_rc 2 "bad stencil"; expect_err "stencil 5" "bad stencil"
  one spdm --stencil 7 --grid 4 --gather some;   expect_rc 2 "bad gather"; expect_err "gather some" "bad gather"
  one spdm --stencil 7 --grid 4 --alg fastest;   expect_rc 2 "bad alg"; expect_err "alg fastest" "bad alg"
  one spdm --stencil 7 --grid 4 --repeat 0;      expect_rc 2 "bad repeat"; expect_err "repeat 0" "bad repeat"
  one spdm --ncols 4;                            expect_rc 2 "no matrix"; expect_err "exactly one of" "no matrix"
  one spdm --stencil 7 --grid 4 --unknown;       expect_rc 2 "unknown option"; expect_err "unknown" "unknown option"
  one nosuchcommand;                             expect_rc 2 "unknown command"; expect_err "unknown command" "unknown command"
  one gen --rows 10 --cols 10;                   expect_rc 2 "gen without --out"; expect_err "--out" "gen without --out"
  one gen --rows 10 --cols 10 --out x.h5 --format coo; expect_rc 2 "gen format"; expect_err "format coo" "gen format"
  [ $(( $(date +%s) - start )) -lt 20 ] || fail "bad options took $(( $(date +%s) - start )) s"
  ;;
errors)  # runtime failures under mpirun: exit 1, naming the cause and the rank, within seconds
  start=$(date +%s)
  run "$np" spdm --a "$tmp/missing.mtx" --ncols 4;     expect_rc 1 "missing file"; expect_err "rank 0: .*missing.mtx" "missing file"
  run "$np" spdm --a "$tmp/missing.h5" --ncols 4;      expect_rc 1 "missing file"; expect_err "rank 0: .*missing.h5" "missing file"
  run "$np" spdm --stencil 7 --grid 4 --alg cusparse --backend cpu
  expect_rc 1 "CUDA algorithm on the CPU"; expect_err "rank 0: .*needs the CUDA backend" "cusparse on cpu"
  run "$np" spdm --stencil 7 --grid 4 --backend gpu
  if [ "$rc" != 0 ]; then  # no GPU here: every rank says where it looked
    expect_rc 1 "gpu without GPU"; expect_err "rank $((np - 1)) on host .* sees no CUDA device" "gpu without GPU"
  fi
  # dense operands larger than the host's memory: refused before they are allocated
  run "$np" spdm --stencil 7 --grid 60 --ncols 1000000; expect_rc 1 "216000 x 10^6 dense operands"
  expect_err "refused before allocating them" "the dense operands' size"
  [ $(( $(date +%s) - start )) -lt 45 ] || fail "bad inputs took $(( $(date +%s) - start )) s"
  ;;
gen-spdm)  # needs io/ merged: the file does not depend on the rank count; spdm reads and checks it
  run 1 gen --rows 700 --cols 500 --sparsity 0.97 --seed 3 --out "$tmp/one.h5" --json
  expect_rc 0 "gen np 1"; cp "$tmp/out" "$tmp/gen.json"
  run "$np" gen --rows 700 --cols 500 --sparsity 0.97 --seed 3 --out "$tmp/many.h5"
  expect_rc 0 "gen np $np"
  "$py" -c "
import h5py, numpy as np
a, b = h5py.File('$tmp/one.h5','r'), h5py.File('$tmp/many.h5','r')
for k in ('indptr','indices','data'): assert np.array_equal(a[k][...], b[k][...]), k
assert list(a.attrs['shape']) == [700, 500]" || fail "gen files differ between 1 and $np ranks"
  for reading in sparse-dense dense-sparse; do
    run "$np" spdm --a "$tmp/many.h5" --ncols 6 --check --json --reading "$reading"
    expect_rc 0 "spdm --a file --reading $reading"
    json "g=json.load(open('$tmp/gen.json')); assert d['a']['nnz']==g['a']['nnz'] and d['check']['pass'], d"
  done
  run "$np" gen --stencil 7 --grid 10 --format gcoo --p 16 --out "$tmp/p.h5"; expect_rc 0 "gen gcoo"
  run "$np" spdm --a "$tmp/p.h5" --ncols 4 --check --json --reading dense-sparse
  expect_rc 0 "spdm gcoo file"; json "assert d['a']['nnz']==7*1000-6*100 and d['check']['pass'] and d['p']==16, d"
  ;;
out)  # needs io/ merged: --out at 1 and $np ranks gives the same dataset
  run 1 spdm --stencil 7 --grid 10 --ncols 3 --dtype float64 --out "$tmp/y1.h5:/Y"; expect_rc 0 "out np 1"
  run "$np" spdm --stencil 7 --grid 10 --ncols 3 --dtype float64 --out "$tmp/yn.h5:/Y"; expect_rc 0 "out np $np"
  "$py" -c "
import h5py, numpy as np
a, b = h5py.File('$tmp/y1.h5','r')['Y'][...], h5py.File('$tmp/yn.h5','r')['Y'][...]
assert a.shape == b.shape == (1000, 3), (a.shape, b.shape)
assert np.max(np.abs(a-b)) <= 1e-12*np.max(np.abs(a)), np.max(np.abs(a-b))" || fail "--out differs between 1 and $np ranks"
  ;;
bad-b)  # needs io/ merged: inner dimensions that disagree
  "$py" -c "
import h5py, numpy as np
with h5py.File('$tmp/b.h5','w') as f: f['B'] = np.ones((9, 4), dtype=np.float32)" || fail "cannot write B"
  run "$np" spdm --stencil 7 --grid 2 --b "$tmp/b.h5:/B"
  expect_rc 1 "B with 9 rows for an 8 x 8 A"; expect_err "rank 0: inner dimensions disagree" "inner dimensions"
  ;;
solve)  # block CG: converges, true residual within the tolerance, fewer multiplies than separate
  run "$np" solve --stencil 7 --grid 12 --k 6 --tol 1e-9 --json --history
  expect_rc 0 "solve --json"
  cp "$tmp/out" "$tmp/block.json"
  json "
assert d['command']=='solve' and d['converged'] and d['k']==6 and d['ranks']==$np, d
assert d['true_residual_max'] <= 1e-8, d['true_residual_max']
assert len(d['history'])==d['iterations']+1 and d['history'][0]==[1.0]*6
assert all(0 < it <= d['iterations'] for it in d['column_iterations'])
for k in ('build','solve','spmm','reduce','blas','precond'): assert d['time_s'][k]>=0, k"
  run "$np" solve --stencil 7 --grid 12 --k 6 --tol 1e-9 --json --separate
  expect_rc 0 "solve --separate"
  json "
b=json.load(open('$tmp/block.json'))
assert d['mode']=='separate' and d['converged'] and d['true_residual_max'] <= 1e-8
assert b['spmm_calls'] < d['spmm_calls'], (b['spmm_calls'], d['spmm_calls'])"
  # not SPD after a negative shift: a clean failure on every rank, no hang
  run "$np" solve --stencil 7 --grid 6 --k 2 --shift -10 --pc none --maxit 50
  [ "$rc" != 0 ] || fail "an indefinite matrix was reported as solved"
  # a non-square matrix: refused with the reason
  run "$np" solve --rows 5 2>/dev/null; [ "$rc" = 2 ] || fail "unknown option accepted"
  ;;
krylov)  # the methods and preconditioners of solve, their refusals, and what is written when
  mkinputs
  # a nonsymmetric A (the convection-diffusion matrix N.h5:/A): cg refused with the methods to use,
  # gmres, fgmres and bicgstab converge and pass --check
  "$py" -c "
import h5py, numpy as np, scipy.sparse as sp
g = 12; I = sp.identity(g)
T = sp.diags([-2.0, 4.0, -1.0], [-1, 0, 1], shape=(g, g))
A = (sp.kron(T, I) + sp.kron(I, T)).tocsr(); A.sort_indices()
with h5py.File('$tmp/N.h5', 'w') as f:
  grp = f.create_group('A'); grp.attrs['encoding-type'] = 'csr_matrix'; grp.attrs['encoding-version'] = '0.1.0'
  grp.attrs['shape'] = np.array(A.shape, dtype=np.int64)
  grp['data'] = A.data; grp['indices'] = A.indices.astype(np.int32); grp['indptr'] = A.indptr.astype(np.int64)
" || fail "cannot write N.h5"
  run "$np" solve --a "$tmp/N.h5:/A" --k 2
  expect_rc 1 "cg on a nonsymmetric matrix"
  expect_err "not symmetric" "cg says A is not symmetric"; expect_err "gmres" "cg names the methods to use"
  for m in gmres fgmres bicgstab; do
    run "$np" solve --a "$tmp/N.h5:/A" --k 2 --ksp $m --check --json
    expect_rc 0 "solve --ksp $m"
    json "assert d['ksp']=='$m' and d['converged'] and d['reason']=='converged_rtol' and d['true_residual_max'] <= 1e-8, d"
  done
  run "$np" solve --a "$tmp/N.h5:/A" --k 1 --ksp gmres --restart 5 --pc none --json
  expect_rc 0 "gmres(5) without preconditioner"; json "assert d['restart']==5 and d['pc']=='none', d"
  # the options string, and a bad one
  run "$np" solve --a "$tmp/N.h5:/A" --k 1 --options "-ksp_type bicgstab -ksp_rtol 1e-10" --json
  expect_rc 0 "--options"; json "assert d['ksp']=='bicgstab' and d['tol']==1e-10 and d['true_residual_max']<=1e-10, d"
  run "$np" solve --a "$tmp/N.h5:/A" --k 1 --ksp gmres --options "-ksp_typo gmres"
  expect_rc 1 "a bad --options"; expect_err "unknown option -ksp_typo" "--options names the bad name"
  # SPD: pipecg and cg in lockstep agree with block cg
  for v in "--ksp pipecg" "--lockstep" ""; do
    run "$np" solve --stencil 7 --grid 8 --k 3 $v --tol 1e-10 --check --json
    expect_rc 0 "solve $v"; json "assert d['converged'] and d['true_residual_max'] <= 1e-10, d"
  done
  # generated right-hand sides saved, then given back with the solution as the initial guess
  run "$np" solve --stencil 7 --grid 8 --k 2 --save-b "$tmp/B.h5:/B" --out "$tmp/X.h5:/X" --overwrite --json
  expect_rc 0 "--save-b"
  run "$np" solve --stencil 7 --grid 8 --b "$tmp/B.h5:/B" --x0 "$tmp/X.h5:/X" --json
  expect_rc 0 "--x0 with the solution"; json "assert d['iterations'] <= 1, d['iterations']"
  run "$np" solve --stencil 7 --grid 8 --b "$tmp/B.h5:/B" --x0 "$tmp/R.h5:/A"
  expect_rc 1 "--x0 of the wrong shape"; expect_err "x0" "names --x0"
  # a solve that does not converge keeps the previous result and says why, once
  run "$np" solve --stencil 7 --grid 8 --k 2 --out "$tmp/Xk.h5:/X" --json
  expect_rc 0 "a first result"; cp "$tmp/Xk.h5" "$tmp/Xk.saved.h5"
  run "$np" solve --stencil 7 --grid 8 --k 2 --maxit 3 --out "$tmp/Xk.h5:/X" --overwrite
  expect_rc 1 "not converged within 3"
  expect_out "diverged_its" "the report says why it stopped"; expect_err "not written" "says X was not written"
  [ "$(grep -c "converged" "$tmp/out")" = 1 ] || fail "one verdict, not two"
  same_h5 "$tmp/Xk.h5" "$tmp/Xk.saved.h5" "a failed solve"
  run "$np" solve --stencil 7 --grid 8 --k 2 --maxit 3 --out "$tmp/Xk.h5:/X" --overwrite --out-on-failure --json
  expect_rc 1 "--out-on-failure"; json "assert d['out_written'] and not d['converged'], d"
  "$py" -c "
import h5py; a = h5py.File('$tmp/Xk.h5', 'r')['X'].attrs
assert 'did not converge' in str(a['gcoo-not-converged']), dict(a)" || fail "an X that did not converge is not marked"
  run "$np" solve --stencil 7 --grid 8 --k 2 --maxit 3 --out "$tmp/Xk.mtx" --out-on-failure
  expect_rc 2 "--out-on-failure to Matrix Market"; expect_err "HDF5 attribute" "says why"
  # a zero diagonal: Jacobi refuses with the row, none goes on
  run "$np" solve --a "$(dirname "$0")/../data/west0479.mtx.gz" --ksp gmres --k 1
  expect_rc 1 "Jacobi on west0479"; expect_err "A(" "names the row"
  # the direct path solves it (where the build has MUMPS)
  if "$gd" --version 2>/dev/null | grep -q MUMPS; then
    run "$np" solve --a "$(dirname "$0")/../data/west0479.mtx.gz" --ksp preonly --pc lu --k 2 --tol 1e-10 --check --json
    expect_rc 0 "preonly + lu on west0479"; json "assert d['reason']=='converged_preonly' and d['true_residual_max'] <= 1e-10, d"
  fi
  ;;
amg)  # solve --pc amg: its options, the hierarchy under "amg" in --json, a near-null space file,
     # nodal coordinates with a block size, and the options refused without --pc amg
  run "$np" solve --stencil 7 --grid 12 --k 2 --pc amg --check --json
  expect_rc 0 "solve --pc amg"
  json "a = d['amg']; assert d['pc']=='amg' and d['converged'] and d['iterations'] <= 12 and a['levels'] >= 2 and a['level'][0]['rows'] == 1728 and 1 < a['operator_complexity'] < 2 and a['level'][1]['nnz_ap'] > 0 and 0 < d['time_s']['setup'] <= d['time_s']['solve'], d"
  run "$np" solve --stencil 7 --grid 12 --k 1 --pc amg --amg-theta 0.05 --amg-smoother jacobi --amg-coarse 40 --check --json
  expect_rc 0 "the AMG options"; json "assert d['amg']['level'][-1]['rows'] <= 40, d['amg']"
  "$py" -c "
import h5py, numpy as np
with h5py.File('$tmp/V.h5', 'w') as f:
  f['V'] = np.ones((1728, 1)); f['XYZ'] = np.random.default_rng(1).random((864, 2))
" || fail "cannot write V.h5"
  run "$np" solve --stencil 7 --grid 12 --k 1 --pc amg --nullspace "$tmp/V.h5:/V" --check --json
  expect_rc 0 "--nullspace"
  run "$np" solve --stencil 7 --grid 12 --k 1 --pc amg --coords "$tmp/V.h5:/XYZ" --block-size 2 --check --json
  expect_rc 0 "--coords"; json "assert d['amg']['level'][1]['rows'] % 3 == 0, d['amg']"
  run "$np" solve --stencil 7 --grid 12 --amg-theta 0.1
  expect_rc 2 "--amg-theta without --pc amg"; expect_err "need --pc amg" "says what they need"
  run "$np" solve --stencil 7 --grid 12 --pc amg --nullspace "$tmp/V.h5:/XYZ"
  expect_rc 1 "a near-null space of the wrong length"; expect_err "near-null space" "names it"
  ;;
clobber)  # an output never destroys an input: the same object is refused before any work; another
          # object in an input's file is refused or added, the input kept either way
  mkinputs
  # the same object (or one inside it, or the whole file): refused, whatever the writes can do
  for args in "spgemm --a $tmp/R.h5:/A --out $tmp/R.h5:/A" "spgemm --a $tmp/R.h5:/A --out $tmp/R.h5" \
              "spgemm --a $tmp/R.h5:/A --out $tmp/R.h5:/A/data" "spdm --a $tmp/R.h5:/A --b $tmp/X.h5:/X --out $tmp/X.h5:/X" \
              "solve --a $tmp/L.h5:/A --b $tmp/L.h5:/B --out $tmp/L.h5:/B"; do
    run "$np" $args; expect_rc 2 "$args"; expect_err "would overwrite the input" "$args"
  done
  for f in R X L; do same_h5 "$tmp/$f.h5" "$tmp/$f.saved.h5" "the same object as --out"; done
  # the issue's cases: another object in an input's file (refused while an HDF5 write replaces
  # its whole file; added once writes keep the file's other objects)
  for args in "spgemm --a $tmp/R.h5:/A --out $tmp/R.h5:/C" "spdm --a $tmp/R.h5:/A --b $tmp/X.h5:/X --out $tmp/X.h5:/Y" \
              "solve --a $tmp/L.h5:/A --b $tmp/L.h5:/B --out $tmp/L.h5:/X"; do
    run "$np" $args
    case "$rc" in
      2) expect_err "input" "$args refused with the reason" ;;
      0) obj="${args##*:/}"; f="${args##*--out }"; f="${f%%:*}"
         [ "$(h5objs "$f" | tr ' ' '\n' | grep -cx "$obj")" = 1 ] || fail "$args: exit 0 but no /$obj in $f" ;;
      *) cat "$tmp/err" >&2; fail "$args: exit status $rc" ;;
    esac
  done
  for f in R X L; do kept_h5 "$tmp/$f.h5" "$tmp/$f.saved.h5" "another object in an input's file"; done
  # the same file under other names: a relative path with ./, a symbolic and a hard link
  ln -s "$tmp/X.h5" "$tmp/Xsym.h5"; ln "$tmp/R.h5" "$tmp/Rhard.h5"
  (cd "$tmp" && timeout 50 "$mpiexec" -np "$np" --oversubscribe "$gd" spdm --a ./R.h5:/A --b X.h5:/X \
     --out "./Xsym.h5:/X" >"$tmp/out" 2>"$tmp/err"); rc=$?
  expect_rc 2 "spdm --out a link to --b"; kept_h5 "$tmp/X.h5" "$tmp/X.saved.h5" "--out through a symbolic link"
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$tmp/Rhard.h5:/A"
  expect_rc 2 "spgemm --out a hard link to --a"; kept_h5 "$tmp/R.h5" "$tmp/R.saved.h5" "--out through a hard link"
  run 1 convert --in "$tmp/R.h5:/A" --out "$tmp/Rhard.h5:/A"
  expect_rc 2 "convert --out a hard link to --in"; kept_h5 "$tmp/R.h5" "$tmp/R.saved.h5" "convert through a hard link"
  # Matrix Market in and out
  run 1 convert --in "$tmp/R.h5:/A" --out "$tmp/R.mtx"; expect_rc 0 "convert to .mtx"
  cp "$tmp/R.mtx" "$tmp/R.saved.mtx"
  run "$np" spgemm --a "$tmp/R.mtx" --out "$tmp/R.mtx"
  expect_rc 2 "spgemm --out = --a (.mtx)"; cmp -s "$tmp/R.mtx" "$tmp/R.saved.mtx" || fail "R.mtx changed"
  run 1 convert --in "$tmp/R.mtx" --out "$tmp/./R.mtx"  # refused (2), or as an existing file (1)
  [ "$rc" = 1 ] || expect_rc 2 "convert --out = --in (.mtx)"
  cmp -s "$tmp/R.mtx" "$tmp/R.saved.mtx" || fail "R.mtx changed"
  # another file is fine
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$tmp/C.h5:/C"; expect_rc 0 "spgemm --out another file"
  ;;
identity)  # an input reached through HDF5 links is never an output: objects compared by identity
  mkinputs
  "$py" -c "
import h5py
with h5py.File('$tmp/I.h5', 'w') as f:
  with h5py.File('$tmp/R.h5', 'r') as r: r.copy('A', f); f['X'] = h5py.File('$tmp/X.h5', 'r')['X'][...]
  f['alias'] = h5py.SoftLink('/A')        # a soft link
  f['hard'] = f['A']                      # a second hard link to the same group
  f.create_group('g')['M'] = f['A']       # the matrix inside a group ...
  f['gl'] = h5py.SoftLink('/g')           # ... reached through a linked parent
  f['Xl'] = h5py.SoftLink('/X')
with h5py.File('$tmp/E.h5', 'w') as f:
  f['A'] = h5py.ExternalLink('$tmp/I.h5', '/A')   # the same matrix from another file
  f['ext'] = h5py.ExternalLink('$tmp/I.h5', '/g')" || fail "cannot write I.h5"
  cp "$tmp/I.h5" "$tmp/I.saved.h5"; cp "$tmp/E.h5" "$tmp/E.saved.h5"
  for args in "spdm --a $tmp/I.h5:/alias --ncols 2 --out $tmp/I.h5:/A" \
              "spdm --a $tmp/E.h5:/A --ncols 2 --out $tmp/I.h5:/A" \
              "spgemm --a $tmp/I.h5:/hard --out $tmp/I.h5:/A" \
              "spdm --a $tmp/I.h5:/gl/M --ncols 2 --out $tmp/I.h5:/g" \
              "spdm --a $tmp/I.h5:/A --ncols 2 --out $tmp/I.h5:/alias/Y" \
              "spdm --a $tmp/R.h5:/A --b $tmp/I.h5:/Xl --out $tmp/I.h5:/X" \
              "convert --in $tmp/E.h5:/A --out $tmp/I.h5:/hard"; do
    [ "${args%% *}" = convert ] && n=1 || n="$np"
    run "$n" $args --overwrite; expect_rc 2 "$args"; expect_err "would overwrite the input" "$args"
  done
  same_h5 "$tmp/I.h5" "$tmp/I.saved.h5" "an input reached through a link"
  cmp -s "$tmp/E.h5" "$tmp/E.saved.h5" || fail "E.h5 changed"
  # an output through an external link would change the other file in place: refused
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2 --out "$tmp/E.h5:/ext/Y"
  [ "$rc" != 0 ] || fail "--out through an external link: exit 0"
  expect_err "external link to another file" "--out through an external link"
  same_h5 "$tmp/I.h5" "$tmp/I.saved.h5" "--out through an external link"
  # other objects of the same file are fine, whatever links the file has
  run "$np" spdm --a "$tmp/I.h5:/alias" --ncols 2 --out "$tmp/I.h5:/Y"; expect_rc 0 "another object"
  kept_h5 "$tmp/I.h5" "$tmp/I.saved.h5" "another object of the input's file"
  ;;
early)  # what the writer would refuse is refused before the work starts (each job below would
        # run for minutes: the 50 s limit of run turns a late refusal into a failure)
  mkinputs
  long="spdm --stencil 7 --grid 40 --ncols 64 --repeat 1000000"
  mkdir "$tmp/D.h5" "$tmp/ro"
  ro=""
  if [ "$(id -u)" = 0 ] && mount -t tmpfs -o ro,size=1m tmpfs "$tmp/ro" 2>/dev/null; then
    ro=mounted; trap 'umount "$tmp/ro" 2>/dev/null; rm -rf "$tmp"' EXIT
  elif [ "$(id -u)" != 0 ]; then
    chmod 555 "$tmp/ro"; ro=chmod
  fi
  printf 'earlier\n' >"$tmp/old.mtx"
  for t in "$tmp/R.h5:/A|exists" "$tmp/none/Y.h5|directory \"$tmp/none\" does not exist" \
           "$tmp/D.h5|it is a directory" "$tmp/Y.h5:/a/../Y|\"..\" is not an object name" \
           "$tmp/old.mtx|exists" "$tmp/ro/Y.h5|${ro:+read-only file system}"; do
    out=${t%%|*} why=${t#*|}
    [ -z "$why" ] && continue # not root and no mount: no read-only file system to try
    [ "$ro" = chmod ] && [ "${out#"$tmp/ro"}" != "$out" ] && why="no permission"
    start=$(date +%s)
    run "$np" $long --out "$out"
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "--out $out: exit $rc (not refused before the work)"
    expect_err "$why" "--out $out"
    [ ! -s "$tmp/out" ] || fail "--out $out: the job ran: $(head -c 300 "$tmp/out")"
    [ $(($(date +%s) - start)) -lt 20 ] || fail "--out $out: refused only after $(($(date +%s) - start)) s"
  done
  run "$np" solve --a "$tmp/L.h5:/A" --b "$tmp/L.h5:/B" --out "$tmp/L.h5:/A"; expect_rc 2 "solve --out its input"
  run "$np" solve --stencil 7 --grid 12 --k 2 --out "$tmp/R.h5:/A"
  [ "$rc" != 0 ] || fail "solve --out an existing object: exit 0"; expect_err "exists" "solve"; [ ! -s "$tmp/out" ] || fail "solve ran before refusing its --out"
  run "$np" gen --rows 10 --cols 10 --out "$tmp/R.h5:/A"; expect_rc 1 "gen --out an existing object"
  expect_err "exists" "gen"
  [ "$(cat "$tmp/old.mtx")" = earlier ] || fail "old.mtx changed"
  same_h5 "$tmp/R.h5" "$tmp/R.saved.h5" "refused outputs"
  ;;
outfmt)  # --out writes the format its name says: Matrix Market for .mtx/.mtx.gz, HDF5 for .h5
  mkinputs
  run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/X.h5:/X" --out "$tmp/Y.mtx" --dtype float64
  expect_rc 0 "spdm --out Y.mtx"
  run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/X.h5:/X" --out "$tmp/Y.mtx.gz" --dtype float64
  expect_rc 0 "spdm --out Y.mtx.gz"
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$tmp/C.mtx"; expect_rc 0 "spgemm --out C.mtx"
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$tmp/C.mtx.gz"; expect_rc 0 "spgemm --out C.mtx.gz"
  run "$np" solve --a "$tmp/L.h5:/A" --b "$tmp/L.h5:/B" --out "$tmp/Xs.mtx" --tol 1e-12; expect_rc 0 "solve --out X.mtx"
  run "$np" gen --rows 40 --cols 30 --sparsity 0.9 --out "$tmp/G.mtx"; expect_rc 0 "gen --out G.mtx"
  "$py" -c "
import h5py, numpy as np, scipy.io as sio, scipy.sparse as sp
f = h5py.File('$tmp/R.h5', 'r')['A']
A = sp.csr_matrix((f['data'][...], f['indices'][...], f['indptr'][...]), shape=tuple(f.attrs['shape']))
X = h5py.File('$tmp/X.h5', 'r')['X'][...]
assert open('$tmp/Y.mtx').readline().startswith('%%MatrixMarket matrix array')
for name in ('Y.mtx', 'Y.mtx.gz'):
  Y = sio.mmread('$tmp/' + name); R = A @ X
  assert Y.shape == R.shape and np.abs(Y - R).max() <= 1e-12 * np.abs(R).max(), name
for name in ('C.mtx', 'C.mtx.gz'):
  C = sio.mmread('$tmp/' + name).tocsr(); R = A @ A
  assert C.shape == R.shape and abs(C - R).max() <= 1e-12 * abs(R).max(), name
L = h5py.File('$tmp/L.h5', 'r'); g = L['A']
La = sp.csr_matrix((g['data'][...], g['indices'][...], g['indptr'][...]), shape=tuple(g.attrs['shape']))
Xs = sio.mmread('$tmp/Xs.mtx'); B = L['B'][...]
assert Xs.shape == B.shape and np.abs(La @ Xs - B).max() <= 1e-9 * np.abs(B).max()
G = sio.mmread('$tmp/G.mtx'); assert G.shape == (40, 30), G.shape
" || fail "a Matrix Market output is not what was asked"
  # the suffix in capitals: the same formats (gzip too), and an existing file is still refused
  run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/X.h5:/X" --out "$tmp/YU.MTX.GZ" --dtype float64
  expect_rc 0 "spdm --out YU.MTX.GZ"
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$tmp/CU.Mtx.Gz"; expect_rc 0 "spgemm --out CU.Mtx.Gz"
  "$py" -c "
import gzip
for a, b in (('YU.MTX.GZ', 'Y.mtx.gz'), ('CU.Mtx.Gz', 'C.mtx.gz')):
  assert open('$tmp/' + a, 'rb').read(2) == b'\x1f\x8b', a + ' is not gzip'
  x, y = gzip.open('$tmp/' + a).read().split(b'\n'), gzip.open('$tmp/' + b).read().split(b'\n')
  assert x[0] == y[0] and x[2:] == y[2:], a" || fail "an output named .GZ is not gzip-compressed"
  cp "$tmp/YU.MTX.GZ" "$tmp/YU.saved"
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2 --out "$tmp/YU.MTX.GZ"
  [ "$rc" != 0 ] || fail "an existing YU.MTX.GZ without --overwrite: exit 0"; expect_err "exists" "YU.MTX.GZ exists"
  cmp -s "$tmp/YU.MTX.GZ" "$tmp/YU.saved" || fail "an existing YU.MTX.GZ was replaced without --overwrite"
  # other suffixes: refused before any work, with the formats there are
  for args in "spdm --a $tmp/R.h5:/A --ncols 2 --out $tmp/Y.txt" "spgemm --a $tmp/R.h5:/A --out $tmp/C.csv" \
              "solve --a $tmp/L.h5:/A --k 1 --out $tmp/X.npy" "gen --rows 4 --cols 4 --out $tmp/G.dat"; do
    run "$np" $args; expect_rc 2 "$args"; expect_err ".mtx" "$args lists the formats"; expect_err ".h5" "$args"
    ! ls "$tmp"/*.txt "$tmp"/*.csv "$tmp"/*.npy "$tmp"/*.dat >/dev/null 2>&1 || fail "$args wrote a file"
  done
  ;;
links)  # an output through symbolic links lands where they lead (the links stay), and output
        # names up to the file system's limit (255 bytes) are written
  mkinputs
  mkdir "$tmp/real" "$tmp/sub"
  ln -s real/y.h5 "$tmp/y.h5"; ln -s real/c.mtx "$tmp/c.mtx"; ln -s ../c.mtx "$tmp/sub/c.mtx"
  ln -s real/z.mtx.gz "$tmp/z.mtx.gz"
  run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/X.h5:/X" --out "$tmp/y.h5:/Y"; expect_rc 0 "new HDF5 file through a link"
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$tmp/y.h5:/C"; expect_rc 0 "update through a link"
  run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/X.h5:/X" --out "$tmp/sub/c.mtx"; expect_rc 0 ".mtx through two links"
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2 --out "$tmp/sub/c.mtx" --overwrite; expect_rc 0 ".mtx --overwrite through links"
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$tmp/z.mtx.gz"; expect_rc 0 ".mtx.gz through a link"
  for l in y.h5 c.mtx sub/c.mtx z.mtx.gz; do [ -L "$tmp/$l" ] || fail "$l is no longer a symbolic link"; done
  [ "$(h5objs "$tmp/real/y.h5")" = "C C/data C/indices C/indptr Y" ] || fail "real/y.h5 holds $(h5objs "$tmp/real/y.h5")"
  head -c 40 "$tmp/real/c.mtx" | grep -q "^%%MatrixMarket matrix array" || fail "real/c.mtx is not the result"
  [ "$(sed -n 3p "$tmp/real/c.mtx")" = "60 2" ] || fail "real/c.mtx is not the --overwrite result"
  [ "$(od -An -tx1 -N2 "$tmp/real/z.mtx.gz")" = " 1f 8b" ] || fail "real/z.mtx.gz is not gzip"
  ls "$tmp"/real/*.tmp.* "$tmp"/*.tmp.* >/dev/null 2>&1 && fail "temporary file left"
  # names of 250-255 bytes: the temporary name must still fit the directory's limit
  long=$(printf 'n%.0s' $(seq 250))
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2 --out "$tmp/$long.h5:/Y"; expect_rc 0 "a 253-byte HDF5 name"
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$tmp/${long}a.mtx"; expect_rc 0 "a 255-byte Matrix Market name"
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2 --out "$tmp/$long.h5:/Z"; expect_rc 0 "an update of a 253-byte name"
  [ "$(h5objs "$tmp/$long.h5")" = "Y Z" ] || fail "the 253-byte file holds $(h5objs "$tmp/$long.h5")"
  [ -s "$tmp/${long}a.mtx" ] || fail "the 255-byte .mtx was not written"
  ;;
nonfinite)  # products that overflow to inf: no writer publishes them (HDF5 and Matrix Market
            # alike), and nothing is published after a failed --check
  "$py" -c "
import h5py, numpy as np, scipy.sparse as sp
A = (sp.random(50, 50, density=0.2, format='csr', random_state=1) + sp.eye(50)).tocsr().astype(np.float32)
A.sort_indices(); A.data[:] = 3e38
with h5py.File('$tmp/big.h5', 'w') as f:
  g = f.create_group('A'); g.attrs['encoding-type'] = 'csr_matrix'; g.attrs['encoding-version'] = '0.1.0'
  g.attrs['shape'] = np.array(A.shape, dtype=np.int64)
  g['data'] = A.data; g['indices'] = A.indices.astype(np.int32); g['indptr'] = A.indptr.astype(np.int64)
  f['X'] = np.full((50, 3), 10, dtype=np.float32)" || fail "cannot write big.h5"
  printf 'earlier\n' >"$tmp/old.mtx"
  # spdm and spgemm, each writer (an existing file replaced with --overwrite too), with and
  # without --check (each refused run costs Open MPI ~2 s: one of each kind)
  for t in "spdm Y.mtx" "spdm Y.h5:/Y --check" "spdm old.mtx --overwrite" "spgemm CY.mtx.gz" \
           "spgemm CY.mtx --check"; do
    set -- $t
    if [ "$1" = spdm ]; then run "$np" spdm --a "$tmp/big.h5:/A" --b "$tmp/big.h5:/X" --out "$tmp/$2" ${3:-}
    else run "$np" spgemm --a "$tmp/big.h5:/A" --out "$tmp/$2" ${3:-}; fi
    expect_rc 1 "$t"
    if [ "${3:-}" = --check ]; then expect_err "the check failed: .*$2 was not written" "$t"
    else expect_err "is inf: refusing to write a non-finite value" "$t"; fi
  done
  ls "$tmp"/Y.* "$tmp"/CY.* "$tmp"/*.tmp.* >/dev/null 2>&1 && fail "an output was written: $(ls "$tmp")"
  [ "$(cat "$tmp/old.mtx")" = earlier ] || fail "old.mtx was replaced by a product holding inf"
  ;;
debugfile)  # GCOO_DEBUG_FILE never appends to an input (or any file that is not gcoo's log)
  mkinputs
  run 1 convert --in "$tmp/R.h5:/A" --out "$tmp/R.mtx"; expect_rc 0 "convert R"; cp "$tmp/R.mtx" "$tmp/R.saved.mtx"
  for f in R.h5 R.mtx; do
    a="$tmp/$f"; [ "$f" = R.h5 ] && a="$a:/A"
    GCOO_DEBUG=INFO GCOO_DEBUG_FILE="$tmp/$f" run "$np" spdm --a "$a" --ncols 2
    expect_rc 0 "GCOO_DEBUG_FILE names the input $f"
    expect_err "GCOO_DEBUG_FILE=.*$f: not used" "the log says why it did not use $f"
    expect_err "gcoo INFO" "the log went to stderr instead"
  done
  cmp -s "$tmp/R.h5" "$tmp/R.saved.h5" || fail "R.h5 got log lines"
  cmp -s "$tmp/R.mtx" "$tmp/R.saved.mtx" || fail "R.mtx got log lines"
  # a new file, then the same log again: appended
  GCOO_DEBUG=INFO GCOO_DEBUG_FILE="$tmp/log.txt" run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2; expect_rc 0 "a new log"
  n1=$(grep -c "gcoo INFO" "$tmp/log.txt")
  GCOO_DEBUG=INFO GCOO_DEBUG_FILE="$tmp/log.txt" run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2; expect_rc 0 "the log again"
  [ "$n1" -gt 0 ] && [ "$(grep -c "gcoo INFO" "$tmp/log.txt")" = $((2 * n1)) ] || fail "the log was not appended to"
  ;;
zerofill)  # storage HDF5 would fill with zeros is refused, never read as data: a virtual dataset
           # whose source is missing, an external raw file that is truncated, storage never (or
           # partly) written; and a filter HDF5 cannot load is named
  mkinputs
  "$py" -c "
import h5py, numpy as np
X = np.arange(180, dtype=np.float64).reshape(60, 3) + 1
lay = h5py.VirtualLayout(shape=(60, 3), dtype='f8')
lay[:] = h5py.VirtualSource('$tmp/gone.h5', 'X', shape=(60, 3))
with h5py.File('$tmp/vds.h5', 'w') as f: f.create_virtual_dataset('X', lay)
X.tofile('$tmp/raw.bin')
with h5py.File('$tmp/ext.h5', 'w') as f:
  f.create_dataset('X', shape=(60, 3), dtype='f8', external=[('$tmp/raw.bin', 0, X.nbytes)])
with h5py.File('$tmp/never.h5', 'w') as f: f.create_dataset('X', shape=(60, 3), dtype='f8')
with h5py.File('$tmp/part.h5', 'w') as f:
  f.create_dataset('X', shape=(60, 3), dtype='f8', chunks=(20, 3))[:20] = X[:20]
with h5py.File('$tmp/lzf.h5', 'w') as f: f.create_dataset('X', data=X, compression='lzf')
src = h5py.File('$tmp/R.h5', 'r')['A']
with h5py.File('$tmp/Rn.h5', 'w') as f:
  g = f.create_group('A')
  for k, v in src.attrs.items(): g.attrs[k] = v
  g['indptr'] = src['indptr'][...]; g['indices'] = src['indices'][...]
  g.create_dataset('data', shape=src['data'].shape, dtype='f8')" || fail "cannot write the inputs"
  truncate -s 100 "$tmp/raw.bin"
  for t in "vds virtual dataset" "ext external raw-data file" "never none of its storage" \
           "part only part of its storage" "lzf filter 32000 (\"lzf\")"; do
    f=${t%% *} why=${t#* }
    run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/$f.h5:/X" --check; expect_rc 1 "--b $f.h5"
    expect_err "$why" "--b $f.h5 names the cause"; no_err "PASS" "--b $f.h5"
    [ "$(count_err "$why")" = 1 ] || fail "--b $f.h5: the cause printed $(count_err "$why") times"
  done
  run "$np" spdm --a "$tmp/Rn.h5:/A" --ncols 2; expect_rc 1 "--a whose data was never written"
  expect_err "Rn.h5:/A/data holds .* none of its storage" "--a Rn.h5"
  ;;
dtype)  # spdm's element type follows the file unless told, and says so
  mkinputs
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2 --json; expect_rc 0 "spdm float64 file"
  json "assert d['dtype'] == 'float64' and 'R.h5' in d['dtype_source'], (d['dtype'], d.get('dtype_source'))"
  run "$np" spdm --a "$tmp/R32.h5:/A" --ncols 2 --json; expect_rc 0 "spdm float32 file"
  json "assert d['dtype'] == 'float32', d['dtype']"
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2 --dtype float32 --json; expect_rc 0 "spdm --dtype float32"
  json "assert d['dtype'] == 'float32' and d['dtype_source'] == 'from --dtype', d"
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2; expect_rc 0 "spdm summary"
  expect_out "float64 as stored in" "the summary names the dtype and why"
  run "$np" spgemm --a "$tmp/R32.h5:/A" --json; expect_rc 0 "spgemm float32 file"
  json "assert d['dtype'] == 'float32', d['dtype']"
  ;;
densemtx)  # --b takes a dense Matrix Market array (as convert writes it), same result as HDF5
  mkinputs
  run 1 convert --in "$tmp/X.h5:/X" --out "$tmp/X.mtx"; expect_rc 0 "convert X to .mtx"
  run 1 convert --in "$tmp/L.h5:/B" --out "$tmp/B.mtx.gz"; expect_rc 0 "convert B to .mtx.gz"
  for xm in partitioned replicated; do
    run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/X.h5:/X" --xmode $xm --json --check; expect_rc 0 "--b X.h5 $xm"
    cp "$tmp/out" "$tmp/h5.json"
    run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/X.mtx" --xmode $xm --json --check; expect_rc 0 "--b X.mtx $xm"
    json "
h = json.load(open('$tmp/h5.json'))
assert d['check']['pass'] and d['b']['rows'] == 60 and d['b']['cols'] == 3, d
assert abs(d['y_sum'] - h['y_sum']) <= 1e-12 * h['y_abs_sum'], (d['y_sum'], h['y_sum'])"
  done
  run "$np" solve --a "$tmp/L.h5:/A" --b "$tmp/B.mtx.gz" --json --tol 1e-10; expect_rc 0 "solve --b B.mtx.gz"
  json "assert d['k'] == 2 and d['converged'] and d['true_residual_max'] <= 1e-9, d"
  # the dense-sparse reading: C = B S with B (N x k) as numpy writes it; the check names B and S
  "$py" -c "
import h5py, numpy as np
with h5py.File('$tmp/B4.h5', 'w') as f: f['B'] = np.random.default_rng(1).standard_normal((4, 60))" || fail "B4"
  run 1 convert --in "$tmp/B4.h5:/B" --out "$tmp/B4.mtx"; expect_rc 0 "convert B4"
  run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/B4.mtx" --reading dense-sparse --check --out "$tmp/C.mtx"
  expect_rc 0 "dense-sparse with B.mtx"
  expect_out "check: .* sampled columns of C, .* of |B||S|" "the check line names C, B and S"
  "$py" -c "
import h5py, numpy as np, scipy.io as sio, scipy.sparse as sp
f = h5py.File('$tmp/R.h5', 'r')['A']
S = sp.csr_matrix((f['data'][...], f['indices'][...], f['indptr'][...]), shape=tuple(f.attrs['shape']))
B = h5py.File('$tmp/B4.h5', 'r')['B'][...]
C = sio.mmread('$tmp/C.mtx'); R = B @ S
assert C.shape == R.shape == (4, 60) and np.abs(C - R).max() <= 1e-5 * np.abs(R).max(), (C.shape, np.abs(C - R).max())
" || fail "dense-sparse --out C.mtx is not C = B S"
  "$gd" spdm --help >"$tmp/out"; expect_out "row-major" "--help says the layout of --b and the output"
  ;;
spgemmcheck)  # spgemm --check: sampled rows against the CPU reference
  mkinputs
  run "$np" spgemm --a "$tmp/R.h5:/A" --check --json; expect_rc 0 "spgemm --check"
  json "c = d['check']; assert c['pass'] and c['rows'] == 60 and c['max_rel_err'] <= c['tolerance'], c"
  run 1 convert --in "$tmp/R.h5:/A" --out "$tmp/R.mtx"; expect_rc 0 "convert R"
  run "$np" spgemm --a "$tmp/R.mtx" --b "$tmp/R32.h5:/A" --check --dtype float32; expect_rc 0 "spgemm --check .mtx"
  expect_out "check: 60 sampled rows of C .*PASS" "spgemm check line"
  ;;
progress)  # progress when started from a terminal (also under mpirun), quiet in batch, overrides
  mkinputs
  unset GCOO_PROGRESS
  term() { script -qec "$*" /dev/null >"$tmp/term" 2>&1; }
  # from a terminal: mpirun's stderr is the terminal, rank 0's is a pipe to mpirun
  term "'$mpiexec' -np $np --oversubscribe '$gd' spdm --a '$tmp/R.h5:/A' --ncols 2 --repeat 2 >'$tmp/out'"
  grep -q "gcoo_dist: read .*R.h5:/A.*MB/s" "$tmp/term" || { cat "$tmp/term"; fail "no read rate on a terminal"; }
  term "'$mpiexec' -np $np --oversubscribe '$gd' solve --a '$tmp/L.h5:/A' --k 2 --out '$tmp/Xp.h5' >'$tmp/out'"
  grep -q "gcoo_dist: iteration 1: max relative residual" "$tmp/term" || { cat "$tmp/term"; fail "no iteration progress"; }
  grep -q "gcoo_dist: wrote .*Xp.h5.*MB/s" "$tmp/term" || { cat "$tmp/term"; fail "no write rate"; }
  # the same from a terminal but a batch job (sbatch sets ENVIRONMENT=BATCH), or GCOO_PROGRESS=0
  term "ENVIRONMENT=BATCH '$mpiexec' -np $np --oversubscribe '$gd' spdm --a '$tmp/R.h5:/A' --ncols 2 >'$tmp/out'"
  ! grep -q "gcoo_dist: " "$tmp/term" || { cat "$tmp/term"; fail "progress in a batch job"; }
  term "GCOO_PROGRESS=0 '$mpiexec' -np $np --oversubscribe '$gd' spdm --a '$tmp/R.h5:/A' --ncols 2 >'$tmp/out'"
  ! grep -q "gcoo_dist: " "$tmp/term" || { cat "$tmp/term"; fail "progress with GCOO_PROGRESS=0"; }
  # not from a terminal: quiet, unless GCOO_PROGRESS=1
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2; expect_rc 0 "spdm to files"
  [ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "progress written to a log"; }
  export GCOO_PROGRESS=1
  run "$np" spdm --a "$tmp/R.h5:/A" --ncols 2; expect_rc 0 "GCOO_PROGRESS=1"
  expect_err "gcoo_dist: read .*R.h5" "GCOO_PROGRESS=1 forces progress"
  ;;
messages)  # messages that say what to do
  mkinputs
  run "$np" spdm --a "$tmp/R.h5:/A" --b "$tmp/X.h5"; expect_rc 1 "--b X.h5 without its dataset"
  expect_err "X.h5:/X" "--b X.h5 suggests the dataset"; no_err "sparse matrix group" "--b X.h5"
  run "$np" spdm --a "$tmp/cells.h5ad" --ncols 2; expect_rc 1 ".h5ad without :/X"
  expect_err "cells.h5ad:/X" ".h5ad names the object to use"; expect_err "layers" ".h5ad lists what the file holds"
  run "$np" solve --a "$tmp/cells.h5ad:/X"; expect_rc 1 "solve on a 30 x 20 matrix"
  expect_err "30 x 20" "solve names the shape"; expect_err "square" "solve says why"; no_err "GCOO_DIST_X" "no API constant"
  run "$np" solve --a "$tmp/L.h5:/A" --b "$tmp/X.h5:/X"; expect_rc 1 "solve with B of other rows"
  expect_err "B must be" "solve says what B must be"
  # Matrix Market broken by an editor: CR-only line ends, a UTF-8 byte-order mark
  printf '%%%%MatrixMarket matrix coordinate real general\r3 3 1\r1 1 2.0\r' >"$tmp/cr.mtx"
  printf '\357\273\277%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 2.0\n' >"$tmp/bom.mtx"
  run "$np" spdm --a "$tmp/cr.mtx" --ncols 2; expect_rc 1 "CR-only line ends"
  expect_err "lines end in CR alone" "CR-only line ends named"
  run "$np" spdm --a "$tmp/bom.mtx" --ncols 2; expect_rc 1 "a byte-order mark"
  expect_err "UTF-8 byte-order mark" "a byte-order mark named"
  # paths of ~4 kB: the message keeps its reason (the middle of a long line gives way)
  deep="$tmp"; for i in $(seq 19); do deep="$deep/$(printf 'd%.0s' $(seq 200))"; done; mkdir -p "$deep"
  run "$np" spdm --a "$deep/missing.h5:/A" --ncols 2; expect_rc 1 "a missing input under a 4 kB path"
  expect_err "missing.h5\": No such file or directory" "a 4 kB input path"
  run "$np" spgemm --a "$tmp/R.h5:/A" --out "$deep/none/C.h5"; [ "$rc" != 0 ] || fail "--out in a missing directory"
  expect_err "/none\" does not exist" "a 4 kB output path"
  for sub in spdm spgemm solve gen convert info predict; do
    for v in --version -V; do
      timeout 20 "$gd" $sub $v >"$tmp/out" 2>"$tmp/err"; rc=$?
      expect_rc 0 "$sub $v"; expect_out "^gcoo_dist [0-9]" "$sub $v prints the version"
    done
  done
  ;;
once)  # a failure every rank meets is printed once, by one rank; no MPI_Abort banner
  mkinputs
  run "$np" spdm --a "$tmp/X.h5:/X" --ncols 2; expect_rc 1 "a dense --a"
  [ "$(count_err 'not a sparse matrix group')" = 1 ] || { cat "$tmp/err"; fail "message printed $(count_err 'not a sparse matrix group') times"; }
  run "$np" spdm --stencil 7 --grid 4 --out "$tmp/no/such/dir/Y.h5"; expect_rc 2 "--out in a missing directory"
  [ "$(count_err 'does not exist')" = 1 ] || { cat "$tmp/err"; fail "message printed $(count_err 'does not exist') times"; }
  run "$np" gen --rows 10 --cols 10 --out "$tmp/no/such/dir/G.h5"; expect_rc 1 "gen into a missing directory"
  [ "$(count_err 'does not exist')" = 1 ] || { cat "$tmp/err"; fail "gen: message printed $(count_err 'does not exist') times"; }
  no_err "stopped by" "a rank ending after the refusal is not reported as stopped"
  no_err "MPI_ABORT" "no MPI_Abort"
  ;;
readme)  # the README's command block runs as written (from a tree like the source tree's top)
  top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  mkdir -p "$tmp/build"; ln -s "$(dirname "$gd")" "$tmp/build/cli"; ln -s "$top/tests" "$tmp/tests"
  sed -n '/<!-- readme-commands/,/^```$/p' "$top/README.md" | sed '1,2d;$d' >"$tmp/readme.sh"
  [ "$(grep -c gcoo_dist "$tmp/readme.sh")" -ge 10 ] || fail "no README command block found"
  (cd "$tmp" && timeout 280 bash -e -x readme.sh >"$tmp/out" 2>"$tmp/err"); rc=$?
  expect_rc 0 "the README's commands"
  [ "$(grep -c "PASS\|\"pass\":true" "$tmp/out")" -ge 4 ] || { cat "$tmp/out"; fail "README: fewer than 4 checks passed"; }
  for f in A.h5 X.h5 Y.mtx C.h5 Xs.h5 B.h5; do [ -s "$tmp/$f" ] || fail "README: $f not written"; done
  ;;
*) fail "unknown case" ;;
esac
echo "cli $case_name np=$np: passed"
