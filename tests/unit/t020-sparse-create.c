/* SPDX-License-Identifier: MIT */
/* tests/unit/t020-sparse-create.c: creating COO, CSR, CSC and GCOO from caller arrays: what is
 * accepted (any order, duplicates summed, pattern), every refusal (status and message), info and
 * arrays, validation of objects (and of objects corrupted behind gcoo's back), bad handles. */
#include <math.h>
#include <string.h>

#include "backend_impl.h" /* GCOO_MAGIC_FREED */
#include "unit_util.h"

/* The 3 x 4 matrix used throughout:
 *   [ 1 0 2 0 ]
 *   [ 0 0 0 3 ]
 *   [ 4 5 0 6 ]                                                                               */
static const int32_t R[] = {0, 0, 1, 2, 2, 2};
static const int32_t C[] = {0, 2, 3, 0, 1, 3};
static const double V[] = {1, 2, 3, 4, 5, 6};
static const int64_t RP[] = {0, 2, 3, 6};    /* CSR */
static const int64_t CP[] = {0, 2, 3, 4, 6}; /* CSC */
static const int32_t RI[] = {0, 2, 2, 0, 1, 2};
static const double CV[] = {1, 4, 5, 2, 3, 6};
/* GCOO p = 2: group 0 = columns 0-1, group 1 = columns 2-3 */
static const int64_t GI[] = {0, 3, 6};
static const int32_t GR[] = {0, 2, 2, 0, 1, 2};
static const int32_t GC[] = {0, 0, 1, 2, 3, 3};
static const double GV[] = {1, 4, 5, 2, 3, 6};

static gcoo_dense reference_dense(gcoo_dtype dtype) {
  gcoo_dense D;
  TEST_CALL(gcoo_dense_create(&D, dtype, GCOO_ROW_MAJOR, 3, 4));
  for (int k = 0; k < 6; k++) gcoo_dense_set(&D, R[k], C[k], V[k]);
  return D;
}

/* Every way in gives the same matrix, with the arrays the format defines. */
static void check_valid(gcoo_dtype dtype) {
  float Vf[6], CVf[6], GVf[6];
  for (int k = 0; k < 6; k++) Vf[k] = (float)V[k], CVf[k] = (float)CV[k], GVf[k] = (float)GV[k];
  const void *v = dtype == GCOO_FLOAT64 ? (const void *)V : (const void *)Vf;
  const void *cv = dtype == GCOO_FLOAT64 ? (const void *)CV : (const void *)CVf;
  const void *gv = dtype == GCOO_FLOAT64 ? (const void *)GV : (const void *)GVf;
  gcoo_dense D = reference_dense(dtype);
  gcoo_sparse A[4] = {NULL, NULL, NULL, NULL};
  TEST_CALL(gcoo_sparse_create_coo(&A[0], dtype, 3, 4, 6, R, C, v,
                                   GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE));
  TEST_CALL(gcoo_sparse_create_csr(&A[1], dtype, 3, 4, RP, C, v, GCOO_DUPLICATES_ERROR));
  TEST_CALL(gcoo_sparse_create_csc(&A[2], dtype, 3, 4, CP, RI, cv, GCOO_DUPLICATES_ERROR));
  TEST_CALL(gcoo_sparse_create_gcoo(&A[3], dtype, 3, 4, 2, GI, GR, GC, gv, GCOO_DUPLICATES_ERROR));
  for (int f = 0; f < 4; f++) {
    ut_expect e = ut_expect_from_dense(&D, (gcoo_format)f, 2);
    ut_check_arrays(A[f], &e, "created from arrays");
    ut_expect_free(&e);
    TEST_CALL(gcoo_sparse_validate(A[f], GCOO_REQUIRE_FINITE | GCOO_DUPLICATES_ERROR));
    gcoo_sparse_info info;
    TEST_CALL(gcoo_sparse_get_info(A[f], &info));
    TEST_CHECK(info.p == (f == 3 ? 2 : 0) && info.ngroups == (f == 3 ? 2 : 0), "p / ngroups");
    gcoo_sparse_destroy(&A[f]);
    TEST_CHECK(A[f] == NULL, "destroy did not reset the handle");
  }
  gcoo_dense_destroy(&D);
}

