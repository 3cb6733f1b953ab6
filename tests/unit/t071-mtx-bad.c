/* SPDX-License-Identifier: MIT */
/* tests/unit/t071-mtx-bad.c: every malformed Matrix Market input, each written here into a
 * temporary directory so the case is visible in this file, must fail with the documented status
 * and a message that names the file and the line (io/mtx.c lists the statuses). Also: compressed
 * files that are not gzip, truncated or corrupt; I/O errors; writer failures, after which no
 * temporary file may remain. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_util.h"

#define BANNER "%%MatrixMarket matrix coordinate real general\n"

static char path_buf[1024];
static int case_no = 0;

static const char *tmp_path(const char *name) {
  snprintf(path_buf, sizeof path_buf, "%s/%s", ut_tmpdir(), name);
  return path_buf;
}

static const char *write_bytes(const char *name, const void *data, size_t n) {
  const char *path = tmp_path(name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
  return path;
}

/* One bad sparse file: status, a needle in the message, and the file's name in the message. */
static void bad_sparse(int line, const char *text, gcoo_dtype dtype, unsigned flags,
                       gcoo_status want, const char *needle) {
  char name[64];
  snprintf(name, sizeof name, "case%03d.mtx", case_no++);
  const char *path = write_bytes(name, text, strlen(text));
  gcoo_sparse A = (gcoo_sparse)(intptr_t)1;
  gcoo_status st = gcoo_mtx_read(path, dtype, flags, &A);
  gcoo_test_expect_failure(st, want, needle, name, __FILE__, line);
  if (st == want && !strstr(gcoo_last_error(), name)) {
    fprintf(stderr, "FAIL %s:%d: message does not name the file: %s\n", __FILE__, line,
            gcoo_last_error());
    gcoo_test_failures++;
  }
  if (A != NULL) {
    fprintf(stderr, "FAIL %s:%d: handle not NULL after a failure\n", __FILE__, line);
    gcoo_test_failures++;
  }
}
#define BAD(text, want, needle) bad_sparse(__LINE__, text, GCOO_FLOAT64, 0, want, needle)
#define BAD_F(text, dtype, flags, want, needle) \
  bad_sparse(__LINE__, text, dtype, flags, want, needle)

static void check_header_errors(void) {
  BAD("", GCOO_ERR_FORMAT, "empty file");
  BAD("\n\n", GCOO_ERR_FORMAT, "line 1: no Matrix Market banner");
  BAD("%%MatrixMarkt matrix coordinate real general\n1 1 0\n", GCOO_ERR_FORMAT,
      "line 1: no Matrix Market banner");
  BAD("1 1 1\n1 1 1\n", GCOO_ERR_FORMAT, "line 1: no Matrix Market banner");
  BAD("%%MatrixMarket matrix coordinate real\n1 1 0\n", GCOO_ERR_FORMAT,
      "line 1: the banner has 4 words, expected 5");
  BAD("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", GCOO_ERR_FORMAT,
      "the banner has more than 5 words");
  BAD("%%MatrixMarket vector coordinate real general\n1 1 0\n", GCOO_ERR_FORMAT,
      "line 1: unknown object \"vector\"");
  BAD("%%MatrixMarket matrix sparse real general\n1 1 0\n", GCOO_ERR_FORMAT,
      "line 1: unknown format \"sparse\"");
  BAD("%%MatrixMarket matrix coordinate double general\n1 1 0\n", GCOO_ERR_FORMAT,
      "line 1: unknown field \"double\"");
  BAD("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", GCOO_ERR_FORMAT,
      "line 1: unknown symmetry \"upper\"");
  BAD("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", GCOO_ERR_UNSUPPORTED,
      "line 1: complex matrices are not supported");
  BAD("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", GCOO_ERR_UNSUPPORTED,
      "line 1: hermitian matrices are not supported");
  BAD("%%MatrixMarket matrix array pattern general\n1 1\n", GCOO_ERR_FORMAT,
      "line 1: an array file cannot be pattern");
  BAD("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", GCOO_ERR_FORMAT,
      "a pattern file cannot be skew-symmetric");
  BAD("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", GCOO_ERR_UNSUPPORTED,
      "symmetric array files are not supported");
  BAD("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", GCOO_ERR_UNSUPPORTED,
      "is an array (dense) file: read it with gcoo_mtx_read_dense");
}

