/* SPDX-License-Identifier: MIT */
/* dist/dist_op.c: persistent distributed operators: the rank's slab of rows of A (columns of S),
 * checked to tile the matrix, turned into a local gcoo_op on the rank's context once, applied
 * many times.
 *
 * A slab arrives in one of the operator's two frames (docs/datapath.md): the CSR of A (rows of
 * A, global column indices) or the GCOO of S = A^T whose groups are rows of A (a GCOO file read
 * in the paper's reading). It is handed to the local operator as it is (REPLICATED) or split
 * once into its diagonal and halo blocks (PARTITIONED); the local operator takes the blocks over,
 * no copies. The caller's reading only decides how operands are read: the halo exchange looks
 * at X in the A frame through transposed views. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist_access.h"
#include "dist_impl.h"

/* Copy of the caller's options with their size checked (the gcoo_op_options pattern). */
static gcoo_status read_options(const gcoo_dist_op_options *in, gcoo_dist_op_options *o) {
  *o = (gcoo_dist_op_options)GCOO_DIST_OP_OPTIONS_INIT;
  GCOO_CALL(gcoo__options_read(in, o, sizeof *o, "GCOO_DIST_OP_OPTIONS_INIT"));
  GCOO_CHECK(o->xmode == GCOO_DIST_X_REPLICATED || o->xmode == GCOO_DIST_X_PARTITIONED,
             GCOO_ERR_INVALID_ARG, "unknown X mode %d", (int)o->xmode);
  GCOO_CHECK(o->local.reading == GCOO_SPARSE_DENSE || o->local.reading == GCOO_DENSE_SPARSE,
             GCOO_ERR_INVALID_ARG, "unknown reading %d", (int)o->local.reading);
  GCOO_CHECK(isfinite(o->shift), GCOO_ERR_INVALID_ARG, "diagonal shift %g is not finite", o->shift);
  return GCOO_SUCCESS;
}

