/* SPDX-License-Identifier: MIT */
/* src/predict_adaptive.c: gcoo's default predictor (docs/predictor.md has the statistics).
 *
 * 1. Bounds. Every row has lo(i) <= nnz(i) <= hi(i) (gcoo/predict.h), known for all rows from
 *    the FLOP pass. Only g(i) = hi(i) - lo(i) is uncertain: Z = sum lo + sum g(i) u(i) with
 *    u(i) = (nnz(i) - lo(i)) / g(i) in [0, 1]. Rows with g = 0 (one entry in A, ...) are exact.
 *    When C compresses little, sum lo is most of Z and the uncertain part is small.
 * 2. Design. The rows with g > 0 are sorted by g (implicit stratification: rows of a similar
 *    size tend to compress alike) and s points are laid systematically on their cumulative g:
 *    a random start in [0, I), then every I = R / s. A row whose g is at least one interval
 *    would be hit for sure: such rows are taken whole (counted, no sampling error) and the
 *    interval recomputed on the rest until none is left, so every other row is hit at most
 *    once, with probability g(i) / I. The Horvitz-Thompson estimate
 *        Z = sum lo + sum_taken g u + I sum_hits u
 *    is unbiased for every s. Its variance is estimated from successive differences of the
 *    points' values (Wolter, Introduction to Variance Estimation, 2nd ed., 4.4): a conservative
 *    estimate for a sorted population.
 * 3. Size. s starts at `first` and doubles (reusing every row already counted) until the
 *    estimated relative standard error is at most `rel_error` with at least MIN_POINTS points,
 *    or every uncertain row is taken (exact), or the next doubling would count more than
 *    `max_cost` of the FLOP. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict_impl.h"

enum { MIN_POINTS = 32 }; /* fewer points give too noisy a variance estimate to stop on */

/* Stable LSD radix sort of the rows with g > 0 by g ascending (ties keep row order): O(n). */
static gcoo_status sort_uncertain(const gcoo__pstate *s, int64_t *U, int64_t nU) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *tmp = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&tmp, nU, sizeof *tmp, "sort buffer"));
  for (int shift = 0; shift < 32; shift += 8) {
    int64_t count[257] = {0};
    int any = 0;
    for (int64_t t = 0; t < nU; t++) {
      const uint32_t g = (uint32_t)(s->hi[U[t]] - s->lo[U[t]]);
      count[((g >> shift) & 255u) + 1]++;
      any |= (g >> shift) > 255u;
    }
    for (int b = 0; b < 256; b++) count[b + 1] += count[b];
    for (int64_t t = 0; t < nU; t++) {
      const uint32_t g = (uint32_t)(s->hi[U[t]] - s->lo[U[t]]);
      tmp[count[(g >> shift) & 255u]++] = U[t];
    }
    memcpy(U, tmp, (size_t)nU * sizeof *U);
    if (!any) break; /* no key has bits above this byte */
  }
done:
  free(tmp);
  return st;
}

/* Expected FLOP counted by a design of s points (rows hit with probability min(1, s g / G)). */
static double expected_cost(const gcoo__pstate *s, const int64_t *U, int64_t nU, double G,
                            double npts) {
  double c = 0.0;
  for (int64_t t = 0; t < nU; t++) {
    const int64_t i = U[t];
    const double p = npts * (double)(s->hi[i] - s->lo[i]) / G;
    c += (p < 1.0 ? p : 1.0) * (double)s->flop[i];
  }
  return c;
}

