/* SPDX-License-Identifier: MIT */
/* tests/unit/t070-mtx.c: Matrix Market files that must be read: the real matrices of tests/data
 * (shapes and counts as the SuiteSparse collection lists them, symmetric expansion, pattern values,
 * values of known lines), every header variant (symmetric from either triangle, skew-symmetric,
 * integer, pattern, comments, blank lines, CRLF, mixed case, last line without newline, gzip
 * detected by content), write/read round trips (plain and .gz, both element types, bit-exact,
 * extreme values), dense array round trips, and no temporary file left behind. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "unit_util.h"

static char path_buf[1024];

/* Write text into the test's temporary directory; returns the path (static buffer). */
static const char *write_text(const char *name, const char *text) {
  snprintf(path_buf, sizeof path_buf, "%s/%s", ut_tmpdir(), name);
  FILE *f = fopen(path_buf, "wb");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    perror(path_buf);
    exit(1);
  }
  return path_buf;
}

static const char *tmp_path(const char *name) {
  snprintf(path_buf, sizeof path_buf, "%s/%s", ut_tmpdir(), name);
  return path_buf;
}

/* Value at (i, j) of a CSR matrix, NAN when not stored. */
static double at(gcoo_sparse A, int32_t i, int32_t j) {
  gcoo_sparse_info info;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &info));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  for (int64_t k = a.ptr[i]; k < a.ptr[i + 1]; k++)
    if (a.ind[k] == j)
      return info.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                        : ((const float *)a.values)[k];
  return NAN;
}

typedef struct {
  const char *file;
  int64_t rows, cols, nnz_full, stored;
  const char *field, *symmetry;
} known;

static void check_real_files(void) {
  static const known files[] = {
      {"west0479.mtx.gz", 479, 479, 1910, 1910, "real", "general"},
      {"bcsstk21.mtx.gz", 3600, 3600, 26600, 15100, "real", "symmetric"},
      {"dwt_2680.mtx.gz", 2680, 2680, 25026, 13853, "pattern", "symmetric"},
      {"lp_ship04l.mtx.gz", 402, 2166, 6380, 6380, "real", "general"},
      {"bp_1600.mtx.gz", 822, 822, 4841, 4841, "real", "general"},
      {"adder_dcop_05.mtx.gz", 1813, 1813, 11097, 11097, "real", "general"},
  };
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    const known *k = &files[f];
    gcoo_mtx_header h;
    TEST_CALL(gcoo_mtx_read_header(gcoo_test_data(k->file), &h));
    TEST_CHECK(h.nrows == k->rows && h.ncols == k->cols && h.nstored == k->stored &&
                   !strcmp(h.format, "coordinate") && !strcmp(h.field, k->field) &&
                   !strcmp(h.symmetry, k->symmetry),
               "%s header: %lld x %lld, %lld stored, %s %s %s", k->file, (long long)h.nrows,
               (long long)h.ncols, (long long)h.nstored, h.format, h.field, h.symmetry);
    gcoo_sparse A = NULL, Af = NULL, Ad = NULL, T = NULL;
    gcoo_sparse_info info;
    TEST_CALL(gcoo_mtx_read(gcoo_test_data(k->file), GCOO_FLOAT64, GCOO_DUPLICATES_ERROR, &A));
    TEST_CALL(gcoo_sparse_get_info(A, &info));
    TEST_CHECK(info.format == GCOO_FORMAT_CSR && info.nrows == k->rows && info.ncols == k->cols &&
                   info.nnz == k->nnz_full,
               "%s: %lld x %lld nnz %lld, INDEX.md says %lld x %lld nnz %lld", k->file,
               (long long)info.nrows, (long long)info.ncols, (long long)info.nnz,
               (long long)k->rows, (long long)k->cols, (long long)k->nnz_full);
    TEST_CALL(gcoo_sparse_validate(A, GCOO_REQUIRE_FINITE | GCOO_DUPLICATES_ERROR));
    if (!strcmp(k->symmetry, "symmetric")) {
      TEST_CALL(gcoo_sparse_transpose(&T, A));
      ut_check_same(T, A, "symmetric file expanded to A = A^T");
      gcoo_sparse_destroy(&T);
    }
    if (!strcmp(k->field, "pattern")) {
      gcoo_sparse_arrays a;
      TEST_CALL(gcoo_sparse_get_arrays(A, &a));
      int ones = 1;
      for (int64_t q = 0; q < info.nnz; q++) ones &= ((const double *)a.values)[q] == 1.0;
      TEST_CHECK(ones, "%s: pattern values are not all 1", k->file);
    }
    /* float32 is the float64 reading rounded once */
    TEST_CALL(gcoo_mtx_read(gcoo_test_data(k->file), GCOO_FLOAT32, 0, &Af));
    TEST_CALL(gcoo_sparse_astype(&Ad, A, GCOO_FLOAT32));
    ut_check_same(Af, Ad, "float32 reading = float64 reading rounded");
    if (f == 0) {
      /* lines "25 1 1" and "31 1 -.03764813" of west0479 */
      TEST_CHECK(at(A, 24, 0) == 1.0 && at(A, 30, 0) == -0.03764813, "west0479 values %g %g",
                 at(A, 24, 0), at(A, 30, 0));
    }
    if (f == 1) {
      /* lines "1 1 6.379768e7" and "7 1 -2.9e6" of bcsstk21, the second mirrored */
      TEST_CHECK(at(A, 0, 0) == 6.379768e7 && at(A, 6, 0) == -2.9e6 && at(A, 0, 6) == -2.9e6,
                 "bcsstk21 values %g %g %g", at(A, 0, 0), at(A, 6, 0), at(A, 0, 6));
    }
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&Af);
    gcoo_sparse_destroy(&Ad);
  }
}

