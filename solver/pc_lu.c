/* SPDX-License-Identifier: MIT */
/* solver/pc_lu.c: a sparse direct solve as a preconditioner (not built yet: its set-up refuses
 * with GCOO_ERR_UNSUPPORTED). */
#include "solver_impl.h"

static gcoo_status lu_setup(gcoo_pc pc) {
  (void)pc;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                    "the LU preconditioner is not available in this build (it needs MUMPS)");
}

static gcoo_status lu_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  (void)pc;
  (void)R;
  (void)Z;
  return GCOO_ERROR(GCOO_ERR_INTERNAL, "LU applied without factors");
}

static void lu_destroy(gcoo_pc pc) { (void)pc; }

static void lu_describe(gcoo_pc pc, char *buf, size_t len) {
  (void)pc;
  snprintf(buf, len, "lu");
}

const gcoo_pc_ops gcoo__pc_lu_ops = {"lu", lu_setup, lu_apply, lu_destroy, lu_describe};