/* Unordered input is sorted; duplicates are summed; pattern (values NULL) means ones. */
static void check_order_duplicates(void) {
  /* COO in reverse order with (2, 3) three times: 6 = 1 + 2 + 3 */
  int32_t r[] = {2, 2, 2, 1, 2, 0, 0, 2};
  int32_t c[] = {3, 1, 0, 3, 3, 2, 0, 3};
  double v[] = {1, 5, 4, 3, 2, 2, 1, 3};
  gcoo_dense D = reference_dense(GCOO_FLOAT64);
  gcoo_sparse A = NULL;
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, 4, 8, r, c, v, 0));
  ut_expect e = ut_expect_from_dense(&D, GCOO_FORMAT_COO, 0);
  ut_check_arrays(A, &e, "unordered COO with duplicates");
  ut_expect_free(&e);
  gcoo_sparse_destroy(&A);
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, 4, 8, r, c, v, GCOO_DUPLICATES_ERROR),
             GCOO_ERR_DUPLICATE, "entry (2, 3) appears more than once");
  TEST_CHECK(A == NULL, "handle set on failure");
  /* CSR with unsorted columns in row 2 and a duplicate in row 0 (2 = 0.5 + 1.5) */
  int64_t rp[] = {0, 3, 4, 7};
  int32_t ci[] = {2, 0, 2, 3, 3, 0, 1};
  double cv[] = {0.5, 1, 1.5, 3, 6, 4, 5};
  TEST_CALL(gcoo_sparse_create_csr(&A, GCOO_FLOAT64, 3, 4, rp, ci, cv, 0));
  e = ut_expect_from_dense(&D, GCOO_FORMAT_CSR, 0);
  ut_check_arrays(A, &e, "unsorted CSR with a duplicate");
  ut_expect_free(&e);
  gcoo_sparse_destroy(&A);
  TEST_FAILS(gcoo_sparse_create_csr(&A, GCOO_FLOAT64, 3, 4, rp, ci, cv, GCOO_DUPLICATES_ERROR),
             GCOO_ERR_DUPLICATE, "entry (0, 2) appears more than once");
  /* CSC with unsorted rows in column 0 */
  int64_t cp[] = {0, 2, 3, 4, 6};
  int32_t ri[] = {2, 0, 2, 0, 2, 1};
  double rv[] = {4, 1, 5, 2, 6, 3};
  TEST_CALL(gcoo_sparse_create_csc(&A, GCOO_FLOAT64, 3, 4, cp, ri, rv, 0));
  e = ut_expect_from_dense(&D, GCOO_FORMAT_CSC, 0);
  ut_check_arrays(A, &e, "unsorted CSC");
  ut_expect_free(&e);
  gcoo_sparse_destroy(&A);
  /* GCOO with an adjacent duplicate: summed by default, refused on request */
  int64_t gi[] = {0, 4, 7};
  int32_t gr[] = {0, 2, 2, 2, 0, 1, 2};
  int32_t gc[] = {0, 0, 0, 1, 2, 3, 3};
  double gv[] = {1, 3, 1, 5, 2, 3, 6};
  TEST_CALL(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, gi, gr, gc, gv, 0));
  e = ut_expect_from_dense(&D, GCOO_FORMAT_GCOO, 2);
  ut_check_arrays(A, &e, "GCOO with a duplicate");
  ut_expect_free(&e);
  gcoo_sparse_destroy(&A);
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, gi, gr, gc, gv,
                                     GCOO_DUPLICATES_ERROR),
             GCOO_ERR_DUPLICATE, "group 0: entry (2, 0) repeated");
  /* pattern: every value 1 */
  for (int dt = 0; dt < 2; dt++) {
    TEST_CALL(gcoo_sparse_create_csr(&A, (gcoo_dtype)dt, 3, 4, RP, C, NULL, 0));
    gcoo_sparse_arrays a;
    TEST_CALL(gcoo_sparse_get_arrays(A, &a));
    for (int k = 0; k < 6; k++) {
      double x = dt ? ((const double *)a.values)[k] : ((const float *)a.values)[k];
      TEST_CHECK(x == 1.0, "pattern value %d = %g", k, x);
    }
    gcoo_sparse_destroy(&A);
  }
  gcoo_dense_destroy(&D);
}

