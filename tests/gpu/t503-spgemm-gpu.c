/* SPDX-License-Identifier: MIT */
/* tests/gpu/t503-spgemm-gpu.c: the GPU SpGEMM against the CPU yardstick (same pattern, values
 * within gcoo_test_tolerance): random products of several shapes in float and double, a
 * power-law product (every shared bin), rows long enough for the global-memory tables, rows
 * whose column spans fit the dense block accumulators (12k entries) and rows that do not (20k
 * entries over 60k columns: the global bin), each also with too small rooms, the
 * overflow path forced with tiny safety factors, batching under a small memory budget (and a
 * budget too small to run), empty rows and matrices, 1 x 1, the real matrices of tests/data
 * (A A and A A^T), cuSPARSE ALG1/2/3, and gcoo_spgemm on a CUDA context. Every product also
 * checks that the GPU's prediction equals the CPU predictor's (method CLASSES, same seed), or,
 * for a product small enough to be computed at its bounds (no prediction), that no row was
 * recomputed and the allocation held C; `--sampled` (ctest t503-spgemm-gpu_sampled) turns that
 * off (GCOO_SPGEMM_BOUND_ENTRIES=0), so every product is predicted and checked; and it
 * runs after the device's free memory and its default stream-ordered pool were filled with
 * garbage (a kernel that reads what it did not write shows up as a wrong result; gcoo's own
 * SpGEMM pool is not reachable from here, but it hands each product what earlier products
 * left in it). And the device's default pool keeps the release threshold the application had:
 * SpGEMM's pool is its own. Exit 77 without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backend_impl.h"
#include "spgemm_check.h"
#include "spgemm/spgemm_cuda.h"

/* Garbage in the memory the next product will get: freed device memory and the stream-ordered
 * pool (which keeps what it freed for the next allocation). */
static void poison_device(void) {
  const size_t bytes = (size_t)64 << 20;
  void *p = NULL;
  if (cudaMalloc(&p, bytes) == cudaSuccess) {
    cudaMemset(p, 0xA5, bytes);
    cudaFree(p);
  }
  if (cudaMallocAsync(&p, bytes, 0) == cudaSuccess) {
    cudaMemsetAsync(p, 0xA5, bytes, 0);
    cudaFreeAsync(p, 0);
  }
  cudaDeviceSynchronize();
  (void)cudaGetLastError();
}

static int sampled = 0; /* --sampled: no product computed at its bounds */
/* the CUDA context the device-level calls run on (its stream, its SpGEMM pool) */
static gcoo_ctx dctx = NULL;

