// SPDX-License-Identifier: MIT
// python/ext/solver.cpp: the solver behind gcoo.Solver and gcoo.solve, a gcoo_ksp (gcoo/ksp.h)
// on a distributed operator: a Krylov method and a preconditioner named as the library names
// them, tolerances, an optional options string ("-ksp_type gmres -pc_type amg"), set up once
// and applied to many right-hand sides.
#include <algorithm>
#include <vector>

#include "dist.hpp"

namespace gcoo_py {

#if GCOO_HAVE_MPI
namespace {
nb::ndarray<nb::numpy, double, nb::ndim<1>> doubles(const std::vector<double> &v) {
  double *c = new double[v.empty() ? 1 : v.size()];
  std::copy(v.begin(), v.end(), c);
  nb::capsule owner(c, [](void *q) noexcept { delete[] static_cast<double *>(q); });
  return nb::ndarray<nb::numpy, double, nb::ndim<1>>(c, {v.size()}, owner);
}

// the names the library gives to the values 0, 1, ... of an enumeration
template <typename F>
nb::list names(F name_of) {
  nb::list l;
  for (int i = 0;; ++i) {
    const std::string s = name_of(i);
    if (s == "unknown") return l;
    l.append(s);
  }
}

struct Solver {
  DistOp &A;
  gcoo_ksp ksp = nullptr;

  Solver(DistOp &op, const std::string &method, const std::string &pc, double rtol, double atol,
         int64_t maxiter, int restart, bool history, const std::string &options)
      : A(op) {
    const int t = gcoo_ksp_type_from_name(method.c_str());
    if (t < 0) fail(GCOO_ERR_INVALID_ARG, "unknown Krylov method '" + method + "'");
    const int p = gcoo_pc_type_from_name(pc.c_str());
    if (p < 0) fail(GCOO_ERR_INVALID_ARG, "unknown preconditioner '" + pc + "'");
    check(call([&] { return gcoo_ksp_create(&ksp, op.live()); }));
    gcoo_ksp_options o;
    check(gcoo_ksp_get_options(ksp, &o));
    o.type = static_cast<gcoo_ksp_type>(t);
    o.rtol = rtol;
    o.atol = atol;
    o.maxit = maxiter;
    if (restart > 0) o.restart = restart;
    o.record_history = history;
    check(gcoo_ksp_set_options(ksp, &o));
    gcoo_pc M;
    check(gcoo_ksp_get_pc(ksp, &M));
    check(gcoo_pc_set_type(M, static_cast<gcoo_pc_type>(p)));
    if (!options.empty()) check(gcoo_ksp_set_from_string(ksp, options.c_str())); // wins
  }
  Solver(const Solver &) = delete;
  Solver &operator=(const Solver &) = delete;
  ~Solver() { close(); }

  void close() {
    if (ksp && !mpi_finalized()) gcoo_ksp_destroy(&ksp);
    ksp = nullptr;
  }
  gcoo_ksp live() const {
    if (!ksp) fail(GCOO_ERR_INVALID_OBJECT, "the solver was closed");
    return ksp;
  }

  void setup() {
    check(call([&] { return gcoo_ksp_setup(live()); }));
  }

  std::string describe() const {
    char buf[256];
    check(gcoo_ksp_describe(live(), buf, sizeof buf));
    return buf;
  }

  // B: this rank's rows; X: the initial guess when guess is true, overwritten otherwise
  nb::dict solve(Array B, MutArray X, bool guess, uintptr_t stream) {
    gcoo_ksp k = live();
    gcoo_dense b = dense_view(B, "B"), x = dense_view(X, "X");
    if (b.mem == GCOO_MEM_DEVICE) // the solver's work on the caller's stream, after its own
      check(gcoo_ctx_set_stream(gcoo_dist_ctx(gcoo_dist_op_get_dist(A.live())),
                                reinterpret_cast<void *>(stream)));
    gcoo_ksp_options o;
    check(gcoo_ksp_get_options(k, &o));
    o.initial_guess_nonzero = guess;
    check(gcoo_ksp_set_options(k, &o));
    record_operands(b.data, x.data);
    gcoo_ksp_result r{};
    const gcoo_status st = call([&] { return gcoo_ksp_solve(k, &b, &x, &r); });
    if (st < 0) gcoo_ksp_result_free(&r);
    check(st);
    const size_t n = static_cast<size_t>(r.k);
    std::vector<double> res(n), its(n);
    nb::list reasons;
    for (size_t j = 0; j < n; ++j) {
      res[j] = r.true_residual ? r.true_residual[j] : -1.0;
      its[j] = r.column_iterations ? double(r.column_iterations[j]) : -1.0;
      reasons.append(r.column_reason ? gcoo_ksp_reason_name(r.column_reason[j]) : "unknown");
    }
    nb::dict d;
    d["converged"] = bool(r.converged);
    d["reason"] = gcoo_ksp_reason_name(r.reason);
    d["column_reasons"] = reasons;
    d["iterations"] = r.iterations;
    d["residuals"] = doubles(res);
    d["column_iterations"] = doubles(its);
    if (r.history)
      d["history"] = doubles(std::vector<double>(r.history, r.history + (r.iterations + 1) * r.k));
    else
      d["history"] = nb::none();
    d["setup_seconds"] = r.t_setup;
    d["solve_seconds"] = r.t_solve;
    d["spmm_calls"] = r.spmm_calls;
    d["pc_calls"] = r.pc_calls;
    gcoo_ksp_result_free(&r);
    return d;
  }
};
} // namespace

void bind_solver(nb::module_ &m) {
  nb::dict all;
  all["ksp"] = names([](int i) { return gcoo_ksp_type_name(static_cast<gcoo_ksp_type>(i)); });
  all["pc"] = names([](int i) { return gcoo_pc_type_name(static_cast<gcoo_pc_type>(i)); });
  m.attr("solver_names") = all;
  nb::class_<Solver>(m, "Solver", "A gcoo_ksp on a distributed operator (X rows partitioned).")
      .def(nb::init<DistOp &, const std::string &, const std::string &, double, double, int64_t,
                    int, bool, const std::string &>(),
           nb::arg("A"), nb::arg("ksp") = "cg", nb::arg("pc") = "jacobi", nb::arg("rtol") = 1e-8,
           nb::arg("atol") = 0.0, nb::arg("maxiter") = 10000, nb::arg("restart") = 0,
           nb::arg("history") = false, nb::arg("options") = "", nb::keep_alive<1, 2>(),
           "gcoo_ksp_create, its options, its preconditioner, then the options string.")
      .def("setup", &Solver::setup, "gcoo_ksp_setup. Collective.")
      .def("describe", &Solver::describe, "gcoo_ksp_describe: 'gmres(30) + jacobi'.")
      .def("close", &Solver::close, "gcoo_ksp_destroy. Collective.")
      .def("solve", &Solver::solve, nb::arg("B").noconvert(), nb::arg("X").noconvert(),
           nb::arg("guess") = false, nb::arg("stream") = 0,
           "gcoo_ksp_solve for this rank's rows. Collective.");
}

#else

void bind_solver(nb::module_ &m) { m.attr("solver_names") = nb::dict(); }

#endif

} // namespace gcoo_py
