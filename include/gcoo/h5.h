/* SPDX-License-Identifier: MIT */
/* gcoo/h5.h: HDF5 files in the layout of DESIGN.md §3 (what scipy/h5py/anndata users write),
 * read and written in parallel through MPI-IO.
 *
 * Objects are named "file.h5:/group/path" ("file.h5" alone means the root group "/").
 *   CSR / CSC group: attributes encoding-type = "csr_matrix" | "csc_matrix",
 *     encoding-version = "0.1.0", shape = int64[2]; datasets data (float32/float64),
 *     indices (int32/int64), indptr (int64; int32 accepted on read).
 *   GCOO group: encoding-type = "gcoo_matrix", encoding-version, shape, p; datasets rows, cols,
 *     values, gIdxes (int64, g+1), nnzPerGroup (int64, g).
 *   Dense: a 2-D dataset, stored row-major (HDF5's order); attribute "layout" = "row-major"
 *     (written by gcoo; a dataset without it is read as row-major, as h5py writes numpy arrays).
 *
 * Every sparse encoding is stored along a "major" dimension that ranks can split into
 * contiguous hyperslabs: rows (CSR), columns (CSC) or column groups (GCOO). A slab is the
 * entries of major indices [begin, end).
 *
 * Writers create "path.tmp" and rename it over path only when every rank finished, so a failed
 * run never leaves a file that looks complete. Collective functions must be called by every rank
 * of comm, with empty ranges where a rank has nothing; on error every rank returns an error. */
#ifndef GCOO_H5_H
#define GCOO_H5_H

#include "gcoo/sparse.h"

#if GCOO_HAVE_MPI
#include <mpi.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What an object in a file holds. */
typedef struct gcoo_h5_info {
  int is_sparse;           /**< 1: CSR/CSC/GCOO group; 0: dense dataset */
  gcoo_format format;      /**< for sparse objects */
  gcoo_dtype dtype;        /**< element type stored in the file */
  int64_t nrows, ncols;
  int64_t nnz;             /**< sparse only */
  int32_t p;               /**< GCOO only */
  int64_t nmajor;          /**< rows (CSR), columns (CSC), groups (GCOO), rows (dense) */
} gcoo_h5_info;

/** Whole-object, one-process calls (no MPI needed). */
gcoo_status gcoo_h5_inspect(const char *path, gcoo_h5_info *info);
gcoo_status gcoo_h5_read_sparse(const char *path, gcoo_dtype dtype, gcoo_sparse *A);
/** Writes A in its own format (COO is written as CSR). */
gcoo_status gcoo_h5_write_sparse(const char *path, gcoo_sparse A);
gcoo_status gcoo_h5_read_dense(const char *path, gcoo_dtype dtype, gcoo_layout layout,
                               gcoo_dense *D);
gcoo_status gcoo_h5_write_dense(const char *path, const gcoo_dense *D);

#if GCOO_HAVE_MPI
/** An open sparse object, shared by the ranks of comm. Opening reads the attributes and the
 *  major pointer array (indptr or gIdxes: nmajor + 1 offsets) on every rank, so that ranks can
 *  balance their slabs by nnz before reading them. Collective. */
typedef struct gcoo_h5_sparse_file_s *gcoo_h5_sparse_file;

gcoo_status gcoo_h5_sparse_open(MPI_Comm comm, const char *path, gcoo_h5_sparse_file *f);
gcoo_status gcoo_h5_sparse_get_info(gcoo_h5_sparse_file f, gcoo_h5_info *info);
/** The major offsets (nmajor + 1 values, entry counts before each major index). */
const int64_t *gcoo_h5_sparse_major_ptr(gcoo_h5_sparse_file f);
/** Read this rank's slab [begin, end) of the major dimension, converted to dtype. Collective.
 *  The slab is a matrix of its own, with its major dimension renumbered from 0:
 *    CSR: (end - begin) x ncols CSR;  CSC: nrows x (end - begin) CSC;
 *    GCOO: groups begin..end-1 as a GCOO of nrows x (columns of those groups), columns
 *          renumbered from begin * p. */
gcoo_status gcoo_h5_sparse_read_slab(gcoo_h5_sparse_file f, gcoo_dtype dtype, int64_t begin,
                                     int64_t end, gcoo_sparse *slab);
gcoo_status gcoo_h5_sparse_close(gcoo_h5_sparse_file *f);

/** Rows [row0, row0 + D->nrows) of a dense 2-D dataset into D (allocated by the call).
 *  Collective. */
gcoo_status gcoo_h5_read_dense_rows(MPI_Comm comm, const char *path, gcoo_dtype dtype,
                                    int64_t row0, int64_t nrows, gcoo_layout layout,
                                    gcoo_dense *D);
/** Arbitrary sorted rows of a dense dataset (a halo): D gets rows[0..n-1] in order. Collective. */
gcoo_status gcoo_h5_read_dense_rowset(MPI_Comm comm, const char *path, gcoo_dtype dtype,
                                      const int64_t *rows, int64_t n, gcoo_layout layout,
                                      gcoo_dense *D);
/** Write a dense nrows_global x ncols dataset, each rank its rows [row0, row0 + D->nrows),
 *  collectively, through path.tmp and a rename. Collective. */
gcoo_status gcoo_h5_write_dense_rows(MPI_Comm comm, const char *path, int64_t nrows_global,
                                     int64_t row0, const gcoo_dense *D);
/** Write a CSR matrix nrows_global x ncols, each rank its rows [row0, row0 + slab rows) as CSR
 *  (global indptr from an exclusive scan of the slab sizes). Collective. */
gcoo_status gcoo_h5_write_csr_rows(MPI_Comm comm, const char *path, int64_t nrows_global,
                                   int64_t row0, gcoo_sparse slab);
#endif

#ifdef __cplusplus
}
#endif
#endif
