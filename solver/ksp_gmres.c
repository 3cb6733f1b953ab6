/* SPDX-License-Identifier: MIT */
/* solver/ksp_gmres.c: restarted GMRES(m) (Saad and Schultz) and flexible GMRES (Saad 1993), right
 * preconditioned, k columns in lockstep, each column with its own Hessenberg matrix and Givens
 * rotations (host, double).
 *
 *   cycle: R = B - A X;  beta = ||R||;  V_0 = R / beta;  g = beta e_1
 *     for c = 0 .. m-1:
 *       Z_c = M^{-1} V_c  (FGMRES keeps every Z_c; GMRES only V)
 *       w = A Z_c
 *       h = V^T w; w -= V h  (again where that lost too much)  classical Gram-Schmidt
 *       h_{c+1,c} = ||w||;  V_{c+1} = w / h_{c+1,c}
 *       rotate column c of H into triangular form; |g_{c+1}| is ||b - A x_c||
 *     X += Z y (FGMRES) or X += M^{-1} V y (GMRES), y from H y = g over the column's own steps
 *
 * One reduction an iteration (the projections and ||w||, all k columns), three where the
 * projections are taken twice. Each
 * iteration's estimate |g_{c+1}| is checked; a column that meets its tolerance stops there and
 * takes its update from its own number of steps when the cycle ends. A cycle that ends where it
 * began (no reduction at all over m steps, twice in a row) is stagnation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver_impl.h"

typedef struct gmres {
  gcoo__run *r;
  const gcoo_vec_ops *vo;
  int m, flexible;
  int64_t k;
  gcoo_dense *V; /* m + 1 blocks */
  gcoo_dense *Z; /* FGMRES: m blocks; GMRES: one (M^{-1} of the current V_c, then of V y) */
  gcoo_dense W;  /* GMRES: V y */
  double *H;     /* per column: (m + 1) x m, H[j][i * m + c] */
  double *cs, *sn, *g, *y, *scal, *red;
  int *dim; /* steps column j's update uses: -1 while it is iterating */
} gmres;

static double *hcol(gmres *s, int64_t j) { return s->H + (size_t)j * (size_t)((s->m + 1) * s->m); }

static void gmres_free(gmres *s) {
  if (s->V)
    for (int i = 0; i <= s->m; i++) gcoo__block_destroy(s->r, &s->V[i]);
  if (s->Z)
    for (int i = 0; i < (s->flexible ? s->m : 1); i++) gcoo__block_destroy(s->r, &s->Z[i]);
  gcoo__block_destroy(s->r, &s->W);
  free(s->V);
  free(s->Z);
  free(s->H);
  free(s->cs);
  free(s->dim);
}

static gcoo_status gmres_alloc(gmres *s) {
  const int m = s->m;
  const int64_t k = s->k;
  const int nz = s->flexible ? m : 1;
  GCOO_CALL(gcoo__calloc((void **)&s->V, (size_t)m + 1, sizeof *s->V, "Krylov basis"));
  GCOO_CALL(gcoo__calloc((void **)&s->Z, (size_t)nz, sizeof *s->Z, "preconditioned basis"));
  for (int i = 0; i <= m; i++) GCOO_CALL(gcoo__block_create(s->r, k, &s->V[i]));
  for (int i = 0; i < nz; i++) GCOO_CALL(gcoo__block_create(s->r, k, &s->Z[i]));
  if (!s->flexible) GCOO_CALL(gcoo__block_create(s->r, k, &s->W));
  GCOO_CALL(gcoo__calloc((void **)&s->H, (size_t)(k * (m + 1) * m), sizeof(double), "Hessenberg"));
  /* cs, sn: k x m; g, y: k x (m + 1); scal: 2k; red: (m + 2) k */
  const size_t nd = (size_t)(k * m * 2 + k * (m + 1) * 2 + 2 * k + (m + 2) * k);
  GCOO_CALL(gcoo__calloc((void **)&s->cs, nd, sizeof(double), "Givens rotations"));
  s->sn = s->cs + k * m;
  s->g = s->sn + k * m;
  s->y = s->g + k * (m + 1);
  s->scal = s->y + k * (m + 1);
  s->red = s->scal + 2 * k;
  GCOO_CALL(gcoo__calloc((void **)&s->dim, (size_t)k, sizeof(int), "column steps"));
  return GCOO_SUCCESS;
}

