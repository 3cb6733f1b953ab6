/* SPDX-License-Identifier: MIT */
/* cli/cmd_info.c: gcoo_dist info: what a matrix file holds (shape, entries, density,
 * format, element type, row lengths) and how it would fare as GCOO: for group widths p, the
 * number of groups, empty groups, entries per group and the reuse factor GCOOSpDM exploits.
 * Runs on rank 0. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_files.h"

static cli_option options[] =
    {{"in", "PATH", NULL, "the matrix: file.mtx, file.mtx.gz or file.h5[:/object]", NULL, false},
     CLI_OPT_P("32", ": the groups of the GCOO statistics (also tabled for 4, 32, 128, 512)"),
     CLI_OPT_JSON,
     CLI_OPT_END};

/* Groups of p consecutive rows of A: what gcoo_dist spdm builds for Y = A X (the GCOO column
 * groups of S = A^T). A group's entries that share a column of A use the same row of X, which
 * the kernel loads once: reuse = entries / distinct (group, column) pairs. */
typedef struct group_stats {
  int64_t p, groups, empty, nnz_min, nnz_max, distinct;
  double nnz_mean, reuse;
} group_stats;

static void groups_of(const int64_t *ptr, const int32_t *ind, int64_t nrows, int64_t p,
                      int64_t *stamp, int64_t ncols, group_stats *g) {
  memset(g, 0, sizeof *g);
  g->p = p;
  g->groups = (nrows + p - 1) / p;
  for (int64_t c = 0; c < ncols; c++) stamp[c] = -1;
  for (int64_t q = 0; q < g->groups; q++) {
    int64_t r0 = q * p, r1 = r0 + p < nrows ? r0 + p : nrows, cnt = ptr[r1] - ptr[r0];
    for (int64_t k = ptr[r0]; k < ptr[r1]; k++)
      if (stamp[ind[k]] != q) stamp[ind[k]] = q, g->distinct++;
    g->empty += cnt == 0;
    if (q == 0 || cnt < g->nnz_min) g->nnz_min = cnt;
    if (q == 0 || cnt > g->nnz_max) g->nnz_max = cnt;
  }
  g->nnz_mean = g->groups ? (double)ptr[nrows] / (double)g->groups : 0.0;
  g->reuse = g->distinct ? (double)ptr[nrows] / (double)g->distinct : 0.0;
}

static const char *kind_name(const char *path) {
  return cli_file_kind_of(path) == CLI_FILE_H5 ? "hdf5" : "matrix-market";
}

/* The JSON object of a file's report opens with the file and what it holds. */
static void json_file_head(cli_json *j, const char *path, const char *kind) {
  cli_json_begin(j, stdout);
  cli_json_head(j, "info");
  cli_json_str(j, "file_type", kind_name(path));
  cli_json_str(j, "kind", kind);
}

