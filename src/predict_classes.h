/* SPDX-License-Identifier: MIT */
/* src/predict_classes.h: the arithmetic of the CLASSES predictor, shared by the CPU method
 * (src/predict_classes.c) and the GPU's (kernels/spgemm/spgemm_kernels.cuh), so that both give the
 * same estimate for the same seed (tests/gpu/t503 checks it). Private.
 *
 * Rows with uncertainty (hi(i) > lo(i)) are classed by floor(log2 hi(i)). In every class the
 * rows whose coin (splitmix64 of seed and row) falls under the class's threshold are counted
 * exactly: a share GCOO_PREDICT_CLASSES_RATE of its rows, at least
 * GCOO_PREDICT_CLASSES_MIN_ROWS (all of a smaller class). Per class, u = sum(z - lo) /
 * sum(hi - lo) over the sampled rows; nnz(C) = sum lo + sum_c u_c G_c (G_c: sum of hi - lo over
 * the class). Integer sums and one rounding per operation: the same double on both sides. */
#ifndef GCOO_PREDICT_CLASSES_H
#define GCOO_PREDICT_CLASSES_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GCOO_HD __host__ __device__
#else
#define GCOO_HD
#endif

#define GCOO_PREDICT_CLASSES_COUNT 32
#define GCOO_PREDICT_CLASSES_RATE 0.02
#define GCOO_PREDICT_CLASSES_MIN_ROWS 64.0
#define GCOO_PREDICT_CLASSES_UFIX 1073741824.0 /* fractions as fixed point, 2^30 */

static inline GCOO_HD int gcoo__class_of(int32_t hi) {
#ifdef __CUDA_ARCH__
  return 31 - __clz(hi);
#else
  return 31 - __builtin_clz((unsigned)hi);
#endif
}

/* The sampling coin of a row: the top 32 bits of splitmix64(seed + (row + 1) golden). */
static inline GCOO_HD uint32_t gcoo__row_coin(uint64_t seed, int64_t row) {
  uint64_t x = seed + 0x9e3779b97f4a7c15ull * (uint64_t)(row + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return (uint32_t)(x >> 32);
}

/* A row of a class of `rows` rows is sampled when its coin is below this (2^32: always). */
static inline GCOO_HD unsigned long long gcoo__class_threshold(unsigned long long rows) {
  if (rows == 0) return 0;
  double q = GCOO_PREDICT_CLASSES_MIN_ROWS / (double)rows;
  if (q < GCOO_PREDICT_CLASSES_RATE) q = GCOO_PREDICT_CLASSES_RATE;
  if (q >= 1.0) return 1ull << 32;
  return (unsigned long long)(q * 4294967296.0);
}

static inline GCOO_HD double gcoo__class_fraction(unsigned long long s_g, unsigned long long s_dz) {
  return s_g ? (double)s_dz / (double)s_g : 1.0;
}

/* (z - lo) / (hi - lo) of a counted row, fixed point (for the class's largest). */
static inline GCOO_HD unsigned int gcoo__class_ufix(int32_t z, int32_t lo, int32_t hi) {
  return (unsigned int)((double)(z - lo) / (double)(hi - lo) * GCOO_PREDICT_CLASSES_UFIX);
}

/* The room fraction of a class: at least the largest fraction its sample showed, and safety x
 * the mean; safety < 1 (tests forcing the overflow path) gives safety x the mean alone. */
static inline GCOO_HD double gcoo__class_room(double u, unsigned int umax, double safety) {
  const double mx = (double)umax / GCOO_PREDICT_CLASSES_UFIX;
  double v = u * safety;
  if (safety >= 1.0 && v < mx) v = mx;
  return v < 1.0 ? v : 1.0;
}

/* lo + ceil(v (hi - lo)), at most hi. */
static inline GCOO_HD int32_t gcoo__class_rows_room(int32_t lo, int32_t hi, double v) {
  const int32_t g = hi - lo;
  const int64_t extra = (int64_t)ceil(v * (double)g);
  return lo + (int32_t)(extra < g ? extra : g);
}

/* The room of a whole product: sum lo + sum_c min(safety u_c, 1) G_c, at most sum hi, rounded
 * up (the in-place pass of the GPU SpGEMM allocates C at it: a total, so the mean fraction and
 * not a class's largest). */
static inline double gcoo__class_total_room(unsigned long long sum_lo, unsigned long long sum_hi,
                                            const unsigned long long *g,
                                            const unsigned long long *s_g,
                                            const unsigned long long *s_dz, double safety) {
  double e = (double)sum_lo;
  for (int c = 0; c < GCOO_PREDICT_CLASSES_COUNT; c++) {
    const double v = safety * gcoo__class_fraction(s_g[c], s_dz[c]);
    e += (v < 1.0 ? v : 1.0) * (double)g[c];
  }
  e = ceil(e);
  return e < (double)sum_hi ? e : (double)sum_hi;
}
/* nnz(C) = sum lo + sum_c u_c G_c, classes in order. */
static inline double gcoo__class_estimate(unsigned long long sum_lo, const unsigned long long *g,
                                          const unsigned long long *s_g,
                                          const unsigned long long *s_dz) {
  double e = (double)sum_lo;
  for (int c = 0; c < GCOO_PREDICT_CLASSES_COUNT; c++)
    e += gcoo__class_fraction(s_g[c], s_dz[c]) * (double)g[c];
  return e;
}

#endif