/* Ours on the device with options o; C back on the host, checked; returns the info. */
static gcoo_spgemm_info run_ours(gcoo_sparse A, gcoo_sparse B, const gcoo_spgemm_options *o,
                                 const char *what) {
  gcoo_sparse Ac = spgemm_check_csr(A), Bc = spgemm_check_csr(B), C = NULL;
  gcoo_csr_view va, vb;
  gcoo_cuda_csr dA, dB, dC;
  gcoo_spgemm_info info;
  memset(&info, 0, sizeof info);
  TEST_CALL(gcoo__sparse_csr_view(Ac, &va));
  TEST_CALL(gcoo__sparse_csr_view(Bc, &vb));
  TEST_CALL(gcoo__dev_csr_upload(&va, &dA, NULL));
  TEST_CALL(gcoo__dev_csr_upload(&vb, &dB, NULL));
  poison_device();
  TEST_CALL(gcoo__cuda_spgemm_gcoo(dctx, &dA, &dB, o, &dC, &C, &info));
  if (!C) TEST_CALL(gcoo__dev_csr_download(&dC, &C, NULL));
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(Ac, &ai));
  const double err = spgemm_check(A, B, C, what), tol = gcoo_test_tolerance(ai.dtype, ai.ncols);
  TEST_CHECK(err <= tol, "%s: relative error %.3e > %.3e (batches %lld, rows recomputed %lld)",
             what, err, tol, (long long)info.batches, (long long)info.rows_overflowed);
  TEST_CHECK(info.nnz == spgemm_check_nnz(A, B, NULL), "%s: info.nnz %lld", what,
             (long long)info.nnz);
  { /* the GPU's prediction is the CPU's CLASSES method for the same seed, to the entry */
    gcoo_predict_options po = o->predict;
    gcoo_prediction p;
    po.method = GCOO_PREDICT_CLASSES;
    TEST_CALL(gcoo_predict(A, B, &po, &p));
    if (info.nnz_predicted == 0 && p.nnz_predicted != 0) { /* computed at its bounds */
      TEST_CHECK(!sampled && (o->safety == 0.0 || o->safety >= 1.0) && o->memory_budget == 0,
                 "%s: computed at its bounds with --sampled, safety %g or a memory budget", what,
                 o->safety);
      TEST_CHECK(info.rows_overflowed == 0 && info.nnz_allocated >= info.nnz,
                 "%s: computed at its bounds, yet %lld rows recomputed, %lld allocated for %lld",
                 what, (long long)info.rows_overflowed, (long long)info.nnz_allocated,
                 (long long)info.nnz);
    } else {
      TEST_CHECK(p.nnz_predicted == info.nnz_predicted,
                 "%s: GPU predicted %lld, CPU CLASSES predicted %lld (same seed)", what,
                 (long long)info.nnz_predicted, (long long)p.nnz_predicted);
    }
    gcoo_prediction_free(&p);
  }
  gcoo_cuda_csr_free(&dA);
  gcoo_cuda_csr_free(&dB);
  gcoo_cuda_csr_free(&dC);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  gcoo_sparse_destroy(&C);
  return info;
}

static void run_cusparse(gcoo_sparse A, gcoo_sparse B, const char *what) {
  const gcoo_spgemm_alg algs[3] = {GCOO_SPGEMM_CUSPARSE_ALG1, GCOO_SPGEMM_CUSPARSE_ALG2,
                                   GCOO_SPGEMM_CUSPARSE_ALG3};
  gcoo_sparse Ac = spgemm_check_csr(A), Bc = spgemm_check_csr(B);
  gcoo_csr_view va, vb;
  gcoo_cuda_csr dA, dB;
  TEST_CALL(gcoo__sparse_csr_view(Ac, &va));
  TEST_CALL(gcoo__sparse_csr_view(Bc, &vb));
  TEST_CALL(gcoo__dev_csr_upload(&va, &dA, NULL));
  TEST_CALL(gcoo__dev_csr_upload(&vb, &dB, NULL));
  for (int a = 0; a < 3; a++) {
    gcoo_cuda_csr dC;
    gcoo_sparse C = NULL;
    gcoo_spgemm_info info;
    TEST_CALL(gcoo__cuda_spgemm_cusparse(dctx, algs[a], &dA, &dB, 0.0, &dC, &info));
    TEST_CALL(gcoo__dev_csr_download(&dC, &C, NULL));
    const double err = spgemm_check(A, B, C, what);
    TEST_CHECK(err <= gcoo_test_tolerance(va.dtype, va.ncols), "%s %s: relative error %.3e", what,
               gcoo_spgemm_alg_name(algs[a]), err);
    TEST_CHECK(info.peak_bytes > 0, "%s %s: no peak memory measured", what,
               gcoo_spgemm_alg_name(algs[a]));
    gcoo_cuda_csr_free(&dC);
    gcoo_sparse_destroy(&C);
  }
  gcoo_cuda_csr_free(&dA);
  gcoo_cuda_csr_free(&dB);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
}

