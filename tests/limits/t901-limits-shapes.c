/* SPDX-License-Identifier: MIT */
/* tests/limits/t901-limits-shapes.c: dimensions at and past 2^31 (gcoo/types.h: indices are int32,
 * larger dimensions are refused with GCOO_ERR_TOO_LARGE, never wrapped).
 * At the limit, built cheaply: 2^31 - 1 x 2^31 - 1 matrices with a handful of entries, in the
 * formats whose size does not grow with the shape (COO; GCOO with wide groups), created from
 * unsorted entries, validated, converted, transposed, all within seconds and without allocating
 * anything proportional to the shape. Past the limit: every constructor, the generator, the
 * dense-to-sparse conversion and the Matrix Market reader refuse 2^31, 2^32 + 1 and 2^63 - 1 with
 * the number in the message (2^32 + 1 would wrap to 1 as an int32). */
#include "limits_util.h"

/* Five entries at the corners of the largest matrix, in no order. */
static const int32_t crow[] = {INT32_MAX - 1, 0, INT32_MAX - 1, 0, 12345};
static const int32_t ccol[] = {INT32_MAX - 1, INT32_MAX - 1, 0, 0, 678};
static const double cval[] = {1.0, 2.0, 3.0, 4.0, 5.0};
/* the same in (row, column) order */
static const int32_t srow[] = {0, 0, 12345, INT32_MAX - 1, INT32_MAX - 1};
static const int32_t scol[] = {0, INT32_MAX - 1, 678, 0, INT32_MAX - 1};
static const double sval[] = {4.0, 2.0, 5.0, 3.0, 1.0};

static void check_coo(gcoo_sparse A, int64_t nrows, int64_t ncols, const int32_t *r,
                      const int32_t *c, const double *v, int64_t n, const char *what) {
  gcoo_sparse_info info;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &info));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  TEST_CHECK(info.nrows == nrows && info.ncols == ncols && info.nnz == n,
             "%s: %lld x %lld nnz %lld, expected %lld x %lld nnz %lld", what, (long long)info.nrows,
             (long long)info.ncols, (long long)info.nnz, (long long)nrows, (long long)ncols,
             (long long)n);
  if (info.nnz != n) return;
  for (int64_t k = 0; k < n; k++)
    TEST_CHECK(a.rows[k] == r[k] && a.cols[k] == c[k] && ((const double *)a.values)[k] == v[k],
               "%s: entry %lld is (%d, %d) = %g, expected (%d, %d) = %g", what, (long long)k,
               a.rows[k], a.cols[k], ((const double *)a.values)[k], r[k], c[k], v[k]);
}