static void check_coo_errors(void) {
  gcoo_sparse A = (gcoo_sparse)(intptr_t)1; /* must be reset to NULL on failure */
  double nanv[] = {1, NAN}, infv[] = {1, -INFINITY};
  int32_t r2[] = {0, 1}, c2[] = {0, 1};
  TEST_FAILS(gcoo_sparse_create_coo(NULL, GCOO_FLOAT64, 3, 4, 6, R, C, V, 0), GCOO_ERR_NULL,
             "output handle is NULL");
  TEST_FAILS(gcoo_sparse_create_coo(&A, (gcoo_dtype)2, 3, 4, 6, R, C, V, 0), GCOO_ERR_INVALID_ARG,
             "unknown element type 2");
  TEST_CHECK(A == NULL, "handle not reset on failure");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, -3, 4, 6, R, C, V, 0), GCOO_ERR_INVALID_ARG,
             "negative shape -3 x 4");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, (int64_t)INT32_MAX + 1, 6, R, C, V, 0),
             GCOO_ERR_TOO_LARGE, "columns = 2147483648 does not fit a 32-bit index");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, 4, -1, R, C, V, 0), GCOO_ERR_INVALID_ARG,
             "negative nnz -1");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, 4, 6, NULL, C, V, 0), GCOO_ERR_NULL,
             "rows or cols is NULL with nnz = 6");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, 3, 6, R, C, V, 0), GCOO_ERR_INDEX_RANGE,
             "entry 2: column 3 outside 0..2");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 2, 4, 6, R, C, V, 0), GCOO_ERR_INDEX_RANGE,
             "entry 3: row 2 outside 0..1");
  int32_t neg[] = {0, -1};
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 2, 2, 2, neg, c2, V, 0), GCOO_ERR_INDEX_RANGE,
             "entry 1: row -1 outside 0..1");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 2, 2, 2, r2, c2, nanv, GCOO_REQUIRE_FINITE),
             GCOO_ERR_NOT_FINITE, "value 1 is NaN");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 2, 2, 2, r2, c2, infv, GCOO_REQUIRE_FINITE),
             GCOO_ERR_NOT_FINITE, "value 1 is infinite");
  float nanf[] = {NAN, 1};
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT32, 2, 2, 2, r2, c2, nanf, GCOO_REQUIRE_FINITE),
             GCOO_ERR_NOT_FINITE, "value 0 is NaN");
  /* without the flag, non-finite values are stored as given */
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 2, 2, 2, r2, c2, nanv, 0));
  TEST_FAILS(gcoo_sparse_validate(A, GCOO_REQUIRE_FINITE), GCOO_ERR_NOT_FINITE, "NaN");
  TEST_CALL(gcoo_sparse_validate(A, 0));
  gcoo_sparse_destroy(&A);
  /* empty shapes */
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT32, 0, 0, 0, NULL, NULL, NULL, 0));
  TEST_CALL(gcoo_sparse_validate(A, 0));
  gcoo_sparse_destroy(&A);
}

