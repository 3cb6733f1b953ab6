/* SPDX-License-Identifier: MIT */
/* tests/limits/t902-limits-counts.c: counts and byte sizes past 2^31 and near 2^63 are 64-bit
 * arithmetic that is checked, never wrapped (gcoo/types.h, gcoo/backend.h):
 *   - gcoo__array_bytes / gcoo__calloc / gcoo__malloc_n refuse n * size past size_t;
 *   - dense matrices: rows x cols past 2^63 refused, byte sizes past 2^63 refused for caller
 *     descriptors too (a 2^62 x 1 float64 descriptor has 2^65 bytes), allocations that cannot be
 *     served fail with GCOO_ERR_NO_MEMORY and say how much;
 *   - the generator makes matrices whose rows x cols is past 2^31 and 2^32 (few entries);
 *   - sorting of hypersparse entries (pair sort, taken when keys far outnumber entries) agrees
 *     with an independent sort written here, duplicates summed;
 *   - repeated entries whose sum overflows are refused under GCOO_REQUIRE_FINITE. */
#include <math.h>

#include "backend_impl.h" /* gcoo__array_bytes, gcoo__calloc, gcoo__malloc_n */
#include "limits_util.h"

/* AddressSanitizer aborts on an impossible calloc unless told to return NULL like glibc. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static void byte_sizes(void) {
  size_t b = 1;
  void *p = (void *)&b;
  TEST_FAILS(gcoo__array_bytes(INT64_MAX, 8, &b), GCOO_ERR_TOO_LARGE,
             "9223372036854775807 elements of 8 bytes overflow size_t");
  TEST_FAILS(gcoo__array_bytes((int64_t)1 << 61, 8, &b), GCOO_ERR_TOO_LARGE, "overflow size_t");
  TEST_CALL(gcoo__array_bytes((int64_t)1 << 60, 8, &b));
  TEST_CHECK(b == (size_t)1 << 63, "2^60 x 8 bytes = %zu", b);
  TEST_CALL(gcoo__array_bytes(INT64_MAX, 1, &b));
  TEST_CHECK(b == (size_t)INT64_MAX, "2^63 - 1 bytes = %zu", b);
  TEST_CALL(gcoo__array_bytes(INT64_MAX, 0, &b));
  TEST_CHECK(b == 0, "n x 0 bytes = %zu", b);
  TEST_FAILS(gcoo__array_bytes(-1, 8, &b), GCOO_ERR_INVALID_ARG, "negative element count -1");
  TEST_FAILS(gcoo__calloc(&p, SIZE_MAX / 2 + 1, 2, "limits"), GCOO_ERR_TOO_LARGE,
             "overflow size_t");
  TEST_CHECK(p == NULL, "a refused calloc left a pointer");
  p = &b;
  TEST_FAILS(gcoo__malloc_n(&p, (int64_t)1 << 62, 8, "limits"), GCOO_ERR_TOO_LARGE,
             "4611686018427387904 elements of 8 bytes");
  TEST_CHECK(p == NULL, "a refused malloc_n left a pointer");
  /* possible arithmetic, impossible memory: 2^62 bytes */
  TEST_FAILS(gcoo__malloc_n(&p, (int64_t)1 << 59, 8, "a huge buffer"), GCOO_ERR_NO_MEMORY,
             "cannot allocate 4611686018427387904 bytes for a huge buffer");
}

