/* SPDX-License-Identifier: MIT */
/* src/predict_pps.c: rows drawn with probability proportional to their FLOP, with replacement.
 * With p(i) = flop(i) / F, each draw's nnz(i) / p(i) = F c(i), c(i) = nnz(i) / flop(i) in (0, 1],
 * is an unbiased estimate of Z (Hansen and Hurwitz, 1943), so Z = F mean(c) over the draws, and
 * its variance F^2 Var(c) / s is estimated from the draws themselves. The ratio c is what is
 * averaged: it varies far less from row to row than nnz(i) does. A row drawn twice is counted
 * once. */
#include <math.h>
#include <stdlib.h>

#include "predict_impl.h"

gcoo_status gcoo__predict_pps(gcoo__pstate *s, int64_t samples, gcoo__pestimate *e) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *cum = NULL, *rows = NULL;
  const int64_t M = s->M, n = samples ? samples : 300;
  const int64_t F = s->tot.flop_total;
  GCOO_GOTO(gcoo__malloc_n((void **)&cum, M + 1, sizeof *cum, "cumulative FLOP"));
  GCOO_GOTO(gcoo__malloc_n((void **)&rows, n, sizeof *rows, "sampled rows"));
  cum[0] = 0;
  for (int64_t i = 0; i < M; i++) cum[i + 1] = cum[i] + s->flop[i];
  for (int64_t t = 0; t < n; t++) {
    /* the row i with cum[i] <= x < cum[i+1] for x uniform in [0, F) */
    const int64_t x = (int64_t)gcoo__rng_below(&s->rng, (uint64_t)F);
    rows[t] = gcoo__segment_of(cum, M, x);
  }
  GCOO_GOTO(gcoo__predict_count_rows(s, rows, n));
  double sum = 0.0, sum2 = 0.0;
  for (int64_t t = 0; t < n; t++) {
    const double c = (double)s->nnz[rows[t]] / (double)s->flop[rows[t]];
    sum += c;
    sum2 += c * c;
  }
  const double mean = sum / (double)n;
  const double var = n > 1 ? (sum2 - sum * mean) / (double)(n - 1) : NAN;
  e->nnz = (double)F * mean;
  e->stderr_ = (double)F * sqrt((var > 0.0 ? var : 0.0) / (double)n);
  e->samples = n;
  e->exact = 0;
  e->slope_f = mean;
  e->slope_g = -1.0;
done:
  free(cum);
  free(rows);
  return st;
}
