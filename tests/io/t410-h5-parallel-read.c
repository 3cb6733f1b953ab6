/* SPDX-License-Identifier: MIT */
/* tests/io/t410-h5-parallel-read.c: parallel reads at any rank count give exactly the serial
 * read: sparse slabs of every format (balanced by nnz, all on one rank, empty ranks) reassemble
 * to the serial matrix; dense row ranges and row sets (more runs than one round takes) equal the
 * serial rows, from row-major and column-major datasets; through MPI-IO and through independent
 * file handles (GCOO_H5_MPIO=0), in default and in tiny rounds. Errors found on one rank reach
 * every rank with the same status. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"

static int rank, size;
static char dir[512];

static const char *path_of(const char *name) {
  static char ring[4][1024];
  static int at = 0;
  char *b = ring[at++ % 4];
  snprintf(b, 1024, "%s/%s", dir, name);
  return b;
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

/* Slab boundaries of this rank: 0 balanced by entries, 1 everything on the last rank, 2 uneven
 * with rank 1 empty (when there are more than 2 ranks). */
static void split(const int64_t *ptr, int64_t n, int kind, int64_t *b, int64_t *e) {
  if (kind == 1) {
    *b = rank == size - 1 || rank == 0 ? 0 : n;
    *e = rank == size - 1 ? n : *b;
    return;
  }
  int64_t *cut = calloc((size_t)size + 1, sizeof *cut);
  for (int r = 1; r < size; r++) {
    if (kind == 0) { /* balanced by entries */
      int64_t i = cut[r - 1];
      while (i < n && ptr[i] * size < ptr[n] * r) i++;
      cut[r] = i;
    } else { /* uneven (quadratic), rank 1 empty */
      cut[r] = n * r * r / ((int64_t)size * size);
      if (r == 2) cut[2] = cut[1];
    }
  }
  cut[size] = n;
  for (int r = 1; r <= size; r++)
    if (cut[r] < cut[r - 1]) cut[r] = cut[r - 1];
  *b = cut[rank];
  *e = cut[rank + 1];
  free(cut);
}

/* Gather every rank's slab (as global triplets) on rank 0 and compare with the serial matrix. */
static void reassemble(gcoo_sparse slab, int64_t b, const gcoo_h5_info *info, gcoo_sparse serial,
                       const char *what) {
  gcoo_sparse C = NULL;
  gcoo_sparse_info ci;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_convert(&C, slab, GCOO_FORMAT_COO, 0));
  TEST_CALL(gcoo_sparse_get_info(C, &ci));
  TEST_CALL(gcoo_sparse_get_arrays(C, &a));
  int64_t n = ci.nnz;
  double *mine = malloc(sizeof(double) * (size_t)(3 * n + 1));
  for (int64_t k = 0; k < n; k++) {
    int64_t r = a.rows[k], c = a.cols[k];
    if (info->format == GCOO_FORMAT_CSR)
      r += b;
    else if (info->format == GCOO_FORMAT_CSC)
      c += b;
    else
      c += b * info->p;
    mine[3 * k] = (double)r;
    mine[3 * k + 1] = (double)c;
    mine[3 * k + 2] = ci.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                               : ((const float *)a.values)[k];
  }
  int cnt = (int)(3 * n), *counts = NULL, *displs = NULL;
  double *all = NULL;
  if (rank == 0)
    counts = calloc((size_t)size, sizeof(int)), displs = calloc((size_t)size, sizeof(int));
  MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  if (rank == 0) {
    for (int r = 0; r < size; r++) displs[r] = total, total += counts[r];
    all = malloc(sizeof(double) * (size_t)(total + 1));
  }
  MPI_Gatherv(mine, cnt, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int64_t nn = total / 3;
    int32_t *rr = malloc(sizeof(int32_t) * (size_t)(nn + 1)),
            *cc = malloc(sizeof(int32_t) * (size_t)(nn + 1));
    void *vv = malloc(8 * (size_t)(nn + 1));
    for (int64_t k = 0; k < nn; k++) {
      rr[k] = (int32_t)all[3 * k];
      cc[k] = (int32_t)all[3 * k + 1];
      if (ci.dtype == GCOO_FLOAT64)
        ((double *)vv)[k] = all[3 * k + 2];
      else
        ((float *)vv)[k] = (float)all[3 * k + 2];
    }
    gcoo_sparse G = NULL, S = NULL;
    TEST_CALL(gcoo_sparse_create_coo(&G, ci.dtype, info->nrows, info->ncols, nn, rr, cc, vv,
                                     GCOO_DUPLICATES_ERROR));
    TEST_CALL(gcoo_sparse_convert(&S, serial, GCOO_FORMAT_COO, 0));
    TEST_CHECK(io_compare_sparse(G, S, what) == 0,
               "%s: reassembled slabs differ from the serial read", what);
    gcoo_sparse_destroy(&G);
    gcoo_sparse_destroy(&S);
    free(rr), free(cc), free(vv);
  }
  free(mine), free(all), free(counts), free(displs);
  gcoo_sparse_destroy(&C);
}

