/* SPDX-License-Identifier: MIT */
/* kernels/spdm/spdm_cusparse.c: the cuSPARSE baselines behind the operator interface: generic SpMM
 * on A's CSR (CUSPARSE_SPMM_ALG_DEFAULT, CSR_ALG2, CSR_ALG3), and the path that serves operand
 * layouts the GCOO kernels do not take.
 *
 * The sparse descriptor is made at setup. The dense descriptors, the workspace and
 * cusparseSpMM_preprocess depend on N, the layouts and the leading dimensions, which only apply
 * knows: they are made at the first apply with a given shape (that time is added to the
 * operator's setup_seconds) and reused while the shape stays; later applies only swap the
 * descriptors' data pointers (cusparseDnMatSetValues). Benchmarks warm up, so no timed apply
 * contains any of it. */
#include <stdlib.h>
#include <string.h>

#include <stdint.h>

#include "backend/backend_cuda_impl.h"

static cudaDataType cuda_type(gcoo_dtype t) { return t == GCOO_FLOAT64 ? CUDA_R_64F : CUDA_R_32F; }

static cusparseOrder_t order_of(gcoo_layout l) {
  return l == GCOO_ROW_MAJOR ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
}

static const char *cusparse_alg_name(cusparseSpMMAlg_t a) {
  switch (a) {
    case CUSPARSE_SPMM_ALG_DEFAULT: return "CUSPARSE_SPMM_ALG_DEFAULT";
    case CUSPARSE_SPMM_CSR_ALG2: return "CUSPARSE_SPMM_CSR_ALG2";
    case CUSPARSE_SPMM_CSR_ALG3: return "CUSPARSE_SPMM_CSR_ALG3";
    default: return "another cuSPARSE algorithm";
  }
}

static void plan_release(cusparse_plan *p) {
  if (p->X) cusparseDestroyDnMat(p->X);
  if (p->Y) cusparseDestroyDnMat(p->Y);
  if (p->buffer) cudaFree(p->buffer);
  (void)cudaGetLastError();
  memset(p, 0, sizeof *p);
}

/* int32 copy of the row pointer (cuSPARSE takes one index width for offsets and columns). */
static gcoo_status narrow_rowptr(gcoo_op op, cudaStream_t s) {
  cuda_op_state *o = gcoo__cuda_op(op);
  gcoo_status st = GCOO_SUCCESS;
  const size_t n = (size_t)o->csr.nrows + 1;
  int32_t *h32 = NULL;
  /* O(m) on the host from the operator's host CSR: cheaper than a kernel launch for all but the
   * largest m, and not part of the GCOO build. */
  gcoo_sparse_arrays a;
  GCOO_CALL(gcoo_sparse_get_arrays(op->A_csr, &a));
  GCOO_GOTO(gcoo__malloc((void **)&h32, n * sizeof *h32, "32-bit row pointer"));
  for (size_t i = 0; i < n; i++) h32[i] = (int32_t)a.ptr[i];
  GCOO_GOTO(gcoo__cuda_alloc(&o->rowptr32, n * sizeof *h32, "cuSPARSE row pointer"));
  GCOO_CALL_CUDA_GOTO(
      cudaMemcpyAsync(o->rowptr32, h32, n * sizeof *h32, cudaMemcpyHostToDevice, s));
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s)); /* h32 is freed next */
  o->device_bytes += n * sizeof *h32;
done:
  free(h32);
  return st;
}

