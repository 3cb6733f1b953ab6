/* SPDX-License-Identifier: MIT */
/* kernels/backend/backend_cuda_impl.h: the CUDA backend's private state, shared by backend_cuda.c (the
 * context), kernels/spdm/ (the operator's life cycle and operand handling, the cuSPARSE and dense
 * baselines) and kernels/solver/. */
#ifndef GCOO_BACKEND_CUDA_IMPL_H
#define GCOO_BACKEND_CUDA_IMPL_H

#include "common/cuda_check.h"
#include "common/gcoo_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/** ctx->backend */
typedef struct cuda_ctx_state {
  cudaStream_t own_stream; /* made by ctx_init; ctx->stream starts as this */
  cusparseHandle_t sparse;
  cublasHandle_t blas; /* NULL until the first BLAS call: gcoo__cuda_blas_handle */
  gcoo_cuda_devinfo dev;
  cudaMemPool_t spgemm_pool; /* SpGEMM's stream-ordered pool, made at the first product */
  int spgemm_pool_tried;     /* (NULL after a try: the device's default pool serves) */
} cuda_ctx_state;

/** A dense operand in device memory, in the SPARSE_DENSE frame. */
typedef struct cuda_operand {
  void *data;
  gcoo_layout layout;
  int64_t nrows, ncols, ld;
} cuda_operand;

/** cuSPARSE SpMM state for one (algorithm, layouts, N, leading dimensions): made at the first
 *  apply with that shape, reused while it stays the same. */
typedef struct cusparse_plan {
  int valid;
  cusparseSpMMAlg_t alg;
  gcoo_layout xlayout, ylayout;
  int64_t n, ldx, ldy;
  const void *xdata, *ydata; /* the operands the descriptors were made with */
  cusparseDnMatDescr_t X, Y;
  void *buffer;
  size_t buffer_bytes;
} cusparse_plan;

/** op->backend */
typedef struct cuda_op_state {
  gcoo_spdm_alg alg; /* resolved algorithm */
  gcoo_cuda_csr csr; /* A on the device (always: cuSPARSE serves layouts GCOO cannot) */
  /* cuSPARSE */
  int32_t *rowptr32; /* 32-bit row pointer for cuSPARSE (nnz < 2^31) */
  cusparseSpMatDescr_t spA;
  cusparse_plan plan;
  int cusparse_no_clear; /* GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR */
  int cusparse_fallback; /* the layout's algorithm was refused: ALG_DEFAULT from then on */
  /* GCOOSpDM */
  gcoo_cuda_gcoo gcoo;      /* faithful: the GCOO of S */
  gcoo_cuda_tuned tuned;    /* tuned: the layout derived from it */
  int variant;              /* GCOO_CUDA_OPT_TUNED_VARIANT */
  int tc_mode;              /* GCOO_MATH_TF32 asked on a float operator (AUTO or GCOO) */
  int tc_active;            /* ... and the tensor-core kernel serves the applies: always for GCOO,
                            for AUTO where its trial was faster than the exact choice */
  gcoo_cuda_tuned tc_tuned; /* the layout at p = GCOO_TC_ROWS whose column lists tc borrows */
  gcoo_cuda_tc tc;          /* the tensor-core tiles */
  gcoo_cuda_csr tc_csr;     /* A with its rows in the tensor-core order, where one was taken */
  /* dense */
  void *dense; /* A densified, row-major m x k */
  int64_t lda;
  /* device copies of host operands (grow-only) */
  void *xbuf, *ybuf;
  size_t xbuf_bytes, ybuf_bytes;
  gcoo_cuda_op_details details;
  size_t device_bytes;
} cuda_op_state;

static inline cuda_ctx_state *gcoo__cuda_ctx(gcoo_ctx ctx) {
  return (cuda_ctx_state *)ctx->backend;
}
static inline cuda_op_state *gcoo__cuda_op(gcoo_op op) { return (cuda_op_state *)op->backend; }

/* ---- the current device: the context's for the length of a call (backend_cuda.c) ---------- */
typedef struct gcoo__cuda_device_guard {
  int prev, changed;
} gcoo__cuda_device_guard;
/** Make ctx's GPU the calling thread's current device, remembering the caller's in g. */
gcoo_status gcoo__cuda_device_enter(gcoo_ctx ctx, gcoo__cuda_device_guard *g);
/** Put the caller's device back (a failure is cleared: nothing to report it to). */
void gcoo__cuda_device_leave(const gcoo__cuda_device_guard *g);

/** GCOO_ERR_INVALID_ARG unless ctx is a valid context of the CUDA backend. */
gcoo_status gcoo__cuda_check_ctx(gcoo_ctx ctx);
/** GCOO_ERR_INVALID_ARG unless p is device (or managed) memory of ctx's GPU; what names it. */
gcoo_status gcoo__cuda_check_pointer(gcoo_ctx ctx, const void *p, const char *what);

/* kernels/spgemm/spgemm_pool.cu: release the context's SpGEMM pool (its stream synchronised). */
void gcoo__cuda_spgemm_pool_free(cuda_ctx_state *c);

/* gcoo_cuda_prestart (the table's prestart), and the wait for its thread, if one was started
 * (kernels/backend/cuda_prestart.c). */
void gcoo__cuda_prestart(int device);
void gcoo__cuda_prestart_wait(void);

/* backend_cuda.c: the context's cuBLAS handle, made (and cuBLAS loaded) at the first call that
 * needs it; the context's device must be current. */
gcoo_status gcoo__cuda_blas_handle(gcoo_ctx ctx, cublasHandle_t *h);

/* spdm_cusparse.c */

gcoo_status gcoo__cusparse_setup(gcoo_op op);
gcoo_status gcoo__cusparse_apply(gcoo_op op, gcoo_spdm_alg alg, double alpha, const cuda_operand *X,
                                 double beta, const cuda_operand *Y);
void gcoo__cusparse_destroy(gcoo_op op);

/* spdm_dense.c */
gcoo_status gcoo__dense_setup(gcoo_op op);
gcoo_status gcoo__dense_apply(gcoo_op op, int tf32, double alpha, const cuda_operand *X,
                              double beta, const cuda_operand *Y);
void gcoo__dense_destroy(gcoo_op op);
/** Bytes a dense copy of A needs, and whether that many are free now (keeping 5 % spare). */
gcoo_status gcoo__dense_fits(gcoo_op op, size_t *bytes, int *fits);

#ifdef __cplusplus
}
#endif
#endif
