/* SPDX-License-Identifier: MIT */
/* tests/io/t411-h5-parallel-write.c: gcoo_h5_write_dense_rows and gcoo_h5_write_csr_rows with
 * uneven and empty rank ranges read back exactly (with gcoo and with h5py/scipy); a write that
 * fails on one rank (a bad argument before anything is written, a NaN found while writing, a
 * target that is a directory) returns an error on every rank and leaves no target and no temp
 * file, and an existing target untouched. Through MPI-IO and with GCOO_H5_MPIO=0, in default
 * and in tiny rounds. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io_util.h"

static int rank, size;
static char dir[512];
static FILE *manifest;

static const char *path_of(const char *name) {
  static char ring[4][1024];
  static int at = 0;
  char *b = ring[at++ % 4];
  snprintf(b, 1024, "%s/%s", dir, name);
  return b;
}

/* Row ranges tiling 0..m in rank order: 0 even; 1 rank 0 and the last rank empty; 2 all on
 * rank 0. */
static void rows_of(int64_t m, int kind, int64_t *r0, int64_t *r1) {
  int64_t lo, hi;
  if (kind == 0) {
    lo = m * rank / size, hi = m * (rank + 1) / size;
  } else if (kind == 1) {
    int inner = size > 2 ? size - 2 : 1, k = size > 2 ? rank - 1 : rank;
    if (size > 2 && (rank == 0 || rank == size - 1)) {
      lo = hi = rank == 0 ? 0 : m;
    } else {
      lo = m * k * k / ((int64_t)inner * inner);
      hi = m * (k + 1) * (k + 1) / ((int64_t)inner * inner);
      if (size <= 2) lo = rank == 0 ? 0 : m / 3, hi = rank == 0 ? m / 3 : m;
      if (size == 1) lo = 0, hi = m;
    }
  } else {
    lo = rank == 0 ? 0 : m;
    hi = m;
  }
  *r0 = lo, *r1 = hi;
}

/* A collective failure: the ranks that found the problem return `want`, the others
 * GCOO_ERR_REMOTE; at least one rank returns `want`; every rank's message mentions needle. */
static void all_fail_(gcoo_status got, gcoo_status want, const char *needle, const char *what,
                      int line) {
  gcoo_status expect = got == GCOO_ERR_REMOTE && want < 0 ? GCOO_ERR_REMOTE : want;
  gcoo_test_expect_failure(got, expect, needle, what, __FILE__, line);
  int mine = got == want, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  TEST_CHECK(any, "%s: no rank returned %s", what, gcoo_status_name(want));
}
#define ALL_FAIL(x, want, needle) all_fail_((x), (want), (needle), #x, __LINE__)

static int both_gone(const char *file) { return !io_file_exists(file) && io_temp_files(file) == 0; }

