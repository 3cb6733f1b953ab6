/* SPDX-License-Identifier: MIT */
/* solver/pc.c: the preconditioner object of gcoo/pc.h: its type and options, set-up on the
 * solver's operator and application through the type's table (pc_jacobi.c, pc_amg.c,
 * pc_lu.c). */
#include <stdlib.h>
#include <string.h>

#include "solver_impl.h"

static const gcoo_pc_ops *ops_of(gcoo_pc_type type) {
  switch (type) {
    case GCOO_PC_NONE: return &gcoo__pc_none_ops;
    case GCOO_PC_JACOBI: return &gcoo__pc_jacobi_ops;
    case GCOO_PC_AMG: return &gcoo__pc_amg_ops;
    case GCOO_PC_LU: return &gcoo__pc_lu_ops;
    default: return NULL;
  }
}

gcoo_status gcoo__pc_create(gcoo_pc *out) {
  struct gcoo_pc_s *pc = NULL;
  GCOO_CALL(gcoo__calloc((void **)&pc, 1, sizeof *pc, "preconditioner"));
  pc->magic = GCOO_MAGIC_PC;
  pc->type = GCOO_PC_JACOBI;
  pc->ops = ops_of(pc->type);
  pc->amg = (gcoo_amg_options)GCOO_AMG_OPTIONS_INIT;
  *out = pc;
  return GCOO_SUCCESS;
}

static void pc_release(gcoo_pc pc) {
  if (pc->ops && pc->ops->destroy) pc->ops->destroy(pc);
  pc->data = NULL;
  pc->built = 0;
}

void gcoo__pc_destroy(gcoo_pc *pc) {
  if (!pc || !*pc) return;
  pc_release(*pc);
  gcoo_dense_destroy(&(*pc)->nullspace);
  gcoo_dense_destroy(&(*pc)->coords);
  (*pc)->magic = GCOO_MAGIC_FREED;
  free(*pc);
  *pc = NULL;
}