/* Orthogonalise w = V[c+1] against V[0..c] by classical Gram-Schmidt: one pass of projections
 * h = V^T w with ||w||^2 in the same reduction, w -= V h; a second pass (h' = V^T w, w -= V h',
 * h += h', then ||w|| summed) where the first lost too much (||w - V h|| < ||w|| / sqrt 2, the
 * criterion of Daniel, Gragg, Kaufman and Stewart; every iteration with cgs_refinement = 1,
 * CGS2). Without the second pass ||w - V h||^2 = ||w||^2 - ||h||^2, exact in exact arithmetic and
 * within a few ulps where the criterion holds. H's column c gets the projections and ||w||, and
 * V[c+1] = w / ||w||. */
static gcoo_status arnoldi(gmres *s, int c) {
  gcoo__run *r = s->r;
  const int64_t k = s->k;
  const gcoo_dense *x[GCOO_GMRES_MAX_M + 2], *yv[GCOO_GMRES_MAX_M + 2];
  gcoo_dense *w = &s->V[c + 1];
  for (int i = 0; i <= c; i++) {
    x[i] = &s->V[i];
    yv[i] = w;
  }
  x[c + 1] = yv[c + 1] = w;
  int refine = r->ksp->o.cgs_refinement == 1;
  for (int pass = 0; pass < 2; pass++) {
    /* the first pass also sums ||w||^2 (pair c + 1) */
    const int pairs = pass == 0 ? c + 2 : c + 1;
    GCOO_CALL(s->vo->dots(r->ctx, pairs, x, yv, s->red));
    GCOO_CALL(gcoo__run_allreduce(r, s->red, (int64_t)pairs * k));
    for (int64_t j = 0; j < k; j++) {
      double *h = hcol(s, j), hh = 0.0;
      const int on = r->reason[j] == GCOO_KSP_ITERATING;
      for (int i = 0; i <= c; i++) {
        const double p = on ? s->red[i * k + j] : 0.0;
        h[i * s->m + c] = (pass ? h[i * s->m + c] : 0.0) + p;
        s->red[i * k + j] = -p;
        hh += p * p;
      }
      if (pass == 0) {
        const double wn2 = on ? s->red[(c + 1) * k + j] : 0.0, left = wn2 - hh;
        s->scal[j] = left;                    /* ||w - V h||^2 */
        if (!(left >= 0.5 * wn2)) refine = 1; /* NaN too: the second pass then shows it */
      }
    }
    GCOO_CALL(s->vo->maxpy(r->ctx, c + 1, s->red, x, w));
    if (!refine) break;
  }
  if (refine) { /* the norm after the second pass, summed */
    const gcoo_dense *ww[1] = {w};
    GCOO_CALL(s->vo->dots(r->ctx, 1, ww, ww, s->scal));
    GCOO_CALL(gcoo__run_allreduce(r, s->scal, k));
  }
  for (int64_t j = 0; j < k; j++) {
    const double hn = sqrt(fmax(s->scal[j], 0.0)) + (isnan(s->scal[j]) ? s->scal[j] : 0.0);
    hcol(s, j)[(c + 1) * s->m + c] = r->reason[j] == GCOO_KSP_ITERATING ? hn : 0.0;
    s->scal[j] = r->reason[j] == GCOO_KSP_ITERATING && hn > 0.0 ? 1.0 / hn : 0.0;
    s->scal[k + j] = 0.0;
  }
  GCOO_CALL(s->vo->axpby(r->ctx, s->scal, w, s->scal + k, w));
  return GCOO_SUCCESS;
}

