/* SPDX-License-Identifier: MIT */
/* src/predict.c: gcoo_predict: the FLOP/bounds pass, the exact row counter every method shares,
 * the choice of method, and the prediction's per-row sizes. The sampling designs themselves
 * are in predict_uniform.c (the paper's two), predict_pps.c and predict_adaptive.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "predict_classes.h"
#include "predict_impl.h"

static const char *const method_names[] = {"default", "adaptive", "paper", "reference",
                                           "pps",     "upper",    "exact", "classes"};

const char *gcoo_predict_method_name(gcoo_predict_method m) {
  return gcoo__name_of(method_names, GCOO_COUNT_OF(method_names), (int)m);
}

int gcoo_predict_method_from_name(const char *name) {
  return gcoo__index_of(method_names, GCOO_COUNT_OF(method_names), name);
}

void gcoo_prediction_free(gcoo_prediction *p) {
  if (!p) return;
  free(p->row_flop);
  free(p->row_nnz);
  p->row_flop = NULL;
  p->row_nnz = NULL;
}

gcoo_status gcoo__predict_count_rows(gcoo__pstate *s, const int64_t *rows, int64_t n) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *todo = NULL, nt = 0, ub_max = 0, fsum = 0;
  GCOO_GOTO(gcoo__malloc_n((void **)&todo, n, sizeof *todo, "rows to count"));
  for (int64_t t = 0; t < n; t++) {
    const int64_t i = rows[t];
    if (s->nnz[i] != -1) continue;
    if (s->lo[i] == s->hi[i]) { /* nothing to count: at most one row of B contributes */
      s->nnz[i] = s->lo[i];
      continue;
    }
    s->nnz[i] = -2;
    todo[nt++] = i;
    if (s->hi[i] > ub_max) ub_max = s->hi[i];
    fsum += s->flop[i];
  }
  if (nt) {
    const int bits = gcoo__table_bits(ub_max);
    int failed = 0;
#pragma omp parallel
    {
      gcoo_row_table table;
      const int ok = gcoo__row_table_init(&table, bits);
      if (!ok) {
#pragma omp atomic write
        failed = 1;
      }
#pragma omp for schedule(dynamic, 1)
      for (int64_t t = 0; t < nt; t++) {
        if (!ok) continue;
        const int64_t i = todo[t];
        s->nnz[i] = (int32_t)gcoo__row_count(&s->A, &s->B, i, &table, gcoo__table_bits(s->hi[i]));
      }
      free(table.slot);
    }
    GCOO_CHECK_GOTO(!failed, GCOO_ERR_NO_MEMORY, "no memory for a %lld-slot hash table per thread",
                    (long long)1 << bits);
  }
  s->rows_counted += nt;
  s->flop_counted += fsum;
done:
  free(todo);
  return st;
}

/* Every row with uncertainty counted: the exact answer. */
static gcoo_status predict_all(gcoo__pstate *s, gcoo__pestimate *e) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *rows = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&rows, s->M, sizeof *rows, "row list"));
  for (int64_t i = 0; i < s->M; i++) rows[i] = i;
  GCOO_GOTO(gcoo__predict_count_rows(s, rows, s->M));
  int64_t z = 0;
  for (int64_t i = 0; i < s->M; i++) z += s->nnz[i];
  e->nnz = (double)z;
  e->stderr_ = 0.0;
  e->samples = s->M;
  e->exact = 1;
done:
  free(rows);
  return st;
}

static gcoo_status check_options(const gcoo_predict_options *o) {
  GCOO_CHECK(o->size == sizeof *o, GCOO_ERR_INVALID_ARG,
             "gcoo_predict_options.size is %zu, expected %zu (initialise with "
             "GCOO_PREDICT_OPTIONS_INIT)",
             o->size, sizeof *o);
  GCOO_CHECK((int)o->method >= GCOO_PREDICT_DEFAULT && o->method <= GCOO_PREDICT_CLASSES,
             GCOO_ERR_INVALID_ARG, "unknown prediction method %d", (int)o->method);
  GCOO_CHECK(o->samples >= 0, GCOO_ERR_INVALID_ARG, "sample count %lld is negative",
             (long long)o->samples);
  GCOO_CHECK(o->rel_error >= 0.0 && o->rel_error < 1.0, GCOO_ERR_INVALID_ARG,
             "rel_error %g outside [0, 1)", o->rel_error);
  GCOO_CHECK(o->max_cost >= 0.0 && o->max_cost <= 1.0, GCOO_ERR_INVALID_ARG,
             "max_cost %g outside [0, 1]", o->max_cost);
  return GCOO_SUCCESS;
}

/* Per-row sizes: counted rows exactly, the others from the method's model, inside the bounds. */
static void fill_rows(const gcoo__pstate *s, const gcoo__pestimate *e, int64_t *row_nnz) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < s->M; i++) {
    int64_t v;
    if (s->nnz[i] >= 0) {
      v = s->nnz[i];
    } else {
      const double x = e->use_classes && s->hi[i] > s->lo[i]
                           ? s->lo[i] + e->class_u[gcoo__class_of(s->hi[i])] * (s->hi[i] - s->lo[i])
                       : e->slope_g >= 0.0 ? s->lo[i] + e->slope_g * (s->hi[i] - s->lo[i])
                                           : e->slope_f * (double)s->flop[i];
      v = llround(x);
      if (v < s->lo[i]) v = s->lo[i];
      if (v > s->hi[i]) v = s->hi[i];
    }
    row_nnz[i] = v;
  }
}

