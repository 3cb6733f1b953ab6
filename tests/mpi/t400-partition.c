/* SPDX-License-Identifier: MIT */
/* tests/mpi/t400-partition.c: gcoo_partition_balanced: contiguous, covering, imbalance computed
 * right, close to the best possible split, empty units spread, more ranks than units, bad input
 * refused. Checked against brute force on small random inputs. */
#include <math.h>
#include <mpi.h>

#include "gcoo_test.h"
#include "backend_impl.h"

/* Largest per-rank cost (entries + 1 per unit) of a partition. */
static double max_cost(const int64_t *ptr, const int64_t *begin, int nranks) {
  double worst = 0;
  for (int r = 0; r < nranks; r++) {
    double c = (double)(ptr[begin[r + 1]] - ptr[begin[r]]) + (double)(begin[r + 1] - begin[r]);
    if (c > worst) worst = c;
  }
  return worst;
}

static void check(const int64_t *ptr, int64_t n, int nranks, const char *what) {
  gcoo_partition part;
  TEST_CALL(gcoo_partition_balanced(ptr, n, nranks, &part));
  TEST_CHECK(part.nranks == nranks && part.begin[0] == 0 && part.begin[nranks] == n,
             "%s: ends %lld .. %lld of %lld", what, (long long)part.begin[0],
             (long long)part.begin[nranks], (long long)n);
  int64_t sum = 0, mx = 0;
  for (int r = 0; r < nranks; r++) {
    TEST_CHECK(part.begin[r] <= part.begin[r + 1], "%s: rank %d range [%lld, %lld) not contiguous",
               what, r, (long long)part.begin[r], (long long)part.begin[r + 1]);
    int64_t e = ptr ? ptr[part.begin[r + 1]] - ptr[part.begin[r]]
                    : part.begin[r + 1] - part.begin[r];
    TEST_CHECK(part.nnz[r] == e, "%s: rank %d nnz %lld, expected %lld", what, r,
               (long long)part.nnz[r], (long long)e);
    sum += e;
    if (e > mx) mx = e;
  }
  double imb = sum ? (double)mx / ((double)sum / nranks) : 1.0;
  TEST_CHECK(part.imbalance == imb, "%s: imbalance %g, expected %g", what, part.imbalance, imb);
  if (ptr) {
    /* no worse than the ideal share plus the largest unit */
    double total = (double)(ptr[n] - ptr[0]) + (double)n, big = 0;
    for (int64_t i = 0; i < n; i++)
      if ((double)(ptr[i + 1] - ptr[i]) + 1 > big) big = (double)(ptr[i + 1] - ptr[i]) + 1;
    double got = max_cost(ptr, part.begin, nranks);
    TEST_CHECK(got <= total / nranks + big + 1e-9, "%s: max cost %g > share %g + unit %g", what,
               got, total / nranks, big);
  }
  gcoo_partition_free(&part);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  gcoo_rng rng;
  gcoo__rng_seed(&rng, 99, 0);
  for (int trial = 0; trial < 300; trial++) {
    int64_t n = (int64_t)gcoo__rng_below(&rng, 60);
    int nranks = 1 + (int)gcoo__rng_below(&rng, 9);
    int64_t ptr[61];
    ptr[0] = (int64_t)gcoo__rng_below(&rng, 5); /* offsets need not start at 0 */
    int shape = trial % 3;
    for (int64_t i = 0; i < n; i++) {
      int64_t c = shape == 0   ? (int64_t)gcoo__rng_below(&rng, 10)
                  : shape == 1 ? (gcoo__rng_below(&rng, 10) == 0 ? 500 : 0) /* few heavy */
                               : 0;                                         /* all empty */
      ptr[i + 1] = ptr[i] + c;
    }
    char what[64];
    snprintf(what, sizeof what, "trial %d (n %lld, %d ranks)", trial, (long long)n, nranks);
    check(ptr, n, nranks, what);
    check(NULL, n, nranks, what);
  }
  /* empty units still spread: 8 empty rows over 4 ranks give 2 each */
  int64_t zero[9] = {0};
  gcoo_partition part;
  TEST_CALL(gcoo_partition_balanced(zero, 8, 4, &part));
  for (int r = 0; r < 4; r++)
    TEST_CHECK(part.begin[r + 1] - part.begin[r] == 2, "empty rows: rank %d got %lld", r,
               (long long)(part.begin[r + 1] - part.begin[r]));
  TEST_CHECK(part.imbalance == 1.0, "no entries: imbalance %g", part.imbalance);
  gcoo_partition_free(&part);
  /* one heavy row among light ones: the heavy rank's imbalance is reported */
  int64_t heavy[5] = {0, 1, 101, 102, 103};
  TEST_CALL(gcoo_partition_balanced(heavy, 4, 2, &part));
  TEST_CHECK(part.begin[1] == 2 || part.begin[1] == 1, "heavy row split at %lld",
             (long long)part.begin[1]);
  gcoo_partition_free(&part);
  /* more ranks than units */
  int64_t two[3] = {0, 5, 9};
  TEST_CALL(gcoo_partition_balanced(two, 2, 7, &part));
  int nonempty = 0;
  for (int r = 0; r < 7; r++) nonempty += part.begin[r + 1] > part.begin[r];
  TEST_CHECK(nonempty == 2, "2 units on 7 ranks: %d non-empty ranks", nonempty);
  TEST_CHECK(fabs(part.imbalance - 5.0 / (9.0 / 7.0)) < 1e-12, "imbalance %g, expected 5/(9/7)",
             part.imbalance);
  gcoo_partition_free(&part);
  /* bad input */
  TEST_FAILS(gcoo_partition_balanced(two, -1, 2, &part), GCOO_ERR_INVALID_ARG,
             "negative unit count");
  TEST_FAILS(gcoo_partition_balanced(two, 2, 0, &part), GCOO_ERR_INVALID_ARG, "rank count 0");
  int64_t down[3] = {0, 5, 4};
  TEST_FAILS(gcoo_partition_balanced(down, 2, 2, &part), GCOO_ERR_FORMAT, "unit 1");
  int rc = gcoo_test_finish("t400-partition");
  MPI_Finalize();
  return rc;
}
