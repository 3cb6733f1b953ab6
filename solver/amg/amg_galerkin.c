/* SPDX-License-Identifier: MIT */
/* solver/amg/amg_galerkin.c: the products of AMG's set-up across ranks. A rank's rows of A M
 * need the rows of M that A's off-rank columns name: they come from their owners along the
 * halo pattern of A's operator (gcoo__dist_op_halo_csr), are stacked under the rank's own rows
 * of M, A's columns are renumbered to match, and one local SpGEMM (the library's, with its
 * sampled prediction) gives the rows. The same serves A P_t, A P and the Galerkin product
 * R (A P), R = P^T being formed once: on one rank by a transpose, on more by sending P's
 * entries to the owners of their coarse rows. */
#include <stdlib.h>
#include <string.h>

#include "amg_impl.h"

gcoo_status gcoo__amg_dist_product(amg *H, gcoo_dist_op Aop, gcoo_sparse A, int64_t x0, int64_t xn,
                                   gcoo_sparse M, gcoo_sparse *C, int64_t *predicted) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse Mh = NULL, Mext = NULL, Ac = NULL;
  *C = NULL;
  if (gcoo_dist_size(H->d) == 1) {
    GCOO_CALL(gcoo__amg_spgemm(H->ctx, A, M, C, predicted));
    return GCOO_SUCCESS;
  }
  int64_t nh = 0;
  const int32_t *halo = NULL;
  gcoo__dist_op_halo_rows(Aop, &nh, &halo);
  GCOO_GOTO(gcoo__dist_op_halo_csr(Aop, M, &Mh));
  st = gcoo__amg_stack_rows(M, Mh, &Mext);
  if (st >= 0) st = gcoo__amg_compact_columns(A, x0, xn, nh, halo, &Ac);
  if (st >= 0) st = gcoo__amg_spgemm(H->ctx, Ac, Mext, C, predicted);
  GCOO_GOTO(gcoo_dist_agree(H->d, st));
done:
  gcoo_sparse_destroy(&Mh);
  gcoo_sparse_destroy(&Mext);
  gcoo_sparse_destroy(&Ac);
  if (st < 0) gcoo_sparse_destroy(C);
  return st;
}

gcoo_status gcoo__amg_restriction(amg *H, gcoo_sparse P, int64_t row0, int64_t n_fine,
                                  const int64_t *cbegin, gcoo_sparse *R) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view v;
  int32_t *rows = NULL, *cols = NULL;
  *R = NULL;
  if (gcoo_dist_size(H->d) == 1) {
    GCOO_CALL(gcoo__amg_transpose(P, R));
    return GCOO_SUCCESS;
  }
  st = gcoo__amg_view(P, &v);
  if (st >= 0) st = gcoo__malloc_n((void **)&rows, v.nnz, sizeof *rows, "AMG transpose");
  if (st >= 0) st = gcoo__malloc_n((void **)&cols, v.nnz, sizeof *cols, "AMG transpose");
  GCOO_GOTO(gcoo_dist_agree(H->d, st));
  for (int64_t i = 0; i < v.nrows; i++)
    for (int64_t e = v.ptr[i]; e < v.ptr[i + 1]; e++) {
      rows[e] = v.ind[e];
      cols[e] = (int32_t)(row0 + i);
    }
  GCOO_GOTO(
      gcoo__dist_redistribute(H->d, cbegin, n_fine, GCOO_FLOAT64, v.nnz, rows, cols, v.values, R));
done:
  free(rows);
  free(cols);
  return st;
}
