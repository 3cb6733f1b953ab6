/* SPDX-License-Identifier: MIT */
/* tests/io/io_util.h: what the io tests share: scratch directories, the "triplets" text form
 * that the Python script and the C tests exchange (independent of HDF5 and of gcoo's readers),
 * running the Python script, and exact comparisons of sparse and dense matrices. */
#ifndef GCOO_IO_UTIL_H
#define GCOO_IO_UTIL_H

#include "gcoo_test.h"

/** Make a fresh directory "<base>.<pid>" in the working directory; returns its name (static). */
const char *io_make_dir(const char *base);
/** Remove a directory tree (after a test passed). */
void io_remove_tree(const char *dir);
/** dir + "/" + name in a static ring of buffers (several may be alive at once). */
const char *io_path(const char *dir, const char *name);
int io_file_exists(const char *path);
/** Temporary files of a write of `file` left next to it ("<file>.tmp*"). */
int io_temp_files(const char *file);

/** Canonical triplets: nrows ncols nnz, then "i j v" lines sorted by row, then column, values
 *  in %.17g. Written from a gcoo matrix (through its COO form), read back as arrays. */
void io_write_triplets(const char *path, gcoo_sparse A);
typedef struct io_triplets {
  int64_t nrows, ncols, nnz;
  int64_t *rows, *cols;
  double *vals;
} io_triplets;
int io_read_triplets(const char *path, io_triplets *t);
void io_free_triplets(io_triplets *t);
/** Number of mismatches between A (any format; compared through COO) and the triplets, values
 *  compared exactly after rounding the expected value to A's dtype. Prints the first few. */
int64_t io_compare_triplets(gcoo_sparse A, const io_triplets *t, const char *what);

/** Dense text: "nrows ncols" then the values row by row (%.17g). */
void io_write_dense_text(const char *path, const gcoo_dense *D);
/** Mismatches between D and a dense text file (exact after rounding to D's dtype). */
int64_t io_compare_dense_text(const gcoo_dense *D, const char *path, const char *what);

/** Mismatches between two sparse matrices: same format, shape, p and arrays; values compared
 *  exactly after rounding B's values to A's dtype (A may be float32 when B is float64). */
int64_t io_compare_sparse(gcoo_sparse A, gcoo_sparse B, const char *what);
/** Mismatches between two dense matrices (any layouts), exact after rounding to A's dtype. */
int64_t io_compare_dense(const gcoo_dense *A, const gcoo_dense *B, const char *what);

/** Run "IO_PYTHON IO_SCRIPT <mode> <dir>" (tests/io/h5_python.py); returns its exit status
 *  (77 when the interpreter or h5py/scipy are missing). */
int io_run_python(const char *mode, const char *dir);

#endif
