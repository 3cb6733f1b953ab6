/* SPDX-License-Identifier: MIT */
/* tests/mpi/t403-gather.c: gcoo_dist_gather_rows and gcoo_dist_allreduce_sum on host buffers.
 * Row slabs (row-major) and column slabs (column-major, the paper's C = B S partition), to the
 * first rank, to the last and to all, with uneven and empty slabs and strided buffers (ld past
 * the width). Every element of the result is checked exactly (gathers move bits); the parts of a
 * strided output outside the matrix must stay untouched. Then the errors, seen on every rank. */
#include "mpi_test.h"

/* element (i, j) of the global matrix, exact in float */
static double value(int64_t i, int64_t j) { return (double)(i * 1000 + j) + 0.25; }

static void run(gcoo_dtype dt, gcoo_layout lay, int split, int root, int64_t m, int64_t w,
                int64_t pad) {
  const int rank = mpi_test_rank();
  int64_t r0, r1;
  mpi_test_rows(split, m, 3, &r0, &r1);
  const int64_t n = r1 - r0;
  /* the slab: n "rows" of width w (column-major: w x n, a column slab) */
  const int rowmajor = lay == GCOO_ROW_MAJOR;
  const int64_t sld = (rowmajor ? w : w) + pad; /* ld over the width dimension */
  size_t es = gcoo_dtype_size(dt);
  void *sbuf = calloc((size_t)(n > 0 ? n : 1) * (size_t)sld, es);
  gcoo_dense S = rowmajor ? gcoo_dense_wrap(sbuf, dt, lay, n, w, sld)
                          : gcoo_dense_wrap(sbuf, dt, lay, w, n, sld);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < w; j++) {
      if (rowmajor)
        gcoo_dense_set(&S, i, j, value(r0 + i, j));
      else
        gcoo_dense_set(&S, j, i, value(r0 + i, j));
    }
  const int recv = root < 0 || root == rank;
  const int64_t fld = w + 2 * pad;
  void *fbuf = NULL;
  gcoo_dense F, *Fp = NULL;
  if (recv) {
    fbuf = malloc((size_t)(m > 0 ? m : 1) * (size_t)fld * es);
    for (int64_t t = 0; t < m * fld; t++) {
      if (dt == GCOO_FLOAT64)
        ((double *)fbuf)[t] = -7.0;
      else
        ((float *)fbuf)[t] = -7.0f;
    }
    F = rowmajor ? gcoo_dense_wrap(fbuf, dt, lay, m, w, fld)
                 : gcoo_dense_wrap(fbuf, dt, lay, w, m, fld);
    Fp = &F;
  }
  MPI_TEST_CALL(gcoo_dist_gather_rows(gcoo_test_dist, &S, root, Fp));
  if (recv) {
    int bad = 0;
    for (int64_t i = 0; i < m && !bad; i++)
      for (int64_t j = 0; j < fld && !bad; j++) {
        double got = dt == GCOO_FLOAT64 ? ((double *)fbuf)[i * fld + j]
                                        : ((float *)fbuf)[i * fld + j];
        double want = j < w ? value(i, j) : -7.0;
        if (got != want) {
          bad = 1;
          TEST_CHECK(got == want,
                     "%s %s split %s root %d m %lld w %lld pad %lld: element %lld,%lld "
                     "(slab row, col) is %g, expected %g",
                     dt ? "f64" : "f32", rowmajor ? "row slabs" : "column slabs",
                     split_names[split], root, (long long)m, (long long)w, (long long)pad,
                     (long long)i, (long long)j, got, want);
        }
      }
  }
  free(sbuf);
  free(fbuf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = mpi_test_rank(), size = mpi_test_size();
  MPI_TEST_CALL(gcoo_dist_create(&gcoo_test_dist, MPI_COMM_WORLD, "cpu"));
  const int roots[3] = {0, size - 1, -1};
  for (int dt = 0; dt < 2; dt++)
    for (int lay = 0; lay < 2; lay++)
      for (int split = 0; split < SPLIT_COUNT; split++)
        for (int ri = 0; ri < 3; ri++) {
          run((gcoo_dtype)dt, (gcoo_layout)lay, split, roots[ri], 23, 5, 0);
          run((gcoo_dtype)dt, (gcoo_layout)lay, split, roots[ri], 23, 4, 3);
          run((gcoo_dtype)dt, (gcoo_layout)lay, split, roots[ri], 2, 3, 1); /* ranks > rows */
          run((gcoo_dtype)dt, (gcoo_layout)lay, split, roots[ri], 0, 3, 0); /* nothing at all */
        }
  /* equal slabs to all (the ncclAllGather case on GPUs) */
  run(GCOO_FLOAT64, GCOO_ROW_MAJOR, SPLIT_EVEN, -1, 3 * size * 4, 6, 0);

  /* errors: every rank fails, and the message names what is wrong */
  double sb[8] = {0}, fb[64];
  gcoo_dense S = gcoo_dense_wrap(sb, GCOO_FLOAT64, GCOO_ROW_MAJOR, 1, rank == size - 1 ? 3 : 4, 4);
  gcoo_dense F = gcoo_dense_wrap(fb, GCOO_FLOAT64, GCOO_ROW_MAJOR, size, 4, 4);
  gcoo_status st = gcoo_dist_gather_rows(gcoo_test_dist, &S, 0, rank == 0 ? &F : NULL);
  if (size > 1) TEST_FAILS(st, GCOO_ERR_SHAPE, "wide");
  S.ncols = 4;
  gcoo_dense F2 = gcoo_dense_wrap(fb, GCOO_FLOAT64, GCOO_ROW_MAJOR, size + 1, 4, 4);
  TEST_FAILS(gcoo_dist_gather_rows(gcoo_test_dist, &S, -1, &F2), GCOO_ERR_SHAPE, "Y_full");
  TEST_FAILS(gcoo_dist_gather_rows(gcoo_test_dist, &S, size, &F), GCOO_ERR_INVALID_ARG, "root");
  st = gcoo_dist_gather_rows(gcoo_test_dist, &S, 0, NULL);
  if (rank == 0)
    TEST_FAILS(st, GCOO_ERR_NULL, "Y_full is NULL on receiving rank 0");
  else
    TEST_FAILS(st, GCOO_ERR_REMOTE, "rank 0: ");
  gcoo_dense Sf = gcoo_dense_wrap(sb, GCOO_FLOAT32, GCOO_ROW_MAJOR, 1, 4, 4);
  st = gcoo_dist_gather_rows(gcoo_test_dist, rank == size - 1 ? &Sf : &S, 0, rank == 0 ? &F : NULL);
  if (size > 1) TEST_FAILS(st, GCOO_ERR_DTYPE, "element type");

  /* sums over ranks */
  for (int dt = 0; dt < 2; dt++) {
    double vd[5];
    float vf[5];
    for (int i = 0; i < 5; i++) vd[i] = vf[i] = (float)(rank + 1) * (float)(i + 1);
    MPI_TEST_CALL(gcoo_dist_allreduce_sum(gcoo_test_dist, (gcoo_dtype)dt,
                                          dt ? (void *)vd : (void *)vf, 5, GCOO_MEM_HOST));
    for (int i = 0; i < 5; i++) {
      double want = (double)size * (size + 1) / 2 * (i + 1);
      double got = dt ? vd[i] : vf[i];
      TEST_CHECK(got == want, "allreduce %s [%d] = %g, expected %g", dt ? "f64" : "f32", i, got,
                 want);
    }
  }
  TEST_FAILS(gcoo_dist_allreduce_sum(gcoo_test_dist, GCOO_FLOAT64, NULL, 3, GCOO_MEM_HOST),
             GCOO_ERR_NULL, "NULL");
  MPI_TEST_CALL(gcoo_dist_allreduce_sum(gcoo_test_dist, GCOO_FLOAT64, NULL, 0, GCOO_MEM_HOST));
  MPI_TEST_CALL(gcoo_dist_destroy(&gcoo_test_dist));
  return mpi_test_finish("t403-gather");
}
