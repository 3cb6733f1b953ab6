/* SPDX-License-Identifier: MIT */
/* tests/limits/t911-limits-allocfail.c: every allocation of the core, made to fail in turn.
 * malloc, calloc, realloc and free are wrapped at link time (-Wl,--wrap=...; the core is linked
 * statically, so its own calls go through the wrappers; zlib's, libc's and the OpenMP runtime's
 * internal allocations do not). For each operation below: a clean run counts its allocations N
 * and must leave nothing allocated; then for k = 1..N the k-th allocation returns NULL and the
 * operation must return GCOO_ERR_NO_MEMORY with a message, return no object, free everything it
 * took (the live allocation count is back where it was), and leave no file behind (writers).
 * This is the "stops cleanly and loses nothing" property for memory, checked exhaustively on
 * small inputs: creation in every format, conversions between all of them, transposes, dtype
 * changes, dense round trips, the generator, Matrix Market reading (plain, gzip, dense, header,
 * duplicates refused) and writing, contexts, operators in both readings and the references. */
#include <dirent.h>
#include <math.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_impl.h" /* GCOO_ERROR */
#include "limits_util.h"

/* ---- the wrappers --------------------------------------------------------------------------- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t s);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t s);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static atomic_long calls;   /* allocation calls since the last reset */
static atomic_long fail_at; /* the call that returns NULL (0: none) */
static atomic_long live;    /* blocks allocated through the wrappers and not yet freed */

static int fail_now(void) {
  long k = atomic_fetch_add(&calls, 1) + 1;
  return k == atomic_load(&fail_at);
}

void *__wrap_malloc(size_t n) {
  if (fail_now()) return NULL;
  void *p = __real_malloc(n);
  if (p) atomic_fetch_add(&live, 1);
  return p;
}

void *__wrap_calloc(size_t n, size_t s) {
  if (fail_now()) return NULL;
  void *p = __real_calloc(n, s);
  if (p) atomic_fetch_add(&live, 1);
  return p;
}

void *__wrap_realloc(void *p, size_t n) {
  if (fail_now()) return NULL; /* like a failed realloc: p stays allocated */
  void *q = __real_realloc(p, n);
  if (q && !p) atomic_fetch_add(&live, 1);
  return q;
}

void __wrap_free(void *p) {
  if (p) atomic_fetch_sub(&live, 1);
  __real_free(p);
}

/* ---- inputs, made once before the sweeps ---------------------------------------------------- */
enum { M = 23, K = 17, N = 5 };
static gcoo_sparse A[4]; /* one 23 x 17 matrix in COO, CSR, CSC, GCOO (p = 4) */
static gcoo_dense Dn, Xs, Ys, Xd, Yd;
static int32_t urow[40], ucol[40]; /* unsorted entries with duplicates */
static double uval[40];
static int64_t uptr[M + 1]; /* CSR of the unsorted entries (rows in order, columns not) */
static int32_t uind[40];
static char mtx_plain[1024], mtx_gz[1024], mtx_dense[1024], outdir[1024];
static gcoo_ctx ctx;

