/* SPDX-License-Identifier: MIT */
/* src/rng.h: reproducible random numbers, the same on every platform and on the GPU, and the
 * streams of the random dense matrices (gcoo_dense_fill_random_rows). */
#ifndef GCOO_SRC_RNG_H
#define GCOO_SRC_RNG_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reproducible random numbers ------------------------------------------------------------
 * SplitMix64 seeding a xoshiro256** stream: the same seed gives the same numbers on every
 * platform, and on the GPU (kernels/backend/dense_random.cu runs these same functions).
 * gcoo__rng_jump-free streams per row/rank come from seeding with (seed, stream id). */
typedef struct gcoo_rng {
  uint64_t s[4];
} gcoo_rng;

static inline GCOO_HOST_DEVICE uint64_t gcoo__splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/** Seed a generator from (seed, stream): different streams are independent sequences. */
static inline GCOO_HOST_DEVICE void gcoo__rng_seed(gcoo_rng *r, uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  for (int i = 0; i < 4; i++) r->s[i] = gcoo__splitmix64(&x);
}
static inline GCOO_HOST_DEVICE uint64_t gcoo__rng_next(gcoo_rng *r) {
  uint64_t *s = r->s;
  uint64_t t = s[1] << 17, x = s[1] * 5;
  uint64_t result = ((x << 7) | (x >> 57)) * 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return result;
}
/** Uniform double in [0, 1) with 53 random bits. */
static inline GCOO_HOST_DEVICE double gcoo__rng_uniform(gcoo_rng *r) {
  return (double)(gcoo__rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
/** Element j of row `row` of the random dense matrices of gcoo_dense_fill_random_rows: row
 *  `row`'s own stream (seed, row), uniform in [-1, 1); the caller rounds it to its element type.
 *  The one definition for the host (src/generate.c) and the GPU (kernels/backend/dense_random.cu). */
static inline GCOO_HOST_DEVICE void gcoo__dense_row_rng(gcoo_rng *r, uint64_t seed, int64_t row) {
  gcoo__rng_seed(r, seed ^ 0x5eed5eed5eed5eedull, (uint64_t)row);
}
static inline GCOO_HOST_DEVICE double gcoo__dense_row_next(gcoo_rng *r) {
  return 2.0 * gcoo__rng_uniform(r) - 1.0;
}
/** Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method). */
static inline uint64_t gcoo__rng_below(gcoo_rng *r, uint64_t n) {
  uint64_t x = gcoo__rng_next(r);
  __uint128_t m = (__uint128_t)x * n;
  uint64_t l = (uint64_t)m;
  if (l < n) {
    uint64_t t = (0 - n) % n;
    while (l < t) {
      x = gcoo__rng_next(r);
      m = (__uint128_t)x * n;
      l = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

#ifdef __cplusplus
}
#endif
#endif
