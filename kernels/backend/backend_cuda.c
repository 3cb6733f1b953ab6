/* SPDX-License-Identifier: MIT */
/* kernels/backend/backend_cuda.c: the CUDA backend: one GPU per context, its own non-blocking stream,
 * a cuSPARSE handle bound to it (and a cuBLAS one from the first BLAS call), the device's
 * properties read once; persistent SpDM operators (the algorithm chosen and everything built at
 * setup, on the GPU); applies on host operands (copied in and out, stream-ordered, synchronised
 * before returning) or device operands (queued on the context's stream, asynchronous).
 *
 * Every entry point makes the context's GPU current and puts the caller's device back after, so
 * a program juggling several GPUs on one thread keeps its own notion of the current device.
 * Operands arrive in the SPARSE_DENSE frame (src/op.c): Y (m x N) = alpha A X + beta Y. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cuda_impl.h"
#include "blas_cuda.h"
#include "copy_staged.h"
#include "dense_random.h"
#include "dense_sums.h"
#include "spdm/dispatch.h"
#include "params.h"

/* Reuse statistics cover p = 1, 2, 4, ..., 1024. */
enum { STATS_NLOG = 11 };

int gcoo_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

/* ---- the current device, made the context's for the length of a call ----------------------- */
typedef struct device_guard {
  int prev, changed;
} device_guard;

static gcoo_status device_enter(gcoo_ctx ctx, device_guard *g) {
  g->changed = 0;
  GCOO_CALL_CUDA(cudaGetDevice(&g->prev));
  if (g->prev != ctx->device) {
    GCOO_CALL_CUDA(cudaSetDevice(ctx->device));
    g->changed = 1;
  }
  return GCOO_SUCCESS;
}

static void device_leave(const device_guard *g) {
  if (g->changed && cudaSetDevice(g->prev) != cudaSuccess) (void)cudaGetLastError();
}

/* ---- context ------------------------------------------------------------------------------ */
static void ctx_state_free(cuda_ctx_state *c) {
  if (!c) return;
  if (c->blas) gcoo__cublas.Destroy(c->blas); /* a handle exists only once cuBLAS is loaded */
  if (c->sparse) cusparseDestroy(c->sparse);
  if (c->own_stream) cudaStreamDestroy(c->own_stream);
  (void)cudaGetLastError();
  free(c);
}

static gcoo_status cuda_ctx_init(gcoo_ctx ctx, int device) {
  gcoo_status st = GCOO_SUCCESS;
  cuda_ctx_state *c = NULL;
  device_guard g = {0, 0};
  int n = 0;
  gcoo__cuda_prestart_wait(); /* the CUDA start-up begun early, if any, is finished first */
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return GCOO_ERROR(GCOO_ERR_NO_DEVICE, "no usable CUDA device: cudaGetDeviceCount says %s (%s)",
                      cudaGetErrorName(e), cudaGetErrorString(e));
  }
  GCOO_CHECK(n > 0, GCOO_ERR_NO_DEVICE, "no CUDA device is present");
  if (device < 0) GCOO_CALL_CUDA(cudaGetDevice(&device));
  GCOO_CHECK(device < n, GCOO_ERR_NO_DEVICE, "CUDA device %d asked for, %d present (0..%d)", device,
             n, n - 1);
  ctx->device = device;
  GCOO_GOTO(device_enter(ctx, &g));
  GCOO_GOTO(gcoo__calloc((void **)&c, 1, sizeof *c, "CUDA context state"));
  struct cudaDeviceProp prop;
  GCOO_CALL_CUDA_GOTO(cudaGetDeviceProperties(&prop, device));
  c->dev.device = device;
  c->dev.sm_count = prop.multiProcessorCount;
  c->dev.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  c->dev.regs_per_sm = prop.regsPerMultiprocessor;
  c->dev.cc_major = prop.major;
  c->dev.cc_minor = prop.minor;
  c->dev.smem_per_sm = prop.sharedMemPerMultiprocessor;
  c->dev.smem_per_block_optin = prop.sharedMemPerBlockOptin;
  c->dev.l2_bytes = (size_t)prop.l2CacheSize;
  c->dev.global_bytes = prop.totalGlobalMem;
  snprintf(c->dev.name, sizeof c->dev.name, "%s", prop.name);
  /* A blocking stream: it is ordered with the legacy default stream, so an application's
   * cudaMemcpy or kernel on stream 0 before (or after) a gcoo call is seen by (or sees) gcoo's
   * work, as with cuBLAS and cuSPARSE handles left on stream 0. A non-blocking stream raced
   * with a pageable cudaMemcpy whose DMA was still in flight (seen on an H200: outputs
   * overwritten by the caller's earlier upload). Callers who want overlap pass their own stream
   * with gcoo_ctx_set_stream. */
  GCOO_CALL_CUDA_GOTO(cudaStreamCreateWithFlags(&c->own_stream, cudaStreamDefault));
  GCOO_CALL_CUSPARSE_GOTO(cusparseCreate(&c->sparse));
  GCOO_CALL_CUSPARSE_GOTO(cusparseSetStream(c->sparse, c->own_stream));
  /* the cuBLAS handle is made at the first BLAS call (gcoo__cuda_blas_handle) */
  ctx->backend = c;
  ctx->stream = c->own_stream;
  c = NULL;
done:
  ctx_state_free(c);
  device_leave(&g);
  return st;
}

static gcoo_status cuda_ctx_fini(gcoo_ctx ctx) {
  cuda_ctx_state *c = gcoo__cuda_ctx(ctx);
  device_guard g;
  GCOO_CALL(device_enter(ctx, &g));
  gcoo_status st = GCOO_SUCCESS;
  if (c && c->own_stream)
    st = gcoo__cuda_status(cudaStreamSynchronize(c->own_stream), "cudaStreamSynchronize", __FILE__,
                           __LINE__, __func__);
  ctx_state_free(c);
  ctx->backend = NULL;
  ctx->stream = NULL;
  device_leave(&g);
  return st;
}

