/* SPDX-License-Identifier: MIT */
/* tests/unit/t060-op-cpu.c: persistent operators on the CPU backend (ctx "cpu") and the
 * one-shot gcoo_spdm / gcoo_dnsp, against the CPU reference, in both readings, for several group
 * widths p (1, not dividing, larger than the matrix, the default) and algorithms (AUTO, GCOO,
 * GCOO_FAITHFUL, REFERENCE, CSR), all layouts, both element types; reading equivalence (the paper's
 * C = B S on column-major buffers is bit-identical to Y = A X with A = S^T on the same buffers
 * read row-major); every argument error of the operator API; contexts.
 * Error bound: ||op - reference||_F / ||reference||_F <= gcoo_test_tolerance(dtype, k)
 * = 8 eps sqrt(k) + 4 eps (the CPU kernel accumulates in the element type). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h" /* struct gcoo_op_s / gcoo_ctx_s, GCOO_MAGIC_FREED: fake handles */
#include "unit_util.h"

static const int32_t ps[] = {0, 1, 3, 4, 32, 1000};
static const gcoo_spdm_alg algs[] = {GCOO_ALG_AUTO, GCOO_ALG_GCOO, GCOO_ALG_GCOO_FAITHFUL,
                                     GCOO_ALG_REFERENCE, GCOO_ALG_CSR};
enum { NPS = sizeof ps / sizeof ps[0], NALGS = sizeof algs / sizeof algs[0] };

static double worst = 0.0;

static void check_close(const gcoo_dense *out, const gcoo_dense *ref, gcoo_dtype dtype, int64_t k,
                        const char *what) {
  double e = gcoo_test_relerr(out, ref), tol = gcoo_test_tolerance(dtype, k);
  TEST_CHECK(e <= tol, "%s: relative error %.3g > %.3g", what, e, tol);
  if (e / tol > worst) worst = e / tol;
}

static gcoo_dense make_dense(gcoo_dtype dtype, gcoo_layout layout, int64_t m, int64_t n,
                             uint64_t seed) {
  gcoo_dense D;
  TEST_CALL(gcoo_dense_create(&D, dtype, layout, m, n));
  TEST_CALL(gcoo_dense_fill_random(&D, seed));
  return D;
}

/* One operator, applied to fresh operands in each layout and with several alpha/beta; the
 * operator is reused (persistent) across all of them. */