/* m x n with `dense` full rows (length n) at rows 0, 7, ...: FLOP bounds past the shared bins. */
static gcoo_sparse long_rows(gcoo_dtype dt, int64_t m, int64_t n, int dense) {
  int64_t cap = (int64_t)dense * n + 4 * m, k = 0;
  int32_t *r = malloc((size_t)cap * sizeof *r), *c = malloc((size_t)cap * sizeof *c);
  double *v = malloc((size_t)cap * sizeof *v);
  for (int64_t i = 0; i < m; i++) {
    const int full = i % 7 == 0 && i / 7 < dense;
    for (int64_t j = full ? 0 : (i * 31) % n; j < (full ? n : (i * 31) % n + 1); j++) {
      r[k] = (int32_t)i;
      c[k] = (int32_t)j;
      v[k++] = 1.0 / (1.0 + (double)((i + j) % 13));
    }
  }
  gcoo_sparse coo = NULL, A = NULL;
  TEST_CALL(gcoo_sparse_create_coo(&coo, GCOO_FLOAT64, m, n, k, r, c, v, 0));
  TEST_CALL(gcoo_sparse_convert(&A, coo, GCOO_FORMAT_CSR, 0));
  gcoo_sparse_destroy(&coo);
  if (dt != GCOO_FLOAT64) {
    gcoo_sparse B = NULL;
    TEST_CALL(gcoo_sparse_astype(&B, A, dt));
    gcoo_sparse_destroy(&A);
    A = B;
  }
  free(r);
  free(c);
  free(v);
  return A;
}

/* A double COO as CSR of type dt (coo is consumed). */
static gcoo_sparse as_csr(gcoo_sparse coo, gcoo_dtype dt) {
  gcoo_sparse A = NULL, B = NULL;
  TEST_CALL(gcoo_sparse_convert(&A, coo, GCOO_FORMAT_CSR, 0));
  gcoo_sparse_destroy(&coo);
  if (dt != GCOO_FLOAT64) {
    TEST_CALL(gcoo_sparse_astype(&B, A, dt));
    gcoo_sparse_destroy(&A);
    A = B;
  }
  return A;
}

/* m x n, n >= 60000: rows i % 50 == 0 hold 20000 entries every third column (their products span
 * the columns: the global bin), rows i % 50 == 1 hold 12000 consecutive entries from column 1000
 * (a span a dense block accumulator takes), the others 3 entries. */
static gcoo_sparse wide_rows(gcoo_dtype dt, int64_t m, int64_t n) {
  int64_t cap = (m / 50 + 1) * 32000 + 3 * m, k = 0;
  int32_t *r = malloc((size_t)cap * sizeof *r), *c = malloc((size_t)cap * sizeof *c);
  double *v = malloc((size_t)cap * sizeof *v);
  for (int64_t i = 0; i < m; i++) {
    const int64_t len = i % 50 == 0 ? 20000 : i % 50 == 1 ? 12000 : 3;
    for (int64_t e = 0; e < len; e++) {
      r[k] = (int32_t)i;
      c[k] = (int32_t)(i % 50 == 0   ? 3 * e + i % 3
                       : i % 50 == 1 ? 1000 + e
                                     : (i * 7919 + e * 101) % n);
      v[k++] = 1.0 / (1.0 + (double)((i + e) % 11));
    }
  }
  gcoo_sparse coo = NULL;
  TEST_CALL(gcoo_sparse_create_coo(&coo, GCOO_FLOAT64, m, n, k, r, c, v, 0));
  free(r);
  free(c);
  free(v);
  return as_csr(coo, dt);
}

