/* SPDX-License-Identifier: MIT */
/* io/mtx_write.c: Matrix Market writers: a sparse matrix as "coordinate real general" (1-based,
 * row by row), a dense one as "array real general" (column-major, as the format says). Values
 * are written with %.17g (float64) or %.9g (float32): enough digits that reading the file back
 * gives the same bits. gzip-compressed when the path ends in .gz (any case). NaN and infinity
 * are refused, as the HDF5 writers refuse them.
 *
 * A file is written to "<path>.tmp.<job>.<random>" (io/publish.c) and published onto <path>
 * (where its symbolic links lead, when it is one)
 * only when every byte has been written and the file closed without error (synced; refused if
 * <path> changed meanwhile), so a crash or a full disk never leaves a file that looks complete;
 * the temporary is removed on any error, and by gcoo_remove_temporaries() on a signal. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "backend_impl.h"
#include "gcoo/mtx.h"
#include "mtx_impl.h"
#include "publish.h"

enum { MTX_OUT_BUF = 1 << 16 };

typedef struct mtx_writer {
  const char *path;        /* as the caller named it */
  char *target;            /* where the file lands: path, or where its symbolic links lead */
  char *tmp;               /* "<target>.tmp.<job>.<random>" */
  int slot;                /* in the temporary-file registry */
  gcoo__target target_was; /* <target> as it was when the write started */
  FILE *f;                 /* plain output, or */
  gzFile gz;               /* compressed output */
  char *buf;               /* formatted text waiting to be written */
  size_t n;
} mtx_writer;

static const char *errno_text(int e, char *buf, size_t len) {
  if (strerror_r(e, buf, len) != 0) snprintf(buf, len, "errno %d", e);
  return buf;
}

static gcoo_status writer_open(mtx_writer *w, const char *path) {
  char eb[128];
  memset(w, 0, sizeof *w);
  w->slot = -1;
  w->target_was = (gcoo__target)GCOO__TARGET_INIT;
  GCOO_CHECK(path != NULL && *path, GCOO_ERR_NULL, "path is NULL or empty");
  w->path = path;
  GCOO_CALL(gcoo__malloc((void **)&w->target, GCOO__TMP_NAME, "target file name"));
  GCOO_CALL(gcoo__target_path(path, w->target, GCOO__TMP_NAME));
  GCOO_CALL(gcoo__malloc((void **)&w->tmp, GCOO__TMP_NAME, "temporary file name"));
  GCOO_CALL(gcoo__tmp_name(w->target, w->tmp, GCOO__TMP_NAME));
  GCOO_CALL(gcoo__target_snapshot(w->target, &w->target_was));
  w->slot = gcoo__tmp_register(w->tmp);
  GCOO_CALL(gcoo__malloc((void **)&w->buf, MTX_OUT_BUF, "write buffer"));
  if (gcoo__mtx_gzip_name(path)) {
    errno = 0;
    w->gz = gzopen(w->tmp, "wb");
    GCOO_CHECK(w->gz != NULL, GCOO_ERR_IO, "cannot create %s: %s", w->tmp,
               errno ? errno_text(errno, eb, sizeof eb) : "zlib could not start");
  } else {
    w->f = fopen(w->tmp, "wb");
    GCOO_CHECK(w->f != NULL, GCOO_ERR_IO, "cannot create %s: %s", w->tmp,
               errno_text(errno, eb, sizeof eb));
  }
  return GCOO_SUCCESS;
}

static gcoo_status writer_flush(mtx_writer *w) {
  char eb[128];
  if (w->n == 0) return GCOO_SUCCESS;
  if (w->gz) {
    int zerr = Z_OK;
    int n = gzwrite(w->gz, w->buf, (unsigned)w->n);
    const char *msg = n != (int)w->n ? gzerror(w->gz, &zerr) : "";
    GCOO_CHECK(n == (int)w->n, GCOO_ERR_IO, "cannot write %s: %s", w->tmp,
               zerr == Z_ERRNO ? errno_text(errno, eb, sizeof eb) : msg);
  } else {
    size_t n = fwrite(w->buf, 1, w->n, w->f);
    GCOO_CHECK(n == w->n, GCOO_ERR_IO, "cannot write %s: %s", w->tmp,
               errno_text(errno, eb, sizeof eb));
  }
  w->n = 0;
  return GCOO_SUCCESS;
}

