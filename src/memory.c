/* SPDX-License-Identifier: MIT */
/* src/memory.c: allocation that reports its size and purpose, and overflow-checked sizes. */
#include <stdlib.h>

#include "backend_impl.h"

gcoo_status gcoo__array_bytes(int64_t n, size_t size, size_t *bytes) {
  GCOO_CHECK(n >= 0, GCOO_ERR_INVALID_ARG, "negative element count %lld", (long long)n);
  GCOO_CHECK(size == 0 || (uint64_t)n <= SIZE_MAX / size, GCOO_ERR_TOO_LARGE,
             "%lld elements of %zu bytes overflow size_t", (long long)n, size);
  *bytes = (size_t)n * size;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__malloc(void **p, size_t nbytes, const char *what) {
  *p = malloc(nbytes ? nbytes : 1);
  GCOO_CHECK(*p != NULL, GCOO_ERR_NO_MEMORY, "cannot allocate %zu bytes for %s", nbytes,
             what ? what : "an array");
  return GCOO_SUCCESS;
}

gcoo_status gcoo__calloc(void **p, size_t count, size_t size, const char *what) {
  *p = NULL;
  GCOO_CHECK(size == 0 || count <= SIZE_MAX / size, GCOO_ERR_TOO_LARGE,
             "%zu x %zu bytes for %s overflow size_t", count, size, what ? what : "an array");
  *p = calloc(count ? count : 1, size ? size : 1);
  GCOO_CHECK(*p != NULL, GCOO_ERR_NO_MEMORY, "cannot allocate %zu x %zu bytes for %s", count, size,
             what ? what : "an array");
  return GCOO_SUCCESS;
}

gcoo_status gcoo__malloc_n(void **p, int64_t n, size_t size, const char *what) {
  size_t bytes;
  *p = NULL;
  GCOO_CALL(gcoo__array_bytes(n, size, &bytes));
  GCOO_CALL(gcoo__malloc(p, bytes, what));
  return GCOO_SUCCESS;
}
