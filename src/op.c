/* SPDX-License-Identifier: MIT */
/* src/op.c: persistent SpDM operators, backend-neutral part.
 *
 * Both readings of gcoo/spdm.h are brought to one frame here, so that backends implement
 * only Y = alpha * A * X + beta * Y:
 *   GCOO_SPARSE_DENSE: A as given, X and Y as given;
 *   GCOO_DENSE_SPARSE: A = S^T, X = B^T, Y = C^T, where the transposes are views of the same
 *                      buffers (a column-major matrix read as row-major is its transpose).
 * The operator holds its matrix in one of the two frames, taken over from the caller's copy or
 * the distributed layer's slab: the CSR of A (op->A_csr: the CUDA backend uploads it, cuSPARSE
 * and the reference read it) or the GCOO of S (op->S, groups of p rows of A = groups of p
 * columns of S: the CPU kernel's layout, built in place from the CSR or taken as read from a
 * GCOO file). At most one conversion on the way (docs/datapath.md). */
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"

static const char *alg_names[] = {"auto",
                                  "gcoo",
                                  "gcoo_faithful",
                                  "cusparse",
                                  "cusparse_default",
                                  "cusparse_csr_alg2",
                                  "cusparse_csr_alg3",
                                  "dense",
                                  "dense_tf32",
                                  "reference",
                                  "csr"};

const char *gcoo_spdm_alg_name(gcoo_spdm_alg alg) {
  return gcoo__name_of(alg_names, GCOO_COUNT_OF(alg_names), (int)alg);
}

int gcoo_spdm_alg_from_name(const char *name) {
  return gcoo__index_of(alg_names, GCOO_COUNT_OF(alg_names), name);
}

