/* SPDX-License-Identifier: MIT */
/* tests/io/t416-h5-python.c: files written by Python (h5py/scipy, anndata's layout) load
 * unchanged and equal the matrices the script wrote in text form; files gcoo writes load in
 * h5py/scipy and equal the C side's text form. */
#include <math.h>
#include <string.h>

#include "io_util.h"

static const char *dir;

/* Read path as both dtypes, compare exactly with the triplet file; check what inspect says. */
static void check_sparse(const char *obj, const char *expected, gcoo_format format,
                         const char *value_type, const char *index_type) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, obj);
  io_triplets t;
  TEST_CHECK(io_read_triplets(io_path(dir, expected), &t) == 0, "cannot read %s", expected);
  gcoo_h5_info info;
  TEST_CALL(gcoo_h5_inspect(path, &info));
  TEST_CHECK(info.is_sparse == 1 && info.format == format, "%s: inspect says sparse %d format %d",
             obj, info.is_sparse, (int)info.format);
  TEST_CHECK(info.nrows == t.nrows && info.ncols == t.ncols, "%s: inspect shape %lld x %lld", obj,
             (long long)info.nrows, (long long)info.ncols);
  TEST_CHECK(!strcmp(info.value_type, value_type), "%s: value type %s, expected %s", obj,
             info.value_type, value_type);
  TEST_CHECK(!strcmp(info.index_type, index_type), "%s: index type %s, expected %s", obj,
             info.index_type, index_type);
  for (int dt = 0; dt < 2; dt++) {
    gcoo_sparse A = NULL;
    gcoo_sparse_info ai;
    TEST_CALL(gcoo_h5_read_sparse(path, (gcoo_dtype)dt, &A));
    TEST_CALL(gcoo_sparse_get_info(A, &ai));
    TEST_CHECK(ai.format == format && ai.dtype == (gcoo_dtype)dt, "%s: format %d dtype %d", obj,
               (int)ai.format, (int)ai.dtype);
    TEST_CALL(gcoo_sparse_validate(A, GCOO_REQUIRE_FINITE | GCOO_DUPLICATES_ERROR));
    int64_t bad = io_compare_triplets(A, &t, obj);
    TEST_CHECK(bad == 0, "%s as %s: %lld mismatches with %s", obj, dt ? "float64" : "float32",
               (long long)bad, expected);
    gcoo_sparse_destroy(&A);
  }
  io_free_triplets(&t);
}

static void check_dense(const char *obj, const char *expected, const char *value_type) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, obj);
  gcoo_h5_info info;
  TEST_CALL(gcoo_h5_inspect(path, &info));
  TEST_CHECK(info.is_sparse == 0 && !strcmp(info.value_type, value_type),
             "%s: inspect says sparse %d, type %s", obj, info.is_sparse, info.value_type);
  for (int dt = 0; dt < 2; dt++)
    for (int lay = 0; lay < 2; lay++) {
      gcoo_dense D;
      TEST_CALL(gcoo_h5_read_dense(path, (gcoo_dtype)dt, (gcoo_layout)lay, &D));
      TEST_CHECK(D.layout == (gcoo_layout)lay && D.dtype == (gcoo_dtype)dt, "%s: layout/dtype",
                 obj);
      int64_t bad = io_compare_dense_text(&D, io_path(dir, expected), obj);
      TEST_CHECK(bad == 0, "%s (dtype %d, layout %d): %lld mismatches", obj, dt, lay,
                 (long long)bad);
      gcoo_dense_destroy(&D);
    }
}

/* Matrices gcoo writes, listed for the script's verify pass with their text form. */
static void write_for_python(FILE *manifest) {
  const gcoo_format formats[] = {GCOO_FORMAT_CSR, GCOO_FORMAT_CSC, GCOO_FORMAT_GCOO,
                                 GCOO_FORMAT_COO};
  const char *names[] = {"csr", "csc", "gcoo", "coo"};
  int n = 0;
  for (int f = 0; f < 4; f++)
    for (int dt = 0; dt < 2; dt++) {
      gcoo_sparse A = NULL;
      char file[64], txt[64];
      TEST_CALL(gcoo_sparse_random(&A, (gcoo_dtype)dt, formats[f], 23 + f, 37 - f, 0.85,
                                   100 + (uint64_t)n, 5));
      snprintf(file, sizeof file, "out_%s_%d.h5", names[f], dt);
      snprintf(txt, sizeof txt, "out_%s_%d.txt", names[f], dt);
      char path[1024];
      snprintf(path, sizeof path, "%s/%s:/m/%s", dir, file, names[f]);
      TEST_CALL(gcoo_h5_write_sparse(path, A, 0));
      io_write_triplets(io_path(dir, txt), A);
      fprintf(manifest, "sparse %s /m/%s %s\n", file, names[f], txt);
      gcoo_sparse_destroy(&A);
      n++;
    }
  /* dense: row-major and column-major with padding, both dtypes */
  for (int dt = 0; dt < 2; dt++)
    for (int lay = 0; lay < 2; lay++) {
      float buf32[8 * 9];
      double buf64[8 * 9];
      void *buf = dt ? (void *)buf64 : (void *)buf32;
      for (int i = 0; i < 8 * 9; i++) buf32[i] = NAN, buf64[i] = NAN; /* padding stays NaN */
      gcoo_dense V = gcoo_dense_wrap(buf, (gcoo_dtype)dt, (gcoo_layout)lay, 7, 6, 9 - lay);
      TEST_CALL(gcoo_dense_fill_random(&V, 7 + (uint64_t)(dt * 2 + lay)));
      char file[64], txt[64], path[1024];
      snprintf(file, sizeof file, "out_dense_%d_%d.h5", dt, lay);
      snprintf(txt, sizeof txt, "out_dense_%d_%d.dense.txt", dt, lay);
      snprintf(path, sizeof path, "%s/%s:/results/Y", dir, file);
      TEST_CALL(gcoo_h5_write_dense(path, &V, 0));
      io_write_dense_text(io_path(dir, txt), &V);
      fprintf(manifest, "dense %s /results/Y %s\n", file, txt);
    }
}