/* This rank's slab [b, e) against the serial read's arrays (overlapping slabs cannot be
 * reassembled). */
static void check_slab(gcoo_sparse slab, gcoo_sparse serial, const gcoo_h5_info *info, int64_t b,
                       int64_t e, const char *what) {
  gcoo_sparse_arrays a, f;
  gcoo_sparse_info si;
  TEST_CALL(gcoo_sparse_get_arrays(slab, &a));
  TEST_CALL(gcoo_sparse_get_arrays(serial, &f));
  TEST_CALL(gcoo_sparse_get_info(slab, &si));
  int gcoo = info->format == GCOO_FORMAT_GCOO;
  const int64_t *fp = gcoo ? f.gidx : f.ptr, *ap = gcoo ? a.gidx : a.ptr, lo = fp[b];
  int64_t bad = 0;
  for (int64_t i = b; i <= e; i++) bad += ap[i - b] != fp[i] - lo;
  for (int64_t k = 0; k < fp[e] - lo && !bad; k++) {
    double va = si.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                         : ((const float *)a.values)[k];
    double vf = si.dtype == GCOO_FLOAT64 ? ((const double *)f.values)[lo + k]
                                         : ((const float *)f.values)[lo + k];
    bad += va != vf;
    if (gcoo)
      bad += a.rows[k] != f.rows[lo + k] || a.cols[k] != f.cols[lo + k] - b * info->p;
    else
      bad += a.ind[k] != f.ind[lo + k];
  }
  TEST_CHECK(bad == 0, "%s: slab [%lld, %lld) differs from the serial read in %lld places", what,
             (long long)b, (long long)e, (long long)bad);
}

