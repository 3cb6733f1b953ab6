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
/** Reserve the halo buffers for products of N columns in mem (agreed over ranks). Collective. */
gcoo_status gcoo__dist_op_reserve(gcoo_dist_op op, int64_t N, gcoo_memspace mem);

#endif
