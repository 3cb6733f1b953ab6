/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_h5.c: harness "h5": the HDF5 readers of gcoo/h5.h (io/h5*.c) on arbitrary file
 * bytes. The input is written to a file and read as the object at the root ("in.h5") and as the
 * object "/m" ("in.h5:/m"): inspected, read as sparse in both element types, read as dense in
 * both layouts. Invariants besides "no crash, no leak, no undefined behaviour":
 *   - every failure has a documented status and a message; what inspection refuses, no reader
 *     accepts;
 *   - a matrix read validates, has the inspected shape and entry count (a sparse read may sum
 *     duplicates: no more entries than inspected), in the element type asked;
 *   - writing what was read and reading it back gives the same matrix, bit for bit;
 *   - no HDF5 object (file, group, dataset, attribute, datatype, dataspace) stays open after a
 *     call returns, success or failure: a leaked handle keeps the file open forever.
 * Objects whose arrays would need more than 8 MiB are inspected only. Crashes inside libhdf5
 * itself (it is not hardened against hostile files) are reported upstream, not fixed here: see
 * docs/reliability.md. */
#include <hdf5.h>
#include <string.h>

#include "fuzz_common.h"
#include "gcoo/h5.h"

enum { MAX_ELEMENTS = 1 << 20 }; /* 8 MiB of float64: keeps an execution well under a second */

static void check_no_open_objects(const char *after) {
  ssize_t n = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
  FUZZ_ASSERT(n == 0, "%zd HDF5 objects left open after %s", n, after);
}

static void sparse_round_trip(gcoo_sparse A, gcoo_dtype dtype, const char *target) {
  gcoo_sparse B = NULL, Ac = NULL, Bc = NULL;
  gcoo_clear_error();
  gcoo_status st = gcoo_h5_write_sparse(target, A, GCOO_H5_OVERWRITE);
  check_no_open_objects("gcoo_h5_write_sparse");
  FUZZ_ASSERT(st == GCOO_SUCCESS, "writing a matrix that was read failed: %s",
              gcoo_status_name(st));
  st = gcoo_h5_read_sparse(target, dtype, &B);
  check_no_open_objects("gcoo_h5_read_sparse (round trip)");
  FUZZ_ASSERT(st == GCOO_SUCCESS, "reading back failed: %s", gcoo_status_name(st));
  /* compare in one format: the writer keeps the format, COO is written as CSR */
  FUZZ_ASSERT(gcoo_sparse_convert(&Ac, A, GCOO_FORMAT_CSR, 0) == GCOO_SUCCESS &&
                  gcoo_sparse_convert(&Bc, B, GCOO_FORMAT_CSR, 0) == GCOO_SUCCESS,
              "conversion to CSR failed");
  FUZZ_ASSERT(fuzz_same_sparse(Ac, Bc), "the HDF5 round trip changed the matrix");
  gcoo_sparse_destroy(&B);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
}

static void dense_round_trip(const gcoo_dense *D, const char *target) {
  gcoo_dense E = {0};
  gcoo_clear_error();
  gcoo_status st = gcoo_h5_write_dense(target, D, GCOO_H5_OVERWRITE);
  check_no_open_objects("gcoo_h5_write_dense");
  FUZZ_ASSERT(st == GCOO_SUCCESS, "writing a dense matrix that was read failed: %s",
              gcoo_status_name(st));
  st = gcoo_h5_read_dense(target, D->dtype, D->layout, &E);
  check_no_open_objects("gcoo_h5_read_dense (round trip)");
  FUZZ_ASSERT(st == GCOO_SUCCESS, "reading back a dense matrix failed: %s", gcoo_status_name(st));
  FUZZ_ASSERT(fuzz_same_dense(D, &E), "the HDF5 dense round trip changed the matrix");
  gcoo_dense_destroy(&E);
}

