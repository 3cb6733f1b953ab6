/* SPDX-License-Identifier: MIT */
/* solver/ksp_options.c: the names of methods, preconditioners and reasons, and the options
 * string of gcoo_ksp_set_from_string ("-ksp_type gmres -pc_type amg -pc_amg_theta 0.05"). The
 * string is parsed into copies of the solver's options, checked whole, and only then taken:
 * a bad name or value changes nothing. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver_impl.h"

static const char *ksp_names[] = {"cg", "pipecg", "gmres", "fgmres", "bicgstab", "preonly"};
static const char *pc_names[] = {"none", "jacobi", "amg", "lu"};

const char *gcoo_ksp_type_name(gcoo_ksp_type type) {
  return gcoo__name_of(ksp_names, GCOO_COUNT_OF(ksp_names), (int)type);
}

int gcoo_ksp_type_from_name(const char *name) {
  return gcoo__index_of(ksp_names, GCOO_COUNT_OF(ksp_names), name);
}

const char *gcoo_pc_type_name(gcoo_pc_type type) {
  return gcoo__name_of(pc_names, GCOO_COUNT_OF(pc_names), (int)type);
}

int gcoo_pc_type_from_name(const char *name) {
  return gcoo__index_of(pc_names, GCOO_COUNT_OF(pc_names), name);
}

const char *gcoo_ksp_reason_name(gcoo_ksp_reason reason) {
  switch (reason) {
    case GCOO_KSP_ITERATING: return "iterating";
    case GCOO_KSP_CONVERGED_RTOL: return "converged_rtol";
    case GCOO_KSP_CONVERGED_ATOL: return "converged_atol";
    case GCOO_KSP_CONVERGED_PREONLY: return "converged_preonly";
    case GCOO_KSP_DIVERGED_ITS: return "diverged_its";
    case GCOO_KSP_DIVERGED_DTOL: return "diverged_dtol";
    case GCOO_KSP_DIVERGED_BREAKDOWN: return "diverged_breakdown";
    case GCOO_KSP_DIVERGED_INDEFINITE: return "diverged_indefinite";
    case GCOO_KSP_DIVERGED_NANORINF: return "diverged_nanorinf";
    case GCOO_KSP_DIVERGED_STAGNATION: return "diverged_stagnation";
  }
  return "unknown";
}

/* ---- the string ----------------------------------------------------------------------------- */
typedef struct parsed {
  gcoo_ksp_options o;
  gcoo_pc_type pc;
  gcoo_amg_options amg;
  gcoo_lu_input lu_input;
} parsed;

static gcoo_status real_value(const char *name, const char *v, double lo, double hi, double *out) {
  char *end = NULL;
  errno = 0;
  double d = strtod(v, &end);
  GCOO_CHECK(end != v && *end == '\0' && errno == 0 && isfinite(d) && d >= lo && d <= hi,
             GCOO_ERR_INVALID_ARG, "option %s: '%s' is not a number in [%g, %g]", name, v, lo, hi);
  *out = d;
  return GCOO_SUCCESS;
}

static gcoo_status int_value(const char *name, const char *v, int64_t lo, int64_t hi,
                             int64_t *out) {
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  GCOO_CHECK(end != v && *end == '\0' && errno == 0 && x >= lo && x <= hi, GCOO_ERR_INVALID_ARG,
             "option %s: '%s' is not a whole number in [%lld, %lld]", name, v, (long long)lo,
             (long long)hi);
  *out = x;
  return GCOO_SUCCESS;
}

static gcoo_status bool_value(const char *name, const char *v, int *out) {
  if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes")) {
    *out = 1;
    return GCOO_SUCCESS;
  }
  if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no")) {
    *out = 0;
    return GCOO_SUCCESS;
  }
  return GCOO_ERROR(GCOO_ERR_INVALID_ARG, "option %s: '%s' is not 0/1, true/false or yes/no", name,
                    v);
}

static gcoo_status choice_value(const char *name, const char *v, const char *const *names, int n,
                                int *out) {
  for (int i = 0; i < n; i++)
    if (!strcmp(v, names[i])) {
      *out = i;
      return GCOO_SUCCESS;
    }
  char list[256] = "";
  for (int i = 0; i < n; i++) {
    strncat(list, names[i], sizeof list - strlen(list) - 1);
    if (i + 1 < n) strncat(list, ", ", sizeof list - strlen(list) - 1);
  }
  return GCOO_ERROR(GCOO_ERR_INVALID_ARG, "option %s: '%s' is not one of %s", name, v, list);
}

