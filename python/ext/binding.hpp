// SPDX-License-Identifier: MIT
// python/ext/binding.hpp: what the files of the extension gcoo._core share. The extension is a
// thin layer: it turns Python objects into gcoo's handles and descriptors without copying data,
// calls the C API with the GIL released, and turns a failing status into a Python exception.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <optional>
#include <string>

#include "gcoo/gcoo.h"

namespace nb = nanobind;

namespace gcoo_py {

// ---- failures (failure.cpp) -----------------------------------------------------------------
// A failing gcoo status travelling to Python: raised there as the gcoo.Error subclass of its
// status (gcoo/_errors.py), with gcoo's message.
struct Failure {
  gcoo_status status;
  std::string message;
};
// Throw a Failure with gcoo_last_error() when st is an error; return st otherwise (information
// statuses such as GCOO_INFO_NOT_CONVERGED are the caller's to read).
gcoo_status check(gcoo_status st);
// Throw a Failure for an argument refused by the binding itself (the library was not called).
[[noreturn]] void fail(gcoo_status st, const std::string &message);
void bind_failure(nb::module_ &m);

// ---- dense operands (dense.cpp) -------------------------------------------------------------
// An array as the library reads it: NumPy through the buffer protocol or DLPack, CuPy and
// PyTorch device arrays through DLPack. Read-only operands are accepted where gcoo only reads.
using Array = nb::ndarray<nb::ro>;
using MutArray = nb::ndarray<>;
// Describe a 1-D (n -> n x 1) or 2-D array as a gcoo_dense over its own memory: one unit
// stride required (row-major when the last, column-major when the first), the other the
// leading dimension; float32 or float64; host or CUDA memory. Anything else is refused.
gcoo_dense dense_view(const nb::ndarray<nb::ro> &a, const char *what);
gcoo_dense dense_view(const nb::ndarray<> &a, const char *what);
gcoo_dtype dtype_of(const nb::dlpack::dtype &t, const char *what);
gcoo_dtype dtype_from_name(const std::string &name);
void bind_dense(nb::module_ &m);

// ---- library calls (probe.cpp) --------------------------------------------------------------
// Run f, a call of the library, with the GIL released (other Python threads run meanwhile) and
// its wall time added to the probe's clock; returns f's status. Every library call that may
// take time goes through here, so the benchmark can tell the binding's time from the library's.
double monotonic_seconds();
void add_library_seconds(double s);
template <typename F>
gcoo_status call(F &&f) {
  gcoo_status st;
  const double t0 = monotonic_seconds();
  {
    nb::gil_scoped_release unlocked;
    st = f();
  }
  add_library_seconds(monotonic_seconds() - t0);
  return st;
}
// Where the last operands handed to the library lay (for the zero-copy tests).
void record_operands(const void *x, const void *y);
void bind_probe(nb::module_ &m);

// ---- sparse matrices, contexts and operators (sparse.cpp, op.cpp) ---------------------------
// Owning wrappers of the library's opaque handles (destroyed with their Python object).
struct Sparse {
  gcoo_sparse A = nullptr;
  Sparse() = default;
  explicit Sparse(gcoo_sparse a) : A(a) {}
  Sparse(const Sparse &) = delete;
  Sparse &operator=(const Sparse &) = delete;
  ~Sparse() { destroy(); } // freeing a large matrix takes time: a library call like the others
  void destroy();
  gcoo_sparse_info info() const;
};
struct Context {
  gcoo_ctx ctx = nullptr;
  explicit Context(const std::optional<std::string> &resource); // nullopt: GCOO_BACKEND
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() { gcoo_ctx_destroy(&ctx); }
};
// The product algorithm named name (gcoo_spdm_alg_from_name), or a Failure naming it.
gcoo_spdm_alg spdm_alg(const std::string &name);
void bind_sparse(nb::module_ &m);
void bind_op(nb::module_ &m);
void bind_spgemm(nb::module_ &m);
void bind_dist(nb::module_ &m);
void bind_solver(nb::module_ &m);

} // namespace gcoo_py