static gcoo_status cuda_ctx_describe(gcoo_ctx ctx, char *buf, size_t len) {
  const cuda_ctx_state *c = gcoo__cuda_ctx(ctx);
  int rt = 0, drv = 0;
  if (cudaRuntimeGetVersion(&rt) != cudaSuccess || cudaDriverGetVersion(&drv) != cudaSuccess)
    (void)cudaGetLastError();
  snprintf(buf, len,
           "%s (GPU %d), %d SMs, %.1f GiB, L2 %.1f MiB, shared memory %zu KiB/SM, compute "
           "capability %d.%d, CUDA runtime %d.%d, driver %d.%d",
           c->dev.name, c->dev.device, c->dev.sm_count, (double)c->dev.global_bytes / 1073741824.0,
           (double)c->dev.l2_bytes / 1048576.0, c->dev.smem_per_sm / 1024, c->dev.cc_major,
           c->dev.cc_minor, rt / 1000, (rt % 1000) / 10, drv / 1000, (drv % 1000) / 10);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_ctx_synchronize(gcoo_ctx ctx) {
  device_guard g;
  GCOO_CALL(device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_status(cudaStreamSynchronize((cudaStream_t)ctx->stream),
                                     "cudaStreamSynchronize", __FILE__, __LINE__, __func__);
  device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* ---- gateway extras ------------------------------------------------------------------------ */
gcoo_status gcoo_cuda_csr_upload(gcoo_sparse A, gcoo_cuda_csr *d, void *stream) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)stream;
  GCOO_CHECK(d != NULL, GCOO_ERR_NULL, "output is NULL");
  memset(d, 0, sizeof *d);
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CHECK(ai.format == GCOO_FORMAT_CSR, GCOO_ERR_INVALID_ARG, "matrix is not CSR");
  GCOO_CALL(gcoo_sparse_get_arrays(A, &a));
  const size_t es = gcoo_dtype_size(ai.dtype);
  d->dtype = ai.dtype;
  d->nrows = ai.nrows;
  d->ncols = ai.ncols;
  d->nnz = ai.nnz;
  GCOO_GOTO(gcoo__cuda_alloc(&d->ptr, (size_t)(ai.nrows + 1) * 8, "CSR row pointer"));
  GCOO_GOTO(gcoo__cuda_alloc(&d->ind, (size_t)ai.nnz * 4, "CSR column indices"));
  GCOO_GOTO(gcoo__cuda_alloc(&d->values, (size_t)ai.nnz * es, "CSR values"));
  /* (one row each: large arrays are staged through pinned chunks, kernels/backend/copy_staged.c) */
  GCOO_GOTO(gcoo__cuda_copy_rows(d->ptr, 8, a.ptr, 8, (size_t)(ai.nrows + 1) * 8, 1, s));
  if (ai.nnz > 0) {
    GCOO_GOTO(gcoo__cuda_copy_rows(d->ind, 4, a.ind, 4, (size_t)ai.nnz * 4, 1, s));
    GCOO_GOTO(gcoo__cuda_copy_rows(d->values, es, a.values, es, (size_t)ai.nnz * es, 1, s));
  }
done:
  if (st < 0) gcoo_cuda_csr_free(d);
  return st;
}

void gcoo_cuda_csr_free(gcoo_cuda_csr *d) {
  if (!d) return;
  void *const arrays[] = {d->ptr, d->ind, d->values};
  gcoo__cuda_free_each(arrays, 3);
  d->ptr = NULL, d->ind = NULL, d->values = NULL;
}

gcoo_status gcoo_cuda_gcoo_download(const gcoo_cuda_gcoo *S, gcoo_sparse *out, void *stream) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)stream;
  int64_t *gidx = NULL;
  int32_t *rows = NULL, *cols = NULL;
  void *vals = NULL;
  const size_t es = gcoo_dtype_size(S->dtype);
  GCOO_CHECK(out != NULL, GCOO_ERR_NULL, "output is NULL");
  *out = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&gidx, S->ngroups + 1, 8, "gIdxes"));
  GCOO_GOTO(gcoo__malloc_n((void **)&rows, S->nnz, 4, "rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&cols, S->nnz, 4, "cols"));
  GCOO_GOTO(gcoo__malloc_n(&vals, S->nnz, es, "values"));
  GCOO_CALL_CUDA_GOTO(
      cudaMemcpyAsync(gidx, S->gidx, (size_t)(S->ngroups + 1) * 8, cudaMemcpyDeviceToHost, s));
  if (S->nnz > 0) {
    GCOO_CALL_CUDA_GOTO(
        cudaMemcpyAsync(rows, S->rows, (size_t)S->nnz * 4, cudaMemcpyDeviceToHost, s));
    GCOO_CALL_CUDA_GOTO(
        cudaMemcpyAsync(cols, S->cols, (size_t)S->nnz * 4, cudaMemcpyDeviceToHost, s));
    GCOO_CALL_CUDA_GOTO(
        cudaMemcpyAsync(vals, S->values, (size_t)S->nnz * es, cudaMemcpyDeviceToHost, s));
  }
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  st = gcoo__sparse_adopt(out, GCOO_FORMAT_GCOO, S->dtype, S->nrows, S->ncols, S->nnz, S->p, NULL,
                          NULL, rows, cols, gidx, vals);
  gidx = NULL, rows = NULL, cols = NULL, vals = NULL; /* adopted (or freed by adopt) */
  GCOO_GOTO(st);
done:
  free(gidx);
  free(rows);
  free(cols);
  free(vals);
  return st;
}

static gcoo_status check_cuda_ctx(gcoo_ctx ctx) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CHECK(ctx->ops == &gcoo__backend_cuda && ctx->backend != NULL, GCOO_ERR_INVALID_ARG,
             "the context is on the %s backend, not cuda", ctx->ops->name);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_cuda_ctx_devinfo(gcoo_ctx ctx, gcoo_cuda_devinfo *info) {
  GCOO_CALL(check_cuda_ctx(ctx));
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  *info = gcoo__cuda_ctx(ctx)->dev;
  return GCOO_SUCCESS;
}

static gcoo_status check_cuda_op(gcoo_op op) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_OP, "operator");
  GCOO_CALL(check_cuda_ctx(op->ctx));
  GCOO_CHECK(op->backend != NULL, GCOO_ERR_INVALID_ARG,
             "the operator has no CUDA state (algorithm %s)", gcoo_spdm_alg_name(op->info.alg));
  return GCOO_SUCCESS;
}

/* The tuned kernel's X-resident layout, once (on the operator's device and stream). */
static gcoo_status build_resident(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  if (o->tuned.xres.off) return GCOO_SUCCESS;
  GCOO_CHECK(gcoo_cuda_resident_fits(o->csr.ncols, &c->dev), GCOO_ERR_UNSUPPORTED,
             "the X-resident kernel keeps k + %d rows of X in one block's shared memory: k = %lld "
             "is above %lld on this device",
             GCOO_XRES_ZERO_ROWS, (long long)o->csr.ncols,
             (long long)(c->dev.smem_per_block_optin / 16 - GCOO_XRES_ZERO_ROWS));
  device_guard g;
  GCOO_CALL(device_enter(op->ctx, &g));
  gcoo_status st = gcoo_cuda_tuned_build_resident(&o->csr, &o->tuned, op->ctx->stream);
  if (st >= 0) {
    const size_t esize = gcoo_dtype_size(o->csr.dtype) + 2; /* value and 16-bit column */
    o->device_bytes += (size_t)(o->tuned.xres.nentries + 32) * esize +
                       (size_t)o->tuned.xres.nslices * (8 + 32 * 4);
    op->info.device_bytes = o->device_bytes;
  }
  device_leave(&g);
  return st;
}

/* The batched kernel's row order (rows longest first), once. */
static gcoo_status build_order(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (o->tuned.row_order) return GCOO_SUCCESS;
  device_guard g;
  GCOO_CALL(device_enter(op->ctx, &g));
  gcoo_status st = gcoo_cuda_tuned_build_order(&o->csr, &o->tuned, op->ctx->stream);
  if (st >= 0) {
    o->device_bytes += (size_t)o->csr.nrows * 8;
    op->info.device_bytes = o->device_bytes;
  }
  device_leave(&g);
  return st;
}

/* The row-split items longest first, once (the shape trial's candidate for skewed rows). */
static gcoo_status build_split_order(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (o->tuned.split.item_order) return GCOO_SUCCESS;
  device_guard g;
  GCOO_CALL(device_enter(op->ctx, &g));
  gcoo_status st = gcoo_cuda_tuned_build_split_order(&o->csr, &o->tuned, op->ctx->stream);
  if (st >= 0) {
    o->device_bytes += (size_t)o->tuned.split.nitems * 8;
    op->info.device_bytes = o->device_bytes;
  }
  device_leave(&g);
  return st;
}

/* The tuned kernel's row-split layout, once (pieces from the mean row, workspace as wide as the
 * operator's N hint). */
static gcoo_status build_split(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (o->tuned.split.item_begin) return GCOO_SUCCESS;
  device_guard g;
  GCOO_CALL(device_enter(op->ctx, &g));
  const int64_t hint = op->opts.ncols_hint > 0 ? op->opts.ncols_hint : GCOO_DISPATCH_DEFAULT_N;
  gcoo_status st = gcoo_cuda_tuned_build_split(&o->csr, 0, hint, &o->tuned, op->ctx->stream);
  if (st >= 0) {
    const gcoo_cuda_split *P = &o->tuned.split;
    o->device_bytes += (size_t)P->nitems * 24 + (size_t)P->nlong * 16 + 8 +
                       (size_t)P->nwork * (size_t)P->work_cols * gcoo_dtype_size(o->csr.dtype);
    op->info.device_bytes = o->device_bytes;
  }
  device_leave(&g);
  return st;
}

gcoo_status gcoo_cuda_op_set_option(gcoo_op op, gcoo_cuda_op_option key, int64_t value) {
  GCOO_CALL(check_cuda_op(op));
  cuda_op_state *o = gcoo__cuda_op(op);
  switch (key) {
    case GCOO_CUDA_OPT_TUNED_VARIANT:
      GCOO_CHECK(!o->tc_active || value == 0, GCOO_ERR_UNSUPPORTED,
                 "the operator runs the tensor-core mode (GCOO_MATH_TF32), which has no tuned "
                 "variants");
      GCOO_CHECK(value >= 0 && value <= gcoo_cuda_tuned_variant_count(), GCOO_ERR_INVALID_ARG,
                 "tuned variant %lld outside 0..%d", (long long)value,
                 gcoo_cuda_tuned_variant_count());
      if (gcoo_cuda_tuned_variant_resident((int)value) && o->alg == GCOO_ALG_GCOO)
        GCOO_CALL(build_resident(op));
      if (gcoo_cuda_tuned_variant_split((int)value) && o->alg == GCOO_ALG_GCOO)
        GCOO_CALL(build_split(op));
      if (gcoo_cuda_tuned_variant_ordered((int)value) && o->alg == GCOO_ALG_GCOO)
        GCOO_CALL(build_order(op));
      o->variant = (int)value;
      o->details.variant = (int)value;
      return GCOO_SUCCESS;
    case GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR: o->cusparse_no_clear = value != 0; return GCOO_SUCCESS;
  }
  return GCOO_ERROR(GCOO_ERR_INVALID_ARG, "unknown CUDA operator option %d", (int)key);
}

gcoo_status gcoo_cuda_op_get_details(gcoo_op op, gcoo_cuda_op_details *d) {
  GCOO_CALL(check_cuda_op(op));
  GCOO_CHECK(d != NULL, GCOO_ERR_NULL, "details is NULL");
  *d = gcoo__cuda_op(op)->details;
  return GCOO_SUCCESS;
}

/* ---- operator setup ------------------------------------------------------------------------ */
/* The tensor-core kernel's developer parameters, each a value forced for measuring against the
 * trial's or the launcher's choice (0: not forced): GCOO_TC_KSPLIT=1|2|4 warps a window,
 * GCOO_TC_COLS=32|64|128 columns a tile. Accepted: base, 2 base, 4 base. */
static int tc_forced(gcoo__param p, int base) {
  const int64_t k = gcoo__param_int(p);
  return k == base || k == 2 * base || k == 4 * base ? (int)k : 0;
}

