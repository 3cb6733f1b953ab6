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
  GCOO_SPGEMM_AUTO = 0,          /**< gcoo's own on the context's backend */
  GCOO_SPGEMM_GCOO = 1,          /**< gcoo's own: predicted allocation, overflow recovery */
  GCOO_SPGEMM_CUSPARSE_ALG1 = 2, /**< cusparseSpGEMM CUSPARSE_SPGEMM_DEFAULT (ALG1) */
  GCOO_SPGEMM_CUSPARSE_ALG2 = 3, /**< cusparseSpGEMM CUSPARSE_SPGEMM_ALG2 (less memory) */
  GCOO_SPGEMM_CUSPARSE_ALG3 = 4  /**< cusparseSpGEMM CUSPARSE_SPGEMM_ALG3 (chunked, least) */
} gcoo_spgemm_alg;

/** Name of an algorithm ("auto", "gcoo", "cusparse_alg1", ...): a static string, "unknown"
 *  outside the enumeration. */
const char *gcoo_spgemm_alg_name(gcoo_spgemm_alg alg);
/** The algorithm named name (as gcoo_spgemm_alg_name spells it), or -1 if unknown or NULL. */
int gcoo_spgemm_alg_from_name(const char *name);

/** Options of gcoo_spgemm: initialise with GCOO_SPGEMM_OPTIONS_INIT, then change fields. */
typedef struct gcoo_spgemm_options {
  size_t size;                  /**< sizeof(gcoo_spgemm_options) */
  gcoo_spgemm_alg alg;          /**< GCOO_SPGEMM_AUTO or a forced algorithm */
  gcoo_predict_options predict; /**< how the output is predicted (GPU allocation) */
  double safety;                /**< row space = ceil(safety x predicted) (0: default 1.25);
                                     tiny values force the overflow path (tests do) */
  int64_t memory_budget;        /**< bytes of device memory the product may use; rows are
                                     batched to stay under it (0: 90 % of free memory) */
  double chunk_fraction;        /**< cuSPARSE ALG3 chunk fraction (0: 0.2) */
} gcoo_spgemm_options;

/** The defaults: algorithm chosen by the library, the predictor's defaults, default safety,
 *  budget and chunk fraction. */
#define GCOO_SPGEMM_OPTIONS_INIT \
  { sizeof(gcoo_spgemm_options), GCOO_SPGEMM_AUTO, GCOO_PREDICT_OPTIONS_INIT, 0.0, 0, 0.0 }
/** The row-space factor used when options.safety is 0. */
#define GCOO_SPGEMM_DEFAULT_SAFETY 1.25

/** What a product did. */
typedef struct gcoo_spgemm_info {
  gcoo_spgemm_alg alg;     /**< the algorithm that ran */
  int64_t flop;            /**< F, exact */
  int64_t nnz;             /**< nnz(C), exact */
  int64_t nnz_predicted;   /**< the prediction the allocation came from (0 if none: cuSPARSE, or
                                 a small product computed at its bounds, docs/spgemm.md) */
  int64_t nnz_allocated;   /**< entries reserved in the first allocation */
  int64_t rows_overflowed; /**< rows that did not fit their space and were recomputed */
  int64_t batches;         /**< row batches run (1 unless a memory budget forced more) */
  double seconds;          /**< whole product on the backend (device work only on CUDA:
                                   no host<->device copies of A, B, C) */
  double seconds_predict;  /**< of which: the prediction */
  double seconds_total;    /**< the call, copies included */
  int64_t peak_bytes;      /**< device bytes held at the peak (own allocations; for
                                   cuSPARSE, its buffers and C), host bytes on the CPU */
  int64_t flop_recomputed; /**< FLOP of the rows recomputed after overflowing */
  double seconds_flop;     /**< of seconds: the FLOP/bounds pass (GPU) */
} gcoo_spgemm_info;

/** C = A B on the context's backend. A (m x k), B (k x n) of any format and one element type;
 *  *C is a new CSR matrix (host). opts NULL: defaults. info may be NULL. Not collective. */
