/* SPDX-License-Identifier: MIT */
/* tests/mpi/t408-dist-gpu.c: the distributed layer with device buffers (one GPU per rank): the
 * halo exchange (NCCL on a communication stream, or host staging), operators in both X modes and
 * both readings, gathers to one rank and to all (grouped ncclSend/ncclRecv, ncclAllGather) and
 * the all-reduce, each compared with the CPU reference / exact values. Exit 77 (skipped) when a
 * rank has no GPU. Run it on the GPU machine at 1, 2 and more ranks (tests/mpi/gpu_dist.sh). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "mpi_test.h"

#if GCOO_HAVE_CUDA
#include <cuda_runtime_api.h>

static void *upload(const void *h, size_t bytes) {
  void *d = NULL;
  if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess ||
      (bytes && cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess)) {
    fprintf(stderr, "FAIL rank %d: cudaMalloc/cudaMemcpy of %zu bytes\n", mpi_test_rank(), bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return d;
}

static void download(void *h, const void *d, size_t bytes) {
  if (bytes && cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "FAIL rank %d: cudaMemcpy back\n", mpi_test_rank());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static void product(gcoo_dist d, int stencil, gcoo_dtype dt, gcoo_reading rd, gcoo_dist_xmode xm,
                    int split) {
  const int64_t n = 9, m = n * n * n, N = 5;
  int64_t r0, r1;
  gcoo_sparse A = NULL, slab = NULL, Aslab = NULL;
  MPI_TEST_CALL(gcoo_sparse_poisson3d_rows(&A, dt, GCOO_FORMAT_CSR, stencil, n, 0, m, 0));
  mpi_test_rows(split, m, 32, &r0, &r1);
  Aslab = mpi_test_row_slab(A, r0, r1);
  if (rd == GCOO_DENSE_SPARSE) {
    MPI_TEST_CALL(gcoo_sparse_transpose(&slab, Aslab));
    gcoo_sparse_destroy(&Aslab);
  } else {
    slab = Aslab;
  }
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.local.reading = rd;
  o.xmode = xm;
  gcoo_dist_op op = NULL;
  MPI_TEST_CALL(gcoo_dist_op_create(d, slab, r0, m, &o, &op));
  gcoo_dense X, Yref, Y;
  const size_t es = gcoo_dtype_size(dt);
  MPI_TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, m, N));
  MPI_TEST_CALL(gcoo_dense_fill_random(&X, 3));
  MPI_TEST_CALL(gcoo_dense_create(&Yref, dt, GCOO_ROW_MAJOR, m, N));
  MPI_TEST_CALL(gcoo_spdm_reference(1.0, A, &X, 0.0, &Yref));
  const int part = xm == GCOO_DIST_X_PARTITIONED;
  const int64_t x0 = part ? r0 : 0, nx = part ? r1 - r0 : m;
  void *xd = upload((char *)X.data + (size_t)(x0 * N) * es, (size_t)(nx * N) * es);
  MPI_TEST_CALL(gcoo_dense_create(&Y, dt, GCOO_ROW_MAJOR, r1 - r0, N));
  MPI_TEST_CALL(gcoo_dense_fill(&Y, NAN));
  void *yd = upload(Y.data, (size_t)((r1 - r0) * N) * es);
  gcoo_dense Xd, Yd;
  if (rd == GCOO_SPARSE_DENSE) {
    Xd = gcoo_dense_wrap(xd, dt, GCOO_ROW_MAJOR, nx, N, N);
    Yd = gcoo_dense_wrap(yd, dt, GCOO_ROW_MAJOR, r1 - r0, N, N);
  } else {
    Xd = gcoo_dense_wrap(xd, dt, GCOO_COL_MAJOR, N, nx, N);
    Yd = gcoo_dense_wrap(yd, dt, GCOO_COL_MAJOR, N, r1 - r0, N);
  }
  Xd.mem = Yd.mem = GCOO_MEM_DEVICE;
  for (int rep = 0; rep < 3; rep++) /* buffers are reused across applies */
    MPI_TEST_CALL(gcoo_dist_op_apply(op, 1.0, &Xd, 0.0, &Yd));
  MPI_TEST_CALL(gcoo_ctx_synchronize(gcoo_dist_ctx(d)));
  download(Y.data, yd, (size_t)((r1 - r0) * N) * es);
  gcoo_dense R = gcoo_dense_wrap((char *)Yref.data + (size_t)(r0 * N) * es, dt, GCOO_ROW_MAJOR,
                                 r1 - r0, N, N);
  double err = gcoo_test_relerr(&Y, &R), tol = gcoo_test_tolerance(dt, 27);
  TEST_CHECK(err <= tol, "%d-point %s %s %s split %s: rank %d error %.3g > %.3g", stencil,
             dt ? "f64" : "f32", rd ? "dense-sparse" : "sparse-dense",
             part ? "partitioned" : "replicated", split_names[split], mpi_test_rank(), err, tol);

  /* gather the device slabs to rank 0 and to all, compared with the reference exactly */
  for (int root = -1; root <= 0; root++) {
    const int recv = root < 0 || mpi_test_rank() == root;
    gcoo_dense F, Fh;
    MPI_TEST_CALL(gcoo_dense_create(&Fh, dt, GCOO_ROW_MAJOR, m, N));
    void *fd = upload(Fh.data, (size_t)(m * N) * es);
    F = rd == GCOO_SPARSE_DENSE ? gcoo_dense_wrap(fd, dt, GCOO_ROW_MAJOR, m, N, N)
                                : gcoo_dense_wrap(fd, dt, GCOO_COL_MAJOR, N, m, N);
    F.mem = GCOO_MEM_DEVICE;
    MPI_TEST_CALL(gcoo_dist_gather_rows(d, &Yd, root, recv ? &F : NULL));
    if (recv) {
      download(Fh.data, fd, (size_t)(m * N) * es);
      /* rows of the gathered Y must be exactly the ranks' slabs: compare with the reference */
      double e = gcoo_test_relerr(&Fh, &Yref);
      TEST_CHECK(e <= tol, "device gather (root %d): error %.3g", root, e);
    }
    cudaFree(fd);
    gcoo_dense_destroy(&Fh);
  }
  /* the product gathered while it is computed (dist/gather_overlap.c): NCCL on a GPU a rank,
   * the plain path when ranks share a GPU; Y_full poisoned first, compared with the reference */
  if (rd == GCOO_SPARSE_DENSE && !part) {
    gcoo_dist_pipeline pl = NULL;
    MPI_TEST_CALL(gcoo_dist_pipeline_create(op, 3, &pl));
    const int recv = mpi_test_rank() == 0;
    gcoo_dense Fh;
    MPI_TEST_CALL(gcoo_dense_create(&Fh, dt, GCOO_ROW_MAJOR, m, N));
    MPI_TEST_CALL(gcoo_dense_fill(&Fh, NAN));
    void *fd = upload(Fh.data, (size_t)(m * N) * es);
    gcoo_dense F = gcoo_dense_wrap(fd, dt, GCOO_ROW_MAJOR, m, N, N);
    F.mem = GCOO_MEM_DEVICE;
    for (int rep = 0; rep < 2; rep++) /* buffers and the pipeline are reused */
      MPI_TEST_CALL(gcoo_dist_pipeline_apply_gather(pl, 1.0, &Xd, &Yd, 0, recv ? &F : NULL));
    if (recv) {
      download(Fh.data, fd, (size_t)(m * N) * es);
      double e = gcoo_test_relerr(&Fh, &Yref);
      TEST_CHECK(e <= tol, "product + gather overlapped (3 blocks, root 0): error %.3g > %.3g", e,
                 tol);
    }
    cudaFree(fd);
    gcoo_dense_destroy(&Fh);
    MPI_TEST_CALL(gcoo_dist_pipeline_destroy(&pl));
  }
  cudaFree(xd);
  cudaFree(yd);
  gcoo_dist_op_destroy(&op);
  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Y);
  gcoo_dense_destroy(&Yref);
  gcoo_sparse_destroy(&slab);
  gcoo_sparse_destroy(&A);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int have = gcoo_cuda_device_count() > 0, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (mpi_test_rank() == 0) printf("t408-dist-gpu: skipped (a rank has no GPU)\n");
    MPI_Finalize();
    return GCOO_TEST_SKIP;
  }
