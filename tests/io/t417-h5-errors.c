/* SPDX-License-Identifier: MIT */
/* tests/io/t417-h5-errors.c: every malformed file, missing object and bad argument gives the
 * documented status and a message naming the object and the problem; nothing is printed (HDF5's
 * own error printing stays off inside gcoo and is restored afterwards); a failed write leaves
 * neither the target nor the temp file, and an existing target untouched; an output is compared
 * with an input by identity and checked before it is written (gcoo_output_overlaps,
 * gcoo_output_check). The malformed files come from tests/io/h5_python.py. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_util.h"

static const char *dir;

static const char *obj(const char *o) {
  static char ring[4][1024];
  static int at = 0;
  char *b = ring[at++ % 4];
  snprintf(b, 1024, "%s/%s", dir, o);
  return b;
}

/* read_sparse must fail with st and a message containing needle (and the object's name) */
static void sparse_fails(const char *o, gcoo_status st, const char *needle) {
  gcoo_sparse A = (gcoo_sparse)1;
  gcoo_test_expect_failure(gcoo_h5_read_sparse(obj(o), GCOO_FLOAT64, &A), st, needle, o, __FILE__,
                           __LINE__);
  TEST_CHECK(A == NULL, "%s: output not reset to NULL on failure", o);
  /* the message names the object, or the file when the file itself is the problem */
  char name[256];
  snprintf(name, sizeof name, "%s", o);
  int file_level = st == GCOO_ERR_IO || st == GCOO_ERR_HDF5 || strstr(needle, "HDF5 file");
  if (file_level) *strchr(name, ':') = '\0';
  TEST_CHECK(strstr(gcoo_last_error(), name) != NULL, "%s: message does not name %s: %s", o, name,
             gcoo_last_error());
}

static void dense_fails(const char *o, gcoo_status st, const char *needle) {
  gcoo_dense D;
  gcoo_test_expect_failure(gcoo_h5_read_dense(obj(o), GCOO_FLOAT64, GCOO_ROW_MAJOR, &D), st, needle,
                           o, __FILE__, __LINE__);
  TEST_CHECK(D.data == NULL, "%s: output not reset on failure", o);
}

