/* SPDX-License-Identifier: MIT */
/* gcoo/spgemm.h: sparse x sparse products C = A B (CSR), with the output preallocated from the
 * prediction of gcoo/predict.h.
 *
 * The result is always exact: on the GPU each row of C gets safety x its predicted size (never
 * more than its FLOP bound), a row that turns out larger is detected, not written past its
 * space, and recomputed into a second allocation. C is structural: an entry whose products
 * cancel to 0.0 is kept (as cuSPARSE and scipy do), so nnz(C) is the predictor's NNZ. Columns
 * are sorted in every row. Values accumulate in the element type of A and B (which must agree).
 *
 * Backends: the CPU (OpenMP, row-wise hash accumulators; also the reference of the tests) and
 * CUDA (kernels/spgemm*.cu: rows binned by FLOP, shared-memory hash tables, global-memory
 * tables for long rows, batches of rows under a memory budget), chosen by the context. */
#ifndef GCOO_SPGEMM_H
#define GCOO_SPGEMM_H

#include "gcoo/ctx.h"
#include "gcoo/predict.h"
#include "gcoo/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Algorithm of an SpGEMM. */
typedef enum gcoo_spgemm_alg {
  GCOO_SPGEMM_AUTO = 0,           /**< gcoo's own on the context's backend */
  GCOO_SPGEMM_GCOO = 1,           /**< gcoo's own: predicted allocation, overflow recovery */
  GCOO_SPGEMM_CUSPARSE_ALG1 = 2,  /**< cusparseSpGEMM CUSPARSE_SPGEMM_DEFAULT (ALG1) */
  GCOO_SPGEMM_CUSPARSE_ALG2 = 3,  /**< cusparseSpGEMM CUSPARSE_SPGEMM_ALG2 (less memory) */
  GCOO_SPGEMM_CUSPARSE_ALG3 = 4   /**< cusparseSpGEMM CUSPARSE_SPGEMM_ALG3 (chunked, least) */
} gcoo_spgemm_alg;

const char *gcoo_spgemm_alg_name(gcoo_spgemm_alg alg);
int gcoo_spgemm_alg_from_name(const char *name);

typedef struct gcoo_spgemm_options {
  size_t size;                  /**< sizeof(gcoo_spgemm_options) */
  gcoo_spgemm_alg alg;
  gcoo_predict_options predict; /**< how the output is predicted (GPU allocation) */
  double safety;                /**< row space = ceil(safety x predicted) (0: default 1.25);
                                     tiny values force the overflow path (tests do) */
  int64_t memory_budget;        /**< bytes of device memory the product may use; rows are
                                     batched to stay under it (0: 90 % of free memory) */
  double chunk_fraction;        /**< cuSPARSE ALG3 chunk fraction (0: 0.2) */
} gcoo_spgemm_options;

#define GCOO_SPGEMM_OPTIONS_INIT \
  {sizeof(gcoo_spgemm_options), GCOO_SPGEMM_AUTO, GCOO_PREDICT_OPTIONS_INIT, 0.0, 0, 0.0}
#define GCOO_SPGEMM_DEFAULT_SAFETY 1.25

/** What a product did. */
typedef struct gcoo_spgemm_info {
  gcoo_spgemm_alg alg;        /**< the algorithm that ran */
  int64_t flop;               /**< F, exact */
  int64_t nnz;                /**< nnz(C), exact */
  int64_t nnz_predicted;      /**< the prediction the allocation came from (0 if none) */
  int64_t nnz_allocated;      /**< entries reserved in the first allocation */
  int64_t rows_overflowed;    /**< rows that did not fit their space and were recomputed */
  int64_t batches;            /**< row batches run (1 unless a memory budget forced more) */
  double seconds;             /**< whole product on the backend (device work only on CUDA:
                                   no host<->device copies of A, B, C) */
  double seconds_predict;     /**< of which: the prediction */
  double seconds_total;       /**< the call, copies included */
  int64_t peak_bytes;         /**< device bytes held at the peak (own allocations; for
                                   cuSPARSE, its buffers and C), host bytes on the CPU */
} gcoo_spgemm_info;

/** C = A B on the context's backend. A (m x k), B (k x n) of any format and one element type;
 *  *C is a new CSR matrix (host). opts NULL: defaults. info may be NULL. Not collective. */
gcoo_status gcoo_spgemm(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                        const gcoo_spgemm_options *opts, gcoo_sparse *C, gcoo_spgemm_info *info);

/** C = A B on the CPU (OpenMP, one pass: each row accumulated in a hash table, sorted, appended
 *  to its thread's buffer; the buffers are then laid out as CSR). The reference of the tests
 *  and the CPU backend's SpGEMM. row_flop (may be NULL) is flop(i) when the caller has it (a
 *  prediction's row_flop), so the FLOP pass is not done twice. Not collective. */
gcoo_status gcoo_spgemm_cpu(gcoo_sparse A, gcoo_sparse B, const int64_t *row_flop,
                            gcoo_sparse *C, gcoo_spgemm_info *info);

#ifdef __cplusplus
}
#endif
#endif
