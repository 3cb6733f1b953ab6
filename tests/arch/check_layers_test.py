#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/arch/check_layers_test.py: scripts/check_layers.py must catch what it promises. Builds a
# small tree in a temporary folder with one upward include per rule (src -> io, kernels -> dist
# through a bare header name (a room of kernels/ including another's header beside it is lawful),
# io -> dist, dist -> cli, src -> the umbrella gcoo.h, cli -> a private header, the Python
# extension -> backend.h, the Fortran module's C helper -> backend.h and its .F90 -> a private
# header), CUDA
# runtime calls outside kernels/ (a stream call and a device binding) and lawful includes beside them (down, same layer, system
# headers, commented out), reads of GCOO_* variables outside the parameter registry (a getenv, a
# getenv wrapper, a solver file reading a name it may not, a name the registry does not declare)
# beside lawful ones (the registry itself, a comment), a source file loose in kernels/ and a room
# without its README.md, the backend boundary crossed (the CUDA backend's table and a solver entry
# named above kernels/, beside the backend list and a comment or string that names them) and a
# concern of kernels/ served outside its one place (a device allocation, an error formatted, a
# pool made, the current device changed, beside the files where each is lawful), and checks
# that exactly the violations are reported.
import os
import subprocess
import sys
import tempfile

script = sys.argv[1]
tree = {
    "include/gcoo/sparse.h": "",
    "include/gcoo/h5.h": "",
    "include/gcoo/dist.h": "",
    "include/gcoo/gcoo.h": "",
    "src/core.c": '#include <stdio.h>\n#include "gcoo/sparse.h"\n#include "core_impl.h"\n'
                  '#include "gcoo/h5.h"\n/* #include "gcoo/dist.h" */\n',
    "src/core_impl.h": '#include "gcoo/gcoo.h"\n',
    "kernels/spdm/k.cu": '#include "core_impl.h"\n#include "dist_impl.h"\n'
                         '#include "common/check.h"\nvoid f(void) { cudaMalloc(0, 0); }\n',
    "kernels/spdm/README.md": "",
    "kernels/common/check.h": '#include "core_impl.h"\n',
    "kernels/common/README.md": "",
    "kernels/loose.cu": '#include "common/check.h"\n',
    "io/r.c": '#include "gcoo/dist.h"\n#include "core_impl.h"\nconst char *s = "cudaFree(p)";\n',
    "dist/dist_impl.h": '#include "gcoo/h5.h"\n#include "cli.h"\n',
    "dist/d.c": '#include "dist_impl.h"\nvoid g(void) { cudaEventRecord(0, 0); }\n'
                'void h(void) { cudaSetDevice(0); }\n',
    "include/gcoo/backend.h": "",
    "src/backend_impl.h": "",
    "cli/cli.h": '#include "gcoo/gcoo.h"\n#include "dist_impl.h"\n',
    "cli/cmd.c": '#include "cli.h"\n#include <mpi.h>\n#include "backend_impl.h"\n'
                 '#include "gcoo/backend.h"\n',
    "python/ext/binding.hpp": '#include <nanobind/nanobind.h>\n#include "gcoo/gcoo.h"\n',
    "python/ext/m.cpp": '#include "binding.hpp"\n#include "gcoo/backend.h"\n',
    "src/params_list.h": 'GCOO_PARAM(DEBUG, STRING, USER, LIBRARY, "", "log")\n'
                         'GCOO_PARAM(BCG_X, STRING, DEVELOPER, DIRECT, "", "x")\n',
    "src/params.c": 'const char *p(void) { return getenv("GCOO_DEBUG"); }\n',
    "io/env.c": '/* getenv("GCOO_DEBUG") in a comment */\n'
                'const char *e(void) { return getenv("GCOO_DEBUG"); }\n',
    "kernels/backend/wrap.c": 'static int flag(const char *n) { return getenv(n) != 0; }\n'
                      'int w(void) { return flag("GCOO_DEBUG"); }\n',
    "solver/ksp_bcg.c": 'const char *b(void) { return getenv("GCOO_BCG_X"); }\n'
                        'const char *c(void) { return getenv("GCOO_DEBUG"); }\n'
                        'int q(void *h) { return gcoo__cuda_bcg_fused(h); }\n',
    "dist/dm.c": 'const void *t(void) { return &gcoo__backend_cuda; }\n'
                 '/* gcoo__cuda_pcg, named in a comment */\n'
                 'const char *u = "gcoo__backend_cuda";\n'
                 'int v(gcoo_ctx c) { return c->ops->device != 0; }\n',
    "src/backend_list.h": '#define GCOO_BACKEND_LIST(X) X(cuda, gcoo__backend_cuda, 1)\n',
    "kernels/common/cuda_check.h": 'static int a(void) { return cudaMalloc(0, 0); }\n'
                                   'static const char *m(int e) { return cudaGetErrorString(e); }\n',
    "kernels/backend/backend_cuda.c": 'void g(void) { cudaSetDevice(0); }\n',
    "kernels/backend/README.md": "",
    "kernels/convert/x.cu": '#include "common/check.h"\n',
    "kernels/backend/set.c": 'void s(void) { cudaSetDevice(1); }\n',
    "kernels/spgemm/README.md": "",
    "kernels/spgemm/fmt.cu": 'const char *f(int e) { return cudaGetErrorString(e); }\n'
                             'int p(void) { return cudaMemPoolCreate(0, 0); }\n',
    "cli/opts.c": 'void o(const char **v) { gcoo_param_get("GCOO_DEBUG", v); }\n'
                  'void q(const char **v) { gcoo_param_get("GCOO_NOPE", v); }\n',
    "fortran/kind.inc": "! a template included twice\n",
    "fortran/f.c": '#include "gcoo/gcoo.h"\n#include "gcoo/backend.h"\n',
    "fortran/m.F90": '#include "kind.inc"\n#include "dist_impl.h"\n',
}
expect = {
    "src/core.c:4", "src/core_impl.h:1", "kernels/spdm/k.cu:2", "kernels/loose.cu:1",
    "kernels/convert/README.md:0", "io/r.c:1", "dist/dist_impl.h:2",
    "dist/d.c:2", "dist/d.c:3", "cli/cli.h:2", "cli/cmd.c:3", "cli/cmd.c:4", "io/env.c:2",
    "kernels/backend/wrap.c:2", "solver/ksp_bcg.c:1", "solver/ksp_bcg.c:2", "solver/ksp_bcg.c:3",
    "dist/dm.c:1", "kernels/spdm/k.cu:4", "kernels/backend/set.c:1", "kernels/spgemm/fmt.cu:1",
    "kernels/spgemm/fmt.cu:2", "cli/opts.c:2", "python/ext/m.cpp:2", "fortran/f.c:2",
    "fortran/m.F90:2",
}
with tempfile.TemporaryDirectory() as root:
    for rel, text in tree.items():
        os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    r = subprocess.run([sys.executable, script, "--root", root], capture_output=True, text=True)
    got = {":".join(line.split(":")[:2]) for line in r.stdout.splitlines() if line}
    print(r.stdout, end="")
    if r.returncode != 1 or got != expect:
        print(f"FAIL: rc {r.returncode} (want 1); missed {sorted(expect - got)}, "
              f"extra {sorted(got - expect)}")
        sys.exit(1)
    # and the clean part alone passes
    for rel in ("src/core.c", "src/core_impl.h", "kernels/spdm/k.cu", "io/r.c", "dist/dist_impl.h",
                "dist/d.c", "cli/cmd.c", "cli/cli.h", "io/env.c", "kernels/backend/wrap.c",
                "kernels/loose.cu", "solver/ksp_bcg.c", "dist/dm.c", "kernels/backend/set.c",
                "kernels/spgemm/fmt.cu", "kernels/convert/x.cu", "cli/opts.c", "python/ext/m.cpp",
                "fortran/f.c", "fortran/m.F90"):
        os.remove(os.path.join(root, rel))
    r = subprocess.run([sys.executable, script, "--root", root], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: a clean tree gave rc {r.returncode}: {r.stdout}")
        sys.exit(1)
print("check_layers_test: every violation caught, a clean tree passes")
