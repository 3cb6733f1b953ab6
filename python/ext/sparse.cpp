// SPDX-License-Identifier: MIT
// python/ext/sparse.cpp: gcoo_sparse objects from the arrays of a scipy.sparse matrix (CSR, CSC,
// COO), and views of a matrix's arrays for the scipy object a product returns. The library copies
// the arrays it is given (its matrices are its own and immutable); the views it returns are not
// copied: they keep the matrix alive.

#include "binding.hpp"

namespace gcoo_py {

using I64 = nb::ndarray<nb::ro, const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using I32 = nb::ndarray<nb::ro, const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Values = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

void Sparse::destroy() {
  if (!A) return;
  const double t0 = monotonic_seconds(); // with the GIL held: this may run at exit
  gcoo_sparse_destroy(&A);
  add_library_seconds(monotonic_seconds() - t0);
}

gcoo_sparse_info Sparse::info() const {
  gcoo_sparse_info inf;
  check(gcoo_sparse_get_info(A, &inf));
  return inf;
}

namespace {
const char *format_name(gcoo_format f) {
  switch (f) {
    case GCOO_FORMAT_COO: return "coo";
    case GCOO_FORMAT_CSR: return "csr";
    case GCOO_FORMAT_CSC: return "csc";
    case GCOO_FORMAT_GCOO: return "gcoo";
  }
  return "unknown";
}

void need_length(size_t have, int64_t want, const char *what) {
  if (static_cast<int64_t>(have) != want)
    fail(GCOO_ERR_SHAPE, std::string(what) + " has " + std::to_string(have) + " entries, " +
                             std::to_string(want) + " expected");
}

// values: float32 or float64 of the requested dtype (the caller converts explicitly)
const void *values_of(const Values &v, gcoo_dtype dtype, int64_t nnz) {
  need_length(v.shape(0), nnz, "data");
  if (dtype_of(v.dtype(), "data") != dtype)
    fail(GCOO_ERR_DTYPE, "data: element type differs from dtype");
  return v.data();
}

Sparse *compressed(bool rows, const std::string &dtype, int64_t nrows, int64_t ncols, I64 ptr,
                   I32 ind, Values val) {
  const gcoo_dtype t = dtype_from_name(dtype);
  need_length(ptr.shape(0), (rows ? nrows : ncols) + 1,
              rows ? "indptr (rows + 1)" : "indptr (columns + 1)");
  const int64_t nnz = ptr.shape(0) ? ptr.data()[ptr.shape(0) - 1] : 0;
  need_length(ind.shape(0), nnz, "indices");
  const void *v = values_of(val, t, nnz);
  gcoo_sparse A = nullptr;
  const gcoo_status st = call([&] {
    return rows ? gcoo_sparse_create_csr(&A, t, nrows, ncols, ptr.data(), ind.data(), v, 0)
                : gcoo_sparse_create_csc(&A, t, nrows, ncols, ptr.data(), ind.data(), v, 0);
  });
  check(st);
  return new Sparse(A);
}
} // namespace

void bind_sparse(nb::module_ &m) {
  nb::class_<Sparse>(m, "Sparse", "A gcoo_sparse matrix (the library's own copy of a matrix).")
      .def_static(
          "from_csr",
          [](const std::string &dtype, int64_t nrows, int64_t ncols, I64 indptr, I32 indices,
             Values data) { return compressed(true, dtype, nrows, ncols, indptr, indices, data); },
          nb::arg("dtype"), nb::arg("nrows"), nb::arg("ncols"), nb::arg("indptr").noconvert(),
          nb::arg("indices").noconvert(), nb::arg("data").noconvert(),
          "gcoo_sparse_create_csr: columns sorted, duplicates summed.")
      .def_static(
          "from_csc",
          [](const std::string &dtype, int64_t nrows, int64_t ncols, I64 indptr, I32 indices,
             Values data) { return compressed(false, dtype, nrows, ncols, indptr, indices, data); },
          nb::arg("dtype"), nb::arg("nrows"), nb::arg("ncols"), nb::arg("indptr").noconvert(),
          nb::arg("indices").noconvert(), nb::arg("data").noconvert(),
          "gcoo_sparse_create_csc: rows sorted, duplicates summed.")
      .def_static(
          "from_coo",
          [](const std::string &dtype, int64_t nrows, int64_t ncols, I32 row, I32 col,
             Values data) {
            const gcoo_dtype t = dtype_from_name(dtype);
            const int64_t nnz = static_cast<int64_t>(row.shape(0));
            need_length(col.shape(0), nnz, "col");
            const void *v = values_of(data, t, nnz);
            gcoo_sparse A = nullptr;
            const gcoo_status st = call([&] {
              return gcoo_sparse_create_coo(&A, t, nrows, ncols, nnz, row.data(), col.data(), v, 0);
            });
            check(st);
            return new Sparse(A);
          },
          nb::arg("dtype"), nb::arg("nrows"), nb::arg("ncols"), nb::arg("row").noconvert(),
          nb::arg("col").noconvert(), nb::arg("data").noconvert(),
          "gcoo_sparse_create_coo: sorted by row then column, duplicates summed.")
      .def_prop_ro("shape",
                   [](const Sparse &s) {
                     gcoo_sparse_info i = s.info();
                     return nb::make_tuple(i.nrows, i.ncols);
                   })
      .def_prop_ro("nnz", [](const Sparse &s) { return s.info().nnz; })
      .def_prop_ro("dtype",
                   [](const Sparse &s) {
                     return s.info().dtype == GCOO_FLOAT32 ? "float32" : "float64";
                   })
      .def_prop_ro("format", [](const Sparse &s) { return format_name(s.info().format); })
      .def(
          "csr_arrays",
          [](Sparse &s) {
            gcoo_sparse_info i = s.info();
            if (i.format != GCOO_FORMAT_CSR)
              fail(GCOO_ERR_INVALID_ARG, "csr_arrays: the matrix is not CSR");
            gcoo_sparse_arrays a;
            check(gcoo_sparse_get_arrays(s.A, &a));
            nb::handle owner = nb::find(&s);
            const size_t np1 = static_cast<size_t>(i.nrows + 1), nnz = static_cast<size_t>(i.nnz);
            // writable views: the matrix is referenced by nothing but the object they keep alive
            auto ptr = nb::ndarray<nb::numpy, int64_t, nb::ndim<1>>(const_cast<int64_t *>(a.ptr),
                                                                    {np1}, owner);
            auto ind = nb::ndarray<nb::numpy, int32_t, nb::ndim<1>>(const_cast<int32_t *>(a.ind),
                                                                    {nnz}, owner);
            size_t shape[1] = {nnz};
            auto val = nb::ndarray<nb::numpy>(const_cast<void *>(a.values), 1, shape, owner,
                                              nullptr,
                                              i.dtype == GCOO_FLOAT32 ? nb::dtype<float>()
                                                                      : nb::dtype<double>());
            return nb::make_tuple(ptr, ind, val);
          },
          "(indptr int64, indices int32, data) of a CSR matrix: views of the library's arrays "
          "(no copy), valid while they are referenced.");
}

} // namespace gcoo_py