int main(void) {
  dir = io_make_dir("t416");
  int rc = io_run_python("write", dir);
  if (rc == GCOO_TEST_SKIP) return GCOO_TEST_SKIP;
  TEST_CHECK(rc == 0, "the Python writer failed (%d)", rc);
  if (rc) return gcoo_test_finish("t416-h5-python");

  /* what Python users write */
  check_sparse("anndata.h5:/X", "anndata_X.txt", GCOO_FORMAT_CSR, "float32", "int32");
  check_sparse("anndata.h5:/layers/counts", "anndata_counts.txt", GCOO_FORMAT_CSC, "float64",
               "int64");
  check_sparse("fixed.h5:/M", "fixed.txt", GCOO_FORMAT_CSC, "float64", "int64");
  check_sparse("ints.h5:/A", "ints.txt", GCOO_FORMAT_CSR, "int32", "uint32");
  check_sparse("nested.h5:/a/b/c", "nested.txt", GCOO_FORMAT_CSR, "float64", "int32");
  check_sparse("nested.h5:a/b/c/", "nested.txt", GCOO_FORMAT_CSR, "float64", "int32");
  check_sparse("unsorted.h5:/U", "unsorted.txt", GCOO_FORMAT_CSR, "float64", "int32");
  check_sparse("gcoo.h5:/G", "gcoo.txt", GCOO_FORMAT_GCOO, "float32", "int32");
  check_sparse("root.h5", "root.txt", GCOO_FORMAT_CSR, "float64", "int32");
  check_sparse("root.h5:/", "root.txt", GCOO_FORMAT_CSR, "float64", "int32");
  {
    gcoo_h5_info info;
    char path[1024];
    snprintf(path, sizeof path, "%s/ints.h5:/A", dir);
    TEST_CALL(gcoo_h5_inspect(path, &info));
    TEST_CHECK(info.encoding_version[0] == '\0' && info.dtype == GCOO_FLOAT64,
               "ints.h5: version \"%s\", dtype %d", info.encoding_version, (int)info.dtype);
    snprintf(path, sizeof path, "%s/gcoo.h5:/G", dir);
    TEST_CALL(gcoo_h5_inspect(path, &info));
    TEST_CHECK(info.p == 4 && info.nmajor == 5 && info.nrows == 30 && info.ncols == 18,
               "gcoo.h5: p %d, %lld groups", info.p, (long long)info.nmajor);
  }
  check_dense("dense.h5:/D64", "dense_D64.dense.txt", "float64");
  check_dense("dense.h5:/grp/chunked", "dense_D64.dense.txt", "float64");
  check_dense("dense.h5:/D32", "dense_D32.dense.txt", "float32");
  check_dense("dense.h5:/Dint", "dense_Dint.dense.txt", "int16");
  check_dense("dense.h5:/vec", "dense_vec.dense.txt", "float64");
  check_dense("dense.h5:/colmajor", "dense_colmajor.dense.txt", "float64");
  check_dense("dense.h5:/empty", "dense_empty.dense.txt", "float64");

  /* what gcoo writes, read by h5py/scipy */
  FILE *manifest = fopen(io_path(dir, "manifest.txt"), "w");
  TEST_CHECK(manifest != NULL, "cannot write the manifest");
  if (manifest) {
    write_for_python(manifest);
    fclose(manifest);
    rc = io_run_python("verify", dir);
    TEST_CHECK(rc == 0, "h5py/scipy disagree with the files gcoo wrote (exit %d)", rc);
  }
  if (!gcoo_test_failures) io_remove_tree(dir);
  return gcoo_test_finish("t416-h5-python");
}
