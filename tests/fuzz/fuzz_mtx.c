/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_mtx.c: harness "mtx": the Matrix Market reader (io/mtx.c) on arbitrary bytes,
 * plain or gzip (the reader tells them apart by the magic, so one harness covers both framings;
 * fuzz_mtx_gz.c aims at the compressed path on purpose).
 *
 * Every input is read five ways: header only, CSR float64 (duplicates summed), CSR float32
 * (duplicates and non-finite values refused), dense float64 row-major, dense float32
 * column-major. Invariants checked besides "no crash, no leak, no undefined behaviour":
 *   - every failure has a documented status and a message; a bad header fails every reader
 *     with the status of the header reader; coordinate files fail the dense readers with
 *     GCOO_ERR_UNSUPPORTED and array files the sparse ones;
 *   - a matrix that was read validates, has the header's shape, and no more entries than the
 *     file can give (stored entries, twice for symmetric files);
 *   - the strict float32 read fails only where the float64 read fails or with DUPLICATE or
 *     NOT_FINITE, and when it succeeds its values are the float64 values rounded to float;
 *   - writing what was read and reading it back gives the same bits (plain, and gzip for some
 *     inputs), for sparse and dense, in both element types;
 *   - for small shapes, conversion to COO, CSC and GCOO (p from the input's hash) validates and
 *     converts back to the same CSR, and a double transpose is the identity.
 * Shapes whose CSR row pointers alone would take more than 8 MiB are read header-only: their
 * allocation is legitimate (tests/limits covers huge shapes under a memory limit). */
#include <string.h>

#include "fuzz_common.h"

enum {
  MAX_CSR_ROWS = 1 << 20,   /* (nrows + 2) int64 row pointers: 8 MiB; keeps a run under 1 s */
  MAX_CONVERT_DIM = 1 << 16 /* counting sorts of the conversions allocate O(nrows + ncols) */
};

static const gcoo_status header_errors[] = {GCOO_ERR_FORMAT, GCOO_ERR_TOO_LARGE,
                                            GCOO_ERR_UNSUPPORTED, GCOO_SUCCESS};
static const gcoo_status sparse_errors[] = {GCOO_ERR_FORMAT,      GCOO_ERR_TOO_LARGE,
                                            GCOO_ERR_UNSUPPORTED, GCOO_ERR_NOT_FINITE,
                                            GCOO_ERR_DUPLICATE,   GCOO_SUCCESS};
static const gcoo_status dense_errors[] = {GCOO_ERR_FORMAT, GCOO_ERR_TOO_LARGE,
                                           GCOO_ERR_UNSUPPORTED, GCOO_ERR_NOT_FINITE, GCOO_SUCCESS};

static void check_sparse_round_trip(gcoo_sparse A, gcoo_dtype dtype, unsigned flags,
                                    const char *name) {
  char path[512];
  gcoo_sparse B = NULL;
  fuzz_path(path, sizeof path, name);
  gcoo_clear_error();
  gcoo_status st = gcoo_mtx_write(path, A);
  FUZZ_ASSERT(st == GCOO_SUCCESS, "writing a matrix that was read failed: %s",
              gcoo_status_name(st));
  gcoo_clear_error();
  st = gcoo_mtx_read(path, dtype, flags, &B);
  FUZZ_ASSERT(st == GCOO_SUCCESS, "reading back %s failed: %s", name, gcoo_status_name(st));
  FUZZ_ASSERT(fuzz_same_sparse(A, B), "%s: the round trip changed the matrix", name);
  gcoo_sparse_destroy(&B);
}

static void check_dense_round_trip(const gcoo_dense *D, const char *name) {
  char path[512];
  gcoo_dense E = {0};
  fuzz_path(path, sizeof path, name);
  gcoo_clear_error();
  gcoo_status st = gcoo_mtx_write_dense(path, D);
  FUZZ_ASSERT(st == GCOO_SUCCESS, "writing a dense matrix that was read failed: %s",
              gcoo_status_name(st));
  gcoo_clear_error();
  st = gcoo_mtx_read_dense(path, D->dtype, D->layout, &E);
  FUZZ_ASSERT(st == GCOO_SUCCESS, "reading back %s failed: %s", name, gcoo_status_name(st));
  FUZZ_ASSERT(fuzz_same_dense(D, &E), "%s: the dense round trip changed the matrix", name);
  gcoo_dense_destroy(&E);
}

/* Conversions of a small CSR matrix to every format and back. */
static void check_conversions(gcoo_sparse A, uint64_t h) {
  static const gcoo_format formats[] = {GCOO_FORMAT_COO, GCOO_FORMAT_CSC, GCOO_FORMAT_GCOO};
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
    gcoo_sparse B = NULL, C = NULL;
    int32_t p = (int32_t)(1 + (h >> 8) % 40);
    gcoo_clear_error();
    gcoo_status st = gcoo_sparse_convert(&B, A, formats[f], p);
    FUZZ_ASSERT(st == GCOO_SUCCESS, "convert to format %d failed: %s", (int)formats[f],
                gcoo_status_name(st));
    st = gcoo_sparse_validate(B, GCOO_DUPLICATES_ERROR);
    FUZZ_ASSERT(st == GCOO_SUCCESS, "format %d does not validate: %s", (int)formats[f],
                gcoo_status_name(st));
    st = gcoo_sparse_convert(&C, B, GCOO_FORMAT_CSR, 0);
    FUZZ_ASSERT(st == GCOO_SUCCESS, "convert back from format %d failed", (int)formats[f]);
    FUZZ_ASSERT(fuzz_same_sparse(A, C), "CSR -> format %d -> CSR changed the matrix",
                (int)formats[f]);
    gcoo_sparse_destroy(&B);
    gcoo_sparse_destroy(&C);
  }
  gcoo_sparse T = NULL, TT = NULL;
  FUZZ_ASSERT(gcoo_sparse_transpose(&T, A) == GCOO_SUCCESS, "transpose failed");
  FUZZ_ASSERT(gcoo_sparse_transpose(&TT, T) == GCOO_SUCCESS, "second transpose failed");
  FUZZ_ASSERT(fuzz_same_sparse(A, TT), "a double transpose changed the matrix");
  gcoo_sparse_destroy(&T);
  gcoo_sparse_destroy(&TT);
}