static void make_inputs(void) {
  ut_rng r = {11};
  for (int k = 0; k < 40; k++) {
    urow[k] = (int32_t)ut_below(&r, M);
    ucol[k] = k % 7 == 6 ? ucol[k - 3] : (int32_t)ut_below(&r, K);
    if (k % 7 == 6) urow[k] = urow[k - 3];
    uval[k] = ut_uniform(&r) - 0.5;
  }
  /* CSR arrays: bucket by row, keep the column order of arrival */
  int64_t cnt[M + 1] = {0};
  for (int k = 0; k < 40; k++) cnt[urow[k] + 1]++;
  for (int i = 0; i < M; i++) cnt[i + 1] += cnt[i];
  memcpy(uptr, cnt, sizeof uptr);
  for (int k = 0; k < 40; k++) uind[cnt[urow[k]]++] = ucol[k];
  TEST_CALL(gcoo_sparse_create_coo(&A[0], GCOO_FLOAT64, M, K, 40, urow, ucol, uval, 0));
  TEST_CALL(gcoo_sparse_convert(&A[1], A[0], GCOO_FORMAT_CSR, 0));
  TEST_CALL(gcoo_sparse_convert(&A[2], A[0], GCOO_FORMAT_CSC, 0));
  TEST_CALL(gcoo_sparse_convert(&A[3], A[0], GCOO_FORMAT_GCOO, 4));
  TEST_CALL(gcoo_dense_create(&Dn, GCOO_FLOAT64, GCOO_COL_MAJOR, M, K));
  TEST_CALL(gcoo_sparse_to_dense(A[0], &Dn));
  TEST_CALL(gcoo_dense_create(&Xs, GCOO_FLOAT64, GCOO_ROW_MAJOR, K, N));
  TEST_CALL(gcoo_dense_create(&Ys, GCOO_FLOAT64, GCOO_ROW_MAJOR, M, N));
  TEST_CALL(gcoo_dense_create(&Xd, GCOO_FLOAT64, GCOO_COL_MAJOR, N, M)); /* B (N x M) */
  TEST_CALL(gcoo_dense_create(&Yd, GCOO_FLOAT64, GCOO_COL_MAJOR, N, K)); /* C = B S, S = A */
  TEST_CALL(gcoo_dense_fill_random(&Xs, 1));
  TEST_CALL(gcoo_dense_fill_random(&Xd, 2));
  snprintf(mtx_plain, sizeof mtx_plain, "%s/in.mtx", ut_tmpdir());
  snprintf(mtx_gz, sizeof mtx_gz, "%s/in.mtx.gz", ut_tmpdir());
  snprintf(mtx_dense, sizeof mtx_dense, "%s/dense.mtx", ut_tmpdir());
  snprintf(outdir, sizeof outdir, "%s/out", ut_tmpdir());
  TEST_CALL(gcoo_mtx_write(mtx_plain, A[1]));
  TEST_CALL(gcoo_mtx_write(mtx_gz, A[1]));
  TEST_CALL(gcoo_mtx_write_dense(mtx_dense, &Dn));
  if (mkdir(outdir, 0700) != 0) {
    perror("mkdir");
    exit(1);
  }
  TEST_CALL(gcoo_ctx_create(&ctx, "cpu"));
}

/* ---- the operations: each cleans up after itself, success or failure ------------------------ */
typedef gcoo_status (*op_fn)(int variant);

#define OP_CALL(x)         \
  do {                     \
    st = (x);              \
    if (st < 0) goto done; \
  } while (0)

/* A constructor that fails must not hand out an object. */
#define OP_MAKE(x, handle)                                                      \
  do {                                                                          \
    st = (x);                                                                   \
    if (st < 0 && (handle))                                                     \
      st = GCOO_ERROR(GCOO_ERR_INTERNAL, "a failed %s returned an object", #x); \
    if (st < 0) goto done;                                                      \
  } while (0)

static gcoo_status op_dense(int v) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_dense D = {0};
  OP_CALL(gcoo_dense_create(&D, v ? GCOO_FLOAT32 : GCOO_FLOAT64, GCOO_ROW_MAJOR, 30, 20));
  OP_CALL(gcoo_dense_fill_random(&D, 3));
done:
  gcoo_dense_destroy(&D);
  return st;
}

static gcoo_status op_create(int v) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse B = NULL;
  int64_t g[] = {0, 3, 6}; /* GCOO 4 x 5, p = 3: ordered groups */
  int32_t gr[] = {0, 1, 3, 0, 2, 3}, gc[] = {1, 0, 2, 4, 3, 3};
  switch (v) {
    case 0: OP_CALL(gcoo_sparse_create_coo(&B, GCOO_FLOAT64, M, K, 40, urow, ucol, uval, 0)); break;
    case 1: OP_CALL(gcoo_sparse_create_csr(&B, GCOO_FLOAT64, M, K, uptr, uind, NULL, 0)); break;
    case 2: OP_CALL(gcoo_sparse_create_csc(&B, GCOO_FLOAT64, K, M, uptr, uind, uval, 0)); break;
    case 3: OP_CALL(gcoo_sparse_create_gcoo(&B, GCOO_FLOAT64, 4, 5, 3, g, gr, gc, NULL, 0)); break;
    case 4:
      OP_CALL(gcoo_sparse_create_coo(&B, GCOO_FLOAT32, LIM_DIM, LIM_DIM, 40, urow, ucol, NULL, 0));
      break;
  }
