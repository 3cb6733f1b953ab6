/* SPDX-License-Identifier: MIT */
/* gcoo/dist.h: one MPI rank per GPU (or per CPU process), matrices partitioned by GCOO column
 * groups, results gathered with NCCL (MPI on the CPU backend). docs/distributed.md tells the whole
 * story (partition, the two X modes and the bytes each multiply sends, gathers, error agreement,
 * GPU binding, environment variables).
 *
 * Frame: as in gcoo/spdm.h, everything is stated for Y = alpha A X + beta Y with A (m x k),
 * X (k x N), Y (m x N) row-major. The GCOO column groups of S = A^T are groups of p rows of A, so
 * "partitioned by column groups" means each rank owns a contiguous range of rows of A and of Y
 * (whole groups). The paper's reading C = B S (column-major) is the same partition read through
 * the transposed views: each rank owns a contiguous range of columns of S and of C, and a
 * column slab of a column-major C is one contiguous block of memory.
 *
 * Collective calls must be entered by every rank of the communicator; when any rank fails, all
 * return an error: the ranks that failed their own status and message, the others
 * GCOO_ERR_REMOTE with the message of the lowest failing rank ("rank 3: ..."). No rank is left
 * waiting in a collective after another one gave up. */
#ifndef GCOO_DIST_H
#define GCOO_DIST_H

#include <mpi.h>

#include "gcoo/spdm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A distributed context: the ranks of a communicator, each with its local gcoo_ctx (opaque). */
typedef struct gcoo_dist_s *gcoo_dist;

/** Make the distributed context on comm (duplicated; never MPI_COMM_WORLD behind the caller's
 *  back). backend: "cpu", "cuda" (or "gpu"), "auto" (CUDA when every rank sees a GPU, else the
 *  CPU everywhere), or NULL for $GCOO_BACKEND / "auto". With CUDA each rank takes the GPU of its
 *  node-local rank; ranks are checked to sit on distinct physical GPUs (host name + PCI bus id),
 *  and more ranks on a node than GPUs is an error on every rank naming the host, the counts and
 *  the fix, unless GCOO_ALLOW_SHARED_GPU=1 (then ranks share GPUs round-robin and device
 *  collectives go through MPI instead of NCCL, which refuses shared GPUs). Bootstraps NCCL over
 *  MPI when built with NCCL (non-blocking init polled with a timeout, GCOO_NCCL_TIMEOUT seconds,
 *  default 300; GCOO_NCCL=0 turns NCCL off). *d receives the new context (NULL on failure; the
 *  caller frees it with gcoo_dist_destroy). Errors, the same on every rank: GCOO_ERR_NULL (d
 *  NULL), GCOO_ERR_INVALID_ARG (MPI not initialised, an unknown backend), GCOO_ERR_NO_DEVICE
 *  (cuda asked for and a rank sees no GPU, or ranks would share one), GCOO_ERR_MPI,
 *  GCOO_ERR_CUDA, GCOO_ERR_NCCL, GCOO_ERR_NO_MEMORY; GCOO_ERR_REMOTE on the ranks where another
 *  rank failed. Collective. */
gcoo_status gcoo_dist_create(gcoo_dist *d, MPI_Comm comm, const char *backend);
/** gcoo_dist_create in two steps, so that a caller can read its input while the rank's GPU
 *  starts (the CUDA context, begun on a thread with gcoo_cuda_prestart after MPI_Init, takes
 *  0.3-0.9 s on an H200 node when the page cache is cold). gcoo_dist_create_unbound makes the
 *  context's communicators, ranks and node-local ranks and agrees on the backend (the errors of
 *  gcoo_dist_create about MPI and the backend's name), but neither picks nor starts a device:
 *  gcoo_dist_ctx returns NULL and gcoo_dist_get_info's device is -1 until the binding. On an
 *  unbound context the calls that need no device may be used (gcoo_dist_rank, _size, _comm,
 *  _get_info, _agree, gcoo_dist_partition, ...) and the two that make an operator:
 *  gcoo_dist_op_create_from_file reads the file first and then binds, gcoo_dist_op_create binds
 *  first; everything else needs gcoo_dist_bind first. Collective. */
gcoo_status gcoo_dist_create_unbound(gcoo_dist *d, MPI_Comm comm, const char *backend);
/** Complete an unbound context as gcoo_dist_create does: the rank's GPU from its node-local rank
 *  (MPI's, whichever GPU a gcoo_cuda_prestart guessed from the launcher's variables: a wrong
 *  guess costs only the time to start the right one), the distinct-GPU check, the backend
 *  context and NCCL. Nothing to do on a bound context. Errors as gcoo_dist_create's
 *  (GCOO_ERR_NO_DEVICE, GCOO_ERR_CUDA, GCOO_ERR_NCCL, ...), the same on every rank; the context
 *  then stays unbound and is freed with gcoo_dist_destroy. Collective. */
