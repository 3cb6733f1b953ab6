// SPDX-License-Identifier: MIT
// python/ext/dense.cpp: arrays (NumPy, CuPy, PyTorch: anything with the buffer protocol or
// DLPack) described as gcoo_dense over their own memory. Nothing is ever copied here: an array
// whose layout gcoo cannot read in place is refused with a message saying what to pass.
#include <string>

#include "binding.hpp"

namespace gcoo_py {

namespace {
template <typename Arr>
gcoo_dense view(const Arr &a, const char *what) {
  const size_t nd = a.ndim();
  if (nd != 1 && nd != 2)
    fail(GCOO_ERR_SHAPE,
         std::string(what) + ": a 1-D or 2-D array is needed, not " + std::to_string(nd) + "-D");
  gcoo_dense d{};
  d.dtype = dtype_of(a.dtype(), what);
  if (a.device_type() == nb::device::cpu::value)
    d.mem = GCOO_MEM_HOST;
  else if (a.device_type() == nb::device::cuda::value ||
           a.device_type() == nb::device::cuda_managed::value)
    d.mem = GCOO_MEM_DEVICE;
  else
    fail(GCOO_ERR_UNSUPPORTED, std::string(what) + ": memory of DLPack device type " +
                                   std::to_string(a.device_type()) +
                                   " (gcoo reads host and CUDA memory)");
  const int64_t rows = static_cast<int64_t>(a.shape(0));
  const int64_t cols = nd == 2 ? static_cast<int64_t>(a.shape(1)) : 1;
  const int64_t s0 = a.stride(0), s1 = nd == 2 ? a.stride(1) : 1;
  d.nrows = rows;
  d.ncols = cols;
  d.data = const_cast<void *>(static_cast<const void *>(a.data()));
  d.owned = 0;
  // a stride along a dimension of extent 1 is never used: any value is fine there
  const bool unit_cols = cols <= 1 || s1 == 1, unit_rows = rows <= 1 || s0 == 1;
  if (unit_cols && (rows <= 1 || s0 >= cols)) {
    d.layout = GCOO_ROW_MAJOR;
    d.ld = rows <= 1 ? (cols > 0 ? cols : 1) : s0;
  } else if (unit_rows && (cols <= 1 || s1 >= rows)) {
    d.layout = GCOO_COL_MAJOR;
    d.ld = cols <= 1 ? (rows > 0 ? rows : 1) : s1;
  } else {
    fail(GCOO_ERR_INVALID_ARG,
         std::string(what) + ": strides (" + std::to_string(s0) + ", " + std::to_string(s1) +
             ") elements: gcoo reads a matrix in place only with unit stride along rows or "
             "columns and the other stride at least the row (column) length; gcoo copies no "
             "operand behind the caller's back: pass numpy.ascontiguousarray(...) if a copy is "
             "meant");
  }
  return d;
}
} // namespace

gcoo_dtype dtype_of(const nb::dlpack::dtype &t, const char *what) {
  if (t == nb::dtype<float>()) return GCOO_FLOAT32;
  if (t == nb::dtype<double>()) return GCOO_FLOAT64;
  fail(GCOO_ERR_DTYPE, std::string(what) + ": elements of DLPack type code " +
                           std::to_string(t.code) + ", " + std::to_string(t.bits) +
                           " bits; gcoo computes in float32 or float64 only");
}

gcoo_dtype dtype_from_name(const std::string &name) {
  if (name == "float32") return GCOO_FLOAT32;
  if (name == "float64") return GCOO_FLOAT64;
  fail(GCOO_ERR_DTYPE, "element type '" + name + "': gcoo computes in float32 or float64 only");
}

gcoo_dense dense_view(const nb::ndarray<nb::ro> &a, const char *what) { return view(a, what); }
gcoo_dense dense_view(const nb::ndarray<> &a, const char *what) { return view(a, what); }

void bind_dense(nb::module_ &m) {
  m.def(
      "describe_array",
      [](Array a) {
        gcoo_dense d = dense_view(a, "array");
        return nb::make_tuple(d.layout == GCOO_ROW_MAJOR ? "row" : "col", d.nrows, d.ncols, d.ld,
                              d.mem == GCOO_MEM_HOST ? "host" : "device");
      },
      nb::arg("a").noconvert(),
      "How gcoo reads an array in place: (layout, rows, columns, leading dimension, memory).");
}

} // namespace gcoo_py
