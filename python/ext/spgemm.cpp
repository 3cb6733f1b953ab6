// SPDX-License-Identifier: MIT
// python/ext/spgemm.cpp: C = A B (gcoo/spgemm.h) and the prediction of nnz(A B)
// (gcoo/predict.h). Results come back as a new Sparse and a dict of what the call reported.

#include <algorithm>

#include "binding.hpp"

namespace gcoo_py {

namespace {
gcoo_predict_options predict_options(const std::string &method, int64_t samples, uint64_t seed,
                                     double rel_error, double max_cost) {
  gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
  const int meth = gcoo_predict_method_from_name(method.c_str());
  if (meth < 0) fail(GCOO_ERR_INVALID_ARG, "unknown prediction method '" + method + "'");
  o.method = static_cast<gcoo_predict_method>(meth);
  o.samples = samples;
  o.seed = seed;
  o.rel_error = rel_error;
  o.max_cost = max_cost;
  return o;
}
} // namespace

void bind_spgemm(nb::module_ &m) {
  m.def(
      "spgemm",
      [](Context &c, Sparse &A, Sparse &B, const std::string &alg, const std::string &method,
         double safety) {
        gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
        const int a = gcoo_spgemm_alg_from_name(alg.c_str());
        if (a < 0) fail(GCOO_ERR_INVALID_ARG, "unknown SpGEMM algorithm '" + alg + "'");
        o.alg = static_cast<gcoo_spgemm_alg>(a);
        o.predict = predict_options(method, 0, GCOO_PREDICT_DEFAULT_SEED, 0.0, 0.0);
        o.safety = safety;
        gcoo_sparse C = nullptr;
        gcoo_spgemm_info i;
        const gcoo_status st = call([&] { return gcoo_spgemm(c.ctx, A.A, B.A, &o, &C, &i); });
        check(st);
        nb::dict info;
        info["alg"] = gcoo_spgemm_alg_name(i.alg);
        info["flop"] = i.flop;
        info["nnz"] = i.nnz;
        info["nnz_predicted"] = i.nnz_predicted;
        info["nnz_allocated"] = i.nnz_allocated;
        info["rows_overflowed"] = i.rows_overflowed;
        info["seconds"] = i.seconds;
        info["seconds_predict"] = i.seconds_predict;
        info["seconds_total"] = i.seconds_total;
        info["peak_bytes"] = i.peak_bytes;
        return nb::make_tuple(nb::cast(new Sparse(C), nb::rv_policy::take_ownership), info);
      },
      nb::arg("ctx"), nb::arg("A"), nb::arg("B"), nb::arg("alg") = "auto",
      nb::arg("method") = "adaptive", nb::arg("safety") = 0.0,
      "gcoo_spgemm: (C as a new CSR Sparse, what the product reported).");

  m.def(
      "predict",
      [](Sparse &A, Sparse &B, const std::string &method, int64_t samples, uint64_t seed,
         double rel_error, double max_cost, bool row_nnz) {
        gcoo_predict_options o = predict_options(method, samples, seed, rel_error, max_cost);
        o.want_row_nnz = row_nnz;
        gcoo_prediction p{};
        const gcoo_status st = call([&] { return gcoo_predict(A.A, B.A, &o, &p); });
        check(st);
        nb::dict r;
        r["method"] = gcoo_predict_method_name(p.method);
        r["nnz"] = p.nnz_predicted;
        r["estimate"] = p.nnz_estimate;
        r["flop"] = p.flop_total;
        r["nnz_lower"] = p.nnz_lower;
        r["nnz_upper"] = p.nnz_upper;
        r["compression_ratio"] = p.compression_ratio;
        r["rel_stderr"] = p.rel_stderr;
        r["exact"] = bool(p.exact);
        r["rows_counted"] = p.rows_counted;
        r["flop_counted"] = p.flop_counted;
        r["seconds"] = p.seconds;
        if (p.row_nnz) {
          // copied out of the prediction (one int64 a row, asked for), which is then freed
          const size_t n = static_cast<size_t>(p.nrows);
          int64_t *rows = new int64_t[n ? n : 1];
          std::copy(p.row_nnz, p.row_nnz + n, rows);
          nb::capsule owner(rows, [](void *q) noexcept { delete[] static_cast<int64_t *>(q); });
          r["row_nnz"] = nb::ndarray<nb::numpy, int64_t, nb::ndim<1>>(rows, {n}, owner);
        }
        gcoo_prediction_free(&p);
        return r;
      },
      nb::arg("A"), nb::arg("B"), nb::arg("method") = "adaptive", nb::arg("samples") = 0,
      nb::arg("seed") = GCOO_PREDICT_DEFAULT_SEED, nb::arg("rel_error") = 0.0,
      nb::arg("max_cost") = 0.0, nb::arg("row_nnz") = false,
      "gcoo_predict: what the prediction of nnz(A B) found, as a dict.");
}

} // namespace gcoo_py