static int dense_info(const char *path, const cli_matrix *m, bool json) {
  if (json) {
    cli_json j;
    json_file_head(&j, path, "dense");
    cli_json_matrix(&j, "a", path, m->nrows, m->ncols, -1);
    cli_json_str(&j, "dtype", cli_dtype_name(m->dtype));
    cli_json_str(&j, "value_type", m->value_type);
    cli_json_str(&j, "detail", m->detail);
    cli_json_end(&j);
  } else {
    cli_out("matrix   %s (%s)\nkind     dense, %s (%s)\nshape    %lld x %lld\n", path,
            kind_name(path), m->value_type, m->detail, (long long)m->nrows, (long long)m->ncols);
  }
  return 0;
}

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc, (void)argv;
  if (cli_rank() != 0) return 0;
  const char *path = cli_get(cmd, "in");
  bool json = cli_flag(cmd, "json");
  int32_t p = 0;
  if (!path) {
    cli_error("gcoo_dist info: --in PATH is required (see --help)\n");
    return 2;
  }
  if (!cli_p(cmd, &p)) return 2;
  const long long pv = p;
  if (cli_file_kind_of(path) == CLI_FILE_UNKNOWN) {
    cli_error("gcoo_dist info: cannot tell the file type of \"%s\" from its name (use .mtx, "
              ".mtx.gz, or .h5/.hdf5/.h5ad with an optional :/object)\n",
              path);
    return 2;
  }
  cli_matrix m;
  gcoo_status st = cli_matrix_inspect(path, &m);
  const char *opt[] = {"in"};
  if (st < 0) return cli_fail_file("info", opt, &path, 1, path, st);
  if (!m.is_sparse) return dense_info(path, &m, json);
  st = cli_matrix_read(path, (int)m.dtype, &m);
  gcoo_sparse C = NULL;
  gcoo_sparse_info si;
  gcoo_sparse_arrays a;
  if (st >= 0) st = gcoo_sparse_get_info(m.A, &si);
  if (st >= 0 && si.format != GCOO_FORMAT_CSR)
    st = gcoo_sparse_convert(&C, m.A, GCOO_FORMAT_CSR, 0);
  if (st >= 0) st = gcoo_sparse_get_arrays(C ? C : m.A, &a);
  if (st < 0) {
    int rc = cli_fail(path, st);
    gcoo_sparse_destroy(&C);
    cli_matrix_free(&m);
    return rc;
  }

  /* rows and columns */
  int64_t nr = si.nrows, nc = si.ncols, nnz = si.nnz, rmin = 0, rmax = 0, rempty = 0, cempty = 0;
  double sum2 = 0.0;
  for (int64_t i = 0; i < nr; i++) {
    int64_t len = a.ptr[i + 1] - a.ptr[i];
    if (i == 0 || len < rmin) rmin = len;
    if (i == 0 || len > rmax) rmax = len;
    rempty += len == 0;
    sum2 += (double)len * (double)len;
  }
  double rmean = nr ? (double)nnz / (double)nr : 0.0;
  double rstd = nr ? sqrt(fmax(0.0, sum2 / (double)nr - rmean * rmean)) : 0.0;
  int64_t *stamp = malloc(sizeof(int64_t) * (size_t)(nc > 0 ? nc : 1));
  if (!stamp) {
    cli_error("gcoo_dist info: out of memory for %lld columns\n", (long long)nc);
    gcoo_sparse_destroy(&C);
    cli_matrix_free(&m);
    return 1;
  }
  for (int64_t c = 0; c < nc; c++) stamp[c] = 0;
  for (int64_t k = 0; k < nnz; k++) stamp[a.ind[k]] = 1;
  for (int64_t c = 0; c < nc; c++) cempty += stamp[c] == 0;
  double density = nr && nc ? (double)nnz / ((double)nr * (double)nc) : 0.0;

  /* groups: the table of widths, with the chosen p in it */
  int64_t ps[5] = {4, 32, 128, 512, 0};
  int np = 4;
  if (pv != 4 && pv != 32 && pv != 128 && pv != 512) {
    int at = 0;
    while (at < 4 && ps[at] < pv) at++;
    memmove(ps + at + 1, ps + at, sizeof(int64_t) * (size_t)(4 - at));
    ps[at] = pv;
    np = 5;
  }
  group_stats g[5];
  for (int i = 0; i < np; i++) groups_of(a.ptr, a.ind, nr, ps[i], stamp, nc, &g[i]);
  free(stamp);

  const char *fmt = cli_file_kind_of(path) == CLI_FILE_H5 ? cli_format_name(m.format)
                                                          : "coordinate";
  if (json) {
    cli_json j;
    json_file_head(&j, path, "sparse");
    cli_json_str(&j, "format", fmt);
    if (m.format == GCOO_FORMAT_GCOO && m.p > 0) cli_json_int(&j, "stored_p", m.p);
    cli_json_str(&j, "dtype", cli_dtype_name(m.dtype));
    cli_json_str(&j, "value_type", m.value_type);
    if (m.index_type[0]) cli_json_str(&j, "index_type", m.index_type);
    cli_json_str(&j, "detail", m.detail);
    cli_json_matrix(&j, "a", path, nr, nc, nnz);
    cli_json_real(&j, "density", density);
    cli_json_object(&j, "row_nnz");
    cli_json_int(&j, "min", rmin);
    cli_json_real(&j, "mean", rmean);
    cli_json_int(&j, "max", rmax);
    cli_json_real(&j, "std", rstd);
    cli_json_int(&j, "empty", rempty);
    cli_json_end(&j);
    cli_json_int(&j, "empty_columns", cempty);
    cli_json_int(&j, "p", pv);
    cli_json_array(&j, "groups");
    for (int i = 0; i < np; i++) {
      cli_json_object(&j, NULL);
      cli_json_int(&j, "p", g[i].p);
      cli_json_int(&j, "groups", g[i].groups);
      cli_json_int(&j, "empty_groups", g[i].empty);
      cli_json_int(&j, "nnz_min", g[i].nnz_min);
      cli_json_real(&j, "nnz_mean", g[i].nnz_mean);
      cli_json_int(&j, "nnz_max", g[i].nnz_max);
      cli_json_real(&j, "reuse", g[i].reuse);
      cli_json_end(&j);
    }
    cli_json_end(&j);
    cli_json_end(&j);
  } else {
    cli_out("matrix   %s (%s)\n", path, kind_name(path));
    cli_out("storage  %s", fmt);
    if (m.format == GCOO_FORMAT_GCOO && m.p > 0) cli_out(" p=%d", m.p);
    cli_out(", %s values%s%s%s, %s\n", m.value_type, m.index_type[0] ? ", " : "", m.index_type,
            m.index_type[0] ? " indices" : "", m.detail);
    cli_out("shape    %lld x %lld, %lld entries, density %.4g\n", (long long)nr, (long long)nc,
            (long long)nnz, density);
    cli_out("rows     length min %lld, mean %.4g, max %lld, std %.4g; %lld empty rows, %lld "
            "empty columns\n",
            (long long)rmin, rmean, (long long)rmax, rstd, (long long)rempty, (long long)cempty);
    cli_out("groups   of p rows of A (the GCOO column groups of S = A^T that gcoo_dist spdm uses "
            "for Y = A X);\n         reuse = entries per distinct column in a group (rows of X "
            "loaded once, used that often)\n");
    cli_out("%8s %12s %12s %12s %12s %12s %9s\n", "p", "groups", "empty", "nnz min", "nnz mean",
            "nnz max", "reuse");
    for (int i = 0; i < np; i++)
      cli_out("%8lld %12lld %12lld %12lld %12.4g %12lld %9.3f%s\n", (long long)g[i].p,
              (long long)g[i].groups, (long long)g[i].empty, (long long)g[i].nnz_min, g[i].nnz_mean,
              (long long)g[i].nnz_max, g[i].reuse, g[i].p == pv ? "  <- --p" : "");
  }
  gcoo_sparse_destroy(&C);
  cli_matrix_free(&m);
  return 0;
}

cli_command cmd_info =
    {"info",
     "shape, nnz, format and group statistics of a matrix file",
     "--in PATH [--p P] [--json]",
     "Describes a matrix file on rank 0: shape, entries, density, storage format and element\n"
     "type, row lengths, and for GCOO group widths p (4, 32, 128, 512 and --p) the number of\n"
     "groups of p rows, the empty ones, entries per group and the reuse factor: entries divided\n"
     "by the distinct columns of each group, the average number of times the GCOOSpDM kernel\n"
     "uses a row of X it loaded (higher is better). Dense files: shape and type only.\n"
     "The path is given with --in (file.mtx, file.mtx.gz, file.h5[:/object]).",
     options,
     run};
