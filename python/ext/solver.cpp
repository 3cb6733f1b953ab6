// SPDX-License-Identifier: MIT
// python/ext/solver.cpp: the solver behind gcoo.Solver and gcoo.solve. The Python side names a
// Krylov method and a preconditioner; this file alone maps those names onto the C API. Today
// that is block conjugate gradients with Jacobi or no preconditioner (gcoo_dist_bcg_solve,
// gcoo/solver.h): the one method ("cg"), k right-hand sides solved as one block.

#include <algorithm>
#include <vector>

#include "dist.hpp"

namespace gcoo_py {

#if GCOO_HAVE_MPI
namespace {
const char *const methods[] = {"cg"};
const char *const preconditioners[] = {"none", "jacobi"};

nb::ndarray<nb::numpy, double, nb::ndim<1>> doubles(const double *v, size_t n) {
  double *c = new double[n ? n : 1];
  if (v) std::copy(v, v + n, c);
  nb::capsule owner(c, [](void *q) noexcept { delete[] static_cast<double *>(q); });
  return nb::ndarray<nb::numpy, double, nb::ndim<1>>(c, {n}, owner);
}

struct Solver {
  DistOp &A;
  gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;

  Solver(DistOp &op, const std::string &ksp, const std::string &pc, double rtol, int64_t maxiter,
         bool history)
      : A(op) {
    op.live();
    if (ksp != methods[0])
      fail(GCOO_ERR_UNSUPPORTED, "Krylov method '" + ksp + "': this gcoo has 'cg' (block CG)");
    if (pc == "none")
      o.pc = GCOO_PC_NONE;
    else if (pc == "jacobi")
      o.pc = GCOO_PC_JACOBI;
    else
      fail(GCOO_ERR_UNSUPPORTED, "preconditioner '" + pc + "': this gcoo has 'none' and 'jacobi'");
    if (!(rtol > 0.0)) fail(GCOO_ERR_INVALID_ARG, "rtol must be positive");
    if (maxiter < 1) fail(GCOO_ERR_INVALID_ARG, "maxiter must be at least 1");
    o.rtol = rtol;
    o.maxit = maxiter;
    o.record_history = history;
  }

  // X holds the initial guess and receives the solution; B and X are this rank's rows.
  nb::dict solve(Array B, MutArray X, uintptr_t stream) {
    gcoo_dense b = dense_view(B, "B"), x = dense_view(X, "X");
    if (b.mem == GCOO_MEM_DEVICE) // the solver's work on the caller's stream, after its own
      check(gcoo_ctx_set_stream(gcoo_dist_ctx(gcoo_dist_op_get_dist(A.live())),
                                reinterpret_cast<void *>(stream)));
    record_operands(b.data, x.data);
    gcoo_bcg_result r{};
    const gcoo_status st = call([&] { return gcoo_dist_bcg_solve(A.live(), &b, &x, &o, &r); });
    if (st < 0) gcoo_bcg_result_free(&r);
    check(st);
    const size_t k = static_cast<size_t>(r.k);
    nb::dict d;
    d["status"] = gcoo_status_name(st);
    d["converged"] = bool(r.converged);
    d["iterations"] = r.iterations;
    d["residuals"] = doubles(r.true_residual, k);
    d["recursive_residuals"] = doubles(r.residual, k);
    std::vector<double> its(k);
    for (size_t j = 0; j < k; ++j)
      its[j] = r.column_iterations ? double(r.column_iterations[j]) : -1.0;
    d["column_iterations"] = doubles(its.data(), k);
    if (r.history) {
      const size_t n = static_cast<size_t>(r.iterations + 1) * k;
      d["history"] = doubles(r.history, n);
    } else {
      d["history"] = nb::none();
    }
    d["setup_seconds"] = r.t_setup;
    d["iterate_seconds"] = r.t_iterate;
    d["total_seconds"] = r.t_total;
    d["spmm_alg"] = gcoo_spdm_alg_name(r.spmm_alg);
    gcoo_bcg_result_free(&r);
    return d;
  }
};
} // namespace

void bind_solver(nb::module_ &m) {
  nb::dict names;
  nb::list ksp, pc;
  for (const char *s : methods) ksp.append(s);
  for (const char *s : preconditioners) pc.append(s);
  names["ksp"] = ksp;
  names["pc"] = pc;
  m.attr("solver_names") = names;
  nb::class_<Solver>(m, "Solver", "A solver on a distributed operator (X rows partitioned).")
      .def(nb::init<DistOp &, const std::string &, const std::string &, double, int64_t, bool>(),
           nb::arg("A"), nb::arg("ksp") = "cg", nb::arg("pc") = "jacobi", nb::arg("rtol") = 1e-8,
           nb::arg("maxiter") = 1000, nb::arg("history") = false, nb::keep_alive<1, 2>())
      .def("solve", &Solver::solve, nb::arg("B").noconvert(), nb::arg("X").noconvert(),
           nb::arg("stream") = 0,
           "Solve A X = B for this rank's rows; X holds the initial guess. Collective.");
}

#else

void bind_solver(nb::module_ &m) { m.attr("solver_names") = nb::dict(); }

#endif

} // namespace gcoo_py
