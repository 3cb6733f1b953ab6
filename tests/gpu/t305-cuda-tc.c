/* SPDX-License-Identifier: MIT */
/* tests/gpu/t305-cuda-tc.c: the tensor-core mode (gcoo_op_options.math = GCOO_MATH_TF32) through
 * the public operator on the GPU: fresh random and real matrices (tests/data), device and host
 * operands, N = 1 .. 300 (tails of the 16-column fragments), padded and misaligned rows, beta = 0
 * over NaN and beta != 0, each result checked element by element against the stated bound
 * (docs/kernels.md, "The tensor-core mode": |y - exact| <= (2^-10 + (n_i + 4) 2^-23) |alpha|
 * (|A||X|)_ij), and its normwise error printed. Also: the mode is what the operator reports, a
 * double operator with TF32 allowed stays exact (the FP64 tolerance), the exact default is
 * unchanged, a bad math value is refused. Small enough for compute-sanitizer (--quick: fewer
 * cases). Exit 77 without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/gcoo_kernels.h"
#include "gpu_test_util.h"

static double worst_ratio = 0, worst_rel = 0;
static int ncases = 0;
static int nreordered = 0; /* cases whose windows took the row order of kernels/spdm/tc_order.c */
static int nauto_tc = 0, nauto_exact = 0; /* AUTO's TF32 trial: which side won */