static size_t csr_bytes(const gcoo_cuda_csr *A) {
  return (size_t)(A->nrows + 1) * 8 + (size_t)A->nnz * (4 + gcoo_dtype_size(A->dtype));
}

/* Longest row of the host CSR (the row skew the dispatch rule looks at). */
static int64_t max_row_nnz(gcoo_sparse A) {
  gcoo_sparse_arrays a;
  gcoo_sparse_info ai;
  if (gcoo_sparse_get_arrays(A, &a) < 0 || gcoo_sparse_get_info(A, &ai) < 0 || !a.ptr) return 0;
  int64_t mx = 0;
  for (int64_t i = 0; i < ai.nrows; i++)
    if (a.ptr[i + 1] - a.ptr[i] > mx) mx = a.ptr[i + 1] - a.ptr[i];
  return mx;
}

/* The tuned layout at width p, its direct/staged preference from the reuse and the row skew. */
static size_t tuned_bytes(const gcoo_cuda_tuned *L, const gcoo_cuda_csr *A) {
  return (size_t)(L->ngroups + 1) * 8 + (size_t)L->ndistinct * 4 +
         (size_t)A->nnz * 2 * gcoo_dtype_size(A->dtype);
}
static gcoo_status tuned_setup(gcoo_op op, int32_t p, int64_t max_row_nnz) {
  cuda_op_state *o = gcoo__cuda_op(op);
  GCOO_CALL(gcoo_cuda_tuned_build(&o->csr, p, &o->tuned, NULL, op->ctx->stream));
  o->details.reuse = o->tuned.ndistinct > 0 ? (double)o->csr.nnz / (double)o->tuned.ndistinct : 0.0;
  const double avg = o->csr.nrows > 0 ? (double)o->csr.nnz / (double)o->csr.nrows : 0.0;
  const double skew = avg > 0 ? (double)max_row_nnz / avg : 0.0;
  o->tuned.prefer_direct = gcoo__dispatch_tuned_direct(o->details.reuse, skew);
  o->device_bytes += tuned_bytes(&o->tuned, &o->csr);
  op->info.device_bytes = o->device_bytes;
  return GCOO_SUCCESS;
}

static gcoo_status run(gcoo_op op, double alpha, const cuda_operand *X, double beta,
                       const cuda_operand *Y);

/* ---- the tensor-core layout (docs/kernels.md, "The tensor-core mode") -----------------------
 * Windows of GCOO_TC_ROWS rows of A in A's order, or in the order of gcoo__tc_row_order (rows
 * sharing columns in one window) where that needs at most TC_REORDER_MAX_TILES of the tiles: the
 * padding, not the schedule, is what the tensor-core kernel loses to on the real matrices
 * (9-15 tile slots a stored entry in A's order on cage11, ct2010, wiki-Vote, ca-CondMat,
 * delaunay_n16). Then the layout is built from a copy of A with its rows in that order, and the
 * kernel writes each of its rows to the row of Y it came from (tc.rowmap). */
#define TC_REORDER_MAX_TILES 0.9

static gcoo_status tc_setup(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  gcoo_sparse_arrays a;
  gcoo_sparse_info ai;
  int32_t *order = NULL;
  gcoo_sparse B = NULL;
  int64_t t_nat = 0, t_ord = 0;
  gcoo_status st = GCOO_SUCCESS;
  GCOO_GOTO(gcoo_sparse_get_arrays(op->A_csr, &a));
  GCOO_GOTO(gcoo_sparse_get_info(op->A_csr, &ai));
  if (ai.nrows > 0 && ai.nnz > 0 && a.ptr) {
    GCOO_GOTO(GCOO_MALLOC(order, ai.nrows, "tensor-core row order"));
    GCOO_GOTO(gcoo__tc_row_order(a.ptr, a.ind, ai.nrows, ai.ncols, GCOO_TC_ROWS, GCOO_TC_K, order,
                                 &t_nat, &t_ord));
  }
  const int reorder = t_nat > 0 && (double)t_ord <= TC_REORDER_MAX_TILES * (double)t_nat;
  if (reorder) {
    GCOO_GOTO(gcoo__csr_rows_permuted(op->A_csr, order, &B));
    GCOO_GOTO(gcoo_cuda_csr_upload(B, &o->tc_csr, s));
    GCOO_GOTO(gcoo_cuda_tuned_build(&o->tc_csr, GCOO_TC_ROWS, &o->tc_tuned, NULL, s));
    o->device_bytes += csr_bytes(&o->tc_csr) + tuned_bytes(&o->tc_tuned, &o->tc_csr) +
                       (size_t)ai.nrows * 4;
  } else {
    GCOO_GOTO(gcoo_cuda_tuned_build(&o->csr, GCOO_TC_ROWS, &o->tc_tuned, NULL, s));
    o->device_bytes += tuned_bytes(&o->tc_tuned, &o->csr);
  }
  GCOO_GOTO(gcoo_cuda_tc_build(&o->tc_tuned, &o->tc, s));
  o->tc.force_ksplit = tc_forced(GCOO__P_TC_KSPLIT, 1);
  o->tc.force_cols = tc_forced(GCOO__P_TC_COLS, 32);
  o->device_bytes += (size_t)(o->tc.nwin + 1) * 8 +
                     (size_t)o->tc.ntiles * GCOO_TC_ROWS * GCOO_TC_K * sizeof(float);
  if (reorder) {
    GCOO_GOTO(gcoo__cuda_alloc((void **)&o->tc.rowmap, (size_t)ai.nrows * sizeof(int32_t),
                               "tensor-core row map"));
    GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(o->tc.rowmap, order, (size_t)ai.nrows * sizeof(int32_t),
                                        cudaMemcpyHostToDevice, s));
  }
  {
    const size_t wl = strlen(o->details.why);
    snprintf(o->details.why + wl, sizeof o->details.why - wl,
             "; %lld tiles in A's row order, %lld in the window order -> %s", (long long)t_nat,
             (long long)t_ord, reorder ? "rows reordered" : "A's order");
  }
done:
  cudaStreamSynchronize(s); /* the copies above read the host arrays freed here */
  free(order);
  gcoo_sparse_destroy(&B);
  return st;
}

/* ---- AUTO's plan-time trial (docs/dispatch.md, "The plan-time trial") -----------------------
 * The rule's misjudgements are scattered (zenios at N = 128 tuned 0.74x, delaunay_n16 in double
 * at N = 512, kron4:ca-CondMat at N = 128 ALG2 0.89x of the best cuSPARSE) and the tuned kernel
 * wins about 40 cases the rule gives to cuSPARSE (mostly N = 32): no threshold separates them.
 * So AUTO times its candidates once, at setup, on the hint's N: the rule's choice, CSR_ALG2,
 * CSR_ALG3, and the tuned kernel (p = 32): where rows are not skewed its own variant, where they
 * are and the longest row spans enough pieces (gcoo__dispatch_split) its row-split variant
 * (kron8:rajat01 at 1.40x and 1.05x of the best cuSPARSE at N = 512 and 128, where the rule's
 * ALG2/ALG3 stand); an alternative replaces the rule's choice only when
 * TRIAL_MIN_GAIN faster. Skipped for dense choices, for products too
 * large to time cheaply, and with GCOO_AUTO_TRIAL=0. A failed trial leaves the rule's choice. */
#define TRIAL_MAX_WORK 4.0e9                /* nnz x N above which the rule stands untimed */
#define TRIAL_MAX_BYTES ((size_t)768 << 20) /* X and Y of the trial at most */
#define TRIAL_REPS 5                        /* timed applies per candidate (the median) */
#define TRIAL_MIN_GAIN 0.93                 /* time ratio an alternative must beat */

static int env_trial_off(void) { return !gcoo__param_bool(GCOO__P_AUTO_TRIAL); }

/* Median GPU time of TRIAL_REPS applies, queued back to back behind a spin kernel (as the
 * benchmark times): host launch gaps, which differ between cuSPARSE and the GCOO kernels, stay
 * out, and so the trial ranks the candidates as the benchmark's per-launch events do. */
static gcoo_status trial_time(gcoo_op op, const cuda_operand *X, const cuda_operand *Y, float *ms) {
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  cudaEvent_t ev[2 * TRIAL_REPS + 2];
  int nev = 0;
  gcoo_status st = GCOO_SUCCESS;
  *ms = -1;
  for (; nev < 2 * TRIAL_REPS + 2; nev++) GCOO_CALL_CUDA_GOTO(cudaEventCreate(&ev[nev]));
  /* warm-up (plans, caches), timed alone: an upper bound of one apply, to size the spin */
  GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[0], s));
  GCOO_GOTO(run(op, 1.0, X, 0.0, Y));
  GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[1], s));
  GCOO_CALL_CUDA_GOTO(cudaEventSynchronize(ev[1]));
  float first = 0;
  GCOO_CALL_CUDA_GOTO(cudaEventElapsedTime(&first, ev[0], ev[1]));
  const double spin_us = 1e3 * first * TRIAL_REPS + 30.0 * TRIAL_REPS + 100.0;
  gcoo_cuda_spin(s, spin_us < 20000 ? spin_us : 20000);
  for (int r = 0; r < TRIAL_REPS; r++) {
    GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[2 + 2 * r], s));
    GCOO_GOTO(run(op, 1.0, X, 0.0, Y));
    GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[3 + 2 * r], s));
  }
  GCOO_CALL_CUDA_GOTO(cudaEventSynchronize(ev[1 + 2 * TRIAL_REPS]));
  float t[TRIAL_REPS];
  for (int r = 0; r < TRIAL_REPS; r++) {
    GCOO_CALL_CUDA_GOTO(cudaEventElapsedTime(&t[r], ev[2 + 2 * r], ev[3 + 2 * r]));
    for (int q = r; q > 0 && t[q] < t[q - 1]; q--) { /* insertion sort: median below */
      const float tmp = t[q];
      t[q] = t[q - 1];
      t[q - 1] = tmp;
    }
  }
  *ms = t[TRIAL_REPS / 2];