static void check_operator(gcoo_ctx ctx, gcoo_reading reading, gcoo_dtype dtype, int64_t rows,
                           int64_t cols, int64_t N, double sparsity, int32_t p, gcoo_spdm_alg alg,
                           uint64_t seed) {
  char what[256];
  gcoo_sparse A = NULL;
  gcoo_op op = NULL;
  gcoo_op_info info;
  TEST_CALL(gcoo_sparse_random(&A, dtype, (gcoo_format)(seed % 4), rows, cols, sparsity, seed, 5));
  gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
  o.reading = reading;
  o.alg = alg;
  o.p = p;
  TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
  TEST_CALL(gcoo_op_get_info(op, &info));
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CHECK(info.reading == reading && info.nrows == rows && info.ncols == cols &&
                 info.nnz == ai.nnz && info.setup_seconds >= 0.0 && info.device_bytes == 0,
             "operator info");
  /* AUTO on the CPU: CSR unless a group width was asked for (no width hint: narrow) */
  gcoo_spdm_alg want_alg = alg == GCOO_ALG_AUTO ? (p ? GCOO_ALG_GCOO : GCOO_ALG_CSR) : alg;
  int32_t want_p = want_alg == GCOO_ALG_REFERENCE || want_alg == GCOO_ALG_CSR ? 0
                   : p                                                        ? p
                       : (alg == GCOO_ALG_GCOO_FAITHFUL ? 4 : 32);
  TEST_CHECK(info.alg == want_alg && info.p == want_p, "alg %s p %d, expected %s p %d",
             gcoo_spdm_alg_name(info.alg), info.p, gcoo_spdm_alg_name(want_alg), want_p);
  static const double ab[][2] = {{1.0, 0.0}, {-2.0, 0.5}};
  for (int lx = 0; lx < 2; lx++)
    for (int ly = 0; ly < 2; ly++)
      for (int q = 0; q < 2; q++) {
        double alpha = ab[q][0], beta = ab[q][1];
        /* SPARSE_DENSE: A rows x cols, X cols x N, Y rows x N.
         * DENSE_SPARSE: S rows x cols, B N x rows, C N x cols. */
        gcoo_dense X, Y;
        int64_t inner = reading == GCOO_SPARSE_DENSE ? cols : rows;
        if (reading == GCOO_SPARSE_DENSE) {
          X = make_dense(dtype, (gcoo_layout)lx, cols, N, seed + 1);
          Y = make_dense(dtype, (gcoo_layout)ly, rows, N, seed + 2);
        } else {
          X = make_dense(dtype, (gcoo_layout)lx, N, rows, seed + 1);
          Y = make_dense(dtype, (gcoo_layout)ly, N, cols, seed + 2);
        }
        if (beta == 0.0) TEST_CALL(gcoo_dense_fill(&Y, NAN));
        gcoo_dense R = gcoo_test_copy(&Y);
        if (reading == GCOO_SPARSE_DENSE)
          TEST_CALL(gcoo_spdm_reference(alpha, A, &X, beta, &R));
        else
          TEST_CALL(gcoo_dnsp_reference(alpha, &X, A, beta, &R));
        gcoo_dense Y2 = gcoo_test_copy(&Y);
        TEST_CALL(gcoo_op_apply(op, alpha, &X, beta, &Y));
        snprintf(what, sizeof what, "%s %s %s %lldx%lld N=%lld s=%.2f p=%d %s X %s Y %s a=%g b=%g",
                 reading == GCOO_SPARSE_DENSE ? "A*X" : "B*S", gcoo_spdm_alg_name(alg),
                 dtype ? "f64" : "f32", (long long)rows, (long long)cols, (long long)N, sparsity, p,
                 ut_format_name((gcoo_format)(seed % 4)), lx ? "col" : "row", ly ? "col" : "row",
                 alpha, beta);
        check_close(&Y, &R, dtype, inner, what);
        /* applying again to the same input gives the same bits (no state kept between calls) */
        TEST_CALL(gcoo_op_apply(op, alpha, &X, beta, &Y2));
        ut_check_dense_equal(&Y2, &Y, what);
        gcoo_dense_destroy(&X);
        gcoo_dense_destroy(&Y);
        gcoo_dense_destroy(&Y2);
        gcoo_dense_destroy(&R);
      }
  TEST_CALL(gcoo_op_destroy(&op));
  TEST_CHECK(op == NULL, "destroy did not reset the handle");
  gcoo_sparse_destroy(&A);
}

/* gcoo_dnsp on column-major B, C and gcoo_spdm with A = S^T on the same buffers read row-major
 * run one kernel on one GCOO: the results must be the same bits. */
static void check_reading_equivalence(gcoo_ctx ctx, gcoo_dtype dtype) {
  const int64_t M = 37, k = 29, n = 45;
  gcoo_sparse S = NULL, A = NULL;
  TEST_CALL(gcoo_sparse_random(&S, dtype, GCOO_FORMAT_CSR, k, n, 0.85, 5, 0));
  TEST_CALL(gcoo_sparse_transpose(&A, S));
  gcoo_dense B = make_dense(dtype, GCOO_COL_MAJOR, M, k, 1);
  gcoo_dense C1 = make_dense(dtype, GCOO_COL_MAJOR, M, n, 2);
  gcoo_dense C2 = make_dense(dtype, GCOO_COL_MAJOR, M, n, 2);
  gcoo_dense R = make_dense(dtype, GCOO_COL_MAJOR, M, n, 2);
  TEST_CALL(gcoo_dnsp(ctx, 0.75, &B, S, 1.25, &C1));
  gcoo_dense X = gcoo_dense_wrap(B.data, dtype, GCOO_ROW_MAJOR, k, M, M);  /* B^T */
  gcoo_dense Y = gcoo_dense_wrap(C2.data, dtype, GCOO_ROW_MAJOR, n, M, M); /* C^T */
  TEST_CALL(gcoo_spdm(ctx, 0.75, A, &X, 1.25, &Y));
  ut_check_dense_equal(&C1, &C2, "gcoo_dnsp(B, S) vs gcoo_spdm(S^T, B^T) on the same buffers");
  TEST_CALL(gcoo_dnsp_reference(0.75, &B, S, 1.25, &R));
  check_close(&C1, &R, dtype, k, "gcoo_dnsp vs reference");
  /* one-shot spdm in its own reading against the reference */
  gcoo_dense X2 = make_dense(dtype, GCOO_ROW_MAJOR, n, 6, 3);
  gcoo_dense Y2 = make_dense(dtype, GCOO_ROW_MAJOR, k, 6, 4);
  gcoo_dense R2 = gcoo_test_copy(&Y2);
  TEST_CALL(gcoo_dense_fill(&Y2, NAN));
  TEST_CALL(gcoo_dense_fill(&R2, NAN));
  TEST_CALL(gcoo_spdm(ctx, 1.0, S, &X2, 0.0, &Y2));
  TEST_CALL(gcoo_spdm_reference(1.0, S, &X2, 0.0, &R2));
  check_close(&Y2, &R2, dtype, n, "gcoo_spdm vs reference");
  gcoo_dense_destroy(&B);
  gcoo_dense_destroy(&C1);
  gcoo_dense_destroy(&C2);
  gcoo_dense_destroy(&R);
  gcoo_dense_destroy(&X2);
  gcoo_dense_destroy(&Y2);
  gcoo_dense_destroy(&R2);
  gcoo_sparse_destroy(&S);
  gcoo_sparse_destroy(&A);
}