static void at_the_limit(void) {
  gcoo_sparse A = NULL, G = NULL, G1 = NULL, T = NULL, TT = NULL, B = NULL, C = NULL;
  double t0 = lim_now();
  /* unsorted entries: sorting must not allocate counters for 2^31 rows and columns */
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, LIM_DIM, LIM_DIM, 5, crow, ccol, cval,
                                   GCOO_DUPLICATES_ERROR));
  TEST_CALL(gcoo_sparse_validate(A, GCOO_DUPLICATES_ERROR));
  check_coo(A, LIM_DIM, LIM_DIM, srow, scol, sval, 5, "COO 2^31-1 x 2^31-1");

  /* GCOO with p = 2^30: two groups, the second one narrower (2^30 - 1 columns) */
  TEST_CALL(gcoo_sparse_convert(&G, A, GCOO_FORMAT_GCOO, 1 << 30));
  TEST_CALL(gcoo_sparse_validate(G, GCOO_DUPLICATES_ERROR));
  gcoo_sparse_info gi;
  gcoo_sparse_arrays ga;
  TEST_CALL(gcoo_sparse_get_info(G, &gi));
  TEST_CALL(gcoo_sparse_get_arrays(G, &ga));
  TEST_CHECK(gi.ngroups == 2 && ga.gidx[0] == 0 && ga.gidx[1] == 3 && ga.gidx[2] == 5 &&
                 ga.gnnz[0] == 3 && ga.gnnz[1] == 2,
             "GCOO p = 2^30: %lld groups, gIdxes %lld %lld %lld", (long long)gi.ngroups,
             (long long)ga.gidx[0], (long long)ga.gidx[1], (long long)ga.gidx[2]);
  /* created from its own arrays (the strict GCOO constructor) */
  TEST_CALL(gcoo_sparse_create_gcoo(&B, GCOO_FLOAT64, LIM_DIM, LIM_DIM, 1 << 30, ga.gidx, ga.rows,
                                    ga.cols, ga.values, GCOO_DUPLICATES_ERROR));
  TEST_CHECK(ut_check_same(B, G, "GCOO recreated at 2^31 - 1") == 0, "GCOO recreated differs");
  /* p = 2^31 - 1: one group spanning every column ((ncols + p - 1) / p in 64 bits) */
  TEST_CALL(gcoo_sparse_convert(&G1, A, GCOO_FORMAT_GCOO, INT32_MAX));
  TEST_CALL(gcoo_sparse_get_info(G1, &gi));
  TEST_CHECK(gi.ngroups == 1 && gi.p == INT32_MAX, "p = 2^31 - 1 gives %lld groups",
             (long long)gi.ngroups);
  TEST_CALL(gcoo_sparse_validate(G1, GCOO_DUPLICATES_ERROR));
  /* back to COO, and transposes (COO and GCOO, which re-sort along 2^31 - 1 keys) */
  TEST_CALL(gcoo_sparse_convert(&C, G, GCOO_FORMAT_COO, 0));
  TEST_CHECK(ut_check_same(C, A, "GCOO -> COO at 2^31 - 1") == 0, "GCOO -> COO differs");
  TEST_CALL(gcoo_sparse_transpose(&T, A));
  TEST_CALL(gcoo_sparse_validate(T, GCOO_DUPLICATES_ERROR));
  TEST_CALL(gcoo_sparse_transpose(&TT, T));
  TEST_CHECK(ut_check_same(TT, A, "double transpose at 2^31 - 1") == 0, "A^T^T differs");
  gcoo_sparse_destroy(&T);
  gcoo_sparse_destroy(&TT);
  TEST_CALL(gcoo_sparse_transpose(&T, G));
  TEST_CALL(gcoo_sparse_validate(T, GCOO_DUPLICATES_ERROR));
  TEST_CALL(gcoo_sparse_transpose(&TT, T));
  TEST_CHECK(ut_check_same(TT, G, "GCOO double transpose at 2^31 - 1") == 0, "G^T^T differs");
  double dt = lim_now() - t0;
  /* counting sorts over 2^31 keys would take 16 GiB of counters and several seconds each */
  TEST_CHECK(dt < 2.0, "operations on a 5-entry 2^31 - 1 matrix took %.2f s", dt);
  printf("2^31 - 1 x 2^31 - 1, 5 entries: COO, GCOO (p = 2^30, 2^31 - 1), transposes in %.3f s\n",
         dt);

  /* duplicates in a hypersparse shape are found (and summed) by the pair sort too */
  int32_t dr[] = {7, INT32_MAX - 1, 7}, dc[] = {INT32_MAX - 1, 3, INT32_MAX - 1};
  double dv[] = {1.0, 2.0, 0.5};
  gcoo_sparse D = NULL;
  TEST_FAILS(gcoo_sparse_create_coo(&D, GCOO_FLOAT64, LIM_DIM, LIM_DIM, 3, dr, dc, dv,
                                    GCOO_DUPLICATES_ERROR),
             GCOO_ERR_DUPLICATE, "entry (7, 2147483646) appears more than once");
  TEST_CALL(gcoo_sparse_create_coo(&D, GCOO_FLOAT64, LIM_DIM, LIM_DIM, 3, dr, dc, dv, 0));
  const int32_t er[] = {7, INT32_MAX - 1}, ec[] = {INT32_MAX - 1, 3};
  const double ev[] = {1.5, 2.0};
  check_coo(D, LIM_DIM, LIM_DIM, er, ec, ev, 2, "duplicates summed at 2^31 - 1");
  /* an index at 2^31 - 1 is outside a 2^31 - 1 matrix */
  int32_t bad[] = {INT32_MAX};
  int32_t zero[] = {0};
  gcoo_sparse E = NULL;
  TEST_FAILS(gcoo_sparse_create_coo(&E, GCOO_FLOAT64, LIM_DIM, LIM_DIM, 1, bad, zero, NULL, 0),
             GCOO_ERR_INDEX_RANGE, "row 2147483647 outside 0..2147483646");
  gcoo_sparse_destroy(&D);
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&G);
  gcoo_sparse_destroy(&G1);
  gcoo_sparse_destroy(&B);
  gcoo_sparse_destroy(&C);
  gcoo_sparse_destroy(&T);
  gcoo_sparse_destroy(&TT);
}