done:
  for (int i = 0; i < nev; i++) cudaEventDestroy(ev[i]);
  return st;
}

static const char *trial_name(gcoo_spdm_alg a, int split) {
  return a == GCOO_ALG_GCOO                ? (split ? "split" : "tuned")
         : a == GCOO_ALG_CUSPARSE_CSR_ALG2 ? "alg2"
                                           : "alg3";
}

/* The operands both trials time on: X and Y (row-major, N columns, rows padded to 16 bytes), X
 * every byte 0x3c (0.0115 in float, 1.6e-19 in double: finite, nonzero). Returns 0 (nothing
 * allocated) where the product is too large to time cheaply. */
typedef struct trial_operands {
  void *X, *Y;
  cuda_operand dX, dY;
} trial_operands;

static int trial_fits(const cuda_op_state *o, int64_t N, int64_t *ld, size_t *xb, size_t *yb) {
  const size_t es = gcoo_dtype_size(o->csr.dtype);
  *ld = (N + (int64_t)(16 / es) - 1) / (int64_t)(16 / es) * (int64_t)(16 / es);
  *xb = (size_t)(o->csr.ncols > 0 ? o->csr.ncols : 1) * (size_t)*ld * es;
  *yb = (size_t)(o->csr.nrows > 0 ? o->csr.nrows : 1) * (size_t)*ld * es;
  return !env_trial_off() && o->csr.nnz > 0 && o->csr.nnz <= INT32_MAX &&
         (double)o->csr.nnz * (double)N <= TRIAL_MAX_WORK && *xb + *yb <= TRIAL_MAX_BYTES;
}

static gcoo_status trial_operands_make(gcoo_op op, int64_t N, int64_t ld, size_t xb, size_t yb,
                                       trial_operands *t) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  memset(t, 0, sizeof *t);
  GCOO_CALL(gcoo__cuda_alloc(&t->X, xb, "trial X"));
  GCOO_CALL(gcoo__cuda_alloc(&t->Y, yb, "trial Y"));
  GCOO_CALL_CUDA(cudaMemsetAsync(t->X, 0x3c, xb, s));
  GCOO_CALL_CUDA(cudaMemsetAsync(t->Y, 0, yb, s));
  t->dX = (cuda_operand){.data = t->X,
                         .layout = GCOO_ROW_MAJOR,
                         .nrows = o->csr.ncols,
                         .ncols = N,
                         .ld = ld};
  t->dY = (cuda_operand){.data = t->Y,
                         .layout = GCOO_ROW_MAJOR,
                         .nrows = o->csr.nrows,
                         .ncols = N,
                         .ld = ld};
  return GCOO_SUCCESS;
}

static void trial_operands_free(gcoo_op op, trial_operands *t) {
  cudaStreamSynchronize((cudaStream_t)op->ctx->stream);
  cudaFree(t->X);
  cudaFree(t->Y);
  (void)cudaGetLastError();
  memset(t, 0, sizeof *t);
}

/* ---- the tuned kernel's shape trial (docs/dispatch.md, "The shape trial") -------------------
 * The rule gives the direct kernel GCOO groups (p rows) as blocks and its vectors a thread from
 * five inputs; the H200 sweep (bench/results/h200-spdm-sweep.csv) found 8-row blocks at 2
 * vectors a thread 5-25 % faster on short random rows (random 2000-14000 at sparsity
 * 0.999-0.9995, where CSR_ALG2 stood level with the tuned kernel), and the rule's width 2-17 %
 * off the best on delaunay_n16, kron:cage11 and stencil7. So where the tuned kernel runs its
 * direct or staged variant (not X-resident, row-split or tensor-core) and N is known, setup
 * times, at that N, the variant its rule chose and the direct kernel in blocks of 8 and 32 rows
 * at 1, 2 and 4 vectors a thread (no tile twice as wide as N needs), and keeps the fastest shape
 * where it beats the rule's by SHAPE_MIN_GAIN. The batched kernel's shapes are candidates too.
 * Every direct and batched shape sums each element's terms in the row's order, so the result does
 * not depend on the choice. */
#define SHAPE_MIN_GAIN 0.97 /* time ratio a shape must beat the rule's variant by */

static gcoo_status shape_trial(gcoo_op op, const trial_operands *t, int64_t N) {
  cuda_op_state *o = gcoo__cuda_op(op);
  gcoo_cuda_tuned *L = &o->tuned;
  if (o->tc_active || L->prefer_resident || !L->entries || o->variant != 0) return GCOO_SUCCESS;
  /* skewed rows (the rule chose the row-split kernel): its items longest first and the
   * batched kernel's shapes against it; no direct shape (a long row holds its block back) */
  const int split = L->prefer_split;
  /* the candidates: the direct kernel in blocks of 8 and 32 rows at 1, 2, 4 vectors a thread;
   * the batched kernel (batches of 8, 16 or 32 entries at 1 vector, 8 or 16 at 2, 8 at 4) at the one
   * width that covers N (or the widest), in blocks of 4 and 16 rows, in A's order and longest
   * rows first; for skewed rows, the row-split items longest first */
  typedef struct {
    int32_t rows, vpt, batch, ordered, split;
  } shape;
  shape cand[32];
  int nc = 0;
  const int vec = 16 / (int)gcoo_dtype_size(o->csr.dtype);
  static const int32_t vpts[] = {1, 2, 4};
  for (int r = 0; r < 2 && !split; r++)
    for (int v = 0; v < 3; v++)
      if (vpts[v] == 1 || 8 * (vpts[v] / 2) * vec < N) /* else a narrower tile covers N */
        cand[nc++] = (shape){r ? 32 : 8, vpts[v], 0, 0, 0};
  if (split && build_split_order(op) >= 0) cand[nc++] = (shape){0, 0, 0, 1, 1};
  const int packed = N % vec == 0 && t->dX.ld % vec == 0;
  int bv = 1;
  while (bv < 4 && 8 * bv * vec < N) bv *= 2;
  /* every batch size the batched kernel has an instance for at this width (kernels/
   * spdm_batched.cu, batched_for: the one list of them) */
  const int order_ok = packed && build_order(op) >= 0;
  for (int batch = 8; packed && batch <= 32; batch *= 2)
    if (gcoo_cuda_batched_supported(batch, bv))
      for (int r = 0; r < 2; r++)
        for (int ord = 0; ord <= order_ok; ord++)
          cand[nc++] = (shape){r ? 16 : 4, bv, batch, ord, 0};
  (void)cudaGetLastError();
  L->shape_n = 0;
  L->shape_batch = 0;
  L->shape_ordered = 0;
  L->split.ordered = 0;
  float rule = -1, best = -1;
  int bi = -1;
  if (trial_time(op, &t->dX, &t->dY, &rule) < 0) {
    (void)cudaGetLastError();
    return GCOO_SUCCESS; /* the rule's variant stands */
  }
  const char *rule_name = split ? "row-split" : L->prefer_direct ? "direct" : "staged";
  /* every candidate's time in the log (GCOO_DEBUG=TRACE, subsystem TRIAL) */
  GCOO_LOG(GCOO_LOG_TRACE, "TRIAL", "shape trial: N %lld rule (%s): %.4g ms", (long long)N,
           rule_name, rule);
  for (int c = 0; c < nc; c++) {
    L->prefer_split = cand[c].split;
    L->split.ordered = cand[c].split;
    L->shape_n = cand[c].split ? 0 : N;
    L->shape_rows = cand[c].rows;
    L->shape_vpt = cand[c].vpt;
    L->shape_batch = cand[c].batch;
    L->shape_ordered = cand[c].split ? 0 : cand[c].ordered;
    float ms = -1;
    if (trial_time(op, &t->dX, &t->dY, &ms) < 0) {
      ms = -1;
      (void)cudaGetLastError();
    }
    GCOO_LOG(GCOO_LOG_TRACE, "TRIAL",
             "shape trial: N %lld %s %d rows x %d vectors, batch %d%s: %.4g ms", (long long)N,
             cand[c].split   ? "row-split"
             : cand[c].batch ? "batched"
                             : "direct",
             cand[c].rows, cand[c].vpt, cand[c].batch, cand[c].ordered ? " ordered" : "", ms);
    if (ms > 0 && (best < 0 || ms < best)) {
      best = ms;
      bi = c;
    }
  }
  const int take = bi >= 0 && rule > 0 && best < SHAPE_MIN_GAIN * rule;
  const shape none = {0, 0, 0, 0, 0}, pick = take ? cand[bi] : none;
  L->prefer_split = split && (!take || pick.split);
  L->split.ordered = pick.split;
  L->shape_n = take && !pick.split ? N : 0;
  L->shape_rows = pick.rows;
  L->shape_vpt = pick.vpt;
  L->shape_batch = pick.batch;
  L->shape_ordered = pick.split ? 0 : pick.ordered;
  const size_t wl = strlen(o->details.why);
  const shape shown = bi >= 0 ? cand[bi] : none;
  char kind[48];
  if (shown.split)
    snprintf(kind, sizeof kind, "row-split, items longest first");
  else if (shown.batch)
    snprintf(kind, sizeof kind, "batched %d%s %d rows x %d vectors", shown.batch,
             shown.ordered ? " ordered" : "", shown.rows, shown.vpt);
  else
    snprintf(kind, sizeof kind, "direct %d rows x %d vectors", shown.rows, shown.vpt);
  snprintf(o->details.why + wl, sizeof o->details.why - wl,
           "; shape trial at N = %lld: %s %.4g ms, %s %.4g ms -> %s", (long long)N, rule_name, rule,
           kind, best, take ? "that shape" : "rule");
  return GCOO_SUCCESS;
}