/* A real matrix (west0479, 479 x 479, 1910 entries) through an operator. */
static void check_real_matrix(gcoo_ctx ctx) {
  gcoo_sparse A = NULL;
  TEST_CALL(gcoo_mtx_read(gcoo_test_data("west0479.mtx.gz"), GCOO_FLOAT64, 0, &A));
  for (int r = 0; r < 2; r++) {
    gcoo_op op = NULL;
    gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
    o.reading = (gcoo_reading)r;
    o.p = 4;
    TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
    gcoo_dense X = r ? make_dense(GCOO_FLOAT64, GCOO_COL_MAJOR, 16, 479, 9)
                     : make_dense(GCOO_FLOAT64, GCOO_ROW_MAJOR, 479, 16, 9);
    gcoo_dense Y = r ? make_dense(GCOO_FLOAT64, GCOO_COL_MAJOR, 16, 479, 10)
                     : make_dense(GCOO_FLOAT64, GCOO_ROW_MAJOR, 479, 16, 10);
    TEST_CALL(gcoo_dense_fill(&Y, NAN));
    gcoo_dense R = gcoo_test_copy(&Y);
    TEST_CALL(gcoo_op_apply(op, 1.0, &X, 0.0, &Y));
    if (r)
      TEST_CALL(gcoo_dnsp_reference(1.0, &X, A, 0.0, &R));
    else
      TEST_CALL(gcoo_spdm_reference(1.0, A, &X, 0.0, &R));
    check_close(&Y, &R, GCOO_FLOAT64, 479, r ? "west0479 B*S" : "west0479 A*X");
    gcoo_dense_destroy(&X);
    gcoo_dense_destroy(&Y);
    gcoo_dense_destroy(&R);
    gcoo_op_destroy(&op);
  }
  gcoo_sparse_destroy(&A);
}

