/* SPDX-License-Identifier: MIT */
/* src/predict_impl.h: state the prediction methods share (private to src/predict*.c). */
#ifndef GCOO_PREDICT_IMPL_H
#define GCOO_PREDICT_IMPL_H

#include "gcoo/predict.h"
#include "spgemm_rows.h"

typedef struct gcoo__pstate {
  gcoo_csr_view A, B;
  int64_t M, N;
  int64_t *flop;    /* M: flop(i) */
  int32_t *lo, *hi; /* M: exact bounds on nnz(i) */
  gcoo_row_bounds tot;
  int32_t *nnz;         /* M: counted nnz(i), -1 while unknown (-2 queued) */
  int64_t rows_counted; /* rows counted with the hash table (rows with lo == hi are free) */
  int64_t flop_counted; /* their FLOP */
  gcoo_rng rng;
  uint64_t seed; /* the options' seed (CLASSES hashes rows with it) */
} gcoo__pstate;

/* What a method hands back. */
typedef struct gcoo__pestimate {
  double nnz;      /* estimate of nnz(C) */
  double stderr_;  /* estimated standard error (absolute), NaN if none, 0 if exact */
  int64_t samples; /* sample points drawn */
  int exact;
  /* per-row fill for uncounted rows: nnz(i) ~ lo + slope_g (hi - lo) (ADAPTIVE) or
     flop * slope_f (ratio designs) */
  double slope_f, slope_g;
  /* CLASSES: per-row fill lo + u_c (hi - lo) with u_c of the row's class floor(log2 hi) */
  int use_classes;
  double class_u[32];
} gcoo__pestimate;

/* Count nnz(i) of the listed rows that are still unknown (duplicates allowed), in parallel. */
gcoo_status gcoo__predict_count_rows(gcoo__pstate *s, const int64_t *rows, int64_t n);

/* The sampling designs. */
gcoo_status gcoo__predict_uniform(gcoo__pstate *s, gcoo_predict_method method, int64_t samples,
                                  gcoo__pestimate *e);
gcoo_status gcoo__predict_pps(gcoo__pstate *s, int64_t samples, gcoo__pestimate *e);
gcoo_status gcoo__predict_classes(gcoo__pstate *s, gcoo__pestimate *e);
gcoo_status gcoo__predict_adaptive(gcoo__pstate *s, int64_t first, double rel_error,
                                   double max_cost, gcoo__pestimate *e);

#endif
