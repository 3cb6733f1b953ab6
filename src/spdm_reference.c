/* SPDX-License-Identifier: MIT */
/* src/spdm_reference.c: the CPU reference products, the yardstick of every test.
 *
 * Written to be obviously right: CSR (or CSC) of the sparse operand, a double accumulator per
 * output element, element access through gcoo_dense_get/set so any layout and leading
 * dimension is handled by one code path. OpenMP over output rows (or columns): each thread
 * writes disjoint outputs. beta == 0 means Y is not read (BLAS convention: NaN in Y is
 * overwritten, not propagated). */
#include <stdlib.h>

#include "backend_impl.h"

/* What both readings ask of their dense operands: valid, on the host, the output (named in the
 * message with the input: "X and Y") not overlapping the input. */
static gcoo_status check_host_operands(const gcoo_dense *in, const gcoo_dense *out,
                                       const char *names) {
  GCOO_CALL(gcoo_dense_check(in));
  GCOO_CALL(gcoo_dense_check(out));
  GCOO_CHECK(in->mem == GCOO_MEM_HOST && out->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG,
             "the reference needs host operands");
  GCOO_CHECK(!gcoo__dense_overlap(in, out), GCOO_ERR_INVALID_ARG,
             "%s share a buffer: the output must not overlap the input", names);
  return GCOO_SUCCESS;
}

/* A thread's accumulator of n doubles, or NULL with *failed set (the loop then skips its work
 * and the caller reports GCOO_ERR_NO_MEMORY once). */
static double *thread_accumulator(int64_t n, int *failed) {
  double *acc = malloc((size_t)(n > 0 ? n : 1) * sizeof *acc);
  if (!acc) {
#pragma omp atomic write
    *failed = 1;
  }
  return acc;
}

/* Stored value k of v as a double. */
static double value_at(const gcoo_csr_view *v, int64_t k) {
  return v->dtype == GCOO_FLOAT64 ? ((const double *)v->values)[k]
                                  : (double)((const float *)v->values)[k];
}

/* out(i, j) = alpha acc + beta out(i, j), out not read when beta == 0 (BLAS convention). */
static void update(gcoo_dense *out, int64_t i, int64_t j, double alpha, double acc, double beta) {
  gcoo_dense_set(out, i, j, alpha * acc + (beta != 0.0 ? beta * gcoo_dense_get(out, i, j) : 0.0));
}

/* Y = alpha A X + beta Y, A any format. */
gcoo_status gcoo_spdm_reference(double alpha, gcoo_sparse A, const gcoo_dense *X, double beta,
                                gcoo_dense *Y) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse csr = NULL;
  gcoo_sparse_info ai;
  gcoo_csr_view v;
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CALL(check_host_operands(X, Y, "X and Y"));
  GCOO_CHECK(X->nrows == ai.ncols && Y->nrows == ai.nrows && X->ncols == Y->ncols, GCOO_ERR_SHAPE,
             "Y (%lld x %lld) = A (%lld x %lld) X (%lld x %lld): dimensions disagree",
             (long long)Y->nrows, (long long)Y->ncols, (long long)ai.nrows, (long long)ai.ncols,
             (long long)X->nrows, (long long)X->ncols);
  if (ai.format != GCOO_FORMAT_CSR) {
    GCOO_CALL(gcoo_sparse_convert(&csr, A, GCOO_FORMAT_CSR, 0));
    A = csr;
  }
  GCOO_GOTO(gcoo__sparse_csr_view(A, &v));
  const int64_t N = X->ncols;
  int failed = 0;
#pragma omp parallel if ((double)(v.nnz + v.nrows) * (double)N > GCOO_OMP_MIN_WORK)
  {
    double *acc = thread_accumulator(N, &failed);
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < v.nrows; i++) {
      if (!acc) continue;
      for (int64_t j = 0; j < N; j++) acc[j] = 0.0;
      for (int64_t k = v.ptr[i]; k < v.ptr[i + 1]; k++) {
        const double a = value_at(&v, k);
        for (int64_t j = 0; j < N; j++) acc[j] += a * gcoo_dense_get(X, v.ind[k], j);
      }
      for (int64_t j = 0; j < N; j++) update(Y, i, j, alpha, acc[j], beta);
    }
    free(acc);
  }
  GCOO_CHECK_GOTO(!failed, GCOO_ERR_NO_MEMORY, "no memory for %lld accumulators", (long long)N);
done:
  gcoo_sparse_destroy(&csr);
  return st;
}

/* C = alpha B S + beta C, computed column by column of S (CSC): C(:, j) = sum_r S(r, j) B(:, r).
 * Deliberately not through gcoo_spdm_reference, so that a test comparing the readings checks the
 * mapping between them rather than assuming it. */
gcoo_status gcoo_dnsp_reference(double alpha, const gcoo_dense *B, gcoo_sparse S, double beta,
                                gcoo_dense *C) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse csc = NULL;
  gcoo_sparse_info si;
  gcoo_csr_view v; /* read as CSC: ptr over columns, ind = rows */
  GCOO_CALL(gcoo_sparse_get_info(S, &si));
  GCOO_CALL(check_host_operands(B, C, "B and C"));
  GCOO_CHECK(B->ncols == si.nrows && C->ncols == si.ncols && B->nrows == C->nrows, GCOO_ERR_SHAPE,
             "C (%lld x %lld) = B (%lld x %lld) S (%lld x %lld): dimensions disagree",
             (long long)C->nrows, (long long)C->ncols, (long long)B->nrows, (long long)B->ncols,
             (long long)si.nrows, (long long)si.ncols);
  GCOO_CALL(gcoo_sparse_convert(&csc, S, GCOO_FORMAT_CSC, 0));
  GCOO_GOTO(gcoo__sparse_csr_view(csc, &v));
  const int64_t M = B->nrows;
  int failed = 0;
#pragma omp parallel if ((double)(v.nnz + si.ncols) * (double)M > GCOO_OMP_MIN_WORK)
  {
    double *acc = thread_accumulator(M, &failed);
#pragma omp for schedule(dynamic, 64)
    for (int64_t j = 0; j < si.ncols; j++) {
      if (!acc) continue;
      for (int64_t i = 0; i < M; i++) acc[i] = 0.0;
      for (int64_t k = v.ptr[j]; k < v.ptr[j + 1]; k++) {
        const double s = value_at(&v, k);
        for (int64_t i = 0; i < M; i++) acc[i] += gcoo_dense_get(B, i, v.ind[k]) * s;
      }
      for (int64_t i = 0; i < M; i++) update(C, i, j, alpha, acc[i], beta);
    }
    free(acc);
  }
  GCOO_CHECK_GOTO(!failed, GCOO_ERR_NO_MEMORY, "no memory for %lld accumulators", (long long)M);
done:
  gcoo_sparse_destroy(&csc);
  return st;
}
