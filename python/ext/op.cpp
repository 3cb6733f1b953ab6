// SPDX-License-Identifier: MIT
// python/ext/op.cpp: contexts (one backend of the calling process) and persistent operators
// Y = alpha A X + beta Y (gcoo/spdm.h) applied to arrays in place.

#include "binding.hpp"

namespace gcoo_py {

Context::Context(const std::optional<std::string> &resource) {
  const gcoo_status st = call(
      [&] { return gcoo_ctx_create(&ctx, resource ? resource->c_str() : nullptr); });
  check(st);
}

gcoo_spdm_alg spdm_alg(const std::string &name) {
  const int a = gcoo_spdm_alg_from_name(name.c_str());
  if (a < 0) fail(GCOO_ERR_INVALID_ARG, "unknown product algorithm '" + name + "'");
  return static_cast<gcoo_spdm_alg>(a);
}

namespace {
struct Op {
  gcoo_op op = nullptr;
  Op(Context &c, Sparse &A, const std::string &alg, int32_t p, int64_t ncols_hint) {
    gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
    o.alg = spdm_alg(alg);
    o.p = p;
    o.ncols_hint = ncols_hint;
    const gcoo_status st = call([&] { return gcoo_op_create(&op, c.ctx, A.A, &o); });
    check(st);
  }
  Op(const Op &) = delete;
  Op &operator=(const Op &) = delete;
  ~Op() { gcoo_op_destroy(&op); }

  gcoo_op_info info() const {
    gcoo_op_info i;
    check(gcoo_op_get_info(op, &i));
    return i;
  }
};

// Queue device work on the caller's stream (CuPy's current one); 0 is the context's own
// stream, which is ordered with CUDA's legacy default stream.
void use_stream(gcoo_ctx ctx, const gcoo_dense &X, uintptr_t stream) {
  if (X.mem == GCOO_MEM_DEVICE) check(gcoo_ctx_set_stream(ctx, reinterpret_cast<void *>(stream)));
}
} // namespace

void bind_op(nb::module_ &m) {
  nb::class_<Context>(m, "Context", "A gcoo_ctx: the CPU backend or one GPU.")
      .def(nb::init<const std::optional<std::string> &>(), nb::arg("resource").none(),
           "gcoo_ctx_create: 'cpu', 'cuda', 'cuda:N', 'auto' (CUDA when a GPU is usable) or "
           "None ($GCOO_BACKEND, else 'auto').")
      .def_prop_ro("backend", [](const Context &c) { return std::string(gcoo_ctx_backend(c.ctx)); })
      .def_prop_ro("device", [](const Context &c) { return gcoo_ctx_device(c.ctx); })
      .def("describe",
           [](const Context &c) {
             char buf[256];
             check(gcoo_ctx_describe(c.ctx, buf, sizeof buf));
             return std::string(buf);
           })
      .def("synchronize", [](Context &c) {
        const gcoo_status st = call([&] { return gcoo_ctx_synchronize(c.ctx); });
        check(st);
      });
  m.def("cuda_device_count", &gcoo_cuda_device_count, "Usable CUDA devices (0 without CUDA).");

  nb::class_<Op>(m, "Op", "A gcoo_op: a persistent sparse x dense operator on a context.")
      .def(nb::init<Context &, Sparse &, const std::string &, int32_t, int64_t>(), nb::arg("ctx"),
           nb::arg("A"), nb::arg("alg") = "auto", nb::arg("p") = 0, nb::arg("ncols_hint") = 0,
           nb::keep_alive<1, 2>(), "gcoo_op_create (the matrix is copied into the operator).")
      .def(
          "apply",
          [](Op &o, Context &c, Array X, MutArray Y, double alpha, double beta, uintptr_t stream) {
            gcoo_dense x = dense_view(X, "X"), y = dense_view(Y, "out");
            use_stream(c.ctx, x, stream);
            record_operands(x.data, y.data);
            const gcoo_status st = call([&] { return gcoo_op_apply(o.op, alpha, &x, beta, &y); });
            check(st);
          },
          nb::arg("ctx"), nb::arg("X").noconvert(), nb::arg("out").noconvert(),
          nb::arg("alpha") = 1.0, nb::arg("beta") = 0.0, nb::arg("stream") = 0,
          "gcoo_op_apply: out = alpha A X + beta out, operands read and written in place.")
      .def_prop_ro("alg", [](const Op &o) { return std::string(gcoo_spdm_alg_name(o.info().alg)); })
      .def_prop_ro("p", [](const Op &o) { return o.info().p; })
      .def_prop_ro("setup_seconds", [](const Op &o) { return o.info().setup_seconds; })
      .def_prop_ro("device_bytes", [](const Op &o) { return o.info().device_bytes; });
}

} // namespace gcoo_py
