/* SPDX-License-Identifier: MIT */
/* dist/dist_impl.h: the private objects of dist/ and the helpers its files share: checked MPI
 * and NCCL calls, status agreement, large-count MPI transfers and memory that may live on
 * the host or on the rank's GPU. Private to dist/ (and to the tests of dist/). */
#ifndef GCOO_DIST_IMPL_H
#define GCOO_DIST_IMPL_H

#include <mpi.h>

#include "backend_impl.h"
#include "dist_access.h"
#include "gcoo/dist.h"
#include "mpi_check.h"

#if GCOO_HAVE_NCCL
#include <nccl.h>
#endif

#define GCOO_MAGIC_DIST 0x67636f6f64697374ull    /* "gcoodist" */
#define GCOO_MAGIC_DIST_OP 0x67636f6f646f7021ull /* "gcoodop!" */

/* Message tags of dist/ on its own duplicated communicator (no clash with the caller's). */
enum { GCOO_TAG_HALO = 101, GCOO_TAG_SCATTER = 102, GCOO_TAG_REDIST = 103, GCOO_TAG_GATHER = 104 };

struct gcoo_dist_s {
  uint64_t magic;
  MPI_Comm comm; /* duplicate of the caller's communicator, errors returned */
  MPI_Comm node; /* the ranks of this node (MPI_COMM_TYPE_SHARED) */
  int rank, size, local_rank, local_size;
  int threads; /* OpenMP threads of this rank (gcoo__rank_threads) */
  char host[64];
  gcoo_ctx ctx;        /* this rank's backend context */
  int device;          /* CUDA ordinal or -1 */
  int shared_gpu;      /* some ranks share a GPU (GCOO_ALLOW_SHARED_GPU=1): no NCCL */
  double nccl_timeout; /* seconds before a pending NCCL operation is declared dead */
  int nccl_broken;     /* the communicator was aborted after a failure */
  int use_cuda;        /* the backend agreed on at creation */
  int bound;           /* ctx (and NCCL) made: gcoo_dist_bind ran */
  double bind_seconds; /* how long the binding took (mostly the wait for the GPU's start-up) */
#if GCOO_HAVE_NCCL
  ncclComm_t nccl; /* NULL when NCCL is not used */
#endif
};

/* ---- checked foreign calls ---------------------------------------------------------------- *
 * Each returns a gcoo_status, so they compose with GCOO_CALL / GCOO_GOTO:
 *     GCOO_GOTO(GCOO_MPI(MPI_Bcast(...)));                                                     */
/* GCOO_MPI(x): src/mpi_check.h, the library's one MPI checker */
/* CUDA: only through the context's gcoo_device_ops and allocator (gcoo__dist_device below) */
#if GCOO_HAVE_NCCL
gcoo_status gcoo__nccl_check(gcoo_dist d, ncclResult_t r, const char *file, int line,
                             const char *func, const char *expr);
/* ncclInProgress (non-blocking communicator) counts as success: finish with gcoo__nccl_wait. */
#define GCOO_NCCL(d, x) gcoo__nccl_check((d), (x), __FILE__, __LINE__, __func__, #x)
/** Poll ncclCommGetAsyncError until the communicator's pending call finished, failed or the
 *  timeout passed (a dead peer must not hang this rank). */
gcoo_status gcoo__nccl_wait(gcoo_dist d, const char *what);
/** Wait for a stream carrying NCCL work, watching the communicator's async error and the
 *  timeout. */
gcoo_status gcoo__nccl_stream_wait(gcoo_dist d, void *stream, const char *what);
/** Bootstrap the communicator over MPI (collective; all ranks get one or all an error). */
gcoo_status gcoo__dist_nccl_init(gcoo_dist d);
/** The communicator usable for device collectives, or an error saying why there is none. */
gcoo_status gcoo__dist_nccl(gcoo_dist d, ncclComm_t *comm);
#endif
/** 1 when device buffers are moved with NCCL on this context. */
int gcoo__dist_uses_nccl(gcoo_dist d);

/* ---- agreement (dist_agree.c) -------------------------------------------------------------- */
/** gcoo_dist_agree on a bare communicator (usable before the gcoo_dist exists). When
 *  nccl_failed is not NULL it is set on every rank if any rank failed with GCOO_ERR_NCCL. */
gcoo_status gcoo__agree_comm(MPI_Comm comm, gcoo_status local, int *nccl_failed);
/** Agree, and abort the NCCL communicator on every rank when any rank's NCCL work failed
 *  ("within a node, all ranks must abort", nccl#863). */
gcoo_status gcoo__dist_agree(gcoo_dist d, gcoo_status local);

/* ---- MPI helpers (dist_mpi.c) -------------------------------------------------------------- */
MPI_Datatype gcoo__mpi_dtype(gcoo_dtype t);
/** A row of ncols elements whose extent is ld elements (rows of a matrix with leading
 *  dimension ld); counts and displacements in rows then never overflow int. Free with
 *  MPI_Type_free. */
gcoo_status gcoo__mpi_row_type(gcoo_dtype t, int64_t ncols, int64_t ld, MPI_Datatype *type);
/** Non-blocking send/receive of count (int64) elements of elem_bytes bytes, as at most two
 *  messages (whole 1 MiB blocks, then the rest), so counts past INT_MAX work. req[2] gets
 *  MPI_REQUEST_NULL for unused slots. */
gcoo_status gcoo__mpi_isend_big(const void *buf, int64_t count, size_t elem_bytes, int dest,
                                int tag, MPI_Comm comm, MPI_Request req[2]);