static void check_compressed_errors(void) {
  gcoo_sparse A = NULL;
  for (int csc = 0; csc < 2; csc++) {
    gcoo_status (*make)(gcoo_sparse *, gcoo_dtype, int64_t, int64_t, const int64_t *,
                        const int32_t *, const void *, unsigned) = csc ? gcoo_sparse_create_csc
                                                                       : gcoo_sparse_create_csr;
    const char *maj = csc ? "column" : "row", *min = csc ? "row" : "column";
    char msg[128];
    /* a 3 x 3 matrix in both readings: segments of 1, 0, 2 entries */
    int64_t ptr[] = {0, 1, 1, 3}, ptr0[] = {1, 1, 1, 3}, ptrdec[] = {0, 2, 1, 3};
    int32_t ind[] = {0, 1, 2}, bad[] = {0, 1, 3};
    double v[] = {1, 2, 3}, vinf[] = {1, INFINITY, 3};
    TEST_FAILS(make(NULL, GCOO_FLOAT64, 3, 3, ptr, ind, v, 0), GCOO_ERR_NULL, "output handle");
    TEST_FAILS(make(&A, GCOO_FLOAT64, 3, 3, NULL, ind, v, 0), GCOO_ERR_NULL,
               "pointer array is NULL");
    TEST_FAILS(make(&A, GCOO_FLOAT64, 3, 3, ptr, NULL, v, 0), GCOO_ERR_NULL,
               "index array is NULL with nnz = 3");
    snprintf(msg, sizeof msg, "%sptr[0] = 1, must be 0", maj);
    TEST_FAILS(make(&A, GCOO_FLOAT64, 3, 3, ptr0, ind, v, 0), GCOO_ERR_FORMAT, msg);
    snprintf(msg, sizeof msg, "%sptr decreases at %s 1 (2 > 1)", maj, maj);
    TEST_FAILS(make(&A, GCOO_FLOAT64, 3, 3, ptrdec, ind, v, 0), GCOO_ERR_FORMAT, msg);
    snprintf(msg, sizeof msg, "%s 2: %s index 3 outside 0..2", maj, min);
    TEST_FAILS(make(&A, GCOO_FLOAT64, 3, 3, ptr, bad, v, 0), GCOO_ERR_INDEX_RANGE, msg);
    TEST_FAILS(make(&A, GCOO_FLOAT64, 3, 3, ptr, ind, vinf, GCOO_REQUIRE_FINITE),
               GCOO_ERR_NOT_FINITE, "value 1 is infinite");
    TEST_FAILS(make(&A, GCOO_FLOAT64, -1, 3, ptr, ind, v, 0), GCOO_ERR_INVALID_ARG,
               "negative shape");
    TEST_FAILS(make(&A, (gcoo_dtype)9, 3, 3, ptr, ind, v, 0), GCOO_ERR_INVALID_ARG,
               "element type 9");
    TEST_FAILS(make(&A, GCOO_FLOAT64, (int64_t)1 << 40, 3, ptr, ind, v, 0), GCOO_ERR_TOO_LARGE,
               "rows = 1099511627776 does not fit");
    TEST_CHECK(A == NULL, "handle set on failure");
    /* zero rows/cols and nnz = 0 with NULL index arrays */
    int64_t zp[] = {0, 0, 0};
    TEST_CALL(make(&A, GCOO_FLOAT64, 2, 2, zp, NULL, NULL, 0));
    TEST_CALL(gcoo_sparse_validate(A, 0));
    gcoo_sparse_destroy(&A);
  }
}