/* The shape trial on its own operands (GCOO without p, or AUTO's rule choosing it). */
static gcoo_status shape_trial_alone(gcoo_op op, int64_t N) {
  cuda_op_state *o = gcoo__cuda_op(op);
  int64_t ld;
  size_t xb, yb;
  if (!trial_fits(o, N, &ld, &xb, &yb)) return GCOO_SUCCESS;
  trial_operands t;
  gcoo_status st = trial_operands_make(op, N, ld, xb, yb, &t);
  if (st >= 0) st = shape_trial(op, &t, N);
  trial_operands_free(op, &t);
  if (st < 0) { /* the trial itself failed (memory, say): the rule's variant stands */
    (void)cudaGetLastError();
    o->tuned.shape_n = 0;
  }
  return GCOO_SUCCESS;
}

/* Time the candidates and keep the fastest (o->alg, the layouts, details); on return the
 * operator is set up for its final choice. *p is the group width (0 for cuSPARSE). */
static gcoo_status auto_trial(gcoo_op op, const gcoo_dispatch_in *din, int32_t *p) {
  cuda_op_state *o = gcoo__cuda_op(op);
  const gcoo_spdm_alg rule = o->alg;
  const int64_t N = din->n > 0 ? din->n : GCOO_DISPATCH_DEFAULT_N;
  int64_t ld;
  size_t xb, yb;
  if (!trial_fits(o, N, &ld, &xb, &yb) ||
      !(rule == GCOO_ALG_GCOO || rule == GCOO_ALG_CUSPARSE_CSR_ALG2 ||
        rule == GCOO_ALG_CUSPARSE_CSR_ALG3))
    return GCOO_SUCCESS;
  const double avg = (double)o->csr.nnz / (double)o->csr.nrows;
  const int tuned_ok = rule == GCOO_ALG_GCOO ||
                       (gcoo__dispatch_choose_p(din, NULL) > 0 && avg > 0 &&
                        (double)din->max_row_nnz / avg < GCOO_DISPATCH_TRIAL_MAX_ROW_SKEW);
  /* skewed rows: the tuned kernel through its row-split variant where the longest row spans
   * enough pieces, else as GCOO without p runs it: the rule's variant against the direct
   * kernel's shapes (shape_trial). On moderately skewed rows the direct kernel runs ct2010, FA,
   * add32 and their Kronecker tilings 1.2-1.7x faster than the cuSPARSE algorithm a trial
   * without it keeps (H200). */
  const int split_ok = !tuned_ok && gcoo__dispatch_choose_p(din, NULL) > 0 &&
                       gcoo__dispatch_split(din);
  const int skewed_ok = !tuned_ok && !split_ok && gcoo__dispatch_choose_p(din, NULL) > 0;
  gcoo_spdm_alg cands[4];
  int nc = 0;
  cands[nc++] = rule;
  if (rule != GCOO_ALG_CUSPARSE_CSR_ALG3) cands[nc++] = GCOO_ALG_CUSPARSE_CSR_ALG3;
  if (rule != GCOO_ALG_CUSPARSE_CSR_ALG2) cands[nc++] = GCOO_ALG_CUSPARSE_CSR_ALG2;
  if (rule != GCOO_ALG_GCOO && (tuned_ok || split_ok || skewed_ok)) cands[nc++] = GCOO_ALG_GCOO;
  trial_operands t;
  gcoo_status st = GCOO_SUCCESS;
  float ms[4] = {-1, -1, -1, -1};
  int32_t tuned_p = rule == GCOO_ALG_GCOO ? *p : 0;
  GCOO_GOTO(trial_operands_make(op, N, ld, xb, yb, &t));
  if (!o->spA) GCOO_GOTO(gcoo__cusparse_setup(op));
  for (int c = 0; c < nc; c++) {
    o->alg = cands[c];
    if (cands[c] == GCOO_ALG_GCOO && rule != GCOO_ALG_GCOO) {
      tuned_p = gcoo__dispatch_choose_p(din, NULL);
      if (tuned_setup(op, tuned_p, din->max_row_nnz) < 0) break;
      if (split_ok) {
        if (build_split(op) < 0) break;
        o->tuned.prefer_split = 1;
      }
      GCOO_GOTO(shape_trial(op, &t, N)); /* the tuned candidate in its best shape */
    }
    if (trial_time(op, &t.dX, &t.dY, &ms[c]) < 0) {
      ms[c] = -1;
      (void)cudaGetLastError();
    }
  }
  /* the fastest; the rule's choice unless that is TRIAL_MIN_GAIN faster */
  int best = 0;
  for (int c = 1; c < nc; c++)
    if (ms[c] > 0 && (ms[best] <= 0 || ms[c] < ms[best])) best = c;
  if (best != 0 && ms[0] > 0 && ms[best] >= TRIAL_MIN_GAIN * ms[0]) best = 0;
  o->alg = cands[best];
  if (o->alg != GCOO_ALG_GCOO && o->tuned.entries) {
    gcoo_cuda_tuned_free(&o->tuned); /* frees its resident and row-split layouts too */
    memset(&o->tuned, 0, sizeof o->tuned);
    o->details.reuse = 0;
    o->device_bytes = csr_bytes(&o->csr) + (size_t)(o->csr.nrows + 1) * 4; /* + cuSPARSE's */
  }
  *p = o->alg == GCOO_ALG_GCOO ? tuned_p : 0;
  {
    char tail[160];
    int len = snprintf(tail, sizeof tail, "; trial at N = %lld:", (long long)N);
    for (int c = 0; c < nc && len < (int)sizeof tail; c++)
      len += snprintf(tail + len, sizeof tail - (size_t)len, " %s %.4g ms",
                      trial_name(cands[c], split_ok), ms[c]);
    if (len < (int)sizeof tail)
      snprintf(tail + len, sizeof tail - (size_t)len, " -> %s", trial_name(o->alg, split_ok));
    const size_t wl = strlen(o->details.why);
    snprintf(o->details.why + wl, sizeof o->details.why - wl, "%s", tail);
  }
done:
  if (st < 0) {
    /* the trial itself failed (memory, say): the rule's choice stands, set up as it was */
    (void)cudaGetLastError();
    o->alg = rule;
    st = GCOO_SUCCESS;
  }
  trial_operands_free(op, &t);
  return st;
}

/* ---- the tensor-core mode under AUTO (docs/dispatch.md, "The tensor-core mode") ------------
 * TF32 math allows the tensor-core kernel; it does not oblige the library to run it where it is
 * slower, as cuBLAS's TF32 mode does not. The kernel wins where windows of 16 rows are dense
 * (bcsstk24, bcsstk33, cavity19, TSOPF: 1.1-1.3x faster than the exact kernel at N >= 128) and
 * loses where its tiles are mostly padding (cage11, ct2010, wiki-Vote: 1.4-2.5x slower on an
 * H200). So once AUTO's exact choice is set up, the tensor-core
 * layout is built beside it and both are timed at the N hint (narrower where the operands at the
 * hint are too large to time); the slower one is freed. Without a trial (GCOO_AUTO_TRIAL=0, or
 * too large even at N = TC_TRIAL_MIN_N) the tensor-core kernel serves, as asked. */
#define TC_TRIAL_MIN_N 64 /* the narrowest N the TF32 trial times at */

static void tc_release(cuda_op_state *o) {
  gcoo_cuda_tc_free(&o->tc);
  gcoo_cuda_tuned_free(&o->tc_tuned);
  memset(&o->tc_tuned, 0, sizeof o->tc_tuned);
  gcoo_cuda_csr_free(&o->tc_csr);
  o->tc_active = 0;
}

