/* SPDX-License-Identifier: MIT */
/* src/smallmat.h: small dense algebra on the host (src/smallmat.c): Cholesky and the orthogonalising
 * transform of block Krylov methods. */
#ifndef GCOO_SRC_SMALLMAT_H
#define GCOO_SRC_SMALLMAT_H

#include "gcoo/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- small dense algebra on the host (src/smallmat.c), row-major k x k in double ----------- */
/** Cholesky A = L L^T in place (lower triangle; upper zeroed); GCOO_ERR_BREAKDOWN if not SPD. */
gcoo_status gcoo__chol(int64_t n, double *A);
/** Solve L L^T X = B in place, B n x nrhs row-major. */
void gcoo__chol_solve(int64_t n, const double *L, int64_t nrhs, double *B);
/** From a Gram matrix G = W^T W (k x k), a k x rank transform T (row-major, leading dimension
 *  rank) with W T orthonormal, by Cholesky with diagonal pivoting that stops at pivots below
 *  rank_tol * max diag(G): dependent or vanishing columns of W are dropped, not divided by. */
gcoo_status gcoo__orth_transform(int64_t k, const double *G, double rank_tol, double *T,
                                 int64_t *rank);

#ifdef __cplusplus
}
#endif
#endif
