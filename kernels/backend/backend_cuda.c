/* SPDX-License-Identifier: MIT */
/* kernels/backend/backend_cuda.c: the CUDA backend's table (gcoo__backend_cuda): one GPU per
 * context, its own stream, a cuSPARSE handle bound to it (and a cuBLAS one from the first BLAS
 * call), the device's properties read once; device memory and the dense block operations. The
 * operator (set-up, apply) is in kernels/spdm/, device memory, copies, streams and events for
 * dist/ in device_cuda.c.
 *
 * Every entry point makes the context's GPU current and puts the caller's device back after
 * (gcoo__cuda_device_enter / _leave), so a program juggling several GPUs on one thread keeps its
 * own notion of the current device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cuda_impl.h"
#include "blas_cuda.h"
#include "dense_random.h"
#include "dense_sums.h"
#include "solver/solver_cuda.h"
#include "spdm/op_cuda.h"
#include "spgemm/spgemm_cuda.h"
static int cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

/* ---- the current device, made the context's for the length of a call ----------------------- */
gcoo_status gcoo__cuda_device_enter(gcoo_ctx ctx, gcoo__cuda_device_guard *g) {
  g->changed = 0;
  GCOO_CALL_CUDA(cudaGetDevice(&g->prev));
  if (g->prev != ctx->device) {
    GCOO_CALL_CUDA(cudaSetDevice(ctx->device));
    g->changed = 1;
  }
  return GCOO_SUCCESS;
}

void gcoo__cuda_device_leave(const gcoo__cuda_device_guard *g) {
  if (g->changed && cudaSetDevice(g->prev) != cudaSuccess) (void)cudaGetLastError();
}

/* ---- context ------------------------------------------------------------------------------ */
static void ctx_state_free(cuda_ctx_state *c) {
  if (!c) return;
  if (c->blas) gcoo__cublas.Destroy(c->blas); /* a handle exists only once cuBLAS is loaded */
  gcoo__cuda_spgemm_pool_free(c);
  if (c->sparse) cusparseDestroy(c->sparse);
  if (c->own_stream) cudaStreamDestroy(c->own_stream);
  (void)cudaGetLastError();
  free(c);
}

static gcoo_status cuda_ctx_init(gcoo_ctx ctx, int device) {
  gcoo_status st = GCOO_SUCCESS;
  cuda_ctx_state *c = NULL;
  gcoo__cuda_device_guard g = {0, 0};
  int n = 0;
  gcoo__cuda_prestart_wait(); /* the CUDA start-up begun early, if any, is finished first */
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess)
    return GCOO_CUDA_RAISE(GCOO_ERR_NO_DEVICE, e, "cudaGetDeviceCount: no usable CUDA device");
  GCOO_CHECK(n > 0, GCOO_ERR_NO_DEVICE, "no CUDA device is present");
  if (device < 0) GCOO_CALL_CUDA(cudaGetDevice(&device));
  GCOO_CHECK(device < n, GCOO_ERR_NO_DEVICE, "CUDA device %d asked for, %d present (0..%d)", device,
             n, n - 1);
  ctx->device = device;
  GCOO_GOTO(gcoo__cuda_device_enter(ctx, &g));
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
  gcoo__cuda_device_leave(&g);
  return st;
}

static gcoo_status cuda_ctx_fini(gcoo_ctx ctx) {
  cuda_ctx_state *c = gcoo__cuda_ctx(ctx);
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = GCOO_SUCCESS;
  if (c && c->own_stream)
    st = gcoo__cuda_status(cudaStreamSynchronize(c->own_stream), "cudaStreamSynchronize", __FILE__,
                           __LINE__, __func__);
  ctx_state_free(c);
  ctx->backend = NULL;
  ctx->stream = NULL;
  gcoo__cuda_device_leave(&g);
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
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_status(cudaStreamSynchronize((cudaStream_t)ctx->stream),
                                     "cudaStreamSynchronize", __FILE__, __LINE__, __func__);
  gcoo__cuda_device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__cuda_check_ctx(gcoo_ctx ctx) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CHECK(ctx->ops == &gcoo__backend_cuda && ctx->backend != NULL, GCOO_ERR_INVALID_ARG,
             "the context is on the %s backend, not cuda", ctx->ops->name);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_cuda_ctx_devinfo(gcoo_ctx ctx, gcoo_cuda_devinfo *info) {
  GCOO_CALL(gcoo__cuda_check_ctx(ctx));
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  *info = gcoo__cuda_ctx(ctx)->dev;
  return GCOO_SUCCESS;
}

/* ---- checks of the gateway's callers ------------------------------------------------------- */
gcoo_status gcoo__cuda_check_pointer(gcoo_ctx ctx, const void *p, const char *what) {
  struct cudaPointerAttributes a;
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess)
    return GCOO_CUDA_RAISE(GCOO_ERR_INVALID_ARG, e,
                           "cudaPointerGetAttributes: %s (%p) is marked device memory but CUDA "
                           "does not know the pointer",
                           what, p);
  GCOO_CHECK(a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged,
             GCOO_ERR_INVALID_ARG, "%s (%p) is marked device memory but points to %s host memory",
             what, p, a.type == cudaMemoryTypeHost ? "pinned" : "ordinary");
  GCOO_CHECK(a.type == cudaMemoryTypeManaged || a.device == ctx->device, GCOO_ERR_INVALID_ARG,
             "%s (%p) is memory of GPU %d; the context uses GPU %d", what, p, a.device,
             ctx->device);
  return GCOO_SUCCESS;
}