done:
  if (st < 0 && B) st = GCOO_ERROR(GCOO_ERR_INTERNAL, "a failed creation returned an object");
  gcoo_sparse_destroy(&B);
  return st;
}

static gcoo_status op_convert(int v) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse B = NULL;
  OP_CALL(gcoo_sparse_convert(&B, A[v / 4], (gcoo_format)(v % 4), v % 4 == 3 ? 5 : 0));
done:
  if (st < 0 && B) st = GCOO_ERROR(GCOO_ERR_INTERNAL, "a failed conversion returned an object");
  gcoo_sparse_destroy(&B);
  return st;
}

static gcoo_status op_misc(int v) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse B = NULL;
  gcoo_dense D = {0};
  switch (v) {
    case 0:
    case 1:
    case 2:
    case 3: OP_CALL(gcoo_sparse_transpose(&B, A[v])); break;
    case 4:
    case 5:
    case 6:
    case 7: OP_CALL(gcoo_sparse_astype(&B, A[v - 4], GCOO_FLOAT32)); break;
    case 8: OP_CALL(gcoo_sparse_from_dense(&B, &Dn, GCOO_FORMAT_GCOO, 3, 0)); break;
    case 9: OP_CALL(gcoo_sparse_from_dense(&B, &Dn, GCOO_FORMAT_CSC, 0, GCOO_KEEP_ZEROS)); break;
    case 10:
      OP_CALL(gcoo_dense_create(&D, GCOO_FLOAT64, GCOO_ROW_MAJOR, M, K));
      OP_CALL(gcoo_sparse_to_dense(A[3], &D));
      break;
    case 11:
    case 12:
    case 13:
    case 14:
      OP_CALL(gcoo_sparse_random(&B, GCOO_FLOAT32, (gcoo_format)(v - 11), 40, 30, 0.9, 7, 0));
      break;
  }
done:
  if (st < 0 && B) st = GCOO_ERROR(GCOO_ERR_INTERNAL, "a failed call returned an object");
  gcoo_sparse_destroy(&B);
  gcoo_dense_destroy(&D);
  return st;
}

static gcoo_status op_mtx_read(int v) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse B = NULL;
  gcoo_dense D = {0};
  gcoo_mtx_header h;
  switch (v) {
    case 0: OP_CALL(gcoo_mtx_read(mtx_plain, GCOO_FLOAT64, 0, &B)); break;
    case 1: OP_CALL(gcoo_mtx_read(mtx_gz, GCOO_FLOAT32, GCOO_DUPLICATES_ERROR, &B)); break;
    case 2: OP_CALL(gcoo_mtx_read(gcoo_test_data("west0479.mtx.gz"), GCOO_FLOAT64, 0, &B)); break;
    case 3:
      OP_CALL(gcoo_mtx_read(gcoo_test_data("dwt_2680.mtx.gz"), GCOO_FLOAT32, GCOO_DUPLICATES_ERROR,
                            &B));
      break;
    case 4: OP_CALL(gcoo_mtx_read_dense(mtx_dense, GCOO_FLOAT64, GCOO_ROW_MAJOR, &D)); break;
    case 5: OP_CALL(gcoo_mtx_read_header(mtx_gz, &h)); break;
  }
done:
  if (st < 0 && (B || D.data)) st = GCOO_ERROR(GCOO_ERR_INTERNAL, "a failed read returned data");
  gcoo_sparse_destroy(&B);
  gcoo_dense_destroy(&D);
  return st;
}

static gcoo_status op_mtx_write(int v) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", outdir, v == 1 ? "w.mtx.gz" : "w.mtx");
  unlink(path);
  if (v == 2) return gcoo_mtx_write_dense(path, &Dn);
  return gcoo_mtx_write(path, A[v ? 3 : 0]);
}

