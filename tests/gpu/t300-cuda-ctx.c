/* SPDX-License-Identifier: MIT */
/* tests/gpu/t300-cuda-ctx.c: the CUDA context and the error paths of CUDA operators: a device
 * that does not exist, device operands given to a CPU context, a host pointer passed as device
 * memory, operands of the wrong element type, algorithms that refuse an operator (faithful with
 * p > 32, TF32 in double, GCOO kernels with column-major operands), bad developer options; and
 * that the context's stream and device info are what they claim. Exit 77 without a GPU. */
#include <cuda_runtime_api.h>
#include <string.h>

#include "backend_impl.h"
#include "common/gcoo_kernels.h"
#include "gpu_test_util.h"

int main(void) {
  if (gcoo_cuda_device_count() == 0) {
    printf("t300-cuda-ctx: no GPU, skipped\n");
    return GCOO_TEST_SKIP;
  }
  gcoo_ctx ctx = NULL, cpu = NULL;
  TEST_CALL(gcoo_ctx_create(&ctx, "cuda"));
  TEST_CALL(gcoo_ctx_create(&cpu, "cpu"));
  TEST_CHECK(!strcmp(gcoo_ctx_backend(ctx), "cuda"), "backend %s", gcoo_ctx_backend(ctx));
  TEST_CHECK(gcoo_ctx_device(ctx) >= 0, "device %d", gcoo_ctx_device(ctx));
  TEST_CHECK(gcoo_ctx_stream(ctx) != NULL, "a CUDA context has its own stream");
  char buf[512];
  TEST_CALL(gcoo_ctx_describe(ctx, buf, sizeof buf));
  printf("context: %s\n", buf);
  gcoo_cuda_devinfo dev;
  TEST_CALL(gcoo_cuda_ctx_devinfo(ctx, &dev));
  TEST_CHECK(dev.sm_count > 0 && dev.smem_per_sm > 0 && dev.l2_bytes > 0, "device info empty");
  TEST_FAILS(gcoo_cuda_ctx_devinfo(cpu, &dev), GCOO_ERR_INVALID_ARG, "not cuda");

  char res[32];
  snprintf(res, sizeof res, "cuda:%d", gcoo_cuda_device_count() + 7);
  gcoo_ctx bad = NULL;
  TEST_FAILS(gcoo_ctx_create(&bad, res), GCOO_ERR_NO_DEVICE, "present");

  /* an operator and operands to misuse */
  gcoo_sparse A = NULL;
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 40, 30, 0.8, 1, 0));
  gcoo_op op = NULL, opc = NULL;
  gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
  o.alg = GCOO_ALG_GCOO;
  TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
  TEST_CALL(gcoo_op_create(&opc, cpu, A, &o));
  const int64_t N = 8;
  float *dX = NULL, *dY = NULL;
  TEST_CHECK(cudaMalloc((void **)&dX, 30 * N * sizeof(float)) == cudaSuccess, "cudaMalloc");
  TEST_CHECK(cudaMalloc((void **)&dY, 40 * N * sizeof(float)) == cudaSuccess, "cudaMalloc");
  TEST_CHECK(cudaMemset(dX, 0, 30 * N * sizeof(float)) == cudaSuccess, "cudaMemset");
  gcoo_dense X = gcoo_dense_wrap(dX, GCOO_FLOAT32, GCOO_ROW_MAJOR, 30, N, 0);
  gcoo_dense Y = gcoo_dense_wrap(dY, GCOO_FLOAT32, GCOO_ROW_MAJOR, 40, N, 0);
  X.mem = Y.mem = GCOO_MEM_DEVICE;
  TEST_CALL(gcoo_op_apply(op, 1.0, &X, 0.0, &Y));
  TEST_CALL(gcoo_ctx_synchronize(ctx));
  /* device operands to the CPU backend */
  TEST_FAILS(gcoo_op_apply(opc, 1.0, &X, 0.0, &Y), GCOO_ERR_INVALID_ARG, "cpu backend");
  /* host memory passed as device memory */
  float hx[30 * 8], hy[40 * 8];
  memset(hx, 0, sizeof hx);
  gcoo_dense Xh = gcoo_dense_wrap(hx, GCOO_FLOAT32, GCOO_ROW_MAJOR, 30, N, 0);
  gcoo_dense Yh = gcoo_dense_wrap(hy, GCOO_FLOAT32, GCOO_ROW_MAJOR, 40, N, 0);
  Xh.mem = Yh.mem = GCOO_MEM_DEVICE;
  TEST_FAILS(gcoo_op_apply(op, 1.0, &Xh, 0.0, &Yh), GCOO_ERR_INVALID_ARG, "host memory");
  /* wrong element type */
  double hxd[30 * 8], hyd[40 * 8];
  memset(hxd, 0, sizeof hxd);
  gcoo_dense Xd = gcoo_dense_wrap(hxd, GCOO_FLOAT64, GCOO_ROW_MAJOR, 30, N, 0);
  gcoo_dense Yd = gcoo_dense_wrap(hyd, GCOO_FLOAT64, GCOO_ROW_MAJOR, 40, N, 0);
  TEST_FAILS(gcoo_op_apply(op, 1.0, &Xd, 0.0, &Yd), GCOO_ERR_DTYPE, "float32");
  /* the GCOO kernels need the reading's layout */
  Xh = gcoo_dense_wrap(hx, GCOO_FLOAT32, GCOO_COL_MAJOR, 30, N, 0);
  Yh = gcoo_dense_wrap(hy, GCOO_FLOAT32, GCOO_COL_MAJOR, 40, N, 0);
  TEST_FAILS(gcoo_op_apply(op, 1.0, &Xh, 0.0, &Yh), GCOO_ERR_UNSUPPORTED, "row-major");
  /* developer options */
  TEST_FAILS(gcoo_cuda_op_set_option(op, GCOO_CUDA_OPT_TUNED_VARIANT, 999), GCOO_ERR_INVALID_ARG,
             "outside");
  TEST_FAILS(gcoo_cuda_op_set_option(opc, GCOO_CUDA_OPT_TUNED_VARIANT, 1), GCOO_ERR_INVALID_ARG,
             "not cuda");
  TEST_CALL(gcoo_cuda_op_set_option(op, GCOO_CUDA_OPT_TUNED_VARIANT, 1));
  gcoo_op_destroy(&op);
  gcoo_op_destroy(&opc);

  /* algorithms that refuse */
  o.alg = GCOO_ALG_GCOO_FAITHFUL;
  o.p = 1000;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_UNSUPPORTED, "p <= 32");
  TEST_CHECK(op == NULL, "no operator after a failed create");
  gcoo_sparse Ad = NULL;
  TEST_CALL(gcoo_sparse_astype(&Ad, A, GCOO_FLOAT64));
  o.alg = GCOO_ALG_DENSE_TF32;
  o.p = 0;
  TEST_FAILS(gcoo_op_create(&op, ctx, Ad, &o), GCOO_ERR_UNSUPPORTED, "float");
  o.alg = GCOO_ALG_GCOO;
  o.p = -1;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_INVALID_ARG, "p = -1");

  cudaFree(dX);
  cudaFree(dY);
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&Ad);
  TEST_CALL(gcoo_ctx_destroy(&ctx));
  TEST_CALL(gcoo_ctx_destroy(&cpu));
  return gcoo_test_finish("t300-cuda-ctx");
}
