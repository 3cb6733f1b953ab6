/* SPDX-License-Identifier: MIT */
/* tests/unit/t050-spdm-reference.c: the CPU reference products against naive triple loops on
 * the densified matrix, in both readings:
 *   gcoo_spdm_reference  Y = alpha A X + beta Y   (any layouts)
 *   gcoo_dnsp_reference  C = alpha B S + beta C   (any layouts)
 * fresh random operands, both element types, every format of the sparse operand, padded leading
 * dimensions (padding must stay untouched), alpha/beta including beta = 0 over a NaN-poisoned
 * output (must be overwritten, BLAS convention) and beta != 0.
 * Error bound: ||out - naive||_F / ||naive||_F <= gcoo_test_tolerance(dtype, k)
 * = 8 eps sqrt(k) + 4 eps (both accumulate in double; float32 differs by the final rounding). */
#include <math.h>
#include <string.h>

#include "unit_util.h"

#define PAD_VALUE 12345.0

static const int64_t shapes[][3] = {/* m, k, N (spdm) = n, k, M (dnsp) */
                                    {0, 0, 0},   {1, 1, 1},     {5, 0, 3},    {0, 4, 2},
                                    {7, 5, 0},   {30, 40, 8},   {64, 33, 17}, {3, 200, 5},
                                    {200, 3, 1}, {150, 100, 24} /* threaded */};
static const double ab[][2] = {{1.0, 0.0}, {2.5, 0.0}, {-0.5, 1.5}, {0.0, 2.0}, {1.0, 1.0}};
enum { NSHAPES = sizeof shapes / sizeof shapes[0], NAB = sizeof ab / sizeof ab[0] };

/* A host dense m x n matrix in a padded buffer (ld = natural + 3), padding set to PAD_VALUE. */
typedef struct padded {
  gcoo_dense D;
  void *buf;
  int64_t cap;
} padded;

static padded padded_make(gcoo_dtype dtype, gcoo_layout layout, int64_t m, int64_t n) {
  padded p;
  int64_t ld = (layout == GCOO_ROW_MAJOR ? n : m) + 3;
  p.cap = (layout == GCOO_ROW_MAJOR ? m : n) * ld;
  p.buf = malloc((size_t)(p.cap + 1) * 8);
  for (int64_t k = 0; k < p.cap; k++) {
    if (dtype == GCOO_FLOAT64)
      ((double *)p.buf)[k] = PAD_VALUE;
    else
      ((float *)p.buf)[k] = (float)PAD_VALUE;
  }
  p.D = gcoo_dense_wrap(p.buf, dtype, layout, m, n, ld);
  return p;
}

static void padded_check(const padded *p, const char *what) {
  int64_t ld = p->D.ld, minor = p->D.layout == GCOO_ROW_MAJOR ? p->D.ncols : p->D.nrows;
  for (int64_t k = 0; k < p->cap; k++)
    if (k % ld >= minor) {
      double v = p->D.dtype == GCOO_FLOAT64 ? ((double *)p->buf)[k] : ((float *)p->buf)[k];
      if (v != PAD_VALUE) {
        fprintf(stderr, "FAIL %s: padding element %lld overwritten (%g)\n", what, (long long)k, v);
        gcoo_test_failures++;
        return;
      }
    }
}

/* C = alpha B S + beta C on the densified S, in double, written independently of the library's
 * reading mapping. */
static void naive_dnsp(double alpha, const gcoo_dense *B, gcoo_sparse S, double beta,
                       gcoo_dense *C) {
  gcoo_sparse_info si;
  TEST_CALL(gcoo_sparse_get_info(S, &si));
  gcoo_dense Sd;
  TEST_CALL(gcoo_dense_create(&Sd, si.dtype, GCOO_COL_MAJOR, si.nrows, si.ncols));
  TEST_CALL(gcoo_sparse_to_dense(S, &Sd));
  for (int64_t i = 0; i < B->nrows; i++)
    for (int64_t j = 0; j < si.ncols; j++) {
      double acc = 0.0;
      for (int64_t r = 0; r < si.nrows; r++)
        acc += gcoo_dense_get(B, i, r) * gcoo_dense_get(&Sd, r, j);
      gcoo_dense_set(C, i, j, alpha * acc + (beta != 0.0 ? beta * gcoo_dense_get(C, i, j) : 0.0));
    }
  gcoo_dense_destroy(&Sd);
}

static double worst = 0.0; /* largest relerr / tolerance seen, printed at the end */

static void check_close(const gcoo_dense *out, const gcoo_dense *ref, gcoo_dtype dtype, int64_t k,
                        const char *what) {
  double e = gcoo_test_relerr(out, ref), tol = gcoo_test_tolerance(dtype, k);
  TEST_CHECK(e <= tol, "%s: relative error %.3g > %.3g", what, e, tol);
  if (tol > 0 && e / tol > worst) worst = e / tol;
}

