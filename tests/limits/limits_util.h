/* SPDX-License-Identifier: MIT */
/* tests/limits/limits_util.h: what the limit tests share: the sizes around 2^31, a file written
 * into the test's temporary directory, and wall-clock checks ("refused within a second"). */
#ifndef GCOO_LIMITS_UTIL_H
#define GCOO_LIMITS_UTIL_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "unit_util.h"

/* The largest dimension (int32 indices) and the first one past it. */
#define LIM_DIM ((int64_t)INT32_MAX)
#define LIM_PAST ((int64_t)INT32_MAX + 1)

/** Write text (len bytes; -1: strlen) as <tmpdir>/<name>; returns the path (static buffer per
 *  call site is not needed: the caller copies it or uses it before the next call). */
static inline const char *lim_file(const char *name, const char *text, long len) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", ut_tmpdir(), name);
  FILE *f = fopen(path, "wb");
  if (!f ||
      fwrite(text, 1, len < 0 ? strlen(text) : (size_t)len, f) !=
          (len < 0 ? strlen(text) : (size_t)len) ||
      fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  return path;
}

static inline double lim_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/** Statement that must finish within `seconds` (a refusal must not first try the impossible). */
#define LIM_WITHIN(seconds, stmt)                                               \
  do {                                                                          \
    double t0_ = lim_now();                                                     \
    stmt;                                                                       \
    double dt_ = lim_now() - t0_;                                               \
    TEST_CHECK(dt_ < (seconds), "%s took %.2f s, more than %.1f s", #stmt, dt_, \
               (double)(seconds));                                              \
  } while (0)

#endif