static gcoo_status writer_printf(mtx_writer *w, const char *fmt, ...) GCOO_PRINTF(2, 3);
static gcoo_status writer_printf(mtx_writer *w, const char *fmt, ...) {
  for (int attempt = 0; attempt < 2; attempt++) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(w->buf + w->n, MTX_OUT_BUF - w->n, fmt, ap);
    va_end(ap);
    GCOO_CHECK(n >= 0, GCOO_ERR_INTERNAL, "formatting \"%s\" failed", fmt);
    if ((size_t)n < MTX_OUT_BUF - w->n) {
      w->n += (size_t)n;
      return GCOO_SUCCESS;
    }
    GCOO_CALL(writer_flush(w));
  }
  return GCOO_ERROR(GCOO_ERR_INTERNAL, "a line of more than %d bytes", MTX_OUT_BUF);
}

/* Finish: flush, close (where a full disk shows up at last), rename. On failure, or when
 * ok == 0 (an error earlier), the temporary is closed and removed. */
static gcoo_status writer_close(mtx_writer *w, int ok) {
  gcoo_status st = GCOO_SUCCESS;
  char eb[128];
  if (ok && (w->f || w->gz)) st = writer_flush(w);
  if (w->gz) {
    int z = gzclose(w->gz);
    if (ok && st >= 0 && z != Z_OK)
      st = GCOO_ERROR(GCOO_ERR_IO, "cannot finish %s: %s", w->tmp,
                      z == Z_ERRNO ? errno_text(errno, eb, sizeof eb) : "zlib error on close");
  }
  if (w->f) {
    int c = fclose(w->f);
    if (ok && st >= 0 && c != 0)
      st = GCOO_ERROR(GCOO_ERR_IO, "cannot finish %s: %s", w->tmp,
                      errno_text(errno, eb, sizeof eb));
  }
  int opened = w->gz || w->f;
  w->gz = NULL;
  w->f = NULL;
  if (ok && st >= 0 && opened) st = gcoo__publish(w->tmp, w->target, &w->target_was);
  if ((!ok || st < 0) && opened && w->tmp) unlink(w->tmp);
  gcoo__tmp_unregister(w->slot);
  gcoo__target_release(&w->target_was);
  w->slot = -1;
  free(w->target);
  w->target = NULL;
  free(w->tmp);
  free(w->buf);
  w->tmp = NULL;
  w->buf = NULL;
  return st;
}

/* One value with enough digits to read back the same bits. */
static gcoo_status write_value(mtx_writer *w, gcoo_dtype dtype, double v, const char *sep) {
  if (dtype == GCOO_FLOAT64) return writer_printf(w, "%.17g%s", v, sep);
  return writer_printf(w, "%.9g%s", v, sep);
}

/* The writers' one rule for values (the HDF5 writers' too, io/h5_dense.c and io/h5_transfer.c):
 * a NaN or an infinity is refused, before anything is written, naming the first one; gcoo's
 * readers refuse them as well, so a file holding one could never be read back. */
static gcoo_status refuse_nonfinite(const char *path, int64_t i, int64_t j, double v) {
  return GCOO_ERROR(GCOO_ERR_NOT_FINITE,
                    "%s: row %lld, column %lld is %g: refusing to write a non-finite value", path,
                    (long long)i, (long long)j, v);
}

