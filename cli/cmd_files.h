/* SPDX-License-Identifier: MIT */
/* cli/cmd_files.h: the files of the subcommands: telling a path's file type from its name
 * and reading any matrix file on the calling rank (cmd_convert.c); the files of a distributed
 * job (job_files.c): outputs checked against the inputs, dense operands, Matrix Market output. */
#ifndef GCOO_CLI_CMD_FILES_H
#define GCOO_CLI_CMD_FILES_H

#include "cli.h"

typedef enum cli_file_kind { CLI_FILE_UNKNOWN = 0, CLI_FILE_MTX, CLI_FILE_H5 } cli_file_kind;

/** .mtx / .mtx.gz; .h5 .hdf5 .hdf .he5 .h5ad .nc, with or without ":/object". */
cli_file_kind cli_file_kind_of(const char *path);

/** A matrix read from a file, and what the file said about it. */
typedef struct cli_matrix {
  int is_sparse;
  gcoo_sparse A;      /**< sparse: in the stored format (CSR for Matrix Market) */
  gcoo_dense D;       /**< dense: row-major */
  gcoo_format format; /**< stored format (sparse) */
  gcoo_dtype dtype;   /**< stored element type (float64 for Matrix Market) */
  int64_t nrows, ncols, nnz;
  int32_t p;           /**< stored GCOO group width */
  char value_type[16]; /**< as stored ("float32", "int64", "real", "pattern", ...) */
  char index_type[16]; /**< HDF5 sparse: stored index type */
  char detail[64];     /**< Matrix Market: "coordinate real symmetric"; HDF5: layout or version */
} cli_matrix;

/** Describe path without reading the entries (HDF5 attributes, Matrix Market header). */
gcoo_status cli_matrix_inspect(const char *path, cli_matrix *m);
/** Read path in dtype (the stored one when dtype < 0). */
gcoo_status cli_matrix_read(const char *path, int dtype, cli_matrix *m);
void cli_matrix_free(cli_matrix *m);

const char *cli_format_name(gcoo_format f);

/* ---- the files of a distributed job (job_files.c) ------------------------------------------ */

/** "file.h5:/x/y" -> file "file.h5", object "/x/y" (points into path); "file.h5" alone -> "/";
 *  Matrix Market -> object "" (the whole file). */
void cli_path_split(const char *path, char *file, size_t len, const char **object);
/** The format of an output from its suffix; CLI_FILE_UNKNOWN after printing (rank 0) the
 *  formats there are. Not collective (every rank gets the same answer from the same name). */
cli_file_kind cli_output_kind(const char *cmdname, const char *opt, const char *path);
/** Which of inputs[0..n) the output out would destroy (gcoo_output_overlaps: files by device
 *  and inode, HDF5 objects by identity, every link followed). -1 when none; else why says it.
 *  Not collective. */
int cli_output_conflict(const char *out, const char *const *inputs, int n, char *why, size_t len);
/** cli_output_conflict decided on rank 0 for every rank, printed once: true when out destroys
 *  none of the inputs (names[i]: the option of inputs[i], for the message). Collective. */
bool cli_outputs_safe(const char *cmdname, const char *out, const char *const *inputs,
                      const char *const *names, int n);
/** The file options of a distributed job (spdm, solve): --a, --b and --out as given (NULL when
 *  absent) and the write flags of --overwrite (cli_write_flags). */
void cli_job_files(cli_command *cmd, const char **a, const char **b, const char **out,
                   int *write_flags);
/** The dataset a dense result gets in an HDF5 output that names only its file, for the option
 *  of cmd whose value is path: "/Y" (spdm --out), "/X" (solve --out), "/B" (solve --save-b);
 *  NULL for the others (their outputs are written as named). */
const char *cli_dense_output_object(cli_command *cmd, const char *path);
/** The checks of a job's --out before any work, with --a a and --b b as its inputs: the format
 *  known from the name (cli_output_kind), none of the inputs destroyed (cli_outputs_safe), and
 *  what the writer would refuse at the end (gcoo_output_check: an existing file or object
 *  without --overwrite, a missing or read-only directory, a directory in its place, ...). 0
 *  when out may be written (or is NULL), 2 for a usage error, 1 for a refused output; the
 *  message on rank 0. Collective. */
int cli_job_output_check(cli_command *cmd, const char *out, const char *a, const char *b);
/** For a read that failed with GCOO_ERR_FORMAT on "file.h5" named without an object: print (on
 *  the calling rank) which object to name and which objects the file holds; true if printed. */
bool cli_explain_whole_file(const char *cmdname, const char *opt, const char *path, bool dense,
                            gcoo_status st);
/** cli_fail for a failure reading the inputs paths[0..n) (options opts[i]): the explanation of
 *  cli_explain_whole_file when one of them was named without its object. Not collective. */
int cli_fail_file(const char *cmdname, const char *const *opts, const char *const *paths, int n,
                  const char *what, gcoo_status st);
/** The same for an agreed status, printed once as cli_report does. Collective. */
int cli_report_file(const char *cmdname, const char *const *opts, const char *const *paths, int n,
                    const char *what, gcoo_status st);
/** Shape of a matrix file (HDF5 object or Matrix Market header). Not collective. */
gcoo_status cli_dense_shape(const char *path, int64_t *nrows, int64_t *ncols, int *is_sparse);
/** Rows [r0, r0 + n) of a dense operand: an HDF5 dataset (parallel read) or a Matrix Market
 *  array file (parsed by rank 0 and broadcast). Collective. */
gcoo_status cli_dense_read_rows(MPI_Comm comm, const char *path, gcoo_dtype dtype, int64_t r0,
                                int64_t n, gcoo_layout layout, gcoo_dense *D);
/** Write an m x ncols matrix given as row slabs in rank order (host, row-major) as one Matrix
 *  Market array file on rank 0; transpose: write its transpose (ncols x m). Collective; every
 *  rank returns rank 0's status (GCOO_ERR_REMOTE on the others). */
gcoo_status cli_write_mtx_dense_rows(MPI_Comm comm, const char *path, int64_t m,
                                     const gcoo_dense *slab, int transpose);
/** Write an m x n sparse matrix given as row slabs in rank order as one Matrix Market
 *  coordinate file on rank 0. Collective, as above. */
gcoo_status cli_write_mtx_csr_rows(MPI_Comm comm, const char *path, int64_t m, int64_t n,
                                   gcoo_sparse slab);
/** Each rank's n bytes at mine, concatenated in rank order into *all (malloc'ed) on rank 0
 *  (*total bytes). GCOO_ERR_TOO_LARGE past 2^31 bytes in all. Collective. */
gcoo_status cli_gather_bytes(MPI_Comm comm, const void *mine, size_t n, char **all, size_t *total);
/** Size of the file of path in MB (0 when it cannot be seen), for read and write rates. */
double cli_file_mbytes(const char *path);

#endif
