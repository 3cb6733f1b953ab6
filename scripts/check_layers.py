#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# scripts/check_layers.py: the layer rules of README.md ("Layout") as a check the build runs
# (ctest: arch-layers, label arch). The library is one object library, so the compiler would
# let any file include any folder's header; this check is what makes an upward include fail.
#
#   include/gcoo/ <- src/ <- kernels/ <- io/ <- dist/ <- solver/ <- cli/, python/, fortran/
#                                                               (a layer uses those left of it)
#
# 1. Includes: every #include "..." or <gcoo/...> of a file in src/, kernels/, io/, dist/, cli/
#    is resolved the way the build resolves it (the including file's folder, then include/,
#    then the layer folders, which are all on the object library's include path) and must
#    name a header of the same or a lower layer. Public headers belong to the layer that
#    implements them (PUBLIC_LAYER below): gcoo/mtx.h and gcoo/h5.h are io, gcoo/dist.h is
#    dist, gcoo/ksp.h, gcoo/pc.h and gcoo/solver.h are solver, the umbrella gcoo/gcoo.h is for
#    programs (cli).
#    The command (cli/), the Python extension (python/) and the Fortran module (fortran/: its C
#    helpers, and the preprocessor includes of its .F90 files) are applications of the library:
#    besides their own headers they include only the public API (include/gcoo/, not backend.h).
# 2. The CUDA runtime: outside kernels/ no file includes the CUDA runtime or calls its memory,
#    copy, stream, event or device functions; device memory, copies, streams, events and the
#    device binding go through the backend interface (gcoo/backend.h, gcoo_device_ops). Files still waiting for their owner's conversion
#    are listed in CUDA_PENDING with the reason; the list only shrinks.
# 3. Parameters: every GCOO_* environment variable is declared once in the registry
#    (src/params_list.h) and read only through it (src/params.c; gcoo_param_get in cli/). A
#    getenv("GCOO_...") anywhere else in src/, kernels/, io/, dist/ or cli/ fails, and so does a
#    GCOO_* name handed to a getenv wrapper (a function of a file that calls getenv on a
#    variable). Code that still reads its own parameters is listed in PARAM_DIRECT with the
#    owner; it may read only names the registry declares with the scope DIRECT.
# 4. Rooms: kernels/ keeps its sources in subfolders, one concern each (kernels/README.md), and
#    every such folder has a README.md saying what lives there. A subfolder of kernels/ is still
#    the kernels layer.
# 5. The backend boundary: above kernels/ the device is reached only through the backend table
#    and the context (gcoo/backend.h): no file outside kernels/ names the CUDA backend's table or
#    one of its functions (gcoo__backend_cuda, gcoo__cuda_*, gcoo__spgemm_cuda,
#    gcoo__predict_cuda, gcoo__solver_cuda, gcoo__device_cuda); the backend list
#    (src/backend_list.h) and the generated stubs (src/backend_stubs.c) are where the table's
#    name is written. Inside kernels/, one place per concern: CUDA errors are formatted only by
#    the one checker (kernels/common/cuda_check.h), device memory is allocated only by the one
#    allocator there, the SpGEMM pool is made only by the context's (kernels/spgemm/
#    spgemm_pool.cu), and the current device is changed only by the device guard and the
#    binding of the backend (kernels/backend/backend_cuda.c, device_cuda.c) and by the start-up
#    thread (cuda_prestart.c, on its own thread).
#
# Usage: scripts/check_layers.py [--root DIR] [--quiet]. Exit 0 when clean, 1 with one line per
# violation ("FILE:LINE: ..."), 2 on bad usage.
import argparse
import os
import re
import sys

LAYERS = ["include", "src", "kernels", "io", "dist", "solver", "cli", "python", "fortran"]
APPLICATIONS = ("cli", "python", "fortran")  # users of the public API only
RANK = {name: i for i, name in enumerate(LAYERS)}

# The layer of each public header: the layer whose code implements what it declares.
PUBLIC_LAYER = {
    "gcoo/mtx.h": "io",
    "gcoo/h5.h": "io",
    "gcoo/dist.h": "dist",
    "gcoo/ksp.h": "solver",
    "gcoo/pc.h": "solver",
    "gcoo/solver.h": "solver",
    "gcoo/gcoo.h": "cli",
}
# every other gcoo/*.h (status, types, template, backend, ctx, dense, sparse, spdm, blas,
# generate, predict, spgemm, config) is the core's: "include"

# Outside kernels/, these may still touch the CUDA runtime directly; each names its owner.
CUDA_PENDING = {}

