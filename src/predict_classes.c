/* SPDX-License-Identifier: MIT */
/* src/predict_classes.c: the CLASSES predictor on the CPU (src/predict_classes.h has its
 * arithmetic, shared with the GPU's, which sizes the GPU SpGEMM's rooms): a per-class sample of
 * the rows with uncertainty, each class's mean fraction u_c of its rows' gap hi - lo filled, and
 * nnz(C) = sum lo + sum_c u_c G_c. Rows are classed by floor(log2 hi): rows of similar size
 * compress alike, and the ratio is estimated within each class instead of once per product. */
#include <stdlib.h>
#include <string.h>

#include "predict_classes.h"
#include "predict_impl.h"

gcoo_status gcoo__predict_classes(gcoo__pstate *s, gcoo__pestimate *e) {
  gcoo_status st = GCOO_SUCCESS;
  enum { NC = GCOO_PREDICT_CLASSES_COUNT };
  unsigned long long rows[NC] = {0}, g[NC] = {0}, s_g[NC] = {0}, s_dz[NC] = {0}, sum_lo = 0;
  unsigned long long thr[NC];
  int64_t *list = NULL, n = 0;
  const int64_t M = s->M;
  const uint64_t seed = s->seed;
  for (int64_t i = 0; i < M; i++) {
    sum_lo += (unsigned long long)s->lo[i];
    if (s->hi[i] > s->lo[i]) {
      const int c = gcoo__class_of(s->hi[i]);
      rows[c]++;
      g[c] += (unsigned long long)(s->hi[i] - s->lo[i]);
    }
  }
  for (int c = 0; c < NC; c++) thr[c] = gcoo__class_threshold(rows[c]);
  GCOO_GOTO(gcoo__malloc_n((void **)&list, M, sizeof *list, "sampled rows"));
  for (int64_t i = 0; i < M; i++)
    if (s->hi[i] > s->lo[i] &&
        (unsigned long long)gcoo__row_coin(seed, i) < thr[gcoo__class_of(s->hi[i])])
      list[n++] = i;
  GCOO_GOTO(gcoo__predict_count_rows(s, list, n));
  for (int64_t t = 0; t < n; t++) {
    const int64_t i = list[t];
    const int c = gcoo__class_of(s->hi[i]);
    s_g[c] += (unsigned long long)(s->hi[i] - s->lo[i]);
    s_dz[c] += (unsigned long long)(s->nnz[i] - s->lo[i]);
  }
  e->nnz = gcoo__class_estimate(sum_lo, g, s_g, s_dz);
  e->stderr_ = NAN;
  e->samples = n;
  e->exact = 1;
  for (int c = 0; c < NC; c++) {
    e->class_u[c] = gcoo__class_fraction(s_g[c], s_dz[c]);
    if (rows[c] > 0 && s_g[c] < g[c]) e->exact = 0; /* some uncertain row was not counted */
  }
  e->use_classes = 1;
done:
  free(list);
  return st;
}