static void read_object(const char *path, const char *rt_target) {
  gcoo_h5_info info;
  gcoo_clear_error();
  gcoo_status si = gcoo_h5_inspect(path, &info);
  check_no_open_objects("gcoo_h5_inspect");
  if (si < 0) {
    fuzz_check_failure(si, "gcoo_h5_inspect", NULL);
    gcoo_sparse A = NULL;
    gcoo_dense D = {0};
    gcoo_status s = gcoo_h5_read_sparse(path, GCOO_FLOAT64, &A);
    check_no_open_objects("gcoo_h5_read_sparse");
    FUZZ_ASSERT(s < 0 && A == NULL, "inspection failed (%s) but the sparse read succeeded",
                gcoo_status_name(si));
    s = gcoo_h5_read_dense(path, GCOO_FLOAT64, GCOO_ROW_MAJOR, &D);
    check_no_open_objects("gcoo_h5_read_dense");
    FUZZ_ASSERT(s < 0, "inspection failed (%s) but the dense read succeeded", gcoo_status_name(si));
    return;
  }
  FUZZ_ASSERT(info.nrows >= 0 && info.ncols >= 0 && (!info.is_sparse || info.nnz >= 0),
              "inspected %lld x %lld, nnz %lld", (long long)info.nrows, (long long)info.ncols,
              (long long)info.nnz);
  if (info.is_sparse) {
    if (info.nmajor > MAX_ELEMENTS || info.nnz > MAX_ELEMENTS || info.nrows > MAX_ELEMENTS ||
        info.ncols > MAX_ELEMENTS)
      return;
    static const gcoo_dtype dtypes[] = {GCOO_FLOAT64, GCOO_FLOAT32};
    for (int t = 0; t < 2; t++) {
      gcoo_sparse A = NULL;
      gcoo_sparse_info ai;
      gcoo_clear_error();
      gcoo_status s = gcoo_h5_read_sparse(path, dtypes[t], &A);
      check_no_open_objects("gcoo_h5_read_sparse");
      if (s < 0) {
        fuzz_check_failure(s, "gcoo_h5_read_sparse", NULL);
        continue;
      }
      FUZZ_ASSERT(gcoo_sparse_validate(A, 0) == GCOO_SUCCESS, "a matrix read does not validate");
      gcoo_sparse_get_info(A, &ai);
      FUZZ_ASSERT(ai.dtype == dtypes[t] && ai.nrows == info.nrows && ai.ncols == info.ncols &&
                      ai.nnz <= info.nnz,
                  "read %lld x %lld nnz %lld, inspected %lld x %lld nnz %lld", (long long)ai.nrows,
                  (long long)ai.ncols, (long long)ai.nnz, (long long)info.nrows,
                  (long long)info.ncols, (long long)info.nnz);
      sparse_round_trip(A, dtypes[t], rt_target);
      gcoo_sparse_destroy(&A);
    }
    gcoo_dense D = {0};
    gcoo_status s = gcoo_h5_read_dense(path, GCOO_FLOAT64, GCOO_ROW_MAJOR, &D);
    check_no_open_objects("gcoo_h5_read_dense");
    FUZZ_ASSERT(s < 0, "a sparse object was read as dense");
    fuzz_check_failure(s, "gcoo_h5_read_dense (sparse object)", NULL);
  } else {
    if (info.nrows > MAX_ELEMENTS || info.ncols > MAX_ELEMENTS ||
        (info.ncols && info.nrows > MAX_ELEMENTS / info.ncols))
      return;
    static const gcoo_layout layouts[] = {GCOO_ROW_MAJOR, GCOO_COL_MAJOR};
    for (int t = 0; t < 2; t++) {
      gcoo_dense D = {0};
      gcoo_dtype dt = t ? GCOO_FLOAT32 : GCOO_FLOAT64;
      gcoo_clear_error();
      gcoo_status s = gcoo_h5_read_dense(path, dt, layouts[t], &D);
      check_no_open_objects("gcoo_h5_read_dense");
      if (s < 0) {
        fuzz_check_failure(s, "gcoo_h5_read_dense", NULL);
        continue;
      }
      FUZZ_ASSERT(gcoo_dense_check(&D) == GCOO_SUCCESS && D.dtype == dt && D.layout == layouts[t] &&
                      D.nrows == info.nrows && D.ncols == info.ncols,
                  "dense read %lld x %lld, inspected %lld x %lld", (long long)D.nrows,
                  (long long)D.ncols, (long long)info.nrows, (long long)info.ncols);
      dense_round_trip(&D, rt_target);
      gcoo_dense_destroy(&D);
    }
    gcoo_sparse A = NULL;
    gcoo_status s = gcoo_h5_read_sparse(path, GCOO_FLOAT64, &A);
    check_no_open_objects("gcoo_h5_read_sparse");
    FUZZ_ASSERT(s < 0 && A == NULL, "a dense dataset was read as sparse");
    fuzz_check_failure(s, "gcoo_h5_read_sparse (dense object)", NULL);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char file[512], obj[600], rt[512], rt_obj[600];
  fuzz_path(file, sizeof file, "in.h5");
  fuzz_write_file(file, data, size);
  fuzz_path(rt, sizeof rt, "rt.h5");
  snprintf(obj, sizeof obj, "%s:/m", file);
  snprintf(rt_obj, sizeof rt_obj, "%s:/m", rt);
  read_object(file, rt_obj);
  read_object(obj, rt_obj);
  return 0;
}
