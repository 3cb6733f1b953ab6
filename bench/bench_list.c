/* SPDX-License-Identifier: MIT */
/* bench/bench_list.c: comma-separated name lists (bench/bench_list.h). */
#include "bench_list.h"

#include <stdio.h>
#include <string.h>

int bench_list_has(const char *list, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *q = strchr(p, ',');
    const size_t len = q ? (size_t)(q - p) : strlen(p);
    if (len == n && !strncmp(p, name, n)) return 1;
    p = q ? q + 1 : NULL;
  }
  return 0;
}

int bench_list_match(const char *list, const char *name) {
  for (const char *p = list; p && *p;) {
    const char *q = strchr(p, ',');
    const size_t len = q ? (size_t)(q - p) : strlen(p);
    char sub[128];
    snprintf(sub, sizeof sub, "%.*s", (int)(len < sizeof sub - 1 ? len : sizeof sub - 1), p);
    if (len && strstr(name, sub)) return 1;
    p = q ? q + 1 : NULL;
  }
  return 0;
}
