/* SPDX-License-Identifier: MIT */
/* src/backend_cpu.c: the CPU backend (OpenMP). The same GCOO structure as the GPU, so the
 * whole system, distributed runs included, can be run and tested on machines without GPUs. */
#include <stdio.h>

#include "backend_impl.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define GCOO_TEMPLATE "spdm_cpu_impl.h"
#include "gcoo/template.h"

/* CPU default group width GCOO_DEFAULT_P: wide enough that a group's rows of Y stay in L1/L2
 * while its entries stream through; the result does not depend on it. */

static gcoo_status cpu_ctx_init(gcoo_ctx ctx, int device) {
  (void)device;
  ctx->device = -1;
  ctx->stream = NULL;
  return GCOO_SUCCESS;
}

static gcoo_status cpu_ctx_fini(gcoo_ctx ctx) {
  (void)ctx;
  return GCOO_SUCCESS;
}

static gcoo_status cpu_ctx_describe(gcoo_ctx ctx, char *buf, size_t len) {
  (void)ctx;
#ifdef _OPENMP
  snprintf(buf, len, "CPU, %d OpenMP threads", omp_get_max_threads());
#else
  snprintf(buf, len, "CPU, 1 thread (no OpenMP)");
#endif
  return GCOO_SUCCESS;
}

static gcoo_status cpu_ctx_synchronize(gcoo_ctx ctx) {
  (void)ctx;
  return GCOO_SUCCESS;
}

static gcoo_status cpu_op_setup(gcoo_op op) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse At = NULL;
  switch (op->opts.alg) {
    case GCOO_ALG_AUTO:
    case GCOO_ALG_GCOO:
    case GCOO_ALG_GCOO_FAITHFUL:
      break;
    default:
      return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "algorithm %s needs the CUDA backend",
                        gcoo_spdm_alg_name(op->opts.alg));
  }
  op->info.alg = op->opts.alg == GCOO_ALG_GCOO_FAITHFUL ? GCOO_ALG_GCOO_FAITHFUL : GCOO_ALG_GCOO;
  op->info.p = op->opts.p                               ? op->opts.p
               : op->opts.alg == GCOO_ALG_GCOO_FAITHFUL ? GCOO_FAITHFUL_P
                                                        : GCOO_DEFAULT_P;
  /* GCOO of S = A^T: groups of p columns of A^T are groups of p rows of A */
  GCOO_GOTO(gcoo_sparse_transpose(&At, op->A_csr));
  GCOO_GOTO(gcoo_sparse_convert(&op->S, At, GCOO_FORMAT_GCOO, op->info.p));
done:
  gcoo_sparse_destroy(&At);
  return st;
}

static gcoo_status cpu_op_apply(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                                gcoo_dense *Y) {
  gcoo_gcoo_view S;
  GCOO_CHECK(X->mem == GCOO_MEM_HOST && Y->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG,
             "the CPU backend needs host operands");
  GCOO_CALL(gcoo__sparse_gcoo_view(op->S, &S));
  GCOO_DISPATCH(S.dtype, spdm_gcoo_cpu, &S, alpha, X, beta, Y);
  return GCOO_SUCCESS;
}

static gcoo_status cpu_op_destroy(gcoo_op op) {
  (void)op;
  return GCOO_SUCCESS;
}

const gcoo_backend_ops gcoo__backend_cpu = {
    .name = "cpu",
    .ctx_init = cpu_ctx_init,
    .ctx_fini = cpu_ctx_fini,
    .ctx_describe = cpu_ctx_describe,
    .ctx_synchronize = cpu_ctx_synchronize,
    .op_setup = cpu_op_setup,
    .op_apply = cpu_op_apply,
    .op_destroy = cpu_op_destroy,
};
