/* SPDX-License-Identifier: MIT */
/* tests/mpi/t413-apply-gather.c: gcoo_dist_pipeline_apply_gather (the product gathered while it
 * is computed, dist/gather_overlap.c) on host buffers, against the CPU reference of the whole
 * product: random and 27-point matrices, float and double, even, skewed and one-rank slabs,
 * 1, 2, 3, 7 and more blocks than rows, root first and last, and the plain-path cases (every
 * rank, a strided Y_full). Y_full is poisoned (NaN) before every call; the result must match
 * the reference within ||Y - Y_ref|| / ||Y_ref|| <= the float/double bound of the inner
 * product length. Where the blocked path must run, the root's Y_slab is also poisoned and must
 * stay so (the root computes its rows in place in Y_full): a silent fall-back to the plain path
 * fails the test. Then the errors, seen on every rank. */
#include "mpi_test.h"

typedef struct {
  const char *name;
  int stencil; /* 0: random m x k; 27: 27-point Poisson on an m^3 grid */
  int64_t m, k;
  double sparsity;
  int64_t N;
} test_case;

static gcoo_sparse make_matrix(const test_case *c, gcoo_dtype dt, int64_t *m, int64_t *k) {
  gcoo_sparse A = NULL;
  if (!c->stencil) {
    MPI_TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, c->m, c->k, c->sparsity, 4243, 0));
    *m = c->m, *k = c->k;
  } else {
    const int64_t n = c->m;
    MPI_TEST_CALL(
        gcoo_sparse_poisson3d_rows(&A, dt, GCOO_FORMAT_CSR, c->stencil, n, 0, n * n * n, 0));
    *m = *k = n * n * n;
  }
  return A;
}

static void poison(gcoo_dense *D) {
  const int64_t n = D->nrows * D->ld;
  for (int64_t t = 0; t < n; t++) {
    if (D->dtype == GCOO_FLOAT64)
      ((double *)D->data)[t] = NAN;
    else
      ((float *)D->data)[t] = NAN;
  }
}