/* A local operator from a block in either frame (CSR of A or GCOO of S), taken over. */
static gcoo_status make_local_op(gcoo_dist d, gcoo_sparse *block, const gcoo_op_options *lo,
                                 gcoo_op *op) {
  *op = NULL;
  GCOO_CALL(gcoo__op_create_take(op, d->ctx, block, lo));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dist_op_destroy(gcoo_dist_op *op) {
  if (!op || !*op) return GCOO_SUCCESS;
  GCOO_VALID_OBJECT(*op, GCOO_MAGIC_DIST_OP, "distributed operator");
  struct gcoo_dist_op_s *o = *op;
  gcoo_status st = gcoo_op_destroy(&o->local);
  gcoo_status st2 = gcoo_op_destroy(&o->offd);
  gcoo__halo_free(&o->halo);
  free(o->row_begin);
  free(o->col_begin);
  o->magic = GCOO_MAGIC_FREED;
  free(o);
  *op = NULL;
  GCOO_CALL(st);
  GCOO_CALL(st2);
  return GCOO_SUCCESS;
}

/* Per-rank facts every rank needs to check the tiling, all-gathered in one call. */
enum { F_ROW0, F_NROWS, F_K, F_M, F_NNZ, F_DTYPE, F_XMODE, F_READING, F_COUNT };

/* The operator of gcoo__dist_op_create_aframe, or with col_begin (size + 1 offsets, copied) a
 * rectangular PARTITIONED one whose X rows are split by col_begin. */
static gcoo_status create_frame(gcoo_dist d, gcoo_sparse *slab, int64_t row0, int64_t m_global,
                                int64_t k, const int64_t *col_begin,
                                const gcoo_dist_op_options *opts, gcoo_dist_op *out) {
  gcoo_status st = GCOO_SUCCESS;
  struct gcoo_dist_op_s *op = NULL;
  int64_t *facts = NULL;
  gcoo_sparse A_diag = NULL, A_offd = NULL, A_shifted = NULL, A_csr = NULL;
  gcoo_sparse_info ai = {0};
  *out = NULL;
  /* an unbound context (gcoo_dist_create_unbound) gets its device now, after the read */
  GCOO_CALL(gcoo_dist_bind(d));
  double t0 = gcoo__wtime();

  /* 1. local checks, then agree, so no rank enters the all-gather alone */
  st = gcoo_sparse_get_info(*slab, &ai);
  if (st >= 0 && ai.format != GCOO_FORMAT_CSR && ai.format != GCOO_FORMAT_GCOO)
    st = GCOO_ERROR(GCOO_ERR_INTERNAL, "a slab comes as the CSR of A or the GCOO of S");
  /* the A frame: rows of A are the columns of S */
  const int is_csr = ai.format == GCOO_FORMAT_CSR;
  const int64_t nrows_a = is_csr ? ai.nrows : ai.ncols;
  if (st >= 0) st = gcoo__calloc((void **)&op, 1, sizeof *op, "distributed operator");
  if (st >= 0)
    st = gcoo__malloc_n((void **)&facts, (int64_t)d->size * F_COUNT, sizeof(int64_t), "slab table");
  if (st >= 0)
    st = gcoo__malloc_n((void **)&op->row_begin, d->size + 1, sizeof(int64_t), "row partition");
  if (st >= 0 && col_begin) {
    st = gcoo__malloc_n((void **)&op->col_begin, d->size + 1, sizeof(int64_t), "X partition");
    if (st >= 0) memcpy(op->col_begin, col_begin, (size_t)(d->size + 1) * sizeof(int64_t));
  }
  GCOO_GOTO(gcoo__dist_agree(d, st));
  op->magic = GCOO_MAGIC_DIST_OP;
  op->d = d;
  op->opts = *opts;
  op->dtype = ai.dtype;
  op->row0 = row0;
  op->nrows = nrows_a;
  op->k = k;
  op->m_global = m_global;
  op->nnz_local = ai.nnz;

  /* 2. every rank sees every slab and reaches the same verdict (same message everywhere) */
  int64_t mine[F_COUNT] = {row0,   nrows_a,  k,           m_global,
                           ai.nnz, ai.dtype, opts->xmode, opts->local.reading};
  GCOO_GOTO(
      GCOO_MPI(MPI_Allgather(mine, F_COUNT, MPI_INT64_T, facts, F_COUNT, MPI_INT64_T, d->comm)));
  int64_t next = 0, nnz_max = 0;
  op->nnz_global = 0;
  for (int r = 0; r < d->size; r++) {
    const int64_t *f = facts + (size_t)r * F_COUNT;
    GCOO_CHECK_GOTO(f[F_DTYPE] == facts[F_DTYPE], GCOO_ERR_DTYPE,
                    "rank %d's slab is %s, rank 0's is %s", r,
                    f[F_DTYPE] == GCOO_FLOAT64 ? "float64" : "float32",
                    facts[F_DTYPE] == GCOO_FLOAT64 ? "float64" : "float32");
    GCOO_CHECK_GOTO(f[F_XMODE] == facts[F_XMODE] && f[F_READING] == facts[F_READING],
                    GCOO_ERR_INVALID_ARG,
                    "rank %d passed other options (X mode, reading) than "
                    "rank 0",
                    r);
    GCOO_CHECK_GOTO(f[F_M] == m_global && f[F_K] == k, GCOO_ERR_SHAPE,
                    "rank %d has a slab of a %lld x %lld matrix, rank %d of %lld x %lld", r,
                    (long long)f[F_M], (long long)f[F_K], d->rank, (long long)m_global,
                    (long long)k);
    GCOO_CHECK_GOTO(f[F_ROW0] == next && f[F_NROWS] >= 0, GCOO_ERR_SHAPE,
                    "slabs must tile the %lld rows in rank order: rank %d starts at row %lld, "
                    "expected %lld",
                    (long long)m_global, r, (long long)f[F_ROW0], (long long)next);
    op->row_begin[r] = next;
    next += f[F_NROWS];
    op->nnz_global += f[F_NNZ];
    if (f[F_NNZ] > nnz_max) nnz_max = f[F_NNZ];
  }
  op->row_begin[d->size] = next;
  GCOO_CHECK_GOTO(next == m_global, GCOO_ERR_SHAPE,
                  "the ranks' slabs cover %lld rows of a %lld-row matrix", (long long)next,
                  (long long)m_global);
  GCOO_CHECK_GOTO(!col_begin || (opts->xmode == GCOO_DIST_X_PARTITIONED && col_begin[0] == 0 &&
                                 col_begin[d->size] == k && opts->shift == 0.0),
                  GCOO_ERR_INTERNAL,
                  "a rectangular operator is PARTITIONED, unshifted, and its X "
                  "partition covers its %lld columns",
                  (long long)k);
  GCOO_CHECK_GOTO(opts->xmode != GCOO_DIST_X_PARTITIONED || k == m_global || col_begin,
                  GCOO_ERR_SHAPE,
                  "PARTITIONED X needs a square matrix (X rows split like Y rows); this one is "
                  "%lld x %lld: use GCOO_DIST_X_REPLICATED",
                  (long long)m_global, (long long)k);
  GCOO_CHECK_GOTO(opts->shift == 0.0 || k == m_global, GCOO_ERR_SHAPE,
                  "a diagonal shift needs a square matrix; this one is %lld x %lld",
                  (long long)m_global, (long long)k);
  op->xrow0 = col_begin ? col_begin[d->rank] : row0;
  op->xnrows = col_begin ? col_begin[d->rank + 1] - col_begin[d->rank] : op->nrows;
  op->imbalance = op->nnz_global > 0 ? (double)nnz_max / ((double)op->nnz_global / d->size) : 1.0;

  /* A + shift I: the slab's diagonal entries sit at columns row0 + i of A (rows row0 + j of S) */
  if (opts->shift != 0.0) {
    st = gcoo_sparse_add_diagonal(&A_shifted, *slab, opts->shift, is_csr ? row0 : -row0);
    GCOO_GOTO(gcoo__dist_agree(d, st));
    gcoo_sparse_destroy(slab);
    *slab = A_shifted;
    A_shifted = NULL;
  }

  /* 3. the local operator(s), each taking its block over */
  if (opts->xmode == GCOO_DIST_X_PARTITIONED && d->size > 1) {
    /* the halo pattern reads the columns of A: a GCOO slab is converted once */
    if (!is_csr) {
      st = gcoo__gcoo_to_csr_of_transpose(*slab, &A_csr);
      GCOO_GOTO(gcoo__dist_agree(d, st));
      gcoo_sparse_destroy(slab);
    } else {
      A_csr = *slab;
      *slab = NULL;
    }
    GCOO_GOTO(gcoo__halo_build(d, col_begin ? op->col_begin : op->row_begin, A_csr, &A_diag,
                               &A_offd, &op->halo));
    gcoo_sparse_destroy(&A_csr); /* its two blocks hold the entries now */
    if (op->nrows > 0) st = make_local_op(d, &A_diag, &opts->local, &op->local);
    if (st >= 0 && op->halo.nrecv > 0) st = make_local_op(d, &A_offd, &opts->local, &op->offd);
  } else if (op->nrows > 0) {
    /* REPLICATED, or PARTITIONED on one rank: its diagonal block is the whole slab (row0 = 0,
     * so local and global columns agree), nothing to split and no halo */
    st = make_local_op(d, slab, &opts->local, &op->local);
  }
  GCOO_GOTO(gcoo__dist_agree(d, st));
  op->setup_seconds = gcoo__wtime() - t0;
  GCOO_LOG(GCOO_LOG_INFO, "DIST",
           "rows [%lld, %lld) of %lld x %lld, nnz %lld of %lld, "
           "imbalance %.3f, %s X",
           (long long)row0, (long long)(row0 + op->nrows), (long long)m_global, (long long)k,
           (long long)op->nnz_local, (long long)op->nnz_global, op->imbalance,
           opts->xmode == GCOO_DIST_X_PARTITIONED ? "partitioned" : "replicated");
  *out = op;
  op = NULL;
done:
  free(facts);
  gcoo_sparse_destroy(slab);
  gcoo_sparse_destroy(&A_csr);
  gcoo_sparse_destroy(&A_shifted);
  gcoo_sparse_destroy(&A_diag);
  gcoo_sparse_destroy(&A_offd);
  if (op) {
    op->magic = GCOO_MAGIC_DIST_OP;
    gcoo_dist_op_destroy(&op);
  }
  return st;
}

gcoo_status gcoo__dist_op_create_aframe(gcoo_dist d, gcoo_sparse *slab, int64_t row0,
                                        int64_t m_global, int64_t k,
                                        const gcoo_dist_op_options *opts, gcoo_dist_op *out) {
  return create_frame(d, slab, row0, m_global, k, NULL, opts, out);
}

gcoo_status gcoo__dist_op_create_rect(gcoo_dist d, gcoo_sparse *slab, int64_t row0,
                                      int64_t m_global, const int64_t *col_begin,
                                      const gcoo_dist_op_options *opts, gcoo_dist_op *out) {
  return create_frame(d, slab, row0, m_global, col_begin[d->size], col_begin, opts, out);
}

gcoo_status gcoo_dist_op_create(gcoo_dist d, gcoo_sparse A_slab, int64_t row0, int64_t m_global,
                                const gcoo_dist_op_options *opts, gcoo_dist_op *op) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse F = NULL;
  gcoo_sparse_info si = {0};
  gcoo_dist_op_options o;
  GCOO_VALID_OBJECT(d, GCOO_MAGIC_DIST, "distributed context");
  GCOO_CHECK(op != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *op = NULL;
  st = read_options(opts, &o);
  if (st >= 0) st = gcoo_sparse_get_info(A_slab, &si);
  if (st >= 0 && (row0 < 0 || m_global < 0))
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "row0 = %lld, m_global = %lld must be >= 0",
                    (long long)row0, (long long)m_global);
  /* the caller's slab copied into one of the two frames, with at most one conversion */
  if (st >= 0) st = gcoo__sparse_frame_copy(A_slab, o.local.reading, &F);
  GCOO_GOTO(gcoo__dist_agree(d, st));
  const int64_t k = o.local.reading == GCOO_DENSE_SPARSE ? si.nrows : si.ncols;
  GCOO_GOTO(gcoo__dist_op_create_aframe(d, &F, row0, m_global, k, &o, op));
done:
  gcoo_sparse_destroy(&F);
  return st;
}