static void dense_sizes(void) {
  gcoo_dense D;
  /* (2^31 - 1)^2 float64 elements: 2^65 bytes */
  TEST_FAILS(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, LIM_DIM, LIM_DIM),
             GCOO_ERR_TOO_LARGE, "overflow size_t");
  TEST_CHECK(D.data == NULL, "refused dense matrix has data");
  /* the same in float32 is 2^64 - 2^34 + 4 bytes: computable, not allocatable */
  TEST_FAILS(gcoo_dense_create(&D, GCOO_FLOAT32, GCOO_COL_MAJOR, LIM_DIM, LIM_DIM),
             GCOO_ERR_NO_MEMORY, "cannot allocate 4611686014132420609 x 4 bytes for dense matrix");
  TEST_FAILS(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, (int64_t)1 << 32,
                               (int64_t)1 << 32),
             GCOO_ERR_TOO_LARGE, "4294967296 x 4294967296 elements overflow 64 bits");
  TEST_FAILS(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, INT64_MAX, 2), GCOO_ERR_TOO_LARGE,
             "overflow 64 bits");
  /* empty with a huge other dimension is fine: nothing to allocate */
  TEST_CALL(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, (int64_t)1 << 40, 0));
  TEST_CHECK(D.nrows == (int64_t)1 << 40 && D.ncols == 0, "empty 2^40 x 0 matrix");
  /* filling it must not walk 2^40 empty rows */
  LIM_WITHIN(1.0, TEST_CALL(gcoo_dense_fill(&D, 1.0)));
  LIM_WITHIN(1.0, TEST_CALL(gcoo_dense_fill_random(&D, 1)));
  gcoo_dense_destroy(&D);
  /* caller descriptors: element counts that fit 63 bits but byte counts that do not */
  static double fake[1];
  gcoo_dense W = gcoo_dense_wrap(fake, GCOO_FLOAT64, GCOO_ROW_MAJOR, (int64_t)1 << 62, 1, 1);
  TEST_FAILS(gcoo_dense_check(&W), GCOO_ERR_TOO_LARGE,
             "4611686018427387904 x 1 elements of 8 bytes overflow a 64-bit offset");
  W = gcoo_dense_wrap(fake, GCOO_FLOAT32, GCOO_COL_MAJOR, 1, (int64_t)1 << 62, 1);
  TEST_FAILS(gcoo_dense_check(&W), GCOO_ERR_TOO_LARGE, "elements of 4 bytes");
  W = gcoo_dense_wrap(fake, GCOO_FLOAT64, GCOO_ROW_MAJOR, 2, 1, (int64_t)1 << 61);
  TEST_FAILS(gcoo_dense_check(&W), GCOO_ERR_TOO_LARGE, "overflow a 64-bit offset");
  W = gcoo_dense_wrap(fake, GCOO_FLOAT64, GCOO_ROW_MAJOR, (int64_t)1 << 59, 1, 1);
  TEST_CALL(gcoo_dense_check(&W)); /* 2^62 bytes: representable (never touched here) */
  /* the operators refuse such descriptors before computing anything with them */
  gcoo_ctx ctx = NULL;
  gcoo_sparse A = NULL;
  gcoo_op op = NULL;
  int32_t r0[1] = {0};
  TEST_CALL(gcoo_ctx_create(&ctx, "cpu"));
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 1, 1, 1, r0, r0, NULL, 0));
  TEST_CALL(gcoo_op_create(&op, ctx, A, NULL));
  static double y[1];
  gcoo_dense X = gcoo_dense_wrap(fake, GCOO_FLOAT64, GCOO_ROW_MAJOR, 1, (int64_t)1 << 61, 0);
  gcoo_dense Y = gcoo_dense_wrap(y, GCOO_FLOAT64, GCOO_ROW_MAJOR, 1, (int64_t)1 << 61, 0);
  TEST_FAILS(gcoo_op_apply(op, 1.0, &X, 0.0, &Y), GCOO_ERR_TOO_LARGE, "overflow a 64-bit offset");
  TEST_FAILS(gcoo_spdm_reference(1.0, A, &X, 0.0, &Y), GCOO_ERR_TOO_LARGE,
             "overflow a 64-bit offset");
  gcoo_op_destroy(&op);
  gcoo_sparse_destroy(&A);
  gcoo_ctx_destroy(&ctx);
}

/* Matrices whose rows x cols passes 2^31 and 2^32, with a few entries. */
static void random_wide(void) {
  static const int64_t shapes[][2] = {{100000, 100000}, {70000, 70000}, {3, LIM_DIM}, {1, LIM_DIM}};
  for (int s = 0; s < 4; s++) {
    gcoo_sparse A = NULL;
    gcoo_sparse_info info;
    gcoo_sparse_arrays a;
    int64_t m = shapes[s][0], n = shapes[s][1];
    double density = 200.0 / ((double)m * (double)n); /* about 200 entries */
    LIM_WITHIN(2.0, TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_COO, m, n,
                                                 1.0 - density, 42 + (uint64_t)s, 0)));
    TEST_CALL(gcoo_sparse_validate(A, GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE));
    TEST_CALL(gcoo_sparse_get_info(A, &info));
    TEST_CALL(gcoo_sparse_get_arrays(A, &a));
    /* 200 expected: 5 sigma is about 70 */
    TEST_CHECK(info.nrows == m && info.ncols == n && info.nnz > 100 && info.nnz < 300,
               "%lld x %lld at density %.3g: %lld entries", (long long)m, (long long)n, density,
               (long long)info.nnz);
    int64_t maxcol = 0;
    for (int64_t k = 0; k < info.nnz; k++) maxcol = a.cols[k] > maxcol ? a.cols[k] : maxcol;
    TEST_CHECK(maxcol < n && (n < 1000000 || maxcol > n / 2),
               "%lld x %lld: largest column %lld (entries must spread over all columns)",
               (long long)m, (long long)n, (long long)maxcol);
    gcoo_sparse_destroy(&A);
  }
}

typedef struct trip {
  int32_t r, c;
  double v;
} trip;

static int trip_cmp(const void *a, const void *b) {
  const trip *x = a, *y = b;
  if (x->r != y->r) return x->r < y->r ? -1 : 1;
  return (x->c > y->c) - (x->c < y->c);
}