static void dense_writes(int variant) {
  const int64_t m = 37, n = 5;
  gcoo_dense full;
  TEST_CALL(gcoo_dense_create(&full, GCOO_FLOAT64, GCOO_ROW_MAJOR, m, n));
  TEST_CALL(gcoo_dense_fill_random(&full, 5));
  for (int kind = 0; kind < 3; kind++)
    for (int dt = 0; dt < 2; dt++)
      for (int lay = 0; lay < 2; lay++) {
        int64_t r0, r1;
        rows_of(m, kind, &r0, &r1);
        int64_t nl = r1 - r0, ld = (lay == GCOO_ROW_MAJOR ? n : nl) + 2;
        int64_t major = lay == GCOO_ROW_MAJOR ? nl : n;
        size_t len = (size_t)(major * ld + 1);
        void *buf = malloc(len * 8);
        for (size_t i = 0; i < len; i++) {
          if (dt)
            ((double *)buf)[i] = NAN; /* padding: must not be written */
          else
            ((float *)buf)[i] = NAN;
        }
        gcoo_dense D = gcoo_dense_wrap(buf, (gcoo_dtype)dt, (gcoo_layout)lay, nl, n, ld);
        for (int64_t i = 0; i < nl; i++)
          for (int64_t j = 0; j < n; j++)
            gcoo_dense_set(&D, i, j, gcoo_dense_get(&full, r0 + i, j));
        char name[64];
        snprintf(name, sizeof name, "d%d_%d_%d_%d.h5", variant, kind, dt, lay);
        char obj[128];
        snprintf(obj, sizeof obj, "%s:/out/Y", path_of(name));
        TEST_CALL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, obj, m, r0, &D, 0));
        gcoo_dense R;
        TEST_CALL(gcoo_h5_read_dense(obj, GCOO_FLOAT64, GCOO_ROW_MAJOR, &R));
        gcoo_dense ref = gcoo_test_copy(&full);
        if (!dt)
          for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
              gcoo_dense_set(&ref, i, j, (float)gcoo_dense_get(&full, i, j));
        TEST_CHECK(io_compare_dense(&R, &ref, name) == 0, "%s: written rows differ", name);
        TEST_CHECK(!io_file_exists(path_of(name)) == 0, "%s missing", name);
        if (rank == 0 && variant == 0 && kind == 1) {
          char txt[80];
          snprintf(txt, sizeof txt, "%s.dense.txt", name);
          io_write_dense_text(path_of(txt), &ref);
          fprintf(manifest, "dense %s /out/Y %s\n", name, txt);
        }
        gcoo_dense_destroy(&R);
        gcoo_dense_destroy(&ref);
        free(buf);
      }

  /* failures */
  const char *keep = path_of("keep_dense.h5");
  char keepobj[1100];
  snprintf(keepobj, sizeof keepobj, "%s:/Y", keep);
  int64_t r0, r1;
  rows_of(m, 0, &r0, &r1);
  gcoo_dense D;
  TEST_CALL(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, n));
  for (int64_t i = r0; i < r1; i++)
    for (int64_t j = 0; j < n; j++) gcoo_dense_set(&D, i - r0, j, gcoo_dense_get(&full, i, j));
  TEST_CALL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, keepobj, m, r0, &D, GCOO_H5_OVERWRITE));
  /* (a) a bad argument on the last rank only: its leading dimension; then its column count */
  gcoo_dense W = D;
  if (rank == size - 1) W.ld = n - 1;
  ALL_FAIL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, path_of("a.h5:/Y"), m, r0, &W, 0),
           GCOO_ERR_INVALID_ARG, "leading dimension 4 < 5");
  TEST_CHECK(both_gone(path_of("a.h5")), "a failed write left a file");
  if (rank != size - 1) {
    char want[32];
    snprintf(want, sizeof want, "rank %d: ", size - 1);
    TEST_CHECK(strstr(gcoo_last_error(), want) != NULL, "message does not say which rank: %s",
               gcoo_last_error());
  }
  W = D;
  if (rank == size - 1) W.ncols = n - 1;
  char a2[32];
  snprintf(a2, sizeof a2, "a2_%d.h5", variant);
  char a2obj[1100];
  snprintf(a2obj, sizeof a2obj, "%s:/Y", path_of(a2));
  ALL_FAIL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, a2obj, m, r0, &W, 0),
           size > 1 ? GCOO_ERR_INVALID_ARG : GCOO_SUCCESS, size > 1 ? "differ across ranks" : NULL);
  if (size > 1) TEST_CHECK(both_gone(path_of(a2)), "a failed write left a file");
  /* (b) rows that do not tile: the last rank starts one row late */
  ALL_FAIL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, path_of("b.h5:/Y"), m, r0 + (rank == size - 1),
                                    &D, 0),
           GCOO_ERR_INVALID_ARG, "the ranks before it hold");
  TEST_CHECK(both_gone(path_of("b.h5")), "a failed write left a file");
  /* (c) a NaN found while writing (the temp file exists by then), over an existing target */
  if (rank == size - 1 && D.nrows > 0) gcoo_dense_set(&D, D.nrows - 1, 2, NAN);
  int64_t lastrow = r1 - 1;
  MPI_Bcast(&lastrow, 1, MPI_INT64_T, size - 1, MPI_COMM_WORLD);
  char needle[64];
  snprintf(needle, sizeof needle, "row %lld, column 2 is nan", (long long)lastrow);
  ALL_FAIL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, keepobj, m, r0, &D, GCOO_H5_OVERWRITE),
           GCOO_ERR_NOT_FINITE, needle);
  TEST_CHECK(io_temp_files(path_of("keep_dense.h5")) == 0, "temp file left after a failed write");
  gcoo_dense R;
  TEST_CALL(gcoo_h5_read_dense(keepobj, GCOO_FLOAT64, GCOO_ROW_MAJOR, &R));
  TEST_CHECK(io_compare_dense(&R, &full, "kept") == 0, "a failed write changed the existing file");
  gcoo_dense_destroy(&R);
  /* (d) the target is a directory */
  if (rank == 0) mkdir(path_of("isdir.h5"), 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1 && D.nrows > 0) gcoo_dense_set(&D, D.nrows - 1, 2, 1.0);
  ALL_FAIL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, path_of("isdir.h5:/Y"), m, r0, &D, 0),
           GCOO_ERR_IO, "is a directory");
  TEST_CHECK(io_temp_files(path_of("isdir.h5")) == 0, "temp file left");
  /* (e) ranks name different files */
  char other[64];
  snprintf(other, sizeof other, "e%d.h5:/Y", rank == size - 1 && size > 1);
  ALL_FAIL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, path_of(other), m, r0, &D, GCOO_H5_OVERWRITE),
           size > 1 ? GCOO_ERR_INVALID_ARG : GCOO_SUCCESS,
           size > 1 ? "path differs across ranks" : NULL);
  if (size > 1) TEST_CHECK(both_gone(path_of("e0.h5")) && both_gone(path_of("e1.h5")), "file left");
  gcoo_dense_destroy(&D);
  gcoo_dense_destroy(&full);
}