/* Read text as a 3 x 3 (or given) matrix and compare with an expected dense row-major list. */
static void expect_matrix(const char *name, const char *text, int64_t m, int64_t n,
                          const double *want, unsigned flags) {
  gcoo_sparse A = NULL;
  const char *path = write_text(name, text);
  gcoo_status st = gcoo_mtx_read(path, GCOO_FLOAT64, flags, &A);
  TEST_CHECK(st == GCOO_SUCCESS, "%s: %s", name, gcoo_last_error());
  if (st != GCOO_SUCCESS) return;
  gcoo_dense D;
  TEST_CALL(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, m, n));
  TEST_CALL(gcoo_sparse_to_dense(A, &D));
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      TEST_CHECK(gcoo_dense_get(&D, i, j) == want[i * n + j], "%s: (%lld, %lld) = %g, expected %g",
                 name, (long long)i, (long long)j, gcoo_dense_get(&D, i, j), want[i * n + j]);
  gcoo_dense_destroy(&D);
  gcoo_sparse_destroy(&A);
}

static void check_variants(void) {
  static const double sym[] = {4, -1, 0, -1, 0, 2.5, 0, 2.5, 7};
  expect_matrix("sym_lower.mtx",
                "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 2.5\n3 "
                "3 7\n",
                3, 3, sym, GCOO_DUPLICATES_ERROR);
  expect_matrix("sym_upper.mtx",
                "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n1 2 -1\n2 3 2.5\n3 "
                "3 7\n",
                3, 3, sym, GCOO_DUPLICATES_ERROR);
  static const double skew[] = {0, -3, 1, 3, 0, 0, -1, 0, 0};
  expect_matrix("skew.mtx",
                "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -1\n", 3,
                3, skew, 0);
  expect_matrix("skew_zero_diag.mtx",
                "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n2 1 3\n2 2 0\n3 1 "
                "-1\n",
                3, 3, skew, 0);
  static const double pat[] = {1, 1, 0, 1, 0, 1, 0, 1, 0};
  expect_matrix("pattern_sym.mtx",
                "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n", 3, 3,
                pat, 0);
  static const double integ[] = {-7, 0, 0, 0, 0, 123456789, 0, 0, 0};
  expect_matrix("integer.mtx",
                "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 1 -7\n2 3 +123456789\n",
                3, 3, integ, 0);
  /* comments and blank lines anywhere after the banner, CRLF, tabs, mixed case, no final newline */
  static const double gen[] = {1.5, 0, 0, 0, 0, -200, 0, 0.25, 0};
  expect_matrix("layout.mtx",
                "%%MatrixMarket MATRIX Coordinate REAL General\r\n% a comment\r\n\r\n  3\t3  3 \r\n"
                "1 1 1.5\r\n% between entries\r\n\r\n2\t3\t-2E+2\r\n3 2 .25",
                3, 3, gen, 0);
  /* duplicates are summed */
  static const double dup[] = {3, 0, 0, 0, 0, 0, 0, 0, 0};
  expect_matrix("dup.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n1 1 2\n",
                3, 3, dup, 0);
  /* number forms: exponents, leading/trailing dots, signs, digits past 2^53, underflow to 0 */
  static const double nums[] = {100, -0.5, 5, 3, 12345678901234567890.0, 0, 1e-300, 0, 0};
  expect_matrix("numbers.mtx",
                "%%MatrixMarket matrix coordinate real general\n3 3 8\n1 1 1E+2\n1 2 -.5\n1 3 5.\n"
                "2 1 +3\n2 2 12345678901234567890\n2 3 1e-400\n3 1 0.000000000000000000001e-279\n"
                "3 2 -0e5\n",
                3, 3, nums, 0);
  /* empty matrices */
  expect_matrix("empty.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", 0, 0, NULL,
                0);
  static const double zeros[6] = {0};
  expect_matrix("nnz0.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 0\n", 2, 3, zeros,
                0);
  /* header words of a few variants */
  gcoo_mtx_header h;
  TEST_CALL(
      gcoo_mtx_read_header(write_text("h.mtx",
                                      "%%MatrixMarket matrix array integer general\n% c\n4 5\n"),
                           &h));
  TEST_CHECK(h.nrows == 4 && h.ncols == 5 && h.nstored == 20 && !strcmp(h.format, "array") &&
                 !strcmp(h.field, "integer") && !strcmp(h.symmetry, "general"),
             "array header: %lld x %lld %lld %s %s %s", (long long)h.nrows, (long long)h.ncols,
             (long long)h.nstored, h.format, h.field, h.symmetry);
  TEST_CALL(gcoo_mtx_read_header(
      write_text("h2.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n9 9 0\n"), &h));
  TEST_CHECK(!strcmp(h.symmetry, "skew-symmetric"), "symmetry %s", h.symmetry);
}

