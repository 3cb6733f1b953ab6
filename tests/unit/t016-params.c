/* SPDX-License-Identifier: MIT */
/* tests/unit/t016-params.c: the parameter registry (src/params_list.h, gcoo/params.h): names
 * unique and well formed, every default parses as its type, at most 15 parameters the library
 * reads in a build without GCOO_DEVELOPER, developer parameters not read from the environment in
 * such a build, a value read once and kept (later changes of the environment ignored until
 * gcoo_param_set(name, NULL)), values set and refused, a value that does not parse leaving the
 * default, and docs/parameters.md's table equal to the registry.
 *
 *   t016-params              the checks (docs/parameters.md: GCOO_PARAMS_DOC, set by the build)
 *   t016-params --print      the table docs/parameters.md must hold, between its markers */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcoo_test.h"

#define BEGIN "<!-- parameters: begin (tests/unit/t016-params --print writes this table) -->"
#define END "<!-- parameters: end -->"
#define MAX_LIBRARY_PARAMS 15

static const char *type_name(gcoo_param_type t) {
  return t == GCOO_PARAM_BOOL     ? "bool"
         : t == GCOO_PARAM_INT    ? "int"
         : t == GCOO_PARAM_NUMBER ? "number"
                                  : "string";
}
static const char *audience_name(gcoo_param_audience a) {
  return a == GCOO_PARAM_USER ? "user" : a == GCOO_PARAM_OPERATIONS ? "operations" : "developer";
}
static const char *scope_name(gcoo_param_scope s) {
  return s == GCOO_PARAM_LIBRARY ? "library" : s == GCOO_PARAM_COMMAND ? "gcoo_dist" : "direct";
}

/* The table, one row a parameter, into buf (NUL-terminated). */
static void render(char *buf, size_t len) {
  size_t o = 0;
  o += (size_t)snprintf(buf + o, len - o,
                        "| variable | type | default | for | read by | what it does |\n"
                        "|---|---|---|---|---|---|\n");
  for (int i = 0; i < gcoo_param_count() && o < len; i++) {
    gcoo_param_info p;
    TEST_CALL(gcoo_param_info_get(i, &p));
    char def[96];
    if (p.default_value[0])
      snprintf(def, sizeof def, "`%s`", p.default_value);
    else
      snprintf(def, sizeof def, "(unset)");
    o += (size_t)snprintf(buf + o, len - o, "| `%s` | %s | %s | %s | %s | %s |\n", p.name,
                          type_name(p.type), def, audience_name(p.audience), scope_name(p.scope),
                          p.doc);
  }
}

static void check_declarations(void) {
  int library = 0;
  for (int i = 0; i < gcoo_param_count(); i++) {
    gcoo_param_info p;
    TEST_CALL(gcoo_param_info_get(i, &p));
    TEST_CHECK(!strncmp(p.name, "GCOO_", 5), "%s: not a GCOO_ name", p.name);
    for (const char *c = p.name; *c; c++)
      TEST_CHECK(isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_',
                 "%s: not upper case", p.name);
    for (int j = 0; j < i; j++) {
      gcoo_param_info q;
      TEST_CALL(gcoo_param_info_get(j, &q));
      TEST_CHECK(strcmp(p.name, q.name), "%s declared twice", p.name);
    }
    TEST_CHECK(p.doc && strlen(p.doc) > 10 && !strchr(p.doc, '|') && !strchr(p.doc, '\n'),
               "%s: the doc must be one line without '|'", p.name);
    /* the default parses as the parameter's type */
    if (p.default_value[0] && p.scope != GCOO_PARAM_DIRECT) {
      TEST_CALL(gcoo_param_set(p.name, p.default_value));
      TEST_CALL(gcoo_param_set(p.name, NULL));
    }
    TEST_CHECK(p.from_environment == !(p.audience == GCOO_PARAM_DEVELOPER &&
                                       p.scope == GCOO_PARAM_LIBRARY && !GCOO_DEVELOPER),
               "%s: from_environment %d", p.name, p.from_environment);
    library += p.scope == GCOO_PARAM_LIBRARY && p.audience != GCOO_PARAM_DEVELOPER;
  }
  TEST_CHECK(library <= MAX_LIBRARY_PARAMS,
             "the library reads %d environment variables in a build without GCOO_DEVELOPER "
             "(at most %d): make one a developer parameter or drop it",
             library, MAX_LIBRARY_PARAMS);
  gcoo_param_info p;
  TEST_FAILS(gcoo_param_info_get(gcoo_param_count(), &p), GCOO_ERR_INVALID_ARG, "outside");
}

