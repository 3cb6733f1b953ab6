/* SPDX-License-Identifier: MIT */
/* kernels/spdm/dispatch.h: the rule GCOO_ALG_AUTO applies on the CUDA backend, and the choice of the
 * tuned kernel's group width p. Pure functions of the numbers below (no CUDA, no state), so
 * they are tested on any machine and refitted from one benchmark run; docs/dispatch.md explains
 * the rule and where each threshold comes from. */
#ifndef GCOO_DISPATCH_H
#define GCOO_DISPATCH_H

#include "backend_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the rule looks at. */
typedef struct gcoo_dispatch_in {
  gcoo_dtype dtype;
  int64_t m, k; /**< A is m x k */
  int64_t n;    /**< columns of X and Y (the hint; 0 = unknown) */
  int64_t nnz;
  int nlog;                /**< entries of distinct[] (0: no reuse statistics) */
  const int64_t *distinct; /**< distinct[i]: summed group column lists at p = 2^i */
  int allow_tf32;          /**< the user allows TF32 (GCOO_ALLOW_TF32=1) */
  int dense_fits;          /**< a dense copy of A fits in free device memory */
  int sm_count;            /**< multiprocessors of the device */
  int64_t max_row_nnz;     /**< longest row of A (0 = unknown) */
  int64_t resident_smem;   /**< shared memory one block may use (smem_per_block_optin), bytes:
                               what bounds the X-resident variant's tile (0 = never resident) */
} gcoo_dispatch_in;

/** What it decided. */
typedef struct gcoo_dispatch_out {
  gcoo_spdm_alg alg; /**< GCOO_ALG_GCOO, _CUSPARSE_CSR_ALG2/3, _DENSE or _DENSE_TF32 */
  int32_t p;         /**< group width for GCOO (also filled when another alg wins) */
  double reuse;      /**< nnz / distinct at that p (0 when unknown) */
  int resident;      /**< GCOO_ALG_GCOO through its X-resident variant */
  int rowsplit;      /**< GCOO_ALG_GCOO through its row-split variant */
  char why[256];     /**< one line: the numbers and the branch taken */
} gcoo_dispatch_out;

/** Dense width assumed when the operator is created without a hint. */
#define GCOO_DISPATCH_DEFAULT_N 128

/** The group width the tuned kernel uses (GCOO_DISPATCH_TUNED_P, the measured optimum), and
 *  *reuse = nnz / distinct columns at that width (0 without statistics). Returns 0 when there
 *  are no statistics. */
int32_t gcoo__dispatch_choose_p(const gcoo_dispatch_in *in, double *reuse);

/** 1 when the tuned kernel should read X directly (no shared-memory staging): low reuse and
 *  rows of even length; 0 when staging pays (reuse, or skewed rows). */
int gcoo__dispatch_tuned_direct(double reuse, double row_skew);

/** Group width of the tuned kernel: within 5 % of the best width on 16 of 18 inputs of the
 *  H200 sweep (random, stencils, Kronecker, real matrices; N = 32..14000). */
#define GCOO_DISPATCH_TUNED_P 32
/** AUTO's plan-time trial (kernels/spdm/op_trial.c) times the tuned kernel's own variants beside
 *  cuSPARSE only for rows less skewed than this (longest / mean row; the staged and direct
 *  kernels ran skewed rows at 0.08-0.13x); more skewed rows get its row-split variant timed
 *  instead where gcoo__dispatch_split says so (docs/dispatch.md). */
#define GCOO_DISPATCH_TRIAL_MAX_ROW_SKEW 5.0

/** 1 when the tuned kernel should run its X-resident variant (the rule's X-resident branch; also
 *  what a forced GCOO_ALG_GCOO without a p uses to pick its variant). */
int gcoo__dispatch_resident(const gcoo_dispatch_in *in);

/** 1 when the tuned kernel should run its row-split variant (long rows cut into pieces;
 *  also what a forced GCOO_ALG_GCOO without a p uses). */
int gcoo__dispatch_split(const gcoo_dispatch_in *in);

/** GCOO_ALG_AUTO's choice. */
void gcoo__dispatch(const gcoo_dispatch_in *in, gcoo_dispatch_out *out);

#ifdef __cplusplus
}
#endif
#endif