/* The sparse descriptor of A (over the CSR arrays; no copy). */
static gcoo_status make_sparse_descriptor(cuda_op_state *o) {
  const gcoo_cuda_csr *A = &o->csr;
  GCOO_CALL_CUSPARSE(cusparseCreateCsr(&o->spA, A->nrows, A->ncols, A->nnz, o->rowptr32, A->ind,
                                       A->values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, cuda_type(A->dtype)));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__cusparse_setup(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  const gcoo_cuda_csr *A = &o->csr;
  if (A->nrows == 0 || A->ncols == 0 || A->nnz == 0) return GCOO_SUCCESS; /* apply never calls */
  GCOO_CHECK(A->nnz <= INT32_MAX, GCOO_ERR_UNSUPPORTED,
             "the cuSPARSE path uses 32-bit indices; A has %lld entries", (long long)A->nnz);
  GCOO_CALL(narrow_rowptr(op, s));
  GCOO_CALL(make_sparse_descriptor(o));
  return GCOO_SUCCESS;
}

void gcoo__cusparse_destroy(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  plan_release(&o->plan);
  if (o->spA) cusparseDestroySpMat(o->spA);
  o->spA = NULL;
  if (o->rowptr32) cudaFree(o->rowptr32);
  o->rowptr32 = NULL;
  (void)cudaGetLastError();
}

/* Descriptors, workspace and preprocessing for this shape (kept in o->plan). */
static gcoo_status make_plan(gcoo_op op, cusparseSpMMAlg_t alg, const cuda_operand *X,
                             const cuda_operand *Y, const void *alpha, const void *beta) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  cusparse_plan *p = &o->plan;
  const cudaDataType t = cuda_type(o->csr.dtype);
  gcoo_status st = GCOO_SUCCESS;
  double t0 = gcoo__wtime();
  /* A new plan gets a new sparse descriptor too: cusparseSpMM_preprocess (CSR_ALG3, DEFAULT)
   * attaches its analysis to the descriptor, in the workspace the old plan frees here. On an
   * H200 an operator whose first (host-staged, ld 2, so ALG3) plan was replaced by an ALG2 plan
   * for device operands (ld 1: ALG3 needs 16-byte rows) multiplied wrongly: tests/solver/t610
   * "k=1 vs textbook PCG" broke down on its first iteration, while operators that only ever
   * ran ALG2 were right. Remaking the descriptor costs no device work. */
  if (p->valid) {
    GCOO_CALL_CUDA(
        cudaStreamSynchronize((cudaStream_t)op->ctx->stream)); /* queued SpMMs use both */
    cusparseDestroySpMat(o->spA);
    o->spA = NULL;
    GCOO_CALL(make_sparse_descriptor(o));
  }
  plan_release(p);
  GCOO_CALL_CUSPARSE_GOTO(
      cusparseCreateDnMat(&p->X, X->nrows, X->ncols, X->ld, X->data, t, order_of(X->layout)));
  GCOO_CALL_CUSPARSE_GOTO(
      cusparseCreateDnMat(&p->Y, Y->nrows, Y->ncols, Y->ld, Y->data, t, order_of(Y->layout)));
  GCOO_CALL_CUSPARSE_GOTO(cusparseSpMM_bufferSize(c->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, o->spA,
                                                  p->X, beta, p->Y, t, alg, &p->buffer_bytes));
  if (p->buffer_bytes > 0)
    GCOO_GOTO(gcoo__cuda_alloc(&p->buffer, p->buffer_bytes, "cuSPARSE SpMM workspace"));
  /* preprocessing pays for CSR_ALG3 (and ALG1, which DEFAULT picks for column-major); an
   * algorithm that has nothing to preprocess may say NOT_SUPPORTED, which is no error here */
  if (alg == CUSPARSE_SPMM_CSR_ALG3 || alg == CUSPARSE_SPMM_ALG_DEFAULT) {
    cusparseStatus_t ps = cusparseSpMM_preprocess(c->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, o->spA,
                                                  p->X, beta, p->Y, t, alg, p->buffer);
    if (ps != CUSPARSE_STATUS_NOT_SUPPORTED) GCOO_CALL_CUSPARSE_GOTO(ps);
  }
  p->valid = 1;
  p->alg = alg;
  p->xlayout = X->layout;
  p->ylayout = Y->layout;
  p->n = X->ncols;
  p->ldx = X->ld;
  p->ldy = Y->ld;
  p->xdata = X->data;
  p->ydata = Y->data;
  op->info.setup_seconds += gcoo__wtime() - t0;
done:
  if (st < 0) plan_release(p);
  return st;
}

/* One SpMM with algorithm a: the plan for this shape (made or reused), the defensive clear of Y,
 * the call. */
static gcoo_status spmm_with(gcoo_op op, cusparseSpMMAlg_t a, const void *pa, const cuda_operand *X,
                             double beta, const void *pb, const cuda_operand *Y) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  const size_t es = gcoo_dtype_size(o->csr.dtype);
  cusparse_plan *p = &o->plan;
  /* A single column gets new descriptors when its operands move, instead of
   * cusparseDnMatSetValues (a guard kept from the first guess at the t610 breakdown, which
   * cuSPARSE may run as SpMV on vectors bound at plan time; on its own it did not cure that
   * breakdown on an H200: the stale ALG3 analysis did, see make_plan). */
  const int moved = X->ncols == 1 && (p->xdata != X->data || p->ydata != Y->data);
  if (!p->valid || p->alg != a || p->xlayout != X->layout || p->ylayout != Y->layout ||
      p->n != X->ncols || p->ldx != X->ld || p->ldy != Y->ld || moved) {
    gcoo_status st = make_plan(op, a, X, Y, pa, pb);
    if (st == GCOO_ERR_UNSUPPORTED)
      return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                        "%s does not take these operands (%s, N = %lld, "
                        "ldx %lld, ldy %lld): %s",
                        cusparse_alg_name(a),
                        X->layout == GCOO_ROW_MAJOR ? "row-major" : "column-major",
                        (long long)X->ncols, (long long)X->ld, (long long)Y->ld, gcoo_last_error());
    GCOO_CALL(st);
  } else {
    GCOO_CALL_CUSPARSE(cusparseDnMatSetValues(p->X, X->data));
    GCOO_CALL_CUSPARSE(cusparseDnMatSetValues(p->Y, Y->data));
    p->xdata = X->data;
    p->ydata = Y->data;
  }
  /* beta = 0 must overwrite NaN in Y: cuSPARSE does (measured, see GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR);
   * the defensive clear stays available as an option. */
  if (beta == 0.0 && !o->cusparse_no_clear) {
    const int64_t minor = Y->layout == GCOO_ROW_MAJOR ? Y->ncols : Y->nrows;
    const int64_t major = Y->layout == GCOO_ROW_MAJOR ? Y->nrows : Y->ncols;
    GCOO_CALL_CUDA(
        cudaMemset2DAsync(Y->data, (size_t)Y->ld * es, 0, (size_t)minor * es, (size_t)major, s));
  }
  GCOO_CALL_CUSPARSE(cusparseSpMM(c->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  CUSPARSE_OPERATION_NON_TRANSPOSE, pa, o->spA, p->X, pb, p->Y,
                                  cuda_type(o->csr.dtype), a, p->buffer));
  return GCOO_SUCCESS;
}

