/* SPDX-License-Identifier: MIT */
/* gcoo/h5.h: HDF5 files in the layouts scipy/h5py/anndata users write, read and written in
 * parallel through MPI-IO. docs/hdf5.md has the details and Python snippets.
 *
 * Objects are named "file.h5:/group/path" ("file.h5" alone means the root group "/"). The split
 * is made after a known extension (.h5 .hdf5 .hdf .he5 .h5ad .nc) followed by ':', otherwise at
 * the last ":/".
 *   CSR / CSC group: attributes encoding-type = "csr_matrix" | "csc_matrix",
 *     encoding-version = "0.1.0", shape = int64[2]; datasets data (float32/float64),
 *     indices (int32), indptr (int64).
 *   GCOO group: encoding-type = "gcoo_matrix", encoding-version, shape, p (int64); datasets rows,
 *     cols (int32), values, gIdxes (int64, g+1), nnzPerGroup (int64, g), g = ceil(ncols / p).
 *   Dense: a 2-D dataset, stored row-major (HDF5's order); attribute "layout" = "row-major"
 *     (plus anndata's encoding-type "array", encoding-version "0.2.0").
 * Readers accept more than writers produce, so that Python files load unchanged: string
 * attributes variable- or fixed-length (ASCII or UTF-8, scalar or one-element), shape of any
 * integer type, any integer type for indices/indptr/rows/cols/gIdxes, data of any integer or
 * float type (converted to the requested dtype, rounded to nearest), no encoding-version (read as
 * 0.1.0; other 0.1.x accepted), chunked and compressed datasets, and for dense data a 1-D dataset
 * (an n x 1 matrix) or layout = "column-major" (dataset dims [ncols, nrows], as Fortran, Julia and
 * MATLAB write). Unsorted indices inside a CSR row / CSC column are sorted and duplicates summed,
 * as gcoo_sparse_create_csr does; a GCOO group must be in order (as gcoo_sparse_create_gcoo).
 * Data must be stored in the file (contiguous, chunked or compact, with filters this HDF5 can
 * load): virtual datasets, external raw-data files and non-empty datasets whose storage was
 * never (or only partly) written are refused, since HDF5 reads what is missing as zeros without
 * an error. Object paths have no "." or ".." components (GCOO_ERR_INVALID_ARG).
 *
 * Every sparse encoding is stored along a "major" dimension that ranks can split into
 * contiguous hyperslabs: rows (CSR), columns (CSC) or column groups (GCOO). A slab is the
 * entries of major indices [begin, end).
 *
 * Errors (the message names the file and object and says what is wrong, with the numbers):
 *   GCOO_ERR_IO          file missing, unreadable, a directory; temp file not creatable/renamable
 *   GCOO_ERR_FORMAT      not an HDF5 file; object, attribute or dataset missing or of the wrong
 *                        kind; unknown encoding; lengths that disagree (shape vs indptr, indptr
 *                        not from 0 / decreasing / not ending at len(indices), ...); data not
 *                        stored in the file (virtual, external, never written)
 *   GCOO_ERR_UNSUPPORTED a compression filter this HDF5 cannot load (named, with the plugin path)
 *   GCOO_ERR_INDEX_RANGE an index outside the matrix (or not representable)
 *   GCOO_ERR_UNSORTED    GCOO entries not in (row, column) order inside a group
 *   GCOO_ERR_NOT_FINITE  NaN or infinity in the data (refused on read and on write)
 *   GCOO_ERR_TOO_LARGE   a sparse dimension past int32
 *   GCOO_ERR_HDF5        the HDF5 library failed; its own innermost message is quoted
 * The library never lets HDF5 print: its automatic error printing is switched off during each
 * call and restored afterwards.
 *
 * Writers never change <file> in place. They build the result under a temporary name
 * ("<file>.tmp.<job>.<random>", gcoo/files.h), write it, flush and close it checking every
 * status, reopen it to verify the object, and rename it over <file> only when every rank
 * succeeded; on any failure the temporary file is removed and <file> left untouched, byte for
 * byte. A <file> that is a symbolic link is written where its links lead (the link stays). The
 * object path names the group or dataset to create (with intermediate groups; not through an
 * external link, which would change another file in place):
 *   - <file> absent: a new file holding just that object;
 *   - <file> an HDF5 file: the result is a copy of it with the object added, every other object
 *     kept; an object already at the path is an error (GCOO_ERR_EXISTS) unless GCOO_H5_OVERWRITE
 *     is given, then it is replaced (HDF5 does not reclaim the old object's space: h5repack does);
 *   - <file> not HDF5, or the object "/" (the whole file): GCOO_ERR_EXISTS unless
 *     GCOO_H5_OVERWRITE, then the file is replaced.
 * The disk space of the result is reserved (fallocate) before any data is written, so a full
 * disk or quota fails early and cleanly. If <file> changed while the write ran (another job
 * published it first), the result is not published: GCOO_ERR_EXISTS, the other writer's file
 * stays. While it is written the object carries the attribute "gcoo-incomplete", which every
 * reader refuses (GCOO_ERR_FORMAT), so a temporary file left by a killed job is never read as a
 * result.
 *
 * Parallel: collective functions must be called by every rank of comm (duplicated internally),
 * with empty ranges where a rank has nothing; when any rank fails, every rank returns an error:
 * the failing ranks their own, the others GCOO_ERR_REMOTE with the lowest failing rank's message
 * ("rank 2: ...") as their last error, as gcoo_dist_agree does. Files are
 * opened through MPI-IO (H5Pset_fapl_mpio) and slabs moved in rounds of at most
 * GCOO_H5_CHUNK_BYTES bytes per rank (default 64 MiB), which bounds the conversion buffers and
 * keeps every MPI-IO request far below 2^31 bytes. Transfers are collective when the ranks'
 * selections are disjoint (slab reads, every write) and independent when they overlap (Open MPI
 * 4.1.4's OMPIO returns wrong data for some overlapping collective reads; GCOO_H5_COLLECTIVE=0
 * makes every transfer independent). By default each rank opens the file on its own through
 * HDF5's POSIX driver instead (reads independent, writes one rank after another): with Open MPI
 * 4.1.4 and HDF5 1.10 an I/O error inside collective MPI-IO was swallowed or hung the job
 * (docs/reliability.md §5). GCOO_H5_MPIO=1 opts into MPI-IO for reads and writes. */
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
  int is_sparse;      /**< 1: CSR/CSC/GCOO group; 0: dense dataset */
  gcoo_format format; /**< for sparse objects */
  gcoo_dtype dtype;   /**< element type stored in the file (integer data: GCOO_FLOAT64) */
  int64_t nrows, ncols;
  int64_t nnz;               /**< sparse only */
  int32_t p;                 /**< GCOO only */
  int64_t nmajor;            /**< rows (CSR), columns (CSC), groups (GCOO), rows (dense) */
  char value_type[16];       /**< stored element type: "float32", "float64", "int32", "uint16"... */
  char index_type[16];       /**< sparse: stored type of indices (CSR/CSC) or cols (GCOO) */
  char encoding_version[16]; /**< sparse: as stored ("" when the attribute is absent) */
  gcoo_layout layout;        /**< dense: how the dataset maps to rows and columns */
} gcoo_h5_info;