static void check_size_errors(void) {
  BAD(BANNER "% only comments\n", GCOO_ERR_FORMAT, "line 2: the file ends before its size line");
  BAD(BANNER, GCOO_ERR_FORMAT, "line 1: the file ends before its size line");
  BAD(BANNER "3 3\n", GCOO_ERR_FORMAT, "line 2: bad size line: 2 numbers, expected 3");
  BAD(BANNER "3 3 1 1\n", GCOO_ERR_FORMAT, "line 2: bad size line: more than 3 numbers");
  BAD(BANNER "3 x 1\n", GCOO_ERR_FORMAT, "line 2: bad size line: columns \"x\" is not an integer");
  BAD(BANNER "3.0 3 1\n", GCOO_ERR_FORMAT, "rows \"3.0\" is not an integer");
  BAD(BANNER "-3 3 1\n", GCOO_ERR_FORMAT, "line 2: bad size line: rows = -3 is negative");
  BAD(BANNER "3 3 -1\n", GCOO_ERR_FORMAT, "entries = -1 is negative");
  BAD(BANNER "3 99999999999999999999999 1\n", GCOO_ERR_FORMAT, "is past 64 bits");
  BAD(BANNER "2147483648 3 0\n", GCOO_ERR_TOO_LARGE,
      "line 2: rows = 2147483648 does not fit a 32-bit index");
  BAD(BANNER "3 3000000000 0\n", GCOO_ERR_TOO_LARGE, "columns = 3000000000 does not fit");
  BAD("%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", GCOO_ERR_FORMAT,
      "line 2: a symmetric matrix must be square, this one is 3 x 4");
  BAD("%%MatrixMarket matrix coordinate real skew-symmetric\n4 3 0\n", GCOO_ERR_FORMAT,
      "a skew-symmetric matrix must be square");
}