/* A dimension past int32 is refused by every way in, with its value in the message. */
static void past_the_limit(void) {
  static const int64_t past[] = {LIM_PAST, ((int64_t)1 << 32) + 1, INT64_MAX};
  static const char *shown[] = {"2147483648", "4294967297", "9223372036854775807"};
  int64_t ptr[2] = {0, 0}; /* never read: the shape is refused first */
  int32_t ind[1] = {0};
  gcoo_sparse A = NULL;
  for (int i = 0; i < 3; i++) {
    int64_t n = past[i];
    TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, n, 1, 0, NULL, NULL, NULL, 0),
               GCOO_ERR_TOO_LARGE, shown[i]);
    TEST_CHECK(A == NULL, "a refused matrix was returned");
    TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT32, 1, n, 0, NULL, NULL, NULL, 0),
               GCOO_ERR_TOO_LARGE, "columns");
    TEST_FAILS(gcoo_sparse_create_csr(&A, GCOO_FLOAT64, n, 1, ptr, ind, NULL, 0),
               GCOO_ERR_TOO_LARGE, shown[i]);
    TEST_FAILS(gcoo_sparse_create_csc(&A, GCOO_FLOAT64, 1, n, ptr, ind, NULL, 0),
               GCOO_ERR_TOO_LARGE, shown[i]);
    TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 1, n, INT32_MAX, ptr, ind, ind, NULL, 0),
               GCOO_ERR_TOO_LARGE, shown[i]);
    TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, n, 1, 1, ptr, ind, ind, NULL, 0),
               GCOO_ERR_TOO_LARGE, shown[i]);
    TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_COO, n, 10, 1.0, 1, 0),
               GCOO_ERR_TOO_LARGE, shown[i]);
    TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_GCOO, 10, n, 1.0, 1, 4),
               GCOO_ERR_TOO_LARGE, shown[i]);
    /* an empty dense matrix may have any shape; as a sparse matrix it must fit int32 */
    gcoo_dense D0 = gcoo_dense_wrap(NULL, GCOO_FLOAT64, GCOO_ROW_MAJOR, 0, n, 0);
    TEST_CALL(gcoo_dense_check(&D0));
    TEST_FAILS(gcoo_sparse_from_dense(&A, &D0, GCOO_FORMAT_CSR, 0, 0), GCOO_ERR_TOO_LARGE,
               shown[i]);
  }
  /* negative sizes are invalid arguments, not "too large" */
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, -1, 1, 0, NULL, NULL, NULL, 0),
             GCOO_ERR_INVALID_ARG, "negative");
  TEST_FAILS(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_COO, 1, INT64_MIN, 1.0, 1, 0),
             GCOO_ERR_INVALID_ARG, "negative");
  /* GCOO group widths at the top of int32 */
  int64_t g1[2] = {0, 0};
  TEST_CALL(
      gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 1, LIM_DIM, INT32_MAX, g1, ind, ind, NULL, 0));
  gcoo_sparse_destroy(&A);
}

