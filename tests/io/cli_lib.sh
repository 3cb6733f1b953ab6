# SPDX-License-Identifier: MIT
# tests/io/cli_lib.sh: what the gcoo_dist file-command tests share (sourced).
#   arguments of the test: GCOO_DIST MPIEXEC PYTHON SCRIPT
set -u
G=$1 MPIEXEC=$2 PY=$3 SCRIPT=$4
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# gcoo_dist run without mpiexec is an MPI singleton: do not start a runtime daemon for it
export OMPI_MCA_ess_singleton_isolated=1
[ -x "$PY" ] || { echo "no $PY: skipped"; exit 77; }
fail=0
note() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

# expect RC NEEDLE COMMAND...: the command exits with RC and prints NEEDLE (stdout or stderr)
expect() {
  local rc=$1 needle=$2 out got
  shift 2
  out=$("$@" 2>&1)
  got=$?
  if [ "$got" -ne "$rc" ]; then
    note "'$*' exited $got, expected $rc; it printed: $out"
  elif [ -n "$needle" ] && ! grep -qF -- "$needle" <<<"$out"; then
    note "'$*' does not print '$needle'; it printed: $out"
  fi
}

# check_json FILE EXPR: a Python expression over j (the parsed object) must hold
check_json() {
  "$PY" - "$1" "$2" <<'PYEOF' || note "JSON check failed: $2"
import json, sys
j = json.load(open(sys.argv[1]))
if not eval(sys.argv[2]):
    print("JSON:", json.dumps(j), file=sys.stderr)
    sys.exit(1)
PYEOF
}

# a scratch directory with the Python side's files
start() {
  D=$(mktemp -d "$PWD/$1.XXXXXX")
  "$PY" "$SCRIPT" write "$D"
  local rc=$?
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "FAIL: the Python writer failed ($rc)"; exit 1; }
  cd "$D" || exit 1
  : > manifest.txt
}

finish() {
  if [ -s manifest.txt ]; then
    "$PY" "$SCRIPT" verify "$D" || note "h5py/scipy disagree with files gcoo_dist wrote"
  fi
  cd .. || exit 1
  if [ $fail -eq 0 ]; then
    rm -rf "$D"
    echo "$1: all checks passed"
    exit 0
  fi
  echo "$1: $fail check(s) FAILED (files kept in $D)"
  exit 1
}
