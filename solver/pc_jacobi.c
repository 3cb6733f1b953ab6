/* SPDX-License-Identifier: MIT */
/* solver/pc_jacobi.c: the two simplest preconditioners: none (Z = R) and Jacobi (Z = D^{-1} R
 * with D = diag(A)). Jacobi's inverse diagonal lives on the host and, once device operands
 * come, on the device too. A zero or non-finite diagonal entry cannot be inverted and is refused
 * at set-up, naming the row; a negative one is kept (GMRES and BiCGStab take any sign; CG then
 * reports the indefinite preconditioner). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist_access.h"
#include "gcoo/blas.h"
#include "solver_impl.h"

/* d = A's diagonal on this rank's rows: from the local block's host copy, or, where the block
 * lives only on a device, from a host copy of the rank's rows. */
static gcoo_status diagonal(gcoo_dist_op A, int64_t row0, int64_t n, double *d) {
  if (gcoo__dist_op_diagonal(A, d) >= 0) return GCOO_SUCCESS;
  gcoo_clear_error();
  gcoo_sparse slab = NULL;
  gcoo_sparse_arrays a;
  gcoo_dist_op_info info;
  GCOO_CALL(gcoo_dist_op_get_info(A, &info));
  GCOO_CALL(gcoo_dist_op_get_local_matrix(A, &slab));
  gcoo_status st = gcoo_sparse_get_arrays(slab, &a);
  for (int64_t i = 0; st >= 0 && i < n; i++) {
    d[i] = 0.0;
    for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++)
      if (a.ind[e] == row0 + i)
        d[i] += info.local.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[e]
                                                 : ((const float *)a.values)[e];
  }
  gcoo_sparse_destroy(&slab);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

typedef struct jacobi {
  gcoo_dense dinv;     /* host, n x 1 */
  gcoo_dense dinv_dev; /* device copy, made at the first device application */
} jacobi;

static gcoo_status none_setup(gcoo_pc pc) {
  (void)pc;
  return GCOO_SUCCESS;
}

static gcoo_status none_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  GCOO_CALL(gcoo_ctx_dense_copy(gcoo_dist_ctx(gcoo_dist_op_get_dist(pc->A)), Z, R));
  return GCOO_SUCCESS;
}

static void none_destroy(gcoo_pc pc) { (void)pc; }

static void none_describe(gcoo_pc pc, char *buf, size_t len) {
  (void)pc;
  snprintf(buf, len, "none");
}

const gcoo_pc_ops gcoo__pc_none_ops = {"none", none_setup, none_apply, none_destroy, none_describe};

static gcoo_status jacobi_setup(gcoo_pc pc) {
  gcoo_status st = GCOO_SUCCESS;
  jacobi *J = pc->data;
  int64_t row0 = 0, n = 0, bad = -1;
  double badv = 0.0, *d = NULL;
  if (!J) {
    GCOO_CALL(gcoo__calloc((void **)&J, 1, sizeof *J, "Jacobi"));
    pc->data = J;
  }
  gcoo_dist dd = gcoo_dist_op_get_dist(pc->A);
  gcoo_dist_op_info info;
  st = gcoo_dist_op_get_info(pc->A, &info);
  if (st >= 0) st = gcoo_dist_op_get_row_range(pc->A, &row0, &n);
  gcoo_dense_destroy(&J->dinv);
  if (J->dinv_dev.data) gcoo_ctx_dense_destroy(gcoo_dist_ctx(dd), &J->dinv_dev);
  if (st >= 0) st = gcoo__malloc_n((void **)&d, n > 0 ? n : 1, sizeof *d, "diagonal");
  if (st >= 0) st = diagonal(pc->A, row0, n, d);
  if (st >= 0) st = gcoo_dense_create(&J->dinv, info.local.dtype, GCOO_ROW_MAJOR, n, 1);
  for (int64_t i = 0; st >= 0 && i < n; i++) {
    const double v = d[i];
    if ((v == 0.0 || !isfinite(v)) && bad < 0) {
      bad = row0 + i;
      badv = v;
    }
    gcoo_dense_set(&J->dinv, i, 0, v != 0.0 ? 1.0 / v : 0.0);
  }
  if (st >= 0 && bad >= 0)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "Jacobi needs a nonzero finite diagonal: A(%lld, %lld) = %g (use another "
                    "preconditioner: none, amg or lu)",
                    (long long)bad, (long long)bad, badv);
  free(d);
  GCOO_CALL(gcoo_dist_agree(dd, st));
  return GCOO_SUCCESS;
}

static gcoo_status jacobi_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  jacobi *J = pc->data;
  gcoo_ctx ctx = gcoo_dist_ctx(gcoo_dist_op_get_dist(pc->A));
  if (R->mem == GCOO_MEM_HOST) {
    GCOO_CALL(gcoo__vec_host.diag_scale(ctx, &J->dinv, R, Z));
    return GCOO_SUCCESS;
  }
  if (!J->dinv_dev.data) {
    GCOO_CALL(gcoo_ctx_dense_create(ctx, &J->dinv_dev, J->dinv.dtype, GCOO_ROW_MAJOR, J->dinv.nrows,
                                    1, GCOO_MEM_DEVICE));
    GCOO_CALL(gcoo_ctx_dense_copy(ctx, &J->dinv_dev, &J->dinv));
  }
  GCOO_CALL(gcoo_blas_dgmm(ctx, &J->dinv_dev, R, Z));
  return GCOO_SUCCESS;
}

static void jacobi_destroy(gcoo_pc pc) {
  jacobi *J = pc->data;
  if (!J) return;
  gcoo_dense_destroy(&J->dinv);
  if (J->dinv_dev.data && pc->A)
    gcoo_ctx_dense_destroy(gcoo_dist_ctx(gcoo_dist_op_get_dist(pc->A)), &J->dinv_dev);
  free(J);
  pc->data = NULL;
}

static void jacobi_describe(gcoo_pc pc, char *buf, size_t len) {
  (void)pc;
  snprintf(buf, len, "jacobi");
}

const gcoo_pc_ops gcoo__pc_jacobi_ops = {"jacobi", jacobi_setup, jacobi_apply, jacobi_destroy,
                                         jacobi_describe};

const gcoo_dense *gcoo__pc_jacobi_dinv(gcoo_pc pc) {
  if (pc->type != GCOO_PC_JACOBI || !pc->data || !pc->built) return NULL;
  return &((jacobi *)pc->data)->dinv;
}