# The one reader of GCOO_* variables, and the code that still reads its own (scope DIRECT in the
# registry) until its owner moves it to the registry; the list only shrinks (it is empty).
PARAM_REGISTRY = "src/params.c"
PARAM_LIST = "src/params_list.h"
PARAM_DIRECT = {}  # none: every library parameter is read through the registry
PARAM_DECL_RE = re.compile(r"^\s*GCOO_PARAM\(\s*([A-Z0-9_]+)\s*,\s*\w+\s*,\s*\w+\s*,\s*(\w+)", re.M)
GETENV_LITERAL_RE = re.compile(r'\b(?:secure_)?getenv\s*\(\s*"(GCOO_[A-Z0-9_]*)"')
GETENV_VARIABLE_RE = re.compile(r"\b(?:secure_)?getenv\s*\(\s*[A-Za-z_]")
NAME_CALL_RE = re.compile(r'\b([A-Za-z_]\w*)\s*\(\s*"(GCOO_[A-Z0-9_]+)"')
PARAM_API = {"gcoo_param_get", "gcoo_param_get_int", "gcoo_param_set"}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
CUDA_INCLUDE_RE = re.compile(r"^\s*#\s*include\s*[<\"](cuda_runtime(_api)?\.h|cuda\.h)[>\"]")
CUDA_CALL_RE = re.compile(
    r"\bcuda(Malloc\w*|Free\w*|Memcpy\w*|Memset\w*|Stream\w*|Event\w*|HostAlloc|HostRegister|"
    r"SetDevice|GetDevice\w*|Device\w*)\s*\(")
SOURCE_EXT = (".c", ".h", ".cu", ".cuh", ".cpp", ".hpp", ".f90", ".F90", ".inc")

# Rule 5: names of the CUDA backend that no file outside kernels/ may write, but the backend list.
CUDA_BACKEND_RE = re.compile(
    r"\b(gcoo__backend_cuda|gcoo__cuda_\w+|gcoo__spgemm_cuda|gcoo__predict_cuda|gcoo__solver_cuda|"
    r"gcoo__device_cuda)\b")
BACKEND_LIST = {"src/backend_list.h", "src/backend_stubs.c"}
# Rule 5 inside kernels/: (pattern, the files allowed, the one place it names).
ONE_PLACE = [
    (re.compile(r"\b(cudaGetErrorString|cudaGetErrorName|cusparseGetErrorString|"
                r"cusparseGetErrorName|cublasGetStatusString|cublasGetStatusName)\s*\(|"
                r"\.GetStatus(String|Name)\s*\("),
     {"kernels/common/cuda_check.h"},
     "formats a CUDA error itself: raise it through the one checker (kernels/common/cuda_check.h: "
     "GCOO_CALL_CUDA, GCOO_CUDA_RAISE, GCOO_CALL_CUSPARSE, GCOO_CALL_CUBLAS)"),
    (re.compile(r"\bcudaMalloc(Async|FromPoolAsync|Managed|Pitch|3D)?\s*\("),
     {"kernels/common/cuda_check.h"},
     "allocates device memory itself: use the one allocator (gcoo__cuda_alloc, "
     "gcoo__cuda_alloc_async, gcoo__cuda_alloc_at in kernels/common/cuda_check.h)"),
    (re.compile(r"\bcudaMemPoolCreate\s*\("),
     {"kernels/spgemm/spgemm_pool.cu"},
     "makes a memory pool: the context owns the one pool (spg_pool_use, kernels/spgemm/"
     "spgemm_pool.cu)"),
    (re.compile(r"\bcudaSetDevice\s*\("),
     {"kernels/backend/backend_cuda.c", "kernels/backend/device_cuda.c",
      "kernels/backend/cuda_prestart.c"},
     "changes the current device itself: use the device guard (gcoo__cuda_device_enter / "
     "gcoo__cuda_device_leave, kernels/backend/backend_cuda_impl.h)"),
]


def layer_of_path(rel):
    top = rel.split("/", 1)[0]
    return top if top in RANK else None