static gcoo_status tc_trial(gcoo_op op, const gcoo_dispatch_in *din, int32_t *p) {
  cuda_op_state *o = gcoo__cuda_op(op);
  const gcoo_spdm_alg exact = o->alg;
  const size_t bytes_exact = o->device_bytes;
  /* the trial's launches must not stand as the operator's last launch: where the exact choice
   * is cuSPARSE no later apply overwrites it */
  const gcoo_cuda_tuned_launch last_before = o->details.last;
  if (tc_setup(op) < 0) { /* memory, say: the exact choice serves, and says why */
    (void)cudaGetLastError();
    tc_release(o);
    o->device_bytes = bytes_exact;
    const size_t wl = strlen(o->details.why);
    snprintf(o->details.why + wl, sizeof o->details.why - wl,
             "; TF32: the tensor-core layout failed (%s) -> exact", gcoo_last_error());
    return GCOO_SUCCESS;
  }
  const size_t bytes_tc = o->device_bytes - bytes_exact;
  const int64_t N = din->n > 0 ? din->n : GCOO_DISPATCH_DEFAULT_N;
  int64_t ld;
  size_t xb, yb;
  float ms_exact = -1, ms_tc = -1;
  float ms_tab[3][3] = {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}; /* [32, 64, 128 columns][ks] */
  /* GCOO_TC_KSPLIT / GCOO_TC_COLS (tc_setup); 0: timed here, or the launcher's where untimed */
  const int forced_ks = o->tc.force_ksplit, forced_cols = o->tc.force_cols;
  int ks_best = forced_ks, cols_best = forced_cols;
  int tc_timings = 0;
  /* operands at N too large to time: at a narrower N, halved until they fit (both kernels run
   * 16-column slabs of X there alike). Untimed, the tensor-core kernel runs the random sweep's
   * large products 1.5-3.5x slower than the exact choice (H200) */
  int64_t Nt = N;
  int timed = trial_fits(o, Nt, &ld, &xb, &yb);
  while (!timed && !env_trial_off() && Nt > TC_TRIAL_MIN_N) {
    Nt = (Nt / 2 + 15) / 16 * 16;
    timed = trial_fits(o, Nt, &ld, &xb, &yb);
  }
  if (timed) {
    trial_operands t;
    if (trial_operands_make(op, Nt, ld, xb, yb, &t) >= 0) {
      o->tc_active = 0;
      if (trial_time(op, &t.dX, &t.dY, &ms_exact) < 0) ms_exact = -1;
      o->alg = GCOO_ALG_GCOO;
      o->tc_active = 1;
      /* the warps a window (1, 2, 4) and the tile of columns (32, 64, 128, no wider than Nt
       * needs) timed too, unless GCOO_TC_KSPLIT / GCOO_TC_COLS force them: the launcher's
       * estimate from the tile counts can pick 4 warps where 1 or 2 run up to 1.4x faster
       * (H200) */
      for (int wi = 0; wi < 3; wi++) {
        const int cols = forced_cols ? forced_cols : 32 << wi;
        if (!forced_cols && wi > 0 && (32 << (wi - 1)) >= Nt) break; /* wider than Nt needs */
        for (int i = 0; i < 3; i++) {
          const int ks = forced_ks ? forced_ks : 1 << i;
          float ms = -1;
          o->tc.force_ksplit = ks;
          o->tc.force_cols = cols;
          if (trial_time(op, &t.dX, &t.dY, &ms) < 0) ms = -1;
          ms_tab[cols == 32 ? 0 : cols == 64 ? 1 : 2][ks == 1 ? 0 : ks == 2 ? 1 : 2] = ms;
          tc_timings++;
          if (ms > 0 && (ms_tc <= 0 || ms < ms_tc)) {
            ms_tc = ms;
            ks_best = ks;
            cols_best = cols;
          }
          if (forced_ks) break;
        }
        if (forced_cols) break;
      }
      o->tc.force_cols = cols_best;
      o->tc.force_ksplit = ks_best;
      o->alg = exact;
    }
    (void)cudaGetLastError();
    trial_operands_free(op, &t);
  }
  const int use_tc = ms_tc > 0 ? ms_exact <= 0 || ms_tc < ms_exact : ms_exact <= 0;
  if (use_tc) {
    /* the exact choice's tuned layout goes (cuSPARSE's handles stay: they serve the layouts the
     * GCOO kernels do not) */
    gcoo_cuda_tuned_free(&o->tuned);
    memset(&o->tuned, 0, sizeof o->tuned);
    o->device_bytes = csr_bytes(&o->csr) + bytes_tc;
    o->alg = GCOO_ALG_GCOO;
    o->tc_active = 1;
    *p = GCOO_TC_ROWS;
  } else {
    tc_release(o);
    o->device_bytes = bytes_exact;
    o->alg = exact;
    o->tc_active = 0;
    o->details.last = last_before;
  }
  op->info.device_bytes = o->device_bytes;
  const size_t wl = strlen(o->details.why);
  const float *row = ms_tab[cols_best == 128 ? 2 : cols_best == 64 ? 1 : 0];
  char ks_note[256];
  snprintf(ks_note, sizeof ks_note,
           "tiles of %d columns, %d warps a window: the fastest of %d timings; at %d columns, 1, "
           "2, 4 warps: %.4g, %.4g, %.4g ms%s",
           cols_best, ks_best, tc_timings, cols_best, row[0], row[1], row[2],
           forced_ks || forced_cols ? " (GCOO_TC_KSPLIT / GCOO_TC_COLS forced)" : "");
  if (timed)
    snprintf(o->details.why + wl, sizeof o->details.why - wl,
             "; TF32 trial at N = %lld%s: exact (%s) %.4g ms, tensor cores %.4g ms (%s) -> %s",
             (long long)Nt, Nt < N ? " (the hint's N too large to time)" : "",
             gcoo_spdm_alg_name(exact), ms_exact, ms_tc, ks_note,
             use_tc ? "tensor cores" : "exact");
  else
    snprintf(o->details.why + wl, sizeof o->details.why - wl,
             "; TF32 untimed (GCOO_AUTO_TRIAL=0, or operands too large to time even at N = %lld): "
             "the "
             "tensor-core kernel, as asked -> tensor cores",
             (long long)Nt);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_op_setup(gcoo_op op) {
  gcoo_status st = GCOO_SUCCESS;
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  device_guard g = {0, 0};
  cuda_op_state *o = NULL;
  GCOO_CALL(device_enter(op->ctx, &g));
  GCOO_GOTO(gcoo__calloc((void **)&o, 1, sizeof *o, "CUDA operator state"));
  op->backend = o;          /* from here, a failure is cleaned up by op_destroy */
  o->cusparse_no_clear = 1; /* see GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR */
  GCOO_GOTO(gcoo_cuda_csr_upload(op->A_csr, &o->csr, s));
  o->device_bytes = csr_bytes(&o->csr);

  gcoo_spdm_alg alg = op->opts.alg;
  int32_t p = op->opts.p;
  int resident = 0; /* AUTO chose the tuned kernel's X-resident variant */
  int rowsplit = 0; /* ... or its row-split variant */
  snprintf(o->details.why, sizeof o->details.why, "forced");
  /* the tensor-core mode (opt-in, float), on windows of 16 rows: GCOO runs it; AUTO makes its
   * exact choice and then times the tensor-core kernel against it (tc_trial) */
  o->tc_mode = op->opts.math == GCOO_MATH_TF32 && o->csr.dtype == GCOO_FLOAT32 &&
               (alg == GCOO_ALG_AUTO || alg == GCOO_ALG_GCOO);
  if (o->tc_mode && alg == GCOO_ALG_GCOO) {
    o->tc_active = 1;
    p = GCOO_TC_ROWS;
    snprintf(o->details.why, sizeof o->details.why,
             "tensor-core mode (GCOO_MATH_TF32): TF32 tiles of windows of %d rows", GCOO_TC_ROWS);
  }
  /* the reuse statistics: AUTO needs them, and so does GCOO when p is not given */
  if ((alg == GCOO_ALG_AUTO || (alg == GCOO_ALG_GCOO && p == 0)) && o->csr.nnz > 0) {
    GCOO_GOTO(gcoo_cuda_reuse_stats(&o->csr, STATS_NLOG, o->details.distinct_by_log2p, s));
    o->details.nstats = STATS_NLOG;
  }
  gcoo_dispatch_in din = {o->csr.dtype,
                          o->csr.nrows,
                          o->csr.ncols,
                          op->opts.ncols_hint,
                          o->csr.nnz,
                          o->details.nstats,
                          o->details.distinct_by_log2p,
                          gcoo__param_bool(GCOO__P_ALLOW_TF32),
                          0,
                          c->dev.sm_count,
                          max_row_nnz(op->A_csr),
                          (int64_t)c->dev.smem_per_block_optin};
  if (alg == GCOO_ALG_AUTO) {
    size_t bytes = 0;
    GCOO_GOTO(gcoo__dense_fits(op, &bytes, &din.dense_fits));
    gcoo_dispatch_out dout;
    gcoo__dispatch(&din, &dout);
    alg = dout.alg;
    if (alg == GCOO_ALG_GCOO && p == 0) p = dout.p;
    resident = dout.resident;
    rowsplit = dout.rowsplit;
    snprintf(o->details.why, sizeof o->details.why, "%s", dout.why);
  }
  switch (alg) {
    case GCOO_ALG_GCOO_FAITHFUL:
      if (p == 0) p = GCOO_FAITHFUL_P;
      GCOO_CHECK_GOTO(p <= 32, GCOO_ERR_UNSUPPORTED,
                      "the faithful GCOOSpDM kernel keeps one register accumulator per column of "
                      "a group: it supports p <= 32, not p = %d (use GCOO_ALG_GCOO for wider "
                      "groups)",
                      p);
      GCOO_GOTO(gcoo_cuda_csr_to_gcoo(&o->csr, p, &o->gcoo, s));
      o->device_bytes += (size_t)(o->gcoo.ngroups * 2 + 1) * 8 +
                         (size_t)o->gcoo.nnz * (8 + gcoo_dtype_size(o->gcoo.dtype));
      break;
    case GCOO_ALG_GCOO:
      /* the caller asked for the tuned kernel without a width: its variant by the same rule */
      if (op->opts.alg == GCOO_ALG_GCOO && p == 0) {
        resident = gcoo__dispatch_resident(&din);
        rowsplit = !resident && gcoo__dispatch_split(&din);
      }
      if (p == 0) p = gcoo__dispatch_choose_p(&din, NULL);
      if (p == 0) p = GCOO_DEFAULT_P; /* nnz = 0: any width */
      if (o->tc_active)
        GCOO_GOTO(tc_setup(op));
      else
        GCOO_GOTO(tuned_setup(op, p, din.max_row_nnz));
      if (resident) {
        GCOO_GOTO(build_resident(op));
        o->tuned.prefer_resident = 1;
      }
      if (rowsplit) {
        GCOO_GOTO(build_split(op));
        o->tuned.prefer_split = 1;
      }
      break;
    case GCOO_ALG_CUSPARSE:
    case GCOO_ALG_CUSPARSE_DEFAULT:
    case GCOO_ALG_CUSPARSE_CSR_ALG2:
    case GCOO_ALG_CUSPARSE_CSR_ALG3:
      p = 0;
      GCOO_GOTO(gcoo__cusparse_setup(op));
      break;
    case GCOO_ALG_DENSE_TF32:
      GCOO_CHECK_GOTO(o->csr.dtype == GCOO_FLOAT32, GCOO_ERR_UNSUPPORTED,
                      "dense_tf32 (TF32 tensor cores) is for float operators; use dense for "
                      "double");
      /* fall through */
    case GCOO_ALG_DENSE:
      p = 0;
      GCOO_GOTO(gcoo__dense_setup(op));
      break;
    default:
      GCOO_CHECK_GOTO(0, GCOO_ERR_INVALID_ARG, "algorithm %s is not served by the CUDA backend",
                      gcoo_spdm_alg_name(alg));
  }
  o->alg = alg;
  /* GCOO with its width left to the library (or AUTO's rule choosing it): its shape at N */
  if (alg == GCOO_ALG_GCOO && op->opts.p == 0 && op->opts.ncols_hint > 0 && !o->tc_active)
    GCOO_GOTO(shape_trial_alone(op, op->opts.ncols_hint));
  if (op->opts.alg == GCOO_ALG_AUTO) {
    GCOO_GOTO(auto_trial(op, &din, &p));
    if (o->tc_mode) GCOO_GOTO(tc_trial(op, &din, &p));
    alg = o->alg;
  }
  o->details.tensor_cores = o->tc_active;
  o->details.alg = alg;
  o->details.p = p;
  op->info.alg = alg;
  op->info.p = p;
  op->info.device_bytes = o->device_bytes;
  /* setup_seconds (measured by src/op.c) must include the GPU work */
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
done:
  device_leave(&g);
  return st;
}

static gcoo_status cuda_op_destroy(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (!o) return GCOO_SUCCESS;
  device_guard g;
  GCOO_CALL(device_enter(op->ctx, &g));
  /* queued applies may still read the operator's arrays */
  gcoo_status st = gcoo__cuda_status(cudaStreamSynchronize((cudaStream_t)op->ctx->stream),
                                     "cudaStreamSynchronize", __FILE__, __LINE__, __func__);
  gcoo__cusparse_destroy(op);
  gcoo__dense_destroy(op);
  gcoo_cuda_gcoo_free(&o->gcoo);
  gcoo_cuda_tc_free(&o->tc);
  gcoo_cuda_tuned_free(&o->tc_tuned);
  gcoo_cuda_tuned_free(&o->tuned);
  gcoo_cuda_csr_free(&o->tc_csr);
  gcoo_cuda_csr_free(&o->csr);
  void *const buffers[] = {o->xbuf, o->ybuf};
  gcoo__cuda_free_each(buffers, 2);
  free(o);
  op->backend = NULL;
  device_leave(&g);
  return st;
}

/* ---- operator apply ------------------------------------------------------------------------ */
static gcoo_status check_device_pointer(gcoo_ctx ctx, const void *p, const char *what) {
  struct cudaPointerAttributes a;
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                      "%s (%p) is marked device memory but CUDA does not "
                      "know the pointer: %s",
                      what, p, cudaGetErrorString(e));
  }
  GCOO_CHECK(a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged,
             GCOO_ERR_INVALID_ARG, "%s (%p) is marked device memory but points to %s host memory",
             what, p, a.type == cudaMemoryTypeHost ? "pinned" : "ordinary");
  GCOO_CHECK(a.type == cudaMemoryTypeManaged || a.device == ctx->device, GCOO_ERR_INVALID_ARG,
             "%s (%p) is memory of GPU %d; the context uses GPU %d", what, p, a.device,
             ctx->device);
  return GCOO_SUCCESS;
}

