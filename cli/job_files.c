/* SPDX-License-Identifier: MIT */
/* cli/job_files.c: the files a distributed job reads and writes, seen from the command:
 * splitting "file.h5:/object", the output's format from its suffix, the refusal of an output
 * that is one of the job's inputs (before any work starts), dense operands from HDF5 or Matrix
 * Market, and Matrix Market output of a distributed result (gathered on rank 0, which writes). */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cmd_files.h"

/* ---- paths ---------------------------------------------------------------------------------- */

void cli_path_split(const char *path, char *file, size_t len, const char **object) {
  snprintf(file, len, "%s", path ? path : "");
  *object = "/";
  if (cli_file_kind_of(file) == CLI_FILE_MTX) {
    *object = "";
    return;
  }
  /* the io/ rule: after a known HDF5 suffix followed by ':' */
  size_t n = strlen(file);
  for (size_t i = 1; i < n; i++) {
    if (file[i] != ':') continue;
    file[i] = '\0';
    if (cli_file_kind_of(file) == CLI_FILE_H5) {
      *object = path + i + 1;
      return;
    }
    file[i] = ':';
  }
}

cli_file_kind cli_output_kind(const char *cmdname, const char *opt, const char *path) {
  cli_file_kind k = cli_file_kind_of(path);
  if (k == CLI_FILE_UNKNOWN && cli_rank() == 0)
    cli_error("gcoo_dist %s: --%s %s: cannot tell the format from the name; use .h5 or .hdf5 "
              "(HDF5, with an optional :/object) or .mtx / .mtx.gz (Matrix Market)\n",
              cmdname, opt, path);
  return k;
}

int cli_output_conflict(const char *out, const char *const *inputs, int n, char *why, size_t len) {
  if (!out) return -1;
  for (int i = 0; i < n; i++) {
    if (!inputs[i]) continue;
    int overlap = 0;
    gcoo_status st = gcoo_output_overlaps(out, inputs[i], &overlap, why, len);
    if (st < 0) { /* cannot tell: refuse rather than risk the input */
      snprintf(why, len, "cannot tell whether it would overwrite the input %s: %s", inputs[i],
               gcoo_last_error());
      return i;
    }
    if (overlap) return i;
  }
  return -1;
}

bool cli_outputs_safe(const char *cmdname, const char *out, const char *const *inputs,
                      const char *const *names, int n) {
  int bad = -1;
  char why[2 * PATH_MAX + 200] = "";
  if (cli_rank() == 0) bad = cli_output_conflict(out, inputs, n, why, sizeof why);
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad >= 0 && cli_rank() == 0)
    cli_error("gcoo_dist %s: --out %s and --%s %s: %s\n", cmdname, out, names[bad], inputs[bad],
              why);
  return bad < 0;
}

void cli_job_files(cli_command *cmd, const char **a, const char **b, const char **out,
                   int *write_flags) {
  *a = cli_get(cmd, "a");
  *b = cli_get(cmd, "b");
  *out = cli_get(cmd, "out");
  *write_flags = cli_write_flags(cmd);
}

const char *cli_dense_output_object(cli_command *cmd, const char *path) {
  /* each dense output option and the dataset its result gets */
  static const struct {
    const char *cmd, *opt, *dataset;
  } outputs[] = {{"spdm", "out", "/Y"}, {"solve", "out", "/X"}, {"solve", "save-b", "/B"}};
  for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
    const char *v = strcmp(cmd->name, outputs[i].cmd) ? NULL : cli_get(cmd, outputs[i].opt);
    if (v && path && !strcmp(v, path)) return outputs[i].dataset;
  }
  return NULL;
}

int cli_job_output_check(cli_command *cmd, const char *out, const char *a, const char *b) {
  if (!out) return 0;
  if (cli_output_kind(cmd->name, "out", out) == CLI_FILE_UNKNOWN) return 2;
  /* the path the write will take: a dense result named by its file alone gets its dataset */
  char target[PATH_MAX + 16];
  const char *obj = cli_dense_output_object(cmd, out);
  const char *path = obj && cli_file_kind_of(out) == CLI_FILE_H5
                         ? cli_h5_dataset(out, obj, target, sizeof target)
                         : out;
  const char *inputs[] = {a, b}, *names[] = {"a", "b"};
  if (!cli_outputs_safe(cmd->name, path, inputs, names, 2)) return 2;
  /* what the writer would refuse at the end, refused now */
  int st = GCOO_SUCCESS;
  if (cli_rank() == 0) {
    st = gcoo_output_check(path, cli_flag(cmd, "overwrite"));
    if (st < 0)
      cli_error("gcoo_dist %s: --out %s: %s (%s): %s\n", cmd->name, out,
                gcoo_strerror((gcoo_status)st), gcoo_status_name((gcoo_status)st),
                gcoo_last_error());
  }
  MPI_Bcast(&st, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return st < 0 ? 1 : 0;
}

/* ---- messages about a file named without its object --------------------------------------- */

/* The library's message about a group that is not a matrix ends in "it holds: a, b <- frame";
 * the list is what the user needs: which objects the file has. */
static void members_from_last_error(char *buf, size_t len) {
  const char *e = gcoo_last_error(), *h = e ? strstr(e, "it holds: ") : NULL;
  buf[0] = '\0';
  if (!h) return;
  h += strlen("it holds: ");
  const char *end = strstr(h, " <-");
  size_t n = end ? (size_t)(end - h) : strlen(h);
  snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), h);
}

