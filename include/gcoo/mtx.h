/* SPDX-License-Identifier: MIT */
/* gcoo/mtx.h: Matrix Market files (.mtx, and gzip-compressed .mtx.gz through zlib).
 * Coordinate real/integer/pattern, general/symmetric/skew-symmetric; array real/integer general.
 * Readers check everything (header, sizes, counts, index ranges, finiteness, truncation) and
 * report the file and line of the first problem. Writers write to "path.tmp.<pid>" and rename,
 * so a failed write never leaves a file that looks complete. */
#ifndef GCOO_MTX_H
#define GCOO_MTX_H

#include "gcoo/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What kind of matrix file a path names, told from its name alone (case ignored). */
typedef enum gcoo_file_kind {
  GCOO_FILE_UNKNOWN = 0,
  GCOO_FILE_MTX = 1, /**< Matrix Market: name.mtx or name.mtx.gz */
  GCOO_FILE_H5 = 2   /**< HDF5: .h5 .hdf5 .hdf .he5 .h5ad .nc, alone or followed by ":object" */
} gcoo_file_kind;
/** The kind of file path names (GCOO_FILE_UNKNOWN for NULL or ""); reads nothing. */
gcoo_file_kind gcoo_file_kind_of(const char *path);

/** Read a coordinate file as a CSR matrix of element type dtype. Symmetric and skew-symmetric
 *  files are expanded to both triangles; pattern files get value 1; duplicates are summed
 *  (or refused with GCOO_DUPLICATES_ERROR). NaN/Inf are refused. Compressed input is detected
 *  by its gzip magic, not its name. Not collective. */
gcoo_status gcoo_mtx_read(const char *path, gcoo_dtype dtype, unsigned flags, gcoo_sparse *A);

/** Read the header only: rows, columns, stored entries, and the header's words. */
typedef struct gcoo_mtx_header {
  int64_t nrows, ncols; /**< the size line's dimensions */
  int64_t nstored;      /**< entries stored in the file (one triangle of a symmetric one) */
  char format[16];      /**< "coordinate" or "array" */
  char field[16];       /**< "real", "integer", "pattern" */
  char symmetry[24];    /**< "general", "symmetric", "skew-symmetric" */
} gcoo_mtx_header;
/** Fill *h (caller's struct) from path's banner and size line (.mtx or gzip-compressed),
 *  without reading the entries. GCOO_ERR_NULL (path or h NULL), GCOO_ERR_IO (cannot open or
 *  read), GCOO_ERR_FORMAT (not a Matrix Market banner or size line). Not collective. */
gcoo_status gcoo_mtx_read_header(const char *path, gcoo_mtx_header *h);

/** Read an array file into a newly allocated host dense matrix of the given layout. */
gcoo_status gcoo_mtx_read_dense(const char *path, gcoo_dtype dtype, gcoo_layout layout,
                                gcoo_dense *D);

/** Write a sparse matrix as "coordinate real general" (1-based); gzip when path ends in .gz (any
 *  case). A NaN or infinite value is GCOO_ERR_NOT_FINITE before anything is written, as in the
 *  HDF5 writers. Written under a temporary name and renamed into place (gcoo/files.h). */
gcoo_status gcoo_mtx_write(const char *path, gcoo_sparse A);

/** Write a host dense matrix as "array real general" (column-major, as the format says); NaN and
 *  infinity refused as by gcoo_mtx_write. */
gcoo_status gcoo_mtx_write_dense(const char *path, const gcoo_dense *D);

#ifdef __cplusplus
}
#endif
#endif