/* Sparse round trips: every input format, both element types, plain and gzip: bit-exact. */
static void check_roundtrip(void) {
  static const int64_t shapes[][2] = {{0, 0}, {1, 1}, {5, 0}, {0, 4}, {37, 23}, {300, 200}};
  char name[64];
  int n = 0;
  for (int dt = 0; dt < 2; dt++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (int gz = 0; gz < 2; gz++) {
        gcoo_sparse A = NULL, C = NULL, B = NULL;
        int f = (int)(s + (size_t)gz) % 4;
        TEST_CALL(gcoo_sparse_random(&A, (gcoo_dtype)dt, (gcoo_format)f, shapes[s][0], shapes[s][1],
                                     0.9, 40 + n, 3));
        snprintf(name, sizeof name, "rt%d.mtx%s", n++, gz ? ".gz" : "");
        const char *path = tmp_path(name);
        TEST_CALL(gcoo_mtx_write(path, A));
        FILE *fp = fopen(path, "rb");
        unsigned char magic[2] = {0, 0};
        TEST_CHECK(fp && fread(magic, 1, 2, fp) == 2, "%s not written", name);
        if (fp) fclose(fp);
        TEST_CHECK(gz ? (magic[0] == 0x1f && magic[1] == 0x8b)
                      : (magic[0] == '%' && magic[1] == '%'),
                   "%s starts with %02x %02x", name, magic[0], magic[1]);
        TEST_CALL(
            gcoo_mtx_read(path, (gcoo_dtype)dt, GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE, &B));
        TEST_CALL(gcoo_sparse_convert(&C, A, GCOO_FORMAT_CSR, 0));
        ut_check_same(B, C, name);
        gcoo_mtx_header h;
        TEST_CALL(gcoo_mtx_read_header(path, &h));
        TEST_CHECK(!strcmp(h.field, "real") && !strcmp(h.symmetry, "general"), "%s header", name);
        gcoo_sparse_destroy(&A);
        gcoo_sparse_destroy(&B);
        gcoo_sparse_destroy(&C);
      }
  /* extreme values survive %.17g / %.9g */
  static const double dv[] =
      {DBL_MAX,           -DBL_MAX, DBL_MIN,   4.9406564584124654e-324, -0.0, 0.1,
       3.141592653589793, -1e-310,  1.0 / 3.0, 123456789012345678.0};
  static const float fv[] = {FLT_MAX, -FLT_MAX,    FLT_MIN, 1.40129846e-45f, -0.0f,
                             0.1f,    3.14159274f, -1e-40f, 1.0f / 3.0f,     16777217.0f};
  for (int dt = 0; dt < 2; dt++) {
    int32_t r[10], c[10];
    for (int k = 0; k < 10; k++) r[k] = k, c[k] = 9 - k;
    gcoo_sparse A = NULL, B = NULL;
    TEST_CALL(gcoo_sparse_create_coo(&A, (gcoo_dtype)dt, 10, 10, 10, r, c,
                                     dt ? (const void *)dv : (const void *)fv, 0));
    for (int gz = 0; gz < 2; gz++) {
      const char *path = tmp_path(gz ? "extreme.mtx.gz" : "extreme.mtx");
      TEST_CALL(gcoo_mtx_write(path, A));
      TEST_CALL(gcoo_mtx_read(path, (gcoo_dtype)dt, 0, &B));
      gcoo_sparse Acsr = NULL;
      TEST_CALL(gcoo_sparse_convert(&Acsr, A, GCOO_FORMAT_CSR, 0));
      ut_check_same(B, Acsr, dt ? "extreme float64 values" : "extreme float32 values");
      gcoo_sparse_destroy(&Acsr);
      gcoo_sparse_destroy(&B);
    }
    gcoo_sparse_destroy(&A);
  }
  /* a gzip file is recognised by its content whatever its name */
  gcoo_sparse A = NULL, B = NULL;
  TEST_CALL(gcoo_mtx_read(gcoo_test_data("west0479.mtx.gz"), GCOO_FLOAT64, 0, &A));
  TEST_CALL(gcoo_mtx_write(tmp_path("w.mtx.gz"), A));
  char from[1024];
  snprintf(from, sizeof from, "%s", tmp_path("w.mtx.gz"));
  TEST_CHECK(rename(from, tmp_path("w_compressed.mtx")) == 0, "rename");
  TEST_CALL(gcoo_mtx_read(tmp_path("w_compressed.mtx"), GCOO_FLOAT64, 0, &B));
  ut_check_same(A, B, "gzip content under a .mtx name");
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&B);
  /* writing over an existing file replaces it */
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 4, 4, 0.5, 3, 0));
  TEST_CALL(gcoo_mtx_write(tmp_path("w_compressed.mtx"), A));
  TEST_CALL(gcoo_mtx_read(tmp_path("w_compressed.mtx"), GCOO_FLOAT64, 0, &B));
  ut_check_same(A, B, "overwritten file");
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&B);
}

