# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# bench/results_header.sh: sourced by the CPU benchmark scripts; results_header TITLE COMMAND prints the
# lines a file under bench/results/ starts with: what it measured, when, on which machine, from
# which commit, with which command (COMMAND, as the caller was run).
results_header() {
  local top
  top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  echo "# $1, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# machine: $(uname -n), $(getconf _NPROCESSORS_ONLN) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# commit: $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- . ':!bench/results' || echo ' (with uncommitted changes)')"
  echo "# command: $2"
}
