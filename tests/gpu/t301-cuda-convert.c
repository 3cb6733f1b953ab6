/* SPDX-License-Identifier: MIT */
/* tests/gpu/t301-cuda-convert.c: the GPU conversions produce exactly the CPU's arrays:
 * CSR -> GCOO (CUB sort) and dense -> GCOO (count / scan / fill) equal
 * gcoo_sparse_convert(transpose(A), GCOO, p) element for element (gIdxes, nnzPerGroup, rows,
 * cols, values), on fresh random matrices of several shapes (empty rows and groups, nnz = 0,
 * 1 x 1, a single column), the real matrices of tests/data, p in {1, 3, 4, 32, 128, 1000},
 * float and double; the tuned layout's distinct counts and the reuse statistics equal a CPU
 * count; CSR -> dense equals the CPU densification. Exit 77 without a GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/gcoo_kernels.h"
#include "gpu_test_util.h"

static void *to_host(const void *d, size_t bytes) {
  void *h = malloc(bytes ? bytes : 1);
  if (bytes) TEST_CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
  return h;
}

static void check_gpu_gcoo(const char *what, gcoo_sparse cpu, const gcoo_cuda_gcoo *S) {
  const size_t es = gcoo_dtype_size(S->dtype);
  /* the conversions queue their work on the (non-blocking) stream: wait for it before the
   * copies below, which run on the legacy default stream */
  TEST_CHECK(cudaDeviceSynchronize() == cudaSuccess, "%s: cudaDeviceSynchronize", what);
  int64_t *gidx = to_host(S->gidx, (size_t)(S->ngroups + 1) * 8);
  int64_t *gnnz = to_host(S->gnnz, (size_t)S->ngroups * 8);
  int32_t *rows = to_host(S->rows, (size_t)S->nnz * 4);
  int32_t *cols = to_host(S->cols, (size_t)S->nnz * 4);
  void *vals = to_host(S->values, (size_t)S->nnz * es);
  gcoo_sparse_info ci;
  TEST_CALL(gcoo_sparse_get_info(cpu, &ci));
  TEST_CHECK(ci.nnz == S->nnz && ci.ngroups == S->ngroups && ci.nrows == S->nrows &&
                 ci.ncols == S->ncols,
             "%s: GPU GCOO %lld x %lld nnz %lld groups %lld, CPU %lld x %lld nnz %lld groups %lld",
             what, (long long)S->nrows, (long long)S->ncols, (long long)S->nnz,
             (long long)S->ngroups, (long long)ci.nrows, (long long)ci.ncols, (long long)ci.nnz,
             (long long)ci.ngroups);
  if (ci.nnz == S->nnz && ci.ngroups == S->ngroups)
    gt_check_gcoo_equal(what, cpu, gidx, gnnz, rows, cols, vals);
  free(gidx);
  free(gnnz);
  free(rows);
  free(cols);
  free(vals);
}