/* The caller's options, completed and checked (the gcoo_op_options size pattern). */
static gcoo_status read_options(const gcoo_op_options *opts, gcoo_op_options *o) {
  *o = (gcoo_op_options)GCOO_OP_OPTIONS_INIT;
  GCOO_CALL(gcoo__options_read(opts, o, sizeof *o, "GCOO_OP_OPTIONS_INIT"));
  GCOO_CHECK(o->reading == GCOO_SPARSE_DENSE || o->reading == GCOO_DENSE_SPARSE,
             GCOO_ERR_INVALID_ARG, "unknown reading %d", (int)o->reading);
  GCOO_CHECK((int)o->alg >= 0 && o->alg <= GCOO_ALG_CSR, GCOO_ERR_INVALID_ARG,
             "unknown algorithm %d", (int)o->alg);
  GCOO_CHECK(o->p >= 0, GCOO_ERR_INVALID_ARG, "group width p = %d must be >= 0", o->p);
  GCOO_CHECK(o->ncols_hint >= 0, GCOO_ERR_INVALID_ARG, "ncols_hint must be >= 0");
  GCOO_CHECK(o->math == GCOO_MATH_EXACT || o->math == GCOO_MATH_TF32, GCOO_ERR_INVALID_ARG,
             "unknown math mode %d (GCOO_MATH_EXACT or GCOO_MATH_TF32)", (int)o->math);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_op_create(gcoo_op *out, gcoo_ctx ctx, gcoo_sparse A, const gcoo_op_options *opts) {
  gcoo_op_options o;
  gcoo_sparse F = NULL;
  GCOO_CHECK(out != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *out = NULL;
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CALL(read_options(opts, &o));
  double t0 = gcoo__wtime();
  GCOO_CALL(gcoo__sparse_frame_copy(A, o.reading, &F));
  GCOO_CALL(gcoo__op_create_take(out, ctx, &F, &o));
  (*out)->info.setup_seconds = gcoo__wtime() - t0; /* the copy included */
  return GCOO_SUCCESS;
}

gcoo_status gcoo__op_create_take(gcoo_op *out, gcoo_ctx ctx, gcoo_sparse *A,
                                 const gcoo_op_options *opts) {
  gcoo_status st = GCOO_SUCCESS;
  struct gcoo_op_s *op = NULL;
  gcoo_sparse_info ai;
  gcoo_op_options o;
  double t0 = gcoo__wtime();
  *out = NULL;
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_GOTO(read_options(opts, &o));
  GCOO_GOTO(gcoo_sparse_get_info(*A, &ai));
  GCOO_CHECK_GOTO(ai.format == GCOO_FORMAT_CSR || ai.format == GCOO_FORMAT_GCOO, GCOO_ERR_INTERNAL,
                  "an operator is made from the CSR of A or the GCOO of S");
  GCOO_GOTO(gcoo__calloc((void **)&op, 1, sizeof *op, "operator"));
  op->magic = GCOO_MAGIC_OP;
  op->ctx = ctx;
  op->opts = o;
  /* the A frame: m rows of A (of Y), k columns */
  const int is_csr = ai.format == GCOO_FORMAT_CSR;
  const int64_t m = is_csr ? ai.nrows : ai.ncols, k = is_csr ? ai.ncols : ai.nrows;
  if (is_csr)
    op->A_csr = *A;
  else
    op->S = *A;
  *A = NULL;
  op->info.reading = o.reading;
  op->info.dtype = ai.dtype;
  op->info.alg = o.alg;
  op->info.nrows = o.reading == GCOO_SPARSE_DENSE ? m : k;
  op->info.ncols = o.reading == GCOO_SPARSE_DENSE ? k : m;
  op->info.nnz = ai.nnz;
  /* the reference and the backends without a GCOO set-up read the CSR of A: one conversion */
  if (!op->A_csr && (o.alg == GCOO_ALG_REFERENCE || !ctx->ops->setup_from_gcoo)) {
    GCOO_GOTO(gcoo__gcoo_to_csr_of_transpose(op->S, &op->A_csr));
    gcoo_sparse_destroy(&op->S);
  }
  if (o.alg != GCOO_ALG_REFERENCE) GCOO_GOTO(ctx->ops->op_setup(op));
  op->info.setup_seconds = gcoo__wtime() - t0;
  GCOO_LOG(GCOO_LOG_INFO, "OP", "operator %lld x %lld nnz %lld: %s, p = %d, setup %.3f ms",
           (long long)op->info.nrows, (long long)op->info.ncols, (long long)ai.nnz,
           gcoo_spdm_alg_name(op->info.alg), op->info.p, 1e3 * op->info.setup_seconds);
  *out = op;
  op = NULL;
done:
  if (*A) gcoo_sparse_destroy(A);
  if (op) gcoo_op_destroy(&op);
  return st;
}

gcoo_status gcoo__op_csr(gcoo_op op, gcoo_sparse *A_csr) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_OP, "operator");
  GCOO_CHECK(A_csr != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A_csr = NULL;
  if (op->A_csr)
    GCOO_CALL(gcoo__sparse_clone(op->A_csr, A_csr));
  else
    GCOO_CALL(gcoo__gcoo_to_csr_of_transpose(op->S, A_csr));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__op_rows(gcoo_op op, const int64_t *rows, int64_t n, gcoo_sparse *R) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t total = 0;
  gcoo__csr_arrays a = {NULL, NULL, NULL};
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_OP, "operator");
  GCOO_CHECK(R != NULL && (rows != NULL || n == 0), GCOO_ERR_NULL, "output or rows is NULL");
  *R = NULL;
  const int sd = op->opts.reading == GCOO_SPARSE_DENSE;
  const int64_t m = sd ? op->info.nrows : op->info.ncols, k = sd ? op->info.ncols : op->info.nrows;
  const size_t es = gcoo_dtype_size(op->info.dtype);
  for (int64_t t = 0; t < n; t++)
    GCOO_CHECK(rows[t] >= 0 && rows[t] < m && (t == 0 || rows[t] > rows[t - 1]),
               GCOO_ERR_INVALID_ARG, "row %lld (position %lld) is outside 0..%lld or out of order",
               (long long)rows[t], (long long)t, (long long)m - 1);
  gcoo_csr_view c = {0};
  gcoo_grouped_view g = {0};
  if (op->A_csr)
    GCOO_CALL(gcoo__sparse_csr_view(op->A_csr, &c));
  else
    GCOO_CALL(gcoo__sparse_grouped_view(op->S, &g));
  /* two passes: count, then copy (a row of A is column r of S: its group's entries with
   * cols == r, already in increasing row of S = column of A) */
  GCOO_GOTO(gcoo__calloc((void **)&a.ptr, (size_t)n + 1, sizeof *a.ptr, "row pointer"));
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t t = 0; t < n; t++) {
      const int64_t r = rows[t];
      int64_t w = pass ? a.ptr[t] : 0;
      if (op->A_csr) {
        for (int64_t e = c.ptr[r]; e < c.ptr[r + 1]; e++, w++)
          if (pass) {
            a.ind[w] = c.ind[e];
            memcpy((char *)a.values + (size_t)w * es, (const char *)c.values + (size_t)e * es, es);
          }
      } else {
        const int64_t q = r / g.p;
        for (int64_t e = g.gidx[q]; e < g.gidx[q + 1]; e++) {
          if (g.cols[e] != r) continue;
          if (pass) {
            a.ind[w] = g.rows[e];
            memcpy((char *)a.values + (size_t)w * es, (const char *)g.values + (size_t)e * es, es);
          }
          w++;
        }
      }
      if (!pass) a.ptr[t + 1] = a.ptr[t] + w;
    }
    if (!pass) {
      total = a.ptr[n];
      GCOO_GOTO(gcoo__malloc_n((void **)&a.ind, total, sizeof *a.ind, "column indices"));
      GCOO_GOTO(gcoo__malloc_n(&a.values, total, es, "values"));
    }
  }
  GCOO_GOTO(gcoo__csr_arrays_adopt(&a, R, op->info.dtype, n, k, total));
done:
  gcoo__csr_arrays_free(&a);
  return st;
}