/* The strict float32 read against the float64 one. */
static void check_f32_against_f64(gcoo_sparse A64, gcoo_status st64, gcoo_sparse A32,
                                  gcoo_status st32) {
  if (st64 < 0) {
    FUZZ_ASSERT(st32 < 0, "the strict float32 read succeeded where the float64 read failed");
    return;
  }
  if (st32 < 0) {
    FUZZ_ASSERT(st32 == GCOO_ERR_DUPLICATE || st32 == GCOO_ERR_NOT_FINITE,
                "float64 read succeeded, float32 read failed with %s", gcoo_status_name(st32));
    return;
  }
  gcoo_sparse_info i64, i32;
  gcoo_sparse_arrays a64, a32;
  gcoo_sparse_get_info(A64, &i64);
  gcoo_sparse_get_info(A32, &i32);
  gcoo_sparse_get_arrays(A64, &a64);
  gcoo_sparse_get_arrays(A32, &a32);
  FUZZ_ASSERT(i64.nrows == i32.nrows && i64.ncols == i32.ncols && i64.nnz == i32.nnz,
              "float32 and float64 reads differ in shape or entries");
  FUZZ_ASSERT(!memcmp(a64.ptr, a32.ptr, (size_t)(i64.nrows + 1) * sizeof *a64.ptr) &&
                  (!i64.nnz || !memcmp(a64.ind, a32.ind, (size_t)i64.nnz * sizeof *a64.ind)),
              "float32 and float64 reads differ in structure");
  for (int64_t k = 0; k < i64.nnz; k++) {
    float want = (float)((const double *)a64.values)[k];
    float got = ((const float *)a32.values)[k];
    FUZZ_ASSERT(!memcmp(&want, &got, sizeof want), "entry %lld: float32 read %.9g, float64 %.17g",
                (long long)k, (double)got, ((const double *)a64.values)[k]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[512];
  gcoo_mtx_header h;
  gcoo_sparse A64 = NULL, A32 = NULL;
  gcoo_dense D64 = {0}, D32 = {0};
  const uint64_t hash = fuzz_hash(data, size);
  fuzz_path(path, sizeof path, "in.mtx");
  fuzz_write_file(path, data, size);

  gcoo_clear_error();
  gcoo_status sh = gcoo_mtx_read_header(path, &h);
  if (sh < 0) {
    fuzz_check_failure(sh, "gcoo_mtx_read_header", header_errors);
    /* the readers share the preamble code: they must fail the same way */
    gcoo_clear_error();
    gcoo_status s = gcoo_mtx_read(path, GCOO_FLOAT64, 0, &A64);
    FUZZ_ASSERT(s == sh && A64 == NULL, "header read failed with %s, CSR read returned %s",
                gcoo_status_name(sh), gcoo_status_name(s));
    gcoo_clear_error();
    s = gcoo_mtx_read_dense(path, GCOO_FLOAT64, GCOO_ROW_MAJOR, &D64);
    FUZZ_ASSERT(s == sh, "header read failed with %s, dense read returned %s", gcoo_status_name(sh),
                gcoo_status_name(s));
    return 0;
  }
  const int coordinate = !strcmp(h.format, "coordinate");
  FUZZ_ASSERT(coordinate || !strcmp(h.format, "array"), "header format \"%s\"", h.format);
  FUZZ_ASSERT(h.nrows >= 0 && h.ncols >= 0 && h.nrows <= INT32_MAX && h.ncols <= INT32_MAX &&
                  h.nstored >= 0,
              "header sizes %lld x %lld, %lld stored", (long long)h.nrows, (long long)h.ncols,
              (long long)h.nstored);
  const int general = !strcmp(h.symmetry, "general");

  if (coordinate) {
    /* the dense readers refuse coordinate files */
    gcoo_clear_error();
    gcoo_status s = gcoo_mtx_read_dense(path, GCOO_FLOAT64, GCOO_ROW_MAJOR, &D64);
    FUZZ_ASSERT(s == GCOO_ERR_UNSUPPORTED, "dense read of a coordinate file returned %s",
                gcoo_status_name(s));
    if (h.nrows > MAX_CSR_ROWS) return 0;
    gcoo_clear_error();
    gcoo_status s64 = gcoo_mtx_read(path, GCOO_FLOAT64, 0, &A64);
    if (s64 < 0) fuzz_check_failure(s64, "gcoo_mtx_read (float64)", sparse_errors);
    gcoo_clear_error();
    gcoo_status s32 = gcoo_mtx_read(path, GCOO_FLOAT32, GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE,
                                    &A32);
    if (s32 < 0) fuzz_check_failure(s32, "gcoo_mtx_read (float32, strict)", sparse_errors);
    check_f32_against_f64(A64, s64, A32, s32);
    if (s64 >= 0) {
      gcoo_sparse_info info;
      FUZZ_ASSERT(gcoo_sparse_validate(A64, 0) == GCOO_SUCCESS, "a matrix read does not validate");
      gcoo_sparse_get_info(A64, &info);
      FUZZ_ASSERT(info.format == GCOO_FORMAT_CSR && info.dtype == GCOO_FLOAT64 &&
                      info.nrows == h.nrows && info.ncols == h.ncols,
                  "read %lld x %lld, header says %lld x %lld", (long long)info.nrows,
                  (long long)info.ncols, (long long)h.nrows, (long long)h.ncols);
      FUZZ_ASSERT(info.nnz <= (general ? 1 : 2) * h.nstored, "%lld entries from %lld stored",
                  (long long)info.nnz, (long long)h.nstored);
      check_sparse_round_trip(A64, GCOO_FLOAT64, 0, (hash & 15) == 0 ? "rt64.mtx.gz" : "rt64.mtx");
      if (info.nrows <= MAX_CONVERT_DIM && info.ncols <= MAX_CONVERT_DIM)
        check_conversions(A64, hash);
    }
    if (s32 >= 0) {
      FUZZ_ASSERT(gcoo_sparse_validate(A32, GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE) ==
                      GCOO_SUCCESS,
                  "a strict float32 read does not validate strictly");
      check_sparse_round_trip(A32, GCOO_FLOAT32, GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE,
                              "rt32.mtx");
    }
  } else {
    gcoo_clear_error();
    gcoo_status s = gcoo_mtx_read(path, GCOO_FLOAT64, 0, &A64);
    FUZZ_ASSERT(s == GCOO_ERR_UNSUPPORTED && A64 == NULL, "CSR read of an array file returned %s",
                gcoo_status_name(s));
    gcoo_clear_error();
    gcoo_status s64 = gcoo_mtx_read_dense(path, GCOO_FLOAT64, GCOO_ROW_MAJOR, &D64);
    if (s64 < 0) fuzz_check_failure(s64, "gcoo_mtx_read_dense (float64)", dense_errors);
    gcoo_clear_error();
    gcoo_status s32 = gcoo_mtx_read_dense(path, GCOO_FLOAT32, GCOO_COL_MAJOR, &D32);
    if (s32 < 0) fuzz_check_failure(s32, "gcoo_mtx_read_dense (float32)", dense_errors);
    if (s64 < 0) FUZZ_ASSERT(s32 < 0, "dense float32 read succeeded where float64 failed");
    if (s64 >= 0 && s32 < 0)
      FUZZ_ASSERT(s32 == GCOO_ERR_NOT_FINITE, "dense float64 read succeeded, float32 returned %s",
                  gcoo_status_name(s32));
    if (s64 >= 0) {
      FUZZ_ASSERT(gcoo_dense_check(&D64) == GCOO_SUCCESS && D64.nrows == h.nrows &&
                      D64.ncols == h.ncols && D64.layout == GCOO_ROW_MAJOR,
                  "dense read %lld x %lld, header says %lld x %lld", (long long)D64.nrows,
                  (long long)D64.ncols, (long long)h.nrows, (long long)h.ncols);
      check_dense_round_trip(&D64, (hash & 15) == 0 ? "rt64d.mtx.gz" : "rt64d.mtx");
    }
    if (s32 >= 0) {
      FUZZ_ASSERT(gcoo_dense_check(&D32) == GCOO_SUCCESS && D32.layout == GCOO_COL_MAJOR,
                  "dense float32 read is not a valid column-major matrix");
      for (int64_t j = 0; D32.nrows > 0 && j < D32.ncols; j++)
        for (int64_t i = 0; i < D32.nrows; i++) {
          float want = (float)gcoo_dense_get(&D64, i, j), got = (float)gcoo_dense_get(&D32, i, j);
          FUZZ_ASSERT(!memcmp(&want, &got, sizeof want),
                      "dense (%lld, %lld): float32 %.9g, "
                      "float64 rounded %.9g",
                      (long long)i, (long long)j, (double)got, (double)want);
        }
      check_dense_round_trip(&D32, "rt32d.mtx");
    }
  }
  gcoo_sparse_destroy(&A64);
  gcoo_sparse_destroy(&A32);
  gcoo_dense_destroy(&D64);
  gcoo_dense_destroy(&D32);
  return 0;
}