static void check_op_errors(gcoo_ctx ctx) {
  gcoo_sparse A = NULL;
  gcoo_op op = NULL;
  TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, 4, 3, 0.5, 1, 0));
  gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
  TEST_FAILS(gcoo_op_create(NULL, ctx, A, &o), GCOO_ERR_NULL, "output handle is NULL");
  TEST_FAILS(gcoo_op_create(&op, NULL, A, &o), GCOO_ERR_NULL, "context is NULL");
  TEST_FAILS(gcoo_op_create(&op, ctx, NULL, &o), GCOO_ERR_NULL, "sparse matrix is NULL");
  o.size = 0;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_INVALID_ARG,
             "options.size = 0: initialise options with GCOO_OP_OPTIONS_INIT");
  o.size = sizeof o + 8;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_INVALID_ARG, "GCOO_OP_OPTIONS_INIT");
  o = (gcoo_op_options)GCOO_OP_OPTIONS_INIT;
  o.reading = (gcoo_reading)5;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_INVALID_ARG, "unknown reading 5");
  o = (gcoo_op_options)GCOO_OP_OPTIONS_INIT;
  o.alg = (gcoo_spdm_alg)42;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_INVALID_ARG, "unknown algorithm 42");
  o = (gcoo_op_options)GCOO_OP_OPTIONS_INIT;
  o.p = -1;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_INVALID_ARG, "p = -1 must be >= 0");
  o = (gcoo_op_options)GCOO_OP_OPTIONS_INIT;
  o.ncols_hint = -1;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_INVALID_ARG, "ncols_hint");
  o = (gcoo_op_options)GCOO_OP_OPTIONS_INIT;
  o.alg = GCOO_ALG_CUSPARSE;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_UNSUPPORTED,
             "algorithm cusparse needs the CUDA backend");
  o.alg = GCOO_ALG_DENSE_TF32;
  TEST_FAILS(gcoo_op_create(&op, ctx, A, &o), GCOO_ERR_UNSUPPORTED, "dense_tf32 needs the CUDA");
  TEST_CHECK(op == NULL, "handle set on failure");
  /* an older, shorter options struct (size up to `alg`) is accepted, the rest defaulted */
  o = (gcoo_op_options)GCOO_OP_OPTIONS_INIT;
  o.size = offsetof(gcoo_op_options, p);
  o.alg = GCOO_ALG_GCOO; /* within size: taken */
  o.p = 77;              /* beyond size: must be ignored */
  TEST_CALL(gcoo_op_create(&op, ctx, A, &o));
  gcoo_op_info info;
  TEST_CALL(gcoo_op_get_info(op, &info));
  TEST_CHECK(info.p == 32, "a field past options.size was read: p = %d", info.p);
  TEST_FAILS(gcoo_op_get_info(op, NULL), GCOO_ERR_NULL, "info is NULL");
  TEST_CALL(gcoo_op_destroy(&op));
  /* NULL options: the defaults */
  TEST_CALL(gcoo_op_create(&op, ctx, A, NULL));

  double xb[64], yb[64];
  float fb[64];
  gcoo_dense X = gcoo_dense_wrap(xb, GCOO_FLOAT64, GCOO_ROW_MAJOR, 3, 2, 0);
  gcoo_dense Y = gcoo_dense_wrap(yb, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 2, 0);
  TEST_CALL(gcoo_dense_fill(&X, 1.0));
  TEST_CALL(gcoo_op_apply(op, 1.0, &X, 0.0, &Y));
  gcoo_dense Xs = gcoo_dense_wrap(xb, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 2, 0);
  TEST_FAILS(gcoo_op_apply(op, 1.0, &Xs, 0.0, &Y), GCOO_ERR_SHAPE,
             "Y = A X with A 4 x 3 needs X (3 x N) and Y (4 x N); got X 4 x 2, Y 4 x 2");
  gcoo_dense Yn = gcoo_dense_wrap(yb, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 3, 0);
  TEST_FAILS(gcoo_op_apply(op, 1.0, &X, 0.0, &Yn), GCOO_ERR_SHAPE, "got X 3 x 2, Y 4 x 3");
  gcoo_dense Xf = gcoo_dense_wrap(fb, GCOO_FLOAT32, GCOO_ROW_MAJOR, 3, 2, 0);
  TEST_FAILS(gcoo_op_apply(op, 1.0, &Xf, 0.0, &Y), GCOO_ERR_DTYPE,
             "operator is float64, operands are float32 and float64");
  TEST_FAILS(gcoo_op_apply(op, 1.0, NULL, 0.0, &Y), GCOO_ERR_NULL, "dense matrix is NULL");
  TEST_FAILS(gcoo_op_apply(op, 1.0, &X, 0.0, NULL), GCOO_ERR_NULL, "dense matrix is NULL");
  gcoo_dense Xd = X;
  Xd.mem = GCOO_MEM_DEVICE;
  TEST_FAILS(gcoo_op_apply(op, 1.0, &Xd, 0.0, &Y), GCOO_ERR_INVALID_ARG, "different memory spaces");
  gcoo_dense Yd = Y;
  Yd.mem = GCOO_MEM_DEVICE;
  TEST_FAILS(gcoo_op_apply(op, 1.0, &Xd, 0.0, &Yd), GCOO_ERR_INVALID_ARG,
             "device operands given to the cpu backend");
  gcoo_dense Yalias = gcoo_dense_wrap(xb + 2, GCOO_FLOAT64, GCOO_ROW_MAJOR, 4, 2, 0);
  TEST_FAILS(gcoo_op_apply(op, 1.0, &X, 0.0, &Yalias), GCOO_ERR_INVALID_ARG, "share a buffer");
  TEST_FAILS(gcoo_op_apply(NULL, 1.0, &X, 0.0, &Y), GCOO_ERR_NULL, "operator is NULL");
  TEST_CALL(gcoo_op_destroy(&op));
  TEST_FAILS(gcoo_op_apply(op, 1.0, &X, 0.0, &Y), GCOO_ERR_NULL, "operator is NULL");
  TEST_CALL(gcoo_op_destroy(&op)); /* destroying NULL again is harmless */

  /* A destroyed operator reached through a stale copy of its handle: its memory is freed and
   * cannot be read back safely, so the check is shown on a block carrying the freed marker. */
  struct gcoo_op_s fake;
  memset(&fake, 0, sizeof fake);
  fake.magic = GCOO_MAGIC_FREED;
  TEST_FAILS(gcoo_op_apply(&fake, 1.0, &X, 0.0, &Y), GCOO_ERR_INVALID_OBJECT,
             "operator is not a valid object (already destroyed)");
  TEST_FAILS(gcoo_op_get_info(&fake, &info), GCOO_ERR_INVALID_OBJECT, "already destroyed");
  gcoo_op fh = &fake;
  TEST_FAILS(gcoo_op_destroy(&fh), GCOO_ERR_INVALID_OBJECT, "already destroyed");
  fake.magic = 0;
  TEST_FAILS(gcoo_op_apply(&fake, 1.0, &X, 0.0, &Y), GCOO_ERR_INVALID_OBJECT, "uninitialised");
  struct gcoo_ctx_s fctx;
  memset(&fctx, 0, sizeof fctx);
  fctx.magic = GCOO_MAGIC_FREED;
  TEST_FAILS(gcoo_op_create(&op, &fctx, A, NULL), GCOO_ERR_INVALID_OBJECT,
             "context is not a valid object (already destroyed)");

  /* the paper's reading: shapes named after B and C */
  o = (gcoo_op_options)GCOO_OP_OPTIONS_INIT;
  o.reading = GCOO_DENSE_SPARSE;
  TEST_CALL(gcoo_op_create(&op, ctx, A, &o)); /* S is 4 x 3: B is M x 4, C is M x 3 */
  gcoo_dense B = gcoo_dense_wrap(xb, GCOO_FLOAT64, GCOO_COL_MAJOR, 2, 3, 0);
  gcoo_dense C = gcoo_dense_wrap(yb, GCOO_FLOAT64, GCOO_COL_MAJOR, 2, 3, 0);
  TEST_FAILS(gcoo_op_apply(op, 1.0, &B, 0.0, &C), GCOO_ERR_SHAPE,
             "C = B S needs B (M x 4) and C (M x 3); got B 2 x 3, C 2 x 3");
  gcoo_op_destroy(&op);

  /* one-shot errors carry the operator's messages */
  TEST_FAILS(gcoo_spdm(ctx, 1.0, A, &Xs, 0.0, &Y), GCOO_ERR_SHAPE, "needs X (3 x N)");
  TEST_FAILS(gcoo_dnsp(ctx, 1.0, &B, A, 0.0, &C), GCOO_ERR_SHAPE, "needs B (M x 4)");
  TEST_FAILS(gcoo_spdm(NULL, 1.0, A, &X, 0.0, &Y), GCOO_ERR_NULL, "context is NULL");
  gcoo_sparse_destroy(&A);
}

