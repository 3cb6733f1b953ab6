/* SPDX-License-Identifier: MIT */
/* tests/gpu/t304-dispatch.c: GCOO_ALG_AUTO's rule (kernels/dispatch.c) on synthetic inputs: its
 * branches in the documented order (docs/dispatch.md), TF32 only when allowed, dense only when
 * it fits, narrow N to cuSPARSE, reuse to the tuned kernel; and the group-width model: small p
 * for a grid that would not fill the device, large p for random matrices whose reuse grows with
 * p, no p beyond one pass. Pure functions: runs without a GPU. */
#include <math.h>
#include <string.h>

#include "dispatch.h"
#include "gpu_test_util.h"

/* distinct[i] of a uniform random m x k matrix with density d at p = 2^i (expected values). */
static void random_stats(int64_t m, int64_t k, double d, int64_t *distinct, int nlog) {
  for (int i = 0; i < nlog; i++) {
    const double p = (double)((int64_t)1 << i);
    const double groups = ceil((double)m / p);
    distinct[i] = (int64_t)(groups * (double)k * (1.0 - pow(1.0 - d, p)));
  }
}

static gcoo_dispatch_out decide(gcoo_dtype dt, int64_t m, int64_t k, int64_t n, double density,
                                int tf32, int fits, int64_t *distinct) {
  gcoo_dispatch_in in;
  memset(&in, 0, sizeof in);
  in.dtype = dt;
  in.m = m;
  in.k = k;
  in.n = n;
  in.nnz = (int64_t)(density * (double)m * (double)k);
  in.nlog = 11;
  random_stats(m, k, density, distinct, 11);
  in.distinct = distinct;
  in.allow_tf32 = tf32;
  in.dense_fits = fits;
  in.sm_count = 132;
  gcoo_dispatch_out out;
  gcoo__dispatch(&in, &out);
  printf("m %lld k %lld N %lld density %g tf32 %d fits %d -> %s p %d (%s)\n", (long long)m,
         (long long)k, (long long)n, density, tf32, fits, gcoo_spdm_alg_name(out.alg), out.p,
         out.why);
  return out;
}

int main(void) {
  int64_t dist[11];
  gcoo_dispatch_out o;
  /* dense enough: FP32 GEMM; TF32 only when allowed; never when it does not fit */
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.2, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_DENSE, "density 0.2: %s", gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.05, 1, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_DENSE_TF32, "TF32 allowed: %s", gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.05, 0, 1, dist);
  TEST_CHECK(o.alg != GCOO_ALG_DENSE_TF32 && o.alg != GCOO_ALG_DENSE, "TF32 not allowed: %s",
             gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT64, 14000, 14000, 14000, 0.05, 1, 1, dist);
  TEST_CHECK(o.alg != GCOO_ALG_DENSE_TF32, "never TF32 in double: %s", gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.2, 1, 0, dist);
  TEST_CHECK(o.alg != GCOO_ALG_DENSE && o.alg != GCOO_ALG_DENSE_TF32, "no room: %s",
             gcoo_spdm_alg_name(o.alg));
  /* narrow dense operands go to cuSPARSE */
  o = decide(GCOO_FLOAT32, 14000, 14000, 1, 0.01, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2, "N = 1: %s", gcoo_spdm_alg_name(o.alg));
  /* random n = 14000, sparsity 0.99: reuse grows with p; the model takes a wide group */
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.01, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_GCOO && o.p >= 256 && o.reuse > 2.0, "random 0.99: %s p %d reuse %g",
             gcoo_spdm_alg_name(o.alg), o.p, o.reuse);
  TEST_CHECK(o.p <= 512, "p %d beyond one pass", o.p);
  /* a small matrix: wide groups would leave most SMs idle */
  o = decide(GCOO_FLOAT32, 2000, 2000, 32, 0.01, 0, 1, dist);
  TEST_CHECK(o.p > 0 && o.p <= 32, "small m: p %d", o.p);
  /* no statistics: no p, cuSPARSE */
  gcoo_dispatch_in in;
  memset(&in, 0, sizeof in);
  in.dtype = GCOO_FLOAT32;
  in.m = in.k = 1000;
  in.n = 64;
  in.nnz = 5000;
  in.sm_count = 132;
  TEST_CHECK(gcoo__dispatch_choose_p(&in, NULL) == 0, "no statistics, no p");
  gcoo__dispatch(&in, &o);
  TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG3 || o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2,
             "no statistics: %s", gcoo_spdm_alg_name(o.alg));
  TEST_CHECK(strlen(o.why) > 0, "a reason is given");
  return gcoo_test_finish("t304-dispatch");
}
