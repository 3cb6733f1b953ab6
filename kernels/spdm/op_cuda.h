/* SPDX-License-Identifier: MIT */
/* kernels/spdm/op_cuda.h: the CUDA operator's pieces (op_cuda.c: set-up, apply, destroy and the
 * layouts built on demand; op_trial.c: the plan-time trials), for the backend's table
 * (kernels/backend/backend_cuda.c) and each other. Every function takes an operator of a CUDA
 * context whose device is current unless it says it makes it so. */
#ifndef GCOO_KERNELS_SPDM_OP_CUDA_H
#define GCOO_KERNELS_SPDM_OP_CUDA_H

#include "backend/backend_cuda_impl.h"
#include "dispatch.h"

/* ---- the backend table's operator entries (op_cuda.c; each makes the context's device current) */
gcoo_status gcoo__cuda_op_setup(gcoo_op op);
gcoo_status gcoo__cuda_op_apply(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                                gcoo_dense *Y);
gcoo_status gcoo__cuda_op_destroy(gcoo_op op);

/* ---- op_cuda.c ------------------------------------------------------------------------------ */
/** Y = alpha A X + beta Y with the operator's algorithm, device operands, queued on its stream. */
gcoo_status gcoo__cuda_op_run(gcoo_op op, double alpha, const cuda_operand *X, double beta,
                              const cuda_operand *Y);
/** The tuned layout at width p and its direct/staged preference (reuse, row skew). */
gcoo_status gcoo__cuda_op_tuned_setup(gcoo_op op, int32_t p, int64_t max_row_nnz);
/** The tensor-core layout (windows of GCOO_TC_ROWS rows, reordered where that saves tiles). */
gcoo_status gcoo__cuda_op_tc_setup(gcoo_op op);
/** The tuned kernel's X-resident layout, its row-split layout, its rows longest first and the
 *  row-split items longest first: each built once, on demand (these make the device current). */
gcoo_status gcoo__cuda_op_build_resident(gcoo_op op);
gcoo_status gcoo__cuda_op_build_split(gcoo_op op);
gcoo_status gcoo__cuda_op_build_order(gcoo_op op);
gcoo_status gcoo__cuda_op_build_split_order(gcoo_op op);
/** Device bytes of a CSR, and of a tuned layout beside its CSR. */
size_t gcoo__cuda_csr_bytes(const gcoo_cuda_csr *A);
size_t gcoo__cuda_tuned_bytes(const gcoo_cuda_tuned *L, const gcoo_cuda_csr *A);

/* ---- op_trial.c: each leaves the rule's choice where the trial fails or gains too little ----- */
/** The tuned kernel's shape at N, timed on operands of its own. */
gcoo_status gcoo__cuda_shape_trial(gcoo_op op, int64_t N);
/** AUTO's candidates timed at the hint's N; the operator is set up for the fastest; *p its
 *  group width (0 for cuSPARSE). */
gcoo_status gcoo__cuda_auto_trial(gcoo_op op, const gcoo_dispatch_in *din, int32_t *p);
/** The tensor-core mode against the exact choice (TF32 asked on a float AUTO operator). */
gcoo_status gcoo__cuda_tc_trial(gcoo_op op, const gcoo_dispatch_in *din, int32_t *p);

#endif
