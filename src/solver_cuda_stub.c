/* SPDX-License-Identifier: MIT */
/* src/solver_cuda_stub.c: stands in for the device-resident solver iterations
 * (kernels/solver/) in builds without CUDA. solver/ksp_bcg.c only takes the device path for
 * device operands, which such a build cannot make; these keep the link whole and the error clear. */
#include "backend_impl.h"

static gcoo_status not_compiled(void) {
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                    "the CUDA solver kernels are not compiled into this gcoo (rebuild with a CUDA "
                    "compiler and -DGCOO_ENABLE_CUDA=ON)");
}

gcoo_status gcoo__cuda_pcg(gcoo_ctx ctx, gcoo__pcg_device *p) {
  (void)ctx, (void)p;
  return not_compiled();
}
gcoo_status gcoo__cuda_bcg_create(gcoo_ctx ctx, gcoo_dtype dt, int64_t n, int64_t k, double rtol,
                                  double rank_tol, int64_t maxit, int history,
                                  gcoo__bcg_device **h) {
  (void)ctx, (void)dt, (void)n, (void)k, (void)rtol, (void)rank_tol, (void)maxit, (void)history;
  *h = NULL;
  return not_compiled();
}
void gcoo__cuda_bcg_destroy(gcoo__bcg_device *h) { (void)h; }
void *gcoo__cuda_bcg_red(gcoo__bcg_device *h) {
  (void)h;
  return NULL;
}
void *gcoo__cuda_bcg_coef(gcoo__bcg_device *h, int which) {
  (void)h, (void)which;
  return NULL;
}
gcoo_status gcoo__cuda_bcg_step(gcoo__bcg_device *h, gcoo__bcg_step step) {
  (void)h, (void)step;
  return not_compiled();
}
gcoo_status gcoo__cuda_bcg_precond_norms(gcoo__bcg_device *h, const gcoo_dense *dinv,
                                         const gcoo_dense *R, gcoo_dense *W) {
  (void)h, (void)dinv, (void)R, (void)W;
  return not_compiled();
}
gcoo_status gcoo__cuda_bcg_mark(gcoo__bcg_device *h, int64_t it, int phase) {
  (void)h, (void)it, (void)phase;
  return not_compiled();
}
gcoo_status gcoo__cuda_bcg_post(gcoo__bcg_device *h, int64_t it) {
  (void)h, (void)it;
  return not_compiled();
}
gcoo_status gcoo__cuda_bcg_wait(gcoo__bcg_device *h, int64_t it, int *done) {
  (void)h, (void)it;
  *done = 1;
  return not_compiled();
}
gcoo_status gcoo__cuda_bcg_result(gcoo__bcg_device *h, gcoo__bcg_outcome *o) {
  (void)h, (void)o;
  return not_compiled();
}
int gcoo__cuda_bcg_wform(const gcoo__bcg_device *h) {
  (void)h;
  return 0;
}
gcoo_status gcoo__cuda_bcg_transform(gcoo__bcg_device *h, gcoo_dense *W) {
  (void)h, (void)W;
  return not_compiled();
}
int gcoo__cuda_bcg_fused(const gcoo__bcg_device *h) {
  (void)h;
  return 0;
}
gcoo_status gcoo__cuda_bcg_gram2(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                                 const gcoo_dense *R) {
  (void)h, (void)P, (void)Q, (void)R;
  return not_compiled();
}
gcoo_status gcoo__cuda_bcg_update(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                                  gcoo_dense *X, gcoo_dense *R, const gcoo_dense *dinv,
                                  gcoo_dense *W) {
  (void)h, (void)P, (void)Q, (void)X, (void)R, (void)dinv, (void)W;
  return not_compiled();
}
gcoo_status gcoo__cuda_bcg_direction(gcoo__bcg_device *h, const gcoo_dense *P, gcoo_dense *W) {
  (void)h, (void)P, (void)W;
  return not_compiled();
}
gcoo_status gcoo__cuda_inverse_diagonal(gcoo_op A, void *dinv, int64_t *bad_row,
                                        double *bad_value) {
  (void)A, (void)dinv, (void)bad_value;
  *bad_row = -1;
  return not_compiled();
}
