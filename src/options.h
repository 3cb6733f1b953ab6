/* SPDX-License-Identifier: MIT */
/* src/options.h: size-versioned options structs read over their defaults, and enumeration names
 * (src/options.c). */
#ifndef GCOO_SRC_OPTIONS_H
#define GCOO_SRC_OPTIONS_H

#include "gcoo/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options and names (src/options.c) ----------------------------------------------------- */
/** The size-versioned options pattern of gcoo_op_options, gcoo_dist_op_options,
 *  gcoo_bcg_options, ...: out (out_size bytes, its first member the size_t size) holds the
 *  defaults; in, when not NULL, is copied over them up to in->size, and out's size becomes
 *  out_size. GCOO_ERR_INVALID_ARG when in->size is below sizeof(size_t) or above out_size
 *  (an uninitialised struct); init names the caller's initialiser macro in that message. */
gcoo_status gcoo__options_read(const void *in, void *out, size_t out_size, const char *init);
/** The number of elements of an array (not a pointer). */
#define GCOO_COUNT_OF(a) (sizeof(a) / sizeof *(a))
/** An enumeration's name from its table of n names: names[i], or "unknown" outside 0..n-1. */
const char *gcoo__name_of(const char *const *names, size_t n, int i);
/** The value whose name is name in the table, or -1 (also for name NULL). */
int gcoo__index_of(const char *const *names, size_t n, const char *name);

#ifdef __cplusplus
}
#endif
#endif