bool cli_explain_whole_file(const char *cmdname, const char *opt, const char *path, bool dense,
                            gcoo_status st) {
  if (st != GCOO_ERR_FORMAT || !path || cli_file_kind_of(path) != CLI_FILE_H5) return false;
  char file[PATH_MAX], members[512];
  const char *obj;
  cli_path_split(path, file, sizeof file, &obj);
  if (strcmp(obj, "/") && *obj) return false;
  /* only when the failure is about this path's root group (not another input's) */
  char root[PATH_MAX + 4];
  snprintf(root, sizeof root, "%s:/", file);
  const char *e = gcoo_last_error();
  if (!e || !strstr(e, root)) return false;
  members_from_last_error(members, sizeof members);
  char first[128] = "X";
  if (members[0]) snprintf(first, sizeof first, "%.*s", (int)strcspn(members, ","), members);
  cli_error("gcoo_dist %s: --%s %s names the whole file, whose root group is not a %s; name the "
            "object in the file, e.g. --%s %s:/%s%s%s%s\n",
            cmdname, opt, path, dense ? "dense matrix (a 2-D dataset)" : "matrix", opt, file, first,
            members[0] ? " (the file holds: " : "", members, members[0] ? ")" : "");
  return true;
}

int cli_fail_file(const char *cmdname, const char *const *opts, const char *const *paths, int n,
                  const char *what, gcoo_status st) {
  for (int i = 0; i < n; i++)
    if (cli_explain_whole_file(cmdname, opts[i], paths[i], false, st)) return 1;
  return cli_fail(what, st);
}

