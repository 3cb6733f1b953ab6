/* SPDX-License-Identifier: MIT */
/* tests/io/t415-h5-roundtrip.c: every format x dtype x shape written with gcoo_h5_write_sparse
 * and read back with gcoo_h5_read_sparse gives the same arrays exactly (the other dtype gives
 * them rounded); dense matrices in both layouts (with padding) likewise; empty matrices, 1x1,
 * empty groups; transfers in many small rounds (GCOO_H5_CHUNK_BYTES) give the same result;
 * writes leave no temp file and replace an existing file. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"

static const char *dir;

static void roundtrip_sparse(gcoo_format format, gcoo_dtype dt, int64_t m, int64_t n,
                             double sparsity, int32_t p, uint64_t seed) {
  gcoo_sparse A = NULL, B = NULL, C = NULL, ref = NULL;
  char path[1024], what[160];
  snprintf(path, sizeof path, "%s/rt.h5:/grp/A", dir);
  snprintf(what, sizeof what, "format %d dtype %d %lldx%lld sparsity %g p %d", (int)format, (int)dt,
           (long long)m, (long long)n, sparsity, p);
  TEST_CALL(gcoo_sparse_random(&A, dt, format, m, n, sparsity, seed, p));
  TEST_CALL(gcoo_h5_write_sparse(path, A, GCOO_H5_OVERWRITE)); /* one file, many cases */
  TEST_CHECK(io_temp_files(io_path(dir, "rt.h5")) == 0, "%s: temp file left behind", what);
  /* COO is stored as CSR */
  if (format == GCOO_FORMAT_COO) TEST_CALL(gcoo_sparse_convert(&ref, A, GCOO_FORMAT_CSR, 0));
  gcoo_sparse R = ref ? ref : A;
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(R, &ai));
  gcoo_h5_info info;
  TEST_CALL(gcoo_h5_inspect(path, &info));
  TEST_CHECK(info.is_sparse && info.format == ai.format && info.nrows == m && info.ncols == n &&
                 info.nnz == ai.nnz && info.dtype == dt && info.p == ai.p &&
                 !strcmp(info.encoding_version, "0.1.0") && !strcmp(info.index_type, "int32"),
             "%s: inspect disagrees (format %d nnz %lld p %d version %s)", what, (int)info.format,
             (long long)info.nnz, info.p, info.encoding_version);
  int64_t nmajor = ai.format == GCOO_FORMAT_CSR ? m : ai.format == GCOO_FORMAT_CSC ? n : ai.ngroups;
  TEST_CHECK(info.nmajor == nmajor, "%s: nmajor %lld, expected %lld", what, (long long)info.nmajor,
             (long long)nmajor);
  TEST_CALL(gcoo_h5_read_sparse(path, dt, &B));
  TEST_CHECK(io_compare_sparse(B, R, what) == 0, "%s: read back differs", what);
  /* the other dtype: values rounded (float64 -> float32) or widened exactly */
  gcoo_dtype other = dt == GCOO_FLOAT64 ? GCOO_FLOAT32 : GCOO_FLOAT64;
  TEST_CALL(gcoo_h5_read_sparse(path, other, &C));
  TEST_CHECK(io_compare_sparse(C, R, what) == 0, "%s: read back as dtype %d differs", what,
             (int)other);
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&B);
  gcoo_sparse_destroy(&C);
  gcoo_sparse_destroy(&ref);
}

static void roundtrip_dense(gcoo_dtype dt, gcoo_layout lay, int64_t m, int64_t n, int64_t pad,
                            uint64_t seed) {
  char path[1024], what[128];
  snprintf(path, sizeof path, "%s/dense.h5:/out/Y", dir);
  snprintf(what, sizeof what, "dense dtype %d layout %d %lldx%lld pad %lld", (int)dt, (int)lay,
           (long long)m, (long long)n, (long long)pad);
  int64_t ld = (lay == GCOO_ROW_MAJOR ? n : m) + pad;
  int64_t major = lay == GCOO_ROW_MAJOR ? m : n;
  size_t len = (size_t)(major * ld + 1);
  void *buf = malloc(len * gcoo_dtype_size(dt));
  for (size_t i = 0; i < len; i++) {
    if (dt == GCOO_FLOAT64)
      ((double *)buf)[i] = NAN; /* padding must never reach the file */
    else
      ((float *)buf)[i] = NAN;
  }
  gcoo_dense D = gcoo_dense_wrap(buf, dt, lay, m, n, ld > 0 ? ld : 1);
  TEST_CALL(gcoo_dense_fill_random(&D, seed));
  TEST_CALL(gcoo_h5_write_dense(path, &D, GCOO_H5_OVERWRITE)); /* one file, many cases */
  gcoo_h5_info info;
  TEST_CALL(gcoo_h5_inspect(path, &info));
  TEST_CHECK(!info.is_sparse && info.nrows == m && info.ncols == n && info.dtype == dt &&
                 info.layout == GCOO_ROW_MAJOR,
             "%s: inspect says %lld x %lld dtype %d", what, (long long)info.nrows,
             (long long)info.ncols, (int)info.dtype);
  for (int rdt = 0; rdt < 2; rdt++)
    for (int rl = 0; rl < 2; rl++) {
      gcoo_dense E;
      TEST_CALL(gcoo_h5_read_dense(path, (gcoo_dtype)rdt, (gcoo_layout)rl, &E));
      TEST_CHECK(io_compare_dense(&E, &D, what) == 0, "%s: read as dtype %d layout %d differs",
                 what, rdt, rl);
      gcoo_dense_destroy(&E);
    }
  free(buf);
}