static void check_spdm(gcoo_dtype dtype, const int64_t *s, uint64_t seed) {
  const int64_t m = s[0], k = s[1], N = s[2];
  char what[200];
  for (int f = 0; f < 4; f++) {
    gcoo_sparse A = NULL;
    double sparsity = f == 0 ? 1.0 : (f == 1 ? 0.0 : 0.7); /* COO empty, CSR full, others 30 % */
    TEST_CALL(gcoo_sparse_random(&A, dtype, (gcoo_format)f, m, k, sparsity, seed + f, 3));
    for (int lx = 0; lx < 2; lx++)
      for (int ly = 0; ly < 2; ly++)
        for (int q = 0; q < NAB; q++) {
          double alpha = ab[q][0], beta = ab[q][1];
          padded X = padded_make(dtype, (gcoo_layout)lx, k, N);
          padded Y = padded_make(dtype, (gcoo_layout)ly, m, N);
          TEST_CALL(gcoo_dense_fill_random(&X.D, seed * 7 + q));
          if (beta == 0.0)
            TEST_CALL(gcoo_dense_fill(&Y.D, NAN));
          else
            TEST_CALL(gcoo_dense_fill_random(&Y.D, seed * 11 + q));
          gcoo_dense Yn = gcoo_test_copy(&Y.D);
          gcoo_test_naive_spdm(alpha, A, &X.D, beta, &Yn);
          TEST_CALL(gcoo_spdm_reference(alpha, A, &X.D, beta, &Y.D));
          snprintf(what, sizeof what, "spdm_reference %s %s %lldx%lldx%lld X %s Y %s a=%g b=%g",
                   dtype ? "f64" : "f32", ut_format_name((gcoo_format)f), (long long)m,
                   (long long)k, (long long)N, lx ? "col" : "row", ly ? "col" : "row", alpha, beta);
          check_close(&Y.D, &Yn, dtype, k, what);
          padded_check(&Y, what);
          padded_check(&X, what);
          gcoo_dense_destroy(&Yn);
          free(X.buf);
          free(Y.buf);
        }
    gcoo_sparse_destroy(&A);
  }
}

static void check_dnsp(gcoo_dtype dtype, const int64_t *s, uint64_t seed) {
  const int64_t n = s[0], k = s[1], M = s[2]; /* S is k x n, B is M x k, C is M x n */
  char what[200];
  for (int f = 0; f < 4; f++) {
    gcoo_sparse S = NULL;
    TEST_CALL(gcoo_sparse_random(&S, dtype, (gcoo_format)f, k, n, f == 3 ? 0.0 : 0.6, seed + f, 4));
    for (int lb = 0; lb < 2; lb++)
      for (int lc = 0; lc < 2; lc++)
        for (int q = 0; q < NAB; q++) {
          double alpha = ab[q][0], beta = ab[q][1];
          padded B = padded_make(dtype, (gcoo_layout)lb, M, k);
          padded C = padded_make(dtype, (gcoo_layout)lc, M, n);
          TEST_CALL(gcoo_dense_fill_random(&B.D, seed * 5 + q));
          if (beta == 0.0)
            TEST_CALL(gcoo_dense_fill(&C.D, NAN));
          else
            TEST_CALL(gcoo_dense_fill_random(&C.D, seed * 13 + q));
          gcoo_dense Cn = gcoo_test_copy(&C.D);
          naive_dnsp(alpha, &B.D, S, beta, &Cn);
          TEST_CALL(gcoo_dnsp_reference(alpha, &B.D, S, beta, &C.D));
          snprintf(what, sizeof what, "dnsp_reference %s %s S %lldx%lld M %lld B %s C %s a=%g b=%g",
                   dtype ? "f64" : "f32", ut_format_name((gcoo_format)f), (long long)k,
                   (long long)n, (long long)M, lb ? "col" : "row", lc ? "col" : "row", alpha, beta);
          check_close(&C.D, &Cn, dtype, k, what);
          padded_check(&C, what);
          gcoo_dense_destroy(&Cn);
          free(B.buf);
          free(C.buf);
        }
    gcoo_sparse_destroy(&S);
  }
}

/* The two references agree through the mapping of gcoo/spdm.h: C = B S column-major is
 * C^T = S^T B^T row-major on the same buffers. */