/** Flags of the writers (0: none; they are or'ed together). */
enum gcoo_h5_write_flag {
  GCOO_H5_OVERWRITE = 1,    /**< replace an object already at the path (or a non-HDF5 file) */
  GCOO_H5_NOT_CONVERGED = 2 /**< mark the object as the last iterate of a solve that stopped short
                                 of its tolerance: attribute "gcoo-not-converged" (a sentence) */
};

/** Whole-object, one-process calls (no MPI needed). Not collective. */
/** What path holds (attributes and dataset sizes only; the data is not read). */
gcoo_status gcoo_h5_inspect(const char *path, gcoo_h5_info *info);
/** Start reading, in the background, the part of the sparse matrix at path that rank `rank` of
 *  `size` ranks will read (its share of the entries; rank 0 also the pointer array) into the
 *  operating system's page cache, and return at once, so that the disk works while the caller
 *  does its other start-up (gcoo_dist_create starts each rank's GPU context: about half a
 *  second). A hint: it reads nothing itself; a layout it cannot map to file bytes (chunked or
 *  compressed datasets) is left alone, and a file it cannot open is reported here but will be
 *  reported again, in full, by the read. Not collective. */
gcoo_status gcoo_h5_prefetch(const char *path, int rank, int size);
/** Read a sparse group, in the file's format (CSR, CSC or GCOO), converted to dtype. */
gcoo_status gcoo_h5_read_sparse(const char *path, gcoo_dtype dtype, gcoo_sparse *A);
/** Writes A in its own format (COO is written as CSR). flags: GCOO_H5_* (GCOO_H5_OVERWRITE:
 *  replace an existing object), 0 for none. */