/* A grow-only device buffer for a host operand. */
static gcoo_status ensure_buffer(void **buf, size_t *have, size_t need, const char *what) {
  if (need <= *have && *buf) return GCOO_SUCCESS;
  cudaFree(*buf);
  (void)cudaGetLastError();
  *buf = NULL;
  *have = 0;
  GCOO_CALL(gcoo__cuda_alloc(buf, need, what));
  *have = need;
  return GCOO_SUCCESS;
}

/* Copy a dense matrix between host and device (same layout, leading dimensions may differ). */
static gcoo_status copy_dense(void *dst, int64_t dld, const void *src, int64_t sld,
                              gcoo_layout layout, int64_t nrows, int64_t ncols, size_t es,
                              cudaStream_t s) {
  const int64_t minor = layout == GCOO_ROW_MAJOR ? ncols : nrows;
  const int64_t major = layout == GCOO_ROW_MAJOR ? nrows : ncols;
  if (minor == 0 || major == 0) return GCOO_SUCCESS;
  /* the pointers tell the direction (kernels/backend/copy_staged.c stages large pageable copies) */
  GCOO_CALL(gcoo__cuda_copy_rows(dst, (size_t)dld * es, src, (size_t)sld * es, (size_t)minor * es,
                                 major, s));
  return GCOO_SUCCESS;
}

/* A device view of an operand: the caller's memory, or a copy of a host operand. */
static gcoo_status device_operand(gcoo_op op, const gcoo_dense *D, int copy_in, void **buf,
                                  size_t *have, const char *what, cuda_operand *out) {
  const size_t es = gcoo_dtype_size(D->dtype);
  out->layout = D->layout;
  out->nrows = D->nrows;
  out->ncols = D->ncols;
  if (D->mem == GCOO_MEM_DEVICE) {
    out->data = D->data;
    out->ld = D->ld;
    if (D->nrows * D->ncols > 0) GCOO_CALL(check_device_pointer(op->ctx, D->data, what));
    return GCOO_SUCCESS;
  }
  /* host: a device copy whose rows (or columns) start 16-byte aligned */
  const int64_t vec = (int64_t)(16 / es);
  const int64_t minor = D->layout == GCOO_ROW_MAJOR ? D->ncols : D->nrows;
  const int64_t major = D->layout == GCOO_ROW_MAJOR ? D->nrows : D->ncols;
  out->ld = ((minor > 0 ? minor : 1) + vec - 1) / vec * vec;
  GCOO_CALL(ensure_buffer(buf, have, (size_t)(major > 0 ? major : 1) * (size_t)out->ld * es, what));
  out->data = *buf;
  if (copy_in)
    GCOO_CALL(copy_dense(out->data, out->ld, D->data, D->ld, D->layout, D->nrows, D->ncols, es,
                         (cudaStream_t)op->ctx->stream));
  return GCOO_SUCCESS;
}

/* Y = beta Y on an operand of either layout (the product of an empty A). */
static gcoo_status scale_operand(gcoo_dtype dt, double beta, const cuda_operand *Y,
                                 cudaStream_t s) {
  if (Y->layout == GCOO_ROW_MAJOR)
    GCOO_CALL(gcoo_cuda_scale(dt, Y->nrows, Y->ncols, beta, Y->data, Y->ld, s));
  else
    GCOO_CALL(gcoo_cuda_scale(dt, Y->ncols, Y->nrows, beta, Y->data, Y->ld, s));
  return GCOO_SUCCESS;
}