gcoo_status gcoo_dist_bind(gcoo_dist d);
/** Free the context (aborts rather than destroys an NCCL communicator that saw an error); *d
 *  becomes NULL. d NULL or *d NULL: nothing to do. Collective. */
gcoo_status gcoo_dist_destroy(gcoo_dist *d);
/** This rank's rank in the context's communicator; -1 for an invalid d. */
int gcoo_dist_rank(gcoo_dist d);
/** The number of ranks; 0 for an invalid d. */
int gcoo_dist_size(gcoo_dist d);
/** The context's own duplicate of the caller's communicator (owned by d: do not free it);
 *  MPI_COMM_NULL for an invalid d. */
MPI_Comm gcoo_dist_comm(gcoo_dist d);
/** The rank's local context (backend, device), owned by d (do not destroy it); NULL for an
 *  invalid d. */
gcoo_ctx gcoo_dist_ctx(gcoo_dist d);

/** Where a rank runs, for reports. */
typedef struct gcoo_dist_info {
  int rank, size;             /**< this rank and the number of ranks */
  int local_rank, local_size; /**< rank and rank count on this node (MPI_COMM_TYPE_SHARED) */
  int device;                 /**< CUDA ordinal, -1 on the CPU backend */
  int nccl;                   /**< 1 when device collectives go through NCCL */
  int shared_gpu;             /**< 1 when some ranks share a GPU (GCOO_ALLOW_SHARED_GPU=1) */
  char host[64];              /**< host name (gethostname), NUL-terminated */
  int bound;                  /**< 1 once the device is bound (gcoo_dist_bind) */
  double bind_seconds;        /**< how long the binding took (the wait for the GPU's start-up) */
} gcoo_dist_info;
/** Fill *info (caller's struct) for this rank. GCOO_ERR_NULL (d or info NULL),
 *  GCOO_ERR_INVALID_OBJECT (d not a live context). Not collective. */
gcoo_status gcoo_dist_get_info(gcoo_dist d, gcoo_dist_info *info);

/** Agree on a status across ranks: when no rank failed, every rank returns its own status;
 *  when some failed, the failing ranks return their own error and the others GCOO_ERR_REMOTE
 *  with the lowest failing rank's message as their last error ("rank 3: ..."). Collective. */
gcoo_status gcoo_dist_agree(gcoo_dist d, gcoo_status local);

/** Contiguous split of n major units (rows, or groups of p rows) over nranks, balanced by the
 *  entry counts ptr[i+1] - ptr[i] plus a per-unit cost (so empty units still spread); ptr may be
 *  NULL for units of equal cost. begin has nranks + 1 entries; a rank may get an empty range
 *  (more ranks than units is fine). Not collective (deterministic: every rank computes the same
 *  split from the same ptr). */
typedef struct gcoo_partition {
  int nranks;       /**< the number of ranks split over */
  int64_t *begin;   /**< nranks + 1 unit offsets */
  int64_t *nnz;     /**< entries per rank (units per rank when ptr is NULL) */
  double imbalance; /**< max over mean of per-rank entries (1 = perfect) */
} gcoo_partition;

/** Fill *part (arrays allocated here, free with gcoo_partition_free) with the split of the n
 *  units whose entry counts ptr (n + 1 offsets, or NULL) gives, over nranks >= 1 ranks.
 *  GCOO_ERR_NULL (part NULL), GCOO_ERR_INVALID_ARG (n < 0, nranks < 1), GCOO_ERR_FORMAT (ptr
 *  decreasing), GCOO_ERR_NO_MEMORY. */
gcoo_status gcoo_partition_balanced(const int64_t *ptr, int64_t n, int nranks,
                                    gcoo_partition *part);
/** Free the arrays of *part and zero it; part NULL is ignored. */
void gcoo_partition_free(gcoo_partition *part);

/** How X is held by the ranks. */
typedef enum gcoo_dist_xmode {
  GCOO_DIST_X_REPLICATED = 0, /**< every rank passes all of X (k x N) */
  GCOO_DIST_X_PARTITIONED = 1 /**< square A: X rows partitioned like Y rows; each apply sends
                                   only the rows other ranks' slabs touch (halo, NCCL) */
} gcoo_dist_xmode;

