#!/usr/bin/env bash
# .ci/stages/39-compute-sanitizer.sh: the GPU tests under NVIDIA compute-sanitizer (memcheck with
# leak checking, racecheck on shared memory; GCOO_SANITIZER_TOOLS adds initcheck or synccheck).
# CI has no GPU: there the stage says so and passes. On the GPU machine, before a GPU change
# lands, from the repository root after scripts/build.sh:
#     bash .ci/stages/39-compute-sanitizer.sh            # every test labelled gpu in ./build
#     GCOO_SANITIZER_TOOLS="memcheck racecheck initcheck synccheck" bash .ci/stages/39-...
# Each ctest command labelled gpu is run once per tool with compute-sanitizer inserted before the
# test program (after mpirun and its options for multi-rank tests, so every rank is checked).
# Any report fails the stage (--error-exitcode 1); a test that exits 77 (no GPU) is skipped.
# GCOO_SANITIZER_SELECT replaces the ctest selection "-L gpu" (e.g. "-R t3" for some tests).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${GCOO_SANITIZER_BUILD:-$top/build}"
tools="${GCOO_SANITIZER_TOOLS:-memcheck racecheck}"
cs="$(command -v compute-sanitizer || true)"
[ -n "$cs" ] || [ ! -x /usr/local/cuda/bin/compute-sanitizer ] || cs=/usr/local/cuda/bin/compute-sanitizer
if [ -z "${GCOO_SANITIZER_FAKE:-}" ] && { ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1 || [ -z "$cs" ]; }; then
  echo "--- compute-sanitizer: no GPU (or no compute-sanitizer) here: skipped; run this stage on the GPU machine"
  exit 0
fi
[ -z "${GCOO_SANITIZER_FAKE:-}" ] || cs="$GCOO_SANITIZER_FAKE" # tests of this script only
[ -d "$build" ] || "$top/scripts/build.sh" "$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export GCOO_TEST_DATA="$top/tests/data"
# shellcheck disable=SC2086
ctest --test-dir "$build" ${GCOO_SANITIZER_SELECT:--L gpu} --show-only=json-v1 >"$build/gpu-tests.json"
/usr/bin/python3 - "$build/gpu-tests.json" "$cs" "$tools" <<'PY'
import json, os, subprocess, sys, time
tests = json.load(open(sys.argv[1]))["tests"]
cs, tools = sys.argv[2], sys.argv[3].split()
failed, ran = [], 0
for t in tests:
    cmd = t.get("command")
    if not cmd:
        continue
    env, cwd = dict(os.environ), None
    for p in t.get("properties", []):
        if p["name"] == "ENVIRONMENT":
            env.update(kv.split("=", 1) for kv in p["value"])
        if p["name"] == "WORKING_DIRECTORY":
            cwd = p["value"]
    # the test program: the first argument that is an executable file inside the build tree
    k = next((i for i, a in enumerate(cmd)
              if i > 0 and os.path.isabs(a) and os.path.isfile(a) and os.access(a, os.X_OK)), 0)
    for tool in tools:
        extra = ["--leak-check", "full"] if tool == "memcheck" else []
        if tool == "racecheck":
            extra = ["--racecheck-report", "all"]
        full = cmd[:k] + [cs, "--tool", tool, "--error-exitcode", "1"] + extra + cmd[k:]
        t0 = time.time()
        r = subprocess.run(full, env=env, cwd=cwd, capture_output=True, text=True)
        dt = time.time() - t0
        if r.returncode == 77:
            print("%-40s %-10s skipped (no GPU)" % (t["name"], tool))
            continue
        ran += 1
        ok = r.returncode == 0
        print("%-40s %-10s %s in %.1f s" % (t["name"], tool, "clean" if ok else "FAILED", dt))
        if not ok:
            failed.append((t["name"], tool))
            print((r.stdout + r.stderr)[-6000:])
print("compute-sanitizer: %d runs, %d failed" % (ran, len(failed)))
sys.exit(1 if failed else 0)
PY