/* Rows [r0, r1) of a CSR matrix as a CSR matrix of its own. */
static gcoo_sparse row_slab(gcoo_sparse A, int64_t r0, int64_t r1) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  int64_t *ptr = malloc(sizeof(int64_t) * (size_t)(r1 - r0 + 1));
  for (int64_t i = r0; i <= r1; i++) ptr[i - r0] = a.ptr[i] - a.ptr[r0];
  size_t es = gcoo_dtype_size(ai.dtype);
  gcoo_sparse S = NULL;
  TEST_CALL(gcoo_sparse_create_csr(&S, ai.dtype, r1 - r0, ai.ncols, ptr, a.ind + a.ptr[r0],
                                   (const char *)a.values + (size_t)a.ptr[r0] * es, 0));
  free(ptr);
  return S;
}

static void csr_writes(int variant) {
  const int64_t m = 45, n = 19;
  for (int kind = 0; kind < 3; kind++)
    for (int dt = 0; dt < 2; dt++) {
      gcoo_sparse A = NULL, S = NULL, G = NULL, B = NULL;
      TEST_CALL(gcoo_sparse_random(&A, (gcoo_dtype)dt, GCOO_FORMAT_CSR, m, n, 0.7,
                                   21 + (uint64_t)kind, 0));
      int64_t r0, r1;
      rows_of(m, kind, &r0, &r1);
      S = row_slab(A, r0, r1);
      /* one rank hands its slab over as GCOO: converted by the writer */
      if (rank == 1) {
        TEST_CALL(gcoo_sparse_convert(&G, S, GCOO_FORMAT_GCOO, 4));
        gcoo_sparse_destroy(&S);
        S = G;
        G = NULL;
      }
      char name[64], obj[1100];
      snprintf(name, sizeof name, "c%d_%d_%d.h5", variant, kind, dt);
      snprintf(obj, sizeof obj, "%s:/A", path_of(name));
      TEST_CALL(gcoo_h5_write_csr_rows(MPI_COMM_WORLD, obj, m, r0, S, 0));
      TEST_CALL(gcoo_h5_read_sparse(obj, (gcoo_dtype)dt, &B));
      TEST_CHECK(io_compare_sparse(B, A, name) == 0, "%s: written CSR differs", name);
      if (rank == 0 && variant == 0) {
        char txt[80];
        snprintf(txt, sizeof txt, "%s.txt", name);
        io_write_triplets(path_of(txt), A);
        fprintf(manifest, "sparse %s /A %s\n", name, txt);
      }
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&S);
      gcoo_sparse_destroy(&B);
    }
  /* failures: a NaN in the last rank's slab; a slab of another width on rank 0 */
  gcoo_sparse A = NULL, S = NULL;
  int64_t r0, r1;
  rows_of(m, 0, &r0, &r1);
  int64_t ptr[2] = {0, 1};
  int32_t ind[1] = {3};
  double val[1] = {NAN};
  if (rank == size - 1)
    TEST_CALL(gcoo_sparse_create_csr(&S, GCOO_FLOAT64, 1, n, ptr, ind, val, 0));
  else {
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, m, n, 0.7, 1, 0));
    S = row_slab(A, r0, r1);
  }
  int64_t mm = rank == size - 1 ? r0 + 1 : 0;
  MPI_Bcast(&mm, 1, MPI_INT64_T, size - 1, MPI_COMM_WORLD);
  ALL_FAIL(gcoo_h5_write_csr_rows(MPI_COMM_WORLD, path_of("nan.h5:/A"), mm, r0, S, 0),
           GCOO_ERR_NOT_FINITE, "refusing to write a non-finite value");
  TEST_CHECK(both_gone(path_of("nan.h5")), "a failed write left a file");
  gcoo_sparse_destroy(&S);
  gcoo_sparse_destroy(&A);
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, r1 - r0, rank == 0 ? n + 1 : n,
                               0.7, 1, 0));
  char w[32], wobj[1100];
  snprintf(w, sizeof w, "w%d.h5", variant);
  snprintf(wobj, sizeof wobj, "%s:/A", path_of(w));
  ALL_FAIL(gcoo_h5_write_csr_rows(MPI_COMM_WORLD, wobj, m, r0, A, 0),
           size > 1 ? GCOO_ERR_INVALID_ARG : GCOO_SUCCESS, size > 1 ? "differ across ranks" : NULL);
  if (size > 1) TEST_CHECK(both_gone(path_of(w)), "a failed write left a file");
  ALL_FAIL(gcoo_h5_write_csr_rows(MPI_COMM_WORLD, path_of("n.h5:/A"), m, r0,
                                  rank == size - 1 ? NULL : A, 0),
           GCOO_ERR_NULL, "sparse matrix is NULL");
  TEST_CHECK(both_gone(path_of("n.h5")), "a failed write left a file");
  gcoo_sparse_destroy(&A);
}

