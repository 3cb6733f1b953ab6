// SPDX-License-Identifier: MIT
// python/ext/module.cpp: the extension module gcoo._core. The public Python API is in
// gcoo/*.py; this module is the thin layer under it, one file per part of the C API.
#include "binding.hpp"

NB_MODULE(_core, m) {
  m.doc() = "gcoo's C API for the gcoo package (use the package, not this module).";
  gcoo_py::bind_failure(m);
  gcoo_py::bind_dense(m);
  gcoo_py::bind_probe(m);
  gcoo_py::bind_sparse(m);
  gcoo_py::bind_op(m);
  gcoo_py::bind_spgemm(m);
  gcoo_py::bind_dist(m);
  gcoo_py::bind_solver(m);
}
