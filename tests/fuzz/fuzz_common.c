/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_common.c: temporary files, failure checks and comparisons of the harnesses. */
#define _GNU_SOURCE
#include "fuzz_common.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dprintf(STDERR_FILENO, "FUZZ INVARIANT BROKEN %s:%d: %s: ", file, line, cond);
  vdprintf(STDERR_FILENO, fmt, ap);
  dprintf(STDERR_FILENO, "\n(last gcoo error: %s)\n", gcoo_last_error());
  va_end(ap);
  abort();
}

static void remove_tmpdir(void) {
  if (!tmpdir[0]) return;
  DIR *d = opendir(tmpdir);
  if (d) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(tmpdir);
  tmpdir[0] = '\0';
}

const char *fuzz_tmpdir(void) {
  if (tmpdir[0]) return tmpdir;
  struct stat sb;
  const char *base = getenv("GCOO_FUZZ_TMPDIR");
  if (!base) base = (stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode)) ? "/dev/shm" : NULL;
  if (!base) base = getenv("TMPDIR");
  if (!base) base = "/tmp";
  snprintf(tmpdir, sizeof tmpdir, "%s/gcoo-fuzz-XXXXXX", base);
  if (!mkdtemp(tmpdir)) {
    fprintf(stderr, "fuzz: cannot make a temporary directory in %s: %s\n", base, strerror(errno));
    abort();
  }
  atexit(remove_tmpdir);
  return tmpdir;
}

const char *fuzz_path(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%s/%s", fuzz_tmpdir(), name);
  return buf;
}

void fuzz_write_file(const char *path, const void *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    fprintf(stderr, "fuzz: cannot create %s: %s\n", path, strerror(errno));
    abort();
  }
  const char *p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
      abort();
    }
    p += n;
    size -= (size_t)n;
  }
  close(fd);
}

void fuzz_check_failure(gcoo_status st, const char *call, const gcoo_status *allowed) {
  FUZZ_ASSERT(st < 0, "%s: expected a failure, got %d", call, (int)st);
  FUZZ_ASSERT(st != GCOO_ERR_INTERNAL, "%s returned GCOO_ERR_INTERNAL (a bug by definition)", call);
  FUZZ_ASSERT(strcmp(gcoo_status_name(st), "GCOO_UNKNOWN_STATUS") != 0,
              "%s returned undocumented status %d", call, (int)st);
  FUZZ_ASSERT(gcoo_last_error()[0] != '\0', "%s failed with %s but left no message", call,
              gcoo_status_name(st));
  if (allowed) {
    int ok = 0;
    for (const gcoo_status *a = allowed; *a != GCOO_SUCCESS; a++) ok |= *a == st;
    FUZZ_ASSERT(ok, "%s returned %s, which it must not", call, gcoo_status_name(st));
  }
}

static int64_t major_dim(const gcoo_sparse_info *i) {
  return i->format == GCOO_FORMAT_CSC ? i->ncols : i->nrows;
}

int fuzz_same_sparse(gcoo_sparse A, gcoo_sparse B) {
  gcoo_sparse_info ia, ib;
  gcoo_sparse_arrays a, b;
  if (gcoo_sparse_get_info(A, &ia) < 0 || gcoo_sparse_get_info(B, &ib) < 0) return 0;
  if (ia.format != ib.format || ia.dtype != ib.dtype || ia.nrows != ib.nrows ||
      ia.ncols != ib.ncols || ia.nnz != ib.nnz || ia.p != ib.p || ia.ngroups != ib.ngroups)
    return 0;
  if (gcoo_sparse_get_arrays(A, &a) < 0 || gcoo_sparse_get_arrays(B, &b) < 0) return 0;
  size_t nnz = (size_t)ia.nnz, es = gcoo_dtype_size(ia.dtype);
  if (nnz && memcmp(a.values, b.values, nnz * es)) return 0;
  switch (ia.format) {
    case GCOO_FORMAT_CSR:
    case GCOO_FORMAT_CSC:
      return !memcmp(a.ptr, b.ptr, (size_t)(major_dim(&ia) + 1) * sizeof *a.ptr) &&
             (!nnz || !memcmp(a.ind, b.ind, nnz * sizeof *a.ind));
    case GCOO_FORMAT_GCOO:
      if (memcmp(a.gidx, b.gidx, (size_t)(ia.ngroups + 1) * sizeof *a.gidx)) return 0;
      if (ia.ngroups && memcmp(a.gnnz, b.gnnz, (size_t)ia.ngroups * sizeof *a.gnnz)) return 0;
      /* fall through */
    case GCOO_FORMAT_COO:
      return !nnz || (!memcmp(a.rows, b.rows, nnz * sizeof *a.rows) &&
                      !memcmp(a.cols, b.cols, nnz * sizeof *a.cols));
  }
  return 0;
}

int fuzz_same_dense(const gcoo_dense *A, const gcoo_dense *B) {
  if (A->dtype != B->dtype || A->nrows != B->nrows || A->ncols != B->ncols) return 0;
  if (A->nrows == 0 || A->ncols == 0) return 1; /* 2^31 x 0: no rows to walk */
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t j = 0; j < A->ncols; j++) {
      double x = gcoo_dense_get(A, i, j), y = gcoo_dense_get(B, i, j);
      if (memcmp(&x, &y, sizeof x)) return 0;
    }
  return 1;
}

uint64_t fuzz_hash(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}
