/* SPDX-License-Identifier: MIT */
/* src/params.c: the parameter registry's one parser and cache (the declarations are
 * src/params_list.h). A parameter is read at its first use: from gcoo_param_set's value if one
 * was set, else from the environment (an empty variable counts as unset), else its default;
 * the value is parsed as the parameter's type once and kept. A value that does not parse leaves
 * the default in use and is logged at WARN (a mistyped switch must not silently measure another
 * code path without a word). The library's developer parameters are read from the environment
 * only in a build configured with -DGCOO_DEVELOPER=ON. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gcoo/config.h"
#include "backend_impl.h"
#include "params.h"

typedef struct param_decl {
  const char *name;
  gcoo_param_type type;
  gcoo_param_audience audience;
  gcoo_param_scope scope;
  const char *def;
  const char *doc;
} param_decl;

static const param_decl decls[GCOO__P_COUNT] = {
#define GCOO_PARAM(id, type, audience, scope, def, doc) \
  {"GCOO_" #id, GCOO_PARAM_##type, GCOO_PARAM_##audience, GCOO_PARAM_##scope, def, doc},
#include "params_list.h"
#undef GCOO_PARAM
};

/* A parsed value: the text in use and its reading as the parameter's type. */
typedef struct param_value {
  char *text;
  int64_t i;
  double d;
  int given; /* from gcoo_param_set or the environment, not the default */
} param_value;

static param_value values[GCOO__P_COUNT];
static atomic_int ready[GCOO__P_COUNT];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const type_names[] = {"a boolean (1/0, yes/no, true/false, on/off)",
                                         "an integer", "a number", "a string"};

/* Whether this build reads parameter p from the environment. */
static int from_environment(gcoo__param p) {
  return !(decls[p].audience == GCOO_PARAM_DEVELOPER && decls[p].scope == GCOO_PARAM_LIBRARY &&
           !GCOO_DEVELOPER);
}

/* Parse `text` as parameter p's type into *v (text copied); 0 when it does not parse. */
static int parse(gcoo__param p, const char *text, param_value *v) {
  memset(v, 0, sizeof *v);
  switch (decls[p].type) {
    case GCOO_PARAM_BOOL: {
      static const char *const yes[] = {"1", "yes", "true", "on"}, *const no[] = {"0", "no",
                                                                                  "false", "off"};
      int found = 0;
      for (int k = 0; k < 4 && !found; k++) {
        if (!strcasecmp(text, yes[k])) v->i = 1, found = 1;
        if (!strcasecmp(text, no[k])) v->i = 0, found = 1;
      }
      if (!found) return 0;
      v->d = (double)v->i;
      break;
    }
    case GCOO_PARAM_INT: {
      char *end = NULL;
      errno = 0;
      const long long x = strtoll(text, &end, 10);
      if (end == text || *end || errno == ERANGE) return 0;
      v->i = x;
      v->d = (double)x;
      break;
    }
    case GCOO_PARAM_NUMBER: {
      char *end = NULL;
      errno = 0;
      const double x = strtod(text, &end);
      if (end == text || *end || errno == ERANGE || !isfinite(x)) return 0;
      v->d = x;
      v->i = (int64_t)x;
      break;
    }
    case GCOO_PARAM_STRING: break;
  }
  v->text = strdup(text);
  return v->text != NULL;
}

/* Read parameter p (under the lock) unless it is ready; log a value that does not parse. */
static void load(gcoo__param p) {
  char bad[256] = "";
  pthread_mutex_lock(&lock);
  if (!atomic_load_explicit(&ready[p], memory_order_relaxed)) {
    const char *env = from_environment(p) ? getenv(decls[p].name) : NULL;
    param_value v;
    if (env && *env && parse(p, env, &v)) {
      v.given = 1;
    } else {
      if (env && *env) snprintf(bad, sizeof bad, "%s", env);
      if (!parse(p, decls[p].def, &v)) memset(&v, 0, sizeof v); /* t016 checks every default */
    }
    free(values[p].text);
    values[p] = v;
    atomic_store_explicit(&ready[p], 1, memory_order_release);
  }
  pthread_mutex_unlock(&lock);
  if (bad[0])
    gcoo__log(GCOO_LOG_WARN, "INIT", "%s=\"%s\" is not %s: the default \"%s\" stands",
              decls[p].name, bad, type_names[decls[p].type], decls[p].def);
}

static const param_value *get(gcoo__param p) {
  if (!atomic_load_explicit(&ready[p], memory_order_acquire)) load(p);
  return &values[p];
}

int gcoo__param_bool(gcoo__param p) { return get(p)->i != 0; }
int64_t gcoo__param_int(gcoo__param p) { return get(p)->i; }
double gcoo__param_number(gcoo__param p) { return get(p)->d; }
int gcoo__param_given(gcoo__param p) { return get(p)->given; }
const char *gcoo__param_str(gcoo__param p) {
  const char *t = get(p)->text;
  return t ? t : "";
}

/* ---- the public calls (gcoo/params.h) -------------------------------------------------------- */
static gcoo_status find(const char *name, gcoo__param *p) {
  GCOO_CHECK(name != NULL, GCOO_ERR_NULL, "parameter name is NULL");
  for (int k = 0; k < GCOO__P_COUNT; k++)
    if (!strcmp(decls[k].name, name)) {
      *p = (gcoo__param)k;
      return GCOO_SUCCESS;
    }
  return GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "%s is not a gcoo parameter (docs/parameters.md lists the %d there are)", name,
                    (int)GCOO__P_COUNT);
}

int gcoo_param_count(void) { return GCOO__P_COUNT; }

gcoo_status gcoo_param_info_get(int index, gcoo_param_info *info) {
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  GCOO_CHECK(index >= 0 && index < GCOO__P_COUNT, GCOO_ERR_INVALID_ARG,
             "parameter index %d outside 0..%d", index, (int)GCOO__P_COUNT - 1);
  const param_decl *d = &decls[index];
  info->name = d->name;
  info->type = d->type;
  info->audience = d->audience;
  info->scope = d->scope;
  info->default_value = d->def;
  info->doc = d->doc;
  info->from_environment = from_environment((gcoo__param)index);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_param_get(const char *name, const char **value) {
  gcoo__param p;
  GCOO_CHECK(value != NULL, GCOO_ERR_NULL, "value is NULL");
  GCOO_CALL(find(name, &p));
  *value = gcoo__param_str(p);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_param_get_int(const char *name, int64_t *value) {
  gcoo__param p;
  GCOO_CHECK(value != NULL, GCOO_ERR_NULL, "value is NULL");
  GCOO_CALL(find(name, &p));
  GCOO_CHECK(decls[p].type == GCOO_PARAM_BOOL || decls[p].type == GCOO_PARAM_INT,
             GCOO_ERR_INVALID_ARG, "%s holds %s, not an integer", name, type_names[decls[p].type]);
  *value = gcoo__param_int(p);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_param_set(const char *name, const char *value) {
  gcoo__param p;
  GCOO_CALL(find(name, &p));
  param_value v;
  memset(&v, 0, sizeof v);
  if (value) {
    GCOO_CHECK(parse(p, value, &v), GCOO_ERR_INVALID_ARG, "%s=\"%s\": want %s", name, value,
               type_names[decls[p].type]);
    v.given = 1;
  }
  pthread_mutex_lock(&lock);
  free(values[p].text);
  values[p] = v;
  atomic_store_explicit(&ready[p], value != NULL, memory_order_release);
  pthread_mutex_unlock(&lock);
  return GCOO_SUCCESS;
}
