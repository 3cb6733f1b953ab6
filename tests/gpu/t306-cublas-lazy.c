/* SPDX-License-Identifier: MIT */
/* tests/gpu/t306-cublas-lazy.c: cuBLAS is opened at its first use, not at the program's start
 * (kernels/backend/cublas_lazy.h). Without a GPU: nothing maps libcublas before the first load; the load
 * fills every function of the table and they answer (status names); with `missing`, a library
 * that does not exist gives GCOO_ERR_CUBLAS naming it, at every call. With a GPU: a CUDA context
 * and a sparse product leave cuBLAS unloaded; a dense-algorithm operator (cuBLAS GEMM) and
 * gcoo_blas_gemm then load it and agree with the CPU reference, float and double. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "backend/cublas_lazy.h"
#include "gcoo_test.h"

/* Whether a file whose name contains `lib` is mapped into this process. */
static int mapped(const char *lib) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, lib) != NULL;
  fclose(f);
  return found;
}

static void check_missing(void) {
  TEST_CALL(gcoo_param_set("GCOO_CUBLAS_LIBRARY", "/nonexistent/libcublas-for-t306.so"));
  for (int i = 0; i < 2; i++) /* the same clear error at every use */
    TEST_FAILS(gcoo__cublas_load(), GCOO_ERR_CUBLAS, "libcublas-for-t306.so");
  printf("the error: %s\n", gcoo_last_error());
  TEST_CHECK(gcoo__cublas.Create == NULL, "a failed load leaves the table empty");
  TEST_CHECK(mapped("libcublas.so") == 0, "cuBLAS mapped after a failed load");
}

static void check_load(void) {
  TEST_CALL(gcoo__cublas_load());
  TEST_CALL(gcoo__cublas_load()); /* once per process: the second call returns at once */
  TEST_CHECK(mapped("libcublas.so") == 1, "cuBLAS not mapped after gcoo__cublas_load");
  TEST_CHECK(gcoo__cublas.Create && gcoo__cublas.Destroy && gcoo__cublas.SetStream &&
                 gcoo__cublas.SetMathMode && gcoo__cublas.GemmEx && gcoo__cublas.GemmEx_64 &&
                 gcoo__cublas.Sdgmm && gcoo__cublas.Ddgmm && gcoo__cublas.GetStatusName &&
                 gcoo__cublas.GetStatusString,
             "a function of the table is missing");
  const char *name = gcoo__cublas.GetStatusName(CUBLAS_STATUS_NOT_SUPPORTED);
  TEST_CHECK(name && !strcmp(name, "CUBLAS_STATUS_NOT_SUPPORTED"), "status name %s",
             name ? name : "(null)");
}

