# SPDX-License-Identifier: MIT
# .ci/stage_lib.sh: helpers the stages in .ci/stages/ share (sourced, not run: .ci/run runs only
# .ci/stages/*.sh). Messages name the stage from the script's file name.
gcoo_stage="$(basename "$0" .sh)"

# fail <message>: say the stage failed and why, and stop.
fail() { echo "$gcoo_stage: FAILED: $*" >&2; exit 1; }

# run_expect <pattern> <command...>: run, show the output, require exit 0 and <pattern> in it.
run_expect() {
  local pattern="$1" out rc=0
  shift
  out="$("$@" 2>&1)" || rc=$?
  printf '%s\n' "$out" | sed 's/^/    /'
  [ "$rc" -eq 0 ] || fail "exit status $rc from: $*"
  grep -qE "$pattern" <<<"$out" || fail "no line matching '$pattern' from: $*"
}
