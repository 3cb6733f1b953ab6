/* SPDX-License-Identifier: MIT */
/* solver/bcg_compat.c: gcoo_dist_bcg_solve of gcoo/solver.h, a thin call of the solver object
 * (gcoo/ksp.h) with the cg method: block CG for k > 1, X as the initial guess. */
#include <stdlib.h>
#include <string.h>

#include "solver_impl.h"

void gcoo_bcg_result_free(gcoo_bcg_result *r) {
  if (!r) return;
  free(r->column_iterations);
  free(r->residual);
  free(r->true_residual);
  free(r->history);
  memset(r, 0, sizeof *r);
}

/* The block CG result from the solver's. */
static gcoo_status copy_result(const gcoo_ksp_result *k, const gcoo_bcg_stats *b,
                               gcoo_bcg_result *r) {
  r->k = k->k;
  r->iterations = k->iterations;
  r->converged = k->converged;
  GCOO_CALL(gcoo__malloc_n((void **)&r->column_iterations, k->k, sizeof(int64_t), "result"));
  GCOO_CALL(gcoo__malloc_n((void **)&r->residual, k->k, sizeof(double), "result"));
  GCOO_CALL(gcoo__malloc_n((void **)&r->true_residual, k->k, sizeof(double), "result"));
  for (int64_t j = 0; j < k->k; j++) {
    r->column_iterations[j] = k->column_reason[j] > 0 ? k->column_iterations[j] : -1;
    r->residual[j] = k->residual[j];
    r->true_residual[j] = k->true_residual[j];
  }
  r->min_block_rank = k->min_block_rank;
  r->t_total = k->t_total;
  r->t_setup = k->t_setup;
  r->t_iterate = k->t_solve;
  r->t_spmm = k->t_spmm;
  r->t_reduce = k->t_reduce;
  r->t_precond = k->t_pc;
  r->t_blas = b->t_blas;
  r->spmm_calls = k->spmm_calls;
  r->spmm_alg = b->spmm_alg;
  r->explicit_blocks = b->explicit_blocks;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dist_bcg_solve(gcoo_dist_op A, const gcoo_dense *B, gcoo_dense *X,
                                const gcoo_bcg_options *opts, gcoo_bcg_result *res) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_ksp ksp = NULL;
  gcoo_ksp_result kr;
  gcoo_bcg_stats stats = {0};
  memset(&kr, 0, sizeof kr);
  GCOO_CHECK(res != NULL, GCOO_ERR_NULL, "result is NULL");
  memset(res, 0, sizeof *res);
  gcoo_bcg_options o = GCOO_BCG_OPTIONS_INIT;
  if (opts) {
    GCOO_CHECK(opts->size >= sizeof(size_t) && opts->size <= sizeof o, GCOO_ERR_INVALID_ARG,
               "options.size = %zu: initialise options with GCOO_BCG_OPTIONS_INIT", opts->size);
    memcpy(&o, opts, opts->size);
  }
  gcoo_dist d = gcoo_dist_op_get_dist(A);
  GCOO_CHECK(d != NULL, GCOO_ERR_INVALID_OBJECT, "operator is not a live distributed operator");
  gcoo_status local = GCOO_SUCCESS;
  if (!(o.rtol > 0.0 && o.rtol < 1.0 && o.maxit >= 0 &&
        (o.pc == GCOO_PC_NONE || o.pc == GCOO_PC_JACOBI)))
    local = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "bad options: rtol %g, maxit %lld, pc %d", o.rtol,
                       (long long)o.maxit, (int)o.pc);
  GCOO_CALL(gcoo_dist_agree(d, local));
  GCOO_CALL(gcoo_ksp_create(&ksp, A));
  gcoo_ksp_options ko = GCOO_KSP_OPTIONS_INIT;
  ko.type = GCOO_KSP_CG;
  ko.rtol = o.rtol;
  ko.maxit = o.maxit;
  ko.block = 1;
  ko.initial_guess_nonzero = 1;
  ko.record_history = o.record_history;
  ko.monitor = o.monitor;
  ko.monitor_ctx = o.monitor_ctx;
  GCOO_GOTO(gcoo_ksp_set_options(ksp, &ko));
  GCOO_GOTO(gcoo_pc_set_type(ksp->pc, o.pc));
  st = gcoo__ksp_solve(ksp, B, X, &kr, &stats, o.rank_tol);
  if (st < 0) {
    gcoo__trace(__FILE__, __LINE__);
    goto done;
  }
  for (int64_t j = 0; j < kr.k; j++)
    GCOO_CHECK_GOTO(kr.column_reason[j] != GCOO_KSP_DIVERGED_INDEFINITE, GCOO_ERR_BREAKDOWN,
                    "p^T A p <= 0 at iteration %lld (column %lld): the matrix is not positive "
                    "definite (is the operator SPD?)",
                    (long long)kr.column_iterations[j], (long long)j);
  GCOO_GOTO(copy_result(&kr, &stats, res));
  if (kr.history) {
    res->history = kr.history;
    kr.history = NULL;
  }
  st = kr.converged ? GCOO_SUCCESS : GCOO_INFO_NOT_CONVERGED;
done:
  if (st < 0) gcoo_bcg_result_free(res);
  gcoo_ksp_result_free(&kr);
  gcoo_ksp_destroy(&ksp);
  return st;
}