static gcoo_status run(gcoo_op op, double alpha, const cuda_operand *X, double beta,
                       const cuda_operand *Y) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  const int64_t N = X->ncols;
  if (o->csr.nrows == 0 || N == 0) return GCOO_SUCCESS;
  if (o->csr.nnz == 0 || o->csr.ncols == 0) {
    GCOO_CALL(scale_operand(o->csr.dtype, beta, Y, s));
    return GCOO_SUCCESS;
  }
  gcoo_spdm_alg alg = o->alg;
  const int rowmajor = X->layout == GCOO_ROW_MAJOR && Y->layout == GCOO_ROW_MAJOR;
  if ((alg == GCOO_ALG_GCOO || alg == GCOO_ALG_GCOO_FAITHFUL) && !rowmajor) {
    GCOO_CHECK(op->opts.alg == GCOO_ALG_AUTO, GCOO_ERR_UNSUPPORTED,
               "the GCOO kernels take X and Y row-major in the SPARSE_DENSE frame (column-major "
               "in the DENSE_SPARSE reading); got X %s, Y %s: use GCOO_ALG_AUTO, a cuSPARSE or "
               "a dense algorithm for other layouts",
               X->layout == GCOO_ROW_MAJOR ? "row-major" : "column-major",
               Y->layout == GCOO_ROW_MAJOR ? "row-major" : "column-major");
    /* AUTO: serve the other layouts with cuSPARSE (its descriptor made on first need) */
    if (!o->spA) {
      double t0 = gcoo__wtime();
      GCOO_CALL(gcoo__cusparse_setup(op));
      op->info.setup_seconds += gcoo__wtime() - t0;
    }
    alg = GCOO_ALG_CUSPARSE;
  }
  switch (alg) {
    case GCOO_ALG_GCOO_FAITHFUL:
      GCOO_CALL(
          gcoo_cuda_spdm_faithful(&o->gcoo, alpha, X->data, X->ld, beta, Y->data, Y->ld, N, s));
      break;
    case GCOO_ALG_GCOO:
      if (o->tc_active)
        GCOO_CALL(gcoo_cuda_spdm_tc(&o->tc, &c->dev, alpha, X->data, X->ld, beta, Y->data, Y->ld, N,
                                    s, &o->details.last));
      else
        GCOO_CALL(gcoo_cuda_spdm_tuned(&o->tuned, o->variant, &c->dev, alpha, X->data, X->ld, beta,
                                       Y->data, Y->ld, N, s, &o->details.last));
      break;
    case GCOO_ALG_DENSE:
    case GCOO_ALG_DENSE_TF32:
      GCOO_CALL(gcoo__dense_apply(op, alg == GCOO_ALG_DENSE_TF32, alpha, X, beta, Y));
      break;
    default: GCOO_CALL(gcoo__cusparse_apply(op, alg, alpha, X, beta, Y));
  }
  return GCOO_SUCCESS;
}

static gcoo_status cuda_op_apply(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                                 gcoo_dense *Y) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  gcoo_status st = GCOO_SUCCESS;
  device_guard g = {0, 0};
  cuda_operand dX, dY;
  GCOO_CHECK(o != NULL, GCOO_ERR_INTERNAL, "operator has no CUDA state");
  GCOO_CALL(device_enter(op->ctx, &g));
  GCOO_GOTO(device_operand(op, X, 1, &o->xbuf, &o->xbuf_bytes, "X", &dX));
  GCOO_GOTO(device_operand(op, Y, beta != 0.0, &o->ybuf, &o->ybuf_bytes, "Y", &dY));
  GCOO_GOTO(run(op, alpha, &dX, beta, &dY));
  if (Y->mem == GCOO_MEM_HOST) {
    GCOO_GOTO(copy_dense(Y->data, Y->ld, dY.data, dY.ld, Y->layout, Y->nrows, Y->ncols,
                         gcoo_dtype_size(Y->dtype), s));
    GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  }
done:
  device_leave(&g);
  return st;
}

/* ---- dense block operations (gcoo/blas.h) on device operands: kernels/backend/blas_cuda.cu ---------- */
static gcoo_status cuda_mem_alloc(gcoo_ctx ctx, void **ptr, size_t bytes) {
  device_guard g;
  GCOO_CALL(device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_mem_alloc(ptr, bytes);
  device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_mem_free(gcoo_ctx ctx, void *ptr) {
  device_guard g;
  GCOO_CALL(device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_mem_free(ptr);
  device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_dense_copy(gcoo_ctx ctx, gcoo_dense *dst, const gcoo_dense *src) {
  device_guard g;
  GCOO_CALL(device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_dense_copy((cudaStream_t)ctx->stream, dst, src);
  device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* The context's cuBLAS handle, made at the first call that needs one: cuBLAS itself is loaded
 * then (kernels/backend/cublas_lazy.h), so a context that never calls BLAS never loads it. The caller has
 * the context's device current (the handle belongs to it). */
gcoo_status gcoo__cuda_blas_handle(gcoo_ctx ctx, cublasHandle_t *h) {
  cuda_ctx_state *c = gcoo__cuda_ctx(ctx);
  if (!c->blas) {
    GCOO_CALL(gcoo__cublas_load());
    cublasHandle_t made = NULL;
    GCOO_CALL_CUBLAS(gcoo__cublas.Create(&made));
    gcoo_status st = GCOO_SUCCESS;
    GCOO_CALL_CUBLAS_GOTO(gcoo__cublas.SetMathMode(made, CUBLAS_DEFAULT_MATH));
    c->blas = made;
    made = NULL;
  done:
    if (made) gcoo__cublas.Destroy(made);
    GCOO_CALL(st);
  }
  *h = c->blas;
  return GCOO_SUCCESS;
}

/* Enter the context's device with its cuBLAS handle on the context's stream (left again on
 * failure). */
static gcoo_status blas_enter(gcoo_ctx ctx, device_guard *g, cublasHandle_t *h) {
  GCOO_CALL(device_enter(ctx, g));
  gcoo_status st = GCOO_SUCCESS;
  GCOO_GOTO(gcoo__cuda_blas_handle(ctx, h));
  GCOO_CALL_CUBLAS_GOTO(gcoo__cublas.SetStream(*h, (cudaStream_t)ctx->stream));
done:
  if (st < 0) device_leave(g);
  return st;
}

/* The body of a cuBLAS-backed block operation: call (an expression using h, the context's
 * cuBLAS handle bound to its stream) with the context's device current, the caller's after. */
#define BLAS_ON_DEVICE(ctx, call)          \
  do {                                     \
    device_guard g_;                       \
    cublasHandle_t h;                      \
    GCOO_CALL(blas_enter((ctx), &g_, &h)); \
    const gcoo_status blas_st_ = (call);   \
    device_leave(&g_);                     \
    GCOO_CALL(blas_st_);                   \
    return GCOO_SUCCESS;                   \
  } while (0)

static gcoo_status cuda_gemm(gcoo_ctx ctx, int ta, int tb, double alpha, const gcoo_dense *A,
                             const gcoo_dense *B, double beta, gcoo_dense *C) {
  BLAS_ON_DEVICE(ctx, gcoo__cuda_gemm(h, ta, tb, alpha, A, B, beta, C));
}

static gcoo_status cuda_dgmm(gcoo_ctx ctx, const gcoo_dense *d, const gcoo_dense *A,
                             gcoo_dense *C) {
  BLAS_ON_DEVICE(ctx, gcoo__cuda_dgmm(h, d, A, C));
}

static gcoo_status cuda_coldot(gcoo_ctx ctx, const gcoo_dense *A, const gcoo_dense *B,
                               gcoo_dense *out) {
  device_guard g;
  GCOO_CALL(device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_coldot((cudaStream_t)ctx->stream, A, B, out);
  device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_fill_random_rows(gcoo_ctx ctx, gcoo_dense *D, uint64_t seed, int64_t row0) {
  device_guard g;
  if (D->nrows * D->ncols > 0) GCOO_CALL(check_device_pointer(ctx, D->data, "D"));
  GCOO_CALL(device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_fill_random_rows((cudaStream_t)ctx->stream, D, seed, row0);
  device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_dense_block_sums(gcoo_ctx ctx, const gcoo_dense *D, double *part) {
  device_guard g;
  if (D->nrows * D->ncols > 0) GCOO_CALL(check_device_pointer(ctx, D->data, "D"));
  GCOO_CALL(device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_dense_block_sums((cudaStream_t)ctx->stream, D, part);
  device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

extern const gcoo_device_ops gcoo__device_cuda; /* kernels/backend/device_cuda.c */

const gcoo_backend_ops gcoo__backend_cuda = {
    .name = "cuda",
    .ctx_init = cuda_ctx_init,
    .ctx_fini = cuda_ctx_fini,
    .ctx_describe = cuda_ctx_describe,
    .ctx_synchronize = cuda_ctx_synchronize,
    .op_setup = cuda_op_setup,
    .op_apply = cuda_op_apply,
    .op_destroy = cuda_op_destroy,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .dense_copy = cuda_dense_copy,
    .gemm = cuda_gemm,
    .dgmm = cuda_dgmm,
    .coldot = cuda_coldot,
    .fill_random_rows = cuda_fill_random_rows,
    .dense_block_sums = cuda_dense_block_sums,
    .device = &gcoo__device_cuda,
};