static gcoo_status set_one(parsed *p, const char *name, const char *v) {
  int64_t i;
  int c;
  double d;
  static const char *const smoothers[] = {"chebyshev", "jacobi"};
  static const char *const cycles[] = {"v", "w"};
  if (!strcmp(name, "-ksp_type")) {
    GCOO_CALL(choice_value(name, v, ksp_names, GCOO_COUNT_OF(ksp_names), &c));
    p->o.type = (gcoo_ksp_type)c;
  } else if (!strcmp(name, "-ksp_rtol")) {
    GCOO_CALL(real_value(name, v, 0.0, 1.0, &p->o.rtol));
  } else if (!strcmp(name, "-ksp_atol")) {
    GCOO_CALL(real_value(name, v, 0.0, 1e300, &p->o.atol));
  } else if (!strcmp(name, "-ksp_dtol") || !strcmp(name, "-ksp_divtol")) {
    GCOO_CALL(real_value(name, v, 1.0, 1e300, &p->o.dtol));
  } else if (!strcmp(name, "-ksp_max_it")) {
    GCOO_CALL(int_value(name, v, 0, INT64_MAX / 2, &p->o.maxit));
  } else if (!strcmp(name, "-ksp_gmres_restart")) {
    GCOO_CALL(int_value(name, v, 1, GCOO_GMRES_MAX_M, &i));
    p->o.restart = (int)i;
  } else if (!strcmp(name, "-ksp_gmres_cgs_refinement_type")) {
    static const char *const refine[] = {"refine_ifneeded", "refine_always"};
    GCOO_CALL(choice_value(name, v, refine, 2, &c));
    p->o.cgs_refinement = c;
  } else if (!strcmp(name, "-ksp_cg_block")) {
    GCOO_CALL(bool_value(name, v, &p->o.block));
  } else if (!strcmp(name, "-ksp_initial_guess_nonzero")) {
    GCOO_CALL(bool_value(name, v, &p->o.initial_guess_nonzero));
  } else if (!strcmp(name, "-pc_type")) {
    GCOO_CALL(choice_value(name, v, pc_names, GCOO_COUNT_OF(pc_names), &c));
    p->pc = (gcoo_pc_type)c;
  } else if (!strcmp(name, "-pc_amg_theta")) {
    GCOO_CALL(real_value(name, v, 0.0, 1.0, &p->amg.theta));
  } else if (!strcmp(name, "-pc_amg_smoother")) {
    GCOO_CALL(choice_value(name, v, smoothers, 2, &c));
    p->amg.smoother = c == 0 ? GCOO_AMG_CHEBYSHEV : GCOO_AMG_L1_JACOBI;
  } else if (!strcmp(name, "-pc_amg_degree")) {
    GCOO_CALL(int_value(name, v, 1, 8, &i));
    p->amg.degree = (int)i;
  } else if (!strcmp(name, "-pc_amg_sweeps")) {
    GCOO_CALL(int_value(name, v, 1, 16, &i));
    p->amg.pre_sweeps = p->amg.post_sweeps = (int)i;
  } else if (!strcmp(name, "-pc_amg_pre_sweeps")) {
    GCOO_CALL(int_value(name, v, 0, 16, &i));
    p->amg.pre_sweeps = (int)i;
  } else if (!strcmp(name, "-pc_amg_post_sweeps")) {
    GCOO_CALL(int_value(name, v, 0, 16, &i));
    p->amg.post_sweeps = (int)i;
  } else if (!strcmp(name, "-pc_amg_cycle")) {
    GCOO_CALL(choice_value(name, v, cycles, 2, &c));
    p->amg.cycle = c == 0 ? GCOO_AMG_V_CYCLE : GCOO_AMG_W_CYCLE;
  } else if (!strcmp(name, "-pc_amg_coarse_size")) {
    GCOO_CALL(int_value(name, v, 1, INT64_MAX / 2, &p->amg.coarse_size));
  } else if (!strcmp(name, "-pc_amg_max_levels")) {
    GCOO_CALL(int_value(name, v, 1, 32, &i));
    p->amg.max_levels = (int)i;
  } else if (!strcmp(name, "-pc_amg_damping")) {
    GCOO_CALL(real_value(name, v, 0.0, 2.0, &d));
    p->amg.prolongator_damping = d;
  } else if (!strcmp(name, "-pc_lu_input")) {
    static const char *const inputs[] = {"auto", "central", "distributed"};
    GCOO_CALL(choice_value(name, v, inputs, 3, &c));
    p->lu_input = (gcoo_lu_input)c;
  } else if (!strcmp(name, "-pc_amg_min_rows_per_rank")) {
    GCOO_CALL(int_value(name, v, 0, INT64_MAX / 2, &p->amg.min_rows_per_rank));
  } else {
    return GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                      "unknown option %s (the -ksp_ and -pc_ names are listed in gcoo/ksp.h)",
                      name);
  }
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ksp_set_from_string(gcoo_ksp ksp, const char *options) {
  GCOO_VALID_OBJECT(ksp, GCOO_MAGIC_KSP, "solver");
  GCOO_CHECK(options != NULL, GCOO_ERR_NULL, "options string is NULL");
  gcoo_status st = GCOO_SUCCESS;
  parsed p = {ksp->o, ksp->pc->type, ksp->pc->amg, ksp->pc->lu_input};
  char *copy = NULL;
  const size_t len = strlen(options);
  GCOO_CALL(gcoo__malloc((void **)&copy, len + 1, "options string"));
  memcpy(copy, options, len + 1);
  char *save = NULL, *name = strtok_r(copy, " \t\r\n", &save);
  while (name) {
    GCOO_CHECK_GOTO(name[0] == '-' && name[1] != '\0', GCOO_ERR_INVALID_ARG,
                    "'%s' in the options string is not an option name (-ksp_..., -pc_...)", name);
    char *value = strtok_r(NULL, " \t\r\n", &save);
    GCOO_CHECK_GOTO(value != NULL, GCOO_ERR_INVALID_ARG, "option %s has no value", name);
    GCOO_GOTO(set_one(&p, name, value));
    name = strtok_r(NULL, " \t\r\n", &save);
  }
  /* checked whole before anything is taken */
  GCOO_GOTO(gcoo__ksp_options_check(&p.o));
  GCOO_GOTO(gcoo__amg_options_check(&p.amg));
  GCOO_GOTO(gcoo_ksp_set_options(ksp, &p.o));
  if (memcmp(&p.amg, &ksp->pc->amg, sizeof p.amg))
    GCOO_GOTO(gcoo_pc_set_amg_options(ksp->pc, &p.amg));
  GCOO_GOTO(gcoo_pc_set_type(ksp->pc, p.pc));
  GCOO_GOTO(gcoo_pc_set_lu_input(ksp->pc, p.lu_input));
done:
  free(copy);
  return st;
}