static void check_readings_agree(gcoo_dtype dtype) {
  const int64_t M = 19, k = 23, n = 31;
  gcoo_sparse S = NULL, St = NULL;
  TEST_CALL(gcoo_sparse_random(&S, dtype, GCOO_FORMAT_GCOO, k, n, 0.8, 77, 4));
  TEST_CALL(gcoo_sparse_transpose(&St, S));
  gcoo_dense B, C1, C2;
  TEST_CALL(gcoo_dense_create(&B, dtype, GCOO_COL_MAJOR, M, k));
  TEST_CALL(gcoo_dense_create(&C1, dtype, GCOO_COL_MAJOR, M, n));
  TEST_CALL(gcoo_dense_create(&C2, dtype, GCOO_COL_MAJOR, M, n));
  TEST_CALL(gcoo_dense_fill_random(&B, 1));
  TEST_CALL(gcoo_dense_fill_random(&C1, 2));
  TEST_CALL(gcoo_dense_fill_random(&C2, 2));
  TEST_CALL(gcoo_dnsp_reference(1.5, &B, S, -0.5, &C1));
  /* the same buffers read row-major: X = B^T (k x M), Y = C^T (n x M) */
  gcoo_dense X = gcoo_dense_wrap(B.data, dtype, GCOO_ROW_MAJOR, k, M, M);
  gcoo_dense Y = gcoo_dense_wrap(C2.data, dtype, GCOO_ROW_MAJOR, n, M, M);
  TEST_CALL(gcoo_spdm_reference(1.5, St, &X, -0.5, &Y));
  check_close(&C2, &C1, dtype, k, "dnsp_reference(B, S) vs spdm_reference(S^T, B^T)");
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&C1);
  gcoo_dense_destroy(&C2);
  gcoo_sparse_destroy(&S);
  gcoo_sparse_destroy(&St);
}

static void check_errors(void) {
  gcoo_sparse A = NULL;
  double x[64], y[64];
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 4, 3, 0.5, 1, 0));
  gcoo_dense X = gcoo_dense_wrap(x, GCOO_FLOAT64, GCOO_ROW_MAJOR, 3, 2, 0);
  gcoo_dense Y = gcoo_dense_wrap(y, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 2, 0);
  gcoo_dense Xbad = gcoo_dense_wrap(x, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 2, 0);
  gcoo_dense Ybad = gcoo_dense_wrap(y, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 3, 0);
  TEST_FAILS(gcoo_spdm_reference(1, A, &Xbad, 0, &Y), GCOO_ERR_SHAPE,
             "Y (4 x 2) = A (4 x 3) X (4 x 2): dimensions disagree");
  TEST_FAILS(gcoo_spdm_reference(1, A, &X, 0, &Ybad), GCOO_ERR_SHAPE, "dimensions disagree");
  TEST_FAILS(gcoo_spdm_reference(1, NULL, &X, 0, &Y), GCOO_ERR_NULL, "sparse matrix is NULL");
  TEST_FAILS(gcoo_spdm_reference(1, A, NULL, 0, &Y), GCOO_ERR_NULL, "dense matrix is NULL");
  TEST_FAILS(gcoo_spdm_reference(1, A, &X, 0, NULL), GCOO_ERR_NULL, "dense matrix is NULL");
  gcoo_dense Xd = X;
  Xd.mem = GCOO_MEM_DEVICE;
  TEST_FAILS(gcoo_spdm_reference(1, A, &Xd, 0, &Y), GCOO_ERR_INVALID_ARG, "host operands");
  gcoo_dense Yalias = gcoo_dense_wrap(x, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 2, 0);
  gcoo_dense Xalias = gcoo_dense_wrap(x, GCOO_FLOAT64, GCOO_ROW_MAJOR, 3, 2, 0);
  TEST_FAILS(gcoo_spdm_reference(1, A, &Xalias, 0, &Yalias), GCOO_ERR_INVALID_ARG,
             "share a buffer");
  /* dnsp: C (M x n) = B (M x k) S (k x n) with S = A (4 x 3) */
  gcoo_dense B = gcoo_dense_wrap(x, GCOO_FLOAT64, GCOO_COL_MAJOR, 2, 4, 0);
  gcoo_dense Cb = gcoo_dense_wrap(y, GCOO_FLOAT64, GCOO_COL_MAJOR, 2, 4, 0);
  TEST_FAILS(gcoo_dnsp_reference(1, &B, A, 0, &Cb), GCOO_ERR_SHAPE,
             "C (2 x 4) = B (2 x 4) S (4 x 3): dimensions disagree");
  gcoo_dense C = gcoo_dense_wrap(y, GCOO_FLOAT64, GCOO_COL_MAJOR, 2, 3, 0);
  TEST_CALL(gcoo_dnsp_reference(1, &B, A, 0, &C));
  TEST_FAILS(gcoo_dnsp_reference(1, &B, NULL, 0, &C), GCOO_ERR_NULL, "sparse matrix is NULL");
  gcoo_dense Cx = gcoo_dense_wrap(x, GCOO_FLOAT64, GCOO_COL_MAJOR, 2, 3, 0);
  TEST_FAILS(gcoo_dnsp_reference(1, &B, A, 0, &Cx), GCOO_ERR_INVALID_ARG, "share a buffer");
  gcoo_sparse_destroy(&A);
}

int main(void) {
  uint64_t seed = 1000;
  for (int dt = 0; dt < 2; dt++)
    for (int s = 0; s < NSHAPES; s++) {
      check_spdm((gcoo_dtype)dt, shapes[s], seed++);
      check_dnsp((gcoo_dtype)dt, shapes[s], seed++);
    }
  check_readings_agree(GCOO_FLOAT64);
  check_readings_agree(GCOO_FLOAT32);
  check_errors();
  printf("largest relative error seen: %.3g of the tolerance\n", worst);
  return gcoo_test_finish("t050-spdm-reference");
}