gcoo_status gcoo_predict(gcoo_sparse A, gcoo_sparse B, const gcoo_predict_options *opts,
                         gcoo_prediction *pred) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
  gcoo_sparse Ac = NULL, Bc = NULL;
  gcoo__pstate s;
  gcoo__pestimate e;
  memset(&s, 0, sizeof s);
  memset(&e, 0, sizeof e);
  e.stderr_ = NAN;
  e.slope_g = -1.0;
  GCOO_CHECK(pred != NULL, GCOO_ERR_NULL, "prediction is NULL");
  memset(pred, 0, sizeof *pred);
  if (opts) o = *opts;
  GCOO_CALL(check_options(&o));
  if (o.method == GCOO_PREDICT_DEFAULT) o.method = GCOO_PREDICT_ADAPTIVE;
  const double t0 = gcoo__wtime();
  GCOO_GOTO(gcoo__spgemm_operands(A, B, &Ac, &Bc, &s.A, &s.B));
  s.M = s.A.nrows;
  s.N = s.B.ncols;
  gcoo__rng_seed(&s.rng, o.seed, 0x70726564u /* "pred" */);
  s.seed = o.seed;
  GCOO_GOTO(gcoo__malloc_n((void **)&s.flop, s.M, sizeof *s.flop, "row FLOP"));
  GCOO_GOTO(gcoo__malloc_n((void **)&s.lo, s.M, sizeof *s.lo, "row lower bounds"));
  GCOO_GOTO(gcoo__malloc_n((void **)&s.hi, s.M, sizeof *s.hi, "row upper bounds"));
  GCOO_GOTO(gcoo__malloc_n((void **)&s.nnz, s.M, sizeof *s.nnz, "counted rows"));
  GCOO_GOTO(gcoo__row_flop_bounds(&s.A, &s.B, s.flop, s.lo, s.hi, &s.tot));
  memset(s.nnz, 0xff, (size_t)s.M * sizeof *s.nnz); /* -1: unknown */
  pred->seconds_flop = gcoo__wtime() - t0;

  const int64_t F = s.tot.flop_total;
  if (F == 0 || s.tot.lo_total == s.tot.hi_total) {
    /* nothing to estimate: every row is known from its bounds (empty product included) */
    e.nnz = (double)s.tot.lo_total;
    e.stderr_ = 0.0;
    e.exact = 1;
    e.slope_g = 0.0;
  } else {
    switch (o.method) {
      case GCOO_PREDICT_PAPER:
      case GCOO_PREDICT_REFERENCE:
        GCOO_GOTO(gcoo__predict_uniform(&s, o.method, o.samples, &e));
        break;
      case GCOO_PREDICT_PPS: GCOO_GOTO(gcoo__predict_pps(&s, o.samples, &e)); break;
      case GCOO_PREDICT_ADAPTIVE:
        GCOO_GOTO(
            gcoo__predict_adaptive(&s, o.samples ? o.samples : GCOO_PREDICT_ADAPTIVE_FIRST,
                                   o.rel_error > 0.0 ? o.rel_error
                                                     : GCOO_PREDICT_ADAPTIVE_REL_ERROR,
                                   o.max_cost > 0.0 ? o.max_cost : GCOO_PREDICT_ADAPTIVE_MAX_COST,
                                   &e));
        break;
      case GCOO_PREDICT_CLASSES: GCOO_GOTO(gcoo__predict_classes(&s, &e)); break;
      case GCOO_PREDICT_UPPER:
        e.nnz = (double)s.tot.hi_total;
        e.stderr_ = NAN;
        e.slope_g = 1.0;
        break;
      case GCOO_PREDICT_EXACT:
      default: GCOO_GOTO(predict_all(&s, &e)); break;
    }
  }

  pred->method = o.method;
  pred->nrows = s.M;
  pred->ncols = s.N;
  pred->flop_total = F;
  pred->nnz_lower = s.tot.lo_total;
  pred->nnz_upper = s.tot.hi_total;
  pred->nnz_estimate = e.nnz;
  pred->nnz_predicted = llround(e.nnz);
  pred->compression_ratio = pred->nnz_predicted > 0 ? (double)F / (double)pred->nnz_predicted : 1.0;
  pred->rel_stderr = e.exact ? 0.0 : (e.nnz > 0.0 ? e.stderr_ / e.nnz : NAN);
  pred->exact = e.exact;
  pred->samples = e.samples;
  pred->rows_counted = s.rows_counted;
  pred->flop_counted = s.flop_counted;
  if (o.want_row_nnz) {
    if (e.exact) {
      /* rows left unknown have lo == hi or were never needed (F == 0 / all bounds tight) */
      e.slope_g = 0.0;
    }
    GCOO_GOTO(gcoo__malloc_n((void **)&pred->row_nnz, s.M, sizeof *pred->row_nnz, "row NNZ"));
    fill_rows(&s, &e, pred->row_nnz);
  }
  if (o.want_row_flop) {
    pred->row_flop = s.flop;
    s.flop = NULL;
  }
  pred->seconds = gcoo__wtime() - t0;
done:
  if (st < 0) gcoo_prediction_free(pred);
  free(s.flop);
  free(s.lo);
  free(s.hi);
  free(s.nnz);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  return st;
}

gcoo_status gcoo_spgemm_nnz_exact(gcoo_sparse A, gcoo_sparse B, int64_t *nnz, int64_t *row_nnz) {
  gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
  gcoo_prediction p;
  GCOO_CHECK(nnz != NULL, GCOO_ERR_NULL, "nnz is NULL");
  o.method = GCOO_PREDICT_EXACT;
  o.want_row_nnz = row_nnz != NULL;
  GCOO_CALL(gcoo_predict(A, B, &o, &p));
  *nnz = p.nnz_predicted;
  if (row_nnz && p.nrows) memcpy(row_nnz, p.row_nnz, (size_t)p.nrows * sizeof *row_nnz);
  gcoo_prediction_free(&p);
  return GCOO_SUCCESS;
}