/* With a GPU: cuBLAS stays out until a BLAS call, then the calls through it are right. */
static void check_gpu(void) {
  gcoo_ctx gpu = NULL, cpu = NULL;
  TEST_CALL(gcoo_ctx_create(&gpu, "cuda"));
  TEST_CALL(gcoo_ctx_create(&cpu, "cpu"));
  const gcoo_dtype dts[] = {GCOO_FLOAT32, GCOO_FLOAT64};
  for (int t = 0; t < 2; t++) {
    const gcoo_dtype dt = dts[t];
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 300, 200, 0.95, 306 + t, 0));
    gcoo_dense X, Y, R;
    TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, 200, 17));
    TEST_CALL(gcoo_dense_create(&Y, dt, GCOO_ROW_MAJOR, 300, 17));
    TEST_CALL(gcoo_dense_create(&R, dt, GCOO_ROW_MAJOR, 300, 17));
    TEST_CALL(gcoo_dense_fill_random(&X, 3060 + t));
    TEST_CALL(gcoo_spdm_reference(1.0, A, &X, 0.0, &R));
    const double tol = gcoo_test_tolerance(dt, 200);

    /* the GCOO kernels: no cuBLAS */
    TEST_CALL(gcoo_dense_fill_random(&Y, 99)); /* poison: beta = 0 must overwrite it */
    TEST_CALL(gcoo_spdm(gpu, 1.0, A, &X, 0.0, &Y));
    double err = gcoo_test_relerr(&Y, &R);
    TEST_CHECK(err <= tol, "%s sparse product: error %.3g > %.3g",
               (dt == GCOO_FLOAT64 ? "double" : "float"), err, tol);
    if (t == 0)
      TEST_CHECK(mapped("libcublas.so") == 0, "a sparse product on the GPU loaded cuBLAS");

    /* the dense algorithm: cuBLAS GEMM, loaded at the operator's setup */
    gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
    o.alg = GCOO_ALG_DENSE;
    gcoo_op op = NULL;
    TEST_CALL(gcoo_op_create(&op, gpu, A, &o));
    TEST_CHECK(mapped("libcublas.so") == 1, "cuBLAS not mapped after a dense operator's setup");
    TEST_CALL(gcoo_dense_fill_random(&Y, 98));
    TEST_CALL(gcoo_op_apply(op, 1.0, &X, 0.0, &Y));
    err = gcoo_test_relerr(&Y, &R);
    TEST_CHECK(err <= tol, "%s dense-algorithm product: error %.3g > %.3g",
               (dt == GCOO_FLOAT64 ? "double" : "float"), err, tol);
    TEST_CALL(gcoo_op_destroy(&op));

    /* gcoo_blas_gemm through the backend's handle: C = X^T X (17 x 17), against the CPU's */
    gcoo_dense Xd, Cd, Cg, Cc;
    TEST_CALL(gcoo_ctx_dense_create(gpu, &Xd, dt, GCOO_ROW_MAJOR, 200, 17, GCOO_MEM_DEVICE));
    TEST_CALL(gcoo_ctx_dense_create(gpu, &Cd, dt, GCOO_ROW_MAJOR, 17, 17, GCOO_MEM_DEVICE));
    TEST_CALL(gcoo_dense_create(&Cg, dt, GCOO_ROW_MAJOR, 17, 17));
    TEST_CALL(gcoo_dense_create(&Cc, dt, GCOO_ROW_MAJOR, 17, 17));
    TEST_CALL(gcoo_ctx_dense_copy(gpu, &Xd, &X));
    TEST_CALL(gcoo_dense_fill_random(&Cg, 97));
    TEST_CALL(gcoo_ctx_dense_copy(gpu, &Cd, &Cg)); /* poisoned; beta = 0 */
    TEST_CALL(gcoo_blas_gemm(gpu, 1, 0, 1.0, &Xd, &Xd, 0.0, &Cd));
    TEST_CALL(gcoo_ctx_dense_copy(gpu, &Cg, &Cd));
    TEST_CALL(gcoo_blas_gemm(cpu, 1, 0, 1.0, &X, &X, 0.0, &Cc));
    err = gcoo_test_relerr(&Cg, &Cc);
    TEST_CHECK(err <= tol, "%s gcoo_blas_gemm: error %.3g > %.3g",
               (dt == GCOO_FLOAT64 ? "double" : "float"), err, tol);
    TEST_CALL(gcoo_ctx_dense_destroy(gpu, &Xd));
    TEST_CALL(gcoo_ctx_dense_destroy(gpu, &Cd));
    gcoo_dense_destroy(&Cg);
    gcoo_dense_destroy(&Cc);
    gcoo_dense_destroy(&X);
    gcoo_dense_destroy(&Y);
    gcoo_dense_destroy(&R);
    gcoo_sparse_destroy(&A);
  }
  TEST_CALL(gcoo_ctx_destroy(&gpu));
  TEST_CALL(gcoo_ctx_destroy(&cpu));
}

int main(int argc, char **argv) {
  TEST_CHECK(mapped("libcublas.so") == 0, "cuBLAS mapped at start-up: libgcoo is linked with it");
  if (argc > 1 && !strcmp(argv[1], "missing")) {
    check_missing();
    return gcoo_test_finish("t306-cublas-lazy missing");
  }
  if (gcoo_cuda_device_count() > 0)
    check_gpu();
  else
    printf("t306-cublas-lazy: no GPU, the load alone\n");
  check_load();
  return gcoo_test_finish("t306-cublas-lazy");
}