/* Rotate column c of column j's H into triangular form and update g; returns |g_{c+1}|, or -1
 * when the rotated diagonal is zero (a singular least-squares problem). */
static double givens(gmres *s, int64_t j, int c) {
  const int m = s->m;
  double *h = hcol(s, j), *cs = s->cs + j * m, *sn = s->sn + j * m, *g = s->g + j * (m + 1);
  for (int i = 0; i < c; i++) {
    const double a = h[i * m + c], b = h[(i + 1) * m + c];
    h[i * m + c] = cs[i] * a + sn[i] * b;
    h[(i + 1) * m + c] = -sn[i] * a + cs[i] * b;
  }
  const double a = h[c * m + c], b = h[(c + 1) * m + c];
  const double t = hypot(a, b);
  if (t == 0.0) return -1.0;
  cs[c] = a / t;
  sn[c] = b / t;
  h[c * m + c] = t;
  h[(c + 1) * m + c] = 0.0;
  g[c + 1] = -sn[c] * g[c];
  g[c] = cs[c] * g[c];
  return fabs(g[c + 1]);
}

/* X += the cycle's correction: per column, y from the triangular H y = g over dim[j] steps. */
static gcoo_status update_x(gmres *s, int steps, gcoo_dense *X) {
  gcoo__run *r = s->r;
  const int m = s->m;
  const int64_t k = s->k;
  double *coef = s->y; /* (m + 1) x k, coef[i * k + j] */
  memset(coef, 0, (size_t)((m + 1) * k) * sizeof *coef);
  for (int64_t j = 0; j < k; j++) {
    const int d = s->dim[j] < 0 ? steps : s->dim[j];
    const double *h = hcol(s, j), *g = s->g + j * (m + 1);
    for (int i = d - 1; i >= 0; i--) {
      double v = g[i];
      for (int l = i + 1; l < d; l++) v -= h[i * m + l] * coef[l * k + j];
      coef[i * k + j] = h[i * m + i] != 0.0 ? v / h[i * m + i] : 0.0;
    }
  }
  const gcoo_dense *basis[GCOO_GMRES_MAX_M + 1];
  if (s->flexible) {
    for (int i = 0; i < steps; i++) basis[i] = &s->Z[i];
    GCOO_CALL(s->vo->maxpy(r->ctx, steps, coef, basis, X));
    return GCOO_SUCCESS;
  }
  for (int i = 0; i < steps; i++) basis[i] = &s->V[i];
  GCOO_CALL(s->vo->fill(r->ctx, &s->W, 0.0));
  GCOO_CALL(s->vo->maxpy(r->ctx, steps, coef, basis, &s->W));
  GCOO_CALL(gcoo__run_apply_pc(r, &s->W, &s->Z[0]));
  for (int64_t j = 0; j < k; j++) coef[j] = 1.0;
  const gcoo_dense *z[1] = {&s->Z[0]};
  GCOO_CALL(s->vo->maxpy(r->ctx, 1, coef, z, X));
  return GCOO_SUCCESS;
}