/* Unsorted entries with duplicates in hypersparse shapes (the pair sort) against qsort here. */
static void hypersparse_sort(void) {
  enum { N = 3000 };
  static const int64_t shapes[][2] = {{100000, LIM_DIM}, {LIM_DIM, 50}, {LIM_DIM, LIM_DIM}};
  ut_rng rng = {2026};
  for (int s = 0; s < 3; s++) {
    static int32_t r[N], c[N];
    static double v[N];
    static trip t[N];
    int64_t m = shapes[s][0], n = shapes[s][1];
    for (int k = 0; k < N; k++) {
      /* a third of the entries repeat an earlier one */
      int j = k > 10 && ut_below(&rng, 3) == 0 ? (int)ut_below(&rng, (uint64_t)k) : -1;
      r[k] = j >= 0 ? r[j] : (int32_t)ut_below(&rng, (uint64_t)m);
      c[k] = j >= 0 ? c[j] : (int32_t)ut_below(&rng, (uint64_t)n);
      v[k] = (double)(k + 1); /* integers: sums are exact in any order */
      t[k] = (trip){r[k], c[k], v[k]};
    }
    qsort(t, N, sizeof t[0], trip_cmp);
    int w = 0;
    for (int k = 0; k < N; k++) {
      if (w > 0 && t[w - 1].r == t[k].r && t[w - 1].c == t[k].c)
        t[w - 1].v += t[k].v;
      else
        t[w++] = t[k];
    }
    gcoo_sparse A = NULL, G = NULL, B = NULL;
    gcoo_sparse_info info;
    gcoo_sparse_arrays a;
    LIM_WITHIN(2.0, TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, m, n, N, r, c, v, 0)));
    TEST_CALL(gcoo_sparse_get_info(A, &info));
    TEST_CALL(gcoo_sparse_get_arrays(A, &a));
    TEST_CHECK(info.nnz == w, "%lld x %lld: %lld entries after summing, expected %d", (long long)m,
               (long long)n, (long long)info.nnz, w);
    int bad = 0;
    for (int64_t k = 0; k < info.nnz && k < w; k++)
      bad += a.rows[k] != t[k].r || a.cols[k] != t[k].c || ((const double *)a.values)[k] != t[k].v;
    TEST_CHECK(bad == 0, "%lld x %lld: %d entries differ from the reference sort", (long long)m,
               (long long)n, bad);
    TEST_FAILS(gcoo_sparse_create_coo(&B, GCOO_FLOAT64, m, n, N, r, c, v, GCOO_DUPLICATES_ERROR),
               GCOO_ERR_DUPLICATE, "appears more than once");
    /* GCOO with wide groups and back: the same entries */
    LIM_WITHIN(2.0, TEST_CALL(gcoo_sparse_convert(&G, A, GCOO_FORMAT_GCOO, 1 << 28)));
    TEST_CALL(gcoo_sparse_validate(G, GCOO_DUPLICATES_ERROR));
    TEST_CALL(gcoo_sparse_convert(&B, G, GCOO_FORMAT_COO, 0));
    TEST_CHECK(ut_check_same(A, B, "hypersparse COO -> GCOO -> COO") == 0, "round trip differs");
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&G);
    gcoo_sparse_destroy(&B);
  }
}

/* Finite values whose sum is not: refused when finiteness is required, kept (inf) otherwise. */
static void overflowing_sums(void) {
  int32_t r[] = {1, 0, 1}, c[] = {0, 0, 0};
  double v[] = {1e308, 1.0, 1.5e308};
  float f[] = {3e38f, 1.0f, 3e38f};
  gcoo_sparse A = NULL;
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 2, 1, 3, r, c, v, GCOO_REQUIRE_FINITE),
             GCOO_ERR_NOT_FINITE,
             "entry (1, 0): repeated values sum to inf, which overflows float64");
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT32, 2, 1, 3, r, c, f, GCOO_REQUIRE_FINITE),
             GCOO_ERR_NOT_FINITE, "overflows float32");
  TEST_CALL(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 2, 1, 3, r, c, v, 0));
  TEST_FAILS(gcoo_sparse_validate(A, GCOO_REQUIRE_FINITE), GCOO_ERR_NOT_FINITE, "infinite");
  gcoo_sparse_destroy(&A);
  const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1e308\n2 2 1\n"
                     "1 2 1e308\n";
  TEST_FAILS(gcoo_mtx_read(lim_file("sum.mtx", text, -1), GCOO_FLOAT64, 0, &A), GCOO_ERR_NOT_FINITE,
             "sum.mtx: repeated entries sum past the float64 range");
  TEST_CHECK(A == NULL, "a refused read returned a matrix");
}

int main(void) {
  byte_sizes();
  dense_sizes();
  random_wide();
  hypersparse_sort();
  overflowing_sums();
  ut_tmpdir_remove();
  return gcoo_test_finish("t902-limits-counts");
}
