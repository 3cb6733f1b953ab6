#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/check_format.sh: are the C, C++ and CUDA files formatted as .clang-format says?
#   scripts/check_format.sh [--fix] [FILE...]
# Without FILEs: every tracked *.c *.h *.cu *.cuh *.cpp *.hpp except tests/data/ and the fuzz
# corpora. Prints each file that would change and the first lines of its diff, and exits 1 if
# any would; --fix rewrites them in place instead (exit 0). Uses clang-format 14 (Debian 12's;
# another version may format differently: set CLANG_FORMAT=/path/to/clang-format-14).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$top"
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
case "${1:-}" in -h|--help) sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cf="${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}"
[ -n "$cf" ] || { echo "check_format: clang-format not found (apt-get install clang-format)" >&2; exit 2; }
version="$("$cf" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')"
[ "$version" = 14 ] || echo "check_format: note: $cf is version $version, the style is set for 14" >&2

if [ "$#" -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cpp' '*.hpp' |
                       grep -v -e '^tests/data/' -e '^tests/fuzz/corpus/' -e '^tests/fuzz/regressions/')
fi

if [ "$fix" = 1 ]; then
  "$cf" -i --style=file "${files[@]}"
  echo "check_format: formatted ${#files[@]} files"
  exit 0
fi

bad=0
for f in "${files[@]}"; do
  if ! out="$("$cf" --style=file "$f" | diff -u "$f" - --label "$f" --label "$f (formatted)")"; then
    bad=$((bad + 1))
    echo "$f: not formatted"
    printf '%s\n' "$out" | sed -n '3,14p' | sed 's/^/    /'
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "check_format: $bad of ${#files[@]} files not formatted; run scripts/check_format.sh --fix" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