/* One product with TF32 allowed: operands on the device (dev) or the host. */
static void check(gcoo_ctx ctx, gcoo_sparse A, const char *name, gcoo_spdm_alg alg, int64_t N,
                  int64_t pad, int off, double alpha, double beta, int dev) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  const size_t es = gcoo_dtype_size(ai.dtype);
  gcoo_dense X = gt_dense_padded(ai.dtype, ai.ncols, N, N + pad, off, 41 + ncases);
  gcoo_dense Y0 = gt_dense_padded(ai.dtype, ai.nrows, N, N + pad, off, 42 + ncases);
  gcoo_dense Y = gt_dense_padded(ai.dtype, ai.nrows, N, N + pad, off, 43);
  if (beta == 0.0)
    TEST_CALL(gcoo_dense_fill(&Y, NAN)); /* poisoned: every element must be written */
  else
    for (int64_t i = 0; i < ai.nrows; i++)
      for (int64_t j = 0; j < N; j++) gcoo_dense_set(&Y, i, j, gcoo_dense_get(&Y0, i, j));
  gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
  o.alg = alg;
  o.math = GCOO_MATH_TF32;
  o.ncols_hint = N;
  gcoo_op op = NULL;
  TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
  if (dev) {
    const size_t xb = (size_t)(ai.ncols * X.ld + off + 1) * es;
    const size_t yb = (size_t)(ai.nrows * Y.ld + off + 1) * es;
    char *dx = NULL, *dy = NULL;
    TEST_CHECK(cudaMalloc((void **)&dx, xb) == cudaSuccess &&
                   cudaMalloc((void **)&dy, yb) == cudaSuccess,
               "cudaMalloc");
    const char *hx = (const char *)X.data - (size_t)off * es;
    char *hy = (char *)Y.data - (size_t)off * es;
    TEST_CHECK(cudaMemcpy(dx, hx, xb, cudaMemcpyHostToDevice) == cudaSuccess &&
                   cudaMemcpy(dy, hy, yb, cudaMemcpyHostToDevice) == cudaSuccess,
               "copy");
    gcoo_dense dX = X, dY = Y;
    dX.data = dx + (size_t)off * es;
    dY.data = dy + (size_t)off * es;
    dX.mem = dY.mem = GCOO_MEM_DEVICE;
    TEST_CALL(gcoo_op_apply(op, alpha, &dX, beta, &dY));
    TEST_CALL(gcoo_ctx_synchronize(ctx));
    TEST_CHECK(cudaMemcpy(hy, dy, yb, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
    cudaFree(dx);
    cudaFree(dy);
  } else {
    TEST_CALL(gcoo_op_apply(op, alpha, &X, beta, &Y));
  }
  gcoo_cuda_op_details d;
  TEST_CALL(gcoo_cuda_op_get_details(op, &d));
  if (ai.dtype == GCOO_FLOAT32) {
    double rel = 0;
    const double ratio = gt_tc_bound_ratio(A, alpha, &X, beta, &Y0, &Y, &rel);
    int64_t trial = 1;
    TEST_CALL(gcoo_param_get_int("GCOO_AUTO_TRIAL", &trial));
    if (alg == GCOO_ALG_GCOO || !trial)
      /* GCOO, and AUTO without a trial: the tensor-core kernel, as asked */
      TEST_CHECK(d.alg == GCOO_ALG_GCOO &&
                     strstr(d.why, alg == GCOO_ALG_GCOO ? "tensor-core mode" : "-> tensor cores") &&
                     d.tensor_cores && d.last.tensor_core,
                 "%s %s: TF32 asked but the operator ran %s (%s)", name, gcoo_spdm_alg_name(alg),
                 gcoo_spdm_alg_name(d.alg), d.why);
    else /* AUTO: the faster of its exact choice and the tensor-core kernel, and it says which */
      TEST_CHECK(strstr(d.why, d.tensor_cores ? "-> tensor cores" : "-> exact") &&
                     d.tensor_cores == d.last.tensor_core &&
                     (!d.tensor_cores || d.alg == GCOO_ALG_GCOO),
                 "%s AUTO with TF32: the trial's choice (%s) is not what ran (tensor cores %d, "
                 "last launch %d, %s)",
                 name, d.why, d.tensor_cores, d.last.tensor_core, gcoo_spdm_alg_name(d.alg));
    if (alg == GCOO_ALG_AUTO) nauto_tc += d.tensor_cores, nauto_exact += !d.tensor_cores;
    TEST_CHECK(ratio <= 1.0,
               "%s %s N=%lld pad=%lld off=%d beta=%g %s: error %.3g of the bound (relerr %.3g, "
               "tile %d columns)",
               name, gcoo_spdm_alg_name(alg), (long long)N, (long long)pad, off, beta,
               dev ? "device" : "host", ratio, rel, d.last.tile_cols);
    TEST_CHECK(ai.nnz == 0 || strstr(d.why, "in the window order") != NULL,
               "%s: the tensor-core setup did not say which row order it took (%s)", name, d.why);
    nreordered += strstr(d.why, "rows reordered") != NULL;
    if (ratio > worst_ratio) worst_ratio = ratio;
    if (rel > worst_rel) worst_rel = rel;
  } else {
    /* double: TF32 does not apply, the product stays exact */
    gcoo_dense R = gcoo_test_copy(&Y0);
    TEST_CALL(gcoo_spdm_reference(alpha, A, &X, beta, &R));
    const double err = gcoo_test_relerr(&Y, &R), tol = gt_tolerance(A);
    TEST_CHECK(!d.last.tensor_core && err <= tol, "%s double with TF32 allowed: relerr %.3g > %.3g",
               name, err, tol);
    gcoo_dense_destroy(&R);
  }
  ncases++;
  gcoo_op_destroy(&op);
  gt_dense_free(&X, off);
  gt_dense_free(&Y0, off);
  gt_dense_free(&Y, off);
}

int main(int argc, char **argv) {
  const int quick = argc > 1 && !strcmp(argv[1], "--quick");
  if (gcoo_cuda_device_count() == 0) {
    printf("t305-cuda-tc: no GPU, skipped\n");
    return GCOO_TEST_SKIP;
  }
  gcoo_ctx ctx = NULL;
  TEST_CALL(gcoo_ctx_create(&ctx, "cuda"));
  {
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 300, 260, 0.95, 7, 0));
    /* a bad math value: a clear refusal */
    gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
    o.math = (gcoo_math)7;
    gcoo_op op = NULL;
    TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_INVALID_ARG, "math");
    /* the default stays exact: AUTO without TF32 runs no tensor-core kernel */
    o.math = GCOO_MATH_EXACT;
    o.ncols_hint = 64;
    TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
    gcoo_cuda_op_details d;
    TEST_CALL(gcoo_cuda_op_get_details(op, &d));
    TEST_CHECK(strstr(d.why, "tensor-core") == NULL, "default math ran the tensor-core mode");
    gcoo_op_destroy(&op);
    check(ctx, A, "random300x260", GCOO_ALG_AUTO, 64, 0, 0, 1.0, 0.0, 1);
    check(ctx, A, "random300x260", GCOO_ALG_GCOO, 70, 3, 1, -1.5, 0.5, 1); /* misaligned */
    check(ctx, A, "random300x260", GCOO_ALG_GCOO, 1, 0, 0, 2.0, 0.0, 1);
    check(ctx, A, "random300x260", GCOO_ALG_AUTO, 33, 0, 0, 1.0, 1.0, 0); /* host operands */
    gcoo_sparse_destroy(&A);
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 300, 260, 0.95, 8, 0));
    check(ctx, A, "random300x260 f64", GCOO_ALG_AUTO, 64, 0, 0, 1.0, 0.0, 1);
    gcoo_sparse_destroy(&A);
  }
  /* long windows (many k-tiles), power-law rows (windows of very unequal length in one block) */
  {
    gcoo_sparse A = NULL;
    TEST_CALL(
        gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 40, quick ? 2000 : 8000, 0.7, 9, 0));
    check(ctx, A, "wide40", GCOO_ALG_GCOO, 40, 0, 0, 1.0, 0.0, 1);
    gcoo_sparse_destroy(&A);
    A = gt_power_law(GCOO_FLOAT32, quick ? 600 : 3000, 4000, 3000, 10);
    check(ctx, A, "powerlaw", GCOO_ALG_GCOO, 128, 0, 0, 1.0, 0.0, 1);
    if (!quick) check(ctx, A, "powerlaw", GCOO_ALG_GCOO, 300, 1, 0, 0.5, -2.0, 1);
    gcoo_sparse_destroy(&A);
  }
  /* real matrices */
  const char *files[] = {"west0479.mtx.gz", "bcsstk21.mtx.gz", "dwt_2680.mtx.gz",
                         "lp_ship04l.mtx.gz"};
  const int64_t fN[] = {129, 32, 17, 256};
  for (size_t f = 0; f < (quick ? 2 : sizeof files / sizeof files[0]); f++) {
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_mtx_read(gcoo_test_data(files[f]), GCOO_FLOAT32, 0, &A));
    check(ctx, A, files[f], GCOO_ALG_AUTO, fN[f], 0, 0, 1.0, 0.0, 1);
    gcoo_sparse_destroy(&A);
  }
  /* a hint too large to time (nnz x N above the trial's work limit): the TF32 trial runs at a
   * narrower N and says so; the choice it states is what serves */
  if (!quick) {
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 4000, 4000, 0.9, 12, 0));
    gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
    o.math = GCOO_MATH_TF32;
    o.ncols_hint = 4000;
    gcoo_op op = NULL;
    TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
    gcoo_cuda_op_details d;
    TEST_CALL(gcoo_cuda_op_get_details(op, &d));
    TEST_CHECK(strstr(d.why, "TF32 trial at N = ") && strstr(d.why, "too large to time") &&
                   strstr(d.why, d.tensor_cores ? "-> tensor cores" : "-> exact"),
               "large hint: the TF32 trial did not run at a narrower N (%s)", d.why);
    const char *tail = strstr(d.why, "; TF32 trial");
    printf("t305-cuda-tc: hint N = 4000 on 1.6e6 entries: %s\n", tail ? tail + 2 : d.why);
    gcoo_op_destroy(&op);
    gcoo_sparse_destroy(&A);
  }
  /* AUTO without its trial (GCOO_AUTO_TRIAL=0): the tensor-core kernel serves, as asked */
  {
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_mtx_read(gcoo_test_data(files[1]), GCOO_FLOAT32, 0, &A));
    TEST_CALL(gcoo_param_set("GCOO_AUTO_TRIAL", "0"));
    check(ctx, A, "bcsstk21 no trial", GCOO_ALG_AUTO, 64, 0, 0, 1.0, 0.0, 1);
    TEST_CALL(gcoo_param_set("GCOO_AUTO_TRIAL", NULL));
    gcoo_sparse_destroy(&A);
  }
  TEST_CALL(gcoo_ctx_destroy(&ctx));
  printf("t305-cuda-tc: %d cases (%d with rows reordered; AUTO's trial kept tensor cores on %d, "
         "exact on %d), worst error %.3g of the bound, worst relerr %.3g\n",
         ncases, nreordered, nauto_tc, nauto_exact, worst_ratio, worst_rel);
  return gcoo_test_finish("t305-cuda-tc");
}
