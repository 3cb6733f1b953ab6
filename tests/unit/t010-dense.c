/* SPDX-License-Identifier: MIT */
/* tests/unit/t010-dense.c: dense descriptors: wrap, create, check (every error), element access
 * in both layouts with padded leading dimensions, fills, reproducible random fill. */
#include <math.h>
#include <string.h>

#include "unit_util.h"

static void check_errors(void) {
  double buf[16];
  gcoo_dense D = gcoo_dense_wrap(buf, GCOO_FLOAT64, GCOO_ROW_MAJOR, 2, 3, 0);
  TEST_CALL(gcoo_dense_check(&D));
  TEST_FAILS(gcoo_dense_check(NULL), GCOO_ERR_NULL, "dense matrix is NULL");
  gcoo_dense E = D;
  E.dtype = (gcoo_dtype)7;
  TEST_FAILS(gcoo_dense_check(&E), GCOO_ERR_INVALID_ARG, "unknown element type 7");
  E = D;
  E.layout = (gcoo_layout)5;
  TEST_FAILS(gcoo_dense_check(&E), GCOO_ERR_INVALID_ARG, "unknown layout 5");
  E = D;
  E.mem = (gcoo_memspace)9;
  TEST_FAILS(gcoo_dense_check(&E), GCOO_ERR_INVALID_ARG, "unknown memory space 9");
  E = D;
  E.nrows = -1;
  TEST_FAILS(gcoo_dense_check(&E), GCOO_ERR_INVALID_ARG, "negative shape -1 x 3");
  E = D;
  E.ld = 2;
  TEST_FAILS(gcoo_dense_check(&E), GCOO_ERR_INVALID_ARG, "leading dimension 2 < 3");
  E = gcoo_dense_wrap(buf, GCOO_FLOAT64, GCOO_COL_MAJOR, 4, 2, 3);
  TEST_FAILS(gcoo_dense_check(&E), GCOO_ERR_INVALID_ARG,
             "leading dimension 3 < 4 for a column-major");
  E = D;
  E.data = NULL;
  TEST_FAILS(gcoo_dense_check(&E), GCOO_ERR_NULL, "dense data is NULL for a 2 x 3 matrix");
  E = D;
  E.nrows = INT64_MAX / 2;
  E.ld = 4;
  TEST_FAILS(gcoo_dense_check(&E), GCOO_ERR_TOO_LARGE, "overflow a 64-bit offset");
  /* empty matrices: any shape with a zero, NULL data allowed, natural ld may be 0 */
  int64_t shapes[][2] = {{0, 0}, {0, 5}, {5, 0}};
  for (int s = 0; s < 3; s++)
    for (int l = 0; l < 2; l++) {
      E = gcoo_dense_wrap(NULL, GCOO_FLOAT32, (gcoo_layout)l, shapes[s][0], shapes[s][1], 0);
      gcoo_status st = gcoo_dense_check(&E);
      TEST_CHECK(st == GCOO_SUCCESS, "empty %lld x %lld %s refused: %s", (long long)shapes[s][0],
                 (long long)shapes[s][1], l ? "col-major" : "row-major", gcoo_last_error());
    }
  TEST_FAILS(gcoo_dense_create(NULL, GCOO_FLOAT64, GCOO_ROW_MAJOR, 1, 1), GCOO_ERR_NULL, "NULL");
  TEST_FAILS(gcoo_dense_create(&E, GCOO_FLOAT64, GCOO_ROW_MAJOR, -2, 1), GCOO_ERR_INVALID_ARG,
             "negative shape -2 x 1");
  TEST_FAILS(gcoo_dense_create(&E, GCOO_FLOAT64, GCOO_ROW_MAJOR, INT64_MAX / 2, 4),
             GCOO_ERR_TOO_LARGE, "overflow");
  TEST_FAILS(gcoo_dense_create(&E, (gcoo_dtype)3, GCOO_ROW_MAJOR, 2, 2), GCOO_ERR_INVALID_ARG,
             "unknown element type 3");
  TEST_FAILS(gcoo_dense_create(&E, GCOO_FLOAT64, (gcoo_layout)3, 2, 2), GCOO_ERR_INVALID_ARG,
             "unknown layout 3");
  gcoo_dense dev = gcoo_dense_wrap(buf, GCOO_FLOAT64, GCOO_ROW_MAJOR, 2, 2, 0);
  dev.mem = GCOO_MEM_DEVICE;
  TEST_FAILS(gcoo_dense_fill(&dev, 1.0), GCOO_ERR_INVALID_ARG, "host memory");
  TEST_FAILS(gcoo_dense_fill_random(&dev, 1), GCOO_ERR_INVALID_ARG, "host memory");
}

