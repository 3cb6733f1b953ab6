/* SPDX-License-Identifier: MIT */
/* tests/fuzz/replay_main.c: runs a fuzz harness over files, without libFuzzer, so that any
 * compiler builds it and ctest replays the committed corpus and every input that once broke
 * something (tests/fuzz/regressions/<harness>/) in the normal and the sanitizer builds.
 *   replay <file or directory>...   (directories: every regular file in them, sorted by name)
 * Prints each input's name before running it, so a crash names its input. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      fprintf(stderr, "replay: out of memory reading %s\n", path);
      fclose(f);
      return 1;
    }
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    cap *= 2;
    unsigned char *nb = realloc(buf, cap);
    if (!nb) free(buf);
    buf = nb;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    free(buf);
    return 1;
  }
  printf("replay %s (%zu bytes)\n", path, n);
  fflush(stdout);
  /* libFuzzer hands the harness a buffer of exactly n bytes: do the same, so that a read past
   * the end shows under AddressSanitizer */
  unsigned char *exact = malloc(n ? n : 1);
  if (n) memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int failures = 0, inputs = 0;
  for (int i = 1; i < argc; i++) {
    struct stat sb;
    if (stat(argv[i], &sb) != 0) {
      fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
      return 1;
    }
    if (!S_ISDIR(sb.st_mode)) {
      failures += run_file(argv[i]);
      inputs++;
      continue;
    }
    struct dirent **names = NULL;
    int n = scandir(argv[i], &names, NULL, NULL);
    if (n < 0) {
      fprintf(stderr, "replay: cannot list %s: %s\n", argv[i], strerror(errno));
      return 1;
    }
    char **paths = calloc((size_t)n + 1, sizeof *paths);
    int np = 0;
    for (int k = 0; k < n; k++) {
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", argv[i], names[k]->d_name);
      if (names[k]->d_name[0] != '.' && stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
        paths[np++] = strdup(p);
      free(names[k]);
    }
    free(names);
    qsort(paths, (size_t)np, sizeof *paths, by_name);
    for (int k = 0; k < np; k++) {
      failures += run_file(paths[k]);
      inputs++;
      free(paths[k]);
    }
    free(paths);
  }
  printf("replay: %d inputs, %d could not be read\n", inputs, failures);
  return failures ? 1 : 0;
}