static void check_entry_errors(void) {
  /* counts */
  BAD(BANNER "3 3 5\n1 1 1\n2 2 2\n3 3 3\n", GCOO_ERR_FORMAT,
      "line 5: truncated: expected 5 entries, found 3");
  BAD(BANNER "3 3 1000000000000\n1 1 1\n", GCOO_ERR_FORMAT,
      "truncated: expected 1000000000000 entries, found 1");
  BAD(BANNER "3 3 2\n1 1 1\n2 2 2\n3 3 3\n", GCOO_ERR_FORMAT,
      "line 5: trailing data after the 2 entries the size line announced");
  BAD(BANNER "3 3 0\nhello\n", GCOO_ERR_FORMAT, "line 3: trailing data");
  /* indices: 1-based in the messages */
  BAD(BANNER "3 3 2\n1 1 1\n4 1 1\n", GCOO_ERR_FORMAT, "line 4: row index 4 outside 1..3");
  BAD(BANNER "3 3 1\n1 0 1\n", GCOO_ERR_FORMAT, "line 3: column index 0 outside 1..3");
  BAD(BANNER "3 3 1\n-1 1 1\n", GCOO_ERR_FORMAT, "line 3: row index -1 outside 1..3");
  BAD(BANNER "3 3 1\n1 99999999999999999999 1\n", GCOO_ERR_FORMAT,
      "column index 99999999999999999999 outside 1..3");
  BAD(BANNER "3 3 1\na 1 1\n", GCOO_ERR_FORMAT, "line 3: row index \"a\" is not an integer");
  BAD(BANNER "3 3 1\n1 1.0 1\n", GCOO_ERR_FORMAT, "line 3: column index \"1.0\" is not an integer");
  /* tokens per line */
  BAD(BANNER "3 3 1\n1\n", GCOO_ERR_FORMAT, "line 3: 1 tokens, expected 3 (row column value)");
  BAD(BANNER "3 3 1\n1 1\n", GCOO_ERR_FORMAT, "line 3: 2 tokens, expected 3");
  BAD(BANNER "3 3 1\n1 1 1 1\n", GCOO_ERR_FORMAT, "line 3: more than 3 tokens");
  BAD("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", GCOO_ERR_FORMAT,
      "line 3: 3 tokens, expected 2 (row column, the file is pattern)");
  /* values */
  BAD(BANNER "3 3 1\n1 1 abc\n", GCOO_ERR_FORMAT, "line 3: value \"abc\" is not a number");
  BAD(BANNER "3 3 1\n1 1 1.2.3\n", GCOO_ERR_FORMAT, "value \"1.2.3\" is not a number");
  BAD(BANNER "3 3 1\n1 1 0x1p3\n", GCOO_ERR_FORMAT, "value \"0x1p3\" is not a number");
  BAD(BANNER "3 3 1\n1 1 1e\n", GCOO_ERR_FORMAT, "value \"1e\" is not a number");
  BAD(BANNER "3 3 1\n1 1 .\n", GCOO_ERR_FORMAT, "value \".\" is not a number");
  BAD(BANNER "3 3 1\n1 1 1.0D+00\n", GCOO_ERR_FORMAT, "value \"1.0D+00\" is not a number");
  BAD(BANNER "3 3 1\n1 1 --1\n", GCOO_ERR_FORMAT, "value \"--1\" is not a number");
  BAD("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", GCOO_ERR_FORMAT,
      "line 3: value \"1.5\" is not an integer (the file's field is integer)");
  BAD(BANNER "3 3 2\n1 1 1\n2 2 nan\n", GCOO_ERR_NOT_FINITE, "line 4: value \"nan\" is not finite");
  BAD(BANNER "3 3 1\n1 1 -Infinity\n", GCOO_ERR_NOT_FINITE, "value \"-Infinity\" is not finite");
  BAD(BANNER "3 3 1\n1 1 INF\n", GCOO_ERR_NOT_FINITE, "value \"INF\" is not finite");
  BAD(BANNER "3 3 1\n1 1 1e999\n", GCOO_ERR_NOT_FINITE, "value \"1e999\" overflows float64");
  BAD_F(BANNER "3 3 1\n1 1 1e39\n", GCOO_FLOAT32, 0, GCOO_ERR_NOT_FINITE,
        "value \"1e39\" overflows float32");
  BAD_F(BANNER "3 3 1\n1 1 3.4028236e38\n", GCOO_FLOAT32, 0, GCOO_ERR_NOT_FINITE,
        "overflows float32");
  /* long tokens are quoted shortened */
  BAD(BANNER "3 3 1\n1 1 123456789012345678901234567890123456789012345678901234567890x\n",
      GCOO_ERR_FORMAT, "value \"1234567890123456789012345678901234567890\" is not");
  /* symmetry */
  BAD("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 1 1\n1 3 1\n",
      GCOO_ERR_FORMAT,
      "line 5: entry (1, 3) is above the diagonal, but line 3 has one below: a symmetric file "
      "stores one triangle only");
  BAD("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 5\n",
      GCOO_ERR_FORMAT, "line 4: diagonal entry (2, 2) = 5 in a skew-symmetric file (must be 0)");
  BAD("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n1 2 1\n3 2 1\n",
      GCOO_ERR_FORMAT, "line 4: entry (3, 2) is below the diagonal, but line 3 has one above");
  /* duplicates refused on request, naming both lines */
  BAD_F(BANNER "3 3 3\n1 1 1\n% c\n2 2 1\n1 1 2\n", GCOO_FLOAT64, GCOO_DUPLICATES_ERROR,
        GCOO_ERR_DUPLICATE, "line 6: entry (1, 1) repeats line 3");
  BAD_F("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n3 1\n2 2\n3 1\n", GCOO_FLOAT32,
        GCOO_DUPLICATES_ERROR, GCOO_ERR_DUPLICATE, "line 5: entry (3, 1) repeats line 3");
  /* binary junk */
  static const char nul[] = BANNER "3 3 1\n1 1\0 1\n";
  char name[64];
  snprintf(name, sizeof name, "case%03d.mtx", case_no++);
  gcoo_sparse A = NULL;
  TEST_FAILS(gcoo_mtx_read(write_bytes(name, nul, sizeof nul - 1), GCOO_FLOAT64, 0, &A),
             GCOO_ERR_FORMAT, "line 3: NUL byte: binary data");
}