static gcoo_status mtx_write(const char *path, gcoo_sparse A) {
  gcoo_status st = GCOO_SUCCESS;
  mtx_writer w = {0};
  gcoo_sparse csr = NULL;
  gcoo_sparse_info info;
  gcoo_sparse_arrays a;
  GCOO_CALL(gcoo_sparse_get_info(A, &info));
  if (info.format != GCOO_FORMAT_CSR) {
    GCOO_CALL(gcoo_sparse_convert(&csr, A, GCOO_FORMAT_CSR, 0));
    A = csr;
  }
  GCOO_GOTO(gcoo_sparse_get_arrays(A, &a));
  for (int64_t i = 0; i < info.nrows; i++)
    for (int64_t k = a.ptr[i]; k < a.ptr[i + 1]; k++) {
      double v = info.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                            : (double)((const float *)a.values)[k];
      if (!isfinite(v)) {
        st = refuse_nonfinite(path, i, a.ind[k], v);
        goto done;
      }
    }
  GCOO_GOTO(writer_open(&w, path));
  GCOO_GOTO(writer_printf(&w,
                          "%%%%MatrixMarket matrix coordinate real general\n"
                          "%% written by %s, %s values\n%lld %lld %lld\n",
                          gcoo_version_string(), info.dtype == GCOO_FLOAT64 ? "float64" : "float32",
                          (long long)info.nrows, (long long)info.ncols, (long long)info.nnz));
  for (int64_t i = 0; i < info.nrows; i++)
    for (int64_t k = a.ptr[i]; k < a.ptr[i + 1]; k++) {
      double v = info.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k]
                                            : (double)((const float *)a.values)[k];
      GCOO_GOTO(writer_printf(&w, "%lld %d ", (long long)i + 1, a.ind[k] + 1));
      GCOO_GOTO(write_value(&w, info.dtype, v, "\n"));
    }
done:;
  gcoo_status cs = writer_close(&w, st >= 0); /* w is zeroed: safe even if never opened */
  if (st >= 0) st = cs;
  gcoo_sparse_destroy(&csr);
  return st;
}

gcoo_status gcoo_mtx_write(const char *path, gcoo_sparse A) {
  locale_t old = gcoo__mtx_locale_begin();
  gcoo_status st = mtx_write(path, A);
  gcoo__mtx_locale_end(old);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

static gcoo_status mtx_write_dense(const char *path, const gcoo_dense *D) {
  gcoo_status st = GCOO_SUCCESS;
  mtx_writer w = {0};
  GCOO_CALL(gcoo_dense_check(D));
  GCOO_CHECK(D->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG,
             "the dense matrix must be in host memory to be written");
  /* An empty matrix has nothing to walk; 0 x 2^31 would otherwise spin 2^31 empty columns. */
  const int64_t walk_cols = D->nrows > 0 ? D->ncols : 0;
  for (int64_t j = 0; j < walk_cols; j++)
    for (int64_t i = 0; i < D->nrows; i++)
      if (!isfinite(gcoo_dense_get(D, i, j)))
        return refuse_nonfinite(path, i, j, gcoo_dense_get(D, i, j));
  GCOO_GOTO(writer_open(&w, path));
  GCOO_GOTO(writer_printf(&w,
                          "%%%%MatrixMarket matrix array real general\n"
                          "%% written by %s, %s values, column-major\n%lld %lld\n",
                          gcoo_version_string(), D->dtype == GCOO_FLOAT64 ? "float64" : "float32",
                          (long long)D->nrows, (long long)D->ncols));
  for (int64_t j = 0; j < walk_cols; j++)
    for (int64_t i = 0; i < D->nrows; i++)
      GCOO_GOTO(write_value(&w, D->dtype, gcoo_dense_get(D, i, j), "\n"));
done:;
  gcoo_status cs = writer_close(&w, st >= 0);
  if (st >= 0) st = cs;
  return st;
}

gcoo_status gcoo_mtx_write_dense(const char *path, const gcoo_dense *D) {
  locale_t old = gcoo__mtx_locale_begin();
  gcoo_status st = mtx_write_dense(path, D);
  gcoo__mtx_locale_end(old);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}