static void reading(void) {
  gcoo_sparse A = NULL;
  gcoo_h5_info info;
  /* files */
  sparse_fails("nope.h5:/X", GCOO_ERR_IO, "No such file or directory");
  TEST_CHECK(strstr(gcoo_last_error(), "nope.h5") != NULL, "missing file not named: %s",
             gcoo_last_error());
  TEST_FAILS(gcoo_h5_read_sparse(dir, GCOO_FLOAT64, &A), GCOO_ERR_IO, "is a directory");
  sparse_fails("notahdf5.h5:/X", GCOO_ERR_FORMAT, "is not an HDF5 file");
  sparse_fails("truncated.h5:/big", GCOO_ERR_HDF5, "HDF5 H5Fopen");
  /* objects */
  sparse_fails("bad.h5:/nothere", GCOO_ERR_FORMAT, "no object \"nothere\" in group /");
  TEST_CHECK(strstr(gcoo_last_error(), "bool_data") != NULL, "members not listed: %s",
             gcoo_last_error());
  sparse_fails("bad.h5:/a/b", GCOO_ERR_FORMAT, "no object \"a\"");
  sparse_fails("bad.h5:/gcoo_ok/rows/x", GCOO_ERR_FORMAT,
               "/gcoo_ok/rows is a dataset, not a group");
  sparse_fails("bad.h5:/noenc", GCOO_ERR_FORMAT, "no attribute encoding-type");
  sparse_fails("bad.h5:/unknown", GCOO_ERR_FORMAT, "encoding-type \"coo_matrix\"");
  sparse_fails("bad.h5:/version", GCOO_ERR_FORMAT, "encoding-version \"2.0.0\" is not supported");
  sparse_fails("bad.h5:/noshape", GCOO_ERR_FORMAT, "no attribute shape");
  sparse_fails("bad.h5:/negshape", GCOO_ERR_FORMAT, "shape -4 x 5 is negative");
  sparse_fails("bad.h5:/shape3", GCOO_ERR_FORMAT, "attribute shape has 3 values, expected 2");
  sparse_fails("bad.h5:/toolarge", GCOO_ERR_TOO_LARGE, "shape 3000000000 x 5 does not fit");
  sparse_fails("bad.h5:/shape_mismatch", GCOO_ERR_FORMAT,
               "indptr has 5 entries but shape 5 x 5 needs 6 (one per row, plus one)");
  sparse_fails("bad.h5:/missing_indices", GCOO_ERR_FORMAT,
               "/missing_indices/indices: no such dataset");
  sparse_fails("bad.h5:/string_data", GCOO_ERR_FORMAT, "/string_data/data: elements are string");
  sparse_fails("bad.h5:/bool_data", GCOO_ERR_FORMAT, "enum");
  sparse_fails("bad.h5:/indices_float", GCOO_ERR_FORMAT,
               "indices holds float64; it must hold integers");
  sparse_fails("bad.h5:/data2d", GCOO_ERR_FORMAT, "data must be 1-D; it is 4 x 1");
  sparse_fails("bad.h5:/len_mismatch", GCOO_ERR_FORMAT, "data has 3 entries but");
  /* pointers */
  sparse_fails("bad.h5:/indptr0", GCOO_ERR_FORMAT, "indptr[0] = 1, must be 0");
  sparse_fails("bad.h5:/indptr_dec", GCOO_ERR_FORMAT, "indptr decreases at row 1: 3 then 2");
  sparse_fails("bad.h5:/indptr_last", GCOO_ERR_FORMAT,
               "indptr ends at 3 but the entry datasets hold 4 entries");
  /* entries */
  sparse_fails("bad.h5:/idx_range", GCOO_ERR_INDEX_RANGE, "row 2 has column index 7 outside 0..4");
  sparse_fails("bad.h5:/idx_neg", GCOO_ERR_INDEX_RANGE, "indices: element 2 = -1 is not an index");
  sparse_fails("bad.h5:/idx_huge", GCOO_ERR_INDEX_RANGE, "element 2 = 8589934592 is not an index");
  sparse_fails("bad.h5:/nan", GCOO_ERR_NOT_FINITE, "/nan/data: element 1 is nan");
  sparse_fails("bad.h5:/inf", GCOO_ERR_NOT_FINITE, "/inf/data: element 3 is -inf");
  TEST_FAILS(gcoo_h5_read_sparse(obj("bad.h5:/overflow32"), GCOO_FLOAT32, &A), GCOO_ERR_NOT_FINITE,
             "element 2 is 1.0000000000000001e+300 (after conversion)");
  TEST_CALL(gcoo_h5_read_sparse(obj("bad.h5:/overflow32"), GCOO_FLOAT64, &A));
  gcoo_sparse_destroy(&A);
  /* GCOO groups */
  TEST_CALL(gcoo_h5_read_sparse(obj("bad.h5:/gcoo_ok"), GCOO_FLOAT64, &A));
  gcoo_sparse_destroy(&A);
  sparse_fails("bad.h5:/gcoo_unsorted", GCOO_ERR_UNSORTED, "group 0 entry 1: (1, 1) after (2, 0)");
  sparse_fails("bad.h5:/gcoo_colrange", GCOO_ERR_INDEX_RANGE,
               "group 0 entry 0: column 3 outside the group's columns 0..1");
  sparse_fails("bad.h5:/gcoo_counts", GCOO_ERR_FORMAT, "nnzPerGroup[0] = 4 but gIdxes gives 3");
  sparse_fails("bad.h5:/gcoo_nop", GCOO_ERR_FORMAT, "needs the attribute p");
  sparse_fails("bad.h5:/gcoo_gidx_len", GCOO_ERR_FORMAT,
               "gIdxes has 5 entries but shape 3 x 5 with this p needs 4");
  /* accepted variations */
  TEST_CALL(gcoo_h5_read_sparse(obj("bad.h5:/noversion"), GCOO_FLOAT32, &A));
  gcoo_sparse_destroy(&A);
  TEST_CALL(gcoo_h5_read_sparse(obj("bad.h5:/unsorted_ok"), GCOO_FLOAT32, &A));
  TEST_CALL(gcoo_sparse_validate(A, GCOO_DUPLICATES_ERROR));
  gcoo_sparse_destroy(&A);
  /* kinds mixed up */
  sparse_fails("bad.h5:/dense_badlayout", GCOO_ERR_FORMAT, "diagonal");
  TEST_FAILS(gcoo_h5_read_sparse(obj("bad.h5:/gcoo_ok/values"), GCOO_FLOAT64, &A), GCOO_ERR_FORMAT,
             "is a dense dataset (6 x 1 float64), not a sparse matrix group");
  dense_fails("bad.h5:/gcoo_ok", GCOO_ERR_FORMAT,
              "is a group (encoding-type gcoo_matrix), not a dense dataset");
  dense_fails("bad.h5:/dense3d", GCOO_ERR_FORMAT, "dense3d has 3 dimensions");
  dense_fails("bad.h5:/dense_nan", GCOO_ERR_NOT_FINITE, "dense_nan: row 1, column 0 is inf");
  dense_fails("bad.h5:/dense_badlayout", GCOO_ERR_FORMAT, "layout = \"diagonal\"");
  dense_fails("bad.h5:/dense_str", GCOO_ERR_FORMAT, "elements are string");
  dense_fails("nope.h5:/D", GCOO_ERR_IO, "nope.h5");
  TEST_FAILS(gcoo_h5_inspect(obj("bad.h5:/nothere"), &info), GCOO_ERR_FORMAT, "no object");
  TEST_FAILS(gcoo_h5_inspect(obj("bad.h5:/unknown"), &info), GCOO_ERR_FORMAT, "coo_matrix");
  /* arguments */
  TEST_FAILS(gcoo_h5_read_sparse(NULL, GCOO_FLOAT64, &A), GCOO_ERR_NULL, "path is NULL");
  TEST_FAILS(gcoo_h5_read_sparse("", GCOO_FLOAT64, &A), GCOO_ERR_INVALID_ARG, "path is empty");
  TEST_FAILS(gcoo_h5_read_sparse(obj("bad.h5:/gcoo_ok"), (gcoo_dtype)7, &A), GCOO_ERR_INVALID_ARG,
             "unknown element type 7");
  TEST_FAILS(gcoo_h5_read_sparse(obj("bad.h5:/gcoo_ok"), GCOO_FLOAT64, NULL), GCOO_ERR_NULL,
             "NULL");
  gcoo_dense D;
  TEST_FAILS(gcoo_h5_read_dense(obj("bad.h5:/dense_nan"), GCOO_FLOAT64, (gcoo_layout)5, &D),
             GCOO_ERR_INVALID_ARG, "unknown layout 5");
  TEST_FAILS(gcoo_h5_inspect(obj("bad.h5:/gcoo_ok"), NULL), GCOO_ERR_NULL, "info is NULL");
}

