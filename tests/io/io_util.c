/* SPDX-License-Identifier: MIT */
/* tests/io/io_util.c: helpers of the io tests (see io_util.h). */
#define _XOPEN_SOURCE 700
#include "io_util.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *io_make_dir(const char *base) {
  static char dir[512];
  snprintf(dir, sizeof dir, "%s.%ld", base, (long)getpid());
  io_remove_tree(dir);
  if (mkdir(dir, 0755) != 0) {
    fprintf(stderr, "FAIL: cannot make %s: %s\n", dir, strerror(errno));
    exit(1);
  }
  return dir;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f) {
  (void)sb, (void)flag, (void)f;
  return remove(p);
}

void io_remove_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

const char *io_path(const char *dir, const char *name) {
  static char ring[8][1024];
  static int at = 0;
  char *b = ring[at++ % 8];
  snprintf(b, 1024, "%s/%s", dir, name);
  return b;
}

int io_file_exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

void io_write_triplets(const char *path, gcoo_sparse A) {
  gcoo_sparse C = NULL;
  gcoo_sparse_info ci;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_convert(&C, A, GCOO_FORMAT_COO, 0));
  TEST_CALL(gcoo_sparse_get_info(C, &ci));
  TEST_CALL(gcoo_sparse_get_arrays(C, &a));
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "FAIL: cannot write %s\n", path);
    exit(1);
  }
  fprintf(f, "%lld %lld %lld\n", (long long)ci.nrows, (long long)ci.ncols, (long long)ci.nnz);
  for (int64_t k = 0; k < ci.nnz; k++) {
    double v = ci.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                        : (double)((const float *)a.values)[k];
    fprintf(f, "%d %d %.17g\n", a.rows[k], a.cols[k], v);
  }
  fclose(f);
  gcoo_sparse_destroy(&C);
}

int io_read_triplets(const char *path, io_triplets *t) {
  memset(t, 0, sizeof *t);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long long r, c, n;
  if (fscanf(f, "%lld %lld %lld", &r, &c, &n) != 3) {
    fclose(f);
    return -1;
  }
  t->nrows = r, t->ncols = c, t->nnz = n;
  t->rows = malloc(sizeof(int64_t) * (size_t)(n + 1));
  t->cols = malloc(sizeof(int64_t) * (size_t)(n + 1));
  t->vals = malloc(sizeof(double) * (size_t)(n + 1));
  for (long long k = 0; k < n; k++) {
    long long i, j;
    double v;
    if (fscanf(f, "%lld %lld %lf", &i, &j, &v) != 3) {
      fclose(f);
      return -1;
    }
    t->rows[k] = i, t->cols[k] = j, t->vals[k] = v;
  }
  fclose(f);
  return 0;
}

void io_free_triplets(io_triplets *t) {
  free(t->rows);
  free(t->cols);
  free(t->vals);
  memset(t, 0, sizeof *t);
}

static double rounded(gcoo_dtype t, double v) { return t == GCOO_FLOAT64 ? v : (double)(float)v; }

int64_t io_compare_triplets(gcoo_sparse A, const io_triplets *t, const char *what) {
  gcoo_sparse C = NULL;
  gcoo_sparse_info ci;
  gcoo_sparse_arrays a;
  int64_t bad = 0;
  TEST_CALL(gcoo_sparse_convert(&C, A, GCOO_FORMAT_COO, 0));
  TEST_CALL(gcoo_sparse_get_info(C, &ci));
  TEST_CALL(gcoo_sparse_get_arrays(C, &a));
  if (ci.nrows != t->nrows || ci.ncols != t->ncols || ci.nnz != t->nnz) {
    fprintf(stderr, "  %s: %lld x %lld with %lld entries, expected %lld x %lld with %lld\n", what,
            (long long)ci.nrows, (long long)ci.ncols, (long long)ci.nnz, (long long)t->nrows,
            (long long)t->ncols, (long long)t->nnz);
    gcoo_sparse_destroy(&C);
    return 1;
  }
  for (int64_t k = 0; k < ci.nnz; k++) {
    double v = ci.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                        : (double)((const float *)a.values)[k];
    if (a.rows[k] != t->rows[k] || a.cols[k] != t->cols[k] || v != rounded(ci.dtype, t->vals[k])) {
      if (bad < 5)
        fprintf(stderr, "  %s: entry %lld is (%d, %d) = %.17g, expected (%lld, %lld) = %.17g\n",
                what, (long long)k, a.rows[k], a.cols[k], v, (long long)t->rows[k],
                (long long)t->cols[k], rounded(ci.dtype, t->vals[k]));
      bad++;
    }
  }
  gcoo_sparse_destroy(&C);
  return bad;
}

void io_write_dense_text(const char *path, const gcoo_dense *D) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "FAIL: cannot write %s\n", path);
    exit(1);
  }
  fprintf(f, "%lld %lld\n", (long long)D->nrows, (long long)D->ncols);
  for (int64_t i = 0; i < D->nrows; i++)
    for (int64_t j = 0; j < D->ncols; j++) fprintf(f, "%.17g\n", gcoo_dense_get(D, i, j));
  fclose(f);
}