gcoo_status gcoo_pc_set_type(gcoo_pc pc, gcoo_pc_type type) {
  GCOO_VALID_OBJECT(pc, GCOO_MAGIC_PC, "preconditioner");
  const gcoo_pc_ops *ops = ops_of(type);
  GCOO_CHECK(ops != NULL, GCOO_ERR_INVALID_ARG, "unknown preconditioner %d", (int)type);
  if (type == pc->type) return GCOO_SUCCESS;
  pc_release(pc);
  pc->type = type;
  pc->ops = ops;
  pc->same_pattern = 0;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_pc_get_type(gcoo_pc pc, gcoo_pc_type *type) {
  GCOO_VALID_OBJECT(pc, GCOO_MAGIC_PC, "preconditioner");
  GCOO_CHECK(type != NULL, GCOO_ERR_NULL, "type is NULL");
  *type = pc->type;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__amg_options_check(const gcoo_amg_options *o) {
  GCOO_CHECK(o->theta >= 0.0 && o->theta < 1.0, GCOO_ERR_INVALID_ARG,
             "AMG theta = %g: the strength threshold is in [0, 1)", o->theta);
  GCOO_CHECK(o->smoother == GCOO_AMG_CHEBYSHEV || o->smoother == GCOO_AMG_L1_JACOBI,
             GCOO_ERR_INVALID_ARG, "unknown AMG smoother %d", (int)o->smoother);
  GCOO_CHECK(o->degree >= 1 && o->degree <= 8, GCOO_ERR_INVALID_ARG,
             "AMG smoother degree %d: 1 .. 8", o->degree);
  GCOO_CHECK(o->pre_sweeps >= 0 && o->pre_sweeps <= 16 && o->post_sweeps >= 0 &&
                 o->post_sweeps <= 16 && o->pre_sweeps + o->post_sweeps > 0,
             GCOO_ERR_INVALID_ARG, "AMG sweeps %d + %d: each 0 .. 16, at least one in all",
             o->pre_sweeps, o->post_sweeps);
  GCOO_CHECK(o->cycle == GCOO_AMG_V_CYCLE || o->cycle == GCOO_AMG_W_CYCLE, GCOO_ERR_INVALID_ARG,
             "unknown AMG cycle %d", (int)o->cycle);
  GCOO_CHECK(o->coarse_size >= 1, GCOO_ERR_INVALID_ARG, "AMG coarse size %lld must be >= 1",
             (long long)o->coarse_size);
  GCOO_CHECK(o->max_levels >= 1 && o->max_levels <= 32, GCOO_ERR_INVALID_ARG,
             "AMG max levels %d: 1 .. 32", o->max_levels);
  GCOO_CHECK(o->prolongator_damping >= 0.0 && o->prolongator_damping < 2.0, GCOO_ERR_INVALID_ARG,
             "AMG prolongator damping %g: [0, 2)", o->prolongator_damping);
  GCOO_CHECK(o->cheby_lower > 0.0 && o->cheby_lower < o->cheby_upper && o->cheby_upper <= 4.0,
             GCOO_ERR_INVALID_ARG, "Chebyshev interval [%g, %g] x rho: 0 < lower < upper <= 4",
             o->cheby_lower, o->cheby_upper);
  GCOO_CHECK(o->min_rows_per_rank >= 0, GCOO_ERR_INVALID_ARG, "AMG rows per rank %lld must be >= 0",
             (long long)o->min_rows_per_rank);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_pc_set_amg_options(gcoo_pc pc, const gcoo_amg_options *opts) {
  GCOO_VALID_OBJECT(pc, GCOO_MAGIC_PC, "preconditioner");
  gcoo_amg_options o = GCOO_AMG_OPTIONS_INIT;
  GCOO_CALL(gcoo__options_read(opts, &o, sizeof o, "GCOO_AMG_OPTIONS_INIT"));
  GCOO_CALL(gcoo__amg_options_check(&o));
  pc->amg = o;
  if (pc->type == GCOO_PC_AMG) pc_release(pc); /* the hierarchy depends on them */
  return GCOO_SUCCESS;
}

gcoo_status gcoo_pc_get_amg_options(gcoo_pc pc, gcoo_amg_options *opts) {
  GCOO_VALID_OBJECT(pc, GCOO_MAGIC_PC, "preconditioner");
  GCOO_CHECK(opts != NULL, GCOO_ERR_NULL, "options is NULL");
  *opts = pc->amg;
  return GCOO_SUCCESS;
}

/* A host copy of a caller's row-major block. */
static gcoo_status copy_host_block(const gcoo_dense *src, gcoo_dense *dst, const char *what) {
  GCOO_CALL(gcoo_dense_check(src));
  GCOO_CHECK(src->mem == GCOO_MEM_HOST && src->layout == GCOO_ROW_MAJOR, GCOO_ERR_INVALID_ARG,
             "the %s must be a row-major block in host memory", what);
  gcoo_dense c;
  GCOO_CALL(gcoo_dense_create(&c, GCOO_FLOAT64, GCOO_ROW_MAJOR, src->nrows, src->ncols));
  for (int64_t i = 0; i < src->nrows; i++)
    for (int64_t j = 0; j < src->ncols; j++) gcoo_dense_set(&c, i, j, gcoo_dense_get(src, i, j));
  gcoo_dense_destroy(dst);
  *dst = c;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_pc_set_near_nullspace(gcoo_pc pc, const gcoo_dense *B) {
  GCOO_VALID_OBJECT(pc, GCOO_MAGIC_PC, "preconditioner");
  if (!B) {
    gcoo_dense_destroy(&pc->nullspace);
  } else {
    GCOO_CHECK(B->ncols >= 1 && B->ncols <= 32, GCOO_ERR_INVALID_ARG,
               "a near-null space of %lld vectors: 1 .. 32", (long long)B->ncols);
    GCOO_CALL(copy_host_block(B, &pc->nullspace, "near-null space"));
  }
  if (pc->type == GCOO_PC_AMG) pc_release(pc);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_pc_set_coordinates(gcoo_pc pc, const gcoo_dense *XYZ, int block_size) {
  GCOO_VALID_OBJECT(pc, GCOO_MAGIC_PC, "preconditioner");
  GCOO_CHECK(XYZ != NULL, GCOO_ERR_NULL, "coordinates are NULL");
  GCOO_CHECK(XYZ->ncols == 2 || XYZ->ncols == 3, GCOO_ERR_INVALID_ARG,
             "coordinates of dimension %lld: 2 or 3", (long long)XYZ->ncols);
  GCOO_CHECK(block_size == XYZ->ncols, GCOO_ERR_INVALID_ARG,
             "block size %d with %lld-D coordinates: rigid-body modes need one unknown per "
             "dimension at each node",
             block_size, (long long)XYZ->ncols);
  GCOO_CALL(copy_host_block(XYZ, &pc->coords, "coordinates"));
  pc->block_size = block_size;
  if (pc->type == GCOO_PC_AMG) pc_release(pc);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_pc_set_lu_input(gcoo_pc pc, gcoo_lu_input input) {
  GCOO_VALID_OBJECT(pc, GCOO_MAGIC_PC, "preconditioner");
  GCOO_CHECK(input >= GCOO_LU_INPUT_AUTO && input <= GCOO_LU_INPUT_DISTRIBUTED,
             GCOO_ERR_INVALID_ARG, "unknown LU input %d (auto, central or distributed)",
             (int)input);
  if (input != pc->lu_input && pc->type == GCOO_PC_LU) pc_release(pc); /* analysed otherwise */
  pc->lu_input = input;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_pc_get_amg_info(gcoo_pc pc, gcoo_amg_info *info) {
  GCOO_VALID_OBJECT(pc, GCOO_MAGIC_PC, "preconditioner");
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  GCOO_CHECK(pc->type == GCOO_PC_AMG && pc->built, GCOO_ERR_INVALID_ARG,
             "the preconditioner is %s%s: no AMG hierarchy to report", gcoo_pc_type_name(pc->type),
             pc->built ? "" : " (not set up)");
  GCOO_CALL(gcoo__amg_info(pc, info));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__pc_setup(gcoo_pc pc, gcoo_dist_op A) {
  if (pc->type == GCOO_PC_AMG) GCOO_CALL(gcoo__amg_options_check(&pc->amg));
  if (pc->built && !pc->stale && pc->A == A) return GCOO_SUCCESS;
  const double t0 = gcoo__wtime();
  if (!pc->same_pattern) pc_release(pc);
  pc->A = A;
  gcoo_status st = pc->ops->setup(pc);
  pc->same_pattern = 0;
  if (st < 0) {
    pc_release(pc);
    GCOO_CALL(st);
  }
  pc->built = 1;
  pc->stale = 0;
  pc->setup_seconds = gcoo__wtime() - t0;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__pc_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  GCOO_CHECK(pc->built, GCOO_ERR_INTERNAL, "preconditioner applied before its set-up");
  GCOO_CALL(pc->ops->apply(pc, R, Z));
  return GCOO_SUCCESS;
}