static void check_values(void) {
  const char *s = NULL;
  int64_t v = 0;
  /* read once, at the first use, then kept */
  setenv("GCOO_H5_CHUNK_BYTES", "4096", 1);
  TEST_CALL(gcoo_param_get_int("GCOO_H5_CHUNK_BYTES", &v));
  TEST_CHECK(v == 4096, "GCOO_H5_CHUNK_BYTES from the environment: %lld", (long long)v);
  setenv("GCOO_H5_CHUNK_BYTES", "8192", 1);
  TEST_CALL(gcoo_param_get_int("GCOO_H5_CHUNK_BYTES", &v));
  TEST_CHECK(v == 4096, "a changed environment was read again: %lld", (long long)v);
  TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL)); /* back to the environment */
  TEST_CALL(gcoo_param_get_int("GCOO_H5_CHUNK_BYTES", &v));
  TEST_CHECK(v == 8192, "after gcoo_param_set(NULL): %lld", (long long)v);
  TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", "123"));
  TEST_CALL(gcoo_param_get("GCOO_H5_CHUNK_BYTES", &s));
  TEST_CHECK(!strcmp(s, "123"), "set: \"%s\"", s);
  TEST_FAILS(gcoo_param_set("GCOO_H5_CHUNK_BYTES", "12x"), GCOO_ERR_INVALID_ARG, "want an integer");
  TEST_CALL(gcoo_param_get_int("GCOO_H5_CHUNK_BYTES", &v));
  TEST_CHECK(v == 123, "a refused value changed it: %lld", (long long)v);
  unsetenv("GCOO_H5_CHUNK_BYTES");
  TEST_CALL(gcoo_param_set("GCOO_H5_CHUNK_BYTES", NULL));
  TEST_CALL(gcoo_param_get_int("GCOO_H5_CHUNK_BYTES", &v));
  TEST_CHECK(v == 67108864, "the default: %lld", (long long)v);

  /* a value that does not parse leaves the default */
  setenv("GCOO_NCCL_TIMEOUT", "soon", 1);
  TEST_CALL(gcoo_param_get("GCOO_NCCL_TIMEOUT", &s));
  TEST_CHECK(!strcmp(s, "300"), "GCOO_NCCL_TIMEOUT=soon: \"%s\" in use", s);
  unsetenv("GCOO_NCCL_TIMEOUT");
  /* an empty variable is unset */
  setenv("GCOO_ALLOW_TF32", "", 1);
  TEST_CALL(gcoo_param_get_int("GCOO_ALLOW_TF32", &v));
  TEST_CHECK(v == 0, "GCOO_ALLOW_TF32 empty: %lld", (long long)v);
  unsetenv("GCOO_ALLOW_TF32");

  /* booleans in every spelling */
  const char *yes[] = {"1", "yes", "TRUE", "On"}, *no[] = {"0", "No", "false", "OFF"};
  for (int k = 0; k < 4; k++) {
    TEST_CALL(gcoo_param_set("GCOO_NCCL", no[k]));
    TEST_CALL(gcoo_param_get_int("GCOO_NCCL", &v));
    TEST_CHECK(v == 0, "GCOO_NCCL=%s: %lld", no[k], (long long)v);
    TEST_CALL(gcoo_param_set("GCOO_NCCL", yes[k]));
    TEST_CALL(gcoo_param_get_int("GCOO_NCCL", &v));
    TEST_CHECK(v == 1, "GCOO_NCCL=%s: %lld", yes[k], (long long)v);
  }
  TEST_FAILS(gcoo_param_set("GCOO_NCCL", "maybe"), GCOO_ERR_INVALID_ARG, "want a boolean");
  TEST_CALL(gcoo_param_set("GCOO_NCCL", NULL));

  /* a developer parameter: from the environment only in a developer build; settable always */
  setenv("GCOO_AUTO_TRIAL", "0", 1);
  TEST_CALL(gcoo_param_get_int("GCOO_AUTO_TRIAL", &v));
  TEST_CHECK(v == (GCOO_DEVELOPER ? 0 : 1), "GCOO_AUTO_TRIAL=0 in a %s build: %lld",
             GCOO_DEVELOPER ? "developer" : "normal", (long long)v);
  unsetenv("GCOO_AUTO_TRIAL");
  TEST_CALL(gcoo_param_set("GCOO_AUTO_TRIAL", "0"));
  TEST_CALL(gcoo_param_get_int("GCOO_AUTO_TRIAL", &v));
  TEST_CHECK(v == 0, "GCOO_AUTO_TRIAL set to 0: %lld", (long long)v);
  TEST_CALL(gcoo_param_set("GCOO_AUTO_TRIAL", NULL));

  /* misuse */
  TEST_FAILS(gcoo_param_get("GCOO_NO_SUCH_THING", &s), GCOO_ERR_INVALID_ARG,
             "not a gcoo parameter");
  TEST_FAILS(gcoo_param_get_int("GCOO_BACKEND", &v), GCOO_ERR_INVALID_ARG, "not an integer");
  TEST_FAILS(gcoo_param_get(NULL, &s), GCOO_ERR_NULL, "name is NULL");
}

/* docs/parameters.md holds the registry's table between its markers. */
static void check_docs(const char *path) {
  static char want[1 << 16], have[1 << 17];
  render(want, sizeof want);
  FILE *f = fopen(path, "r");
  if (!f) {
    TEST_CHECK(0, "cannot open %s", path);
    return;
  }
  const size_t n = fread(have, 1, sizeof have - 1, f);
  fclose(f);
  have[n] = '\0';
  const char *b = strstr(have, BEGIN), *e = b ? strstr(b, END) : NULL;
  TEST_CHECK(b && e, "%s: no \"%s\" ... \"%s\" block", path, BEGIN, END);
  if (!b || !e) return;
  b += strlen(BEGIN);
  while (*b == '\n') b++;
  const size_t len = (size_t)(e - b);
  const int same = len == strlen(want) && !strncmp(b, want, len);
  TEST_CHECK(same,
             "%s does not hold the registry's table (src/params_list.h): replace the block "
             "between its markers with the output of `t016-params --print`:\n%s",
             path, want);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--print")) {
    static char table[1 << 16];
    render(table, sizeof table);
    fputs(table, stdout);
    return 0;
  }
  check_declarations();
  check_values();
  check_docs(GCOO_PARAMS_DOC);
  return gcoo_test_finish("t016-params");
}