static void sparse_reads(int variant) {
  const gcoo_format formats[] = {GCOO_FORMAT_CSR, GCOO_FORMAT_CSC, GCOO_FORMAT_GCOO};
  for (int f = 0; f < 3; f++)
    for (int dt = 0; dt < 2; dt++) {
      char name[64], what[128];
      snprintf(name, sizeof name, "m%d_%d_%d.h5:/mats/A", variant, f, dt);
      const char *path = path_of(name);
      if (rank == 0) {
        gcoo_sparse A = NULL;
        TEST_CALL(
            gcoo_sparse_random(&A, (gcoo_dtype)dt, formats[f], 57, 41, 0.8, 7 + (uint64_t)f, 3));
        TEST_CALL(gcoo_h5_write_sparse(path, A, 0));
        gcoo_sparse_destroy(&A);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      gcoo_sparse serial = NULL;
      TEST_CALL(gcoo_h5_read_sparse(path, (gcoo_dtype)dt, &serial));
      gcoo_sparse_info si;
      gcoo_sparse_arrays sa;
      TEST_CALL(gcoo_sparse_get_info(serial, &si));
      TEST_CALL(gcoo_sparse_get_arrays(serial, &sa));
      gcoo_h5_sparse_file hf = NULL;
      gcoo_h5_info info;
      TEST_CALL(gcoo_h5_sparse_open(MPI_COMM_WORLD, path, &hf));
      TEST_CALL(gcoo_h5_sparse_get_info(hf, &info));
      const int64_t *ptr = gcoo_h5_sparse_major_ptr(hf);
      const int64_t *sptr = si.format == GCOO_FORMAT_GCOO ? sa.gidx : sa.ptr;
      TEST_CHECK(info.nmajor == (si.format == GCOO_FORMAT_GCOO  ? si.ngroups
                                 : si.format == GCOO_FORMAT_CSR ? si.nrows
                                                                : si.ncols),
                 "nmajor %lld", (long long)info.nmajor);
      int same = ptr != NULL;
      for (int64_t i = 0; same && i <= info.nmajor; i++) same = ptr[i] == sptr[i];
      TEST_CHECK(same, "%s: major pointers differ from the serial read", name);
      for (int kind = 0; kind < 3; kind++)
        for (int rdt = 0; rdt < 2; rdt++) {
          int64_t b, e;
          split(ptr, info.nmajor, kind, &b, &e);
          gcoo_sparse slab = NULL, ref = NULL;
          TEST_CALL(gcoo_h5_sparse_read_slab(hf, (gcoo_dtype)rdt, b, e, &slab));
          gcoo_sparse_info li;
          TEST_CALL(gcoo_sparse_get_info(slab, &li));
          int64_t er = info.format == GCOO_FORMAT_CSR ? e - b : info.nrows;
          int64_t ec = info.format == GCOO_FORMAT_CSR ? info.ncols
                       : info.format == GCOO_FORMAT_CSC
                           ? e - b
                           : (e == b ? 0
                                     : (e * info.p < info.ncols ? e * info.p : info.ncols) -
                                           b * info.p);
          TEST_CHECK(li.format == info.format && li.nrows == er && li.ncols == ec &&
                         li.nnz == ptr[e] - ptr[b] && li.dtype == (gcoo_dtype)rdt,
                     "%s slab [%lld, %lld): %lld x %lld nnz %lld", name, (long long)b, (long long)e,
                     (long long)li.nrows, (long long)li.ncols, (long long)li.nnz);
          TEST_CALL(gcoo_h5_read_sparse(path, (gcoo_dtype)rdt, &ref));
          snprintf(what, sizeof what, "%s split %d dtype %d variant %d", name, kind, rdt, variant);
          reassemble(slab, b, &info, ref, what);
          gcoo_sparse_destroy(&slab);
          gcoo_sparse_destroy(&ref);
        }
      /* overlapping slabs (rank 0 all but the ends, the others everything): read independently,
       * since Open MPI 4.1.4's OMPIO gets such collective reads wrong */
      for (int rdt = 0; rdt < 2; rdt++) {
        int64_t n = info.nmajor, b = rank == 0 && n >= 2 ? 1 : 0,
                e = rank == 0 && n >= 2 ? n - 1 : n;
        gcoo_sparse slab = NULL, ref = NULL;
        TEST_CALL(gcoo_h5_sparse_read_slab(hf, (gcoo_dtype)rdt, b, e, &slab));
        TEST_CALL(gcoo_h5_read_sparse(path, (gcoo_dtype)rdt, &ref));
        snprintf(what, sizeof what, "%s overlapping dtype %d variant %d", name, rdt, variant);
        check_slab(slab, ref, &info, b, e, what);
        gcoo_sparse_destroy(&slab);
        gcoo_sparse_destroy(&ref);
      }
      /* a bad range on the last rank only: every rank fails alike */
      {
        gcoo_sparse slab = NULL;
        int64_t b = 0, e = rank == size - 1 ? info.nmajor + 1 : 0;
        ALL_FAIL(gcoo_h5_sparse_read_slab(hf, GCOO_FLOAT64, b, e, &slab), GCOO_ERR_INVALID_ARG,
                 "is not inside");
        if (rank != size - 1) {
          char want[32];
          snprintf(want, sizeof want, "rank %d: ", size - 1);
          TEST_CHECK(strstr(gcoo_last_error(), want) != NULL, "message does not say which rank: %s",
                     gcoo_last_error());
        }
      }
      TEST_CALL(gcoo_h5_sparse_close(&hf));
      TEST_CHECK(hf == NULL, "close did not reset the handle");
      gcoo_sparse_destroy(&serial);
    }
}

/* A CSR file with one bad column index in its last row: only the rank that reads it can see it. */
static void bad_entry_reaches_everyone(void) {
  const char *path = path_of("badidx.h5:/A");
  if (rank == 0) {
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 40, 10, 0.5, 3, 0));
    TEST_CALL(gcoo_h5_write_sparse(path, A, 0));
    gcoo_sparse_destroy(&A);
    hid_t fid = H5Fopen(path_of("badidx.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(fid, "/A/indices", H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    hsize_t last = (hsize_t)H5Sget_simple_extent_npoints(s) - 1, one = 1;
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &last, NULL, &one, NULL);
    hid_t m = H5Screate_simple(1, &one, NULL);
    int32_t v = 10;
    TEST_CHECK(H5Dwrite(d, H5T_NATIVE_INT32, m, s, H5P_DEFAULT, &v) >= 0,
               "cannot corrupt the file");
    H5Sclose(m), H5Sclose(s), H5Dclose(d), H5Fclose(fid);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  gcoo_h5_sparse_file hf = NULL;
  TEST_CALL(gcoo_h5_sparse_open(MPI_COMM_WORLD, path, &hf));
  const int64_t *ptr = gcoo_h5_sparse_major_ptr(hf);
  int64_t b, e;
  split(ptr, 40, 0, &b, &e);
  gcoo_sparse slab = NULL;
  ALL_FAIL(gcoo_h5_sparse_read_slab(hf, GCOO_FLOAT32, b, e, &slab), GCOO_ERR_INDEX_RANGE,
           "row 39 has column index 10 outside 0..9");
  TEST_CHECK(slab == NULL, "slab set on failure");
  TEST_CALL(gcoo_h5_sparse_close(&hf));
  ALL_FAIL(gcoo_h5_sparse_open(MPI_COMM_WORLD, path_of("missing.h5:/A"), &hf), GCOO_ERR_IO,
           "missing.h5");
  ALL_FAIL(gcoo_h5_sparse_open(MPI_COMM_WORLD, path_of("badidx.h5:/B"), &hf), GCOO_ERR_FORMAT,
           "no object \"B\"");
  ALL_FAIL(gcoo_h5_sparse_open(MPI_COMM_WORLD, path_of("badidx.h5:/A/indptr"), &hf),
           GCOO_ERR_FORMAT, "is a dense dataset");
}

/* A column-major dataset (dims [ncols, nrows], layout attribute), as Fortran/Julia write. */
static void write_colmajor(const char *file, const gcoo_dense *D) {
  hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[2] = {(hsize_t)D->ncols, (hsize_t)D->nrows};
  hid_t s = H5Screate_simple(2, dims, NULL);
  hid_t d = H5Dcreate2(fid, "T", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  double *t = malloc(sizeof(double) * (size_t)(D->nrows * D->ncols + 1));
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) t[j * D->nrows + i] = gcoo_dense_get(D, i, j);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t);
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, 12);
  hid_t as = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(d, "layout", st, as, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, st, "column-major");
  H5Aclose(a), H5Sclose(as), H5Tclose(st), H5Dclose(d), H5Sclose(s), H5Fclose(fid);
  free(t);
}