static void check_matrix(gcoo_sparse A, const char *name, void *stream) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  const size_t es = gcoo_dtype_size(ai.dtype);
  gcoo_cuda_csr d;
  TEST_CALL(gcoo_cuda_csr_upload(A, &d, stream));
  /* dense copy of A on the device (row-major, ld = k + 5) for dense -> GCOO */
  const int64_t lda = ai.ncols + 5;
  void *dA = NULL;
  TEST_CHECK(cudaMalloc(&dA, (size_t)(ai.nrows > 0 ? ai.nrows : 1) * (size_t)lda * es) ==
                 cudaSuccess,
             "cudaMalloc");
  TEST_CALL(gcoo_cuda_csr_to_dense(&d, dA, lda, stream));
  TEST_CHECK(cudaStreamSynchronize((cudaStream_t)stream) == cudaSuccess, "sync");
  {
    gcoo_dense D, E;
    TEST_CALL(gcoo_dense_create(&D, ai.dtype, GCOO_ROW_MAJOR, ai.nrows, ai.ncols));
    TEST_CALL(gcoo_sparse_to_dense(A, &D));
    E = gcoo_dense_wrap(to_host(dA, (size_t)ai.nrows * (size_t)lda * es), ai.dtype, GCOO_ROW_MAJOR,
                        ai.nrows, ai.ncols, lda);
    TEST_CHECK(gcoo_test_relerr(&E, &D) == 0.0, "%s: CSR -> dense differs from the CPU", name);
    free(E.data);
    gcoo_dense_destroy(&D);
  }
  gcoo_sparse A_nonzero = NULL;
  {
    gcoo_dense D;
    TEST_CALL(gcoo_dense_create(&D, ai.dtype, GCOO_ROW_MAJOR, ai.nrows, ai.ncols));
    TEST_CALL(gcoo_sparse_to_dense(A, &D));
    TEST_CALL(gcoo_sparse_from_dense(&A_nonzero, &D, GCOO_FORMAT_CSR, 0, 0));
    gcoo_dense_destroy(&D);
  }
  const int32_t ps[] = {1, 3, 4, 32, 128, 1000};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    char what[192];
    gcoo_sparse cpu = gt_cpu_gcoo_of_transpose(A, ps[i]);
    gcoo_cuda_gcoo S;
    snprintf(what, sizeof what, "%s p=%d CSR->GCOO", name, ps[i]);
    TEST_CALL(gcoo_cuda_csr_to_gcoo(&d, ps[i], &S, stream));
    check_gpu_gcoo(what, cpu, &S);
    gcoo_cuda_gcoo_free(&S);
    snprintf(what, sizeof what, "%s p=%d dense->GCOO", name, ps[i]);
    TEST_CALL(gcoo_cuda_dense_to_gcoo(ai.dtype, ai.nrows, ai.ncols, dA, lda, ps[i], &S, stream));
    /* a dense matrix has no explicit zeros: compare with the CPU's GCOO of the densified A
     * (stored zeros in the file, or duplicates summing to zero, are dropped by both) */
    gcoo_sparse cpu_nz = gt_cpu_gcoo_of_transpose(A_nonzero, ps[i]);
    check_gpu_gcoo(what, cpu_nz, &S);
    gcoo_sparse_destroy(&cpu_nz);
    gcoo_cuda_gcoo_free(&S);
    /* the tuned layout, keeping its GCOO: the same arrays, and the right distinct count */
    gcoo_cuda_tuned L;
    snprintf(what, sizeof what, "%s p=%d tuned layout", name, ps[i]);
    TEST_CALL(gcoo_cuda_tuned_build(&d, ps[i], &L, &S, stream));
    check_gpu_gcoo(what, cpu, &S);
    const int64_t want = gt_cpu_distinct(A, ps[i]);
    TEST_CHECK(L.ndistinct == want, "%s: %lld distinct, CPU %lld", what, (long long)L.ndistinct,
               (long long)want);
    gcoo_cuda_tuned_free(&L);
    gcoo_cuda_gcoo_free(&S);
    gcoo_sparse_destroy(&cpu);
  }
  gcoo_sparse_destroy(&A_nonzero);
  int64_t dist[11];
  TEST_CALL(gcoo_cuda_reuse_stats(&d, 11, dist, stream));
  for (int i = 0; i < 11; i++) {
    const int64_t want = ai.nnz ? gt_cpu_distinct(A, (int64_t)1 << i) : 0;
    TEST_CHECK(dist[i] == want, "%s: reuse statistics at p = %d: %lld, CPU %lld", name, 1 << i,
               (long long)dist[i], (long long)want);
  }
  cudaFree(dA);
  gcoo_cuda_csr_free(&d);
}

int main(void) {
  if (gcoo_cuda_device_count() == 0) {
    printf("t301-cuda-convert: no GPU, skipped\n");
    return GCOO_TEST_SKIP;
  }
  gcoo_ctx ctx = NULL;
  TEST_CALL(gcoo_ctx_create(&ctx, "cuda"));
  void *stream = gcoo_ctx_stream(ctx);
  const gcoo_dtype dts[2] = {GCOO_FLOAT32, GCOO_FLOAT64};
  struct {
    int64_t m, k;
    double sparsity;
  } shapes[] = {{300, 200, 0.97}, {1000, 37, 0.9}, {17, 2500, 0.8},     {64, 64, 1.0},
                {1, 1, 0.0},      {500, 1, 0.5},   {2049, 2049, 0.999}, {1, 700, 0.5}};
  for (int t = 0; t < 2; t++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      gcoo_sparse A = NULL;
      char name[96];
      TEST_CALL(gcoo_sparse_random(&A, dts[t], GCOO_FORMAT_CSR, shapes[s].m, shapes[s].k,
                                   shapes[s].sparsity, 1000 + 10 * s + t, 0));
      snprintf(name, sizeof name, "random %lldx%lld s=%g %s", (long long)shapes[s].m,
               (long long)shapes[s].k, shapes[s].sparsity, t ? "f64" : "f32");
      check_matrix(A, name, stream);
      gcoo_sparse_destroy(&A);
    }
  const char *files[] = {"west0479.mtx.gz", "bcsstk21.mtx.gz", "dwt_2680.mtx.gz",
                         "lp_ship04l.mtx.gz"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++)
    for (int t = 0; t < 2; t++) {
      gcoo_sparse A = NULL;
      char name[96];
      TEST_CALL(gcoo_mtx_read(gcoo_test_data(files[f]), dts[t], 0, &A));
      snprintf(name, sizeof name, "%s %s", files[f], t ? "f64" : "f32");
      check_matrix(A, name, stream);
      gcoo_sparse_destroy(&A);
    }
  TEST_CALL(gcoo_ctx_destroy(&ctx));
  return gcoo_test_finish("t301-cuda-convert");
}
