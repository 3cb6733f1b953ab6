/* SPDX-License-Identifier: MIT */
/* solver/pc_amg.c: smoothed aggregation AMG as a preconditioner (not built yet: its set-up
 * refuses with GCOO_ERR_UNSUPPORTED). */
#include "solver_impl.h"

static gcoo_status amg_setup(gcoo_pc pc) {
  (void)pc;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "the AMG preconditioner is not available in this build");
}

static gcoo_status amg_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  (void)pc;
  (void)R;
  (void)Z;
  return GCOO_ERROR(GCOO_ERR_INTERNAL, "AMG applied without a hierarchy");
}

static void amg_destroy(gcoo_pc pc) { (void)pc; }

static void amg_describe(gcoo_pc pc, char *buf, size_t len) {
  (void)pc;
  snprintf(buf, len, "amg");
}

const gcoo_pc_ops gcoo__pc_amg_ops = {"amg", amg_setup, amg_apply, amg_destroy, amg_describe};

gcoo_status gcoo__amg_info(gcoo_pc pc, gcoo_amg_info *info) {
  (void)pc;
  (void)info;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "no AMG hierarchy in this build");
}