gcoo_status gcoo_op_apply(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                          gcoo_dense *Y) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_OP, "operator");
  GCOO_CALL(gcoo_dense_check(X));
  GCOO_CALL(gcoo_dense_check(Y));
  /* A in the SPARSE_DENSE frame: ai.nrows x ai.ncols */
  gcoo_sparse_info ai = {0};
  const int sd = op->opts.reading == GCOO_SPARSE_DENSE;
  ai.dtype = op->info.dtype;
  ai.nrows = sd ? op->info.nrows : op->info.ncols;
  ai.ncols = sd ? op->info.ncols : op->info.nrows;
  GCOO_CHECK(X->dtype == ai.dtype && Y->dtype == ai.dtype, GCOO_ERR_DTYPE,
             "operator is %s, operands are %s and %s", ai.dtype ? "float64" : "float32",
             X->dtype ? "float64" : "float32", Y->dtype ? "float64" : "float32");
  GCOO_CHECK(X->mem == Y->mem, GCOO_ERR_INVALID_ARG,
             "operands in different memory spaces (one host, one device)");
  GCOO_CHECK(!gcoo__dense_overlap(X, Y), GCOO_ERR_INVALID_ARG,
             "input and output share a buffer: the output must not overlap the input");
  gcoo_dense Xf = *X, Yf = *Y;
  if (op->opts.reading == GCOO_DENSE_SPARSE) {
    /* C = B S  <=>  C^T = S^T B^T = A B^T */
    GCOO_CHECK(X->ncols == ai.ncols && Y->ncols == ai.nrows && X->nrows == Y->nrows, GCOO_ERR_SHAPE,
               "C = B S needs B (M x %lld) and C (M x %lld); got B %lld x %lld, "
               "C %lld x %lld",
               (long long)ai.ncols, (long long)ai.nrows, (long long)X->nrows, (long long)X->ncols,
               (long long)Y->nrows, (long long)Y->ncols);
    Xf = gcoo__dense_transposed(X);
    Yf = gcoo__dense_transposed(Y);
  } else {
    GCOO_CHECK(X->nrows == ai.ncols && Y->nrows == ai.nrows && X->ncols == Y->ncols, GCOO_ERR_SHAPE,
               "Y = A X with A %lld x %lld needs X (%lld x N) and Y (%lld x N); "
               "got X %lld x %lld, Y %lld x %lld",
               (long long)ai.nrows, (long long)ai.ncols, (long long)ai.ncols, (long long)ai.nrows,
               (long long)X->nrows, (long long)X->ncols, (long long)Y->nrows, (long long)Y->ncols);
  }
  if (op->info.alg == GCOO_ALG_REFERENCE) {
    GCOO_CHECK(X->mem == GCOO_MEM_HOST, GCOO_ERR_UNSUPPORTED,
               "the reference algorithm needs host operands");
    GCOO_CALL(gcoo_spdm_reference(alpha, op->A_csr, &Xf, beta, &Yf));
    return GCOO_SUCCESS;
  }
  GCOO_CHECK(X->mem == GCOO_MEM_HOST || op->ctx->device >= 0, GCOO_ERR_INVALID_ARG,
             "device operands given to the %s backend", op->ctx->ops->name);
  GCOO_CALL(op->ctx->ops->op_apply(op, alpha, &Xf, beta, &Yf));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_op_get_info(gcoo_op op, gcoo_op_info *info) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_OP, "operator");
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  *info = op->info;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_op_destroy(gcoo_op *op) {
  if (!op || !*op) return GCOO_SUCCESS;
  GCOO_VALID_OBJECT(*op, GCOO_MAGIC_OP, "operator");
  gcoo_status st = GCOO_SUCCESS;
  if ((*op)->backend) st = (*op)->ctx->ops->op_destroy(*op);
  gcoo_sparse_destroy(&(*op)->S);
  gcoo_sparse_destroy(&(*op)->A_csr);
  (*op)->magic = GCOO_MAGIC_FREED;
  free(*op);
  *op = NULL;
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* The one-shot products: an operator made for one apply in the given reading, then destroyed. */
static gcoo_status apply_once(gcoo_ctx ctx, gcoo_reading reading, int64_t ncols_hint, gcoo_sparse A,
                              double alpha, const gcoo_dense *X, double beta, gcoo_dense *Y) {
  gcoo_op op = NULL;
  gcoo_op_options o = GCOO_OP_OPTIONS_INIT;
  o.reading = reading;
  o.ncols_hint = ncols_hint;
  GCOO_CALL(gcoo_op_create(&op, ctx, A, &o));
  gcoo_status st = gcoo_op_apply(op, alpha, X, beta, Y);
  if (st >= 0) st = gcoo_ctx_synchronize(ctx);
  gcoo_op_destroy(&op);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_spdm(gcoo_ctx ctx, double alpha, gcoo_sparse A, const gcoo_dense *X, double beta,
                      gcoo_dense *Y) {
  GCOO_CALL(apply_once(ctx, GCOO_SPARSE_DENSE, X ? X->ncols : 0, A, alpha, X, beta, Y));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dnsp(gcoo_ctx ctx, double alpha, const gcoo_dense *B, gcoo_sparse S, double beta,
                      gcoo_dense *C) {
  GCOO_CALL(apply_once(ctx, GCOO_DENSE_SPARSE, B ? B->nrows : 0, S, alpha, B, beta, C));
  return GCOO_SUCCESS;
}