/* ---- dense block operations (gcoo/blas.h) on device operands: blas_cuda.cu ------------------ */
static gcoo_status cuda_mem_alloc(gcoo_ctx ctx, void **ptr, size_t bytes, const char *what) {
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_alloc(ptr, bytes, what);
  gcoo__cuda_device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_mem_free(gcoo_ctx ctx, void *ptr) {
  gcoo__cuda_device_guard g;
  if (!ptr) return GCOO_SUCCESS;
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_status(cudaFree(ptr), "cudaFree", __FILE__, __LINE__, __func__);
  gcoo__cuda_device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_dense_copy(gcoo_ctx ctx, gcoo_dense *dst, const gcoo_dense *src) {
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_dense_copy((cudaStream_t)ctx->stream, dst, src);
  gcoo__cuda_device_leave(&g);
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
static gcoo_status blas_enter(gcoo_ctx ctx, gcoo__cuda_device_guard *g, cublasHandle_t *h) {
  GCOO_CALL(gcoo__cuda_device_enter(ctx, g));
  gcoo_status st = GCOO_SUCCESS;
  GCOO_GOTO(gcoo__cuda_blas_handle(ctx, h));
  GCOO_CALL_CUBLAS_GOTO(gcoo__cublas.SetStream(*h, (cudaStream_t)ctx->stream));
done:
  if (st < 0) gcoo__cuda_device_leave(g);
  return st;
}

/* The body of a cuBLAS-backed block operation: call (an expression using h, the context's
 * cuBLAS handle bound to its stream) with the context's device current, the caller's after. */
#define BLAS_ON_DEVICE(ctx, call)          \
  do {                                     \
    gcoo__cuda_device_guard g_;            \
    cublasHandle_t h;                      \
    GCOO_CALL(blas_enter((ctx), &g_, &h)); \
    const gcoo_status blas_st_ = (call);   \
    gcoo__cuda_device_leave(&g_);          \
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
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_coldot((cudaStream_t)ctx->stream, A, B, out);
  gcoo__cuda_device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_fill_random_rows(gcoo_ctx ctx, gcoo_dense *D, uint64_t seed, int64_t row0) {
  gcoo__cuda_device_guard g;
  if (D->nrows * D->ncols > 0) GCOO_CALL(gcoo__cuda_check_pointer(ctx, D->data, "D"));
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_fill_random_rows((cudaStream_t)ctx->stream, D, seed, row0);
  gcoo__cuda_device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status cuda_dense_block_sums(gcoo_ctx ctx, const gcoo_dense *D, double *part) {
  gcoo__cuda_device_guard g;
  if (D->nrows * D->ncols > 0) GCOO_CALL(gcoo__cuda_check_pointer(ctx, D->data, "D"));
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = gcoo__cuda_dense_block_sums((cudaStream_t)ctx->stream, D, part);
  gcoo__cuda_device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

extern const gcoo_device_ops gcoo__device_cuda; /* device_cuda.c */

const gcoo_backend_ops gcoo__backend_cuda = {
    .name = "cuda",
    .ctx_init = cuda_ctx_init,
    .ctx_fini = cuda_ctx_fini,
    .ctx_describe = cuda_ctx_describe,
    .ctx_synchronize = cuda_ctx_synchronize,
    .op_setup = gcoo__cuda_op_setup,
    .op_apply = gcoo__cuda_op_apply,
    .op_destroy = gcoo__cuda_op_destroy,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .dense_copy = cuda_dense_copy,
    .gemm = cuda_gemm,
    .dgmm = cuda_dgmm,
    .coldot = cuda_coldot,
    .fill_random_rows = cuda_fill_random_rows,
    .dense_block_sums = cuda_dense_block_sums,
    .device = &gcoo__device_cuda,
    .solver = &gcoo__solver_cuda,
    .spgemm = gcoo__spgemm_cuda,
    .predict = gcoo__predict_cuda,
    .device_count = cuda_device_count,
    .prestart = gcoo__cuda_prestart,
};