static void dense_reads(int variant, int64_t m) {
  const int64_t n = 3;
  gcoo_dense full;
  TEST_CALL(gcoo_dense_create(&full, GCOO_FLOAT64, GCOO_ROW_MAJOR, m, n));
  TEST_CALL(gcoo_dense_fill_random(&full, 99));
  char rm[64], cm[64];
  snprintf(rm, sizeof rm, "dense%d.h5:/X", variant);
  snprintf(cm, sizeof cm, "colmajor%d.h5:/T", variant);
  if (rank == 0) {
    TEST_CALL(gcoo_h5_write_dense(path_of(rm), &full, 0));
    char f[64];
    snprintf(f, sizeof f, "colmajor%d.h5", variant);
    write_colmajor(path_of(f), &full);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const char *files[2] = {path_of(rm), path_of(cm)};
  for (int fi = 0; fi < 2; fi++)
    for (int dt = 0; dt < 2; dt++)
      for (int lay = 0; lay < 2; lay++) {
        /* an uneven range per rank, rank 0 empty when there are several ranks */
        int64_t r0 = size == 1
                         ? 0
                         : (rank == 0 ? 0 : (m * (rank - 1)) / (size - 1) + (rank > 1 ? 7 : 0));
        int64_t r1 = size == 1
                         ? m
                         : (rank == 0 ? 0 : (rank == size - 1 ? m : (m * rank) / (size - 1) + 7));
        gcoo_dense D, S;
        TEST_CALL(gcoo_h5_read_dense_rows(MPI_COMM_WORLD, files[fi], (gcoo_dtype)dt, r0, r1 - r0,
                                          (gcoo_layout)lay, &D));
        TEST_CALL(gcoo_dense_create(&S, GCOO_FLOAT64, GCOO_ROW_MAJOR, r1 - r0, n));
        for (int64_t i = r0; i < r1; i++)
          for (int64_t j = 0; j < n; j++)
            gcoo_dense_set(&S, i - r0, j, gcoo_dense_get(&full, i, j));
        TEST_CHECK(io_compare_dense(&D, &S, "row range") == 0,
                   "%s rows %lld..%lld dtype %d layout %d", files[fi], (long long)r0, (long long)r1,
                   dt, lay);
        gcoo_dense_destroy(&D);
        gcoo_dense_destroy(&S);
        /* overlapping ranges: rank 0 all rows but the ends, the others all */
        {
          int64_t a0 = rank == 0 ? 3 : 0, a1 = rank == 0 ? m - 3 : m;
          TEST_CALL(gcoo_h5_read_dense_rows(MPI_COMM_WORLD, files[fi], (gcoo_dtype)dt, a0, a1 - a0,
                                            (gcoo_layout)lay, &D));
          TEST_CALL(gcoo_dense_create(&S, GCOO_FLOAT64, GCOO_ROW_MAJOR, a1 - a0, n));
          for (int64_t i = a0; i < a1; i++)
            for (int64_t j = 0; j < n; j++)
              gcoo_dense_set(&S, i - a0, j, gcoo_dense_get(&full, i, j));
          TEST_CHECK(io_compare_dense(&D, &S, "overlapping rows") == 0, "%s overlapping rows",
                     files[fi]);
          gcoo_dense_destroy(&D);
          gcoo_dense_destroy(&S);
        }
        /* a row set: every other row of a stretch (> 1024 runs), then a block, per rank */
        int64_t nset = 0, *rows = malloc(sizeof(int64_t) * (size_t)m);
        for (int64_t i = rank; i < m - 400; i += 2) rows[nset++] = i;
        for (int64_t i = m - 300 + rank; i < m - 200; i++) rows[nset++] = i;
        if (rank == 1) nset = 0; /* an empty set */
        TEST_CALL(gcoo_h5_read_dense_rowset(MPI_COMM_WORLD, files[fi], (gcoo_dtype)dt, rows, nset,
                                            (gcoo_layout)lay, &D));
        TEST_CALL(gcoo_dense_create(&S, GCOO_FLOAT64, GCOO_ROW_MAJOR, nset, n));
        for (int64_t i = 0; i < nset; i++)
          for (int64_t j = 0; j < n; j++)
            gcoo_dense_set(&S, i, j, gcoo_dense_get(&full, rows[i], j));
        TEST_CHECK(io_compare_dense(&D, &S, "row set") == 0, "%s row set dtype %d layout %d",
                   files[fi], dt, lay);
        gcoo_dense_destroy(&D);
        gcoo_dense_destroy(&S);
        free(rows);
      }
  /* errors on one rank reach all */
  gcoo_dense D;
  int64_t bad[3] = {5, 4, 6};
  ALL_FAIL(gcoo_h5_read_dense_rowset(MPI_COMM_WORLD, files[0], GCOO_FLOAT64, bad,
                                     rank == size - 1 ? 3 : 0, GCOO_ROW_MAJOR, &D),
           GCOO_ERR_INVALID_ARG, "strictly increasing");
  ALL_FAIL(gcoo_h5_read_dense_rows(MPI_COMM_WORLD, files[1], GCOO_FLOAT64, rank == 0 ? m - 1 : 0,
                                   rank == 0 ? 2 : 1, GCOO_ROW_MAJOR, &D),
           GCOO_ERR_INVALID_ARG, "are not inside the");
  gcoo_dense_destroy(&full);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char base[64];
  snprintf(base, sizeof base, "t410_np%d", size);
  if (rank == 0) snprintf(dir, sizeof dir, "%s", io_make_dir(base));
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);

  /* 0: MPI-IO, default rounds; 1: MPI-IO, rounds of 400 bytes (ranks make different numbers
   * of rounds); 2: independent file handles. A row set of more than 1024 runs takes more than
   * one round even with default rounds. */
  for (int variant = 0; variant < 3; variant++) {
    double t0 = MPI_Wtime();
    if (variant == 1) TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", "400"));
    if (variant == 2) {
      TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL));
      TEST_CALL(gcoo_param_set("GCOO_H5_MPIO", "0"));
    }
    sparse_reads(variant);
    double t1 = MPI_Wtime();
    dense_reads(variant, variant == 1 ? 500 : 2600);
    if (rank == 0)
      printf("variant %d: sparse %.2f s, dense %.2f s\n", variant, t1 - t0, MPI_Wtime() - t1);
  }
  TEST_CALL(gcoo_param_set("GCOO_H5_MPIO", NULL));
  bad_entry_reaches_everyone();

  int failures = gcoo_test_failures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && all == 0) io_remove_tree(dir);
  int rc = gcoo_test_finish("t410-h5-parallel-read");
  MPI_Finalize();
  return rc;
}
