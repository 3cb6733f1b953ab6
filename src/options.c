/* SPDX-License-Identifier: MIT */
/* src/options.c: what the public option structs and enumerations share: reading a
 * size-versioned options struct over its defaults, and the name tables of the enumerations
 * (gcoo_spdm_alg, gcoo_spgemm_alg, gcoo_predict_method). */
#include <string.h>

#include "backend_impl.h"

gcoo_status gcoo__options_read(const void *in, void *out, size_t out_size, const char *init) {
  if (!in) return GCOO_SUCCESS;
  size_t in_size;
  memcpy(&in_size, in, sizeof in_size);
  GCOO_CHECK(in_size >= sizeof(size_t) && in_size <= out_size, GCOO_ERR_INVALID_ARG,
             "options.size = %zu: initialise options with %s", in_size, init);
  memcpy(out, in, in_size);
  memcpy(out, &out_size, sizeof out_size); /* the caller's fields, now at this library's size */
  return GCOO_SUCCESS;
}

const char *gcoo__name_of(const char *const *names, size_t n, int i) {
  return i >= 0 && (size_t)i < n ? names[i] : "unknown";
}

int gcoo__index_of(const char *const *names, size_t n, const char *name) {
  for (size_t i = 0; name && i < n; i++)
    if (!strcmp(name, names[i])) return (int)i;
  return -1;
}