/* Element (i, j) lands where gcoo/dense.h says, padding untouched. */
static void check_access(void) {
  for (int dt = 0; dt < 2; dt++)
    for (int l = 0; l < 2; l++) {
      gcoo_dtype dtype = (gcoo_dtype)dt;
      gcoo_layout layout = (gcoo_layout)l;
      int64_t m = 3, n = 4, ld = l == GCOO_ROW_MAJOR ? 6 : 5;
      double store[64];
      float storef[64];
      void *buf = dtype == GCOO_FLOAT64 ? (void *)store : (void *)storef;
      for (int k = 0; k < 64; k++) store[k] = NAN, storef[k] = NAN;
      gcoo_dense D = gcoo_dense_wrap(buf, dtype, layout, m, n, ld);
      TEST_CALL(gcoo_dense_fill(&D, 0.0));
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) gcoo_dense_set(&D, i, j, (double)(10 * i + j));
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
          int64_t off = layout == GCOO_ROW_MAJOR ? i * ld + j : i + j * ld;
          double raw = dtype == GCOO_FLOAT64 ? store[off] : storef[off];
          TEST_CHECK(raw == (double)(10 * i + j), "(%lld, %lld) at %lld holds %g", (long long)i,
                     (long long)j, (long long)off, raw);
          TEST_CHECK(gcoo_dense_get(&D, i, j) == (double)(10 * i + j), "get");
        }
      int64_t major = layout == GCOO_ROW_MAJOR ? m : n, minor = layout == GCOO_ROW_MAJOR ? n : m;
      for (int64_t a = 0; a < major; a++)
        for (int64_t b = minor; b < ld; b++) {
          double raw = dtype == GCOO_FLOAT64 ? store[a * ld + b] : storef[a * ld + b];
          TEST_CHECK(isnan(raw), "padding at %lld written", (long long)(a * ld + b));
        }
    }
}

static void check_create_fill(void) {
  gcoo_dense D;
  TEST_CALL(gcoo_dense_create(&D, GCOO_FLOAT32, GCOO_COL_MAJOR, 7, 3));
  TEST_CHECK(D.owned == 1 && D.ld == 7 && D.mem == GCOO_MEM_HOST, "descriptor");
  for (int64_t i = 0; i < 7; i++)
    for (int64_t j = 0; j < 3; j++) TEST_CHECK(gcoo_dense_get(&D, i, j) == 0.0, "not zeroed");
  TEST_CALL(gcoo_dense_fill(&D, NAN));
  TEST_CHECK(isnan(gcoo_dense_get(&D, 6, 2)), "fill NaN");
  gcoo_dense_destroy(&D);
  TEST_CHECK(D.data == NULL && D.owned == 0, "destroy did not reset");
  gcoo_dense_destroy(&D); /* twice is harmless */
  gcoo_dense_destroy(NULL);
  TEST_CALL(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, 0, 0));
  TEST_CALL(gcoo_dense_check(&D));
  TEST_CALL(gcoo_dense_fill_random(&D, 3));
  gcoo_dense_destroy(&D);
  /* wrapped buffers are not freed */
  double buf[4] = {1, 2, 3, 4};
  gcoo_dense W = gcoo_dense_wrap(buf, GCOO_FLOAT64, GCOO_ROW_MAJOR, 2, 2, 0);
  gcoo_dense_destroy(&W);
  TEST_CHECK(buf[3] == 4.0, "wrapped buffer touched");
}

/* The same seed gives the same values whatever the layout; values in [-1, 1), mean near 0. */
static void check_random(void) {
  for (int dt = 0; dt < 2; dt++) {
    gcoo_dense R, C, S;
    TEST_CALL(gcoo_dense_create(&R, (gcoo_dtype)dt, GCOO_ROW_MAJOR, 50, 40));
    TEST_CALL(gcoo_dense_create(&C, (gcoo_dtype)dt, GCOO_COL_MAJOR, 50, 40));
    TEST_CALL(gcoo_dense_create(&S, (gcoo_dtype)dt, GCOO_ROW_MAJOR, 50, 40));
    TEST_CALL(gcoo_dense_fill_random(&R, 42));
    TEST_CALL(gcoo_dense_fill_random(&C, 42));
    TEST_CALL(gcoo_dense_fill_random(&S, 43));
    ut_check_dense_equal(&R, &C, "same seed, other layout");
    double sum = 0.0;
    int same = 0;
    for (int64_t i = 0; i < 50; i++)
      for (int64_t j = 0; j < 40; j++) {
        double v = gcoo_dense_get(&R, i, j);
        TEST_CHECK(v >= -1.0 && v < 1.0, "value %g outside [-1, 1)", v);
        sum += v;
        same += v == gcoo_dense_get(&S, i, j);
      }
    /* mean of 2000 uniforms on [-1, 1): sd = sqrt(1/3 / 2000) = 0.0129; allow 5 sd */
    TEST_CHECK(fabs(sum / 2000) < 5 * 0.0129, "mean %g", sum / 2000);
    TEST_CHECK(same < 5, "seeds 42 and 43 share %d values", same);
    gcoo_dense_destroy(&R);
    gcoo_dense_destroy(&C);
    gcoo_dense_destroy(&S);
  }
}

int main(void) {
  check_errors();
  check_access();
  check_create_fill();
  check_random();
  return gcoo_test_finish("t010-dense");
}
