#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/faults/run_edges.sh SCENARIO: the last edge cases of issue 18, through `gcoo_dist`
# (CPU backend). Scenarios:
#   solve-empty   block CG on ranks without rows: a 2 x 2 matrix at 2 ranks (--k 2), a 40-row
#                 tridiagonal at 3 ranks, a 100-row one at 4 (the row groups are fewer than the
#                 ranks): each converges, its true residual is small and X equals the 1-rank X
#   spgemm-huge   a 10^7 x 1 column times a 1 x 10^7 row (10^14 products): refused before any
#                 computing, the predicted size in the message, within 60 s, no output left
# Environment: GCOO_DIST, MPIEXEC and the Open MPI root/oversubscribe variables.
set -u
scenario="$1"
: "${GCOO_DIST:?GCOO_DIST must name gcoo_dist}"
MPIEXEC="${MPIEXEC:-mpirun}"
export OMP_NUM_THREADS=1
work="$(mktemp -d "${TMPDIR:-/tmp}/gcoo-edges-XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() {
  echo "FAIL $scenario: $*"
  failures=$((failures + 1))
}
tridiagonal() { # n file: SPD tridiagonal (2.5 on the diagonal, -1 beside it)
  awk -v n="$1" 'BEGIN { print "%%MatrixMarket matrix coordinate real symmetric"; print n, n, 2 * n - 1;
    for (i = 1; i <= n; i++) { print i, i, 2.5; if (i < n) print i + 1, i, -1 } }' >"$2"
}
# values of a Matrix Market array file, one a line
values() { awk 'NR > 1 && !/^%/ { if (seen) print; seen = 1 }' "$1"; }

case "$scenario" in
solve-empty)
  printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 4\n2 1 1\n2 2 3\n' >two.mtx
  tridiagonal 40 t40.mtx
  tridiagonal 100 t100.mtx
  for case_ in "two.mtx 2" "t40.mtx 3" "t100.mtx 4"; do
    set -- $case_
    m=$1 np=$2
    for r in 1 "$np"; do
      "$MPIEXEC" -np "$r" "$GCOO_DIST" solve --a "$m" --k 2 --backend cpu --json \
        --out "x$r.h5:/X" --overwrite >o$r.json 2>e$r.txt ||
        fail "$m at $r ranks: exit $?: $(head -c 400 e$r.txt)"
      grep -q '"converged":true' o$r.json || fail "$m at $r ranks did not converge: $(head -c 300 o$r.json)"
      res=$(sed -n 's/.*"true_residual_max":\([^,]*\),.*/\1/p' o$r.json)
      awk -v r="${res:-1}" 'BEGIN { exit !(r < 1e-6) }' ||
        fail "$m at $r ranks: true residual ${res:-missing}"
      "$GCOO_DIST" convert --in "x$r.h5:/X" --out "x$r.mtx" --overwrite >/dev/null 2>&1 ||
        fail "$m at $r ranks: X not readable"
    done
    values x1.mtx >v1.txt
    values "x$np.mtx" >vn.txt
    [ -s v1.txt ] || fail "$m: no values"
    paste v1.txt vn.txt | awk '{ d = $1 - $2; if (d < 0) d = -d; a = $1 < 0 ? -$1 : $1;
      if (d > 1e-10 * (a + 1e-300) + 1e-14) bad++ } END { exit bad > 0 }' ||
      fail "$m: X at $np ranks differs from X at 1 rank"
    echo "$m at $np ranks: converged, residual $(sed -n 's/.*"true_residual_max":\([^,]*\),.*/\1/p' o$np.json), X as at 1 rank"
  done
  ;;
spgemm-huge)
  # A = 10^7 x 1 and B = 1 x 10^7, every entry nonzero (gen, sparsity 0)
  "$GCOO_DIST" gen --rows 10000000 --cols 1 --sparsity 0 --out col.h5:/A >/dev/null 2>&1 ||
    fail "cannot make the column"
  "$GCOO_DIST" gen --rows 1 --cols 10000000 --sparsity 0 --out row.h5:/B >/dev/null 2>&1 ||
    fail "cannot make the row"
  for np in 1 2; do
    start=$(date +%s)
    timeout 120 "$MPIEXEC" -np $np "$GCOO_DIST" spgemm --a col.h5:/A --b row.h5:/B --backend cpu \
      --out c.h5 >o.txt 2>e.txt
    rc=$?
    took=$(($(date +%s) - start))
    echo "np $np: rc $rc in ${took}s: $(grep -m1 -i predict e.txt | cut -c1-300)"
    [ "$rc" != 0 ] || fail "np $np: an impossible product exited 0"
    [ "$rc" != 124 ] || fail "np $np: still computing after 120 s"
    grep -q "1e+14\|100000000000000" e.txt || fail "np $np: the message lacks the predicted size: $(head -c 500 e.txt)"
    [ "$took" -le 60 ] || fail "np $np: took ${took}s to refuse"
    [ ! -e c.h5 ] && [ -z "$(ls c.h5.tmp.* 2>/dev/null)" ] || fail "np $np: output left"
  done
  ;;
*)
  echo "unknown scenario $scenario"
  exit 2
  ;;
esac
[ $failures = 0 ] && echo "PASS $scenario"
[ $failures = 0 ]