def strip_comments(text, keep_strings=False):
    """The text with C comments and (unless keep_strings) string literals blanked (line breaks
    kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'" and not re.match(r"\s*#\s*include", text[text.rfind("\n", 0, i) + 1:i]):
            j = i + 1  # a string or character literal, to its closing quote
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n) if j < n and text[j] == c else j
            out.append(text[i:j] if keep_strings else c + " " * (j - i - 1))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def resolve(root, rel, name, quoted):
    """Where the build finds header NAME included from REL: (path relative to root) or None."""
    if name.startswith("gcoo/"):
        return "include/" + name
    candidates = []
    if quoted:
        candidates.append(os.path.normpath(os.path.join(os.path.dirname(rel), name)))
    candidates += [os.path.normpath(os.path.join(d, name)) for d in LAYERS if d != "include"]
    for cand in candidates:
        if not cand.startswith("..") and os.path.isfile(os.path.join(root, cand)):
            return cand
    return None  # a system or third-party header


def header_layer(path):
    if path.startswith("include/"):
        return PUBLIC_LAYER.get(path[len("include/"):], "include")
    return layer_of_path(path)


def registry(root):
    """{name: scope} of the parameters src/params_list.h declares."""
    try:
        with open(os.path.join(root, PARAM_LIST), encoding="utf-8") as fh:
            text = strip_comments(fh.read(), keep_strings=True)
    except OSError:
        return {}
    return {"GCOO_" + m.group(1): m.group(2) for m in PARAM_DECL_RE.finditer(text)}


def check_params(rel, text, params):
    """Rule 3 for one file: its reads of GCOO_* variables."""
    if rel == PARAM_REGISTRY:
        return []
    problems = []
    code = strip_comments(text, keep_strings=True)
    direct = rel in PARAM_DIRECT
    wrapper = GETENV_VARIABLE_RE.search(code) is not None
    for lineno, line in enumerate(code.split("\n"), 1):
        reads = [m.group(1) for m in GETENV_LITERAL_RE.finditer(line)]
        if wrapper:
            reads += [m.group(2) for m in NAME_CALL_RE.finditer(line) if m.group(1) not in PARAM_API]
        for name in reads:
            if direct and params.get(name) == "DIRECT":
                continue
            problems.append(f"{rel}:{lineno}: reads {name} with getenv: read it through the "
                            f"parameter registry (src/params.h; gcoo_param_get in cli/), declared "
                            f"in {PARAM_LIST}")
        for m in NAME_CALL_RE.finditer(line):
            if m.group(1) in PARAM_API and m.group(2) not in params:
                problems.append(f"{rel}:{lineno}: {m.group(2)} is not declared in {PARAM_LIST}")
    return problems


def check_rooms(root):
    """Rule 4: no source file loose in kernels/, a README.md in every room."""
    problems = []
    kdir = os.path.join(root, "kernels")
    if not os.path.isdir(kdir):
        return problems
    for f in sorted(os.listdir(kdir)):
        path = os.path.join(kdir, f)
        if os.path.isfile(path) and f.endswith(SOURCE_EXT):
            problems.append(f"kernels/{f}:1: kernels/ keeps its sources in rooms, one folder a "
                            "concern (kernels/README.md): move it into the room of its concern")
        elif (os.path.isdir(path) and any(x.endswith(SOURCE_EXT) for x in os.listdir(path)) and
              not os.path.isfile(os.path.join(path, "README.md"))):
            problems.append(f"kernels/{f}/README.md:0: the room kernels/{f}/ has no README.md "
                            "saying what lives there")
    return problems


def check_boundary(rel, layer, code_lines):
    """Rule 5 for one file (its lines with comments and strings blanked)."""
    problems = []
    for lineno, line in enumerate(code_lines, 1):
        if layer != "kernels" and rel not in BACKEND_LIST:
            m = CUDA_BACKEND_RE.search(line)
            if m:
                problems.append(f"{rel}:{lineno}: {layer}/ names {m.group(1)}, the CUDA backend's: "
                                "reach the device through the backend table and the context "
                                "(gcoo/backend.h: ctx->ops, its device, solver, spgemm, predict "
                                "entries)")
        if layer == "kernels":
            for pattern, allowed, what in ONE_PLACE:
                if rel not in allowed and pattern.search(line):
                    problems.append(f"{rel}:{lineno}: {what}")
    return problems


def check(root):
    problems = check_rooms(root)
    params = registry(root)
    if not params:
        problems.append(f"{PARAM_LIST}: no GCOO_PARAM declarations found")
    for layer in LAYERS[1:]:
        for dirpath, _, files in os.walk(os.path.join(root, layer)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                problems += check_params(rel, text, params)
                code = strip_comments(text).split("\n")
                problems += check_boundary(rel, layer, code)
                for lineno, line in enumerate(text.split("\n"), 1):
                    m = INCLUDE_RE.match(line)
                    if m and not code[lineno - 1].strip():
                        m = None  # inside a comment
                    if m:
                        target = resolve(root, rel, m.group(2), m.group(1) == '"')
                        tl = header_layer(target) if target else None
                        if tl and RANK[tl] > RANK[layer]:
                            problems.append(f"{rel}:{lineno}: {layer}/ includes {m.group(2)} "
                                            f"({target}, layer {tl}/): an upward include")
                        elif (layer in APPLICATIONS and target and
                              not target.startswith(layer + "/") and
                              (not target.startswith("include/") or
                               target == "include/gcoo/backend.h")):
                            problems.append(f"{rel}:{lineno}: {layer}/ includes {m.group(2)} "
                                            f"({target}): applications see the public API only")
                    if layer == "kernels" or rel in CUDA_PENDING:
                        continue
                    if CUDA_INCLUDE_RE.match(code[lineno - 1]):
                        problems.append(f"{rel}:{lineno}: {layer}/ includes the CUDA runtime "
                                        "(only kernels/ may; use the backend interface)")
                    c = CUDA_CALL_RE.search(code[lineno - 1])
                    if c:
                        problems.append(f"{rel}:{lineno}: {layer}/ calls cuda{c.group(1)} "
                                        "(device memory, copies, streams, events and binding go through "
                                        "the backend interface, gcoo/backend.h)")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "src")):
        print(f"check_layers: {root} is not the gcoo source tree", file=sys.stderr)
        return 2
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} violation(s) of the layer rules "
              "(README.md, docs/architecture.md)", file=sys.stderr)
        return 1
    if not args.quiet:
        print("check_layers: layers clean: " + " <- ".join(LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