#if GCOO_HAVE_CUDA
  /* more ranks than GPUs on this node (a 1-GPU machine at 2 ranks): share them, which tests
   * the host-staged path that replaces NCCL then */
  MPI_Comm node;
  int local_size = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);
  if (local_size > gcoo_cuda_device_count())
    TEST_CALL(gcoo_param_set("GCOO_ALLOW_SHARED_GPU", "1"));
  gcoo_dist d = NULL;
  MPI_TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cuda"));
  gcoo_dist_info info;
  MPI_TEST_CALL(gcoo_dist_get_info(d, &info));
  if (mpi_test_rank() == 0)
    printf("t408-dist-gpu: %d ranks, device of rank 0: %d, NCCL %s, shared GPUs %s\n", info.size,
           info.device, info.nccl ? "on" : "off", info.shared_gpu ? "yes" : "no");
#if GCOO_HAVE_NCCL
  int64_t nccl = 1;
  TEST_CALL(gcoo_param_get_int("GCOO_NCCL", &nccl));
  TEST_CHECK(info.nccl == (info.size > 1 && !info.shared_gpu && nccl), "NCCL in use: %d",
             info.nccl);
#endif
  for (int dt = 0; dt < 2; dt++)
    for (int rd = 0; rd < 2; rd++)
      for (int xm = 0; xm < 2; xm++)
        for (int split = 0; split < SPLIT_COUNT; split++)
          product(d, split % 2 ? 27 : 7, (gcoo_dtype)dt, (gcoo_reading)rd, (gcoo_dist_xmode)xm,
                  split);
  /* all-reduce of device data */
  double h[4] = {1, 2, 3, 4};
  void *b = upload(h, sizeof h);
  MPI_TEST_CALL(gcoo_dist_allreduce_sum(d, GCOO_FLOAT64, b, 4, GCOO_MEM_DEVICE));
  download(h, b, sizeof h);
  cudaFree(b);
  for (int i = 0; i < 4; i++)
    TEST_CHECK(h[i] == (double)(i + 1) * mpi_test_size(), "device all-reduce [%d] = %g", i, h[i]);
  MPI_TEST_CALL(gcoo_dist_destroy(&d));
#endif
  return mpi_test_finish("t408-dist-gpu");
}
