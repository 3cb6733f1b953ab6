/* SPDX-License-Identifier: MIT */
/* src/blas.c: dense block operations of gcoo/blas.h: argument checks once here, host operands
 * served by the loops of blas_cpu_impl.h, device operands by the context's backend (cuBLAS). */
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "gcoo/blas.h"
#include "gcoo/generate.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include "blas_lib.h"

#if GCOO_HAVE_LAPACK
/* OpenBLAS's, when the BLAS is OpenBLAS (weak: absent with another BLAS). */
void openblas_set_num_threads(int num_threads) __attribute__((weak));

int gcoo__blas_serial(void) {
  static int serial = -1;
  if (serial < 0) {
    serial = openblas_set_num_threads != NULL;
    if (serial) openblas_set_num_threads(1);
  }
  return serial;
}
#endif

#define GCOO_TEMPLATE "blas_cpu_impl.h"
#include "gcoo/template.h"

static gcoo_status need_device_ops(gcoo_ctx ctx, int present, const char *what) {
  GCOO_CHECK(present, GCOO_ERR_UNSUPPORTED,
             "%s on device memory needs the CUDA backend (context is %s)", what, ctx->ops->name);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ctx_dense_create(gcoo_ctx ctx, gcoo_dense *D, gcoo_dtype dtype, gcoo_layout layout,
                                  int64_t nrows, int64_t ncols, gcoo_memspace mem) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CHECK(D != NULL, GCOO_ERR_NULL, "dense matrix is NULL");
  if (mem == GCOO_MEM_HOST) {
    GCOO_CALL(gcoo_dense_create(D, dtype, layout, nrows, ncols));
    return GCOO_SUCCESS;
  }
  GCOO_CHECK(mem == GCOO_MEM_DEVICE, GCOO_ERR_INVALID_ARG, "unknown memory space %d", (int)mem);
  GCOO_CALL(need_device_ops(ctx, ctx->ops->mem_alloc != NULL, "allocation"));
  GCOO_CHECK(nrows >= 0 && ncols >= 0, GCOO_ERR_INVALID_ARG, "negative shape %lld x %lld",
             (long long)nrows, (long long)ncols);
  size_t bytes;
  GCOO_CHECK(ncols == 0 || nrows <= INT64_MAX / ncols, GCOO_ERR_TOO_LARGE, "%lld x %lld overflows",
             (long long)nrows, (long long)ncols);
  GCOO_CALL(gcoo__array_bytes(nrows * ncols, gcoo_dtype_size(dtype), &bytes));
  *D = gcoo_dense_wrap(NULL, dtype, layout, nrows, ncols, 0);
  if (D->ld < 1) D->ld = 1;
  D->mem = GCOO_MEM_DEVICE;
  GCOO_CALL(ctx->ops->mem_alloc(ctx, &D->data, bytes ? bytes : 1, "dense matrix"));
  D->owned = 1;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ctx_dense_destroy(gcoo_ctx ctx, gcoo_dense *D) {
  if (!D) return GCOO_SUCCESS;
  if (D->mem == GCOO_MEM_DEVICE) {
    GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
    gcoo_status st = GCOO_SUCCESS;
    if (D->owned && D->data)
      st = ctx->ops->mem_free ? ctx->ops->mem_free(ctx, D->data) : GCOO_ERR_INTERNAL;
    D->data = NULL;
    D->owned = 0;
    D->nrows = D->ncols = 0;
    GCOO_CALL(st);
    return GCOO_SUCCESS;
  }
  gcoo_dense_destroy(D);
  return GCOO_SUCCESS;
}

static gcoo_status same_kind(const gcoo_dense *a, const gcoo_dense *b, const char *what) {
  GCOO_CALL(gcoo_dense_check(a));
  GCOO_CALL(gcoo_dense_check(b));
  GCOO_CHECK(a->dtype == b->dtype, GCOO_ERR_DTYPE, "%s: element types differ", what);
  GCOO_CHECK(a->mem == b->mem, GCOO_ERR_INVALID_ARG, "%s: operands in different memory spaces",
             what);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ctx_dense_copy(gcoo_ctx ctx, gcoo_dense *dst, const gcoo_dense *src) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CALL(gcoo_dense_check(dst));
  GCOO_CALL(gcoo_dense_check(src));
  GCOO_CHECK(dst->nrows == src->nrows && dst->ncols == src->ncols, GCOO_ERR_SHAPE,
             "copy of %lld x %lld into %lld x %lld", (long long)src->nrows, (long long)src->ncols,
             (long long)dst->nrows, (long long)dst->ncols);
  GCOO_CHECK(dst->dtype == src->dtype && dst->layout == src->layout, GCOO_ERR_DTYPE,
             "copy needs the same element type and layout");
  if (dst->mem == GCOO_MEM_HOST && src->mem == GCOO_MEM_HOST) {
    size_t es = gcoo_dtype_size(src->dtype);
    int64_t nmaj = src->layout == GCOO_ROW_MAJOR ? src->nrows : src->ncols;
    int64_t nmin = src->layout == GCOO_ROW_MAJOR ? src->ncols : src->nrows;
    for (int64_t i = 0; i < nmaj; i++)
      memmove((char *)dst->data + (size_t)(i * dst->ld) * es,
              (const char *)src->data + (size_t)(i * src->ld) * es, (size_t)nmin * es);
    return GCOO_SUCCESS;
  }
  GCOO_CALL(need_device_ops(ctx, ctx->ops->dense_copy != NULL, "copy"));
  GCOO_CALL(ctx->ops->dense_copy(ctx, dst, src));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ctx_dense_fill_random_rows(gcoo_ctx ctx, gcoo_dense *D, uint64_t seed,
                                            int64_t row0) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CALL(gcoo_dense_check(D));
  if (D->mem == GCOO_MEM_HOST) {
    GCOO_CALL(gcoo_dense_fill_random_rows(D, seed, row0));
    return GCOO_SUCCESS;
  }
  GCOO_CHECK(row0 >= 0, GCOO_ERR_INVALID_ARG, "first row %lld < 0", (long long)row0);
  GCOO_CALL(need_device_ops(ctx, ctx->ops->fill_random_rows != NULL, "fill_random_rows"));
  GCOO_CALL(ctx->ops->fill_random_rows(ctx, D, seed, row0));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ctx_dense_sums(gcoo_ctx ctx, const gcoo_dense *D, double sums[2]) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CHECK(sums != NULL, GCOO_ERR_NULL, "sums is NULL");
  GCOO_CALL(gcoo_dense_check(D));
  sums[0] = sums[1] = 0.0;
  int64_t nvec, len;
  const int64_t nb = gcoo__dense_sum_blocks(D, &nvec, &len);
  if (nvec == 0 || len == 0) return GCOO_SUCCESS;
  double *part = NULL;
  GCOO_CALL(gcoo__malloc_n((void **)&part, (size_t)nb, 2 * sizeof *part, "block sums"));
  gcoo_status st = GCOO_SUCCESS;
  if (D->mem == GCOO_MEM_HOST) {
    const int is64 = D->dtype == GCOO_FLOAT64;
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
      int64_t v0, v1;
      gcoo__dense_sum_block(b, nvec, &v0, &v1);
      if (is64)
        gcoo__dense_block_sum_f64((const double *)D->data, D->ld, len, v0, v1, &part[2 * b],
                                  &part[2 * b + 1]);
      else
        gcoo__dense_block_sum_f32((const float *)D->data, D->ld, len, v0, v1, &part[2 * b],
                                  &part[2 * b + 1]);
    }
  } else {
    st = need_device_ops(ctx, ctx->ops->dense_block_sums != NULL, "dense_sums");
    if (st >= 0) st = ctx->ops->dense_block_sums(ctx, D, part);
  }
  for (int64_t b = 0; st >= 0 && b < nb; b++) sums[0] += part[2 * b], sums[1] += part[2 * b + 1];
  free(part);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* A block operation's two sides, by the memory space of its output `out`: the host template
 * name##_host for host operands, the backend's op `name` for device ones (GCOO_ERR_UNSUPPORTED
 * on a backend without it). Ends the calling function. */
