/* SPDX-License-Identifier: MIT */
/* tests/common/gcoo_test.c: shared test helpers (see gcoo_test.h). */
#include "gcoo_test.h"

#include <math.h>
#include <string.h>

int gcoo_test_failures = 0;

void gcoo_test_expect_failure(gcoo_status got, gcoo_status want, const char *needle,
                              const char *expr, const char *file, int line) {
  if (got != want) {
    fprintf(stderr, "FAIL %s:%d: %s returned %s, expected %s (message: %s)\n", file, line, expr,
            gcoo_status_name(got), gcoo_status_name(want), gcoo_last_error());
    gcoo_test_failures++;
  } else if (needle && !strstr(gcoo_last_error(), needle)) {
    fprintf(stderr, "FAIL %s:%d: %s: message \"%s\" does not mention \"%s\"\n", file, line, expr,
            gcoo_last_error(), needle);
    gcoo_test_failures++;
  }
}

double gcoo_test_relerr(const gcoo_dense *out, const gcoo_dense *ref) {
  if (out->nrows != ref->nrows || out->ncols != ref->ncols) return INFINITY;
  double e = 0.0, r = 0.0;
  for (int64_t i = 0; i < ref->nrows; i++)
    for (int64_t j = 0; j < ref->ncols; j++) {
      double o = gcoo_dense_get(out, i, j), f = gcoo_dense_get(ref, i, j);
      if (isnan(o)) return INFINITY;
      e += (o - f) * (o - f);
      r += f * f;
    }
  if (r == 0.0) return e == 0.0 ? 0.0 : INFINITY;
  return sqrt(e / r);
}

double gcoo_test_tolerance(gcoo_dtype dtype, int64_t inner) {
  double eps = dtype == GCOO_FLOAT64 ? 2.22e-16 : 1.19e-7;
  return 8.0 * eps * sqrt((double)(inner > 1 ? inner : 1)) + 4.0 * eps;
}

void gcoo_test_naive_spdm(double alpha, gcoo_sparse A, const gcoo_dense *X, double beta,
                          gcoo_dense *Y) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  gcoo_dense D;
  TEST_CALL(gcoo_dense_create(&D, ai.dtype, GCOO_ROW_MAJOR, ai.nrows, ai.ncols));
  TEST_CALL(gcoo_sparse_to_dense(A, &D));
  for (int64_t i = 0; i < ai.nrows; i++)
    for (int64_t j = 0; j < X->ncols; j++) {
      double acc = 0.0;
      for (int64_t k = 0; k < ai.ncols; k++)
        acc += gcoo_dense_get(&D, i, k) * gcoo_dense_get(X, k, j);
      double y = alpha * acc + (beta != 0.0 ? beta * gcoo_dense_get(Y, i, j) : 0.0);
      gcoo_dense_set(Y, i, j, y);
    }
  gcoo_dense_destroy(&D);
}

gcoo_dense gcoo_test_copy(const gcoo_dense *D) {
  gcoo_dense C;
  TEST_CALL(gcoo_dense_create(&C, D->dtype, D->layout, D->nrows, D->ncols));
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) gcoo_dense_set(&C, i, j, gcoo_dense_get(D, i, j));
  return C;
}

const char *gcoo_test_data(const char *name) {
  static char path[4096];
  const char *dir = getenv("GCOO_TEST_DATA");
  snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
  return path;
}

int gcoo_test_finish(const char *name) {
  if (gcoo_test_failures) {
    fprintf(stderr, "%s: %d check(s) FAILED\n", name, gcoo_test_failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}
