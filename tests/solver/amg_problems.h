/* SPDX-License-Identifier: MIT */
/* tests/solver/amg_problems.h: the model problems of the AMG tests and benchmark, each rank's
 * rows of them as a PARTITIONED operator: 3-D Poisson (7- and 27-point, the library's
 * generator) and the 2-D Laplacian (5-point, Dirichlet, made here), rows split evenly in whole
 * blocks of `block` rows. Header-only (static functions) for the test and the benchmark. */
#ifndef GCOO_AMG_PROBLEMS_H
#define GCOO_AMG_PROBLEMS_H

#include <stdlib.h>

#include <mpi.h>

#include "gcoo/gcoo.h"

/* This rank's rows [*r0, *r1) of m, in whole blocks of `block` rows. */
static inline void amg_rows_of(gcoo_dist d, int64_t m, int64_t block, int64_t *r0, int64_t *r1) {
  const int rank = gcoo_dist_rank(d), size = gcoo_dist_size(d);
  const int64_t nb = m / block;
  *r0 = nb * rank / size * block;
  *r1 = rank == size - 1 ? m : nb * (rank + 1) / size * block;
}

/* Rows [r0, r1) of a 5-point matrix on a g x g grid with b unknowns a node (interleaved: row
 * r is unknown r % b of node r / b, coupled to the same unknown of the neighbours): v holds the
 * values of the south, west, centre, east and north entries. */
static inline gcoo_status amg_stencil2d_rows(gcoo_sparse *A, gcoo_dtype dt, int64_t g, int b,
                                             const double v[5], int64_t r0, int64_t r1) {
  const int64_t m = r1 - r0;
  int64_t *ptr = malloc((size_t)(m + 1) * sizeof *ptr);
  int32_t *ind = malloc((size_t)(5 * m + 1) * sizeof *ind);
  double *val = malloc((size_t)(5 * m + 1) * sizeof *val);
  float *vf = malloc((size_t)(5 * m + 1) * sizeof *vf);
  int64_t w = 0;
  ptr[0] = 0;
  for (int64_t r = r0; r < r1; r++) {
    const int64_t node = r / b, c = r % b, i = node / g, j = node % g;
    const int64_t nb[5] = {i > 0 ? node - g : -1, j > 0 ? node - 1 : -1, node,
                           j + 1 < g ? node + 1 : -1, i + 1 < g ? node + g : -1};
    for (int t = 0; t < 5; t++)
      if (nb[t] >= 0) {
        ind[w] = (int32_t)(b * nb[t] + c);
        vf[w] = (float)v[t];
        val[w++] = v[t];
      }
    ptr[r - r0 + 1] = w;
  }
  gcoo_status st = gcoo_sparse_create_csr(A, dt, m, g * g * b, ptr, ind,
                                          dt == GCOO_FLOAT64 ? (void *)val : (void *)vf, 0);
  free(ptr);
  free(ind);
  free(val);
  free(vf);
  return st;
}

/* Rows [r0, r1) of the 2-D Laplacian on an n x n grid (4 on the diagonal, -1 per neighbour). */
static inline gcoo_status amg_laplace2d_rows(gcoo_sparse *A, gcoo_dtype dt, int64_t n, int64_t r0,
                                             int64_t r1) {
  static const double lap[5] = {-1.0, -1.0, 4.0, -1.0, -1.0};
  return amg_stencil2d_rows(A, dt, n, 1, lap, r0, r1);
}

/* A model problem as a PARTITIONED operator: dim 3 (stencil 7 or 27) or 2 (5-point), n per
 * side. */
static inline gcoo_status amg_model_op(gcoo_dist d, gcoo_dtype dt, int dim, int stencil, int64_t n,
                                       gcoo_dist_op *op) {
  const int64_t m = dim == 3 ? n * n * n : n * n;
  int64_t r0, r1;
  amg_rows_of(d, m, 1, &r0, &r1);
  gcoo_sparse slab = NULL;
  gcoo_status st = dim == 3 ? gcoo_sparse_poisson3d_rows(&slab, dt, GCOO_FORMAT_CSR, stencil, n, r0,
                                                         r1, 0)
                            : amg_laplace2d_rows(&slab, dt, n, r0, r1);
  if (st < 0) return st;
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.xmode = GCOO_DIST_X_PARTITIONED;
  st = gcoo_dist_op_create(d, slab, r0, m, &o, op);
  gcoo_sparse_destroy(&slab);
  return st;
}

#endif