/* Every row (or column) of D starts on a 16-byte boundary. */
static int aligned16(const cuda_operand *D, gcoo_dtype dtype) {
  const size_t es = gcoo_dtype_size(dtype);
  return ((uintptr_t)D->data % 16) == 0 && ((size_t)D->ld * es) % 16 == 0;
}

gcoo_status gcoo__cusparse_apply(gcoo_op op, gcoo_spdm_alg alg, double alpha, const cuda_operand *X,
                                 double beta, const cuda_operand *Y) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  GCOO_CHECK(o->spA != NULL, GCOO_ERR_INTERNAL, "cuSPARSE descriptor missing");
  GCOO_CHECK(X->layout == Y->layout, GCOO_ERR_UNSUPPORTED,
             "cuSPARSE SpMM needs X and Y in the same layout (X is %s, Y is %s in the "
             "SPARSE_DENSE frame)",
             X->layout == GCOO_ROW_MAJOR ? "row-major" : "column-major",
             Y->layout == GCOO_ROW_MAJOR ? "row-major" : "column-major");
  cusparseSpMMAlg_t a;
  switch (alg) {
    case GCOO_ALG_CUSPARSE_DEFAULT: a = CUSPARSE_SPMM_ALG_DEFAULT; break;
    case GCOO_ALG_CUSPARSE_CSR_ALG2: a = CUSPARSE_SPMM_CSR_ALG2; break;
    case GCOO_ALG_CUSPARSE_CSR_ALG3: a = CUSPARSE_SPMM_CSR_ALG3; break;
    default: /* GCOO_ALG_CUSPARSE: the algorithm made for the layout */
      a = X->layout == GCOO_ROW_MAJOR ? CUSPARSE_SPMM_CSR_ALG2 : CUSPARSE_SPMM_ALG_DEFAULT;
  }
  /* Algorithms the caller did not name (GCOO_ALG_CUSPARSE, or AUTO's pick) fall back to
   * ALG_DEFAULT when cuSPARSE refuses the operands, and remember it; forced ones report it. */
  const int chosen_for_caller = alg == GCOO_ALG_CUSPARSE || op->opts.alg == GCOO_ALG_AUTO;
  if (chosen_for_caller && o->cusparse_fallback) a = CUSPARSE_SPMM_ALG_DEFAULT;
  float af = (float)alpha, bf = (float)beta;
  const void *pa = o->csr.dtype == GCOO_FLOAT64 ? (const void *)&alpha : (const void *)&af;
  const void *pb = o->csr.dtype == GCOO_FLOAT64 ? (const void *)&beta : (const void *)&bf;
  GCOO_CALL_CUSPARSE(cusparseSetStream(c->sparse, (cudaStream_t)op->ctx->stream));
  /* CSR_ALG3 reads the dense rows with 16-byte accesses and faults (cudaErrorMisalignedAddress,
   * which poisons the whole context) when a row does not start on a 16-byte boundary: seen on
   * an H200 with a row-major X of leading dimension 67 floats. cuSPARSE does not check it, so
   * gcoo does: chosen algorithms move to ALG2, a forced ALG3 is refused with the reason. */
  if (a == CUSPARSE_SPMM_CSR_ALG3 && !(aligned16(X, o->csr.dtype) && aligned16(Y, o->csr.dtype))) {
    GCOO_CHECK(chosen_for_caller, GCOO_ERR_UNSUPPORTED,
               "CUSPARSE_SPMM_CSR_ALG3 needs 16-byte aligned rows of X and Y (leading dimensions "
               "%lld and %lld elements, pointers %p and %p): use CSR_ALG2",
               (long long)X->ld, (long long)Y->ld, X->data, Y->data);
    a = CUSPARSE_SPMM_CSR_ALG2;
  }
  gcoo_status st = spmm_with(op, a, pa, X, beta, pb, Y);
  if (st == GCOO_ERR_UNSUPPORTED && chosen_for_caller && a != CUSPARSE_SPMM_ALG_DEFAULT) {
    GCOO_LOG(GCOO_LOG_INFO, "OP", "%s refused the operands, using CUSPARSE_SPMM_ALG_DEFAULT: %s",
             cusparse_alg_name(a), gcoo_last_error());
    o->cusparse_fallback = 1;
    st = spmm_with(op, CUSPARSE_SPMM_ALG_DEFAULT, pa, X, beta, pb, Y);
  }
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}