static void check_call_errors(void) {
  gcoo_sparse A = NULL;
  gcoo_dense D;
  gcoo_mtx_header h;
  const char *ok = gcoo_test_data("west0479.mtx.gz");
  TEST_FAILS(gcoo_mtx_read(NULL, GCOO_FLOAT64, 0, &A), GCOO_ERR_NULL, "path is NULL");
  TEST_FAILS(gcoo_mtx_read(ok, GCOO_FLOAT64, 0, NULL), GCOO_ERR_NULL, "output handle is NULL");
  TEST_FAILS(gcoo_mtx_read(ok, (gcoo_dtype)4, 0, &A), GCOO_ERR_INVALID_ARG,
             "unknown element type 4");
  TEST_FAILS(gcoo_mtx_read(ok, GCOO_FLOAT64, 1u << 9, &A), GCOO_ERR_INVALID_ARG,
             "unknown flags 0x200");
  TEST_FAILS(gcoo_mtx_read_header(ok, NULL), GCOO_ERR_NULL, "header is NULL");
  TEST_FAILS(gcoo_mtx_read_dense(ok, GCOO_FLOAT64, GCOO_ROW_MAJOR, NULL), GCOO_ERR_NULL,
             "output matrix is NULL");
  TEST_FAILS(gcoo_mtx_read_dense(ok, GCOO_FLOAT64, (gcoo_layout)3, &D), GCOO_ERR_INVALID_ARG,
             "unknown layout 3");
  TEST_FAILS(gcoo_mtx_read_dense(ok, GCOO_FLOAT64, GCOO_ROW_MAJOR, &D), GCOO_ERR_UNSUPPORTED,
             "is a coordinate (sparse) file: read it with gcoo_mtx_read");
  /* files that cannot be read */
  TEST_FAILS(gcoo_mtx_read(tmp_path("no_such_file.mtx"), GCOO_FLOAT64, 0, &A), GCOO_ERR_IO,
             "no_such_file.mtx: No such file or directory");
  TEST_FAILS(gcoo_mtx_read_header(tmp_path("no_such_file.mtx"), &h), GCOO_ERR_IO, "cannot open");
  TEST_FAILS(gcoo_mtx_read(ut_tmpdir(), GCOO_FLOAT64, 0, &A), GCOO_ERR_IO, "Is a directory");
  TEST_CHECK(A == NULL, "handle set on failure");
}

static void check_dense_errors(void) {
  static const struct {
    const char *text;
    gcoo_status st;
    const char *needle;
  } cases[] = {
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", GCOO_ERR_FORMAT,
       "line 5: truncated: expected 4 entries, found 3"},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n5\n", GCOO_ERR_FORMAT,
       "line 7: trailing data after the 4 entries"},
      {"%%MatrixMarket matrix array real general\n2 2\n1 2\n3\n4\n", GCOO_ERR_FORMAT,
       "line 3: more than one token, expected one value a line"},
      {"%%MatrixMarket matrix array real general\n2 2 4\n1\n2\n3\n4\n", GCOO_ERR_FORMAT,
       "line 2: bad size line: 3 numbers, expected 2 (rows columns)"},
      {"%%MatrixMarket matrix array integer general\n1 2\n1\n2.5\n", GCOO_ERR_FORMAT,
       "line 4: value \"2.5\" is not an integer"},
      {"%%MatrixMarket matrix array real general\n1 2\n1\nNaN\n", GCOO_ERR_NOT_FINITE,
       "line 4: value \"NaN\" is not finite"},
      {"%%MatrixMarket matrix array complex general\n1 1\n1 0\n", GCOO_ERR_UNSUPPORTED, "complex"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char name[64];
    snprintf(name, sizeof name, "dense%02zu.mtx", k);
    gcoo_dense D = {0};
    gcoo_status st = gcoo_mtx_read_dense(write_bytes(name, cases[k].text, strlen(cases[k].text)),
                                         GCOO_FLOAT64, GCOO_COL_MAJOR, &D);
    gcoo_test_expect_failure(st, cases[k].st, cases[k].needle, name, __FILE__, __LINE__);
    TEST_CHECK(D.data == NULL, "%s: a matrix was returned", name);
  }
}