/** Options of a distributed operator: initialise with GCOO_DIST_OP_OPTIONS_INIT, then change
 *  fields (the size field lets the struct grow compatibly). */
typedef struct gcoo_dist_op_options {
  size_t size;           /**< sizeof(gcoo_dist_op_options), set by the initialiser */
  gcoo_op_options local; /**< reading, algorithm, p for the rank's local operator */
  gcoo_dist_xmode xmode; /**< how the ranks hold X (default REPLICATED) */
  double shift;          /**< operate with A + shift I (square A; solvers' diagonal shift); 0: A */
} gcoo_dist_op_options;

/** The defaults: GCOO_OP_OPTIONS_INIT locally, X replicated, no shift. */
#define GCOO_DIST_OP_OPTIONS_INIT \
  { sizeof(gcoo_dist_op_options), GCOO_OP_OPTIONS_INIT, GCOO_DIST_X_REPLICATED, 0.0 }

/** A persistent distributed operator: the rank's slab of rows of A and its local operator
 *  (opaque). */
typedef struct gcoo_dist_op_s *gcoo_dist_op;

/** A persistent distributed operator from the caller's in-memory slab, any format:
 *    GCOO_SPARSE_DENSE: A_slab = rows [row0, row0 + nrows) of A (m_global x k): nrows x k;
 *    GCOO_DENSE_SPARSE: A_slab = columns [row0, row0 + ncols) of S (k x m_global): k x ncols.
 *  Ranks' slabs must tile 0..m_global in rank order (checked), empty slabs allowed. The slab is
 *  copied. PARTITIONED mode needs k == m_global and computes the halo pattern here, once.
 *  Collective. */
gcoo_status gcoo_dist_op_create(gcoo_dist d, gcoo_sparse A_slab, int64_t row0, int64_t m_global,
                                const gcoo_dist_op_options *opts, gcoo_dist_op *op);

/** The same from a file, partitioned by nnz over the ranks in whole units (rows, or GCOO groups):
 *    .h5 object (gcoo/h5.h): each rank reads only its slab when the file's major dimension is the
 *        partitioned one: CSR for GCOO_SPARSE_DENSE (the file holds A); CSC or GCOO for
 *        GCOO_DENSE_SPARSE (the file holds S; GCOO groups stay whole). Other layouts are read
 *        in slabs of their own major dimension and redistributed by row of A (one all-to-all).
 *    .mtx / .mtx.gz: read on rank 0 and scattered in CSR slabs.
 *  The file holds the sparse operand as the reading names it: A (Y = A X) or S (C = B S).
 *  Collective. */
gcoo_status gcoo_dist_op_create_from_file(gcoo_dist d, const char *path, gcoo_dtype dtype,
                                          const gcoo_dist_op_options *opts, gcoo_dist_op *op);

/** The range of rows of Y this rank owns: [*row0, *row0 + *nrows) (columns of C in the paper's
 *  reading). Not collective. */
gcoo_status gcoo_dist_op_get_row_range(gcoo_dist_op op, int64_t *row0, int64_t *nrows);

/** The rank's slab of A (rows [row0, row0 + nrows), global column indices, CSR, the A frame
 *  even for GCOO_DENSE_SPARSE) as a new matrix the caller destroys. For checks. Not collective. */
gcoo_status gcoo_dist_op_get_local_matrix(gcoo_dist_op op, gcoo_sparse *A_slab);

/** Rows rows[0..n) of the rank's slab (global row numbers inside [row0, row0 + nrows), strictly
 *  increasing) as a new n x k CSR matrix with global column indices, read from what the
 *  operator holds on the host, without rebuilding the slab: for checks of sampled rows. Not
 *  collective. */
gcoo_status gcoo_dist_op_get_local_rows(gcoo_dist_op op, const int64_t *rows, int64_t n,
                                        gcoo_sparse *R);

/** The distributed context an operator was made on. Not collective. */
gcoo_dist gcoo_dist_op_get_dist(gcoo_dist_op op);

/** Y_slab = alpha A_slab X + beta Y_slab (C_slab = alpha B S_slab + beta C_slab).
 *    REPLICATED:  X is all of X, k x N (B all of B, M x k column-major);
 *    PARTITIONED: X is this rank's rows of X, nrows x N (B its columns, M x nrows).
 *  Host or device operands, as gcoo_op_apply; on the CUDA backend the call is asynchronous on
 *  the context's stream. Collective (both modes agree on errors before and after the product). */
gcoo_status gcoo_dist_op_apply(gcoo_dist_op op, double alpha, const gcoo_dense *X, double beta,
                               gcoo_dense *Y_slab);