#define ON_HOST_OR_DEVICE(ctx, out, name, ...)                            \
  do {                                                                    \
    if ((out)->mem == GCOO_MEM_HOST) {                                    \
      GCOO_CALL(GCOO_DISPATCH((out)->dtype, name##_host, __VA_ARGS__));   \
    } else {                                                              \
      GCOO_CALL(need_device_ops((ctx), (ctx)->ops->name != NULL, #name)); \
      GCOO_CALL((ctx)->ops->name((ctx), __VA_ARGS__));                    \
    }                                                                     \
    return GCOO_SUCCESS;                                                  \
  } while (0)

gcoo_status gcoo_blas_gemm(gcoo_ctx ctx, int transA, int transB, double alpha, const gcoo_dense *A,
                           const gcoo_dense *B, double beta, gcoo_dense *C) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CALL(same_kind(A, B, "gemm"));
  GCOO_CALL(same_kind(A, C, "gemm"));
  int64_t m = transA ? A->ncols : A->nrows, k = transA ? A->nrows : A->ncols;
  int64_t kb = transB ? B->ncols : B->nrows, n = transB ? B->nrows : B->ncols;
  GCOO_CHECK(k == kb && C->nrows == m && C->ncols == n, GCOO_ERR_SHAPE,
             "gemm: op(A) %lld x %lld, op(B) %lld x %lld, C %lld x %lld", (long long)m,
             (long long)k, (long long)kb, (long long)n, (long long)C->nrows, (long long)C->ncols);
  GCOO_CHECK(A->layout == C->layout && B->layout == C->layout, GCOO_ERR_INVALID_ARG,
             "gemm: operands must share one layout");
  GCOO_CHECK(C->data != A->data && C->data != B->data, GCOO_ERR_INVALID_ARG,
             "gemm: C must not alias A or B");
  ON_HOST_OR_DEVICE(ctx, C, gemm, transA, transB, alpha, A, B, beta, C);
}

gcoo_status gcoo_blas_dgmm(gcoo_ctx ctx, const gcoo_dense *d, const gcoo_dense *A, gcoo_dense *C) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CALL(same_kind(d, A, "dgmm"));
  GCOO_CALL(same_kind(A, C, "dgmm"));
  GCOO_CHECK((d->ncols == 1 && d->nrows == A->nrows) || (d->nrows == 1 && d->ncols == A->nrows),
             GCOO_ERR_SHAPE, "dgmm: d is %lld x %lld, A has %lld rows", (long long)d->nrows,
             (long long)d->ncols, (long long)A->nrows);
  GCOO_CHECK(C->nrows == A->nrows && C->ncols == A->ncols && C->layout == A->layout, GCOO_ERR_SHAPE,
             "dgmm: C must have A's shape and layout");
  ON_HOST_OR_DEVICE(ctx, C, dgmm, d, A, C);
}

gcoo_status gcoo_blas_coldot(gcoo_ctx ctx, const gcoo_dense *A, const gcoo_dense *B,
                             gcoo_dense *out) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CALL(same_kind(A, B, "coldot"));
  GCOO_CALL(same_kind(A, out, "coldot"));
  GCOO_CHECK(A->nrows == B->nrows && A->ncols == B->ncols, GCOO_ERR_SHAPE,
             "coldot: A is %lld x %lld, B is %lld x %lld", (long long)A->nrows, (long long)A->ncols,
             (long long)B->nrows, (long long)B->ncols);
  GCOO_CHECK((out->nrows == 1 && out->ncols == A->ncols) ||
                 (out->ncols == 1 && out->nrows == A->ncols),
             GCOO_ERR_SHAPE, "coldot: out must hold %lld values", (long long)A->ncols);
  ON_HOST_OR_DEVICE(ctx, out, coldot, A, B, out);
}
