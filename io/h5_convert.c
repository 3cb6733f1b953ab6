/* SPDX-License-Identifier: MIT */
/* io/h5_convert.c: element conversions between what files hold (any integer, float32, float64)
 * and what gcoo keeps (int64 offsets, int32 indices, float/double values), each reporting the
 * first element that does not fit so that the message can name it. Reading in the file's own
 * type and converting here keeps HDF5 transfers free of type conversion, which parallel HDF5
 * 1.10 would otherwise do by falling back from collective to independent I/O. */
#include <math.h>
#include <string.h>

#include "h5_impl.h"

/* clang-format off */
#define H5_SOURCE_KINDS(X)                                                                   \
  X(H5K_I8, int8_t) X(H5K_U8, uint8_t) X(H5K_I16, int16_t) X(H5K_U16, uint16_t)              \
  X(H5K_I32, int32_t) X(H5K_U32, uint32_t) X(H5K_I64, int64_t) X(H5K_U64, uint64_t)          \
  X(H5K_F32, float) X(H5K_F64, double)
/* clang-format on */

#define GCOO_TEMPLATE "h5_convert_impl.h"
#include "gcoo/template.h"

/* Range checks through 64-bit arguments, so that no comparison is "always true" for a type. */
static inline int fits_i32_signed(int64_t v) { return v >= 0 && v <= INT32_MAX; }
static inline int fits_i32_unsigned(uint64_t v) { return v <= (uint64_t)INT32_MAX; }
static inline int fits_i64_signed(int64_t v) {
  (void)v;
  return 1;
}
static inline int fits_i64_unsigned(uint64_t v) { return v <= (uint64_t)INT64_MAX; }

/* clang-format off */
#define H5_INT_KINDS(X)                                                                   \
  X(H5K_I8, int8_t, signed, int64_t) X(H5K_U8, uint8_t, unsigned, uint64_t)               \
  X(H5K_I16, int16_t, signed, int64_t) X(H5K_U16, uint16_t, unsigned, uint64_t)           \
  X(H5K_I32, int32_t, signed, int64_t) X(H5K_U32, uint32_t, unsigned, uint64_t)           \
  X(H5K_I64, int64_t, signed, int64_t) X(H5K_U64, uint64_t, unsigned, uint64_t)
/* clang-format on */

/* Indices are checked in parallel (the whole slab's index array passes through here, in place
 * when the file holds int32); the first bad one is still the one reported. */
/* Kept as written: clang-format would split the OpenMP _Pragma string, which must stay one literal. */
/* clang-format off */
int64_t gcoo__h5_to_index(gcoo__h5_kind k, const void *src, int64_t n, int32_t *dst) {
  switch (k) {
#define TO_INDEX(K, S, SIGN, W)                                                      \
  case K: {                                                                          \
    const S *s = (const S *)src;                                                     \
    int64_t bad = n;                                                                 \
    _Pragma("omp parallel for reduction(min : bad) schedule(static) if (n > GCOO_OMP_MIN_WORK)") \
    for (int64_t i = 0; i < n; i++) {                                                \
      if (!fits_i32_##SIGN((W)s[i])) {                                               \
        if (i < bad) bad = i;                                                        \
      } else {                                                                       \
        dst[i] = (int32_t)s[i];                                                      \
      }                                                                              \
    }                                                                                \
    return bad < n ? bad : -1;                                                       \
  }
    H5_INT_KINDS(TO_INDEX)
#undef TO_INDEX
    default: return n > 0 ? 0 : -1;
  }
}
/* clang-format on */

int64_t gcoo__h5_to_i64(gcoo__h5_kind k, const void *src, int64_t n, int64_t *dst) {
  switch (k) {
#define TO_I64(K, S, SIGN, W)                  \
  case K: {                                    \
    const S *s = (const S *)src;               \
    for (int64_t i = 0; i < n; i++) {          \
      if (!fits_i64_##SIGN((W)s[i])) return i; \
      dst[i] = (int64_t)s[i];                  \
    }                                          \
    return -1;                                 \
  }
    H5_INT_KINDS(TO_I64)
#undef TO_I64
    default: return n > 0 ? 0 : -1;
  }
}

int64_t gcoo__h5_to_values(gcoo__h5_kind k, const void *src, int64_t n, gcoo_dtype t, void *dst) {
  return GCOO_DISPATCH(t, to_values, k, src, n, dst);
}

int64_t gcoo__h5_first_nonfinite(gcoo_dtype t, const void *v, int64_t n) {
  return GCOO_DISPATCH(t, first_nonfinite, v, n);
}

int64_t gcoo__h5_copy2d(gcoo__h5_kind k, const void *src, int64_t ssi, int64_t ssj, gcoo_dtype t,
                        void *dst, int64_t dsi, int64_t dsj, int64_t m, int64_t n) {
  return GCOO_DISPATCH(t, copy2d, k, src, ssi, ssj, dst, dsi, dsj, m, n);
}

double gcoo__h5_value_at(gcoo__h5_kind k, const void *src, int64_t i) {
  switch (k) {
#define VALUE_AT(K, S) \
  case K: return (double)((const S *)src)[i];
    H5_SOURCE_KINDS(VALUE_AT)
#undef VALUE_AT
    default: return NAN;
  }
}
