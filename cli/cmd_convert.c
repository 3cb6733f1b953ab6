/* SPDX-License-Identifier: MIT */
/* cli/cmd_convert.c: gcoo_dist convert: Matrix Market (.mtx, .mtx.gz) <-> HDF5 objects,
 * sparse and dense, and HDF5 -> HDF5 re-encoding (CSR, CSC, GCOO, dense; float32/float64).
 * Runs on rank 0; the other ranks wait and leave with its exit code. Also the file helpers
 * that gcoo_dist info shares (cmd_files.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_files.h"

/* ---- shared with cmd_info.c ------------------------------------------------------------- */

const char *cli_format_name(gcoo_format f) {
  switch (f) {
    case GCOO_FORMAT_COO: return "coo";
    case GCOO_FORMAT_CSR: return "csr";
    case GCOO_FORMAT_CSC: return "csc";
    case GCOO_FORMAT_GCOO: return "gcoo";
  }
  return "?";
}

cli_file_kind cli_file_kind_of(const char *path) {
  switch (gcoo_file_kind_of(path)) {
    case GCOO_FILE_MTX: return CLI_FILE_MTX;
    case GCOO_FILE_H5: return CLI_FILE_H5;
    default: return CLI_FILE_UNKNOWN;
  }
}

/* What both kinds of file say about a matrix. */
static void set_shape(cli_matrix *m, int is_sparse, gcoo_format format, gcoo_dtype dtype,
                      int64_t nrows, int64_t ncols, int64_t nnz) {
  m->is_sparse = is_sparse;
  m->format = format;
  m->dtype = dtype;
  m->nrows = nrows, m->ncols = ncols, m->nnz = nnz;
}

gcoo_status cli_matrix_inspect(const char *path, cli_matrix *m) {
  memset(m, 0, sizeof *m);
  if (cli_file_kind_of(path) == CLI_FILE_H5) {
    gcoo_h5_info info;
    gcoo_status st = gcoo_h5_inspect(path, &info);
    if (st < 0) return st;
    set_shape(m, info.is_sparse, info.format, info.dtype, info.nrows, info.ncols, info.nnz);
    m->p = info.p;
    snprintf(m->value_type, sizeof m->value_type, "%s", info.value_type);
    snprintf(m->index_type, sizeof m->index_type, "%s", info.index_type);
    if (info.is_sparse)
      snprintf(m->detail, sizeof m->detail, "encoding-version %s",
               info.encoding_version[0] ? info.encoding_version : "(none)");
    else
      snprintf(m->detail, sizeof m->detail, "%s",
               info.layout == GCOO_COL_MAJOR ? "column-major" : "row-major");
    return GCOO_SUCCESS;
  }
  gcoo_mtx_header h;
  gcoo_status st = gcoo_mtx_read_header(path, &h);
  if (st < 0) return st;
  set_shape(m, !strcmp(h.format, "coordinate"), GCOO_FORMAT_CSR, GCOO_FLOAT64, h.nrows, h.ncols,
            h.nstored);
  snprintf(m->value_type, sizeof m->value_type, "%s", h.field);
  snprintf(m->detail, sizeof m->detail, "%s %s %s", h.format, h.field, h.symmetry);
  return GCOO_SUCCESS;
}

gcoo_status cli_matrix_read(const char *path, int dtype, cli_matrix *m) {
  gcoo_status st = cli_matrix_inspect(path, m);
  if (st < 0) return st;
  gcoo_dtype t = dtype < 0 ? m->dtype : (gcoo_dtype)dtype;
  int h5 = cli_file_kind_of(path) == CLI_FILE_H5;
  if (m->is_sparse)
    st = h5 ? gcoo_h5_read_sparse(path, t, &m->A) : gcoo_mtx_read(path, t, 0, &m->A);
  else
    st = h5 ? gcoo_h5_read_dense(path, t, GCOO_ROW_MAJOR, &m->D)
            : gcoo_mtx_read_dense(path, t, GCOO_ROW_MAJOR, &m->D);
  if (st >= 0 && m->is_sparse) {
    gcoo_sparse_info si;
    st = gcoo_sparse_get_info(m->A, &si);
    m->nnz = si.nnz; /* Matrix Market symmetric files: after expansion */
  }
  return st;
}

void cli_matrix_free(cli_matrix *m) {
  gcoo_sparse_destroy(&m->A);
  gcoo_dense_destroy(&m->D);
}

/* ---- convert ---------------------------------------------------------------------------------- */

