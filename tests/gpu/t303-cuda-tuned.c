/* SPDX-License-Identifier: MIT */
/* tests/gpu/t303-cuda-tuned.c: every variant of the tuned GCOOSpDM kernel (and the faithful one)
 * on small problems with device operands, small enough to run under compute-sanitizer
 * (bench/gpu_spdm_call.sh runs memcheck on this binary with --quick: float only and a
 * smaller wide matrix): staged chunks smaller
 * than the group's column list, several row passes, tails in N, unaligned rows, beta = 0 over
 * NaN and beta != 0; power-law rows for the row-split variants. Bound: gcoo_test_tolerance(dtype, longest row). Exit 77 without a GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/gcoo_kernels.h"
#include "gpu_test_util.h"

static int resident_fits(gcoo_ctx ctx, int64_t k) {
  gcoo_cuda_devinfo dev;
  TEST_CALL(gcoo_cuda_ctx_devinfo(ctx, &dev));
  return gcoo_cuda_resident_fits(k, &dev);
}

/* The details of an operator made with `alg`, no p and the hint N (after one apply on host
 * operands where `apply`: the launch record needs one). */
static gcoo_cuda_op_details details_of(gcoo_ctx ctx, gcoo_sparse A, gcoo_spdm_alg alg, int64_t N,
                                       int apply) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
  o.alg = alg;
  o.ncols_hint = N;
  gcoo_op op = NULL;
  TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
  if (apply) {
    gcoo_dense X = gt_dense_padded(ai.dtype, ai.ncols, N, N, 0, 5),
               Y = gt_dense_padded(ai.dtype, ai.nrows, N, N, 0, 6);
    TEST_CALL(gcoo_op_apply(op, 1.0, &X, 0.0, &Y)); /* host operands, staged by the operator */
    gt_dense_free(&X, 0);
    gt_dense_free(&Y, 0);
  }
  gcoo_cuda_op_details d;
  TEST_CALL(gcoo_cuda_op_get_details(op, &d));
  gcoo_op_destroy(&op);
  return d;
}

