/* SPDX-License-Identifier: MIT */
/* tests/io/t414-h5-direct.c: the direct reads of io/h5_direct.c (parallel preads in 8 MiB
 * pieces) give the same slabs, bit for bit, as HDF5's rounds (GCOO_H5_DIRECT=0), for datasets of
 * several pieces, float and double, whole matrices and slabs starting mid-piece; and a bad
 * element in a late piece (a NaN value, a negative index) is reported with the same status and
 * the same message, naming the same element, as the rounds report it. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"

static const char *dir;

static gcoo_status read_both(const char *path, gcoo_dtype dt, gcoo_sparse *direct,
                             gcoo_sparse *rounds, char *msg_direct, char *msg_rounds) {
  unsetenv("GCOO_H5_DIRECT");
  gcoo_status a = gcoo_h5_read_sparse(path, dt, direct);
  snprintf(msg_direct, 1024, "%s", a < 0 ? gcoo_last_error() : "");
  setenv("GCOO_H5_DIRECT", "0", 1);
  gcoo_status b = gcoo_h5_read_sparse(path, dt, rounds);
  snprintf(msg_rounds, 1024, "%s", b < 0 ? gcoo_last_error() : "");
  unsetenv("GCOO_H5_DIRECT");
  TEST_CHECK(a == b, "%s: direct read status %d, rounds %d (%s | %s)", path, (int)a, (int)b,
             msg_direct, msg_rounds);
  return a;
}

/* overwrite element `at` of dataset name of the group /A with one value (native type t) */
static void poke(const char *file, const char *name, hsize_t at, hid_t t, const void *v) {
  hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
  TEST_CHECK(f >= 0, "cannot open %s for writing", file);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s = H5Dget_space(d);
  hsize_t one = 1;
  hid_t m = H5Screate_simple(1, &one, NULL);
  H5Sselect_hyperslab(s, H5S_SELECT_SET, &at, NULL, &one, NULL);
  TEST_CHECK(H5Dwrite(d, t, m, s, H5P_DEFAULT, v) >= 0, "cannot write %s[%llu]", name,
             (unsigned long long)at);
  H5Sclose(m);
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
}

static void same_slabs(gcoo_dtype dt) {
  char path[1024], a_msg[1024], b_msg[1024], what[64];
  const char *file = io_path(dir, "big.h5");
  snprintf(path, sizeof path, "%s:/A", file);
  snprintf(what, sizeof what, "%s, 3M entries", dt == GCOO_FLOAT64 ? "float64" : "float32");
  gcoo_sparse A = NULL, D = NULL, R = NULL;
  /* 300000 x 1000 at 1% dense: 3M entries, 12 MB of indices, 12 or 24 MB of values */
  TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 300000, 1000, 0.99, 11, 0));
  TEST_CALL(gcoo_h5_write_sparse_flags(path, A, GCOO_H5_OVERWRITE));
  TEST_CALL(read_both(path, dt, &D, &R, a_msg, b_msg));
  TEST_CHECK(io_compare_sparse(D, R, what) == 0, "%s: direct and rounds differ", what);
  TEST_CHECK(io_compare_sparse(D, A, what) == 0, "%s: read differs from what was written", what);
  gcoo_sparse_destroy(&D);
  gcoo_sparse_destroy(&R);
  /* slabs of the major dimension that start and end inside pieces */
  gcoo_h5_sparse_file f = NULL;
  TEST_CALL(gcoo_h5_sparse_open(MPI_COMM_SELF, path, &f));
  const int64_t cuts[][2] = {{0, 1}, {12345, 250001}, {299999, 300000}, {77, 77}};
  for (int c = 0; c < 4; c++) {
    unsetenv("GCOO_H5_DIRECT");
    TEST_CALL(gcoo_h5_sparse_read_slab(f, dt, cuts[c][0], cuts[c][1], &D));
    setenv("GCOO_H5_DIRECT", "0", 1);
    TEST_CALL(gcoo_h5_sparse_read_slab(f, dt, cuts[c][0], cuts[c][1], &R));
    unsetenv("GCOO_H5_DIRECT");
    TEST_CHECK(io_compare_sparse(D, R, "slab") == 0, "%s: slab [%lld, %lld) differs", what,
               (long long)cuts[c][0], (long long)cuts[c][1]);
    gcoo_sparse_destroy(&D);
    gcoo_sparse_destroy(&R);
  }
  TEST_CALL(gcoo_h5_sparse_close(&f));

  /* a NaN in a late piece of the values, then a negative index in a late piece of the indices */
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  const hsize_t bad_v = (hsize_t)(ai.nnz - 1234), bad_i = (hsize_t)(ai.nnz * 3 / 4);
  const double nan_d = NAN;
  const float nan_f = NAN;
  poke(file, "/A/data", bad_v, dt == GCOO_FLOAT64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT,
       dt == GCOO_FLOAT64 ? (const void *)&nan_d : (const void *)&nan_f);
  TEST_CHECK(read_both(path, dt, &D, &R, a_msg, b_msg) == GCOO_ERR_NOT_FINITE,
             "%s: a NaN value read without GCOO_ERR_NOT_FINITE (%s)", what, a_msg);
  TEST_CHECK(!strcmp(a_msg, b_msg), "%s: messages differ:\n  direct: %s\n  rounds: %s", what, a_msg,
             b_msg);
  char want[64];
  snprintf(want, sizeof want, "element %llu", (unsigned long long)bad_v);
  TEST_CHECK(strstr(a_msg, want) != NULL, "%s: the message does not name %s: %s", what, want,
             a_msg);
  const int32_t neg = -7;
  poke(file, "/A/indices", bad_i, H5T_NATIVE_INT32, &neg);
  TEST_CHECK(read_both(path, dt, &D, &R, a_msg, b_msg) == GCOO_ERR_INDEX_RANGE,
             "%s: a negative index read without GCOO_ERR_INDEX_RANGE (%s)", what, a_msg);
  TEST_CHECK(!strcmp(a_msg, b_msg), "%s: messages differ:\n  direct: %s\n  rounds: %s", what, a_msg,
             b_msg);
  snprintf(want, sizeof want, "element %llu", (unsigned long long)bad_i);
  TEST_CHECK(strstr(a_msg, want) != NULL, "%s: the message does not name %s: %s", what, want,
             a_msg);
  TEST_CHECK(D == NULL && R == NULL, "%s: a failed read returned a matrix", what);
  gcoo_sparse_destroy(&A);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  dir = io_make_dir("t414");
  same_slabs(GCOO_FLOAT64);
  same_slabs(GCOO_FLOAT32);
  if (!gcoo_test_failures) io_remove_tree(dir);
  int rc = gcoo_test_finish("t414-h5-direct");
  MPI_Finalize();
  return rc;
}