/* Matrix Market size lines past the limits: refused at once, the number quoted unwrapped. */
static void mtx_headers(void) {
  const char *B = "%%MatrixMarket matrix coordinate real general\n";
  char text[512];
  gcoo_sparse A = NULL;
  gcoo_dense D = {0};
  gcoo_mtx_header h;
  snprintf(text, sizeof text, "%s2147483648 1 0\n", B);
  TEST_FAILS(gcoo_mtx_read(lim_file("rows.mtx", text, -1), GCOO_FLOAT64, 0, &A), GCOO_ERR_TOO_LARGE,
             "rows = 2147483648 does not fit a 32-bit index");
  snprintf(text, sizeof text, "%s1 4294967297 0\n", B);
  TEST_FAILS(gcoo_mtx_read_header(lim_file("cols.mtx", text, -1), &h), GCOO_ERR_TOO_LARGE,
             "columns = 4294967297");
  snprintf(text, sizeof text, "%s1 99999999999999999999 0\n", B);
  TEST_FAILS(gcoo_mtx_read(lim_file("cols64.mtx", text, -1), GCOO_FLOAT64, 0, &A), GCOO_ERR_FORMAT,
             "past 64 bits");
  /* the largest shape is a valid header */
  snprintf(text, sizeof text, "%s2147483647 2147483647 0\n", B);
  TEST_CALL(gcoo_mtx_read_header(lim_file("max.mtx", text, -1), &h));
  TEST_CHECK(h.nrows == LIM_DIM && h.ncols == LIM_DIM && h.nstored == 0,
             "header %lld x %lld, %lld stored", (long long)h.nrows, (long long)h.ncols,
             (long long)h.nstored);
  /* 9 * 10^12 announced entries in a two-line file: truncated, found without allocating */
  snprintf(text, sizeof text, "%s2000000000 2000000000 9000000000000\n1 1 1\n", B);
  LIM_WITHIN(1.0, TEST_FAILS(gcoo_mtx_read(lim_file("count.mtx", text, -1), GCOO_FLOAT64, 0, &A),
                             GCOO_ERR_FORMAT, "expected 9000000000000 entries, found 1"));
  snprintf(text, sizeof text, "%s3 3 3000000000\n1 1 1\n", B);
  LIM_WITHIN(1.0, TEST_FAILS(gcoo_mtx_read(lim_file("count2.mtx", text, -1), GCOO_FLOAT32,
                                           GCOO_DUPLICATES_ERROR, &A),
                             GCOO_ERR_FORMAT, "expected 3000000000 entries, found 1"));
  /* array files: the value count is rows x columns, past 2^31 and past 2^62 */
  const char *AB = "%%MatrixMarket matrix array real general\n";
  snprintf(text, sizeof text, "%s50000 50000\n1\n2\n", AB);
  LIM_WITHIN(1.0, TEST_FAILS(gcoo_mtx_read_dense(lim_file("arr.mtx", text, -1), GCOO_FLOAT64,
                                                 GCOO_ROW_MAJOR, &D),
                             GCOO_ERR_FORMAT, "50000 x 50000 = 2500000000 values"));
  snprintf(text, sizeof text, "%s2147483647 2147483647\n1\n", AB);
  LIM_WITHIN(1.0, TEST_FAILS(gcoo_mtx_read_dense(lim_file("arr2.mtx", text, -1), GCOO_FLOAT32,
                                                 GCOO_COL_MAJOR, &D),
                             GCOO_ERR_FORMAT, "= 4611686014132420609 values"));
  TEST_CHECK(D.data == NULL, "a refused dense read returned data");
  TEST_CHECK(A == NULL, "a refused read returned a matrix");
}

int main(void) {
  at_the_limit();
  past_the_limit();
  mtx_headers();
  ut_tmpdir_remove();
  return gcoo_test_finish("t901-limits-shapes");
}