static void check(gcoo_ctx ctx, gcoo_sparse A, const char *name, int32_t p, int64_t N, int64_t pad,
                  double beta, gcoo_spdm_alg alg) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  const size_t es = gcoo_dtype_size(ai.dtype);
  gcoo_dense X = gt_dense_padded(ai.dtype, ai.ncols, N, N + pad, 0, 31);
  gcoo_dense Y0 = gt_dense_padded(ai.dtype, ai.nrows, N, N + pad, 0, 32);
  if (beta == 0.0) TEST_CALL(gcoo_dense_fill(&Y0, NAN));
  gcoo_dense R = gcoo_test_copy(&Y0);
  TEST_CALL(gcoo_spdm_reference(1.25, A, &X, beta, &R));
  const size_t xb = (size_t)(ai.ncols * X.ld + 1) * es, yb = (size_t)(ai.nrows * Y0.ld + 1) * es;
  void *dx = NULL, *dy = NULL;
  TEST_CHECK(cudaMalloc(&dx, xb) == cudaSuccess && cudaMalloc(&dy, yb) == cudaSuccess,
             "cudaMalloc");
  TEST_CHECK(cudaMemcpy(dx, X.data, xb, cudaMemcpyHostToDevice) == cudaSuccess, "copy");
  gcoo_dense dX = X, dY = Y0;
  dX.data = dx;
  dY.data = dy;
  dX.mem = dY.mem = GCOO_MEM_DEVICE;
  gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
  o.alg = alg;
  o.p = p;
  o.ncols_hint = N;
  gcoo_op op = NULL;
  TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
  const int nv = alg == GCOO_ALG_GCOO ? gcoo_cuda_tuned_variant_count() : 0;
  for (int v = 0; v <= nv; v++) {
    if (alg == GCOO_ALG_GCOO && gcoo_cuda_tuned_variant_resident(v) &&
        !resident_fits(ctx, ai.ncols)) {
      /* the X-resident kernel holds k + 8 rows of X in shared memory: a clear refusal above */
      TEST_FAILS(gcoo_cuda_op_set_option(op, GCOO_CUDA_OPT_TUNED_VARIANT, v), GCOO_ERR_UNSUPPORTED,
                 "shared memory");
      continue;
    }
    if (alg == GCOO_ALG_GCOO)
      TEST_CALL(gcoo_cuda_op_set_option(op, GCOO_CUDA_OPT_TUNED_VARIANT, v));
    TEST_CHECK(cudaMemcpy(dy, Y0.data, yb, cudaMemcpyHostToDevice) == cudaSuccess, "copy");
    TEST_CALL(gcoo_op_apply(op, 1.25, &dX, beta, &dY));
    TEST_CALL(gcoo_ctx_synchronize(ctx));
    gcoo_dense Y = gt_dense_padded(ai.dtype, ai.nrows, N, N + pad, 0, 33);
    TEST_CHECK(cudaMemcpy(Y.data, dy, yb, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
    gcoo_cuda_op_details d;
    TEST_CALL(gcoo_cuda_op_get_details(op, &d));
    const double err = gcoo_test_relerr(&Y, &R), tol = gt_tolerance(A);
    TEST_CHECK(err <= tol,
               "%s %s p=%d N=%lld pad=%lld beta=%g variant %s (vpt %d rpt %d threads "
               "%d chunk %d passes %d): relerr %.3g > %.3g",
               name, gcoo_spdm_alg_name(alg), p, (long long)N, (long long)pad, beta,
               gcoo_cuda_tuned_variant_name(v), d.last.vpt, d.last.rpt, d.last.threads,
               d.last.chunk, d.last.passes, err, tol);
    gt_dense_free(&Y, 0);
  }
  gcoo_op_destroy(&op);
  cudaFree(dx);
  cudaFree(dy);
  gt_dense_free(&X, 0);
  gt_dense_free(&Y0, 0);
  gcoo_dense_destroy(&R);
}

int main(int argc, char **argv) {
  /* --quick: float only and a smaller wide matrix (for compute-sanitizer, 10-100x slower) */
  const int quick = argc > 1 && !strcmp(argv[1], "--quick");
  if (gcoo_cuda_device_count() == 0) {
    printf("t303-cuda-tuned: no GPU, skipped\n");
    return GCOO_TEST_SKIP;
  }
  gcoo_ctx ctx = NULL;
  TEST_CALL(gcoo_ctx_create(&ctx, "cuda"));
  for (int t = 0; t < (quick ? 1 : 2); t++) {
    const gcoo_dtype dt = t ? GCOO_FLOAT64 : GCOO_FLOAT32;
    gcoo_sparse A = NULL;
    char name[64];
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 300, 260, 0.95, 50 + t, 0));
    snprintf(name, sizeof name, "random300x260 %s", t ? "f64" : "f32");
    check(ctx, A, name, 8, 70, 0, 0.0, GCOO_ALG_GCOO);
    check(ctx, A, name, 128, 33, 1, 0.5, GCOO_ALG_GCOO);
    check(ctx, A, name, 1000, 129, 0, 0.0, GCOO_ALG_GCOO);
    check(ctx, A, name, 4, 70, 3, 0.0, GCOO_ALG_GCOO_FAITHFUL);
    gcoo_sparse_destroy(&A);
    /* short rows (5 a row), GCOO without p: setup's shape trial times the direct kernel's
     * shapes at N; whichever it keeps runs as variant 0 in check() (beta over NaN and beta 0.5,
     * a padded ld), and the details name the trial */
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 3000, 2500, 0.998, 55 + t, 0));
    snprintf(name, sizeof name, "short3000x2500 %s", t ? "f64" : "f32");
    check(ctx, A, name, 0, 300, 0, 0.0, GCOO_ALG_GCOO);
    check(ctx, A, name, 0, 77, 2, 0.5, GCOO_ALG_GCOO);
    check(ctx, A, name, 0, 300, 0, 0.0, GCOO_ALG_AUTO);
    {
      const gcoo_cuda_op_details d = details_of(ctx, A, GCOO_ALG_GCOO, 300, 0);
      TEST_CHECK(strstr(d.why, "shape trial at N = 300") != NULL, "%s: GCOO without p: %s", name,
                 d.why);
      printf("t303: %s, GCOO without p, N = 300: %s\n", name, d.why);
    }
    gcoo_sparse_destroy(&A);
    /* long rows: many distinct columns per group, so many staged chunks */
    TEST_CALL(
        gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 40, quick ? 4000 : 20000, 0.7, 60 + t, 0));
    snprintf(name, sizeof name, "wide40x%d %s", quick ? 4000 : 20000, t ? "f64" : "f32");
    check(ctx, A, name, 16, 40, 0, 1.0, GCOO_ALG_GCOO);
    gcoo_sparse_destroy(&A);
    /* many slices: the X-resident kernel cuts them into parts; k near its shared-memory limit
     * (14 520 on an H200) */
    TEST_CALL(
        gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, quick ? 3000 : 9000, 14000, 0.999, 70 + t, 0));
    snprintf(name, sizeof name, "tall%dx14000 %s", quick ? 3000 : 9000, t ? "f64" : "f32");
    check(ctx, A, name, 32, 24, 0, 0.0, GCOO_ALG_GCOO);
    gcoo_sparse_destroy(&A);
    /* power-law rows (the row-split variants; rows up to 3000 entries, pieces of 256): N wider
     * than the split workspace (several column passes), tails, misaligned rows, beta over NaN;
     * a forced GCOO without p resolves variant 0 to the row-split kernel (checked below) */
    A = gt_power_law(dt, quick ? 600 : 3000, 4000, 3000, 90 + t);
    snprintf(name, sizeof name, "powerlaw%dx4000 %s", quick ? 600 : 3000, t ? "f64" : "f32");
    check(ctx, A, name, 0, 70, 1, 0.0, GCOO_ALG_GCOO);
    check(ctx, A, name, 0, 600, 0, 0.5, GCOO_ALG_GCOO);
    check(ctx, A, name, 0, 600, 0, 0.0, GCOO_ALG_AUTO);
    {
      const gcoo_cuda_op_details d = details_of(ctx, A, GCOO_ALG_GCOO, 128, 1);
      gcoo_sparse_info ai;
      TEST_CALL(gcoo_sparse_get_info(A, &ai));
      TEST_CHECK(d.last.rowsplit && d.last.piece == gcoo_cuda_split_piece(ai.nrows, ai.nnz),
                 "%s: forced GCOO without p ran %s (piece %d)", name,
                 gcoo_cuda_tuned_variant_name(d.last.variant), d.last.piece);
    }
    gcoo_sparse_destroy(&A);
  }
  {
    /* AUTO on a random float matrix that the rule sends to the X-resident variant (k small, N
     * wide, 24 entries a column): checked against the reference like the rest, and the choice
     * itself checked in the operator's details */
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 1200, 1500, 0.98, 80, 0));
    check(ctx, A, "auto1200x1500 f32", 0, quick ? 1000 : 1100, 0, 0.0, GCOO_ALG_AUTO);
    const gcoo_cuda_op_details d = details_of(ctx, A, GCOO_ALG_AUTO, 1100, 0);
    /* the rule's branch; AUTO's plan-time trial may still keep cuSPARSE if it timed faster */
    TEST_CHECK(strstr(d.why, "X-resident") != NULL &&
                   (d.alg == GCOO_ALG_GCOO || strstr(d.why, "trial") != NULL),
               "AUTO on random 1200 x 1500, N = 1100: %s (%s)", gcoo_spdm_alg_name(d.alg), d.why);
    printf("t303: AUTO on random 1200 x 1500, N = 1100: %s (%s)\n", gcoo_spdm_alg_name(d.alg),
           d.why);
    gcoo_sparse_destroy(&A);
  }
  TEST_CALL(gcoo_ctx_destroy(&ctx));
  return gcoo_test_finish("t303-cuda-tuned");
}
