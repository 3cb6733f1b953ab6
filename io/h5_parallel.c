/* SPDX-License-Identifier: MIT */
/* io/h5_parallel.c: the collective API of gcoo/h5.h: every rank of a communicator opens the
 * file (through MPI-IO) and reads or writes its own slab. Each entry point duplicates the
 * caller's communicator (gcoo's own messages never mix with the application's), keeps HDF5
 * quiet, and runs the code the serial API shares (io/h5_sparse.c, io/h5_dense.c). */
#include <stdlib.h>

#include "h5_impl.h"

gcoo_status gcoo_h5_sparse_open(MPI_Comm comm, const char *path, gcoo_h5_sparse_file *f) {
  gcoo__h5_quiet q;
  gcoo__h5_comm c;
  gcoo_status st;
  GCOO_CHECK(f != NULL, GCOO_ERR_NULL, "file handle output is NULL");
  *f = NULL;
  gcoo__h5_quiet_begin(&q);
  st = gcoo__h5_comm_dup(&c, comm, 0);
  if (st >= 0) st = gcoo__h5_sparse_open(&c, path, 1, f); /* takes c over */
  gcoo__h5_quiet_end(&q);
  GCOO_CALL(st);
  return st;
}

gcoo_status gcoo_h5_sparse_get_info(gcoo_h5_sparse_file f, gcoo_h5_info *info) {
  GCOO_VALID_OBJECT(f, GCOO_MAGIC_H5_SPARSE, "HDF5 sparse file");
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  *info = f->info;
  return GCOO_SUCCESS;
}

const int64_t *gcoo_h5_sparse_major_ptr(gcoo_h5_sparse_file f) {
  return f && f->magic == GCOO_MAGIC_H5_SPARSE ? f->ptr : NULL;
}

gcoo_status gcoo_h5_sparse_read_slab(gcoo_h5_sparse_file f, gcoo_dtype dtype, int64_t begin,
                                     int64_t end, gcoo_sparse *slab) {
  GCOO_VALID_OBJECT(f, GCOO_MAGIC_H5_SPARSE, "HDF5 sparse file");
  GCOO_H5_RETURN_QUIETLY(gcoo__h5_sparse_read_slab(f, dtype, begin, end, slab));
}

gcoo_status gcoo_h5_sparse_close(gcoo_h5_sparse_file *f) {
  GCOO_H5_RETURN_QUIETLY(gcoo__h5_sparse_close(f));
}

/* Dense rows: a range or a set (mode). */
static gcoo_status read_rows(MPI_Comm comm, const char *path, gcoo_dtype dtype, int64_t row0,
                             const int64_t *rows, int64_t n, int mode, gcoo_layout layout,
                             gcoo_dense *D) {
  gcoo__h5_quiet q;
  gcoo__h5_comm c;
  gcoo__h5_quiet_begin(&q);
  gcoo_status st = gcoo__h5_comm_dup(&c, comm, 0);
  if (st >= 0) st = gcoo__h5_dense_read(&c, path, dtype, row0, rows, n, mode, layout, D);
  gcoo__h5_comm_free(&c);
  gcoo__h5_quiet_end(&q);
  return st;
}

gcoo_status gcoo_h5_read_dense_rows(MPI_Comm comm, const char *path, gcoo_dtype dtype, int64_t row0,
                                    int64_t nrows, gcoo_layout layout, gcoo_dense *D) {
  GCOO_CALL(read_rows(comm, path, dtype, row0, NULL, nrows, GCOO__H5_ROWS_RANGE, layout, D));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_h5_read_dense_rowset(MPI_Comm comm, const char *path, gcoo_dtype dtype,
                                      const int64_t *rows, int64_t n, gcoo_layout layout,
                                      gcoo_dense *D) {
  GCOO_CALL(read_rows(comm, path, dtype, 0, rows, n, GCOO__H5_ROWS_SET, layout, D));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_h5_write_dense_rows(MPI_Comm comm, const char *path, int64_t nrows_global,
                                     int64_t row0, const gcoo_dense *D, int flags) {
  gcoo__h5_quiet q;
  gcoo__h5_comm c;
  gcoo__h5_quiet_begin(&q);
  gcoo_status st = gcoo__h5_comm_dup(&c, comm, 1);
  if (st >= 0) {
    c.write_flags = flags;
    gcoo_status local = gcoo__h5_dense_check_host(D);
    if (local >= 0 && (row0 < 0 || nrows_global < 0))
      local = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "row0 = %lld and nrows_global = %lld must be >= 0",
                         (long long)row0, (long long)nrows_global);
    st = gcoo__h5_dense_write(&c, path, nrows_global, row0, D, local);
  }
  gcoo__h5_comm_free(&c);
  gcoo__h5_quiet_end(&q);
  GCOO_CALL(st);
  return st;
}

gcoo_status gcoo_h5_write_csr_rows(MPI_Comm comm, const char *path, int64_t nrows_global,
                                   int64_t row0, gcoo_sparse slab, int flags) {
  gcoo__h5_quiet q;
  gcoo__h5_comm c;
  gcoo_sparse csr = NULL;
  gcoo__h5_quiet_begin(&q);
  gcoo_status st = gcoo__h5_comm_dup(&c, comm, 1);
  if (st >= 0) {
    c.write_flags = flags;
    gcoo_sparse_info si;
    gcoo_status local = gcoo_sparse_get_info(slab, &si);
    if (local >= 0 && (row0 < 0 || nrows_global < 0))
      local = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "row0 = %lld and nrows_global = %lld must be >= 0",
                         (long long)row0, (long long)nrows_global);
    if (local >= 0 && si.format != GCOO_FORMAT_CSR)
      local = gcoo_sparse_convert(&csr, slab, GCOO_FORMAT_CSR, 0);
    st = gcoo__h5_sparse_write(&c, path, nrows_global, row0, csr ? csr : slab, local);
  }
  gcoo_sparse_destroy(&csr);
  gcoo__h5_comm_free(&c);
  gcoo__h5_quiet_end(&q);
  GCOO_CALL(st);
  return st;
}