int64_t io_compare_dense_text(const gcoo_dense *D, const char *path, const char *what) {
  FILE *f = fopen(path, "r");
  long long r = -1, c = -1;
  int64_t bad = 0;
  if (!f || fscanf(f, "%lld %lld", &r, &c) != 2 || r != D->nrows || c != D->ncols) {
    fprintf(stderr, "  %s: %lld x %lld, expected %lld x %lld from %s\n", what, (long long)D->nrows,
            (long long)D->ncols, r, c, path);
    if (f) fclose(f);
    return 1;
  }
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < c; j++) {
      double v = NAN, got = gcoo_dense_get(D, i, j);
      if (fscanf(f, "%lf", &v) != 1 || got != rounded(D->dtype, v)) {
        if (bad < 5)
          fprintf(stderr, "  %s: (%lld, %lld) = %.17g, expected %.17g\n", what, (long long)i,
                  (long long)j, got, rounded(D->dtype, v));
        bad++;
      }
    }
  fclose(f);
  return bad;
}

int64_t io_compare_sparse(gcoo_sparse A, gcoo_sparse B, const char *what) {
  gcoo_sparse_info ai, bi;
  gcoo_sparse_arrays a, b;
  int64_t bad = 0;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_info(B, &bi));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  TEST_CALL(gcoo_sparse_get_arrays(B, &b));
  if (ai.format != bi.format || ai.nrows != bi.nrows || ai.ncols != bi.ncols || ai.nnz != bi.nnz ||
      ai.p != bi.p) {
    fprintf(stderr,
            "  %s: format %d %lld x %lld nnz %lld p %d vs format %d %lld x %lld nnz %lld p %d\n",
            what, ai.format, (long long)ai.nrows, (long long)ai.ncols, (long long)ai.nnz, ai.p,
            bi.format, (long long)bi.nrows, (long long)bi.ncols, (long long)bi.nnz, bi.p);
    return 1;
  }
  int64_t nptr = ai.format == GCOO_FORMAT_CSR   ? ai.nrows + 1
                 : ai.format == GCOO_FORMAT_CSC ? ai.ncols + 1
                                                : 0;
  for (int64_t i = 0; i < nptr; i++) bad += a.ptr[i] != b.ptr[i];
  for (int64_t q = 0; ai.format == GCOO_FORMAT_GCOO && q <= ai.ngroups; q++) {
    bad += a.gidx[q] != b.gidx[q];
    if (q < ai.ngroups) bad += a.gnnz[q] != b.gnnz[q];
  }
  for (int64_t k = 0; k < ai.nnz; k++) {
    if (a.ind) bad += a.ind[k] != b.ind[k];
    if (a.rows) bad += a.rows[k] != b.rows[k];
    if (a.cols) bad += a.cols[k] != b.cols[k];
    double va = ai.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                         : ((const float *)a.values)[k];
    double vb = bi.dtype == GCOO_FLOAT64 ? ((const double *)b.values)[k]
                                         : ((const float *)b.values)[k];
    bad += va != rounded(ai.dtype, vb);
  }
  if (bad) fprintf(stderr, "  %s: %lld array elements differ\n", what, (long long)bad);
  return bad;
}

int64_t io_compare_dense(const gcoo_dense *A, const gcoo_dense *B, const char *what) {
  int64_t bad = 0;
  if (A->nrows != B->nrows || A->ncols != B->ncols) {
    fprintf(stderr, "  %s: %lld x %lld vs %lld x %lld\n", what, (long long)A->nrows,
            (long long)A->ncols, (long long)B->nrows, (long long)B->ncols);
    return 1;
  }
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t j = 0; j < A->ncols; j++) {
      double x = gcoo_dense_get(A, i, j), y = rounded(A->dtype, gcoo_dense_get(B, i, j));
      if (x != y) {
        if (bad < 5)
          fprintf(stderr, "  %s: (%lld, %lld) = %.17g vs %.17g\n", what, (long long)i, (long long)j,
                  x, y);
        bad++;
      }
    }
  return bad;
}

int io_run_python(const char *mode, const char *dir) {
  const char *python = IO_PYTHON, *script = IO_SCRIPT;
  if (access(python, X_OK) != 0) {
    fprintf(stderr, "%s is not there: skipping the Python side\n", python);
    return GCOO_TEST_SKIP;
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' '%s' %s '%s'", python, script, mode, dir);
  fflush(stdout);
  fflush(stderr);
  int rc = system(cmd);
  if (rc == -1 || !WIFEXITED(rc)) return 1;
  return WEXITSTATUS(rc);
}

int io_temp_files(const char *file) {
  char dir[1024], prefix[1024];
  const char *slash = strrchr(file, '/');
  if (slash) {
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
    snprintf(prefix, sizeof prefix, "%s.tmp", slash + 1);
  } else {
    snprintf(dir, sizeof dir, ".");
    snprintf(prefix, sizeof prefix, "%s.tmp", file);
  }
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (!strncmp(e->d_name, prefix, strlen(prefix))) n++;
  closedir(d);
  return n;
}