gcoo_status gcoo__mpi_irecv_big(void *buf, int64_t count, size_t elem_bytes, int src, int tag,
                                MPI_Comm comm, MPI_Request req[2]);

/* ---- host or device memory (dist_mem.c) ---------------------------------------------------- */
/** The device operations of d's context (gcoo/backend.h: copies, streams, events, device
 *  binding), NULL when its backend has no device: dist/ reaches the device only through its
 *  context (and device memory through the context's allocator, gcoo__dist_alloc). */
static inline const gcoo_device_ops *gcoo__dist_device(gcoo_dist d) {
  return d->ctx ? d->ctx->ops->device : NULL;
}
/** bytes in mem: host memory, or device memory from ctx's allocator (gcoo_backend_ops.mem_alloc). */
gcoo_status gcoo__dist_alloc(gcoo_ctx ctx, gcoo_memspace mem, size_t bytes, void **p,
                             const char *what);
void gcoo__dist_free(gcoo_ctx ctx, gcoo_memspace mem, void *p);
/** Copy nrows rows of rowbytes bytes between two strided buffers (strides in bytes), host or
 *  device (through ctx's device operations, on stream, which may be NULL). */
gcoo_status gcoo__dist_copy_rows(gcoo_ctx ctx, void *dst, size_t dpitch, const void *src,
                                 size_t spitch, size_t rowbytes, int64_t nrows, gcoo_memspace dmem,
                                 gcoo_memspace smem, void *stream);

/* ---- the device gather's plan (gather.c), pure so that the CPU tests run it with MPI ------ */
/** One transfer of a gather: rows of this rank's slab sent to peer, or rows of the full matrix
 *  received from peer. peer == this rank is the receiving rank's own slab (a local copy). */
typedef struct gcoo__gather_xfer {
  int peer;
  int send; /* 1: send slab rows [row, row + nrows); 0: receive full rows [row, ...) */
  int64_t row;
  int64_t nrows;
} gcoo__gather_xfer;
/** The transfers this rank posts to gather slabs of rows[r] rows on root (-1: on every rank),
 *  in chunks of at most chunk_rows rows (<= 0: whole slabs), in an order in which both ends of
 *  every pair post the same chunks, so one NCCL group (or MPI requests) can carry them. *out is
 *  malloc'd (free it; NULL when *n is 0). */
gcoo_status gcoo__gather_plan(int rank, int size, int root, const int64_t *rows, int64_t chunk_rows,
                              gcoo__gather_xfer **out, int64_t *n);
/** First row of block b of a slab of `rows` rows cut in nblocks blocks (gather_overlap.c):
 *  the same on every rank, so that a receiver knows every sender's blocks. */
int64_t gcoo__pipeline_block_begin(int64_t rows, int nblocks, int b);
/** Rows per chunk of a device gather of rows of row_bytes: GCOO_GATHER_CHUNK_MB (MiB, default
 *  0 = whole slabs). */
int64_t gcoo__gather_chunk_rows(size_t row_bytes);

/* ---- GPU binding (dist_ctx.c), pure so that tests can feed it any cluster ------------------ */
typedef struct gcoo__gpu_slot {
  char host[64];
  char bus[32];   /* PCI bus id of the rank's GPU */
  int local_size; /* ranks on the host */
  int ndev;       /* GPUs the rank sees */
} gcoo__gpu_slot;
/** Check that ranks use distinct GPUs: on a duplicate, GCOO_ERR_NO_DEVICE naming both ranks, the
 *  host, the counts and the fix, unless allow_shared (then *shared = 1). */
gcoo_status gcoo__check_gpu_table(const gcoo__gpu_slot *slots, int n, int allow_shared,
                                  int *shared);

/* ---- the distributed operator ------------------------------------------------------------- */
#include "halo.h"

struct gcoo_dist_op_s {
  uint64_t magic;
  gcoo_dist d;
  gcoo_dist_op_options opts;
  gcoo_dtype dtype;
  int64_t m_global, k, row0, nrows, nnz_local, nnz_global;
  double imbalance;
  int64_t *row_begin;    /* size + 1: the rows of Y (and of X when PARTITIONED) of each rank */
  int64_t *col_begin;    /* size + 1: the rows of X of each rank when they are split otherwise
                         (a rectangular PARTITIONED operator); NULL: row_begin */
  int64_t xrow0, xnrows; /* PARTITIONED: this rank's rows of X */
  gcoo_op local;         /* REPLICATED: the slab (nrows x k); PARTITIONED: its diagonal block */
  gcoo_op offd;          /* PARTITIONED: the columns outside the diagonal block (nrows x nhalo) */
  gcoo__halo halo;       /* PARTITIONED: who sends which X rows to whom */
  double read_seconds, setup_seconds;
};

/** Make the operator from this rank's slab, taken over (*slab is NULL afterwards): the CSR of A
 *  (rows [row0, ..), global column indices) or the GCOO of S = A^T (its columns are those rows).
 *  Collective. */
gcoo_status gcoo__dist_op_create_aframe(gcoo_dist d, gcoo_sparse *slab, int64_t row0,
                                        int64_t m_global, int64_t k,
                                        const gcoo_dist_op_options *opts, gcoo_dist_op *out);

/** Rank 0's CSR matrix A (NULL elsewhere) scattered in slabs of whole units of p rows balanced
 *  by nnz: every rank gets dims = {rows, cols}, its first row and its CSR slab. Collective. */
gcoo_status gcoo__dist_scatter_csr(gcoo_dist d, gcoo_sparse A, gcoo_dtype dtype, int64_t p,
                                   int64_t dims[2], int64_t *row0, gcoo_sparse *slab);
/* gcoo__dist_redistribute: dist_access.h */

#endif
