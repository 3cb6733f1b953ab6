#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# .ci/stages/60-format.sh: every C, C++ and CUDA file formatted as .clang-format says
# (scripts/check_format.sh; clang-format 14 from .ci/packages/reliab.txt). Fix with
# scripts/check_format.sh --fix and commit.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exec bash "$top/scripts/check_format.sh"