gcoo_status gcoo__predict_adaptive(gcoo__pstate *s, int64_t first, double rel_error,
                                   double max_cost, gcoo__pestimate *e) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *U = NULL, *rows = NULL, nU = 0;
  double *y = NULL;
  const int64_t M = s->M;
  const double F = (double)s->tot.flop_total;
  GCOO_GOTO(gcoo__malloc_n((void **)&U, M, sizeof *U, "uncertain rows"));
  for (int64_t i = 0; i < M; i++)
    if (s->hi[i] > s->lo[i]) U[nU++] = i;
  GCOO_GOTO(sort_uncertain(s, U, nU));
  int64_t G = 0;
  for (int64_t t = 0; t < nU; t++) G += s->hi[U[t]] - s->lo[U[t]];
  GCOO_GOTO(gcoo__malloc_n((void **)&rows, nU, sizeof *rows, "rows to count"));
  GCOO_GOTO(gcoo__malloc_n((void **)&y, nU, sizeof *y, "point values"));
  const double u0 = gcoo__rng_uniform(&s->rng); /* one start for every size: nested-ish samples */

  int64_t npts = first < 1 ? 1 : first;
  double est = 0.0, se = INFINITY;
  int64_t ntake = 0, pts = 0, drawn = 0;
  for (;;) {
    /* take whole, from the largest g down, every row with g >= remaining / remaining points */
    int64_t rem = G;
    pts = npts;
    ntake = 0;
    while (ntake < nU && pts > 0) {
      const int64_t i = U[nU - 1 - ntake];
      const int64_t g = s->hi[i] - s->lo[i];
      if ((double)g * (double)pts < (double)rem) break;
      rem -= g;
      pts--;
      ntake++;
    }
    if (rem == 0) pts = 0;
    /* systematic points on the cumulative g of the other rows (ascending g) */
    int64_t nrows = 0;
    for (int64_t t = nU - ntake; t < nU; t++) rows[nrows++] = U[t];
    const int64_t nlight = nU - ntake, first_hit = nrows;
    if (pts > 0) {
      const double I = (double)rem / (double)pts;
      int64_t j = 0, cum = 0;
      double next = u0 * I;
      for (int64_t t = 0; t < nlight && j < pts; t++) {
        const int64_t i = U[t];
        cum += s->hi[i] - s->lo[i];
        if ((double)cum > next) { /* the point lies in this row's segment (g < I: one point) */
          rows[nrows++] = i;
          j++;
          next = ((double)j + u0) * I;
        }
      }
      while (j < pts) { /* rounding left a point past the end: it belongs to the last row */
        rows[nrows++] = U[nlight - 1];
        j++;
      }
    }
    GCOO_GOTO(gcoo__predict_count_rows(s, rows, nrows));
    drawn += nrows;
    /* the estimate */
    double known = (double)s->tot.lo_total;
    for (int64_t t = 0; t < first_hit; t++) known += s->nnz[rows[t]] - s->lo[rows[t]];
    est = known;
    se = 0.0;
    if (pts > 0) {
      double sum = 0.0, ss = 0.0;
      for (int64_t t = 0; t < pts; t++) {
        const int64_t i = rows[first_hit + t];
        y[t] = (double)rem * (double)(s->nnz[i] - s->lo[i]) / (double)(s->hi[i] - s->lo[i]);
        sum += y[t];
      }
      est += sum / (double)pts;
      for (int64_t t = 1; t < pts; t++) ss += (y[t] - y[t - 1]) * (y[t] - y[t - 1]);
      se = pts > 1 ? sqrt(ss / (2.0 * (double)(pts - 1)) / (double)pts) : INFINITY;
    }
    if (pts == 0) break;                                   /* exact */
    if (pts >= MIN_POINTS && se <= rel_error * est) break; /* precise enough */
    if (expected_cost(s, U, nU, (double)G, 2.0 * (double)npts) > max_cost * F) break;
    npts *= 2;
  }
  e->nnz = est;
  e->stderr_ = se;
  e->samples = drawn;
  e->exact = pts == 0;
  /* uncounted rows: lo + slope (hi - lo), slope so that the rows add up to the estimate */
  double rest = est, gun = 0.0;
  for (int64_t i = 0; i < M; i++) {
    if (s->nnz[i] >= 0)
      rest -= s->nnz[i];
    else {
      rest -= s->lo[i];
      gun += s->hi[i] - s->lo[i];
    }
  }
  double slope = gun > 0.0 ? rest / gun : 0.0;
  e->slope_g = slope < 0.0 ? 0.0 : (slope > 1.0 ? 1.0 : slope);
  e->slope_f = 0.0;
done:
  free(U);
  free(rows);
  free(y);
  return st;
}