static void check_gcoo_errors(void) {
  gcoo_sparse A = NULL;
  /* 3 x 4, p = 2: the valid arrays are GI/GR/GC/GV */
  TEST_FAILS(gcoo_sparse_create_gcoo(NULL, GCOO_FLOAT64, 3, 4, 2, GI, GR, GC, GV, 0), GCOO_ERR_NULL,
             "output handle");
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 0, GI, GR, GC, GV, 0),
             GCOO_ERR_INVALID_ARG, "p = 0 must be >= 1");
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, -4, GI, GR, GC, GV, 0),
             GCOO_ERR_INVALID_ARG, "p = -4 must be >= 1");
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, NULL, GR, GC, GV, 0), GCOO_ERR_NULL,
             "gIdxes is NULL");
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, GI, NULL, GC, GV, 0), GCOO_ERR_NULL,
             "rows or cols is NULL with nnz = 6");
  int64_t gi0[] = {1, 3, 6}, gidec[] = {0, 4, 3};
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, gi0, GR, GC, GV, 0),
             GCOO_ERR_FORMAT, "gIdxes[0] = 1, must be 0");
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, gidec, GR, GC, GV, 0),
             GCOO_ERR_FORMAT, "gIdxes decreases at group 1");
  /* an entry of column 2 in group 0 */
  int32_t gcwrong[] = {0, 0, 2, 2, 3, 3};
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, GI, GR, gcwrong, GV, 0),
             GCOO_ERR_INDEX_RANGE, "group 0 entry 2: column 2 outside the group's columns 0..1");
  int32_t grbad[] = {0, 2, 3, 0, 1, 2};
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, GI, grbad, GC, GV, 0),
             GCOO_ERR_INDEX_RANGE, "group 0 entry 2: row 3 outside 0..2");
  /* column order inside a row, then row order */
  int32_t gcuns[] = {0, 1, 0, 2, 3, 3};
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, GI, GR, gcuns, GV, 0),
             GCOO_ERR_UNSORTED, "group 0 entry 2: (2, 0) after (2, 1)");
  int32_t gruns[] = {2, 0, 2, 0, 1, 2};
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, GI, gruns, GC, GV, 0),
             GCOO_ERR_UNSORTED, "group 0 entry 1: (0, 0) after (2, 0)");
  double gvnan[] = {1, 4, 5, 2, NAN, 6};
  TEST_FAILS(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, GI, GR, GC, gvnan,
                                     GCOO_REQUIRE_FINITE),
             GCOO_ERR_NOT_FINITE, "value 4 is NaN");
  TEST_CHECK(A == NULL, "handle set on failure");
  /* p larger than ncols: one group; p = ncols; p = 1 (a group per column, some empty) */
  int32_t ps[] = {1, 3, 4, 100};
  gcoo_dense D = reference_dense(GCOO_FLOAT64);
  for (int k = 0; k < 4; k++) {
    ut_expect e = ut_expect_from_dense(&D, GCOO_FORMAT_GCOO, ps[k]);
    TEST_CALL(
        gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, ps[k], e.gidx, e.rows, e.cols, e.vals, 0));
    ut_check_arrays(A, &e, "GCOO of several p");
    ut_expect_free(&e);
    gcoo_sparse_destroy(&A);
  }
  /* a GCOO with zero columns has zero groups and gIdxes = {0} */
  int64_t g0[] = {0};
  TEST_CALL(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 5, 0, 4, g0, NULL, NULL, NULL, 0));
  gcoo_sparse_info info;
  TEST_CALL(gcoo_sparse_get_info(A, &info));
  TEST_CHECK(info.ngroups == 0 && info.nnz == 0, "empty GCOO: %lld groups",
             (long long)info.ngroups);
  gcoo_sparse_destroy(&A);
  gcoo_dense_destroy(&D);
}

/* Validation finds what was broken after creation (through a const-cast of the views, as a
 * buggy caller or kernel writing through them would). */