int cli_report_file(const char *cmdname, const char *const *opts, const char *const *paths, int n,
                    const char *what, gcoo_status st) {
  /* a path named without its object gets the explanation, once, from the first rank that knows */
  int rank = cli_rank(), knows = st < 0 && st != GCOO_ERR_REMOTE, first = knows ? rank : INT_MAX;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int explained = 0;
  if (rank == first)
    for (int i = 0; i < n && !explained; i++)
      explained = cli_explain_whole_file(cmdname, opts[i], paths[i], false, st);
  MPI_Allreduce(MPI_IN_PLACE, &explained, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return explained ? 1 : cli_report(what, st);
}

/* ---- the element type of a job ------------------------------------------------------------ */

bool cli_job_dtype(cli_command *cmd, const char *path, gcoo_dtype fallback, gcoo_dtype *out,
                   char *source, size_t len) {
  if (cli_flag(cmd, "dtype")) {
    snprintf(source, len, "from --dtype");
    return cli_dtype(cmd, "dtype", out);
  }
  int t = -1;
  if (path && cli_rank() == 0) {
    cli_matrix m;
    if (cli_matrix_inspect(path, &m) >= 0) t = (int)m.dtype;
  }
  MPI_Bcast(&t, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (t >= 0) {
    *out = (gcoo_dtype)t;
    char file[PATH_MAX];
    const char *obj;
    cli_path_split(path, file, sizeof file, &obj);
    snprintf(source, len, "%s %s",
             cli_file_kind_of(path) == CLI_FILE_MTX ? "for Matrix Market" : "as stored in", file);
  } else {
    /* generated input, or a file the read will explain */
    *out = fallback;
    snprintf(source, len, "for generated input");
  }
  return true;
}

/* ---- dense operands ----------------------------------------------------------------------- */

gcoo_status cli_dense_shape(const char *path, int64_t *nrows, int64_t *ncols, int *is_sparse) {
  cli_matrix m;
  gcoo_status st = cli_matrix_inspect(path, &m);
  if (st >= 0) *nrows = m.nrows, *ncols = m.ncols, *is_sparse = m.is_sparse;
  return st;
}

/* Copy rows [r0, r0 + n) of a whole row-major host matrix into a new one of the given layout. */
static gcoo_status copy_rows(const gcoo_dense *W, int64_t r0, int64_t n, gcoo_layout layout,
                             gcoo_dense *D) {
  gcoo_status st = gcoo_dense_create(D, W->dtype, layout, n, W->ncols);
  if (st < 0) return st;
  const size_t es = gcoo_dtype_size(W->dtype);
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < W->ncols; c++) {
      const char *s = (const char *)W->data + ((size_t)(r0 + i) * (size_t)W->ld + (size_t)c) * es;
      char *t = (char *)D->data + (layout == GCOO_ROW_MAJOR
                                       ? (size_t)i * (size_t)D->ld + (size_t)c
                                       : (size_t)c * (size_t)D->ld + (size_t)i) *
                                      es;
      memcpy(t, s, es);
    }
  return GCOO_SUCCESS;
}

gcoo_status cli_dense_read_rows(MPI_Comm comm, const char *path, gcoo_dtype dtype, int64_t r0,
                                int64_t n, gcoo_layout layout, gcoo_dense *D) {
  memset(D, 0, sizeof *D);
  if (cli_file_kind_of(path) != CLI_FILE_MTX) {
#if GCOO_HAVE_HDF5
    return gcoo_h5_read_dense_rows(comm, path, dtype, r0, n, layout, D);
#else
    return GCOO_ERR_UNSUPPORTED;
#endif
  }
  /* Matrix Market is text: rank 0 parses it, every rank receives it and keeps its rows */
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  gcoo_dense W;
  memset(&W, 0, sizeof W);
  gcoo_status st = GCOO_SUCCESS;
  int64_t dims[2] = {0, 0};
  if (rank == 0) {
    st = gcoo_mtx_read_dense(path, dtype, GCOO_ROW_MAJOR, &W);
    if (st >= 0) dims[0] = W.nrows, dims[1] = W.ncols;
  }
  int ok = st >= 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (!ok) return rank == 0 ? st : GCOO_ERR_REMOTE;
  MPI_Bcast(dims, 2, MPI_INT64_T, 0, comm);
  if (rank != 0) st = gcoo_dense_create(&W, dtype, GCOO_ROW_MAJOR, dims[0], dims[1]);
  int mine = st >= 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
    gcoo_dense_destroy(&W);
    return st < 0 ? st : GCOO_ERR_REMOTE;
  }
  const size_t bytes = (size_t)(dims[0] * dims[1]) * gcoo_dtype_size(dtype);
  for (size_t off = 0; off < bytes; off += (size_t)1 << 30) { /* counts stay below 2^31 */
    size_t part = bytes - off < ((size_t)1 << 30) ? bytes - off : (size_t)1 << 30;
    MPI_Bcast((char *)W.data + off, (int)part, MPI_BYTE, 0, comm);
  }
  if (r0 < 0 || n < 0 || r0 + n > dims[0])
    st = GCOO_ERR_SHAPE;
  else
    st = copy_rows(&W, r0, n, layout, D);
  gcoo_dense_destroy(&W);
  return st;
}

/* ---- Matrix Market output of distributed results ------------------------------------------- */

gcoo_status cli_gather_bytes(MPI_Comm comm, const void *mine, size_t n, char **all, size_t *total) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  long long nl = (long long)n,
            *counts = rank == 0 ? malloc(sizeof(long long) * (size_t)size) : NULL;
  MPI_Gather(&nl, 1, MPI_LONG_LONG, counts, 1, MPI_LONG_LONG, 0, comm);
  int ok = 1;
  int *ci = NULL, *di = NULL;
  *all = NULL;
  *total = 0;
  if (rank == 0) {
    ci = malloc(sizeof(int) * (size_t)size);
    di = malloc(sizeof(int) * (size_t)size);
    long long sum = 0;
    for (int r = 0; r < size && ci && di; r++) {
      ci[r] = (int)counts[r];
      di[r] = (int)sum;
      sum += counts[r];
      if (counts[r] > INT_MAX || sum > INT_MAX) ok = 0;
    }
    *all = ok && ci && di ? malloc((size_t)sum + 1) : NULL;
    if (!*all) ok = 0;
    *total = (size_t)sum;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (ok) MPI_Gatherv(mine, (int)n, MPI_BYTE, *all, ci, di, MPI_BYTE, 0, comm);
  free(counts);
  free(ci);
  free(di);
  if (!ok) {
    free(*all);
    *all = NULL;
    return GCOO_ERR_TOO_LARGE;
  }
  return GCOO_SUCCESS;
}