static void writing(void) {
  gcoo_sparse A = NULL, B = NULL, N = NULL;
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 6, 5, 0.5, 11, 0));
  /* the missing directory is named, before a temporary file is tried */
  TEST_FAILS(gcoo_h5_write_sparse(obj("nodir/x.h5:/A"), A, 0), GCOO_ERR_IO, "does not exist");
  TEST_CHECK(strstr(gcoo_last_error(), "nodir\" does not exist") != NULL, "message: %s",
             gcoo_last_error());
  mkdir(obj("isdir.h5"), 0755);
  TEST_FAILS(gcoo_h5_write_sparse(obj("isdir.h5:/A"), A, 0), GCOO_ERR_IO, "it is a directory");
  TEST_CHECK(io_temp_files(obj("isdir.h5")) == 0, "temp file left next to a directory target");
  /* a non-finite value: refused, the existing target stays as it was, no temp file */
  TEST_CALL(gcoo_h5_write_sparse(obj("keep.h5:/A"), A, 0));
  const int64_t ptr[3] = {0, 2, 3};
  const int32_t ind[3] = {0, 4, 2};
  const double val[3] = {1.0, NAN, 2.0};
  TEST_CALL(gcoo_sparse_create_csr(&N, GCOO_FLOAT64, 2, 5, ptr, ind, val, 0));
  TEST_FAILS(gcoo_h5_write_sparse(obj("keep.h5:/A"), N, GCOO_H5_OVERWRITE), GCOO_ERR_NOT_FINITE,
             "keep.h5:/A/data: element 1 is nan: refusing to write a non-finite value");
  TEST_CHECK(io_temp_files(obj("keep.h5")) == 0, "temp file left after a failed write");
  TEST_CALL(gcoo_h5_read_sparse(obj("keep.h5:/A"), GCOO_FLOAT64, &B));
  TEST_CHECK(io_compare_sparse(B, A, "kept target") == 0, "failed write changed the target");
  TEST_FAILS(gcoo_h5_write_sparse(obj("new.h5:/A"), N, 0), GCOO_ERR_NOT_FINITE, "element 1 is nan");
  TEST_CHECK(!io_file_exists(obj("new.h5")) && io_temp_files(obj("new.h5")) == 0,
             "a failed write left a file");
  /* dense */
  double buf[12];
  for (int i = 0; i < 12; i++) buf[i] = i;
  buf[7] = INFINITY;
  gcoo_dense D = gcoo_dense_wrap(buf, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 3, 0);
  TEST_FAILS(gcoo_h5_write_dense(obj("d.h5:/Y"), &D, 0), GCOO_ERR_NOT_FINITE,
             "d.h5:/Y: row 2, column 1 is inf: refusing");
  TEST_CHECK(!io_file_exists(obj("d.h5")) && io_temp_files(obj("d.h5")) == 0,
             "a failed dense write left a file");
  buf[7] = 7;
  TEST_FAILS(gcoo_h5_write_dense(obj("d.h5"), &D, 0), GCOO_ERR_INVALID_ARG,
             "needs a name in the file");
  TEST_CHECK(!io_file_exists(obj("d.h5")) && io_temp_files(obj("d.h5")) == 0, "file left");
  D.mem = GCOO_MEM_DEVICE;
  TEST_FAILS(gcoo_h5_write_dense(obj("d.h5:/Y"), &D, 0), GCOO_ERR_INVALID_ARG, "device memory");
  D.mem = GCOO_MEM_HOST;
  D.ld = 2;
  TEST_FAILS(gcoo_h5_write_dense(obj("d.h5:/Y"), &D, 0), GCOO_ERR_INVALID_ARG, "leading dimension");
  TEST_FAILS(gcoo_h5_write_sparse(obj("x.h5:/A"), NULL, 0), GCOO_ERR_NULL, "sparse matrix is NULL");
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&B);
  gcoo_sparse_destroy(&N);
}