/* Dense array files: write either layout, read into either layout, bit-exact. */
static void check_dense(void) {
  static const int64_t shapes[][2] = {{0, 0}, {1, 1}, {7, 3}, {3, 7}, {0, 5}};
  char name[64];
  int n = 0;
  for (int dt = 0; dt < 2; dt++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (int l = 0; l < 2; l++) {
        gcoo_dense D, R;
        TEST_CALL(
            gcoo_dense_create(&D, (gcoo_dtype)dt, (gcoo_layout)l, shapes[s][0], shapes[s][1]));
        TEST_CALL(gcoo_dense_fill_random(&D, 70 + n));
        snprintf(name, sizeof name, "dense%d.mtx%s", n++, s % 2 ? ".gz" : "");
        const char *path = tmp_path(name);
        TEST_CALL(gcoo_mtx_write_dense(path, &D));
        TEST_CALL(gcoo_mtx_read_dense(path, (gcoo_dtype)dt, (gcoo_layout)(1 - l), &R));
        TEST_CHECK(R.layout == (gcoo_layout)(1 - l) && R.owned == 1, "%s: descriptor", name);
        ut_check_dense_equal(&R, &D, name);
        gcoo_dense_destroy(&D);
        gcoo_dense_destroy(&R);
      }
  /* column-major order of the format */
  gcoo_dense R;
  TEST_CALL(gcoo_mtx_read_dense(write_text("colmajor.mtx", "%%MatrixMarket matrix array real "
                                                           "general\n2 3\n1\n2\n3\n4\n5\n6\n"),
                                GCOO_FLOAT64, GCOO_ROW_MAJOR, &R));
  TEST_CHECK(gcoo_dense_get(&R, 1, 0) == 2.0 && gcoo_dense_get(&R, 0, 1) == 3.0 &&
                 gcoo_dense_get(&R, 1, 2) == 6.0,
             "array files are column-major");
  gcoo_dense_destroy(&R);
}

int main(void) {
  check_real_files();
  check_variants();
  check_roundtrip();
  check_dense();
  TEST_CHECK(ut_count_files(ut_tmpdir(), ".tmp.") == 0, "a temporary file was left behind in %s",
             ut_tmpdir());
  ut_tmpdir_remove();
  return gcoo_test_finish("t070-mtx");
}
