/* SPDX-License-Identifier: MIT */
/* tests/io/t414-h5-direct.c: the direct reads of io/h5_direct.c (parallel preads in 8 MiB
 * pieces) give the same slabs, bit for bit, as HDF5's rounds (GCOO_H5_DIRECT=0), for datasets of
 * several pieces, float and double, whole matrices and slabs starting mid-piece; and a bad
 * element in a late piece (a NaN value, a negative index) is reported with the same status and
 * the same message, naming the same element, as the rounds report it. And the read ahead
 * (io/prefetch.c, through gcoo_file_prefetch and gcoo_h5_prefetch): its errors, every page of
 * an evicted file back in the page cache after the parts 0..2 of 3 are asked for, and the
 * descriptors of its threads closed. */
#define _GNU_SOURCE /* mincore, posix_fadvise */
#include <dirent.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io_util.h"

static const char *dir;

static gcoo_status read_both(const char *path, gcoo_dtype dt, gcoo_sparse *direct,
                             gcoo_sparse *rounds, char *msg_direct, char *msg_rounds) {
  TEST_CALL(gcoo_param_set("GCOO_H5_DIRECT", NULL));
  gcoo_status a = gcoo_h5_read_sparse(path, dt, direct);
  snprintf(msg_direct, 1024, "%s", a < 0 ? gcoo_last_error() : "");
  TEST_CALL(gcoo_param_set("GCOO_H5_DIRECT", "0"));
  gcoo_status b = gcoo_h5_read_sparse(path, dt, rounds);
  snprintf(msg_rounds, 1024, "%s", b < 0 ? gcoo_last_error() : "");
  TEST_CALL(gcoo_param_set("GCOO_H5_DIRECT", NULL));
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
  TEST_CALL(gcoo_h5_write_sparse(path, A, GCOO_H5_OVERWRITE));
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
    TEST_CALL(gcoo_param_set("GCOO_H5_DIRECT", NULL));
    TEST_CALL(gcoo_h5_sparse_read_slab(f, dt, cuts[c][0], cuts[c][1], &D));
    TEST_CALL(gcoo_param_set("GCOO_H5_DIRECT", "0"));
    TEST_CALL(gcoo_h5_sparse_read_slab(f, dt, cuts[c][0], cuts[c][1], &R));
    TEST_CALL(gcoo_param_set("GCOO_H5_DIRECT", NULL));
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

/* ---- read ahead ---------------------------------------------------------------------------- */

/* Pages of file in the page cache, of *total (mincore over a read-only mapping). */
static long resident_pages(const char *file, long *total) {
  int fd = open(file, O_RDONLY);
  struct stat sb;
  *total = 0;
  if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size == 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  const long pg = sysconf(_SC_PAGESIZE), n = (long)((sb.st_size + pg - 1) / pg);
  void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
  unsigned char *v = malloc((size_t)n);
  long in = -1;
  if (m != MAP_FAILED && v && mincore(m, (size_t)sb.st_size, v) == 0) {
    in = 0;
    for (long i = 0; i < n; i++) in += v[i] & 1;
  }
  if (m != MAP_FAILED) munmap(m, (size_t)sb.st_size);
  free(v);
  close(fd);
  *total = n;
  return in;
}

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  if (!d) return -1;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

static void evict(const char *file) {
  int fd = open(file, O_RDONLY);
  if (fd < 0) return;
  fdatasync(fd);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
}

/* Wait up to 10 s for every page of file to be cached and the descriptors back to fds0. */
static void expect_read_ahead(const char *file, int fds0, const char *what) {
  long total = 0, in = resident_pages(file, &total);
  int fds = open_fds();
  for (int t = 0; t < 1000 && (in < total || fds != fds0); t++) {
    nanosleep(&(struct timespec){0, 10000000}, NULL);
    in = resident_pages(file, &total);
    fds = open_fds();
  }
  TEST_CHECK(in == total, "%s: %ld of %ld pages in the page cache 10 s after the read ahead", what,
             in, total);
  TEST_CHECK(fds == fds0, "%s: %d open descriptors, %d before: a thread kept its file open", what,
             fds, fds0);
}

static void read_ahead(void) {
  char path[1024], missing[1024];
  const char *file = io_path(dir, "big.h5");
  snprintf(path, sizeof path, "%s:/A", file);
  snprintf(missing, sizeof missing, "%s:/A", io_path(dir, "missing.h5"));
  TEST_FAILS(gcoo_file_prefetch(NULL, 0, 1), GCOO_ERR_NULL, "path is NULL");
  TEST_FAILS(gcoo_file_prefetch(path, 1, 1), GCOO_ERR_INVALID_ARG, "part 1 of 1 parts");
  TEST_FAILS(gcoo_file_prefetch(path, 0, 0), GCOO_ERR_INVALID_ARG, "part 0 of 0 parts");
  TEST_FAILS(gcoo_file_prefetch(missing, 0, 1), GCOO_ERR_IO, "missing.h5: cannot open");
  TEST_FAILS(gcoo_h5_prefetch(missing, 0, 1), GCOO_ERR_IO, "missing.h5");
  const int fds0 = open_fds();
  long total = 0, in;
  evict(file);
  in = resident_pages(file, &total);
  if (in < 0 || in == total) {
    /* tmpfs, or a file system that keeps its pages: nothing to see here */
    printf("t414: the page cache of %s cannot be emptied here (%ld of %ld pages stay): the read "
           "ahead's pages are not checked\n",
           file, in, total);
    TEST_CALL(gcoo_file_prefetch(path, 0, 1));
    expect_read_ahead(file, fds0, "gcoo_file_prefetch, 0 of 1");
    return;
  }
  for (int part = 0; part < 3; part++) TEST_CALL(gcoo_file_prefetch(path, part, 3));
  expect_read_ahead(file, fds0, "gcoo_file_prefetch, parts 0..2 of 3");
  /* one rank's share of the group's datasets (all of them for 1 rank) */
  evict(file);
  TEST_CALL(gcoo_h5_prefetch(path, 0, 1));
  expect_read_ahead(file, fds0, "gcoo_h5_prefetch, rank 0 of 1");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  dir = io_make_dir("t414");
  same_slabs(GCOO_FLOAT64);
  same_slabs(GCOO_FLOAT32);
  read_ahead();
  if (!gcoo_test_failures) io_remove_tree(dir);
  int rc = gcoo_test_finish("t414-h5-direct");
  MPI_Finalize();
  return rc;
}
