/* SPDX-License-Identifier: MIT */
/* tests/mpi/t402-dist-op.c: distributed operators give the single-process result.
 *
 * Every rank builds the same whole matrix (generated, so identical everywhere), takes its slab
 * under several splits (even, skewed group counts, everything on one rank so the others are
 * empty, more ranks than groups), makes a distributed operator and checks its rows of Y against
 * the CPU reference of the whole product: ||Y_slab - Y_ref rows|| / ||Y_ref rows|| <= a few ulps
 * times sqrt(k). Both readings, both X modes (REPLICATED and PARTITIONED, which must also agree
 * with each other), float and double, beta = 0 with NaN-poisoned Y and beta != 0. Then the
 * errors: slabs that do not tile, PARTITIONED on a rectangular matrix, a wrong operand on one
 * rank only: every rank must fail, the others naming the failing rank. */
#include "mpi_test.h"

typedef struct test_case {
  const char *name;
  int kind;     /* 0 random, 1 Poisson 7, 2 Poisson 27 */
  int64_t m, k; /* random: shape; Poisson: m = k = n^3 with n = m */
  double sparsity;
  int32_t p; /* group width of the local operators and of the split */
  int64_t N;
} test_case;

static gcoo_sparse make_matrix(const test_case *c, gcoo_dtype dt, int64_t *m, int64_t *k) {
  gcoo_sparse A = NULL;
  if (c->kind == 0) {
    MPI_TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, c->m, c->k, c->sparsity, 4242, 0));
    *m = c->m, *k = c->k;
  } else {
    int64_t n = c->m;
    MPI_TEST_CALL(gcoo_sparse_poisson3d_rows(&A, dt, GCOO_FORMAT_CSR, c->kind == 1 ? 7 : 27, n, 0,
                                             n * n * n, 0));
    *m = *k = n * n * n;
  }
  return A;
}

/* One distributed product compared with the reference; returns the rank's Y slab (row-major
 * r1-r0 x N, whatever the reading) for cross-mode comparison. */
