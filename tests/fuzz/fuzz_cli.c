/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_cli.c: harness "cli": option parsing of gcoo_dist (cli/cli.c) on argument
 * vectors made from arbitrary bytes (arguments separated by NUL bytes, at most 64), against a
 * command with options of every kind: flags, options with and without defaults, integer and
 * real values in several ranges; then the JSON writer on the values that came through.
 * Invariants besides "no crash, no undefined behaviour":
 *   - cli_parse returns -1, 0 or 1; after 0, a flag that was given reads "1", an option that
 *     was not given reads its default, a given option's value is one of the arguments (or the
 *     part after '=' of one);
 *   - cli_int and cli_real accept only values inside the range asked, and finite reals;
 *   - every string written by the JSON writer is well-formed JSON (quotes and control
 *     characters escaped).
 * MPI is not initialised: cli.c then acts as rank 0 of 1, which is what a fuzz process is. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "fuzz_common.h"

enum { MAX_ARGS = 64 };

static cli_option options[] = {{"a", "PATH", NULL, "a path", NULL, false},
                               {"n", "N", "10", "an integer", NULL, false},
                               {"count", "N", NULL, "an integer without a default", NULL, false},
                               {"x", "X", "0.5", "a real in [0, 1]", NULL, false},
                               {"name", "NAME", "auto", "a word", NULL, false},
                               {"check", NULL, NULL, "a flag", NULL, false},
                               {"json", NULL, NULL, "another flag", NULL, false},
                               {"n-rows", "R", "1e3", "an integer written as a real", NULL, false},
                               {NULL, NULL, NULL, NULL, NULL, false}};

static int dummy_run(int argc, char **argv, cli_command *cmd) {
  (void)argc, (void)argv, (void)cmd;
  return 0;
}

static cli_command command = {"fuzz",   "a command with options of every kind", NULL, NULL, options,
                              dummy_run};

static FILE *devnull(void) {
  static FILE *f = NULL;
  if (!f) f = fopen("/dev/null", "w");
  FUZZ_ASSERT(f != NULL, "cannot open /dev/null");
  return f;
}

/* The value must be one of the arguments, or what follows the first '=' of one. */
static int from_argv(const char *v, int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    size_t n = strlen(argv[i]);
    if (v >= argv[i] && v <= argv[i] + n) return v == argv[i] || v[-1] == '=';
  }
  return 0;
}

/* A JSON string literal ("...", escapes only as the writer makes them), from *p; advances *p. */
static int json_string_ok(const char **p) {
  const char *s = *p;
  if (*s++ != '"') return 0;
  while (*s && *s != '"') {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20) return 0;
    if (c == '\\') {
      s++;
      if (*s == '"' || *s == '\\') {
        s++;
      } else if (*s == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i]) return 0;
        s += 5;
      } else {
        return 0;
      }
      continue;
    }
    s++;
  }
  if (*s != '"') return 0;
  *p = s + 1;
  return 1;
}

static void check_json(void) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  FUZZ_ASSERT(f != NULL, "open_memstream");
  cli_json j;
  cli_json_begin(&j, f);
  for (cli_option *o = options; o->name; o++) cli_json_str(&j, o->name, o->value ? o->value : "");
  cli_json_object(&j, "flags");
  cli_json_bool(&j, "check", cli_flag(&command, "check"));
  cli_json_end(&j);
  cli_json_end(&j);
  fclose(f);
  /* {"k":"v",...,"flags":{"check":b}}\n */
  const char *p = text;
  FUZZ_ASSERT(*p == '{', "JSON does not start with {: %s", text);
  p++;
  for (cli_option *o = options; o->name; o++) {
    FUZZ_ASSERT(json_string_ok(&p), "bad JSON key before \"%s\": %s", o->name, text);
    FUZZ_ASSERT(*p == ':', "no ':' after a key: %s", text);
    p++;
    FUZZ_ASSERT(json_string_ok(&p), "bad JSON string for --%s: %s", o->name, text);
    FUZZ_ASSERT(*p == ',', "no ',' after the value of --%s: %s", o->name, text);
    p++;
  }
  FUZZ_ASSERT(!strncmp(p, "\"flags\":{\"check\":", 17), "bad nested object: %s", text);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* argv: NUL-separated pieces of a NUL-terminated copy of the input */
  char *copy = malloc(size + 1);
  char *argv[MAX_ARGS + 1];
  int argc = 0;
  FUZZ_ASSERT(copy != NULL, "out of memory");
  if (size) memcpy(copy, data, size);
  copy[size] = '\0';
  for (size_t i = 0; i < size && argc < MAX_ARGS;) {
    argv[argc++] = copy + i;
    i += strlen(copy + i) + 1;
  }
  argv[argc] = NULL;

  /* cli_parse prints its complaints and --help on the standard streams: send them away */
  fflush(stdout);
  fflush(stderr);
  FILE *saved_out = stdout, *saved_err = stderr;
  stdout = stderr = devnull();
  int r = cli_parse(&command, argc, argv);
  if (r == 0) {
    for (cli_option *o = options; o->name; o++) {
      if (!o->given) {
        FUZZ_ASSERT(o->value == o->def, "--%s not given but reads \"%s\"", o->name,
                    o->value ? o->value : "(null)");
      } else if (!o->arg) {
        FUZZ_ASSERT(o->value && !strcmp(o->value, "1"), "flag --%s reads \"%s\"", o->name,
                    o->value ? o->value : "(null)");
      } else {
        FUZZ_ASSERT(o->value && from_argv(o->value, argc, argv),
                    "--%s reads a value that is not an argument", o->name);
      }
    }
    FUZZ_ASSERT(cli_get(&command, "no-such-option") == NULL, "an unknown option has a value");
    FUZZ_ASSERT(cli_flag(&command, "check") == options[5].given, "cli_flag disagrees");
    static const long long ranges[][2] = {{0, INT32_MAX},
                                          {-5, 5},
                                          {LLONG_MIN, LLONG_MAX},
                                          {1, 1},
                                          {0, 1000000}};
    static const char *int_names[] = {"n", "count", "n-rows", "a", "x"};
    for (size_t i = 0; i < sizeof int_names / sizeof int_names[0]; i++)
      for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
        long long v = 12345;
        if (cli_int(&command, int_names[i], ranges[k][0], ranges[k][1], &v))
          FUZZ_ASSERT(v >= ranges[k][0] && v <= ranges[k][1],
                      "cli_int --%s accepted %lld outside [%lld, %lld]", int_names[i], v,
                      ranges[k][0], ranges[k][1]);
      }
    static const double rranges[][2] = {{0.0, 1.0}, {-1e300, 1e300}, {1e-3, 1e-3}};
    static const char *real_names[] = {"x", "n", "name"};
    for (size_t i = 0; i < sizeof real_names / sizeof real_names[0]; i++)
      for (size_t k = 0; k < sizeof rranges / sizeof rranges[0]; k++) {
        double v = 0.25;
        if (cli_real(&command, real_names[i], rranges[k][0], rranges[k][1], &v))
          FUZZ_ASSERT(isfinite(v) && v >= rranges[k][0] && v <= rranges[k][1],
                      "cli_real --%s accepted %g outside [%g, %g]", real_names[i], v, rranges[k][0],
                      rranges[k][1]);
      }
    check_json();
  } else {
    FUZZ_ASSERT(r == 1 || r == -1, "cli_parse returned %d", r);
  }
  cli_print_help(&command, devnull());
  stdout = saved_out;
  stderr = saved_err;
  free(copy);
  return 0;
}
