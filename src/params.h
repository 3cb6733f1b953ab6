/* SPDX-License-Identifier: MIT */
/* src/params.h: the library's access to its parameters (src/params_list.h, the registry): one
 * enumerator per parameter and typed readers. Each parameter is read from the environment at its
 * first use, once, by src/params.c; later reads return the cached value. Nothing else in the
 * library calls getenv for a GCOO_* variable (scripts/check_layers.py enforces it). */
#ifndef GCOO_SRC_PARAMS_H
#define GCOO_SRC_PARAMS_H

#include <stdint.h>

#include "gcoo/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One enumerator per parameter: GCOO__P_BACKEND for GCOO_BACKEND, ... */
typedef enum gcoo__param {
#define GCOO_PARAM(id, type, audience, scope, def, doc) GCOO__P_##id,
#include "params_list.h"
#undef GCOO_PARAM
  GCOO__P_COUNT
} gcoo__param;

/** A BOOL parameter: 0 or 1. */
int gcoo__param_bool(gcoo__param p);
/** An INT parameter. */
int64_t gcoo__param_int(gcoo__param p);
/** A NUMBER parameter. */
double gcoo__param_number(gcoo__param p);
/** A STRING parameter ("" when unset and without a default); valid until it is set again. */
const char *gcoo__param_str(gcoo__param p);
/** 1 when the value in use came from the environment or gcoo_param_set, 0 for the default. */
int gcoo__param_given(gcoo__param p);

#ifdef __cplusplus
}
#endif
#endif
