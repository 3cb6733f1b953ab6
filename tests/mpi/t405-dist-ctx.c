/* SPDX-License-Identifier: MIT */
/* tests/mpi/t405-dist-ctx.c: the distributed context: backend strings, node-local ranks, the
 * two-step creation (gcoo_dist_create_unbound, then gcoo_dist_bind or an operator), and the
 * GPU binding rule (distinct physical GPUs, or a clear error on every rank) fed with made-up
 * clusters, since the machines that run this test may have no GPU. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "dist_impl.h"
#include "mpi_test.h"

static gcoo__gpu_slot slot(const char *host, const char *bus, int local_size, int ndev) {
  gcoo__gpu_slot s;
  memset(&s, 0, sizeof s);
  snprintf(s.host, sizeof s.host, "%s", host);
  snprintf(s.bus, sizeof s.bus, "%s", bus);
  s.local_size = local_size;
  s.ndev = ndev;
  return s;
}

static void binding_rules(void) {
  int shared = -1;
  /* two nodes, two ranks each, distinct GPUs (same bus ids on different hosts are fine) */
  gcoo__gpu_slot ok[4] = {slot("n1", "0000:01:00.0", 2, 2), slot("n1", "0000:02:00.0", 2, 2),
                          slot("n2", "0000:01:00.0", 2, 2), slot("n2", "0000:02:00.0", 2, 2)};
  TEST_CALL(gcoo__check_gpu_table(ok, 4, 0, &shared));
  TEST_CHECK(shared == 0, "distinct GPUs are not shared");
  /* srun --gpus-per-task=1: every rank sees one GPU (device 0), all different */
  gcoo__gpu_slot bound[3] = {slot("n1", "0000:01:00.0", 3, 1), slot("n1", "0000:41:00.0", 3, 1),
                             slot("n1", "0000:81:00.0", 3, 1)};
  TEST_CALL(gcoo__check_gpu_table(bound, 3, 0, &shared));
  /* 4 ranks on a node with 2 GPUs: ranks 1 and 3 land on the same one */
  gcoo__gpu_slot over[4] = {slot("n1", "0000:01:00.0", 4, 2), slot("n1", "0000:02:00.0", 4, 2),
                            slot("n1", "0000:01:00.0", 4, 2), slot("n1", "0000:02:00.0", 4, 2)};
  TEST_FAILS(gcoo__check_gpu_table(over, 4, 0, &shared), GCOO_ERR_NO_DEVICE, "ranks 0 and 2");
  const char *msg = gcoo_last_error();
  TEST_CHECK(strstr(msg, "host n1") && strstr(msg, "4 ranks on that host") &&
                 strstr(msg, "2 GPUs visible") && strstr(msg, "--gpus-per-node") &&
                 strstr(msg, "GCOO_ALLOW_SHARED_GPU=1"),
             "the message names the host, the counts and the fixes: %s", msg);
  TEST_CALL(gcoo__check_gpu_table(over, 4, 1, &shared));
  TEST_CHECK(shared == 1, "GCOO_ALLOW_SHARED_GPU=1 marks the run as shared");
}

/* gcoo_dist_create in two steps: no device until gcoo_dist_bind, or until an operator is made
 * (after its read); the backend's name is checked at once; a failed binding leaves the context
 * unbound and freeable. */