static void check_validate(void) {
  gcoo_sparse A = NULL;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, 4, 6, R, C, V, 0));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  int32_t *rows = (int32_t *)a.rows, *cols = (int32_t *)a.cols;
  int32_t keep = rows[5];
  rows[5] = 1;
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_UNSORTED,
             "COO entry 5 out of (row, column) order");
  rows[5] = 7;
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_INDEX_RANGE, "entry 5 (7, 3) outside 3 x 4");
  rows[5] = keep;
  cols[1] = 0;
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_UNSORTED, "COO entry 1");
  cols[1] = 2;
  ((double *)a.values)[3] = INFINITY;
  TEST_FAILS(gcoo_sparse_validate(A, GCOO_REQUIRE_FINITE), GCOO_ERR_NOT_FINITE,
             "value 3 is infinite");
  TEST_CALL(gcoo_sparse_validate(A, 0));
  gcoo_sparse_destroy(&A);

  TEST_CALL(gcoo_sparse_create_csr(&A, GCOO_FLOAT64, 3, 4, RP, C, V, 0));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  int32_t *ind = (int32_t *)a.ind;
  int64_t *ptr = (int64_t *)a.ptr;
  ind[4] = 0;
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_UNSORTED, "indices of segment 2 not increasing");
  ind[4] = 9;
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_INDEX_RANGE, "index 9 outside 0..3");
  ind[4] = 1;
  ptr[3] = 5;
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_FORMAT, "pointer array does not span 0..nnz");
  ptr[3] = 6;
  TEST_CALL(gcoo_sparse_validate(A, 0));
  gcoo_sparse_destroy(&A);

  TEST_CALL(gcoo_sparse_create_gcoo(&A, GCOO_FLOAT64, 3, 4, 2, GI, GR, GC, GV, 0));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  cols = (int32_t *)a.cols;
  cols[2] = 0; /* (2, 0) twice in group 0 */
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_DUPLICATE, "group 0: entry (2, 0) repeated");
  cols[2] = 2;
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_INDEX_RANGE,
             "column 2 outside the group's columns 0..1");
  cols[2] = 1;
  int64_t *gidx = (int64_t *)a.gidx;
  gidx[2] = 5;
  TEST_FAILS(gcoo_sparse_validate(A, 0), GCOO_ERR_FORMAT, "gIdxes");
  gidx[2] = 6;
  TEST_CALL(gcoo_sparse_validate(A, 0));
  gcoo_sparse_destroy(&A);
}

/* NULL, uninitialised and destroyed handles. A destroyed object cannot be read back safely
 * (its memory is freed), so the check is shown on a block carrying the freed marker. */
static void check_handles(void) {
  gcoo_sparse_info info;
  gcoo_sparse_arrays a;
  gcoo_sparse B = NULL;
  TEST_FAILS(gcoo_sparse_get_info(NULL, &info), GCOO_ERR_NULL, "sparse matrix is NULL");
  TEST_FAILS(gcoo_sparse_validate(NULL, 0), GCOO_ERR_NULL, "sparse matrix is NULL");
  uint64_t fake[32];
  memset(fake, 0, sizeof fake);
  TEST_FAILS(gcoo_sparse_get_info((gcoo_sparse)(void *)fake, &info), GCOO_ERR_INVALID_OBJECT,
             "not a valid object (uninitialised)");
  fake[0] = GCOO_MAGIC_FREED;
  TEST_FAILS(gcoo_sparse_get_arrays((gcoo_sparse)(void *)fake, &a), GCOO_ERR_INVALID_OBJECT,
             "already destroyed");
  TEST_FAILS(gcoo_sparse_convert(&B, (gcoo_sparse)(void *)fake, GCOO_FORMAT_CSR, 0),
             GCOO_ERR_INVALID_OBJECT, "already destroyed");
  gcoo_sparse fh = (gcoo_sparse)(void *)fake;
  TEST_FAILS(gcoo_sparse_destroy(&fh), GCOO_ERR_INVALID_OBJECT, "already destroyed");
  TEST_CALL(gcoo_sparse_destroy(NULL));
  TEST_CALL(gcoo_sparse_destroy(&B));
  gcoo_sparse A = NULL;
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, 4, 6, R, C, V, 0));
  TEST_FAILS(gcoo_sparse_get_info(A, NULL), GCOO_ERR_NULL, "info is NULL");
  TEST_FAILS(gcoo_sparse_get_arrays(A, NULL), GCOO_ERR_NULL, "arrays is NULL");
  gcoo_sparse_destroy(&A);
  TEST_FAILS(gcoo_sparse_get_info(A, &info), GCOO_ERR_NULL, "sparse matrix is NULL");
}

int main(void) {
  check_valid(GCOO_FLOAT64);
  check_valid(GCOO_FLOAT32);
  check_order_duplicates();
  check_coo_errors();
  check_compressed_errors();
  check_gcoo_errors();
  check_validate();
  check_handles();
  return gcoo_test_finish("t020-sparse-create");
}
