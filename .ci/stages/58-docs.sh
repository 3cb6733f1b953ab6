#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# .ci/stages/58-docs.sh: generate the API reference from include/gcoo/*.h with Doxygen (Doxyfile)
# and check the documentation's links. Fails on doxygen errors (a non-zero exit, or an "error:"
# line) and on a relative link in docs/*.md, jobs/README.md or examples/README.md that points to
# no file; warnings (undocumented members among them) are counted and shown, not fatal.
# Needs doxygen (.ci/packages/cluster.txt).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$top"
command -v doxygen >/dev/null || { echo "58-docs: FAILED: doxygen is not installed (.ci/packages/cluster.txt)" >&2; exit 1; }
out="$(mktemp -d "${TMPDIR:-/tmp}/gcoo-docs.XXXXXX")"
trap 'rm -rf "$out"' EXIT
version="$(sed -n 's/^project(gcoo VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
log="$out/warnings.log"

rc=0
(cat Doxyfile; echo "OUTPUT_DIRECTORY = $out") |
  GCOO_VERSION="$version" GCOO_DOXYGEN_WARNINGS="$log" doxygen - >"$out/doxygen.out" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] || grep -qi "error:" "$log" "$out/doxygen.out"; then
  cat "$out/doxygen.out" "$log" >&2
  echo "58-docs: FAILED: doxygen exit $rc or errors above" >&2
  exit 1
fi
[ -s "$out/html/index.html" ] || { echo "58-docs: FAILED: no html/index.html" >&2; exit 1; }
# every public header has its page, and the main entry points are documented on it
for h in include/gcoo/*.h; do
  page="$out/html/$(basename "$h" .h)_8h.html"
  [ -s "$page" ] || { echo "58-docs: FAILED: no page for $h (a @file block in docs/headers.dox?)" >&2; exit 1; }
done
for f in gcoo_op_create gcoo_dist_op_create gcoo_sparse_create_csr gcoo_last_error; do
  grep -q "$f" "$out/html/globals_func.html" || { echo "58-docs: FAILED: $f is not in the reference" >&2; exit 1; }
done
nwarn=$(wc -l <"$log")
echo "58-docs: API reference built ($(find "$out/html" -name '*.html' | wc -l) pages), $nwarn warnings:"
cut -d: -f1 "$log" | sed "s#^$top/##" | sort | uniq -c | sed 's/^/    /'
grep -v "is not documented" "$log" | sed "s#^$top/#    #" | head -20 | awk '{print}' || true

# relative links of the Markdown documents must lead somewhere (the documents of other parts
# named in them, docs/hdf5.md, docs/distributed.md, ..., must exist)
broken=0
for md in docs/*.md jobs/README.md examples/README.md README.md; do
  [ -f "$md" ] || continue
  dir="$(dirname "$md")"
  while IFS= read -r target; do
    path="${target%%#*}"
    [ -n "$path" ] || continue
    if [ ! -e "$dir/$path" ]; then
      echo "58-docs: $md links to $target, which does not exist" >&2
      broken=$((broken + 1))
    fi
  done < <(grep -oE '\]\([^)#][^)]*\)' "$md" | sed 's/^](//; s/)$//' | grep -vE '^[a-z]+:' || true)
done
[ "$broken" -eq 0 ] || { echo "58-docs: FAILED: $broken broken link(s)" >&2; exit 1; }
echo "58-docs: links checked"