/* full: every dtype and p; otherwise one dtype per shape and format (the rounds pass) */
static void all_cases(uint64_t seed, int full) {
  const struct {
    int64_t m, n;
    double sparsity;
  } shapes[] = {{0, 0, 0.5},  {0, 5, 0.5},   {5, 0, 0.5},     {1, 1, 0.0},  {1, 1, 1.0},
                {7, 13, 0.5}, {50, 40, 0.9}, {100, 37, 0.98}, {64, 64, 1.0}};
  const gcoo_format formats[] = {GCOO_FORMAT_CSR, GCOO_FORMAT_CSC, GCOO_FORMAT_GCOO,
                                 GCOO_FORMAT_COO};
  const int32_t ps[] = {1, 3, 32};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int f = 0; f < 4; f++) {
      int gcoo = formats[f] == GCOO_FORMAT_GCOO;
      int dt0 = full ? 0 : (int)(s + (size_t)f) % 2, dt1 = full ? 2 : dt0 + 1;
      int p0 = full ? 0 : 1, p1 = full && gcoo ? 3 : p0 + 1;
      for (int dt = dt0; dt < dt1; dt++)
        for (int pi = p0; pi < p1; pi++)
          roundtrip_sparse(formats[f], (gcoo_dtype)dt, shapes[s].m, shapes[s].n, shapes[s].sparsity,
                           ps[pi], seed + s * 16 + (uint64_t)f);
    }
  const int64_t dshapes[][2] = {{0, 0}, {0, 3}, {3, 0}, {1, 1}, {17, 5}, {4, 33}};
  for (size_t s = 0; s < sizeof dshapes / sizeof dshapes[0]; s++)
    for (int dt = 0; dt < 2; dt++)
      for (int lay = 0; lay < 2; lay++)
        for (int pad = 0; pad < 3; pad += full ? 2 : 3)
          roundtrip_dense((gcoo_dtype)dt, (gcoo_layout)lay, dshapes[s][0], dshapes[s][1], pad,
                          seed + s);
}