static gcoo_dense run_case(gcoo_dist d, const test_case *c, gcoo_dtype dt, gcoo_reading reading,
                           gcoo_dist_xmode xmode, int split, double alpha, double beta) {
  int64_t m, k, r0, r1;
  gcoo_sparse A = make_matrix(c, dt, &m, &k);
  const int64_t N = c->N;
  mpi_test_rows(split, m, c->p, &r0, &r1);
  gcoo_sparse Aslab = mpi_test_row_slab(A, r0, r1), slab = NULL;
  if (reading == GCOO_DENSE_SPARSE) {
    MPI_TEST_CALL(gcoo_sparse_transpose(&slab, Aslab)); /* columns [r0, r1) of S = A^T */
    gcoo_sparse_destroy(&Aslab);
  } else {
    slab = Aslab;
  }
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.local.reading = reading;
  o.local.p = c->p;
  o.xmode = xmode;
  gcoo_dist_op op = NULL;
  MPI_TEST_CALL(gcoo_dist_op_create(d, slab, r0, m, &o, &op));
  int64_t q0, qn;
  MPI_TEST_CALL(gcoo_dist_op_get_row_range(op, &q0, &qn));
  TEST_CHECK(q0 == r0 && qn == r1 - r0, "local rows [%lld, +%lld), expected [%lld, %lld)",
             (long long)q0, (long long)qn, (long long)r0, (long long)r1);

  /* X (k x N row-major) is B (N x k column-major): the same buffer read both ways */
  gcoo_dense X, Yinit, Y, Yref;
  MPI_TEST_CALL(gcoo_dense_create(&X, dt, GCOO_ROW_MAJOR, k, N));
  MPI_TEST_CALL(gcoo_dense_fill_random(&X, 77));
  MPI_TEST_CALL(gcoo_dense_create(&Yinit, dt, GCOO_ROW_MAJOR, m, N));
  MPI_TEST_CALL(gcoo_dense_fill_random(&Yinit, 78));
  Yref = gcoo_test_copy(&Yinit);
  MPI_TEST_CALL(gcoo_spdm_reference(alpha, A, &X, beta, &Yref));
  /* the slab of Y: rows r0.. of a row-major m x N (a column slab of C^T...: same bytes) */
  MPI_TEST_CALL(gcoo_dense_create(&Y, dt, GCOO_ROW_MAJOR, r1 - r0, N));
  for (int64_t i = r0; i < r1; i++)
    for (int64_t j = 0; j < N; j++)
      gcoo_dense_set(&Y, i - r0, j, beta == 0.0 ? NAN : gcoo_dense_get(&Yinit, i, j));
  gcoo_dense Xarg = X, Yarg = Y;
  if (xmode == GCOO_DIST_X_PARTITIONED) {
    Xarg.data = (char *)X.data + (size_t)(r0 * N) * gcoo_dtype_size(dt);
    Xarg.nrows = r1 - r0;
    Xarg.owned = 0;
  }
  if (reading == GCOO_DENSE_SPARSE) {
    /* B = X^T (N x k or N x (r1-r0) column-major), C_slab = Y_slab^T (N x (r1-r0)) */
    gcoo_dense Bt = gcoo_dense_wrap(Xarg.data, dt, GCOO_COL_MAJOR, N, Xarg.nrows, N);
    gcoo_dense Ct = gcoo_dense_wrap(Y.data, dt, GCOO_COL_MAJOR, N, r1 - r0, N);
    if (N == 0) Bt.ld = Ct.ld = 1;
    Xarg = Bt;
    Yarg = Ct;
  }
  MPI_TEST_CALL(gcoo_dist_op_apply(op, alpha, &Xarg, beta, &Yarg));
  /* compare the slab with the reference rows */
  gcoo_dense Rs = gcoo_dense_wrap((char *)Yref.data + (size_t)(r0 * N) * gcoo_dtype_size(dt), dt,
                                  GCOO_ROW_MAJOR, r1 - r0, N, N > 0 ? N : 1);
  double err = gcoo_test_relerr(&Y, &Rs),
         tol = gcoo_test_tolerance(dt, 27 + (int64_t)(k * (1 - c->sparsity)));
  TEST_CHECK(err <= tol,
             "%s %s %s %s split %s alpha %g beta %g: rank %d rows [%lld, %lld): "
             "relative error %.3g > %.3g",
             c->name, dt ? "f64" : "f32",
             reading == GCOO_SPARSE_DENSE ? "sparse-dense" : "dense-sparse",
             xmode ? "partitioned" : "replicated", split_names[split], alpha, beta, mpi_test_rank(),
             (long long)r0, (long long)r1, err, tol);

  /* the info adds up over ranks */
  gcoo_dist_op_info info;
  MPI_TEST_CALL(gcoo_dist_op_get_info(op, &info));
  int64_t nnz_sum = 0;
  MPI_Allreduce(&info.nnz_local, &nnz_sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  gcoo_sparse_info ai;
  MPI_TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CHECK(nnz_sum == ai.nnz && info.nnz_global == ai.nnz && info.m_global == m && info.k == k,
             "info: nnz %lld (sum %lld) of %lld, %lld x %lld", (long long)info.nnz_global,
             (long long)nnz_sum, (long long)ai.nnz, (long long)info.m_global, (long long)info.k);
  if (xmode == GCOO_DIST_X_PARTITIONED) {
    int64_t sent = 0, recvd = 0;
    MPI_Allreduce(&info.halo_rows_send, &sent, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&info.halo_rows_recv, &recvd, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    TEST_CHECK(sent == recvd, "halo rows sent %lld != received %lld", (long long)sent,
               (long long)recvd);
    if (mpi_test_size() == 1)
      TEST_CHECK(recvd == 0, "one rank has no halo (%lld)", (long long)recvd);
  }
  /* the local matrix is the slab of A with global columns */
  gcoo_sparse L = NULL, Aref = mpi_test_row_slab(A, r0, r1);
  MPI_TEST_CALL(gcoo_dist_op_get_local_matrix(op, &L));
  gcoo_sparse_info li, ri;
  MPI_TEST_CALL(gcoo_sparse_get_info(L, &li));
  MPI_TEST_CALL(gcoo_sparse_get_info(Aref, &ri));
  TEST_CHECK(li.nrows == ri.nrows && li.ncols == ri.ncols && li.nnz == ri.nnz,
             "local matrix %lld x %lld nnz %lld, expected %lld x %lld nnz %lld",
             (long long)li.nrows, (long long)li.ncols, (long long)li.nnz, (long long)ri.nrows,
             (long long)ri.ncols, (long long)ri.nnz);
  if (li.nnz == ri.nnz && li.nnz > 0) {
    gcoo_sparse_arrays la, ra;
    MPI_TEST_CALL(gcoo_sparse_get_arrays(L, &la));
    MPI_TEST_CALL(gcoo_sparse_get_arrays(Aref, &ra));
    TEST_CHECK(!memcmp(la.ind, ra.ind, sizeof(int32_t) * (size_t)li.nnz) &&
                   !memcmp(la.values, ra.values, gcoo_dtype_size(dt) * (size_t)li.nnz),
               "local matrix entries differ from the slab");
  }
  /* every third row, read from the operator as it is (what --check does) */
  {
    int64_t n3 = (r1 - r0 + 2) / 3, *rows = malloc(sizeof(int64_t) * (size_t)(n3 + 1));
    for (int64_t t = 0; t < n3; t++) rows[t] = r0 + 3 * t;
    gcoo_sparse R = NULL;
    MPI_TEST_CALL(gcoo_dist_op_get_local_rows(op, rows, n3, &R));
    gcoo_sparse_arrays pa, ra;
    MPI_TEST_CALL(gcoo_sparse_get_arrays(R, &pa));
    MPI_TEST_CALL(gcoo_sparse_get_arrays(Aref, &ra));
    for (int64_t t = 0; t < n3; t++) {
      const int64_t i = 3 * t, n = pa.ptr[t + 1] - pa.ptr[t], nref = ra.ptr[i + 1] - ra.ptr[i];
      TEST_CHECK(n == nref && !memcmp(pa.ind + pa.ptr[t], ra.ind + ra.ptr[i], 4 * (size_t)n) &&
                     !memcmp((const char *)pa.values + gcoo_dtype_size(dt) * (size_t)pa.ptr[t],
                             (const char *)ra.values + gcoo_dtype_size(dt) * (size_t)ra.ptr[i],
                             gcoo_dtype_size(dt) * (size_t)n),
                 "local row %lld: %lld entries read from the operator, expected %lld",
                 (long long)(r0 + i), (long long)n, (long long)nref);
    }
    gcoo_sparse_destroy(&R);
    free(rows);
  }
  gcoo_sparse_destroy(&L);
  gcoo_sparse_destroy(&Aref);
  MPI_TEST_CALL(gcoo_dist_op_destroy(&op));
  gcoo_sparse_destroy(&slab);
  gcoo_sparse_destroy(&A);
  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Yinit);
  gcoo_dense_destroy(&Yref);
  return Y;
}

static void check_errors(gcoo_dist d) {
  const int rank = mpi_test_rank(), size = mpi_test_size();
  gcoo_sparse A = NULL, slab = NULL;
  int64_t r0, r1, m = 40;
  MPI_TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, m, 30, 0.8, 5, 0));
  mpi_test_rows(SPLIT_EVEN, m, 4, &r0, &r1);
  slab = mpi_test_row_slab(A, r0, r1);
  gcoo_dist_op op = NULL;
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  /* PARTITIONED on a 40 x 30 matrix: every rank refuses with the same message */
  o.xmode = GCOO_DIST_X_PARTITIONED;
  TEST_FAILS(gcoo_dist_op_create(d, slab, r0, m, &o, &op), GCOO_ERR_SHAPE, "square");
  TEST_CHECK(op == NULL, "no operator after a failure");
  /* slabs that leave a gap: the last rank claims one row too far */
  o.xmode = GCOO_DIST_X_REPLICATED;
  if (size > 1) {
    TEST_FAILS(gcoo_dist_op_create(d, slab, rank == size - 1 ? r0 + 1 : r0, m, &o, &op),
               GCOO_ERR_SHAPE, "tile");
  }
  /* a slab of the wrong width on one rank */
  TEST_FAILS(gcoo_dist_op_create(d, slab, r0, m + 1, &o, &op), GCOO_ERR_SHAPE, "rows");
  /* a wrong X on the last rank only: it fails, the others report it */
  MPI_TEST_CALL(gcoo_dist_op_create(d, slab, r0, m, &o, &op));
  gcoo_dense X, Y;
  MPI_TEST_CALL(gcoo_dense_create(&X, GCOO_FLOAT64, GCOO_ROW_MAJOR, rank == size - 1 ? 29 : 30, 3));
  MPI_TEST_CALL(gcoo_dense_create(&Y, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, 3));
  gcoo_status st = gcoo_dist_op_apply(op, 1.0, &X, 0.0, &Y);
  char want[32];
  snprintf(want, sizeof want, "rank %d:", size - 1);
  if (rank == size - 1)
    TEST_FAILS(st, GCOO_ERR_SHAPE, "X (30 x N");
  else
    TEST_FAILS(st, GCOO_ERR_REMOTE, want);
  gcoo_dense_destroy(&X);
  gcoo_dense_destroy(&Y);
  gcoo_dist_op_destroy(&op);
  gcoo_sparse_destroy(&slab);
  gcoo_sparse_destroy(&A);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  gcoo_dist d = NULL;
  MPI_TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu"));
  const test_case cases[] = {
      {"random 97x97", 0, 97, 97, 0.9, 4, 5},
      {"random 70x45 (rectangular)", 0, 70, 45, 0.85, 8, 3},
      {"random 50x50 with empty rows", 0, 50, 50, 0.985, 4, 4},
      {"random 9x9, 3 groups (ranks > groups)", 0, 9, 9, 0.6, 4, 2},
      {"Poisson 7-point 6^3", 1, 6, 0, 0.0, 8, 6},
      {"Poisson 27-point 5^3", 2, 5, 0, 0.0, 16, 3},
  };
  const int ncases = (int)(sizeof cases / sizeof cases[0]);
  for (int ci = 0; ci < ncases; ci++) {
    const test_case *c = &cases[ci];
    int square = c->kind != 0 || c->m == c->k;
    for (int dt = 0; dt < 2; dt++)
      for (int rd = 0; rd < 2; rd++)
        for (int split = 0; split < SPLIT_COUNT; split++) {
          double alpha = 1.5, beta = split == SPLIT_SKEW ? -0.5 : 0.0;
          gcoo_dense Yr = run_case(d, c, (gcoo_dtype)dt, (gcoo_reading)rd, GCOO_DIST_X_REPLICATED,
                                   split, alpha, beta);
          if (square) {
            gcoo_dense Yp = run_case(d, c, (gcoo_dtype)dt, (gcoo_reading)rd,
                                     GCOO_DIST_X_PARTITIONED, split, alpha, beta);
            double e = gcoo_test_relerr(&Yp, &Yr);
            TEST_CHECK(e <= gcoo_test_tolerance((gcoo_dtype)dt, 64),
                       "%s: partitioned and "
                       "replicated differ by %.3g",
                       c->name, e);
            gcoo_dense_destroy(&Yp);
          }
          gcoo_dense_destroy(&Yr);
        }
  }
  check_errors(d);
  MPI_TEST_CALL(gcoo_dist_destroy(&d));
  return mpi_test_finish("t402-dist-op");
}