/** Where an operator's time and bytes went. */
typedef struct gcoo_dist_op_info {
  int64_t m_global, k;           /**< A is m_global x k (A frame) */
  int64_t nnz_global, nnz_local; /**< entries of A, and of this rank's slab */
  int64_t row0, nrows_local;     /**< this rank's rows [row0, row0 + nrows_local) */
  double imbalance;              /**< of the nnz partition: max over mean (1 = perfect) */
  gcoo_dist_xmode xmode;         /**< how X is held */
  int64_t halo_rows_recv; /**< X rows received per apply (PARTITIONED); bytes = rows*N*size */
  int64_t halo_rows_send; /**< X rows sent per apply (PARTITIONED) */
  int halo_peers;         /**< ranks this rank exchanges halo rows with */
  double read_seconds;    /**< reading and scattering the file (create_from_file) */
  double setup_seconds;   /**< tiling checks, halo pattern, local operator setup */
  gcoo_op_info local;     /**< the rank's local operator (the diagonal block if PARTITIONED) */
} gcoo_dist_op_info;

/** Fill *info (caller's struct) for this rank's part of op. GCOO_ERR_NULL (op or info NULL),
 *  GCOO_ERR_INVALID_OBJECT (op not a live operator). Not collective. */
gcoo_status gcoo_dist_op_get_info(gcoo_dist_op op, gcoo_dist_op_info *info);
/** Free the operator; *op becomes NULL (NULL and a pointer to NULL are accepted). Not
 *  collective. */
gcoo_status gcoo_dist_op_destroy(gcoo_dist_op *op);

/** Gather slabs into Y_full on root (root >= 0) or on every rank (root = -1), uneven sizes and
 *  empty ranks allowed:
 *    row-major Y_slab:    row slabs (rank r's rows follow rank r-1's), Y_full row-major;
 *    column-major Y_slab: column slabs (the paper's C = B S partition), Y_full column-major.
 *  Device buffers go through NCCL (grouped ncclSend/ncclRecv; ncclAllGather when all slabs are
 *  equal), host buffers through MPI_Gatherv/Allgatherv with a row datatype (no int overflow).
 *  Y_full is only touched on receiving ranks (pass NULL elsewhere). Collective. */
gcoo_status gcoo_dist_gather_rows(gcoo_dist d, const gcoo_dense *Y_slab, int root,
                                  gcoo_dense *Y_full);

/** A REPLICATED sparse x dense product gathered while it is computed (dist/gather_overlap.c):
 *  the rank's slab split once into nblocks row blocks (one sub-operator each: a second copy of
 *  the slab), so that each finished block travels to the root while the next one is computed.
 *  nblocks in 1 .. 4096 (1: no split, the plain path). Collective. */
typedef struct gcoo_dist_pipeline_s *gcoo_dist_pipeline;
gcoo_status gcoo_dist_pipeline_create(gcoo_dist_op op, int nblocks, gcoo_dist_pipeline *pl);

/** Y_full on root = alpha A X (beta = 0), i.e. gcoo_dist_op_apply(op, alpha, X, 0, Y_slab) then
 *  gcoo_dist_gather_rows(d, Y_slab, root, Y_full), with the gather overlapping the product:
 *    device buffers with NCCL: block products on the context's stream, each block's send on a
 *      second stream after an event, the root's receives straight into Y_full;
 *    host buffers: MPI_Isend of each block as it is done, MPI_Irecv into Y_full on the root.
 *  The root computes its own rows in place in Y_full (its Y_slab is then left unspecified).
 *  Other operands (the dense x sparse reading, PARTITIONED operators, strided Y_slab / Y_full,
 *  device buffers without NCCL, root = -1) take the plain path, with the same result. Y_slab
 *  (this rank's rows) on every rank, Y_full on the root. Collective. */
gcoo_status gcoo_dist_pipeline_apply_gather(gcoo_dist_pipeline pl, double alpha,
                                            const gcoo_dense *X, gcoo_dense *Y_slab, int root,
                                            gcoo_dense *Y_full);
/** Free a pipeline (not its operator). Not collective. */
gcoo_status gcoo_dist_pipeline_destroy(gcoo_dist_pipeline *pl);

/** Sum of a small array over ranks in place (block inner products of solvers): NCCL all-reduce
 *  of device data, MPI_Allreduce of host data. Synchronous. Collective. */
gcoo_status gcoo_dist_allreduce_sum(gcoo_dist d, gcoo_dtype dtype, void *buf, int64_t count,
                                    gcoo_memspace mem);

#ifdef __cplusplus
}
#endif
#endif
