/* SPDX-License-Identifier: MIT */
/* tests/gpu/gpu_test_util.c: see gpu_test_util.h. */
#include "gpu_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

gcoo_sparse gt_cpu_gcoo_of_transpose(gcoo_sparse A, int32_t p) {
  gcoo_sparse At = NULL, S = NULL;
  TEST_CALL(gcoo_sparse_transpose(&At, A));
  TEST_CALL(gcoo_sparse_convert(&S, At, GCOO_FORMAT_GCOO, p));
  gcoo_sparse_destroy(&At);
  return S;
}

void gt_check_gcoo_equal(const char *what, gcoo_sparse cpu, const int64_t *gidx,
                         const int64_t *gnnz, const int32_t *rows, const int32_t *cols,
                         const void *values) {
  gcoo_sparse_info si;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(cpu, &si));
  TEST_CALL(gcoo_sparse_get_arrays(cpu, &a));
  for (int64_t g = 0; g <= si.ngroups; g++)
    if (gidx[g] != a.gidx[g]) {
      TEST_CHECK(0, "%s: gidx[%lld] = %lld, CPU %lld", what, (long long)g, (long long)gidx[g],
                 (long long)a.gidx[g]);
      break;
    }
  for (int64_t g = 0; gnnz && g < si.ngroups; g++)
    if (gnnz[g] != a.gnnz[g]) {
      TEST_CHECK(0, "%s: gnnz[%lld] = %lld, CPU %lld", what, (long long)g, (long long)gnnz[g],
                 (long long)a.gnnz[g]);
      break;
    }
  for (int64_t e = 0; e < si.nnz; e++)
    if (rows[e] != a.rows[e] || cols[e] != a.cols[e]) {
      TEST_CHECK(0, "%s: entry %lld is (%d, %d), CPU (%d, %d)", what, (long long)e, rows[e],
                 cols[e], a.rows[e], a.cols[e]);
      break;
    }
  size_t es = gcoo_dtype_size(si.dtype);
  if (si.nnz > 0 && memcmp(values, a.values, (size_t)si.nnz * es) != 0)
    TEST_CHECK(0, "%s: values differ from the CPU's", what);
}

int64_t gt_cpu_distinct(gcoo_sparse A, int64_t p) {
  gcoo_sparse S = gt_cpu_gcoo_of_transpose(A, (int32_t)p);
  gcoo_sparse_info si;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(S, &si));
  TEST_CALL(gcoo_sparse_get_arrays(S, &a));
  int64_t d = 0;
  for (int64_t g = 0; g < si.ngroups; g++)
    for (int64_t e = a.gidx[g]; e < a.gidx[g + 1]; e++)
      d += e == a.gidx[g] || a.rows[e] != a.rows[e - 1];
  gcoo_sparse_destroy(&S);
  return d;
}

gcoo_dense gt_dense_padded(gcoo_dtype dtype, int64_t rows, int64_t cols, int64_t ld, int offset,
                           uint64_t seed) {
  size_t es = gcoo_dtype_size(dtype);
  size_t n = (size_t)(rows * ld + offset + 1);
  char *buf = calloc(n, es);
  if (!buf) {
    fprintf(stderr, "out of host memory\n");
    exit(1);
  }
  gcoo_dense D = gcoo_dense_wrap(buf + (size_t)offset * es, dtype, GCOO_ROW_MAJOR, rows, cols, ld);
  if (rows * cols > 0) TEST_CALL(gcoo_dense_fill_random(&D, seed));
  return D;
}

void gt_dense_free(gcoo_dense *D, int offset) {
  if (D->data) free((char *)D->data - (size_t)offset * gcoo_dtype_size(D->dtype));
  D->data = NULL;
}

int64_t gt_max_row(gcoo_sparse A) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  int64_t mx = 0;
  for (int64_t i = 0; a.ptr && i < ai.nrows; i++)
    if (a.ptr[i + 1] - a.ptr[i] > mx) mx = a.ptr[i + 1] - a.ptr[i];
  return mx;
}

double gt_tolerance(gcoo_sparse A) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  return gcoo_test_tolerance(ai.dtype, gt_max_row(A));
}

gcoo_sparse gt_power_law(gcoo_dtype dtype, int64_t m, int64_t k, int64_t longest, uint64_t seed) {
  int64_t *ptr = calloc((size_t)m + 1, sizeof *ptr);
  TEST_CHECK(ptr != NULL, "out of memory");
  for (int64_t i = 0; i < m; i++) {
    const int64_t d = i % 61 + 1;
    int64_t len = i % 5 == 4 ? 0 : longest / (d * d);
    if (len > k) len = k;
    ptr[i + 1] = ptr[i] + len;
  }
  const int64_t nnz = ptr[m];
  int32_t *ind = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ind);
  double *val = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *val);
  char *used = calloc((size_t)(k > 0 ? k : 1), 1);
  TEST_CHECK(ind && val && used, "out of memory");
  uint64_t x = seed * 2862933555777941757ull + 3037000493ull;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) {
      int64_t c;
      do {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        c = (int64_t)((x >> 33) % (uint64_t)k);
      } while (used[c]);
      used[c] = 1;
      ind[e] = (int32_t)c;
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      val[e] = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    }
    for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) used[ind[e]] = 0;
  }
  gcoo_sparse A = NULL, B = NULL;
  TEST_CALL(gcoo_sparse_create_csr(&A, GCOO_FLOAT64, m, k, ptr, ind, val, 0));
  if (dtype != GCOO_FLOAT64) {
    TEST_CALL(gcoo_sparse_astype(&B, A, dtype));
    gcoo_sparse_destroy(&A);
    A = B;
  }
  free(ptr);
  free(ind);
  free(val);
  free(used);
  return A;
}

double gt_tc_bound_ratio(gcoo_sparse A, double alpha, const gcoo_dense *X, double beta,
                         const gcoo_dense *Y0, const gcoo_dense *Y, double *relerr) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  const float *v = a.values;
  const int64_t N = X->ncols;
  double worst = 0, e2 = 0, r2 = 0;
  for (int64_t i = 0; i < ai.nrows; i++) {
    const int64_t n = a.ptr[i + 1] - a.ptr[i];
    const double u = 0x1p-10 + (double)(n + 4) * 0x1p-23;
    for (int64_t j = 0; j < N; j++) {
      double ref = 0, mag = 0;
      for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++) {
        const double t = (double)v[e] * gcoo_dense_get(X, a.ind[e], j);
        ref += t;
        mag += fabs(t);
      }
      ref *= alpha;
      double bound = u * fabs(alpha) * mag + 1e-30;
      if (beta != 0.0) {
        const double y0 = gcoo_dense_get(Y0, i, j);
        ref += beta * y0;
        bound += 0x1p-24 * fabs(beta * y0);
      }
      const double y = gcoo_dense_get(Y, i, j);
      if (isnan(y)) return relerr ? (*relerr = INFINITY) : INFINITY;
      const double ratio = fabs(y - ref) / bound;
      if (ratio > worst) worst = ratio;
      e2 += (y - ref) * (y - ref);
      r2 += ref * ref;
    }
  }
  if (relerr) *relerr = r2 > 0 ? sqrt(e2 / r2) : (e2 == 0 ? 0.0 : INFINITY);
  return worst;
}
