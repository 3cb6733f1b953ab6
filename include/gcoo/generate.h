/* SPDX-License-Identifier: MIT */
/* gcoo/generate.h: test and benchmark matrices that any rank can build a slab of by itself.
 *
 * Every generator here is defined row by row (each row from its own random stream, or from a
 * formula), so rows [row0, row1) built on one rank are bit-identical to the same rows of the
 * whole matrix built on one process: a distributed run never has to move a generated matrix,
 * and a file written from slabs does not depend on the number of ranks. */
#ifndef GCOO_GENERATE_H
#define GCOO_GENERATE_H

#include "gcoo/dense.h"
#include "gcoo/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Rows [row0, row1) of gcoo_sparse_random(nrows, ncols, sparsity, seed) with identical entries,
 *  as a (row1 - row0) x ncols matrix whose rows are renumbered from 0. 0 <= row0 <= row1 <= nrows.
 *  gcoo_sparse_random is this call with the whole range. Not collective. */
gcoo_status gcoo_sparse_random_rows(gcoo_sparse *A, gcoo_dtype dtype, gcoo_format format,
                                    int64_t nrows, int64_t ncols, double sparsity, uint64_t seed,
                                    int32_t p, int64_t row0, int64_t row1);

/** Rows [row0, row1) of the 3-D Poisson matrix on an n x n x n grid with Dirichlet boundary:
 *  n^3 unknowns in natural order (x fastest, then y, then z), symmetric positive definite.
 *    stencil 7:  6 on the diagonal, -1 for each of the (up to) 6 face neighbours;
 *    stencil 27: 26 on the diagonal, -1 for each of the (up to) 26 neighbours (HPCG's matrix).
 *  A (row1 - row0) x n^3 matrix in the given format (rows renumbered from 0); n^3 must fit a
 *  32-bit index (n <= 1290). Not collective. */
gcoo_status gcoo_sparse_poisson3d_rows(gcoo_sparse *A, gcoo_dtype dtype, gcoo_format format,
                                       int stencil, int64_t n, int64_t row0, int64_t row1,
                                       int32_t p);

/** Entries in row `row` of the 3-D Poisson matrix (for partitioning without building it). */
int64_t gcoo_poisson3d_row_nnz(int stencil, int64_t n, int64_t row);

/** Fill the host matrix D with rows [row0, row0 + D->nrows) of the matrix that
 *  gcoo_dense_fill_random(seed) makes: row i of D is drawn from stream (seed, row0 + i), so
 *  any rank can make any block of rows (or single rows) of one global random matrix.
 *  gcoo_dense_fill_random(D, seed) is this call with row0 = 0. Not collective. */
gcoo_status gcoo_dense_fill_random_rows(gcoo_dense *D, uint64_t seed, int64_t row0);

#ifdef __cplusplus
}
#endif
#endif