int main(void) {
  dir = io_make_dir("t415");
  all_cases(1, 1);
  /* the same through rounds of a few elements (every offset and remainder path) */
  TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", "24"));
  all_cases(2, 0);
  TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", "1"));
  roundtrip_sparse(GCOO_FORMAT_GCOO, GCOO_FLOAT64, 20, 30, 0.7, 4, 3);
  roundtrip_dense(GCOO_FLOAT32, GCOO_COL_MAJOR, 9, 4, 1, 3);
  TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL));

  /* the root group: "file.h5" alone */
  {
    gcoo_sparse A = NULL, B = NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/root.h5", dir);
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 12, 9, 0.6, 9, 0));
    TEST_CALL(gcoo_h5_write_sparse(path, A, 0));
    snprintf(path, sizeof path, "%s/root.h5:/", dir);
    TEST_CALL(gcoo_h5_read_sparse(path, GCOO_FLOAT64, &B));
    TEST_CHECK(io_compare_sparse(B, A, "root group") == 0, "root group differs");
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
  }
  /* a write into an existing file keeps its other objects (issue 16); an existing object is
   * replaced only with GCOO_H5_OVERWRITE; the root "/" (the whole file) likewise */
  {
    gcoo_sparse A = NULL, A2 = NULL, B = NULL;
    gcoo_dense D, E = {0};
    char p1[1024], p2[1024], p3[1024], root[1024];
    snprintf(p1, sizeof p1, "%s/update.h5:/first", dir);
    snprintf(p2, sizeof p2, "%s/update.h5:/grp/second", dir);
    snprintf(p3, sizeof p3, "%s/update.h5:/Y", dir);
    snprintf(root, sizeof root, "%s/update.h5", dir);
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 5, 5, 0.5, 4, 0));
    TEST_CALL(gcoo_sparse_random(&A2, GCOO_FLOAT64, GCOO_FORMAT_CSC, 6, 4, 0.5, 5, 0));
    TEST_CALL(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, 3, 2));
    TEST_CALL(gcoo_dense_fill_random(&D, 9));
    TEST_CALL(gcoo_h5_write_sparse(p1, A, 0));
    TEST_CALL(gcoo_h5_write_sparse(p2, A2, 0));
    TEST_CALL(gcoo_h5_write_dense(p3, &D, 0));
    TEST_CALL(gcoo_h5_read_sparse(p1, GCOO_FLOAT32, &B));
    TEST_CHECK(io_compare_sparse(B, A, "first kept") == 0, "the first object changed");
    gcoo_sparse_destroy(&B);
    TEST_CALL(gcoo_h5_read_sparse(p2, GCOO_FLOAT64, &B));
    TEST_CHECK(io_compare_sparse(B, A2, "second") == 0, "the second object differs");
    gcoo_sparse_destroy(&B);
    TEST_CALL(gcoo_h5_read_dense(p3, GCOO_FLOAT64, GCOO_ROW_MAJOR, &E));
    TEST_CHECK(io_compare_dense(&E, &D, "dense") == 0, "the dense object differs");
    gcoo_dense_destroy(&E);
    /* an existing object: refused without overwrite, the file unchanged */
    TEST_FAILS(gcoo_h5_write_sparse(p1, A2, 0), GCOO_ERR_EXISTS, "exists");
    TEST_FAILS(gcoo_h5_write_sparse(root, A2, 0), GCOO_ERR_EXISTS, "replaced as a whole");
    TEST_FAILS(gcoo_h5_write_dense(p2, &D, 0), GCOO_ERR_EXISTS, "exists");
    TEST_CALL(gcoo_h5_read_sparse(p1, GCOO_FLOAT32, &B));
    TEST_CHECK(io_compare_sparse(B, A, "first after refusal") == 0, "a refused write changed it");
    gcoo_sparse_destroy(&B);
    /* with overwrite: /first replaced, /grp/second and /Y kept */
    TEST_CALL(gcoo_h5_write_sparse(p1, A2, GCOO_H5_OVERWRITE));
    TEST_CALL(gcoo_h5_read_sparse(p1, GCOO_FLOAT64, &B));
    TEST_CHECK(io_compare_sparse(B, A2, "first replaced") == 0, "overwrite did not replace it");
    gcoo_sparse_destroy(&B);
    TEST_CALL(gcoo_h5_read_sparse(p2, GCOO_FLOAT64, &B));
    TEST_CHECK(io_compare_sparse(B, A2, "second kept") == 0, "overwrite lost another object");
    gcoo_sparse_destroy(&B);
    TEST_CALL(gcoo_h5_read_dense(p3, GCOO_FLOAT64, GCOO_ROW_MAJOR, &E));
    TEST_CHECK(io_compare_dense(&E, &D, "dense kept") == 0, "overwrite lost the dense object");
    gcoo_dense_destroy(&E);
    /* the whole file with overwrite: only the new object is left */
    TEST_CALL(gcoo_h5_write_sparse(root, A, GCOO_H5_OVERWRITE));
    TEST_FAILS(gcoo_h5_read_sparse(p1, GCOO_FLOAT32, &B), GCOO_ERR_FORMAT, "no object");
    TEST_CALL(gcoo_h5_read_sparse(root, GCOO_FLOAT32, &B));
    TEST_CHECK(io_compare_sparse(B, A, "root") == 0, "the file replaced as a whole differs");
    gcoo_sparse_destroy(&B);
    TEST_CHECK(io_temp_files(root) == 0, "temp file left behind");
    /* a file that is not HDF5 is not replaced without overwrite */
    char text[1024];
    snprintf(text, sizeof text, "%s/notes.h5", dir);
    FILE *f = fopen(text, "w");
    if (f) {
      fputs("not hdf5\n", f);
      fclose(f);
    }
    snprintf(text, sizeof text, "%s/notes.h5:/A", dir);
    TEST_FAILS(gcoo_h5_write_sparse(text, A, 0), GCOO_ERR_EXISTS, "is not an HDF5 file");
    gcoo_dense_destroy(&D);
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&A2);
  }
  if (!gcoo_test_failures) io_remove_tree(dir);
  return gcoo_test_finish("t415-h5-roundtrip");
}
