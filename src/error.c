/* SPDX-License-Identifier: MIT */
/* src/error.c: status names, the thread-local last error and its traceback. */
#include <stdio.h>
#include <string.h>

#include "backend_impl.h"

enum { GCOO_ERROR_LEN = 2048 };

/* One message per thread: calls on different threads never see each other's errors. */
static _Thread_local char last_error[GCOO_ERROR_LEN];

typedef struct {
  gcoo_status st;
  const char *name, *text;
} status_row;

/* One table for both the names and the descriptions. */
static const status_row status_table[] = {
    {GCOO_SUCCESS, "GCOO_SUCCESS", "success"},
    {GCOO_INFO_NOT_CONVERGED, "GCOO_INFO_NOT_CONVERGED",
     "not converged within the iteration limit"},
    {GCOO_INFO_SKIPPED, "GCOO_INFO_SKIPPED", "skipped: nothing to do"},
    {GCOO_ERR_NULL, "GCOO_ERR_NULL", "required pointer argument is NULL"},
    {GCOO_ERR_INVALID_OBJECT, "GCOO_ERR_INVALID_OBJECT", "invalid or destroyed object"},
    {GCOO_ERR_INVALID_ARG, "GCOO_ERR_INVALID_ARG", "invalid argument"},
    {GCOO_ERR_SHAPE, "GCOO_ERR_SHAPE", "dimensions do not agree"},
    {GCOO_ERR_DTYPE, "GCOO_ERR_DTYPE", "element types do not agree"},
    {GCOO_ERR_UNSUPPORTED, "GCOO_ERR_UNSUPPORTED", "not supported by this build or backend"},
    {GCOO_ERR_TOO_LARGE, "GCOO_ERR_TOO_LARGE", "size too large for the index types"},
    {GCOO_ERR_INDEX_RANGE, "GCOO_ERR_INDEX_RANGE", "index out of range"},
    {GCOO_ERR_UNSORTED, "GCOO_ERR_UNSORTED", "entries not in the required order"},
    {GCOO_ERR_DUPLICATE, "GCOO_ERR_DUPLICATE", "duplicate entry"},
    {GCOO_ERR_NOT_FINITE, "GCOO_ERR_NOT_FINITE", "NaN or infinite value"},
    {GCOO_ERR_FORMAT, "GCOO_ERR_FORMAT", "malformed file or object"},
    {GCOO_ERR_EXISTS, "GCOO_ERR_EXISTS", "output exists or changed meanwhile"},
    {GCOO_ERR_NO_MEMORY, "GCOO_ERR_NO_MEMORY", "out of memory"},
    {GCOO_ERR_IO, "GCOO_ERR_IO", "file input/output failed"},
    {GCOO_ERR_CUDA, "GCOO_ERR_CUDA", "CUDA error"},
    {GCOO_ERR_CUSPARSE, "GCOO_ERR_CUSPARSE", "cuSPARSE error"},
    {GCOO_ERR_CUBLAS, "GCOO_ERR_CUBLAS", "cuBLAS error"},
    {GCOO_ERR_NO_DEVICE, "GCOO_ERR_NO_DEVICE", "no usable GPU"},
    {GCOO_ERR_MPI, "GCOO_ERR_MPI", "MPI error"},
    {GCOO_ERR_NCCL, "GCOO_ERR_NCCL", "NCCL error"},
    {GCOO_ERR_HDF5, "GCOO_ERR_HDF5", "HDF5 error"},
    {GCOO_ERR_REMOTE, "GCOO_ERR_REMOTE", "another rank failed"},
    {GCOO_ERR_BREAKDOWN, "GCOO_ERR_BREAKDOWN", "solver breakdown"},
    {GCOO_ERR_INTERNAL, "GCOO_ERR_INTERNAL", "internal error in gcoo (please report)"},
};

static const status_row *find_status(gcoo_status s) {
  for (size_t i = 0; i < sizeof status_table / sizeof status_table[0]; i++)
    if (status_table[i].st == s) return &status_table[i];
  return NULL;
}

const char *gcoo_strerror(gcoo_status s) {
  const status_row *r = find_status(s);
  return r ? r->text : "unknown status";
}

const char *gcoo_status_name(gcoo_status s) {
  const status_row *r = find_status(s);
  return r ? r->name : "GCOO_UNKNOWN_STATUS";
}

const char *gcoo_last_error(void) { return last_error; }

void gcoo_clear_error(void) { last_error[0] = '\0'; }

void gcoo__text_elide(char *dst, size_t len, const char *src) {
  static const char gap[] = " [...] ";
  const size_t n = src ? strlen(src) : 0, g = sizeof gap - 1;
  if (!len) return;
  if (n < len || len < 2 * g + 2) {
    snprintf(dst, len, "%s", src ? src : "");
    return;
  }
  /* a message's reason comes last, after the paths it names: keep its start and its end */
  const size_t head = (len - 1 - g) / 3, tail = len - 1 - g - head;
  memmove(dst, src, head);
  memcpy(dst + head, gap, g);
  memmove(dst + head + g, src + n - tail, tail + 1);
}

void gcoo__set_error_text(const char *text) {
  gcoo__text_elide(last_error, sizeof last_error, text);
}

/* Keep only the last path components after src/, io/, ... so messages stay short and stable. */
static const char *short_path(const char *file) {
  static const char *layers[] = {"src/",   "kernels/", "io/",      "dist/",
                                 "tests/", "bench/",   "examples/"};
  const char *best = file;
  for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
    const char *p = strstr(file, layers[i]);
    if (p && (p == file || p[-1] == '/')) {
      /* take the last occurrence of a layer directory */
      const char *q = p;
      while ((q = strstr(q + 1, layers[i])) != NULL)
        if (q[-1] == '/') p = q;
      if (p > best || best == file) best = p;
    }
  }
  return best;
}

gcoo_status gcoo__verror(gcoo_status st, const char *file, int line, const char *func,
                         const char *fmt, va_list ap) {
  /* Format into a scratch buffer first: the arguments may point into last_error itself (an
   * error re-raised with gcoo_last_error() in its message). */
  char msg[4 * GCOO_ERROR_LEN + 4096]; /* room for a path of PATH_MAX bytes, twice */
  int n = snprintf(msg, sizeof msg, "%s:%d %s: ", short_path(file), line, func);
  if (n < 0 || n >= (int)sizeof msg) n = 0;
  vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  gcoo__text_elide(last_error, sizeof last_error, msg);
  GCOO_LOG(GCOO_LOG_WARN, "ERROR", "%s (%s)", last_error, gcoo_status_name(st));
  return st;
}

gcoo_status gcoo__error(gcoo_status st, const char *file, int line, const char *func,
                        const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gcoo__verror(st, file, line, func, fmt, ap);
  va_end(ap);
  return st;
}

void gcoo__trace(const char *file, int line) {
  size_t n = strlen(last_error);
  if (n + 64 < sizeof last_error)
    snprintf(last_error + n, sizeof last_error - n, " <- %s:%d", short_path(file), line);
  GCOO_LOG(GCOO_LOG_TRACE, "TRACE", "<- %s:%d", short_path(file), line);
}
