/* SPDX-License-Identifier: MIT */
/* io/file_kind.c: the one test of what kind of matrix file a path names (gcoo/mtx.h), by its
 * name, so that every reader, the distributed set-up and the command tell files apart alike;
 * and the one test of a gzip name, which the Matrix Market reader and writer share. Case is
 * ignored in both, so "Y.MTX.GZ" is a compressed Matrix Market file everywhere. */
#define _POSIX_C_SOURCE 200809L /* locale_t in mtx_impl.h */
#include <string.h>
#include <strings.h>

#include "gcoo/mtx.h"
#include "mtx_impl.h"

/* s[0..n) ends with suffix, case ignored */
static int ends_with(const char *s, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n >= k && !strncasecmp(s + n - k, suffix, k);
}

int gcoo__mtx_gzip_name(const char *path) { return path && ends_with(path, strlen(path), ".gz"); }

gcoo_file_kind gcoo_file_kind_of(const char *path) {
  static const char *const h5[] = {".h5", ".hdf5", ".hdf", ".he5", ".h5ad", ".nc"};
  if (!path || !*path) return GCOO_FILE_UNKNOWN;
  size_t n = strlen(path);
  if (ends_with(path, n, ".mtx") || ends_with(path, n, ".mtx.gz")) return GCOO_FILE_MTX;
  /* an HDF5 file name, alone or followed by ":object" */
  for (size_t i = 1; i <= n; i++) {
    if (i < n && path[i] != ':') continue;
    for (size_t e = 0; e < sizeof h5 / sizeof h5[0]; e++)
      if (ends_with(path, i, h5[e])) return GCOO_FILE_H5;
  }
  return GCOO_FILE_UNKNOWN;
}
