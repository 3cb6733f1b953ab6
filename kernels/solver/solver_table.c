/* SPDX-License-Identifier: MIT */
/* kernels/solver/solver_table.c: the CUDA backend's gcoo_solver_ops, the one way the solver layer
 * reaches the device-resident iterations of pcg_cuda.cu, bcg_cuda.cu and bcg_fused_cuda.cu. */
#include "solver_cuda.h"

const gcoo_solver_ops gcoo__solver_cuda = {
    .inverse_diagonal = gcoo__cuda_inverse_diagonal,
    .pcg = gcoo__cuda_pcg,
    .bcg_create = gcoo__cuda_bcg_create,
    .bcg_destroy = gcoo__cuda_bcg_destroy,
    .bcg_red = gcoo__cuda_bcg_red,
    .bcg_coef = gcoo__cuda_bcg_coef,
    .bcg_step = gcoo__cuda_bcg_step,
    .bcg_wform = gcoo__cuda_bcg_wform,
    .bcg_transform = gcoo__cuda_bcg_transform,
    .bcg_precond_norms = gcoo__cuda_bcg_precond_norms,
    .bcg_fused = gcoo__cuda_bcg_fused,
    .bcg_gram2 = gcoo__cuda_bcg_gram2,
    .bcg_update = gcoo__cuda_bcg_update,
    .bcg_direction = gcoo__cuda_bcg_direction,
    .bcg_mark = gcoo__cuda_bcg_mark,
    .bcg_post = gcoo__cuda_bcg_post,
    .bcg_wait = gcoo__cuda_bcg_wait,
    .bcg_result = gcoo__cuda_bcg_result,
};