/* n x n: the identity plus the shift by 3 (column (k + 3) mod n): products collide and sum. */
static gcoo_sparse identity_shift(gcoo_dtype dt, int64_t n) {
  int32_t *r = malloc((size_t)(2 * n) * sizeof *r), *c = malloc((size_t)(2 * n) * sizeof *c);
  double *v = malloc((size_t)(2 * n) * sizeof *v);
  for (int64_t k = 0; k < n; k++) {
    r[2 * k] = r[2 * k + 1] = (int32_t)k;
    c[2 * k] = (int32_t)k;
    c[2 * k + 1] = (int32_t)((k + 3) % n);
    v[2 * k] = 1.0;
    v[2 * k + 1] = 0.5;
  }
  gcoo_sparse coo = NULL;
  TEST_CALL(gcoo_sparse_create_coo(&coo, GCOO_FLOAT64, n, n, 2 * n, r, c, v, 0));
  free(r);
  free(c);
  free(v);
  return as_csr(coo, dt);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--sampled")) {
    sampled = 1;
    TEST_CALL(gcoo_param_set("GCOO_SPGEMM_BOUND_ENTRIES", "0"));
  }
  if (gcoo__cuda_free_bytes() == 0) {
    printf("t503-spgemm-gpu: no GPU, skipped\n");
    return GCOO_TEST_SKIP;
  }
  /* the application's default pool policy, to be found unchanged at the end */
  cudaMemPool_t default_pool = NULL;
  uint64_t threshold0 = 0, threshold1 = 0;
  TEST_CHECK(cudaDeviceGetDefaultMemPool(&default_pool, 0) == cudaSuccess &&
                 cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold,
                                         &threshold0) == cudaSuccess,
             "the default pool's release threshold cannot be read");
  TEST_CALL(gcoo_ctx_create(&dctx, "cuda:0"));
  gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
  const int64_t shapes[][3] = {{1, 1, 1},
                               {5, 7, 3},
                               {300, 200, 250},
                               {2000, 1500, 1800},
                               {100, 20000, 30}};
  const double spars[] = {0.0, 0.4, 0.95, 0.995, 0.999};
  for (int s = 0; s < 5; s++)
    for (int dt = 0; dt < 2; dt++) {
      gcoo_sparse A = NULL, B = NULL;
      char what[96];
      TEST_CALL(gcoo_sparse_random(&A, (gcoo_dtype)dt, GCOO_FORMAT_CSR, shapes[s][0], shapes[s][1],
                                   spars[s], 500 + s, 0));
      TEST_CALL(gcoo_sparse_random(&B, (gcoo_dtype)dt, GCOO_FORMAT_CSR, shapes[s][1], shapes[s][2],
                                   spars[s], 600 + s, 0));
      snprintf(what, sizeof what, "random %lldx%lldx%lld %s", (long long)shapes[s][0],
               (long long)shapes[s][1], (long long)shapes[s][2], dt ? "double" : "float");
      run_ours(A, B, &o, what);
      run_cusparse(A, B, what);
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&B);
    }
  for (int dt = 0; dt < 2; dt++) {
    /* power law: rows of every size class, so every shared bin runs */
    gcoo_sparse P = spgemm_check_powerlaw((gcoo_dtype)dt, 30000, 30000, 8, 3);
    gcoo_spgemm_info i1 = run_ours(P, P, &o, dt ? "powerlaw^2 double" : "powerlaw^2 float");
    /* the overflow path on purpose: rooms of 1 % of the prediction, then of almost nothing */
    gcoo_spgemm_options t = GCOO_SPGEMM_OPTIONS_INIT;
    t.safety = 0.01;
    gcoo_spgemm_info i2 = run_ours(P, P, &t, "powerlaw^2 safety 0.01");
    TEST_CHECK(i2.rows_overflowed > 0 && i2.nnz == i1.nnz,
               "safety 0.01: %lld rows recomputed, nnz %lld vs %lld", (long long)i2.rows_overflowed,
               (long long)i2.nnz, (long long)i1.nnz);
    t.safety = 1e-9;
    gcoo_spgemm_info i3 = run_ours(P, P, &t, "powerlaw^2 safety 1e-9");
    TEST_CHECK(i3.rows_overflowed >= i2.rows_overflowed, "safety 1e-9: %lld rows recomputed",
               (long long)i3.rows_overflowed);
    /* batches under a small budget, still exact */
    t = (gcoo_spgemm_options)GCOO_SPGEMM_OPTIONS_INIT;
    t.memory_budget = i1.peak_bytes / 5 + 30000 * 40;
    gcoo_spgemm_info i4 = run_ours(P, P, &t, "powerlaw^2 budget");
    /* the budget holds where rows fit their predicted room; recomputed rows add their size */
    TEST_CHECK(i4.batches > 1 && i4.peak_bytes <= 2 * t.memory_budget &&
                   i4.peak_bytes < i1.peak_bytes,
               "budget %lld: %lld batches, peak %lld (unbatched %lld)", (long long)t.memory_budget,
               (long long)i4.batches, (long long)i4.peak_bytes, (long long)i1.peak_bytes);
    printf("budget %lld bytes: %lld batches, peak %lld bytes (one batch: %lld)\n",
           (long long)t.memory_budget, (long long)i4.batches, (long long)i4.peak_bytes,
           (long long)i1.peak_bytes);
    gcoo_sparse_destroy(&P);

    /* long rows: FLOP bounds above the largest shared table (global-memory tables) */
    gcoo_sparse L = long_rows((gcoo_dtype)dt, 3000, 40000, 5);
    gcoo_sparse Lt = NULL;
    TEST_CALL(gcoo_sparse_transpose(&Lt, L));
    run_ours(L, Lt, &o, "long rows L L^T");
    t = (gcoo_spgemm_options)GCOO_SPGEMM_OPTIONS_INIT;
    t.safety = 0.05;
    run_ours(L, Lt, &t, "long rows, safety 0.05");
    run_cusparse(L, Lt, "long rows");
    gcoo_sparse_destroy(&L);
    gcoo_sparse_destroy(&Lt);

    /* wide rows: dense block accumulators (a 12k-entry span) and the global bin (20k entries
     * over 60k columns); too small rooms make both list their rows for recomputation */
    {
      gcoo_sparse W = wide_rows((gcoo_dtype)dt, 5000, 60000);
      gcoo_sparse S = identity_shift((gcoo_dtype)dt, 60000);
      run_ours(W, S, &o, "wide rows W (I + shift)");
      t = (gcoo_spgemm_options)GCOO_SPGEMM_OPTIONS_INIT;
      t.safety = 0.05;
      gcoo_spgemm_info iw = run_ours(W, S, &t, "wide rows, safety 0.05");
      TEST_CHECK(iw.rows_overflowed > 0, "wide rows, safety 0.05: no row recomputed");
      gcoo_sparse_destroy(&W);
      gcoo_sparse_destroy(&S);
    }

    /* mesh */
    gcoo_sparse M = spgemm_check_laplacian((gcoo_dtype)dt, 200, 150);
    gcoo_spgemm_info im = run_ours(M, M, &o, dt ? "laplacian^2 double" : "laplacian^2 float");
    /* its rows (25 products, 13 outputs) take the first bin, 8 lanes a row: too small rooms
     * make that kernel abort and list them, the recomputation must give the same C */
    t = (gcoo_spgemm_options)GCOO_SPGEMM_OPTIONS_INIT;
    t.safety = 0.05;
    gcoo_spgemm_info im2 = run_ours(M, M, &t, "laplacian^2, safety 0.05");
    TEST_CHECK(im2.rows_overflowed > 1000 && im2.nnz == im.nnz,
               "laplacian^2, safety 0.05: %lld rows recomputed, nnz %lld vs %lld",
               (long long)im2.rows_overflowed, (long long)im2.nnz, (long long)im.nnz);
    gcoo_sparse_destroy(&M);
  }

  /* real matrices (tests/data), float and double */
  {
    const char *dir = getenv("GCOO_TEST_DATA");
    const char *names[] = {"bcsstk21", "dwt_2680", "lp_ship04l", "west0479"};
    for (int f = 0; f < 4 && dir; f++)
      for (int dt = 0; dt < 2; dt++) {
        char path[1024], what[128];
        gcoo_sparse A = NULL, At = NULL;
        gcoo_sparse_info ai;
        snprintf(path, sizeof path, "%s/%s.mtx.gz", dir, names[f]);
        TEST_CALL(gcoo_mtx_read(path, (gcoo_dtype)dt, 0, &A));
        TEST_CALL(gcoo_sparse_transpose(&At, A));
        TEST_CALL(gcoo_sparse_get_info(A, &ai));
        if (ai.nrows == ai.ncols) {
          snprintf(what, sizeof what, "%s A A %s", names[f], dt ? "double" : "float");
          run_ours(A, A, &o, what);
        }
        snprintf(what, sizeof what, "%s A A^T %s", names[f], dt ? "double" : "float");
        run_ours(A, At, &o, what);
        gcoo_sparse_destroy(&A);
        gcoo_sparse_destroy(&At);
      }
    if (!dir) printf("GCOO_TEST_DATA not set: real matrices skipped\n");
  }

  /* empty matrices and empty rows */
  {
    const int64_t dims[][3] = {{0, 0, 0}, {4, 0, 3}, {0, 5, 2}, {6, 4, 7}};
    for (int d = 0; d < 4; d++) {
      gcoo_sparse A = NULL, B = NULL;
      TEST_CALL(
          gcoo_sparse_create_coo(&A, GCOO_FLOAT32, dims[d][0], dims[d][1], 0, NULL, NULL, NULL, 0));
      TEST_CALL(
          gcoo_sparse_create_coo(&B, GCOO_FLOAT32, dims[d][1], dims[d][2], 0, NULL, NULL, NULL, 0));
      run_ours(A, B, &o, "empty");
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&B);
    }
    const int32_t r[] = {0, 0, 2, 4, 4, 6}, c[] = {3, 15, 12, 0, 19, 11};
    gcoo_sparse A = NULL, B = NULL;
    TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 8, 20, 6, r, c, NULL, 0));
    TEST_CALL(gcoo_sparse_random(&B, GCOO_FLOAT64, GCOO_FORMAT_CSR, 20, 30, 0.7, 5, 0));
    run_ours(A, B, &o, "empty rows");
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
  }

  /* a budget below the bookkeeping: a clear error */
  {
    gcoo_sparse A = NULL, C = NULL;
    gcoo_csr_view v;
    gcoo_cuda_csr dA, dC;
    gcoo_spgemm_options t = GCOO_SPGEMM_OPTIONS_INIT;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 1000, 1000, 0.99, 4, 0));
    TEST_CALL(gcoo__sparse_csr_view(A, &v));
    TEST_CALL(gcoo__dev_csr_upload(&v, &dA, NULL));
    t.memory_budget = 1000;
    TEST_FAILS(gcoo__cuda_spgemm_gcoo(dctx, &dA, &dA, &t, &dC, &C, NULL), GCOO_ERR_NO_MEMORY,
               "memory budget 1000 bytes");
    gcoo_cuda_csr_free(&dA);
    gcoo_sparse_destroy(&A);
  }

  /* gcoo_spgemm on a CUDA context (needs the CUDA backend of kernels/ to be linked in) */
  {
    gcoo_ctx ctx = NULL;
    gcoo_status st = gcoo_ctx_create(&ctx, "cuda");
    if (st == GCOO_ERR_UNSUPPORTED) {
      printf("t503-spgemm-gpu: CUDA contexts not available in this build (%s): public-API part "
             "not run\n",
             gcoo_last_error());
    } else {
      TEST_CALL(st);
      gcoo_sparse A = NULL, C = NULL;
      gcoo_spgemm_info info;
      gcoo_spgemm_options t = GCOO_SPGEMM_OPTIONS_INIT;
      TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_COO, 700, 700, 0.99, 6, 0));
      for (int a = GCOO_SPGEMM_AUTO; a <= GCOO_SPGEMM_CUSPARSE_ALG3; a++) {
        t.alg = (gcoo_spgemm_alg)a;
        TEST_CALL(gcoo_spgemm(ctx, A, A, &t, &C, &info));
        TEST_CHECK(spgemm_check(A, A, C, "gcoo_spgemm cuda") <=
                       gcoo_test_tolerance(GCOO_FLOAT32, 700),
                   "gcoo_spgemm on CUDA, %s", gcoo_spgemm_alg_name(t.alg));
        gcoo_sparse_destroy(&C);
      }
      gcoo_sparse_destroy(&A);
      gcoo_ctx_destroy(&ctx);
    }
  }
  TEST_CHECK(default_pool &&
                 cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold,
                                         &threshold1) == cudaSuccess &&
                 threshold1 == threshold0,
             "the default pool's release threshold changed: %llu -> %llu (SpGEMM must use its own)",
             (unsigned long long)threshold0, (unsigned long long)threshold1);
  TEST_CALL(gcoo_ctx_destroy(&dctx)); /* its SpGEMM pool with it */
  return gcoo_test_finish("t503-spgemm-gpu");
}