static void check_names(void) {
  for (int a = 0; a <= GCOO_ALG_CSR; a++) {
    const char *n = gcoo_spdm_alg_name((gcoo_spdm_alg)a);
    TEST_CHECK(gcoo_spdm_alg_from_name(n) == a, "algorithm %d (%s) does not round-trip", a, n);
  }
  TEST_CHECK(!strcmp(gcoo_spdm_alg_name((gcoo_spdm_alg)99), "unknown"), "name of 99");
  TEST_CHECK(gcoo_spdm_alg_from_name("bogus") == -1 && gcoo_spdm_alg_from_name(NULL) == -1,
             "bogus");
}

static void check_contexts(void) {
  gcoo_ctx c = NULL;
  char buf[128];
  TEST_CALL(gcoo_ctx_create(&c, "cpu"));
  TEST_CHECK(!strcmp(gcoo_ctx_backend(c), "cpu") && gcoo_ctx_device(c) == -1, "cpu context");
  TEST_CALL(gcoo_ctx_describe(c, buf, sizeof buf));
  TEST_CHECK(!strncmp(buf, "CPU", 3), "describe: %s", buf);
  TEST_CHECK(gcoo_ctx_stream(c) == NULL, "a CPU context has no stream");
  TEST_CALL(gcoo_ctx_synchronize(c));
  TEST_FAILS(gcoo_ctx_describe(c, NULL, 0), GCOO_ERR_NULL, "buffer is NULL");
  TEST_CALL(gcoo_ctx_destroy(&c));
  TEST_CHECK(c == NULL, "destroy did not reset");
  TEST_CALL(gcoo_ctx_destroy(&c));
  TEST_FAILS(gcoo_ctx_create(NULL, "cpu"), GCOO_ERR_NULL, "output handle");
  TEST_FAILS(gcoo_ctx_create(&c, "tpu"), GCOO_ERR_INVALID_ARG, "unknown resource \"tpu\"");
  TEST_FAILS(gcoo_ctx_create(&c, "cuda:x"), GCOO_ERR_INVALID_ARG,
             "bad device number in \"cuda:x\"");
  TEST_FAILS(gcoo_ctx_create(&c, "cudax"), GCOO_ERR_INVALID_ARG, "unknown resource \"cudax\"");
  if (gcoo_cuda_device_count() == 0) {
    gcoo_status st = gcoo_ctx_create(&c, "cuda");
    TEST_CHECK(st == GCOO_ERR_UNSUPPORTED || st == GCOO_ERR_NO_DEVICE, "cuda without a GPU gave %s",
               gcoo_status_name(st));
    TEST_CHECK(c == NULL, "a context was made");
    TEST_CALL(gcoo_ctx_create(&c, "auto"));
    TEST_CHECK(!strcmp(gcoo_ctx_backend(c), "cpu"), "auto without a GPU is %s",
               gcoo_ctx_backend(c));
    gcoo_ctx_destroy(&c);
  }
  /* NULL reads GCOO_BACKEND */
  TEST_CALL(gcoo_param_set("GCOO_BACKEND", "cpu"));
  TEST_CALL(gcoo_ctx_create(&c, NULL));
  TEST_CHECK(!strcmp(gcoo_ctx_backend(c), "cpu"), "GCOO_BACKEND=cpu gave %s", gcoo_ctx_backend(c));
  gcoo_ctx_destroy(&c);
  TEST_CALL(gcoo_param_set("GCOO_BACKEND", "nonsense"));
  TEST_FAILS(gcoo_ctx_create(&c, NULL), GCOO_ERR_INVALID_ARG, "unknown resource \"nonsense\"");
  TEST_CALL(gcoo_param_set("GCOO_BACKEND", NULL));
  TEST_CHECK(!strcmp(gcoo_ctx_backend(NULL), "invalid"), "backend of NULL");
}