static gcoo_status op_product(int v) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_op op = NULL;
  gcoo_ctx c = NULL;
  gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
  switch (v) {
    case 0: OP_MAKE(gcoo_ctx_create(&c, "cpu"), c); break;
    case 1:
    case 2:
    case 3:
      o.alg = v == 3 ? GCOO_ALG_REFERENCE : GCOO_ALG_AUTO;
      OP_MAKE(gcoo_op_create(&op, ctx, A[v], &o), op);
      OP_CALL(gcoo_op_apply(op, 1.0, &Xs, 0.0, &Ys));
      break;
    case 4:
      o.reading = GCOO_DENSE_SPARSE;
      o.p = 3;
      OP_MAKE(gcoo_op_create(&op, ctx, A[2], &o), op);
      OP_CALL(gcoo_op_apply(op, 2.0, &Xd, 0.5, &Yd));
      break;
    case 5: OP_CALL(gcoo_spdm(ctx, 1.0, A[0], &Xs, 1.0, &Ys)); break;
    case 6: OP_CALL(gcoo_dnsp(ctx, 1.0, &Xd, A[3], 0.0, &Yd)); break;
    case 7: OP_CALL(gcoo_spdm_reference(1.0, A[2], &Xs, 0.0, &Ys)); break;
    case 8: OP_CALL(gcoo_dnsp_reference(1.0, &Xd, A[0], 0.0, &Yd)); break;
  }
done:
  gcoo_op_destroy(&op);
  gcoo_ctx_destroy(&c);
  return st;
}

static int no_files_left(void) { return ut_count_files(outdir, "w.mtx") == 0; }

/* ---- the sweep ------------------------------------------------------------------------------ */
static long total_failures;

static void sweep(const char *name, op_fn fn, int variant, int writes) {
  long live0 = atomic_load(&live);
  atomic_store(&fail_at, 0);
  atomic_store(&calls, 0);
  gcoo_status st = fn(variant);
  long n = atomic_load(&calls);
  TEST_CHECK(st == GCOO_SUCCESS, "%s[%d] without failures: %s: %s", name, variant,
             gcoo_status_name(st), gcoo_last_error());
  TEST_CHECK(atomic_load(&live) == live0, "%s[%d] leaks %ld blocks when it succeeds", name, variant,
             atomic_load(&live) - live0);
  for (long k = 1; k <= n; k++) {
    gcoo_clear_error();
    atomic_store(&calls, 0);
    atomic_store(&fail_at, k);
    st = fn(variant);
    atomic_store(&fail_at, 0);
    const char *msg = gcoo_last_error();
    TEST_CHECK(st == GCOO_ERR_NO_MEMORY, "%s[%d], allocation %ld of %ld failing: %s (%s)", name,
               variant, k, n, gcoo_status_name(st), msg);
    TEST_CHECK(strstr(msg, "allocate") || strstr(msg, "memory") || strstr(msg, "cannot grow"),
               "%s[%d], allocation %ld of %ld failing: message \"%s\" does not say so", name,
               variant, k, n, msg);
    TEST_CHECK(atomic_load(&live) == live0,
               "%s[%d], allocation %ld of %ld failing: %ld blocks "
               "leaked",
               name, variant, k, n, atomic_load(&live) - live0);
    if (writes)
      TEST_CHECK(no_files_left(), "%s[%d], allocation %ld of %ld failing: a file was left", name,
                 variant, k, n);
    /* a leak would repeat on every k: stop at the first to keep the log short */
    if (atomic_load(&live) != live0) atomic_store(&live, live0);
  }
  total_failures += n;
}

int main(void) {
  make_inputs();
  for (int v = 0; v < 2; v++) sweep("dense", op_dense, v, 0);
  for (int v = 0; v < 5; v++) sweep("create", op_create, v, 0);
  for (int v = 0; v < 16; v++) sweep("convert", op_convert, v, 0);
  for (int v = 0; v < 15; v++) sweep("misc", op_misc, v, 0);
  for (int v = 0; v < 6; v++) sweep("mtx_read", op_mtx_read, v, 0);
  for (int v = 0; v < 3; v++) sweep("mtx_write", op_mtx_write, v, 1);
  for (int v = 0; v < 9; v++) sweep("product", op_product, v, 0);
  printf("%ld allocations made to fail, one at a time, in 56 operations\n", total_failures);
  gcoo_ctx_destroy(&ctx);
  for (int i = 0; i < 4; i++) gcoo_sparse_destroy(&A[i]);
  gcoo_dense_destroy(&Dn);
  gcoo_dense_destroy(&Xs);
  gcoo_dense_destroy(&Ys);
  gcoo_dense_destroy(&Xd);
  gcoo_dense_destroy(&Yd);
  ut_tmpdir_remove();
  return gcoo_test_finish("t911-limits-allocfail");
}
