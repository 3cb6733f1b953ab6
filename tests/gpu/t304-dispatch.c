/* SPDX-License-Identifier: MIT */
/* tests/gpu/t304-dispatch.c: GCOO_ALG_AUTO's rule (kernels/spdm/dispatch.c) on synthetic inputs: its
 * branches in the documented order (docs/dispatch.md), TF32 only when allowed, dense only when
 * it fits, narrow N to cuSPARSE, structured reuse to the tuned kernel, random and skewed rows to
 * cuSPARSE (fitted to the H200 sweep), the tuned width p = 32 and the direct/staged
 * split. Pure functions: runs without a GPU. */
#include <math.h>
#include <string.h>

#include "spdm/dispatch.h"
#include "gpu_test_util.h"

/* distinct[i] of a uniform random m x k matrix with density d at p = 2^i (expected values). */
static void random_stats(int64_t m, int64_t k, double d, int64_t *distinct, int nlog) {
  for (int i = 0; i < nlog; i++) {
    const double p = (double)((int64_t)1 << i);
    const double groups = ceil((double)m / p);
    distinct[i] = (int64_t)(groups * (double)k * (1.0 - pow(1.0 - d, p)));
  }
}

/* the shared memory an H200 allows one block (the X-resident variant's bound), or 0 */
static int64_t resident_smem = 0;

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
  in.resident_smem = resident_smem;
  gcoo_dispatch_out out;
  gcoo__dispatch(&in, &out);
  printf("m %lld k %lld N %lld density %g tf32 %d fits %d -> %s%s p %d (%s)\n", (long long)m,
         (long long)k, (long long)n, density, tf32, fits, gcoo_spdm_alg_name(out.alg),
         out.resident ? " (X-resident)" : "", out.p, out.why);
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
  TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2 || o.alg == GCOO_ALG_CUSPARSE_CSR_ALG3,
             "N = 1: %s", gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 14000, 14000, 32, 0.01, 0, 1, dist);
  TEST_CHECK(o.alg != GCOO_ALG_GCOO, "N = 32: %s", gcoo_spdm_alg_name(o.alg));
  /* random n = 14000, sparsity 0.99: reuse 1.16 at p = 32, a tie in the sweep: cuSPARSE */
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.01, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2 && o.p == 32 && o.reuse > 1.1 && o.reuse < 1.2,
             "random 0.99: %s p %d reuse %g", gcoo_spdm_alg_name(o.alg), o.p, o.reuse);
  /* structured reuse (a stencil-like matrix: every 32-row group touches 4 x 32 + 2 columns with
   * 224 entries): the tuned kernel; the same with one row 40x the mean: cuSPARSE */
  {
    gcoo_dispatch_in in;
    int64_t d2[11];
    memset(&in, 0, sizeof in);
    in.dtype = GCOO_FLOAT32;
    in.m = in.k = 1000000;
    in.n = 128;
    in.nnz = 7 * in.m;
    in.nlog = 11;
    for (int i = 0; i < 11; i++) d2[i] = (in.m >> i) * (5 * ((int64_t)1 << i) + 2);
    d2[5] = (in.m / 32) * 162;
    in.distinct = d2;
    in.sm_count = 132;
    in.dense_fits = 0;
    in.max_row_nnz = 7;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_GCOO && o.p == 32, "stencil-like: %s p %d (%s)",
               gcoo_spdm_alg_name(o.alg), o.p, o.why);
    in.max_row_nnz = 280;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg != GCOO_ALG_GCOO && !o.rowsplit, "skewed rows: %s (%s)",
               gcoo_spdm_alg_name(o.alg), o.why);
    /* the row-split variant: what a forced GCOO takes where the longest row spans
     * 8 pieces (32 entries each here) and rows are skewed; AUTO leaves such rows to cuSPARSE */
    TEST_CHECK(gcoo__dispatch_split(&in), "skewed rows, the longest 280: not row-split");
    in.max_row_nnz = 255;
    TEST_CHECK(!gcoo__dispatch_split(&in), "the longest row under 8 pieces: row-split");
    in.max_row_nnz = 31;
    in.nnz = in.m * 6;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(!o.rowsplit && !gcoo__dispatch_split(&in), "no row longer than a piece: %s (%s)",
               gcoo_spdm_alg_name(o.alg), o.why);
  }
  {
    /* cuSPARSE in double: ALG3 up to m N = 2^21 unless rows are very skewed */
    gcoo_dispatch_in in;
    memset(&in, 0, sizeof in);
    in.dtype = GCOO_FLOAT64;
    in.m = in.k = 10000;
    in.nnz = 70000;
    in.max_row_nnz = 20;
    in.n = 128;
    in.sm_count = 132;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG3, "double, m N = 1.28e6: %s",
               gcoo_spdm_alg_name(o.alg));
    in.n = 512;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2, "double, m N = 5.1e6: %s",
               gcoo_spdm_alg_name(o.alg));
    in.dtype = GCOO_FLOAT32;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG3, "float, m N = 5.1e6: %s",
               gcoo_spdm_alg_name(o.alg));
    in.dtype = GCOO_FLOAT64;
    in.n = 32;
    in.max_row_nnz = 1000; /* row skew 143 */
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2, "double, very skewed rows: %s",
               gcoo_spdm_alg_name(o.alg));
    /* the skew rule: not where rows are long on average (kron8:rajat01) or the matrix is tiny */
    in.nnz = 500000;
    in.max_row_nnz = 5000; /* row skew 100, 50 entries a row */
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG3, "double, skewed long rows, N = 32: %s",
               gcoo_spdm_alg_name(o.alg));
    in.m = in.k = 800;
    in.nnz = 4800;
    in.max_row_nnz = 400; /* row skew 67, 6 entries a row, 800 rows */
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG3, "double, skewed, 800 rows: %s",
               gcoo_spdm_alg_name(o.alg));
    in.dtype = GCOO_FLOAT32;
    in.m = in.k = 20000;
    in.nnz = 100000;
    in.max_row_nnz = 20;
    in.n = 512; /* m N = 1.02e7 > 2^23 */
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2, "float, m N = 1.02e7: %s",
               gcoo_spdm_alg_name(o.alg));
  }
  /* the X-resident variant: float, N >= 1000, X tiles that fit, enough entries per
   * column (8 where an 8-float tile fits, 32 where only a 4-float one does); nowhere else */
  TEST_CHECK(!o.resident, "no resident without the device's limit");
  resident_smem = 232448;
  o = decide(GCOO_FLOAT32, 4000, 4000, 4000, 0.01, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_GCOO && o.resident, "random 4000 x 0.99: %s",
             gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 2000, 2000, 2000, 0.1, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_GCOO && o.resident, "random 2000 x 0.9: %s",
             gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 1000, 1000, 1000, 0.01, 0, 1, dist);
  TEST_CHECK(o.resident, "random 1000 x 0.99 (10 a column): %s", gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.01, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_GCOO && o.resident,
             "random 14000 x 0.99 (a 4-float tile, 140 a "
             "column): %s",
             gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.001, 0, 1, dist);
  TEST_CHECK(!o.resident && o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2,
             "random 14000 x 0.999 (14 a "
             "column): %s",
             gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 16000, 16000, 16000, 0.01, 0, 1, dist);
  TEST_CHECK(!o.resident, "k = 16000: no tile fits");
  o = decide(GCOO_FLOAT64, 4000, 4000, 4000, 0.01, 0, 1, dist);
  TEST_CHECK(!o.resident, "double: not resident");
  o = decide(GCOO_FLOAT32, 4000, 4000, 128, 0.01, 0, 1, dist);
  TEST_CHECK(!o.resident, "N = 128: not resident");
  o = decide(GCOO_FLOAT32, 2000, 2000, 2000, 0.001, 0, 1, dist);
  TEST_CHECK(!o.resident && o.alg == GCOO_ALG_GCOO,
             "2 entries a row and a column: tuned, not "
             "resident: %s",
             gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 2000, 2000, 128, 0.001, 0, 1, dist);
  TEST_CHECK(o.alg != GCOO_ALG_GCOO, "short rows, N = 128: %s", gcoo_spdm_alg_name(o.alg));
  o = decide(GCOO_FLOAT32, 14000, 14000, 14000, 0.0005, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_CUSPARSE_CSR_ALG2, "7 entries a row: %s", gcoo_spdm_alg_name(o.alg));
  {
    /* 1-4 entries a row but one row of 500: cuSPARSE */
    gcoo_dispatch_in in;
    memset(&in, 0, sizeof in);
    in.dtype = GCOO_FLOAT32;
    in.m = in.k = in.n = 2000;
    in.nnz = 4000;
    in.nlog = 11;
    random_stats(2000, 2000, 0.001, dist, 11);
    in.distinct = dist;
    in.sm_count = 132;
    in.max_row_nnz = 500;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg != GCOO_ALG_GCOO, "short rows and one long: %s (%s)",
               gcoo_spdm_alg_name(o.alg), o.why);
    in.max_row_nnz = 9;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_GCOO, "short rows, the longest 9: %s", gcoo_spdm_alg_name(o.alg));
  }
  o = decide(GCOO_FLOAT32, 2000, 2000, 2000, 0.2, 0, 1, dist);
  TEST_CHECK(o.alg == GCOO_ALG_DENSE, "dense still first: %s", gcoo_spdm_alg_name(o.alg));
  resident_smem = 0;

  {
    /* enough blocks: a small FEM-like matrix with reuse 8 (staged) has too few at N = 128
     * (143 groups x 1 tile < 3 x 132) and enough at N = 512 (x 4 tiles); a tiny one with reuse
     * 2 (direct) has too few at N = 512 (15 groups x 16 tiles < 2 x 132) */
    gcoo_dispatch_in in;
    int64_t d2[11];
    memset(&in, 0, sizeof in);
    in.dtype = GCOO_FLOAT32;
    in.m = in.k = 4562;
    in.nnz = 131735;
    in.nlog = 11;
    for (int i = 0; i < 11; i++) d2[i] = in.nnz / 8;
    in.distinct = d2;
    in.sm_count = 132;
    in.max_row_nnz = 60;
    in.n = 128;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg != GCOO_ALG_GCOO, "cavity19-like, N = 128: %s (%s)", gcoo_spdm_alg_name(o.alg),
               o.why);
    in.n = 512;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg == GCOO_ALG_GCOO, "cavity19-like, N = 512: %s (%s)", gcoo_spdm_alg_name(o.alg),
               o.why);
    in.m = in.k = 479;
    in.nnz = 1910;
    for (int i = 0; i < 11; i++) d2[i] = in.nnz / 2;
    in.max_row_nnz = 12;
    gcoo__dispatch(&in, &o);
    TEST_CHECK(o.alg != GCOO_ALG_GCOO, "west0479-like, N = 512: %s (%s)", gcoo_spdm_alg_name(o.alg),
               o.why);
  }
  /* direct (unstaged) below reuse 4 with even rows; staged with reuse or skew */
  TEST_CHECK(gcoo__dispatch_tuned_direct(1.4, 1.0) == 1, "stencil: direct");
  TEST_CHECK(gcoo__dispatch_tuned_direct(8.2, 2.1) == 0, "bcsstk33: staged");
  TEST_CHECK(gcoo__dispatch_tuned_direct(1.4, 34.7) == 0, "power law: staged");
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