int main(void) {
  gcoo_ctx ctx = NULL;
  TEST_CALL(gcoo_ctx_create(&ctx, "cpu"));
  /* shapes of the sparse operand (rows x cols) and widths N of the dense one */
  static const int64_t shapes[][3] = {
      {0, 0, 3},   {1, 1, 1},   {1, 40, 4},  {40, 1, 4},    {5, 0, 2}, {0, 6, 2},
      {57, 43, 7}, {23, 70, 1}, {10, 10, 0}, {300, 200, 16} /* above GCOO_OMP_MIN_WORK: threaded */};
  uint64_t seed = 500;
  for (int r = 0; r < 2; r++)
    for (int dt = 0; dt < 2; dt++)
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int pi = 0; pi < NPS; pi++)
          for (int a = 0; a < NALGS; a++) {
            if ((algs[a] == GCOO_ALG_REFERENCE || algs[a] == GCOO_ALG_CSR) && pi > 0)
              continue; /* p means nothing to them */
            /* the threaded shape: a few widths are enough, and keep the suite fast */
            if (shapes[s][0] >= 300 && (algs[a] == GCOO_ALG_REFERENCE || (pi != 0 && pi != 3)))
              continue;
            double sparsity = shapes[s][0] >= 300 ? 0.95
                              : s % 3 == 0        ? 0.0
                                                  : (s % 3 == 1 ? 0.9 : 0.5);
            check_operator(ctx, (gcoo_reading)r, (gcoo_dtype)dt, shapes[s][0], shapes[s][1],
                           shapes[s][2], sparsity, ps[pi], algs[a], seed++);
          }
  check_reading_equivalence(ctx, GCOO_FLOAT64);
  check_reading_equivalence(ctx, GCOO_FLOAT32);
  check_real_matrix(ctx);
  check_op_errors(ctx);
  check_names();
  check_contexts();
  TEST_CALL(gcoo_ctx_destroy(&ctx));
  printf("largest relative error seen: %.3g of the tolerance\n", worst);
  return gcoo_test_finish("t060-op-cpu");
}
