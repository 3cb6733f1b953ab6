/* SPDX-License-Identifier: MIT */
/* tests/limits/t903-limits-big.c: a real 2^31 - 1 row CSR, the one limit that cannot be crossed
 * cheaply (its row pointers alone are 16 GiB; the reader holds them twice, plus 16 GiB of row
 * counts when duplicates are refused: ~48 GiB). Skipped unless GCOO_TEST_BIG=1 and the machine
 * has the memory; run it where it has (the GPU machine has 128 GiB of host memory), ideally in the
 * sanitizer build, which turns any int32 overflow of an index into a report:
 *   GCOO_TEST_BIG=1 ctest --test-dir build-asan -R t903 --output-on-failure
 * An argument N replaces 2^31 - 1 (t903-limits-big 100000 checks the logic in a second).
 * What it checks: entries in the last row and column (row index 2^31 - 2, where index + 2
 * overflowed int in the reader's bucket arithmetic), read as general, symmetric (mirrored into
 * the last column) and with duplicates refused; the CSR validates and has the right pointers. */
#include <stdlib.h>

#include "limits_util.h"

static int64_t mem_available_kib(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  long long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}

static void check_csr(gcoo_sparse A, int64_t n, int64_t want_nnz, int64_t last_row_nnz) {
  gcoo_sparse_info info;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &info));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  TEST_CHECK(info.nrows == n && info.ncols == n && info.nnz == want_nnz,
             "%lld x %lld nnz %lld, expected %lld x %lld nnz %lld", (long long)info.nrows,
             (long long)info.ncols, (long long)info.nnz, (long long)n, (long long)n,
             (long long)want_nnz);
  TEST_CHECK(a.ptr[0] == 0 && a.ptr[n] == want_nnz && a.ptr[n] - a.ptr[n - 1] == last_row_nnz,
             "row pointers: ptr[0] = %lld, ptr[n] = %lld, last row %lld entries (expected %lld)",
             (long long)a.ptr[0], (long long)a.ptr[n], (long long)(a.ptr[n] - a.ptr[n - 1]),
             (long long)last_row_nnz);
  TEST_CALL(gcoo_sparse_validate(A, GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE));
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : LIM_DIM;
  const char *big = getenv("GCOO_TEST_BIG");
  if (!big || strcmp(big, "1") != 0) {
    printf("t903-limits-big: skipped (needs ~48 GiB: set GCOO_TEST_BIG=1 to run it)\n");
    return GCOO_TEST_SKIP;
  }
  int64_t need_kib = n >= ((int64_t)1 << 30) ? (int64_t)50 << 20 : 1 << 20;
  if (mem_available_kib() < need_kib) {
    printf("t903-limits-big: skipped: %lld MiB available, %lld MiB needed\n",
           (long long)mem_available_kib() >> 10, (long long)need_kib >> 10);
    return GCOO_TEST_SKIP;
  }
  char text[512];
  gcoo_sparse A = NULL;
  double t0 = lim_now();
  /* general: the last row holds two entries (first and last column), row 1 one */
  snprintf(text, sizeof text,
           "%%%%MatrixMarket matrix coordinate real general\n%lld %lld 3\n"
           "%lld %lld 1.5\n%lld 1 2.5\n1 %lld 3.5\n",
           (long long)n, (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
  const char *path = lim_file("last-row.mtx", text, -1);
  TEST_CALL(gcoo_mtx_read(path, GCOO_FLOAT64, 0, &A));
  check_csr(A, n, 3, 2);
  gcoo_sparse_destroy(&A);
  /* duplicates refused: the reader's row buckets (2^31 + 1 counters) */
  TEST_CALL(gcoo_mtx_read(path, GCOO_FLOAT32, GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE, &A));
  check_csr(A, n, 3, 2);
  gcoo_sparse_destroy(&A);
  /* symmetric: (n, 1) stored, (1, n) mirrored into the last column of row 1; (n, n) diagonal */
  snprintf(text, sizeof text,
           "%%%%MatrixMarket matrix coordinate real symmetric\n%lld %lld 2\n%lld 1 -1\n%lld %lld "
           "4\n",
           (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
  TEST_CALL(gcoo_mtx_read(lim_file("sym.mtx", text, -1), GCOO_FLOAT64, 0, &A));
  check_csr(A, n, 3, 2);
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  TEST_CHECK(a.ptr[1] == 1 && a.ind[0] == n - 1 && ((const double *)a.values)[0] == -1.0,
             "mirrored entry: row 1 has %lld entries, column %d", (long long)a.ptr[1], a.ind[0]);
  gcoo_sparse_destroy(&A);
  printf("%lld x %lld CSR from Matrix Market, three ways, in %.1f s\n", (long long)n, (long long)n,
         lim_now() - t0);
  ut_tmpdir_remove();
  return gcoo_test_finish("t903-limits-big");
}
