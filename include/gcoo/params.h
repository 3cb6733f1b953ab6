/* SPDX-License-Identifier: MIT */
/* gcoo/params.h: gcoo's parameters, the GCOO_* environment variables it reads. Each is declared
 * once in the library's registry (its name, type, default, audience and a one-line doc; the list
 * is docs/parameters.md), read from the environment at its first use and kept for the life of
 * the process. These calls list them, read their values as the library sees them, and let a
 * program, a test or a benchmark set one for the process. */
#ifndef GCOO_PARAMS_H
#define GCOO_PARAMS_H

#include <stdint.h>

#include "gcoo/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The type of a parameter's value. */
typedef enum gcoo_param_type {
  GCOO_PARAM_BOOL = 0,   /**< 1/0, yes/no, true/false, on/off (any case) */
  GCOO_PARAM_INT = 1,    /**< a decimal integer */
  GCOO_PARAM_NUMBER = 2, /**< a decimal number */
  GCOO_PARAM_STRING = 3  /**< text, interpreted by its reader */
} gcoo_param_type;

/** Whom a parameter is for. */
typedef enum gcoo_param_audience {
  GCOO_PARAM_USER = 0,       /**< users of the library and the command */
  GCOO_PARAM_OPERATIONS = 1, /**< sites and jobs: drivers, file systems, memory, launchers */
  GCOO_PARAM_DEVELOPER = 2   /**< experiments and measurements of gcoo's own code paths */
} gcoo_param_audience;

/** Who reads a parameter. */
typedef enum gcoo_param_scope {
  GCOO_PARAM_LIBRARY = 0, /**< libgcoo */
  GCOO_PARAM_COMMAND = 1, /**< the gcoo_dist command only */
  GCOO_PARAM_DIRECT = 2   /**< code that still reads it itself, outside the registry */
} gcoo_param_scope;

/** What the registry says of one parameter. */
typedef struct gcoo_param_info {
  const char *name;             /**< "GCOO_..." */
  gcoo_param_type type;         /**< its value's type */
  gcoo_param_audience audience; /**< whom it is for */
  gcoo_param_scope scope;       /**< who reads it */
  const char *default_value;    /**< the default, as text ("" when the reader decides) */
  const char *doc;              /**< one line */
  int from_environment;         /**< 1 when this build reads it from the environment: every
                                   parameter but the library's developer ones in a build without
                                   GCOO_DEVELOPER (which keep their default unless set) */
} gcoo_param_info;

/** Number of parameters in the registry. Not collective. */
int gcoo_param_count(void);

/** What the registry says of parameter `index` (0 .. gcoo_param_count() - 1). Not collective. */
gcoo_status gcoo_param_info_get(int index, gcoo_param_info *info);

/** The value the library uses for parameter `name` (e.g. "GCOO_BACKEND"), as text: the one set
 *  with gcoo_param_set, else the environment's (read once, at the first use), else the default.
 *  The text stays valid until the parameter is set again. GCOO_ERR_INVALID_ARG for a name the
 *  registry does not hold. Not collective. */
gcoo_status gcoo_param_get(const char *name, const char **value);

/** The value of a BOOL or INT parameter as an integer (a BOOL is 0 or 1); GCOO_ERR_INVALID_ARG
 *  for another type or an unknown name. A value that does not parse as its type is left for the
 *  default (and logged at WARN). Not collective. */
gcoo_status gcoo_param_get_int(const char *name, int64_t *value);

/** Set parameter `name` to `value` (text, parsed as the parameter's type) for this process, in
 *  place of the environment; NULL goes back to the environment's value, or the default. For
 *  programs, tests and benchmarks; a developer parameter can be set this way in any build. Call
 *  it while no other thread uses gcoo. GCOO_ERR_INVALID_ARG for an unknown name or a value that
 *  does not parse. Not collective: every rank that should see the value sets it. */
gcoo_status gcoo_param_set(const char *name, const char *value);

#ifdef __cplusplus
}
#endif
#endif