gcoo_status gcoo_spgemm(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B, const gcoo_spgemm_options *opts,
                        gcoo_sparse *C, gcoo_spgemm_info *info);

/** C = A B on the CPU (OpenMP, one pass: each row accumulated in a hash table, sorted, appended
 *  to its thread's buffer; the buffers are then laid out as CSR). The reference of the tests
 *  and the CPU backend's SpGEMM. row_flop (may be NULL) is flop(i) when the caller has it (a
 *  prediction's row_flop), so the FLOP pass is not done twice. Not collective. */
gcoo_status gcoo_spgemm_cpu(gcoo_sparse A, gcoo_sparse B, const int64_t *row_flop, gcoo_sparse *C,
                            gcoo_spgemm_info *info);

#if GCOO_HAVE_MPI
/* ---- distributed C = A B (dist/spgemm_dist.c) ------------------------------------------------
 * Rank 0 predicts the whole product (FLOP and predicted size of every row of C), cuts the rows
 * of C (the rows of A) into one contiguous slab per rank of equal predicted work, and
 * broadcasts the plan. Each rank then gets its slab of A and the one contiguous range of rows
 * of B its slab references (from rank 0, or read from HDF5 by the rank itself), computes its
 * rows of C on its own backend (its GPU, or the CPU), and holds them as a CSR slab: local row
 * numbers, global column numbers. gcoo_h5_write_csr_rows writes the slabs as one CSR file with
 * a global indptr; gcoo_dist_spgemm_gather collects them on one rank. */
typedef struct gcoo_dist_s *gcoo_dist; /* gcoo/dist.h */

/** What a distributed product did, on this rank (times in seconds). */
typedef struct gcoo_dist_spgemm_info {
  int64_t m, k, n;           /**< C = A B is m x n, inner dimension k */
  int64_t flop;              /**< F of the whole product */
  int64_t nnz_predicted;     /**< rank 0's prediction of nnz(C) */
  int64_t nnz;               /**< nnz(C), exact (sum over ranks) */
  int64_t row0, nrows_local; /**< this rank's rows of C */
  int64_t nnz_local;         /**< entries of this rank's slab */
  int64_t b_row0, b_rows;    /**< the rows of B this rank received */
  double imbalance;          /**< max over mean of the predicted work per rank (1: perfect) */
  double imbalance_actual;   /**< the same for the measured local compute times */
  double seconds_plan;       /**< prediction and partition on rank 0 */
  double seconds_read;       /**< getting the operands to the ranks */
  double seconds_compute;    /**< the slowest rank's local product */
  double seconds;            /**< the whole call */
  gcoo_spgemm_info local;    /**< this rank's local product */
} gcoo_dist_spgemm_info;

/** C = A B with A and B in memory on rank 0 (other ranks pass NULL; their opts must agree).
 *  *C_slab gets this rank's rows of C (an empty slab on a rank without rows). info may be NULL.
 *  Collective. */
gcoo_status gcoo_dist_spgemm(gcoo_dist d, gcoo_sparse A, gcoo_sparse B,
                             const gcoo_spgemm_options *opts, gcoo_sparse *C_slab,
                             gcoo_dist_spgemm_info *info);

/** The same with A and B in files: an HDF5 CSR group ("file.h5" or "file.h5:/path"), read in
 *  slabs by every rank, or a Matrix Market file (.mtx, .mtx.gz), read by rank 0. path_b NULL:
 *  B = A. Values are converted to dtype. Collective. */
gcoo_status gcoo_dist_spgemm_files(gcoo_dist d, const char *path_a, const char *path_b,
                                   gcoo_dtype dtype, const gcoo_spgemm_options *opts,
                                   gcoo_sparse *C_slab, gcoo_dist_spgemm_info *info);

/** Collect the ranks' CSR slabs (in rank order) into one m x n CSR matrix on rank `root`
 *  (*C NULL elsewhere). Counts travel as 64-bit; no 2^31 limit. Collective. */
gcoo_status gcoo_dist_spgemm_gather(gcoo_dist d, gcoo_sparse C_slab, int root, gcoo_sparse *C);
#endif

#ifdef __cplusplus
}
#endif
#endif