gcoo_dist gcoo_dist_op_get_dist(gcoo_dist_op op) {
  return op && op->magic == GCOO_MAGIC_DIST_OP ? op->d : NULL;
}

gcoo_status gcoo_dist_op_get_row_range(gcoo_dist_op op, int64_t *row0, int64_t *nrows) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  GCOO_CHECK(row0 && nrows, GCOO_ERR_NULL, "output pointer is NULL");
  *row0 = op->row0;
  *nrows = op->nrows;
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dist_op_get_info(gcoo_dist_op op, gcoo_dist_op_info *info) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  const gcoo__halo *h = &op->halo;
  *info = (gcoo_dist_op_info){
      .m_global = op->m_global,
      .k = op->k,
      .nnz_global = op->nnz_global,
      .nnz_local = op->nnz_local,
      .row0 = op->row0,
      .nrows_local = op->nrows,
      .imbalance = op->imbalance,
      .xmode = op->opts.xmode,
      .halo_rows_recv = h->nrecv,
      .halo_rows_send = h->nsend,
      .halo_peers = h->nrecv_peers > h->nsend_peers ? h->nrecv_peers : h->nsend_peers,
      .read_seconds = op->read_seconds,
      .setup_seconds = op->setup_seconds,
  };
  if (op->local) {
    GCOO_CALL(gcoo_op_get_info(op->local, &info->local));
  } else {
    /* a rank without rows holds no local operator: describe the empty one it stands for (its
     * element type is the operator's: solvers check their blocks against it) */
    info->local.dtype = op->dtype;
    info->local.nrows = op->nrows;
    info->local.ncols = op->k;
    info->local.reading = op->opts.local.reading;
    info->local.alg = op->opts.local.alg;
    info->local.p = op->opts.local.p;
  }
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dist_op_get_local_matrix(gcoo_dist_op op, gcoo_sparse *A_slab) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  GCOO_CHECK(A_slab != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A_slab = NULL;
  int64_t *rows = NULL;
  GCOO_CALL(gcoo__malloc_n((void **)&rows, op->nrows, sizeof *rows, "row list"));
  for (int64_t i = 0; i < op->nrows; i++) rows[i] = op->row0 + i;
  gcoo_status st = gcoo_dist_op_get_local_rows(op, rows, op->nrows, A_slab);
  free(rows);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* Entries of the given local rows of one block, columns mapped to global ones (diagonal block:
 * + row0; off-diagonal block: the halo's row numbers), appended to the CSR being built. */
static gcoo_status block_rows(gcoo_dist_op op, gcoo_op block, int offd, const int64_t *local,
                              int64_t n, gcoo_sparse *R) {
  GCOO_CALL(gcoo__op_rows(block, local, n, R));
  gcoo_sparse_arrays a;
  gcoo_sparse_info ri;
  GCOO_CALL(gcoo_sparse_get_arrays(*R, &a));
  GCOO_CALL(gcoo_sparse_get_info(*R, &ri));
  const int partitioned = op->opts.xmode == GCOO_DIST_X_PARTITIONED;
  int32_t *ind = (int32_t *)a.ind;
  for (int64_t e = 0; e < ri.nnz; e++)
    ind[e] = offd          ? op->halo.recv_rows[ind[e]]
             : partitioned ? (int32_t)(op->xrow0 + ind[e])
                           : ind[e];
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dist_op_get_local_rows(gcoo_dist_op op, const int64_t *rows, int64_t n,
                                        gcoo_sparse *R) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *local = NULL, *ptr = NULL;
  int32_t *ind = NULL;
  char *vals = NULL;
  gcoo_sparse B[2] = {NULL, NULL};
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  GCOO_CHECK(R != NULL && (rows != NULL || n == 0), GCOO_ERR_NULL, "output or rows is NULL");
  *R = NULL;
  const size_t es = gcoo_dtype_size(op->dtype);
  GCOO_GOTO(gcoo__malloc_n((void **)&local, n, sizeof *local, "row list"));
  for (int64_t t = 0; t < n; t++) {
    GCOO_CHECK_GOTO(rows[t] >= op->row0 && rows[t] < op->row0 + op->nrows &&
                        (t == 0 || rows[t] > rows[t - 1]),
                    GCOO_ERR_INVALID_ARG,
                    "row %lld (position %lld) is not one of this rank's rows %lld..%lld in "
                    "increasing order",
                    (long long)rows[t], (long long)t, (long long)op->row0,
                    (long long)(op->row0 + op->nrows - 1));
    local[t] = rows[t] - op->row0;
  }
  gcoo_op blocks[2] = {op->local, op->offd};
  for (int b = 0; b < 2; b++)
    if (blocks[b]) GCOO_GOTO(block_rows(op, blocks[b], b == 1, local, n, &B[b]));
  /* the two blocks' entries of each row side by side; gcoo_sparse_create_csr sorts them */
  gcoo_sparse_arrays a[2] = {{0}, {0}};
  int64_t total = 0;
  for (int b = 0; b < 2; b++) {
    gcoo_sparse_info bi;
    if (!B[b]) continue;
    GCOO_GOTO(gcoo_sparse_get_arrays(B[b], &a[b]));
    GCOO_GOTO(gcoo_sparse_get_info(B[b], &bi));
    total += bi.nnz;
  }
  GCOO_GOTO(gcoo__calloc((void **)&ptr, (size_t)n + 1, sizeof *ptr, "row pointer"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ind, total, sizeof *ind, "column indices"));
  GCOO_GOTO(gcoo__malloc_n((void **)&vals, total, es, "values"));
  int64_t w = 0;
  for (int64_t t = 0; t < n; t++) {
    for (int b = 0; b < 2; b++) {
      if (!B[b]) continue;
      for (int64_t e = a[b].ptr[t]; e < a[b].ptr[t + 1]; e++, w++) {
        ind[w] = a[b].ind[e];
        memcpy(vals + (size_t)w * es, (const char *)a[b].values + (size_t)e * es, es);
      }
    }
    ptr[t + 1] = w;
  }
  GCOO_GOTO(gcoo_sparse_create_csr(R, op->dtype, n, op->k, ptr, ind, vals, 0));
done:
  gcoo_sparse_destroy(&B[0]);
  gcoo_sparse_destroy(&B[1]);
  free(local);
  free(ptr);
  free(ind);
  free(vals);
  return st;
}

/* Shapes of the operands of an apply, in the caller's reading. */
static gcoo_status check_operands(gcoo_dist_op op, const gcoo_dense *X, const gcoo_dense *Y) {
  GCOO_CALL(gcoo_dense_check(X));
  GCOO_CALL(gcoo_dense_check(Y));
  GCOO_CHECK(X->dtype == op->dtype && Y->dtype == op->dtype, GCOO_ERR_DTYPE,
             "operator is %s, operands are %s and %s", op->dtype ? "float64" : "float32",
             X->dtype ? "float64" : "float32", Y->dtype ? "float64" : "float32");
  GCOO_CHECK(X->mem == Y->mem, GCOO_ERR_INVALID_ARG,
             "operands in different memory spaces (one host, one device)");
  const int partitioned = op->opts.xmode == GCOO_DIST_X_PARTITIONED;
  const int64_t xk = partitioned ? op->xnrows : op->k;
  /* the dense x sparse reading is the transpose of the sparse x dense one: the operands' rows
   * and columns trade places, and so do the words of the messages */
  const int sd = op->opts.local.reading == GCOO_SPARSE_DENSE;
  const int64_t x_len = sd ? X->nrows : X->ncols, x_n = sd ? X->ncols : X->nrows;
  const int64_t y_len = sd ? Y->nrows : Y->ncols, y_n = sd ? Y->ncols : Y->nrows;
  const char *whose = partitioned ? (sd ? "this rank's rows" : "this rank's columns")
                                  : (sd ? "all rows" : "all columns");
  GCOO_CHECK(x_len == xk && y_len == op->nrows && x_n == y_n, GCOO_ERR_SHAPE,
             sd ? "Y_slab = A_slab X on rank %d needs X (%lld x N, %s) and Y_slab (%lld x N); got "
                  "X %lld x %lld, Y %lld x %lld"
                : "C_slab = B S_slab on rank %d needs B (M x %lld, %s) and C_slab (M x %lld); got "
                  "B %lld x %lld, C %lld x %lld",
             op->d->rank, (long long)xk, whose, (long long)op->nrows, (long long)X->nrows,
             (long long)X->ncols, (long long)Y->nrows, (long long)Y->ncols);
  GCOO_CHECK(!partitioned || X->layout == (sd ? GCOO_ROW_MAJOR : GCOO_COL_MAJOR),
             GCOO_ERR_INVALID_ARG,
             sd ? "PARTITIONED X must be row-major in the sparse x dense reading"
                : "PARTITIONED B must be column-major in the dense x sparse reading");
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dist_op_apply(gcoo_dist_op op, double alpha, const gcoo_dense *X, double beta,
                               gcoo_dense *Y_slab) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  gcoo_dist d = op->d;
  gcoo_status st = check_operands(op, X, Y_slab);
  if (st >= 0 && op->opts.xmode == GCOO_DIST_X_PARTITIONED && d->size > 1) {
    /* the halo columns: X in the A frame is this rank's rows of X, or the rows of B^T */
    const int64_t N = op->opts.local.reading == GCOO_DENSE_SPARSE ? X->nrows : X->ncols;
    st = gcoo__halo_reserve(d, &op->halo, op->dtype, N, X->mem);
  }
  GCOO_CALL(gcoo__dist_agree(d, st));
  st = gcoo__dist_op_apply_checked(op, alpha, X, beta, Y_slab);
  GCOO_CALL(gcoo__dist_agree(d, st));
  return GCOO_SUCCESS;
}

gcoo_op gcoo__dist_op_local(gcoo_dist_op op) { return op ? op->local : NULL; }

int gcoo__dist_op_has_halo(gcoo_dist_op op) { return op && op->offd != NULL; }

void gcoo__dist_op_halo_rows(gcoo_dist_op op, int64_t *n, const int32_t **rows) {
  *n = op->halo.nrecv;
  *rows = op->halo.recv_rows;
}

gcoo_op gcoo__dist_op_swap_local(gcoo_dist_op op, gcoo_op local) {
  gcoo_op old = op->local;
  op->local = local;
  return old;
}

gcoo_status gcoo__dist_op_reserve(gcoo_dist_op op, int64_t N, gcoo_memspace mem) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  gcoo_status st = GCOO_SUCCESS;
  if (op->opts.xmode == GCOO_DIST_X_PARTITIONED && op->d->size > 1)
    st = gcoo__halo_reserve(op->d, &op->halo, op->dtype, N, mem);
  GCOO_CALL(gcoo__dist_agree(op->d, st));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__dist_op_apply_checked(gcoo_dist_op op, double alpha, const gcoo_dense *X,
                                        double beta, gcoo_dense *Y_slab) {
  gcoo_dist d = op->d;
  if (op->opts.xmode == GCOO_DIST_X_REPLICATED || d->size == 1) {
    if (op->local) GCOO_CALL(gcoo_op_apply(op->local, alpha, X, beta, Y_slab));
    return GCOO_SUCCESS;
  }
  const int ds = op->opts.local.reading == GCOO_DENSE_SPARSE;
  gcoo_dense Xa = ds ? gcoo__dense_transposed(X) : *X;
  void *stream = gcoo_ctx_stream(d->ctx);
  gcoo_status st = gcoo__halo_begin(d, &op->halo, &Xa, stream);
  if (st >= 0 && op->local) st = gcoo_op_apply(op->local, alpha, X, beta, Y_slab);
  gcoo_status st_end = gcoo__halo_end(d, &op->halo, stream);
  if (st >= 0) st = st_end;
  if (st >= 0 && op->offd) {
    gcoo_dense H = gcoo_dense_wrap(op->halo.recvbuf, op->dtype, GCOO_ROW_MAJOR, op->halo.nrecv,
                                   Xa.ncols, 0);
    H.mem = X->mem;
    if (H.ld < 1) H.ld = 1;
    if (ds) H = gcoo__dense_transposed(&H);
    st = gcoo_op_apply(op->offd, alpha, &H, 1.0, Y_slab);
  }
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__dist_op_diagonal(gcoo_dist_op op, double *d) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  for (int64_t i = 0; i < op->nrows; i++) d[i] = 0.0;
  gcoo_op L = op->local;
  if (!L) return GCOO_SUCCESS;
  const int f64 = op->dtype == GCOO_FLOAT64;
  if (L->A_csr) { /* the block's columns are this rank's rows: the diagonal is column i of row i */
    gcoo_csr_view a;
    GCOO_CALL(gcoo__sparse_csr_view(L->A_csr, &a));
    for (int64_t i = 0; i < a.nrows; i++)
      for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++)
        if (a.ind[e] == i)
          d[i] += f64 ? ((const double *)a.values)[e] : ((const float *)a.values)[e];
    return GCOO_SUCCESS;
  }
  if (L->S) { /* the GCOO of S = A^T: an entry (r, c) of S is A(c, r) */
    gcoo_grouped_view v;
    GCOO_CALL(gcoo__sparse_grouped_view(L->S, &v));
    for (int64_t e = 0; e < v.nnz; e++)
      if (v.rows[e] == v.cols[e])
        d[v.cols[e]] += f64 ? ((const double *)v.values)[e] : ((const float *)v.values)[e];
    return GCOO_SUCCESS;
  }
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "the local block has no host copy");
}