/* Writing into an existing file keeps its other objects; an existing object is replaced only
 * with GCOO_H5_OVERWRITE (issue 16), on every rank alike. */
static void update_writes(int variant) {
  const int64_t m = 23, n = 3;
  char file[1000], a[1100], y[1100];
  snprintf(file, sizeof file, "%s", path_of("upd.h5"));
  snprintf(a, sizeof a, "%s:/A", file);
  snprintf(y, sizeof y, "%s:/out/Y", file);
  if (rank == 0) remove(file);
  MPI_Barrier(MPI_COMM_WORLD);
  gcoo_sparse A = NULL, S = NULL, B = NULL;
  gcoo_dense full, D, R;
  int64_t r0, r1;
  rows_of(m, 0, &r0, &r1);
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, m, 7, 0.3, 11, 0));
  S = row_slab(A, r0, r1);
  TEST_CALL(gcoo_h5_write_csr_rows(MPI_COMM_WORLD, a, m, r0, S, 0));
  TEST_CALL(gcoo_dense_create(&full, GCOO_FLOAT64, GCOO_ROW_MAJOR, m, n));
  TEST_CALL(gcoo_dense_fill_random(&full, 12 + variant));
  TEST_CALL(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, n));
  for (int64_t i = r0; i < r1; i++)
    for (int64_t j = 0; j < n; j++) gcoo_dense_set(&D, i - r0, j, gcoo_dense_get(&full, i, j));
  TEST_CALL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, y, m, r0, &D, 0));
  ALL_FAIL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, y, m, r0, &D, 0), GCOO_ERR_EXISTS, "exists");
  ALL_FAIL(gcoo_h5_write_csr_rows(MPI_COMM_WORLD, a, m, r0, S, 0), GCOO_ERR_EXISTS, "exists");
  for (int64_t i = 0; i < D.nrows; i++) gcoo_dense_set(&D, i, 0, -1.0 - (double)(r0 + i));
  for (int64_t i = 0; i < m; i++) gcoo_dense_set(&full, i, 0, -1.0 - (double)i);
  TEST_CALL(gcoo_h5_write_dense_rows(MPI_COMM_WORLD, y, m, r0, &D, GCOO_H5_OVERWRITE));
  TEST_CALL(gcoo_h5_read_dense(y, GCOO_FLOAT64, GCOO_ROW_MAJOR, &R));
  TEST_CHECK(io_compare_dense(&R, &full, "overwritten") == 0, "variant %d: /out/Y not replaced",
             variant);
  TEST_CALL(gcoo_h5_read_sparse(a, GCOO_FLOAT64, &B));
  TEST_CHECK(io_compare_sparse(B, A, "kept") == 0, "variant %d: /A lost by the update", variant);
  TEST_CHECK(io_temp_files(file) == 0, "variant %d: temp file left", variant);
  gcoo_dense_destroy(&R);
  gcoo_dense_destroy(&D);
  gcoo_dense_destroy(&full);
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&S);
  gcoo_sparse_destroy(&B);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char base[64];
  snprintf(base, sizeof base, "t411_np%d", size);
  if (rank == 0) snprintf(dir, sizeof dir, "%s", io_make_dir(base));
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) manifest = fopen(path_of("manifest.txt"), "w");

  /* 0: MPI-IO (GCOO_H5_MPIO=1); 1: MPI-IO in rounds of 64 bytes; 2: the default, ranks one
   * after the other through their own POSIX handles */
  for (int variant = 0; variant < 3; variant++) {
    if (variant == 0) TEST_CALL(gcoo_param_set("GCOO_H5_MPIO", "1"));
    if (variant == 1) TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", "64"));
    if (variant == 2) {
      TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL));
      TEST_CALL(gcoo_param_set("GCOO_H5_MPIO", NULL));
    }
    dense_writes(variant);
    csr_writes(variant);
    update_writes(variant);
  }
  TEST_CALL(gcoo_param_set("GCOO_H5_MPIO", NULL));

  /* h5py + scipy read what the ranks wrote together */
  int py = 0;
  if (rank == 0) {
    fclose(manifest);
    py = io_run_python("verify", dir);
    TEST_CHECK(py == 0 || py == GCOO_TEST_SKIP, "h5py/scipy disagree with the files (exit %d)", py);
  }
  int failures = gcoo_test_failures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) io_remove_tree(dir);
  int rc = gcoo_test_finish("t411-h5-parallel-write");
  MPI_Finalize();
  return rc;
}
