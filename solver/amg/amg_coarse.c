/* SPDX-License-Identifier: MIT */
/* solver/amg/amg_coarse.c: the coarsest level, solved directly. Its matrix (at most a few
 * thousand rows) is gathered on every rank and factored there by LAPACK: Cholesky, or LU with
 * partial pivoting when Cholesky finds it not positive definite. A solve gathers the right-hand
 * sides, solves on every rank (cheaper than a scatter back) and keeps the rank's own rows. An
 * unknown decoupled from all others with a zero diagonal (a coarse function the near-null space
 * left empty) gets a unit diagonal: its right-hand side is zero, and so is its solution. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_impl.h"

/* The largest coarsest level factored densely (dense n x n on every rank). */
#define AMG_COARSE_MAX 8000

void gcoo__amg_coarse_free(amg_coarse *C) {
  free(C->F);
  free(C->ipiv);
  free(C->counts);
  free(C->displs);
  free(C->rhs);
  free(C->buf);
  memset(C, 0, sizeof *C);
}

gcoo_status gcoo__amg_coarse_setup(amg *H, const amg_level *L) {
  gcoo_status st = GCOO_SUCCESS;
  amg_coarse *C = &H->coarse;
  const int size = gcoo_dist_size(H->d);
  const MPI_Comm comm = gcoo_dist_comm(H->d);
  const int64_t n = L->n_global;
  double *mine = NULL, *G = NULL;
  int *cnt = NULL, *dis = NULL;
  gcoo_csr_view v;
  gcoo__amg_coarse_free(C);
  GCOO_CHECK(n <= AMG_COARSE_MAX, GCOO_ERR_UNSUPPORTED,
             "the coarsest AMG level has %lld rows, more than the %d a dense factorisation takes "
             "(coarsening stalled: raise max_levels, or theta)",
             (long long)n, AMG_COARSE_MAX);
  C->n = n;
  st = gcoo__amg_view(L->A, &v);
  if (st >= 0) st = gcoo__calloc((void **)&mine, (size_t)(L->n * n) + 1, sizeof *mine, "coarse");
  if (st >= 0) st = gcoo__malloc_n((void **)&G, n * n + 1, sizeof *G, "coarse matrix");
  if (st >= 0) st = gcoo__malloc_n((void **)&C->F, n * n + 1, sizeof *C->F, "coarse factor");
  if (st >= 0) st = gcoo__malloc_n((void **)&cnt, size, sizeof *cnt, "coarse gather");
  if (st >= 0) st = gcoo__malloc_n((void **)&dis, size, sizeof *dis, "coarse gather");
  if (st >= 0) st = gcoo__malloc_n((void **)&C->counts, size, sizeof *C->counts, "coarse gather");
  if (st >= 0) st = gcoo__malloc_n((void **)&C->displs, size, sizeof *C->displs, "coarse gather");
  GCOO_GOTO(gcoo_dist_agree(H->d, st));
  for (int64_t i = 0; i < L->n; i++)
    for (int64_t e = v.ptr[i]; e < v.ptr[i + 1]; e++)
      mine[i * n + v.ind[e]] += ((const double *)v.values)[e];
  for (int r = 0; r < size; r++) {
    C->counts[r] = (int)(L->row_begin[r + 1] - L->row_begin[r]);
    C->displs[r] = (int)L->row_begin[r];
    cnt[r] = (int)(C->counts[r] * n);
    dis[r] = (int)(C->displs[r] * n);
  }
  GCOO_GOTO(GCOO_MPI(
      MPI_Allgatherv(mine, cnt[gcoo_dist_rank(H->d)], MPI_DOUBLE, G, cnt, dis, MPI_DOUBLE, comm)));
  /* column-major for LAPACK (F(i, j) = a_ij), decoupled empty unknowns given a unit diagonal */
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) C->F[i + j * n] = G[i * n + j];
  for (int64_t i = 0; i < n; i++) {
    int empty = 1;
    for (int64_t j = 0; j < n && empty; j++) empty = G[i * n + j] == 0.0 && G[j * n + i] == 0.0;
    if (empty) C->F[i + i * n] = 1.0;
  }
  memcpy(G, C->F, (size_t)(n * n) * sizeof *G);
  int nn = (int)n, info = 0;
  if (n > 0) dpotrf_("L", &nn, C->F, &nn, &info);
  if (info != 0) {
    /* not positive definite: LU with partial pivoting of the same matrix */
    memcpy(C->F, G, (size_t)(n * n) * sizeof *G);
    st = gcoo__malloc_n((void **)&C->ipiv, n, sizeof *C->ipiv, "coarse pivots");
    if (st >= 0) {
      dgetrf_(&nn, &nn, C->F, &nn, C->ipiv, &info);
      if (info != 0)
        st = GCOO_ERROR(GCOO_ERR_BREAKDOWN,
                        "the coarsest AMG level (%lld rows) is singular (LAPACK dgetrf: zero pivot "
                        "%d): A is singular, or its near-null space is not resolved",
                        (long long)n, info);
    }
    GCOO_GOTO(st);
  }
done:
  free(mine);
  free(G);
  free(cnt);
  free(dis);
  return st;
}

gcoo_status gcoo__amg_coarse_solve(amg *H, const amg_level *L, const gcoo_dense *B, gcoo_dense *X) {
  amg_coarse *C = &H->coarse;
  const int size = gcoo_dist_size(H->d);
  const int64_t n = C->n, k = B->ncols;
  if (n == 0) return GCOO_SUCCESS;
  /* this rank's rows of B, row-major in double, gathered into buf on every rank */
  double *mine = C->rhs; /* scratch before the gather: n x k is at least L->n x k */
  for (int64_t i = 0; i < L->n; i++)
    for (int64_t j = 0; j < k; j++) mine[i * k + j] = gcoo_dense_get(B, i, j);
  if (size > 1) {
    int cnt[64], dis[64], *pc = cnt, *pd = dis;
    if (size > 64) {
      GCOO_CALL(gcoo__malloc_n((void **)&pc, 2 * (int64_t)size, sizeof *pc, "coarse gather"));
      pd = pc + size;
    }
    for (int r = 0; r < size; r++) {
      pc[r] = (int)(C->counts[r] * k);
      pd[r] = (int)(C->displs[r] * k);
    }
    gcoo_status st = GCOO_MPI(MPI_Allgatherv(mine, pc[gcoo_dist_rank(H->d)], MPI_DOUBLE, C->buf, pc,
                                             pd, MPI_DOUBLE, gcoo_dist_comm(H->d)));
    if (pc != cnt) free(pc);
    GCOO_CALL(st);
  } else {
    memcpy(C->buf, mine, (size_t)(n * k) * sizeof *mine);
  }
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < k; j++) C->rhs[i + j * n] = C->buf[i * k + j];
  int nn = (int)n, nk = (int)k, info = 0;
  if (C->ipiv)
    dgetrs_("N", &nn, &nk, C->F, &nn, C->ipiv, C->rhs, &nn, &info);
  else
    dpotrs_("L", &nn, &nk, C->F, &nn, C->rhs, &nn, &info);
  GCOO_CHECK(info == 0, GCOO_ERR_INTERNAL, "LAPACK coarse solve: info %d", info);
  for (int64_t i = 0; i < L->n; i++)
    for (int64_t j = 0; j < k; j++) gcoo_dense_set(X, i, j, C->rhs[(L->row0 + i) + j * n]);
  return GCOO_SUCCESS;
}
