/* SPDX-License-Identifier: MIT */
/* solver/amg/amg_aggregate.c: strength of connection and aggregation on a rank's nodes.
 *
 * Strength: node J is a strong neighbour of node I when s_IJ >= theta sqrt(s_II s_JJ), where
 * s_IJ is |a_ij| (one unknown a node) or the Frobenius norm of the bs x bs block (bs unknowns a
 * node), over the rank's diagonal block: aggregates do not cross ranks (PETSc GAMG's choice
 * too), so every rank aggregates alone and the result depends on the rank count only.
 *
 * Aggregation (standard aggregation of Vanek, Mandel and Brezina, in the nodes' order, as
 * PyAMG's): 1. a node whose strong neighbours are all free becomes a root and takes them
 * (the roots form a distance-2 independent set); 2. a free node joins the aggregate of a
 * neighbour aggregated in pass 1; 3. a node still free starts an aggregate with its free
 * neighbours. A node without strong neighbours stays out (its row of P is zero: the smoother
 * handles it). O(nnz), one pass each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_impl.h"

/* The strong-neighbour graph of the rank's nodes (no self loops): nptr (nn + 1), nadj. */
static gcoo_status strong_graph(const amg_level *L, double theta, int64_t **nptr_out,
                                int32_t **nadj_out) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view v;
  const int bs = L->bs;
  const int64_t nn = L->n / bs, row0 = L->row0;
  int64_t *nptr = NULL;
  int32_t *nadj = NULL, *mark = NULL, *list = NULL;
  double *acc = NULL, *snorm = NULL;
  GCOO_CALL(gcoo__amg_view(L->A, &v));
  const double *av = v.values;
  GCOO_GOTO(gcoo__malloc_n((void **)&nptr, nn + 1, sizeof *nptr, "AMG strength"));
  /* at most the entries of the nodes' rows */
  GCOO_GOTO(gcoo__malloc_n((void **)&nadj, v.nnz, sizeof *nadj, "AMG strength"));
  nptr[0] = 0;
  if (bs == 1) {
    for (int64_t i = 0; i < nn; i++) {
      int64_t w = nptr[i];
      const double dii = fabs(L->diag[i]);
      for (int64_t e = v.ptr[i]; e < v.ptr[i + 1]; e++) {
        const int64_t j = v.ind[e] - row0;
        if (j < 0 || j >= nn || j == i) continue;
        if (theta > 0.0 && !(fabs(av[e]) >= theta * sqrt(dii * fabs(L->diag[j])))) continue;
        nadj[w++] = (int32_t)j;
      }
      nptr[i + 1] = w;
    }
  } else {
    /* block norms s_IJ: the squares of each node's rows summed per neighbour node */
    GCOO_GOTO(gcoo__malloc_n((void **)&mark, nn, sizeof *mark, "AMG strength"));
    GCOO_GOTO(gcoo__malloc_n((void **)&list, nn, sizeof *list, "AMG strength"));
    GCOO_GOTO(gcoo__calloc((void **)&acc, (size_t)nn + 1, sizeof *acc, "AMG strength"));
    GCOO_GOTO(gcoo__calloc((void **)&snorm, (size_t)nn + 1, sizeof *snorm, "AMG strength"));
    for (int64_t I = 0; I < nn; I++) mark[I] = -1;
    for (int pass = 0; pass < 2; pass++) {
      for (int64_t I = 0; I < nn; I++) {
        int64_t nl = 0;
        for (int64_t i = I * bs; i < (I + 1) * bs; i++)
          for (int64_t e = v.ptr[i]; e < v.ptr[i + 1]; e++) {
            const int64_t J = (v.ind[e] - row0) >= 0 ? (v.ind[e] - row0) / bs : -1;
            if (J < 0 || J >= nn) continue;
            if (mark[J] != I) {
              mark[J] = (int32_t)I;
              acc[J] = 0.0;
              list[nl++] = (int32_t)J;
            }
            acc[J] += av[e] * av[e];
          }
        if (pass == 0) {
          snorm[I] = mark[I] == I ? sqrt(acc[I]) : 0.0;
          continue;
        }
        int64_t w = nptr[I];
        for (int64_t t = 0; t < nl; t++) {
          const int32_t J = list[t];
          if (J == I) continue;
          if (theta > 0.0 && !(sqrt(acc[J]) >= theta * sqrt(snorm[I] * snorm[J]))) continue;
          nadj[w++] = J;
        }
        nptr[I + 1] = w;
      }
      for (int64_t I = 0; I < nn; I++) mark[I] = -1;
    }
  }
  *nptr_out = nptr;
  *nadj_out = nadj;
  nptr = NULL;
  nadj = NULL;
done:
  free(nptr);
  free(nadj);
  free(mark);
  free(list);
  free(acc);
  free(snorm);
  return st;
}

gcoo_status gcoo__amg_aggregate(const amg_level *L, double theta, int32_t *agg, int64_t *nagg,
                                double *t_strength) {
  int64_t *nptr = NULL;
  int32_t *nadj = NULL;
  const int64_t nn = L->n / L->bs;
  const double t0 = gcoo__wtime();
  GCOO_CALL(strong_graph(L, theta, &nptr, &nadj));
  *t_strength = gcoo__wtime() - t0;
  int32_t na = 0;
  for (int64_t i = 0; i < nn; i++) agg[i] = -1;
  /* pass 1: roots whose strong neighbours are all free take them */
  for (int64_t i = 0; i < nn; i++) {
    if (agg[i] >= 0 || nptr[i] == nptr[i + 1]) continue;
    int free_all = 1;
    for (int64_t e = nptr[i]; e < nptr[i + 1] && free_all; e++) free_all = agg[nadj[e]] < 0;
    if (!free_all) continue;
    agg[i] = na;
    for (int64_t e = nptr[i]; e < nptr[i + 1]; e++) agg[nadj[e]] = na;
    na++;
  }
  /* pass 2: free nodes join a neighbour's pass-1 aggregate (marked -2 - a, so that the joins
   * of this pass do not chain) */
  for (int64_t i = 0; i < nn; i++) {
    if (agg[i] != -1) continue;
    for (int64_t e = nptr[i]; e < nptr[i + 1]; e++)
      if (agg[nadj[e]] >= 0) {
        agg[i] = -2 - agg[nadj[e]];
        break;
      }
  }
  for (int64_t i = 0; i < nn; i++)
    if (agg[i] <= -2) agg[i] = -2 - agg[i];
  /* pass 3: what is left starts aggregates with its free neighbours */
  for (int64_t i = 0; i < nn; i++) {
    if (agg[i] >= 0 || nptr[i] == nptr[i + 1]) continue;
    agg[i] = na;
    for (int64_t e = nptr[i]; e < nptr[i + 1]; e++)
      if (agg[nadj[e]] < 0) agg[nadj[e]] = na;
    na++;
  }
  *nagg = na;
  free(nptr);
  free(nadj);
  return GCOO_SUCCESS;
}