/* Every rank returns rank 0's status (rank 0 did the writing). */
static gcoo_status from_rank0(MPI_Comm comm, gcoo_status st) {
  int v = (int)st;
  MPI_Bcast(&v, 1, MPI_INT, 0, comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank == 0 || v >= 0 ? (gcoo_status)v : GCOO_ERR_REMOTE;
}

gcoo_status cli_write_mtx_dense_rows(MPI_Comm comm, const char *path, int64_t m,
                                     const gcoo_dense *slab, int transpose) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  /* the slab as packed row-major bytes */
  const size_t es = gcoo_dtype_size(slab->dtype), rowb = (size_t)slab->ncols * es;
  char *mine = malloc(rowb * (size_t)slab->nrows + 1), *all = NULL;
  gcoo_status st = mine ? GCOO_SUCCESS : GCOO_ERR_NO_MEMORY;
  for (int64_t i = 0; mine && i < slab->nrows; i++)
    memcpy(mine + (size_t)i * rowb, (const char *)slab->data + (size_t)i * (size_t)slab->ld * es,
           rowb);
  int ok = st >= 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  size_t total = 0;
  if (all_ok)
    st = cli_gather_bytes(comm, mine, rowb * (size_t)slab->nrows, &all, &total);
  else if (st >= 0)
    st = GCOO_ERR_REMOTE;
  free(mine);
  if (rank == 0 && st >= 0) {
    if (total != rowb * (size_t)m) {
      st = GCOO_ERR_INTERNAL;
    } else {
      /* m x n row-major; its transpose is the same bytes read column-major */
      gcoo_dense F = transpose ? gcoo_dense_wrap(all, slab->dtype, GCOO_COL_MAJOR, slab->ncols, m,
                                                 slab->ncols > 0 ? slab->ncols : 1)
                               : gcoo_dense_wrap(all, slab->dtype, GCOO_ROW_MAJOR, m, slab->ncols,
                                                 slab->ncols > 0 ? slab->ncols : 1);
      st = gcoo_mtx_write_dense(path, &F);
    }
  }
  free(all);
  return from_rank0(comm, st);
}

gcoo_status cli_write_mtx_csr_rows(MPI_Comm comm, const char *path, int64_t m, int64_t n,
                                   gcoo_sparse slab) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  gcoo_sparse csr = NULL;
  gcoo_sparse_info si;
  gcoo_sparse_arrays a;
  gcoo_status st = gcoo_sparse_get_info(slab, &si);
  if (st >= 0 && si.format != GCOO_FORMAT_CSR)
    st = gcoo_sparse_convert(&csr, slab, GCOO_FORMAT_CSR, 0);
  gcoo_sparse S = csr ? csr : slab;
  if (st >= 0) st = gcoo_sparse_get_arrays(S, &a);
  int ok = st >= 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) {
    gcoo_sparse_destroy(&csr);
    return st < 0 ? st : GCOO_ERR_REMOTE;
  }
  const size_t es = gcoo_dtype_size(si.dtype);
  const int64_t rows = si.nrows, nnz = a.ptr[rows] - a.ptr[0];
  /* row lengths, column indices and values, gathered in rank order */
  int64_t *len = malloc(sizeof(int64_t) * (size_t)(rows + 1));
  char *lens = NULL, *inds = NULL, *vals = NULL;
  size_t nl = 0, ni = 0, nv = 0;
  st = len ? GCOO_SUCCESS : GCOO_ERR_NO_MEMORY;
  for (int64_t i = 0; len && i < rows; i++) len[i] = a.ptr[i + 1] - a.ptr[i];
  if (st >= 0) st = cli_gather_bytes(comm, len, sizeof(int64_t) * (size_t)rows, &lens, &nl);
  if (st >= 0)
    st = cli_gather_bytes(comm, a.ind + a.ptr[0], sizeof(int32_t) * (size_t)nnz, &inds, &ni);
  if (st >= 0)
    st = cli_gather_bytes(comm, (const char *)a.values + (size_t)a.ptr[0] * es, es * (size_t)nnz,
                          &vals, &nv);
  free(len);
  gcoo_sparse_destroy(&csr);
  if (rank == 0 && st >= 0) {
    int64_t *ptr = malloc(sizeof(int64_t) * (size_t)(m + 1));
    if (!ptr || nl != sizeof(int64_t) * (size_t)m) {
      st = ptr ? GCOO_ERR_INTERNAL : GCOO_ERR_NO_MEMORY;
    } else {
      ptr[0] = 0;
      for (int64_t i = 0; i < m; i++) ptr[i + 1] = ptr[i] + ((const int64_t *)lens)[i];
      gcoo_sparse C = NULL;
      st = gcoo_sparse_create_csr(&C, si.dtype, m, n, ptr, (const int32_t *)inds, vals, 0);
      if (st >= 0) st = gcoo_mtx_write(path, C);
      gcoo_sparse_destroy(&C);
    }
    free(ptr);
  }
  free(lens);
  free(inds);
  free(vals);
  return from_rank0(comm, st);
}

/* ---- sizes, for rates ---------------------------------------------------------------------- */

double cli_file_mbytes(const char *path) {
  char file[PATH_MAX];
  const char *obj;
  struct stat s;
  cli_path_split(path, file, sizeof file, &obj);
  return stat(file, &s) == 0 ? (double)s.st_size / 1e6 : 0.0;
}
