#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/arch/test_numbers.py: every test has one number. A test is a file tests/<area>/tNNN-name.*
# (its ctest name is its file name without the extension); two files with the same tNNN, in any
# area, fail, naming both. The bands are in tests/CMakeLists.txt.
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
seen = {}
bad = []
for dirpath, _, files in os.walk(root):
    for f in sorted(files):
        m = re.match(r"(t\d{3})-[\w-]+\.(c|cpp|sh|py)$", f)
        if not m:
            continue
        rel = os.path.relpath(os.path.join(dirpath, f), root)
        if m.group(1) in seen:
            bad.append(f"{m.group(1)}: {seen[m.group(1)]} and {rel}")
        else:
            seen[m.group(1)] = rel
for b in bad:
    print(f"test number used twice: {b}")
if bad:
    sys.exit(1)
print(f"test_numbers: {len(seen)} tests, one number each")