static gcoo_status gmres_run(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X, int flexible) {
  gcoo_status st = GCOO_SUCCESS;
  gmres s;
  memset(&s, 0, sizeof s);
  s.r = r;
  s.k = r->k;
  s.flexible = flexible;
  s.m = r->ksp->o.restart;
  const int64_t k = s.k;
  double *beta = NULL;
  GCOO_CALL(gcoo__run_vec(r, flexible ? "fgmres" : "gmres", &s.vo));
  GCOO_CHECK(s.m <= GCOO_GMRES_MAX_M, GCOO_ERR_INVALID_ARG, "restart %d is above %d", s.m,
             GCOO_GMRES_MAX_M);
  GCOO_GOTO(gmres_alloc(&s));
  GCOO_GOTO(gcoo__malloc_n((void **)&beta, 2 * k, sizeof *beta, "residual norms"));
  double *prev = beta + k;
  int64_t it = 0;
  int stagnant = 0;
  for (int64_t j = 0; j < k; j++) prev[j] = INFINITY;
  while (gcoo__run_active(r) > 0 && it < r->maxit) {
    /* the cycle's start: V_0 = R / ||R|| with R = B - A X */
    if (r->x_zero && it == 0) {
      for (int64_t j = 0; j < k; j++) s.scal[j] = 1.0, s.scal[k + j] = 0.0;
      GCOO_GOTO(s.vo->axpby(r->ctx, s.scal, B, s.scal + k, &s.V[0]));
    } else {
      GCOO_GOTO(gcoo__run_residual(r, B, X, &s.V[0]));
    }
    GCOO_GOTO(gcoo__run_norms(r, &s.V[0], beta));
    if (gcoo__run_check(r, it, beta) == 0) break;
    int moved = 0;
    for (int64_t j = 0; j < k; j++) {
      if (r->reason[j] == GCOO_KSP_ITERATING && beta[j] < prev[j] * (1.0 - 1e-12)) moved = 1;
      prev[j] = beta[j];
    }
    stagnant = moved ? 0 : stagnant + 1;
    if (stagnant >= 2) {
      for (int64_t j = 0; j < k; j++) gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_STAGNATION);
      break;
    }
    for (int64_t j = 0; j < k; j++) {
      const int on = r->reason[j] == GCOO_KSP_ITERATING;
      s.scal[j] = on ? 1.0 / beta[j] : 0.0;
      s.scal[k + j] = 0.0;
      s.dim[j] = on ? -1 : 0;
      double *g = s.g + j * (s.m + 1);
      memset(g, 0, (size_t)(s.m + 1) * sizeof *g);
      g[0] = on ? beta[j] : 0.0;
    }
    GCOO_GOTO(s.vo->axpby(r->ctx, s.scal, &s.V[0], s.scal + k, &s.V[0]));
    int c = 0;
    for (; c < s.m && it < r->maxit; c++) {
      it++;
      gcoo_dense *z = &s.Z[flexible ? c : 0];
      GCOO_GOTO(gcoo__run_apply_pc(r, &s.V[c], z));
      GCOO_GOTO(gcoo__run_apply_A(r, z, &s.V[c + 1]));
      GCOO_GOTO(arnoldi(&s, c));
      for (int64_t j = 0; j < k; j++) {
        if (r->reason[j] != GCOO_KSP_ITERATING) {
          s.scal[j] = 0.0;
          continue;
        }
        const double est = givens(&s, j, c);
        if (est < 0.0) { /* zero diagonal: the steps so far are all it can use */
          s.dim[j] = c;
          gcoo__run_stop(r, j, it, GCOO_KSP_DIVERGED_BREAKDOWN);
        }
        s.scal[j] = est;
      }
      gcoo__run_check(r, it, s.scal);
      for (int64_t j = 0; j < k; j++)
        if (s.dim[j] < 0 && r->reason[j] != GCOO_KSP_ITERATING)
          s.dim[j] = r->reason[j] > 0 ? c + 1 : 0; /* NaN: no update from this cycle */
      if (gcoo__run_active(r) == 0) {
        c++;
        break;
      }
    }
    GCOO_GOTO(update_x(&s, c, X));
  }
  r->iterations = it;
done:
  gmres_free(&s);
  free(beta);
  return st;
}

gcoo_status gcoo__ksp_gmres(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X) {
  GCOO_CALL(gmres_run(r, B, X, 0));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__ksp_fgmres(gcoo__run *r, const gcoo_dense *B, gcoo_dense *X) {
  GCOO_CALL(gmres_run(r, B, X, 1));
  return GCOO_SUCCESS;
}
