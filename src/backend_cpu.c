/* SPDX-License-Identifier: MIT */
/* src/backend_cpu.c: the CPU backend (OpenMP). The same GCOO structure as the GPU, so the
 * whole system, distributed runs included, can be run and tested on machines without GPUs. */
#include <stdio.h>

#include "backend_impl.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define GCOO_SPDM_INLINE __attribute__((always_inline))
#else
#define GCOO_SPDM_INLINE
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

/* CSR of A kept as the kernel's layout (converted from the GCOO of S when it came so). */
static gcoo_status cpu_csr_setup(gcoo_op op) {
  op->info.alg = GCOO_ALG_CSR;
  op->info.p = 0;
  if (!op->A_csr) {
    GCOO_CALL(gcoo__gcoo_to_csr_of_transpose(op->S, &op->A_csr));
    gcoo_sparse_destroy(&op->S);
  }
  return GCOO_SUCCESS;
}

/* AUTO on the CPU: CSR for narrow dense operands (ncols_hint <= GCOO_CPU_CSR_MAX_N, unknown
 * counting as narrow), where a row's sum in registers beats the GCOO kernel's scatter into Y's
 * rows; GCOO for wider ones, and whenever the caller chose a group width p. */
static int cpu_prefers_csr(gcoo_op op) {
  return op->opts.p == 0 && op->opts.ncols_hint <= GCOO_CPU_CSR_MAX_N;
}

/* The kernel's layout, the GCOO of S = A^T with groups of p rows of A, from what the operator
 * came with: taken as it is (a GCOO of S with groups of p), regrouped, or built in
 * place from the CSR of A (src/convert_frame.c), which is then gone. */
static gcoo_status cpu_op_setup(gcoo_op op) {
  switch (op->opts.alg) {
    case GCOO_ALG_AUTO:
    case GCOO_ALG_GCOO:
    case GCOO_ALG_GCOO_FAITHFUL: break;
    case GCOO_ALG_CSR: return cpu_csr_setup(op);
    default:
      return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "algorithm %s needs the CUDA backend",
                        gcoo_spdm_alg_name(op->opts.alg));
  }
  if (op->opts.alg == GCOO_ALG_AUTO && cpu_prefers_csr(op)) return cpu_csr_setup(op);
  const int faithful = op->opts.alg == GCOO_ALG_GCOO_FAITHFUL;
  gcoo_sparse_info si = {0};
  if (op->S) GCOO_CALL(gcoo_sparse_get_info(op->S, &si));
  op->info.alg = faithful ? GCOO_ALG_GCOO_FAITHFUL : GCOO_ALG_GCOO;
  /* the documented default when p is not given; a GCOO file's own groups reach here as an
   * explicit p (dist/dist_file.c), so they are used as they are */
  op->info.p = op->opts.p ? op->opts.p : faithful ? GCOO_FAITHFUL_P : GCOO_DEFAULT_P;
  if (op->S && si.p == op->info.p) return GCOO_SUCCESS;
  if (op->S) { /* another group width than the one given */
    GCOO_CALL(gcoo__gcoo_to_csr_of_transpose(op->S, &op->A_csr));
    gcoo_sparse_destroy(&op->S);
  }
  GCOO_CALL(gcoo__csr_to_gcoo_of_transpose(&op->A_csr, op->info.p, &op->S));
  return GCOO_SUCCESS;
}

static gcoo_status cpu_op_apply(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                                gcoo_dense *Y) {
  gcoo_grouped_view S;
  GCOO_CHECK(X->mem == GCOO_MEM_HOST && Y->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG,
             "the CPU backend needs host operands");
  if (op->info.alg == GCOO_ALG_CSR) {
    gcoo_csr_view A;
    GCOO_CALL(gcoo__sparse_csr_view(op->A_csr, &A));
    GCOO_DISPATCH(A.dtype, spdm_csr_cpu, &A, alpha, X, beta, Y);
    return GCOO_SUCCESS;
  }
  GCOO_CALL(gcoo__sparse_grouped_view(op->S, &S));
  GCOO_DISPATCH(S.dtype, spdm_gcoo_cpu, &S, alpha, X, beta, Y);
  return GCOO_SUCCESS;
}

static gcoo_status cpu_op_destroy(gcoo_op op) {
  (void)op;
  return GCOO_SUCCESS;
}

const gcoo_backend_ops gcoo__backend_cpu = {
    .name = "cpu",
    .setup_from_gcoo = 1,
    .ctx_init = cpu_ctx_init,
    .ctx_fini = cpu_ctx_fini,
    .ctx_describe = cpu_ctx_describe,
    .ctx_synchronize = cpu_ctx_synchronize,
    .op_setup = cpu_op_setup,
    .op_apply = cpu_op_apply,
    .op_destroy = cpu_op_destroy,
};