gcoo_status gcoo_h5_write_sparse(const char *path, gcoo_sparse A, int flags);
/** Read a dense dataset into a newly allocated host matrix (gcoo_dense_destroy frees it). */
gcoo_status gcoo_h5_read_dense(const char *path, gcoo_dtype dtype, gcoo_layout layout,
                               gcoo_dense *D);
/** Write a host dense matrix (any layout and ld) as a row-major dataset of its dtype. flags: as
 *  gcoo_h5_write_sparse's. */
gcoo_status gcoo_h5_write_dense(const char *path, const gcoo_dense *D, int flags);

#if GCOO_HAVE_MPI
/** An open sparse object, shared by the ranks of comm. Opening reads the attributes and the
 *  major pointer array (indptr or gIdxes: nmajor + 1 offsets) once, on rank 0, checks them and
 *  broadcasts them to every rank, so that ranks can balance their slabs by nnz before reading
 *  them. Collective. */
typedef struct gcoo_h5_sparse_file_s *gcoo_h5_sparse_file;

/** Open path ("file.h5[:/object]") on the ranks of comm (duplicated by the handle): *f
 *  receives the handle (NULL on failure; close it with gcoo_h5_sparse_close). Errors, the same
 *  on every rank: GCOO_ERR_NULL, GCOO_ERR_IO, GCOO_ERR_HDF5, GCOO_ERR_FORMAT (not a gcoo sparse
 *  object, bad offsets), GCOO_ERR_MPI, GCOO_ERR_NO_MEMORY. Collective. */
gcoo_status gcoo_h5_sparse_open(MPI_Comm comm, const char *path, gcoo_h5_sparse_file *f);
/** Not collective. */
gcoo_status gcoo_h5_sparse_get_info(gcoo_h5_sparse_file f, gcoo_h5_info *info);
/** The major offsets (nmajor + 1 values, entry counts before each major index); valid until
 *  close. NULL for an invalid handle. Not collective. */
const int64_t *gcoo_h5_sparse_major_ptr(gcoo_h5_sparse_file f);
/** Read this rank's slab [begin, end) of the major dimension, converted to dtype. Collective.
 *  The slab is a matrix of its own, with its major dimension renumbered from 0:
 *    CSR: (end - begin) x ncols CSR;  CSC: nrows x (end - begin) CSC;
 *    GCOO: groups begin..end-1 as a GCOO of nrows x (columns of those groups), columns
 *          renumbered from begin * p. */
gcoo_status gcoo_h5_sparse_read_slab(gcoo_h5_sparse_file f, gcoo_dtype dtype, int64_t begin,
                                     int64_t end, gcoo_sparse *slab);
/** Collective; *f becomes NULL. Accepts a pointer to NULL (then not collective). */
gcoo_status gcoo_h5_sparse_close(gcoo_h5_sparse_file *f);

/** Rows [row0, row0 + nrows) of a dense dataset into D (allocated by the call; nrows may be 0).
 *  Collective. */
gcoo_status gcoo_h5_read_dense_rows(MPI_Comm comm, const char *path, gcoo_dtype dtype, int64_t row0,
                                    int64_t nrows, gcoo_layout layout, gcoo_dense *D);
/** Arbitrary rows of a dense dataset (a halo), strictly increasing: D gets rows[0..n-1] in order.
 *  Collective. */
gcoo_status gcoo_h5_read_dense_rowset(MPI_Comm comm, const char *path, gcoo_dtype dtype,
                                      const int64_t *rows, int64_t n, gcoo_layout layout,
                                      gcoo_dense *D);
/** Write a dense nrows_global x ncols dataset, each rank its rows [row0, row0 + D->nrows),
 *  collectively, through a temporary file and a rename. The ranks' row ranges must tile
 *  0..nrows_global in rank order (empty ranges allowed); ncols and dtype must agree. flags:
 *  GCOO_H5_* (0 for none), the same on every rank. Collective. */
gcoo_status gcoo_h5_write_dense_rows(MPI_Comm comm, const char *path, int64_t nrows_global,
                                     int64_t row0, const gcoo_dense *D, int flags);
/** Write a CSR matrix nrows_global x ncols, each rank its rows [row0, row0 + slab rows) given as
 *  a slab (any format; not CSR is converted), rows tiling 0..nrows_global in rank order; the
 *  global indptr comes from an exclusive scan of the slab sizes. flags: GCOO_H5_* (0 for none),
 *  the same on every rank. Collective. */
gcoo_status gcoo_h5_write_csr_rows(MPI_Comm comm, const char *path, int64_t nrows_global,
                                   int64_t row0, gcoo_sparse slab, int flags);
#endif

#ifdef __cplusplus
}
#endif
#endif
