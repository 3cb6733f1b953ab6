/* SPDX-License-Identifier: MIT */
/* dist/dist_access.h: what the layers above dist/ (the solver) may ask of a distributed operator
 * beyond the public API, without seeing its fields: its local block's operator and a product
 * without the error agreement of gcoo_dist_op_apply, for iterations whose operands were checked
 * once at their start. */
#ifndef GCOO_DIST_ACCESS_H
#define GCOO_DIST_ACCESS_H

#include "gcoo/dist.h"

/** The operator of this rank's diagonal block (PARTITIONED) or slab (REPLICATED); NULL on a rank
 *  without rows. Owned by op. */
gcoo_op gcoo__dist_op_local(gcoo_dist_op op);
/** 1 when this rank's rows reach columns of other ranks (a halo exchange in every product). */
int gcoo__dist_op_has_halo(gcoo_dist_op op);
/** Serve the products with `local` instead of the operator's own local block operator (the same
 *  matrix, another kernel) and return the one it replaces; the caller restores it. */
gcoo_op gcoo__dist_op_swap_local(gcoo_dist_op op, gcoo_op local);
/** Y_slab = alpha A X + beta Y_slab as gcoo_dist_op_apply, for operands already checked (shape,
 *  type, memory) and workspace already reserved (gcoo__dist_op_reserve): no agreement over ranks
 *  before or after. An error of the local product is still returned (on that rank). Collective. */
gcoo_status gcoo__dist_op_apply_checked(gcoo_dist_op op, double alpha, const gcoo_dense *X,
                                        double beta, gcoo_dense *Y_slab);
/** d[i] = A(row0 + i, row0 + i) for this rank's rows (the diagonal shift included), read from
 *  the host copy its local block keeps; GCOO_ERR_UNSUPPORTED where the block lives only on a
 *  device (use gcoo_dist_op_get_local_matrix there). Not collective. */
gcoo_status gcoo__dist_op_diagonal(gcoo_dist_op op, double *d);
/** Reserve the halo buffers for products of N columns in mem (agreed over ranks). Collective. */
gcoo_status gcoo__dist_op_reserve(gcoo_dist_op op, int64_t N, gcoo_memspace mem);

/** A PARTITIONED operator whose X rows are split over the ranks otherwise than its Y rows: a
 *  rectangular m_global x col_begin[size] matrix (the prolongator and restriction of AMG) whose
 *  products take this rank's rows [col_begin[rank], col_begin[rank + 1]) of X, with the halo
 *  exchange of a square operator. slab: this rank's CSR rows [row0, ..) with global column
 *  indices, taken over (*slab is NULL afterwards). col_begin (size + 1 offsets) is copied.
 *  Collective. */
gcoo_status gcoo__dist_op_create_rect(gcoo_dist d, gcoo_sparse *slab, int64_t row0,
                                      int64_t m_global, const int64_t *col_begin,
                                      const gcoo_dist_op_options *opts, gcoo_dist_op *op);
/** The X rows a PARTITIONED operator's products receive from other ranks (global numbers,
 *  ascending: grouped by owner in rank order): *n of them at *rows, owned by op. Not
 *  collective. */
void gcoo__dist_op_halo_rows(gcoo_dist_op op, int64_t *n, const int32_t **rows);
/** The rows of a sparse matrix M distributed like op's X (own: this rank's rows of M, CSR, any
 *  columns) that op's halo needs, as a new CSR matrix whose row r is halo row r of
 *  gcoo__dist_op_halo_rows (for products A M across ranks: PETSc's MatGetBrowsOfAoCols). One
 *  exchange of row lengths, one of entries, with the halo's peers. Collective. */
gcoo_status gcoo__dist_op_halo_csr(gcoo_dist_op op, gcoo_sparse own, gcoo_sparse *halo);
/** This rank's n entries (global rows, columns, values) sent to the owners of their rows
 *  (row_begin: size + 1 offsets); each rank gets its rows as a CSR slab with k columns,
 *  duplicates summed. Collective. */
gcoo_status gcoo__dist_redistribute(gcoo_dist d, const int64_t *row_begin, int64_t k,
                                    gcoo_dtype dtype, int64_t n, const int32_t *rows,
                                    const int32_t *cols, const void *vals, gcoo_sparse *slab);

#endif
