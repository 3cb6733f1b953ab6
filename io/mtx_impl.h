/* SPDX-License-Identifier: MIT */
/* io/mtx_impl.h: what the Matrix Market reader (mtx.c) and writers (mtx_write.c) share: the
 * test of a gzip name (io/file_kind.c) and running a piece of work in the "C" locale, so that a caller's setlocale(LC_NUMERIC, "de_DE") cannot
 * turn "0.5" into an error or write "0,5" into a file. uselocale() is per thread, so this is
 * safe while other threads run in their own locales. */
#ifndef GCOO_MTX_IMPL_H
#define GCOO_MTX_IMPL_H

#include <locale.h>
#include <pthread.h>

/** 1 when path ends in ".gz", case ignored (the writer compresses, the reader insists on gzip). */
int gcoo__mtx_gzip_name(const char *path);

static pthread_once_t gcoo__mtx_locale_once = PTHREAD_ONCE_INIT;
static locale_t gcoo__mtx_locale = (locale_t)0;

static void gcoo__mtx_locale_init(void) {
  gcoo__mtx_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

/** Switch the calling thread to the C numeric locale; returns what to pass to mtx_locale_end. */
static inline locale_t gcoo__mtx_locale_begin(void) {
  pthread_once(&gcoo__mtx_locale_once, gcoo__mtx_locale_init);
  return gcoo__mtx_locale ? uselocale(gcoo__mtx_locale) : (locale_t)0;
}

static inline void gcoo__mtx_locale_end(locale_t old) {
  if (old) uselocale(old);
}

#endif