static void run(const test_case *c, gcoo_dtype dt, int split, int nblocks, int root, int64_t pad) {
  const int rank = mpi_test_rank();
  int64_t m, k, r0, r1;
  gcoo_sparse A = make_matrix(c, dt, &m, &k);
  const int64_t N = c->N;
  mpi_test_rows(split, m, 4, &r0, &r1);
  gcoo_sparse slab = mpi_test_row_slab(A, r0, r1);
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.local.p = 4;
  gcoo_dist_op op = NULL;
  gcoo_dist_pipeline pl = NULL;
  MPI_TEST_CALL(gcoo_dist_op_create(gcoo_test_dist, slab, r0, m, &o, &op));
  MPI_TEST_CALL(gcoo_dist_pipeline_create(op, nblocks, &pl));

  gcoo_dense X, Yref, Ys, F;
  MPI_TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, k, N));
  MPI_TEST_CALL(gcoo_dense_fill_random(&X, 91));
  MPI_TEST_CALL(gcoo_dense_create(&Yref, dt, GCOO_ROW_MAJOR, m, N));
  const double alpha = 1.5;
  MPI_TEST_CALL(gcoo_spdm_reference(alpha, A, &X, 0.0, &Yref));
  MPI_TEST_CALL(gcoo_dense_create(&Ys, dt, GCOO_ROW_MAJOR, r1 - r0, N));
  poison(&Ys);
  const int recv = root < 0 || root == rank;
  void *fbuf = NULL;
  if (recv) {
    fbuf = malloc((size_t)(m > 0 ? m : 1) * (size_t)(N + pad) * gcoo_dtype_size(dt));
    F = gcoo_dense_wrap(fbuf, dt, GCOO_ROW_MAJOR, m, N, N + pad);
    poison(&F);
  }
  MPI_TEST_CALL(gcoo_dist_pipeline_apply_gather(pl, alpha, &X, &Ys, root, recv ? &F : NULL));
  if (recv) {
    gcoo_dense Fv = F;
    double err = gcoo_test_relerr(&Fv, &Yref),
           tol = gcoo_test_tolerance(dt, 27 + (int64_t)((double)k * (1 - c->sparsity)));
    TEST_CHECK(err <= tol,
               "%s %s split %s nblocks %d root %d pad %lld: rank %d: relative error %.3g > %.3g",
               c->name, dt ? "f64" : "f32", split_names[split], nblocks, root, (long long)pad, rank,
               err, tol);
  }
  /* the blocked path runs for a gather to one rank of contiguous rows in more than one block:
   * then the root's own rows go straight into Y_full and its Y_slab is never written */
  const int blocked = nblocks > 1 && root >= 0 && pad == 0;
  if (blocked && rank == root && r1 > r0) {
    const double v = gcoo_dense_get(&Ys, 0, 0);
    TEST_CHECK(N == 0 || isnan(v),
               "%s nblocks %d root %d: the root's Y_slab was written (%g): the plain path ran "
               "where the blocked one should",
               c->name, nblocks, root, v);
  }
  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Yref);
  gcoo_dense_destroy(&Ys);
  free(fbuf);
  MPI_TEST_CALL(gcoo_dist_pipeline_destroy(&pl));
  MPI_TEST_CALL(gcoo_dist_op_destroy(&op));
  gcoo_sparse_destroy(&slab);
  gcoo_sparse_destroy(&A);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int size = mpi_test_size();
  MPI_TEST_CALL(gcoo_dist_create(&gcoo_test_dist, MPI_COMM_WORLD, "cpu"));
  const test_case cases[] = {{"random 97 x 53", 0, 97, 53, 0.9, 7},
                             {"27-point 5^3", 27, 5, 0, 0.0, 3},
                             {"random 40 x 40, N = 1", 0, 40, 40, 0.8, 1}};
  const int blocks[] = {1, 2, 3, 7, 200};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
    for (int dt = 0; dt < 2; dt++)
      for (int split = 0; split < SPLIT_COUNT; split++)
        for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
          run(&cases[ci], (gcoo_dtype)dt, split, blocks[bi], 0, 0);
          run(&cases[ci], (gcoo_dtype)dt, split, blocks[bi], size - 1, 0);
        }
  /* the plain path: every rank receives; a strided Y_full */
  for (int dt = 0; dt < 2; dt++) {
    run(&cases[0], (gcoo_dtype)dt, SPLIT_SKEW, 3, -1, 0);
    run(&cases[0], (gcoo_dtype)dt, SPLIT_EVEN, 3, 0, 2);
  }

  /* errors, the same on every rank */
  {
    int64_t r0, r1;
    gcoo_sparse A = NULL;
    MPI_TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 20, 20, 0.8, 5, 0));
    mpi_test_rows(SPLIT_EVEN, 20, 4, &r0, &r1);
    gcoo_sparse slab = mpi_test_row_slab(A, r0, r1);
    gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
    gcoo_dist_op op = NULL;
    gcoo_dist_pipeline pl = NULL;
    MPI_TEST_CALL(gcoo_dist_op_create(gcoo_test_dist, slab, r0, 20, &o, &op));
    TEST_FAILS(gcoo_dist_pipeline_create(op, 0, &pl), GCOO_ERR_INVALID_ARG, "nblocks");
    TEST_CHECK(pl == NULL, "a failed create left a pipeline");
    MPI_TEST_CALL(gcoo_dist_pipeline_create(op, 2, &pl));
    gcoo_dense X, Ys, F;
    MPI_TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT32, GCOO_ROW_MAJOR, 20, 2));
    MPI_TEST_CALL(gcoo_dense_create(&Ys, GCOO_FLOAT32, GCOO_ROW_MAJOR, r1 - r0, 2));
    MPI_TEST_CALL(gcoo_dense_create(&F, GCOO_FLOAT32, GCOO_ROW_MAJOR, 20, 2));
    TEST_FAILS(gcoo_dist_pipeline_apply_gather(pl, 1.0, &X, &Ys, size, &F), GCOO_ERR_INVALID_ARG,
               "root");
    gcoo_status st = gcoo_dist_pipeline_apply_gather(pl, 1.0, &X, &Ys, 0,
                                                     mpi_test_rank() == 0 ? NULL : &F);
    TEST_CHECK(st < 0, "Y_full NULL on the root was accepted");
    MPI_TEST_CALL(gcoo_dist_pipeline_destroy(&pl));
    TEST_CHECK(pl == NULL, "destroy did not reset the handle");
    gcoo_dense_destroy(&X);
    gcoo_dense_destroy(&Ys);
    gcoo_dense_destroy(&F);
    MPI_TEST_CALL(gcoo_dist_op_destroy(&op));
    gcoo_sparse_destroy(&slab);
    gcoo_sparse_destroy(&A);
  }
  MPI_TEST_CALL(gcoo_dist_destroy(&gcoo_test_dist));
  return mpi_test_finish("t413-apply-gather");
}
