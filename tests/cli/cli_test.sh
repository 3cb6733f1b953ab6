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

fail() { echo "FAIL [$case_name np=$np]: $*" >&2; exit 1; }
# run N ARGS...: gcoo_dist on N ranks; stdout in $tmp/out, stderr in $tmp/err, status in $rc
run() {
  local n="$1"; shift
  timeout 50 "$mpiexec" -np "$n" --oversubscribe "$gd" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
expect_rc() { [ "$rc" = "$1" ] || { cat "$tmp/out" "$tmp/err" >&2; fail "exit status $rc, expected $1 ($2)"; }; }
expect_err() { grep -q -- "$1" "$tmp/err" || { cat "$tmp/err" >&2; fail "stderr lacks \"$1\" ($2)"; }; }
json() { "$py" -c "import json,sys; d=json.load(open('$tmp/out')); $1" || { cat "$tmp/out" "$tmp/err" >&2; fail "JSON check: $1"; }; }

case "$case_name" in
default)  # the README's first command: no arguments, any rank count, PASS and exit 0
  run "$np"
  expect_rc 0 "default job"
  grep -q "check: 64 sampled rows.*PASS" "$tmp/out" || fail "no PASS line: $(cat "$tmp/out")"
  grep -q "on $np rank" "$tmp/out" || fail "rank count not reported"
  grep -q "nnz 760320" "$tmp/out" || fail "nnz of the 48^3 7-point matrix not reported"
  ;;
json)  # one JSON object with shapes, nnz, ranks, backend, devices, algorithm, p, times, check
  for reading in sparse-dense dense-sparse; do
    run "$np" spdm --stencil 27 --grid 12 --ncols 8 --check --json --reading "$reading" --gather root
    expect_rc 0 "spdm --json --reading $reading"
    json "
assert d['command']=='spdm' and d['ranks']==$np and d['reading']=='$reading', d
assert d['a']['nnz']==34**3 and d['a']['rows']==12**3==d['a']['cols'], d['a']
assert d['backend']=='cpu' and len(d['devices'])==$np and d['algorithm']=='gcoo' and d['p']>0
for k in ('read','setup','kernel','gather','write','total'): assert d['time_s'][k]>=0, k
assert d['check']['pass'] and d['check']['rows']==64 and d['check']['max_rel_err']<=d['check']['tolerance']
assert d['imbalance']>=1.0 and d['xmode']=='partitioned'
assert ($np==1) == (d['halo']['rows_sent_total']==0), d['halo']"
  done
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
    json "g=json.load(open('$tmp/gen.json')); assert d['a']['nnz']==g['nnz'] and d['check']['pass'], d"
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
*) fail "unknown case" ;;
esac
echo "cli $case_name np=$np: passed"