/* Compressed input: a .gz that is not gzip, a truncated one, a corrupt one. */
static void check_gzip_errors(void) {
  gcoo_sparse A = NULL, B = NULL;
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 400, 400, 0.9, 5, 0));
  const char *good = tmp_path("good.mtx.gz");
  TEST_CALL(gcoo_mtx_write(good, A));
  FILE *f = fopen(good, "rb");
  static unsigned char data[1 << 22];
  size_t n = f ? fread(data, 1, sizeof data, f) : 0;
  if (f) fclose(f);
  TEST_CHECK(n > 1000 && n < sizeof data, "compressed size %zu", n);
  TEST_CALL(gcoo_mtx_read(good, GCOO_FLOAT64, 0, &B));
  gcoo_sparse_destroy(&B);
  /* plain text under a .gz name */
  static const char plain[] = BANNER "1 1 1\n1 1 1\n";
  TEST_FAILS(gcoo_mtx_read(write_bytes("plain.mtx.gz", plain, sizeof plain - 1), GCOO_FLOAT64, 0,
                           &B),
             GCOO_ERR_FORMAT,
             "plain.mtx.gz: named .gz but not gzip-compressed (starts with bytes 25 25, gzip "
             "starts with 1f 8b)");
  TEST_FAILS(gcoo_mtx_read(write_bytes("empty.mtx.gz", "", 0), GCOO_FLOAT64, 0, &B),
             GCOO_ERR_FORMAT, "empty.mtx.gz: empty file");
  TEST_FAILS(gcoo_mtx_read(write_bytes("one.mtx.gz", "\x1f", 1), GCOO_FLOAT64, 0, &B),
             GCOO_ERR_FORMAT, "not gzip-compressed");
  /* cut in the middle, and cut only in the 8-byte trailer (CRC and length) */
  TEST_FAILS(gcoo_mtx_read(write_bytes("half.mtx.gz", data, n / 2), GCOO_FLOAT64, 0, &B),
             GCOO_ERR_FORMAT, "the gzip stream ends early: the file is truncated");
  TEST_CHECK(strstr(gcoo_last_error(), "half.mtx.gz, line ") != NULL, "no line in: %s",
             gcoo_last_error());
  TEST_FAILS(gcoo_mtx_read(write_bytes("trailer.mtx.gz", data, n - 4), GCOO_FLOAT64, 0, &B),
             GCOO_ERR_FORMAT, "the file is truncated");
  TEST_FAILS(gcoo_mtx_read(write_bytes("header_only.mtx.gz", data, 10), GCOO_FLOAT64, 0, &B),
             GCOO_ERR_FORMAT, "line 1: the gzip stream ends early");
  /* a flipped byte in the deflate data, and a flipped byte in the CRC */
  data[n / 2] ^= 0x55;
  TEST_FAILS(gcoo_mtx_read(write_bytes("corrupt.mtx.gz", data, n), GCOO_FLOAT64, 0, &B),
             GCOO_ERR_FORMAT, "corrupt gzip data");
  data[n / 2] ^= 0x55;
  data[n - 6] ^= 0x01;
  TEST_FAILS(gcoo_mtx_read(write_bytes("crc.mtx.gz", data, n), GCOO_FLOAT64, 0, &B),
             GCOO_ERR_FORMAT, "corrupt gzip data (zlib: incorrect data check)");
  TEST_CHECK(B == NULL, "handle set on failure");
  gcoo_sparse_destroy(&A);
}

/* Writers: failures are reported and leave no temporary file. */
static void check_write_errors(void) {
  gcoo_sparse A = NULL;
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_COO, 5, 5, 0.5, 1, 0));
  char p[1100];
  snprintf(p, sizeof p, "%s/no_such_dir/out.mtx", ut_tmpdir());
  TEST_FAILS(gcoo_mtx_write(p, A), GCOO_ERR_IO, "out.mtx.tmp.");
  TEST_CHECK(strstr(gcoo_last_error(), "No such file or directory") != NULL, "%s",
             gcoo_last_error());
  /* the path is a directory: the temporary is written, the rename fails, the temporary goes */
  const char *dir = tmp_path("a_directory.mtx");
  TEST_CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
  TEST_FAILS(gcoo_mtx_write(dir, A), GCOO_ERR_IO, "cannot rename");
  TEST_FAILS(gcoo_mtx_write(tmp_path("a_directory.mtx"), NULL), GCOO_ERR_NULL,
             "sparse matrix is NULL");
  TEST_FAILS(gcoo_mtx_write(NULL, A), GCOO_ERR_NULL, "path is NULL");
  TEST_FAILS(gcoo_mtx_write("", A), GCOO_ERR_NULL, "path is NULL or empty");
  double buf[4] = {1, 2, 3, 4};
  gcoo_dense D = gcoo_dense_wrap(buf, GCOO_FLOAT64, GCOO_ROW_MAJOR, 2, 2, 0);
  TEST_FAILS(gcoo_mtx_write_dense(tmp_path("a_directory.mtx"), &D), GCOO_ERR_IO, "cannot rename");
  D.mem = GCOO_MEM_DEVICE;
  TEST_FAILS(gcoo_mtx_write_dense(tmp_path("d.mtx"), &D), GCOO_ERR_INVALID_ARG, "host memory");
  TEST_FAILS(gcoo_mtx_write_dense(tmp_path("d.mtx"), NULL), GCOO_ERR_NULL, "dense matrix is NULL");
  TEST_CHECK(access(tmp_path("d.mtx"), F_OK) != 0, "a file was written for a failed call");
  gcoo_sparse_destroy(&A);
}

int main(void) {
  check_header_errors();
  check_size_errors();
  check_entry_errors();
  check_call_errors();
  check_dense_errors();
  check_gzip_errors();
  check_write_errors();
  int left = ut_count_files(ut_tmpdir(), ".tmp.");
  TEST_CHECK(left == 0, "%d temporary file(s) left behind in %s", left, ut_tmpdir());
  ut_tmpdir_remove();
  return gcoo_test_finish("t071-mtx-bad");
}
