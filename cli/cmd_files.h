/* SPDX-License-Identifier: MIT */
/* cli/cmd_files.h: what gcoo_dist convert and info share (defined in cmd_convert.c):
 * telling a path's file type from its name, and reading any matrix file (Matrix Market or an
 * HDF5 object, sparse or dense) on the calling rank. */
#ifndef GCOO_CLI_CMD_FILES_H
#define GCOO_CLI_CMD_FILES_H

#include "cli.h"

typedef enum cli_file_kind { CLI_FILE_UNKNOWN = 0, CLI_FILE_MTX, CLI_FILE_H5 } cli_file_kind;

/** .mtx / .mtx.gz; .h5 .hdf5 .hdf .he5 .h5ad .nc, with or without ":/object". */
cli_file_kind cli_file_kind_of(const char *path);

/** A matrix read from a file, and what the file said about it. */
typedef struct cli_matrix {
  int is_sparse;
  gcoo_sparse A;          /**< sparse: in the stored format (CSR for Matrix Market) */
  gcoo_dense D;           /**< dense: row-major */
  gcoo_format format;     /**< stored format (sparse) */
  gcoo_dtype dtype;       /**< stored element type (float64 for Matrix Market) */
  int64_t nrows, ncols, nnz;
  int32_t p;              /**< stored GCOO group width */
  char value_type[16];    /**< as stored ("float32", "int64", "real", "pattern", ...) */
  char index_type[16];    /**< HDF5 sparse: stored index type */
  char detail[64];        /**< Matrix Market: "coordinate real symmetric"; HDF5: layout or version */
} cli_matrix;

/** Describe path without reading the entries (HDF5 attributes, Matrix Market header). */
gcoo_status cli_matrix_inspect(const char *path, cli_matrix *m);
/** Read path in dtype (the stored one when dtype < 0). */
gcoo_status cli_matrix_read(const char *path, int dtype, cli_matrix *m);
void cli_matrix_free(cli_matrix *m);

const char *cli_format_name(gcoo_format f);

#endif
