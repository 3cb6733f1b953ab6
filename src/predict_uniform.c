/* SPDX-License-Identifier: MIT */
/* src/predict_uniform.c: the two designs of Du et al. (arXiv 2207.13848) on a uniform sample of
 * rows, without the traps of the authors' code: the sample is drawn WITHOUT replacement from a
 * seeded generator, its size is never 0 (all rows when the paper's formula gives 0), and all
 * sums are 64-bit.
 *   proposed  (PAPER):     r* = f* / z*,  Z = F / r*  (a ratio estimator with auxiliary FLOP)
 *   reference (REFERENCE): Z = z* M / s              (the expansion estimator)
 * Standard errors are the textbook ones for simple random sampling without replacement
 * (Cochran, Sampling Techniques, 3rd ed., 2.4 and 6.4): the ratio estimator's is linearised. */
#include <math.h>
#include <stdlib.h>

#include "predict_impl.h"

/* Floyd's algorithm: s distinct rows of 0..M-1, in the order drawn; O(s) draws, M/8 bytes. */
static gcoo_status draw_uniform(gcoo_rng *rng, int64_t M, int64_t s, int64_t *rows) {
  uint8_t *seen = NULL;
  GCOO_CALL(gcoo__calloc((void **)&seen, (size_t)(M / 8 + 1), 1, "sample marks"));
  int64_t n = 0;
  for (int64_t j = M - s; j < M; j++) {
    int64_t t = (int64_t)gcoo__rng_below(rng, (uint64_t)j + 1);
    if (seen[t >> 3] & (1u << (t & 7))) t = j;
    seen[t >> 3] |= (uint8_t)(1u << (t & 7));
    rows[n++] = t;
  }
  free(seen);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__predict_uniform(gcoo__pstate *s, gcoo_predict_method method, int64_t samples,
                                  gcoo__pestimate *e) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *rows = NULL;
  const int64_t M = s->M;
  int64_t n = samples;
  if (n == 0) { /* the paper's rule: min(0.003 M, 300) */
    n = (int64_t)(0.003 * (double)M);
    if (n > 300) n = 300;
    if (n == 0) n = M; /* small matrix: every row (the authors' code divides by zero here) */
  }
  if (n > M) n = M;
  GCOO_GOTO(gcoo__malloc_n((void **)&rows, n, sizeof *rows, "sampled rows"));
  GCOO_GOTO(draw_uniform(&s->rng, M, n, rows));
  GCOO_GOTO(gcoo__predict_count_rows(s, rows, n));
  double fs = 0.0, zs = 0.0;
  for (int64_t t = 0; t < n; t++) {
    fs += (double)s->flop[rows[t]];
    zs += (double)s->nnz[rows[t]];
  }
  const double F = (double)s->tot.flop_total, fpc = 1.0 - (double)n / (double)M;
  e->samples = n;
  e->exact = n == M;
  if (method == GCOO_PREDICT_REFERENCE) {
    e->nnz = zs * (double)M / (double)n;
    double mz = zs / (double)n, v = 0.0;
    for (int64_t t = 0; t < n; t++) {
      const double d = s->nnz[rows[t]] - mz;
      v += d * d;
    }
    v = n > 1 ? v / (double)(n - 1) : NAN;
    e->stderr_ = e->exact ? 0.0 : (double)M * sqrt(fpc * v / (double)n);
  } else {
    /* A sample without FLOP says nothing about the ratio: fall back to r = 1 (the bound). */
    const double R = fs > 0.0 ? zs / fs : 1.0;
    e->nnz = R * F;
    double v = 0.0;
    for (int64_t t = 0; t < n; t++) {
      const double d = s->nnz[rows[t]] - R * (double)s->flop[rows[t]];
      v += d * d;
    }
    v = n > 1 ? v / (double)(n - 1) : NAN;
    e->stderr_ = e->exact ? 0.0 : (double)M * sqrt(fpc * v / (double)n);
  }
  e->slope_f = F > 0.0 ? e->nnz / F : 0.0;
  e->slope_g = -1.0;
done:
  free(rows);
  return st;
}
