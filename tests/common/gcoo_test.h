/* SPDX-License-Identifier: MIT */
/* tests/common/gcoo_test.h: what every test shares: checks that report file and line,
 * relative errors, poisoning, and the naive triple loop every product is compared with. */
#ifndef GCOO_TEST_H
#define GCOO_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "gcoo/gcoo.h"

/** Exit code ctest reads as "skipped" (SKIP_RETURN_CODE 77). */
#define GCOO_TEST_SKIP 77

extern int gcoo_test_failures;

/** A gcoo call that must succeed. */
#define TEST_CALL(x)                                                              \
  do {                                                                            \
    gcoo_status s_ = (x);                                                         \
    if (s_ < 0) {                                                                 \
      fprintf(stderr, "FAIL %s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #x, \
              gcoo_status_name(s_), gcoo_last_error());                           \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

/** A gcoo call that must fail with status `want` and a message containing `needle`. */
#define TEST_FAILS(x, want, needle) \
  gcoo_test_expect_failure((x), (want), (needle), #x, __FILE__, __LINE__)

/** A condition that must hold; counts failures and goes on. */
#define TEST_CHECK(cond, ...)                                         \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, "\n");                                          \
      gcoo_test_failures++;                                           \
    }                                                                 \
  } while (0)

void gcoo_test_expect_failure(gcoo_status got, gcoo_status want, const char *needle,
                              const char *expr, const char *file, int line);

/** ||out - ref||_F / ||ref||_F over all elements (any layouts, same shape). NaN anywhere in out
 *  gives +inf, so unwritten poisoned outputs fail. */
double gcoo_test_relerr(const gcoo_dense *out, const gcoo_dense *ref);

/** Tolerance for a product with inner length k in dtype: a few ulps times sqrt(k). */
double gcoo_test_tolerance(gcoo_dtype dtype, int64_t inner);

/** Naive O(m k N) triple loop in double on the densified A: Y = alpha A X + beta Y. */
void gcoo_test_naive_spdm(double alpha, gcoo_sparse A, const gcoo_dense *X, double beta,
                          gcoo_dense *Y);

/** Allocated host copy of a dense matrix (same layout). */
gcoo_dense gcoo_test_copy(const gcoo_dense *D);

/** Path of a file in tests/data (from $GCOO_TEST_DATA), in a static buffer. */
const char *gcoo_test_data(const char *name);

/** Summary line and exit code: 0 when no TEST_CHECK failed. */
int gcoo_test_finish(const char *name);

#endif
