/* SPDX-License-Identifier: MIT */
/* tests/unit/unit_util.h: helpers of the unit tests: a generator of their own (independent of
 * the library's), random dense matrices with a chosen density, and the expected arrays of every
 * sparse format built by plain scans of a dense matrix, so conversions are checked against code
 * that shares nothing with src/convert.c. */
#ifndef GCOO_UNIT_UTIL_H
#define GCOO_UNIT_UTIL_H

#include "gcoo_test.h"

/** The test's own generator (SplitMix64): uniform in [0, 1). */
typedef struct ut_rng {
  uint64_t x;
} ut_rng;
double ut_uniform(ut_rng *r);
uint64_t ut_below(ut_rng *r, uint64_t n);

/** Host dense m x n matrix: each element nonzero with probability density, values uniform in
 *  [-1, 1) without exact zeros (so the nonzero pattern is known exactly). */
gcoo_dense ut_random_dense(gcoo_dtype dtype, gcoo_layout layout, int64_t m, int64_t n,
                           double density, uint64_t seed);

/** Expected arrays of a sparse format, built by scanning a dense matrix:
 *  COO/CSR row by row, CSC column by column, GCOO group by group then row by row. */
typedef struct ut_expect {
  gcoo_format format;
  gcoo_dtype dtype;
  int64_t nrows, ncols, nnz;
  int32_t p;
  int64_t ngroups;
  int64_t *ptr, *gidx;
  int32_t *ind, *rows, *cols;
  void *vals;
} ut_expect;

ut_expect ut_expect_from_dense(const gcoo_dense *D, gcoo_format format, int32_t p);
void ut_expect_free(ut_expect *e);

/** Check every array of A against e, bit for bit; each difference is a counted failure
 *  naming `what`. Returns the number of differences found. */
int ut_check_arrays(gcoo_sparse A, const ut_expect *e, const char *what);

/** Bit-for-bit equality of two matrices (info and arrays); counts a failure if not. */
int ut_check_same(gcoo_sparse A, gcoo_sparse B, const char *what);

/** Every element of two dense matrices bit-equal (any layouts); counts a failure if not. */
int ut_check_dense_equal(const gcoo_dense *A, const gcoo_dense *B, const char *what);

/** Name of a format ("CSR"). */
const char *ut_format_name(gcoo_format f);

/** Make a fresh empty temporary directory (removed by ut_tmpdir_remove); returns its path. */
const char *ut_tmpdir(void);
/** Number of entries of dir whose name contains needle (0 if none). */
int ut_count_files(const char *dir, const char *needle);
void ut_tmpdir_remove(void);

#endif
