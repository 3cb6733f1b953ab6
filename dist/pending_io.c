/* SPDX-License-Identifier: MIT */
/* dist/pending_io.c: TEMPORARY weak stand-ins for io/ functions that dist/ and gcoo_dist call
 * while io/h5*.c (helper "h5") and io/mtx.c (helper "found") are written on other branches.
 * The real (strong) definitions replace these at link time as soon as they are merged; then this
 * file should be deleted (and removed from dist/CMakeLists.txt). Each stand-in fails clearly. */
#include "gcoo/backend.h"
#include "gcoo/mtx.h"
#if GCOO_HAVE_HDF5
#include "gcoo/h5.h"
#endif

#define PENDING(what) \
  GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "%s is not in this build yet (io/ not merged)", what)

__attribute__((weak)) gcoo_status gcoo_mtx_read(const char *path, gcoo_dtype dtype,
                                                unsigned flags, gcoo_sparse *A) {
  (void)path, (void)dtype, (void)flags, (void)A;
  return PENDING("gcoo_mtx_read");
}

__attribute__((weak)) gcoo_status gcoo_mtx_read_header(const char *path, gcoo_mtx_header *h) {
  (void)path, (void)h;
  return PENDING("gcoo_mtx_read_header");
}

__attribute__((weak)) gcoo_status gcoo_mtx_write(const char *path, gcoo_sparse A) {
  (void)path, (void)A;
  return PENDING("gcoo_mtx_write");
}

#if GCOO_HAVE_HDF5
__attribute__((weak)) gcoo_status gcoo_h5_sparse_open(MPI_Comm comm, const char *path,
                                                      gcoo_h5_sparse_file *f) {
  (void)comm, (void)path, (void)f;
  return PENDING("gcoo_h5_sparse_open");
}
__attribute__((weak)) gcoo_status gcoo_h5_sparse_get_info(gcoo_h5_sparse_file f,
                                                          gcoo_h5_info *info) {
  (void)f, (void)info;
  return PENDING("gcoo_h5_sparse_get_info");
}
__attribute__((weak)) const int64_t *gcoo_h5_sparse_major_ptr(gcoo_h5_sparse_file f) {
  (void)f;
  return NULL;
}
__attribute__((weak)) gcoo_status gcoo_h5_sparse_read_slab(gcoo_h5_sparse_file f,
                                                           gcoo_dtype dtype, int64_t begin,
                                                           int64_t end, gcoo_sparse *slab) {
  (void)f, (void)dtype, (void)begin, (void)end, (void)slab;
  return PENDING("gcoo_h5_sparse_read_slab");
}
__attribute__((weak)) gcoo_status gcoo_h5_sparse_close(gcoo_h5_sparse_file *f) {
  (void)f;
  return GCOO_SUCCESS;
}
__attribute__((weak)) gcoo_status gcoo_h5_inspect(const char *path, gcoo_h5_info *info) {
  (void)path, (void)info;
  return PENDING("gcoo_h5_inspect");
}
__attribute__((weak)) gcoo_status gcoo_h5_read_dense_rows(MPI_Comm comm, const char *path,
                                                          gcoo_dtype dtype, int64_t row0,
                                                          int64_t nrows, gcoo_layout layout,
                                                          gcoo_dense *D) {
  (void)comm, (void)path, (void)dtype, (void)row0, (void)nrows, (void)layout, (void)D;
  return PENDING("gcoo_h5_read_dense_rows");
}
__attribute__((weak)) gcoo_status gcoo_h5_read_dense_rowset(MPI_Comm comm, const char *path,
                                                            gcoo_dtype dtype, const int64_t *rows,
                                                            int64_t n, gcoo_layout layout,
                                                            gcoo_dense *D) {
  (void)comm, (void)path, (void)dtype, (void)rows, (void)n, (void)layout, (void)D;
  return PENDING("gcoo_h5_read_dense_rowset");
}
__attribute__((weak)) gcoo_status gcoo_h5_write_dense_rows(MPI_Comm comm, const char *path,
                                                           int64_t nrows_global, int64_t row0,
                                                           const gcoo_dense *D) {
  (void)comm, (void)path, (void)nrows_global, (void)row0, (void)D;
  return PENDING("gcoo_h5_write_dense_rows");
}
__attribute__((weak)) gcoo_status gcoo_h5_write_csr_rows(MPI_Comm comm, const char *path,
                                                         int64_t nrows_global, int64_t row0,
                                                         gcoo_sparse slab) {
  (void)comm, (void)path, (void)nrows_global, (void)row0, (void)slab;
  return PENDING("gcoo_h5_write_csr_rows");
}
__attribute__((weak)) gcoo_status gcoo_h5_write_sparse(const char *path, gcoo_sparse A) {
  (void)path, (void)A;
  return PENDING("gcoo_h5_write_sparse");
}
#endif
