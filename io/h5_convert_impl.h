/* SPDX-License-Identifier: MIT */
/* io/h5_convert_impl.h: conversions into values of one element type (GCOO_T), written once and
 * instantiated for float and double by io/h5_convert.c through gcoo/template.h. Sources are the
 * element kinds of gcoo__h5_kind (H5_SOURCE_KINDS, defined by the including file). */

/* Every element of src (kind k) converted to GCOO_T, rounded to nearest. */
static void GCOO_FN(convert)(gcoo__h5_kind k, const void *src, int64_t n, GCOO_T *dst) {
  switch (k) {
#define H5_CONVERT_CASE(K, S)                              \
  case K: {                                                \
    const S *s = (const S *)src;                           \
    for (int64_t i = 0; i < n; i++) dst[i] = (GCOO_T)s[i]; \
    break;                                                 \
  }
    H5_SOURCE_KINDS(H5_CONVERT_CASE)
#undef H5_CONVERT_CASE
    default: break;
  }
}

/* The first non-finite element, or -1. Parallel: a slab's values are checked at memory speed
 * (a serial scan of 100M values cost ~0.1 s of a read that the disk does in 0.5 s). */
static int64_t GCOO_FN(first_nonfinite)(const GCOO_T *v, int64_t n) {
  int64_t bad = n;
#pragma omp parallel for reduction(min : bad) schedule(static) if (n > GCOO_OMP_MIN_WORK)
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(v[i]) && i < bad) bad = i;
  return bad < n ? bad : -1;
}

static int64_t GCOO_FN(to_values)(gcoo__h5_kind k, const void *src, int64_t n, GCOO_T *dst) {
  GCOO_FN(convert)(k, src, n, dst);
  return GCOO_FN(first_nonfinite)(dst, n);
}

/* dst[i*dsi + j*dsj] = src[i*ssi + j*ssj]: the strided copy behind dense reads and writes in
 * any pair of layouts. Row by row through a contiguous conversion of one source row when the
 * source row is contiguous (the common row-major file), element by element otherwise. */
static int64_t GCOO_FN(copy2d)(gcoo__h5_kind k, const void *src, int64_t ssi, int64_t ssj,
                               GCOO_T *dst, int64_t dsi, int64_t dsj, int64_t m, int64_t n) {
  size_t es = gcoo__h5_kind_size(k);
  const char *s = (const char *)src;
  for (int64_t i = 0; i < m; i++) {
    if (ssj == 1 && dsj == 1) {
      GCOO_FN(convert)(k, s + (size_t)(i * ssi) * es, n, dst + i * dsi);
    } else {
      for (int64_t j = 0; j < n; j++) {
        GCOO_T x;
        GCOO_FN(convert)(k, s + (size_t)(i * ssi + j * ssj) * es, 1, &x);
        dst[i * dsi + j * dsj] = x;
      }
    }
    for (int64_t j = 0; j < n; j++)
      if (!isfinite(dst[i * dsi + j * dsj])) return i * n + j;
  }
  return -1;
}