static cli_option options[] =
    {{"in", "PATH", NULL, "input: file.mtx, file.mtx.gz or file.h5[:/object]", NULL, false},
     CLI_OPT_OUT("output: file.mtx, file.mtx.gz or file.h5[:/object] (into an existing HDF5 "
                 "file: the object is added, the file's other objects kept)"),
     CLI_OPT_OVERWRITE,
     {"format", "F", NULL,
      "csr, csc, gcoo or dense [default: the input's; csr for Matrix Market coordinate files]",
      NULL, false},
     CLI_OPT_P(NULL, ", with --format gcoo [default: the input's p, else 32]"),
     CLI_OPT_DTYPE(NULL, " [default: as stored; float64 for Matrix Market]"),
     CLI_OPT_JSON,
     CLI_OPT_END};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc, (void)argv;
  if (cli_rank() != 0) return 0; /* rank 0 converts; gcoo_dist shares its exit code */
  const char *in = cli_get(cmd, "in"), *out = cli_get(cmd, "out"), *fmt = cli_get(cmd, "format"),
             *dt = cli_get(cmd, "dtype");
  if (!in || !out) {
    cli_error("gcoo_dist convert: --in and --out are both required (see --help)\n");
    return 2;
  }
  cli_file_kind ki = cli_file_kind_of(in), ko = cli_file_kind_of(out);
  if (ki == CLI_FILE_UNKNOWN || ko == CLI_FILE_UNKNOWN) {
    cli_error("gcoo_dist convert: cannot tell the file type of \"%s\" from its name (use .mtx, "
              ".mtx.gz, or .h5/.hdf5/.h5ad with an optional :/object)\n",
              ki == CLI_FILE_UNKNOWN ? in : out);
    return 2;
  }
  int dense_out = 0, have_fmt = fmt != NULL;
  gcoo_format format = GCOO_FORMAT_CSR;
  if (fmt) {
    static const char *const formats[] = {"csr", "csc", "gcoo", "dense"};
    static const gcoo_format as[] = {GCOO_FORMAT_CSR, GCOO_FORMAT_CSC, GCOO_FORMAT_GCOO};
    int f;
    if (!cli_choice(cmd, "format", formats, 4, &f)) return 2;
    if (f == 3)
      dense_out = 1;
    else
      format = as[f];
  }
  int dtype = -1;
  if (dt) {
    gcoo_dtype t;
    if (!cli_dtype(cmd, "dtype", &t)) return 2;
    dtype = (int)t;
  }
  int32_t p = 0;
  if (cli_flag(cmd, "p")) {
    if (!cli_p(cmd, &p)) return 2;
    if (!have_fmt || format != GCOO_FORMAT_GCOO || dense_out) {
      cli_error("gcoo_dist convert: --p applies to --format gcoo only\n");
      return 2;
    }
  }
  char why[2 * PATH_MAX + 200];
  if (cli_output_conflict(out, &in, 1, why, sizeof why) >= 0) {
    cli_error("gcoo_dist convert: --out %s and --in %s: %s\n", out, in, why);
    return 2;
  }
  gcoo_status ost = gcoo_output_check(out, cli_flag(cmd, "overwrite")); /* before the read */
  if (ost < 0) return cli_fail(out, ost);

  cli_matrix m;
  const double t0 = MPI_Wtime();
  gcoo_status st = cli_matrix_read(in, dtype, &m);
  const double t_read = MPI_Wtime() - t0;
  double t_write = 0.0;
  if (st < 0) {
    cli_matrix_free(&m);
    const char *opt[] = {"in"};
    return cli_fail_file("convert", opt, &in, 1, in, st);
  }
  if (!have_fmt) {
    dense_out = !m.is_sparse;
    format = ki == CLI_FILE_H5 && m.is_sparse ? m.format : GCOO_FORMAT_CSR;
  }
  if (!p) p = m.is_sparse && m.format == GCOO_FORMAT_GCOO && m.p > 0 ? m.p : GCOO_DEFAULT_P;

  gcoo_sparse B = NULL;
  gcoo_dense E;
  memset(&E, 0, sizeof E);
  const char *what = "converting";
  if (dense_out) {
    if (m.is_sparse) {
      gcoo_sparse_info si;
      st = gcoo_sparse_get_info(m.A, &si);
      if (st >= 0) st = gcoo_dense_create(&E, si.dtype, GCOO_ROW_MAJOR, si.nrows, si.ncols);
      if (st >= 0) st = gcoo_sparse_to_dense(m.A, &E);
    }
  } else if (m.is_sparse) {
    gcoo_sparse_info si;
    st = gcoo_sparse_get_info(m.A, &si);
    if (st >= 0 && (si.format != format || (format == GCOO_FORMAT_GCOO && si.p != p)))
      st = gcoo_sparse_convert(&B, m.A, format, (int32_t)p);
  } else {
    st = gcoo_sparse_from_dense(&B, &m.D, format, (int32_t)p, 0);
  }
  if (st >= 0) {
    what = out;
    gcoo_sparse S = B ? B : m.A;
    const gcoo_dense *D = m.is_sparse ? &E : &m.D;
    const int flags = cli_write_flags(cmd);
    const double t1 = MPI_Wtime();
    if (ko == CLI_FILE_H5)
      st = dense_out ? gcoo_h5_write_dense(out, D, flags) : gcoo_h5_write_sparse(out, S, flags);
    else
      st = dense_out ? gcoo_mtx_write_dense(out, D) : gcoo_mtx_write(out, S);
    t_write = MPI_Wtime() - t1;
  }
  if (st >= 0) {
    char to[96];
    gcoo_dtype t = dtype < 0 ? m.dtype : (gcoo_dtype)dtype;
    if (ko == CLI_FILE_MTX)
      snprintf(to, sizeof to, "%s %s", dense_out ? "array" : "coordinate", cli_dtype_name(t));
    else if (dense_out)
      snprintf(to, sizeof to, "dense %s", cli_dtype_name(t));
    else if (format == GCOO_FORMAT_GCOO)
      snprintf(to, sizeof to, "gcoo p=%lld %s", (long long)p, cli_dtype_name(t));
    else
      snprintf(to, sizeof to, "%s %s", cli_format_name(format), cli_dtype_name(t));
    const char *from = m.is_sparse ? (ki == CLI_FILE_MTX ? "coordinate" : cli_format_name(m.format))
                                   : "dense";
    if (cli_flag(cmd, "json")) { /* the fields of every subcommand's --json (cli/cli_json.c) */
      cli_json j;
      cli_json_begin(&j, stdout);
      cli_json_head(&j, "convert");
      cli_json_str(&j, "dtype", cli_dtype_name(t));
      cli_json_matrix(&j, "a", in, m.nrows, m.ncols, m.is_sparse ? m.nnz : -1);
      cli_json_str(&j, "format_in", from);
      cli_json_str(&j, "value_type_in", m.value_type);
      cli_json_str(&j, "format_out", to);
      cli_json_str(&j, "out", out);
      cli_json_bool(&j, "out_written", true);
      cli_json_object(&j, "time_s");
      cli_json_real(&j, "read", t_read);
      cli_json_real(&j, "write", t_write);
      cli_json_end(&j);
      cli_json_end(&j);
    } else {
      cli_out("gcoo_dist convert: %s (%s %lld x %lld, %s) -> %s (%s)\n", in, from,
              (long long)m.nrows, (long long)m.ncols, m.value_type, out, to);
    }
  }
  int rc = st < 0 ? cli_fail(what, st) : 0;
  gcoo_sparse_destroy(&B);
  gcoo_dense_destroy(&E);
  cli_matrix_free(&m);
  return rc;
}

cli_command cmd_convert =
    {"convert",
     "convert between .mtx/.mtx.gz and .h5 layouts",
     "--in PATH --out PATH [--format csr|csc|gcoo|dense] [--p P] [--dtype float32|float64] "
     "[--json]",
     "Reads the input on rank 0 (other ranks wait) and writes the output in one go.\n"
     "HDF5 objects are named file.h5:/group/path (file.h5 alone is the root group); sparse\n"
     "matrices are groups in scipy/anndata's layout (csr_matrix, csc_matrix) or gcoo_matrix,\n"
     "dense matrices are 2-D datasets (they need a name: file.h5:/X). Matrix Market coordinate\n"
     "files hold sparse matrices, array files dense ones. An HDF5 output writes only its\n"
     "object; the file's other objects are kept (an existing object, or an existing\n"
     "Matrix Market file, is replaced only with --overwrite); the output may not be the input.\n"
     "examples:\n"
     "  gcoo_dist convert --in bcsstk21.mtx.gz --out A.h5:/A --format gcoo --p 32\n"
     "  gcoo_dist convert --in pbmc.h5ad:/X --out X.mtx.gz\n"
     "  gcoo_dist convert --in A.h5:/A --out B.h5:/A --format csr --dtype float32",
     options,
     run};
