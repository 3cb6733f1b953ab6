/* SPDX-License-Identifier: MIT */
/* gcoo/dist.h: one MPI rank per GPU (or per CPU process), matrices partitioned by GCOO column
 * groups, results gathered with NCCL (MPI on the CPU backend).
 *
 * Frame: as in gcoo/spdm.h, everything is stated for Y = alpha A X + beta Y with A (m x k),
 * X (k x N), Y (m x N) row-major. The GCOO column groups of S = A^T are groups of p rows of A, so
 * "partitioned by column groups" means each rank owns a contiguous range of rows of A and of Y
 * (whole groups). The paper's reading C = B S (column-major) is the same partition read through
 * the transposed views: each rank owns a contiguous range of columns of S and of C.
 *
 * Collective calls must be entered by every rank of the communicator; when any rank fails, all
 * return an error (the failing rank's message is passed to the others and names its rank). */
#ifndef GCOO_DIST_H
#define GCOO_DIST_H

#include <mpi.h>

#include "gcoo/spdm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gcoo_dist_s *gcoo_dist;

/** Make the distributed context on comm (duplicated; never MPI_COMM_WORLD behind the caller's
 *  back). backend as in gcoo_ctx_create; for CUDA each rank takes the GPU of its node-local rank
 *  (modulo the visible devices only if GCOO_ALLOW_SHARED_GPU=1), and more ranks on a node than
 *  GPUs is a clear error. Bootstraps NCCL over MPI when built with NCCL. Collective. */
gcoo_status gcoo_dist_create(gcoo_dist *d, MPI_Comm comm, const char *backend);
gcoo_status gcoo_dist_destroy(gcoo_dist *d);
int gcoo_dist_rank(gcoo_dist d);
int gcoo_dist_size(gcoo_dist d);
MPI_Comm gcoo_dist_comm(gcoo_dist d);
/** The rank's local context (backend, device). */
gcoo_ctx gcoo_dist_ctx(gcoo_dist d);

/** Agree on a status across ranks: every rank returns the worst (most negative) status, and the
 *  ranks that did not fail get the failing rank's message ("rank 3: ..."). Collective. */
gcoo_status gcoo_dist_agree(gcoo_dist d, gcoo_status local);

/** Contiguous split of n major units (rows, or groups of p rows) over nranks, balanced by the
 *  entry counts ptr[i+1] - ptr[i] (plus a per-unit cost so empty units still spread).
 *  begin has nranks + 1 entries; a rank may get an empty range. Not collective. */
typedef struct gcoo_partition {
  int nranks;
  int64_t *begin;      /**< nranks + 1 unit offsets */
  int64_t *nnz;        /**< entries per rank */
  double imbalance;    /**< max over mean of per-rank entries (1 = perfect) */
} gcoo_partition;

gcoo_status gcoo_partition_balanced(const int64_t *ptr, int64_t n, int nranks,
                                    gcoo_partition *part);
void gcoo_partition_free(gcoo_partition *part);

/** How X is held by the ranks. */
typedef enum gcoo_dist_xmode {
  GCOO_DIST_X_REPLICATED = 0, /**< every rank passes all of X (k x N) */
  GCOO_DIST_X_PARTITIONED = 1 /**< square A: X rows partitioned like Y rows; each apply sends
                                   only the rows other ranks' slabs touch (halo, NCCL) */
} gcoo_dist_xmode;

typedef struct gcoo_dist_op_options {
  size_t size;
  gcoo_op_options local;  /**< reading, algorithm, p for the rank's local operator */
  gcoo_dist_xmode xmode;
} gcoo_dist_op_options;

#define GCOO_DIST_OP_OPTIONS_INIT {sizeof(gcoo_dist_op_options), GCOO_OP_OPTIONS_INIT, GCOO_DIST_X_REPLICATED}

typedef struct gcoo_dist_op_s *gcoo_dist_op;

/** A persistent distributed operator from the caller's in-memory slab: the rows
 *  [row0, row0 + slab rows) of A (m_global x k), any format. Ranks' slabs must tile 0..m_global
 *  in rank order (checked). Collective. */
gcoo_status gcoo_dist_op_create(gcoo_dist d, gcoo_sparse A_slab, int64_t row0, int64_t m_global,
                                const gcoo_dist_op_options *opts, gcoo_dist_op *op);

/** The same from a file (.h5 object in any layout of gcoo/h5.h, or .mtx/.mtx.gz read on rank 0
 *  and scattered): partitioned by nnz over the ranks, each rank reading only its slab. */
gcoo_status gcoo_dist_op_create_from_file(gcoo_dist d, const char *path, gcoo_dtype dtype,
                                          const gcoo_dist_op_options *opts, gcoo_dist_op *op);

/** Rows of Y this rank owns: [*row0, *row0 + *nrows). Not collective. */
gcoo_status gcoo_dist_op_local_rows(gcoo_dist_op op, int64_t *row0, int64_t *nrows);

/** Y_slab = alpha A_slab X + beta Y_slab. X is all of X (REPLICATED) or this rank's rows of X
 *  (PARTITIONED). Host or device operands, as gcoo_op_apply. Collective in PARTITIONED mode. */
gcoo_status gcoo_dist_op_apply(gcoo_dist_op op, double alpha, const gcoo_dense *X, double beta,
                               gcoo_dense *Y_slab);

/** Where an operator's time and bytes went. */
typedef struct gcoo_dist_op_info {
  int64_t m_global, k, nnz_global, nnz_local, row0, nrows_local;
  double imbalance;            /**< of the nnz partition */
  int64_t halo_rows_recv;      /**< X rows received per apply (PARTITIONED) */
  int64_t halo_rows_send;      /**< X rows sent per apply (PARTITIONED) */
  gcoo_op_info local;          /**< the rank's local operator */
} gcoo_dist_op_info;

gcoo_status gcoo_dist_op_get_info(gcoo_dist_op op, gcoo_dist_op_info *info);
gcoo_status gcoo_dist_op_destroy(gcoo_dist_op *op);

/** Gather row slabs (row-major, uneven sizes allowed, empty ranks allowed) into Y_full on root
 *  (root >= 0) or on every rank (root = -1). With NCCL for device buffers, MPI otherwise.
 *  Y_full is only read on receiving ranks. Collective. */
gcoo_status gcoo_dist_gather_rows(gcoo_dist d, const gcoo_dense *Y_slab, int root,
                                  gcoo_dense *Y_full);

/** Sum of a small host array over ranks (block inner products of solvers): NCCL all-reduce of
 *  device data, MPI_Allreduce of host data. Collective. */
gcoo_status gcoo_dist_allreduce_sum(gcoo_dist d, gcoo_dtype dtype, void *buf, int64_t count,
                                    gcoo_memspace mem);

#ifdef __cplusplus
}
#endif
#endif