static void unbound(int rank, int size) {
  gcoo_dist d = NULL;
  TEST_FAILS(gcoo_dist_create_unbound(&d, MPI_COMM_WORLD, "tpu"), GCOO_ERR_INVALID_ARG,
             "unknown backend");
  TEST_CHECK(d == NULL, "no unbound context after a failure");
  TEST_FAILS(gcoo_dist_bind(NULL), GCOO_ERR_NULL, "context is NULL");
  if (gcoo_cuda_device_count() == 0) {
    MPI_TEST_CALL(gcoo_dist_create_unbound(&d, MPI_COMM_WORLD, "cuda"));
    gcoo_status st = gcoo_dist_bind(d);
    TEST_CHECK(st == GCOO_ERR_NO_DEVICE || st == GCOO_ERR_REMOTE, "bind cuda without GPU: %s",
               gcoo_status_name(st));
    TEST_CHECK(gcoo_dist_ctx(d) == NULL, "a failed binding leaves the context unbound");
    MPI_TEST_CALL(gcoo_dist_destroy(&d));
  }
  MPI_TEST_CALL(gcoo_dist_create_unbound(&d, MPI_COMM_WORLD, "cpu"));
  gcoo_dist_info info;
  MPI_TEST_CALL(gcoo_dist_get_info(d, &info));
  TEST_CHECK(gcoo_dist_ctx(d) == NULL && !info.bound && info.device == -1 && info.rank == rank &&
                 info.size == size && gcoo_dist_comm(d) != MPI_COMM_NULL,
             "unbound: ctx %p bound %d device %d rank %d/%d", (void *)gcoo_dist_ctx(d), info.bound,
             info.device, info.rank, info.size);
  MPI_TEST_CALL(gcoo_dist_agree(d, GCOO_SUCCESS)); /* collectives need no device */
  /* an operator binds the context: a slab of 7-point Poisson 6^3 per rank */
  const int64_t n = 6, m = n * n * n, r0 = m * rank / size, r1 = m * (rank + 1) / size;
  gcoo_sparse slab = NULL;
  MPI_TEST_CALL(gcoo_sparse_poisson3d_rows(&slab, GCOO_FLOAT64, GCOO_FORMAT_CSR, 7, n, r0, r1, 0));
  gcoo_dist_op op = NULL;
  MPI_TEST_CALL(gcoo_dist_op_create(d, slab, r0, m, NULL, &op));
  MPI_TEST_CALL(gcoo_dist_get_info(d, &info));
  TEST_CHECK(gcoo_dist_ctx(d) != NULL && info.bound && info.bind_seconds >= 0.0 &&
                 !strcmp(gcoo_ctx_backend(gcoo_dist_ctx(d)), "cpu"),
             "the operator bound the context (bound %d)", info.bound);
  gcoo_ctx first = gcoo_dist_ctx(d);
  MPI_TEST_CALL(gcoo_dist_bind(d)); /* nothing to do */
  TEST_CHECK(gcoo_dist_ctx(d) == first, "a second binding keeps the context");
  MPI_TEST_CALL(gcoo_dist_op_destroy(&op));
  gcoo_sparse_destroy(&slab);
  MPI_TEST_CALL(gcoo_dist_destroy(&d));
  /* destroyed without ever being bound */
  MPI_TEST_CALL(gcoo_dist_create_unbound(&d, MPI_COMM_WORLD, "cpu"));
  MPI_TEST_CALL(gcoo_dist_destroy(&d));
  TEST_CHECK(d == NULL, "destroy clears the handle");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = mpi_test_rank(), size = mpi_test_size();
  binding_rules();

  gcoo_dist d = NULL;
  TEST_FAILS(gcoo_dist_create(&d, MPI_COMM_WORLD, "cuda:1"), GCOO_ERR_INVALID_ARG,
             "node-local rank");
  TEST_FAILS(gcoo_dist_create(&d, MPI_COMM_WORLD, "tpu"), GCOO_ERR_INVALID_ARG, "unknown backend");
  TEST_CHECK(d == NULL, "no context after a failure");
  if (gcoo_cuda_device_count() == 0) {
    /* asking for GPUs where there are none fails on every rank, saying where */
    gcoo_status st = gcoo_dist_create(&d, MPI_COMM_WORLD, "cuda");
    TEST_CHECK(st == GCOO_ERR_NO_DEVICE || st == GCOO_ERR_REMOTE, "cuda without GPU: %s",
               gcoo_status_name(st));
    TEST_CHECK(strstr(gcoo_last_error(), "sees no CUDA device") != NULL, "message: %s",
               gcoo_last_error());
    /* auto falls back to the CPU on every rank */
    MPI_TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "auto"));
    TEST_CHECK(!strcmp(gcoo_ctx_backend(gcoo_dist_ctx(d)), "cpu"), "auto without GPU: %s",
               gcoo_ctx_backend(gcoo_dist_ctx(d)));
    MPI_TEST_CALL(gcoo_dist_destroy(&d));
  }
  unbound(rank, size);
  TEST_CALL(gcoo_param_set("GCOO_BACKEND", "cpu"));
  MPI_TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, NULL));
  gcoo_dist_info info;
  MPI_TEST_CALL(gcoo_dist_get_info(d, &info));
  MPI_Comm node;
  int lr, ls;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &lr);
  MPI_Comm_size(node, &ls);
  MPI_Comm_free(&node);
  TEST_CHECK(info.rank == rank && info.size == size && info.local_rank == lr &&
                 info.local_size == ls && info.device == -1 && !info.nccl && info.host[0],
             "info: rank %d/%d local %d/%d device %d nccl %d host '%s'", info.rank, info.size,
             info.local_rank, info.local_size, info.device, info.nccl, info.host);
  TEST_CHECK(!strcmp(gcoo_ctx_backend(gcoo_dist_ctx(d)), "cpu"), "GCOO_BACKEND=cpu");
  MPI_TEST_CALL(gcoo_dist_destroy(&d));
  TEST_CHECK(gcoo_dist_rank(NULL) == -1 && gcoo_dist_ctx(NULL) == NULL, "NULL handles");
  return mpi_test_finish("t405-dist-ctx");
}