/* Does writing out change what in reads? (gcoo_output_overlaps) */
static int overlaps(const char *out, const char *in) {
  int hit = -1;
  char why[8192] = "";
  TEST_CALL(gcoo_output_overlaps(out, in, &hit, why, sizeof why));
  TEST_CHECK(!hit || strstr(why, "would overwrite the input"), "%s vs %s: why is \"%s\"", out, in,
             why);
  return hit;
}

/* Outputs before they are written: objects compared by identity, the writers' checks. */
static void outputs(void) {
  gcoo_sparse A = NULL;
  char f[1024], e[1024], l[1024];
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 6, 5, 0.5, 11, 0));
  snprintf(f, sizeof f, "%s", obj("id.h5"));
  snprintf(e, sizeof e, "%s", obj("ext.h5"));
  snprintf(l, sizeof l, "%s", obj("idlink.h5"));
  TEST_CALL(gcoo_h5_write_sparse(obj("id.h5:/A"), A, 0));
  TEST_CALL(gcoo_h5_write_sparse(obj("id.h5:/g/M"), A, 0));
  hid_t fid = H5Fcreate(e, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  TEST_CHECK(fid >= 0 && H5Lcreate_external(f, "/A", fid, "A", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
                 H5Lcreate_external(f, "/g", fid, "g", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
                 H5Fclose(fid) >= 0,
             "cannot make ext.h5");
  fid = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
  TEST_CHECK(fid >= 0 && H5Lcreate_soft("/A", fid, "alias", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
                 H5Lcreate_hard(fid, "/A", fid, "hard", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
                 H5Lcreate_soft("/g", fid, "gl", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
                 H5Fclose(fid) >= 0,
             "cannot link in id.h5");
  TEST_CHECK(symlink("id.h5", l) == 0, "cannot make %s", l); /* relative to its directory */
  /* the same object however it is reached */
  TEST_CHECK(overlaps(obj("id.h5:/A"), obj("id.h5:/alias")) == 1, "soft link");
  TEST_CHECK(overlaps(obj("id.h5:/A"), obj("id.h5:/hard")) == 1, "hard link");
  TEST_CHECK(overlaps(obj("id.h5:/A"), obj("ext.h5:/A")) == 1, "external link");
  TEST_CHECK(overlaps(obj("idlink.h5:/A"), obj("id.h5:/A")) == 1, "file through a symbolic link");
  TEST_CHECK(overlaps(obj("id.h5:/g"), obj("id.h5:/gl/M")) == 1, "a group holding the input");
  TEST_CHECK(overlaps(obj("id.h5:/alias/Y"), obj("id.h5:/A")) == 1, "inside the input");
  TEST_CHECK(overlaps(obj("id.h5:/A/data"), obj("ext.h5:/A")) == 1, "inside, through a file");
  TEST_CHECK(overlaps(obj("id.h5"), obj("id.h5:/g/M")) == 1, "the whole file");
  TEST_CHECK(overlaps(obj("id.mtx"), obj("id.h5:/A")) == 0, "another file");
  TEST_CHECK(overlaps(obj("id.h5:/B"), obj("id.h5:/alias")) == 0, "another object");
  TEST_CHECK(overlaps(obj("id.h5:/g/N"), obj("ext.h5:/A")) == 0, "another object, other file");
  TEST_CHECK(overlaps(obj("id.h5:/A"), obj("missing.h5:/A")) == 0, "an input that is not there");
  /* what the writers refuse, refused before any writing */
  TEST_CALL(gcoo_output_check(obj("id.h5:/B"), 0));
  TEST_CALL(gcoo_output_check(obj("id.h5:/A"), 1));
  TEST_FAILS(gcoo_output_check(obj("id.h5:/A"), 0), GCOO_ERR_EXISTS, "exists");
  TEST_FAILS(gcoo_output_check(obj("idlink.h5:/hard"), 0), GCOO_ERR_EXISTS, "exists");
  TEST_FAILS(gcoo_output_check(obj("id.h5:/a/../B"), 1), GCOO_ERR_INVALID_ARG, "\"..\" is not");
  TEST_FAILS(gcoo_output_check(obj("id.h5:/./B"), 1), GCOO_ERR_INVALID_ARG, "\".\" is not");
  TEST_FAILS(gcoo_output_check(obj("ext.h5:/g/Y"), 1), GCOO_ERR_INVALID_ARG, "external link");
  TEST_FAILS(gcoo_output_check(obj("none/y.h5:/Y"), 0), GCOO_ERR_IO, "does not exist");
  TEST_FAILS(gcoo_output_check(obj("none/y.mtx"), 0), GCOO_ERR_IO, "does not exist");
  TEST_FAILS(gcoo_output_check(obj("y.txt"), 0), GCOO_ERR_INVALID_ARG, "format");
  TEST_FAILS(gcoo_h5_write_sparse(obj("id.h5:/a/../B"), A, 0), GCOO_ERR_INVALID_ARG,
             "\"..\" is not");
  gcoo_sparse_destroy(&A);
}

int main(void) {
  dir = io_make_dir("t417");
  int rc = io_run_python("write", dir);
  if (rc == GCOO_TEST_SKIP) return GCOO_TEST_SKIP;
  TEST_CHECK(rc == 0, "the Python writer failed (%d)", rc);
  if (rc) return gcoo_test_finish("t417-h5-errors");

  /* the application's HDF5 error handler must be left as it was */
  H5E_auto2_t before = NULL, after = NULL;
  void *bdata = NULL, *adata = NULL;
  H5Eget_auto2(H5E_DEFAULT, &before, &bdata);

  /* nothing may be printed: stderr goes to a file while the failures run */
  fflush(stderr);
  int saved = dup(2);
  int fd = open(io_path(dir, "stderr.txt"), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  dup2(fd, 2);
  int failures_before = gcoo_test_failures;
  reading();
  writing();
  outputs();
  fflush(stderr);
  dup2(saved, 2);
  close(fd);
  close(saved);
  struct stat sb;
  stat(io_path(dir, "stderr.txt"), &sb);
  if (gcoo_test_failures > failures_before) {
    /* show what the checks printed */
    FILE *f = fopen(io_path(dir, "stderr.txt"), "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) fputs(line, stderr);
    if (f) fclose(f);
  } else {
    TEST_CHECK(sb.st_size == 0, "%lld bytes were printed on stderr (see %s)", (long long)sb.st_size,
               io_path(dir, "stderr.txt"));
  }
  H5Eget_auto2(H5E_DEFAULT, &after, &adata);
  TEST_CHECK(before == after && bdata == adata, "HDF5's automatic error printing was not restored");
  if (!gcoo_test_failures) io_remove_tree(dir);
  return gcoo_test_finish("t417-h5-errors");
}
