/* SPDX-License-Identifier: MIT */
/* cli/cmd_spdm_check.c: gcoo_dist spdm --check: sampled rows of Y against the CPU reference, their
 * rows of A and X gathered to rank 0 (public API only). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_spdm.h"

/* ---- the check ---------------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Rows of X (global ids, sorted unique) as a dense block: regenerated, or read from the file
 * (collective for files: every rank calls, with n = 0 where it needs nothing). */
static gcoo_status x_rowset(job *j, const int64_t *rows, int64_t n, gcoo_dense *Xs) {
  if (!j->b_path) {
    CALL(gcoo_dense_create(Xs, j->dtype, GCOO_ROW_MAJOR, n, j->N));
    for (int64_t t = 0; t < n; t++) {
      gcoo_dense row = gcoo_dense_wrap((char *)Xs->data +
                                           (size_t)(t * j->N) * gcoo_dtype_size(j->dtype),
                                       j->dtype, GCOO_ROW_MAJOR, 1, j->N, j->N > 0 ? j->N : 1);
      CALL(gcoo_dense_fill_random_rows(&row, j->seed_b, rows[t]));
    }
    return GCOO_SUCCESS;
  }
  if (j->reading == GCOO_SPARSE_DENSE && cli_file_kind_of(j->b_path) == CLI_FILE_MTX) {
    /* a text file has no rows to seek to: read it again whole (the check is opt-in) */
    gcoo_dense W;
    gcoo_status st = cli_dense_read_rows(gcoo_dist_comm(j->d), j->b_path, j->dtype, 0, j->k,
                                         GCOO_ROW_MAJOR, &W);
    if (st >= 0) st = gcoo_dense_create(Xs, j->dtype, GCOO_ROW_MAJOR, n, j->N);
    for (int64_t t = 0; st >= 0 && t < n; t++)
      for (int64_t c = 0; c < j->N; c++) gcoo_dense_set(Xs, t, c, gcoo_dense_get(&W, rows[t], c));
    gcoo_dense_destroy(&W);
    return st;
  }
#if GCOO_HAVE_HDF5
  if (j->reading == GCOO_SPARSE_DENSE)
    return gcoo_h5_read_dense_rowset(gcoo_dist_comm(j->d), j->b_path, j->dtype, rows, n,
                                     GCOO_ROW_MAJOR, Xs);
  /* B is held whole (REPLICATED): its columns are rows of the local X */
  CALL(gcoo_dense_create(Xs, j->dtype, GCOO_ROW_MAJOR, n, j->N));
  for (int64_t t = 0; t < n; t++)
    for (int64_t c = 0; c < j->N; c++) gcoo_dense_set(Xs, t, c, gcoo_dense_get(&j->Xh, rows[t], c));
  return GCOO_SUCCESS;
#else
  return GCOO_ERR_UNSUPPORTED;
#endif
}

/* This rank's rows of Y at the global ids rows[0..n) (its own), as a host block: from the host
 * Y where there is one, else copied row by row from the device's (N values each). */
static gcoo_status y_rowset(job *j, const int64_t *rows, int64_t n, gcoo_dense *Ys) {
  const size_t es = gcoo_dtype_size(j->dtype);
  const int64_t ld = j->N > 0 ? j->N : 1;
  CALL(gcoo_dense_create(Ys, j->dtype, GCOO_ROW_MAJOR, n, j->N));
  for (int64_t t = 0; t < n; t++) {
    const int64_t i = rows[t] - j->row0;
    gcoo_dense dst = gcoo_dense_wrap((char *)Ys->data + (size_t)(t * ld) * es, j->dtype,
                                     GCOO_ROW_MAJOR, 1, j->N, ld);
    if (j->Yh.data) {
      memcpy(dst.data, (const char *)j->Yh.data + (size_t)(i * j->Yh.ld) * es, (size_t)j->N * es);
      continue;
    }
    gcoo_dense src = gcoo_dense_wrap((char *)j->Yd.data + (size_t)(i * j->Yd.ld) * es, j->dtype,
                                     GCOO_ROW_MAJOR, 1, j->N, ld);
    src.mem = GCOO_MEM_DEVICE;
    CALL(gcoo_ctx_dense_copy(gcoo_dist_ctx(j->d), &dst, &src));
  }
  return GCOO_SUCCESS;
}

int spdm_check(job *j) {
  if (!j->check) return 0;
  cli_progress("checking sampled rows against the CPU reference");
  double t0 = MPI_Wtime();
  /* the same sample on every rank: N_SAMPLE rows spread over the matrix, seeded */
  int64_t ns = j->m < N_SAMPLE ? j->m : N_SAMPLE,
          *sample = malloc(sizeof(int64_t) * (size_t)(ns + 1));
  uint64_t x = 0x9e3779b97f4a7c15ull ^ j->seed_b;
  for (int64_t t = 0; t < ns; t++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t lo = j->m * t / ns, hi = j->m * (t + 1) / ns;
    sample[t] = lo + (int64_t)(x % (uint64_t)(hi - lo));
  }
  /* this rank's sampled rows, their entries (read from the operator as it is, not a rebuilt
   * copy of the slab) and the X rows those need */
  int64_t nmine = 0;
  for (int64_t t = 0; t < ns; t++)
    if (sample[t] >= j->row0 && sample[t] < j->row0 + j->nrows) sample[nmine++] = sample[t];
  gcoo_sparse L = NULL;
  gcoo_sparse_arrays a = {0};
  gcoo_status st = gcoo_dist_op_get_local_rows(j->op, sample, nmine, &L);
  if (st >= 0) st = gcoo_sparse_get_arrays(L, &a);
  int64_t nneed = 0, maxrow = 0;
  int64_t *need = NULL;
  if (st >= 0) {
    need = malloc(sizeof(int64_t) * (size_t)(a.ptr[nmine] + 1));
    for (int64_t t = 0; t < nmine; t++) {
      if (a.ptr[t + 1] - a.ptr[t] > maxrow) maxrow = a.ptr[t + 1] - a.ptr[t];
      for (int64_t q = a.ptr[t]; q < a.ptr[t + 1]; q++) need[nneed++] = a.ind[q];
    }
    qsort(need, (size_t)nneed, sizeof *need, cmp_i64);
    int64_t u = 0;
    for (int64_t t = 0; t < nneed; t++)
      if (u == 0 || need[t] != need[u - 1]) need[u++] = need[t];
    nneed = u;
  }
  st = gcoo_dist_agree(j->d, st);
  gcoo_dense Xs = {0}, Ys = {0};
  if (st >= 0) st = gcoo_dist_agree(j->d, x_rowset(j, need, nneed, &Xs));
  if (st >= 0) st = gcoo_dist_agree(j->d, y_rowset(j, sample, nmine, &Ys));
  double worst = 0.0;
  if (st >= 0) {
    const int is64 = j->dtype == GCOO_FLOAT64;
    for (int64_t t = 0; t < nmine; t++) {
      for (int64_t c = 0; c < j->N; c++) {
        double ref = 0.0, mag = 0.0;
        for (int64_t q = a.ptr[t]; q < a.ptr[t + 1]; q++) {
          int64_t xr = (int64_t *)bsearch(&(int64_t){a.ind[q]}, need, (size_t)nneed, sizeof *need,
                                          cmp_i64) -
                       need;
          double av = is64 ? ((const double *)a.values)[q] : ((const float *)a.values)[q];
          double xv = gcoo_dense_get(&Xs, xr, c);
          ref += av * xv;
          mag += fabs(av) * fabs(xv);
        }
        double y = gcoo_dense_get(&Ys, t, c);
        double e = mag > 0 ? fabs(y - ref) / mag : (y == 0.0 ? 0.0 : INFINITY);
        if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
      }
    }
  }
  gcoo_dense_destroy(&Xs);
  gcoo_dense_destroy(&Ys);
  free(need);
  free(sample);
  gcoo_sparse_destroy(&L);
  if (st < 0) return cli_report("checking", st);
  /* |y - ref| <= gamma_n |A||X| for a sum of n products in the working precision (TF32 rounds
   * the inputs to 11 significant bits) */
  double u = j->dtype == GCOO_FLOAT64 ? 0x1p-53 : 0x1p-24;
  if (j->alg == GCOO_ALG_DENSE_TF32) u = 0x1p-11;
  /* the tensor-core mode: both inputs rounded, |y - ref| <= (2^-10 + (n + 4) 2^-23) |A||X|
   * (docs/kernels.md, "The tensor-core mode"), within the tolerance below with u = 2^-11 */
  if (j->math == GCOO_MATH_TF32 && j->dtype == GCOO_FLOAT32 &&
      (j->alg == GCOO_ALG_AUTO || j->alg == GCOO_ALG_GCOO))
    u = 0x1p-11;
  int64_t rows_all = 0, maxrow_all = 0;
  MPI_Comm comm = gcoo_dist_comm(j->d);
  MPI_Allreduce(&worst, &j->check_err, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&nmine, &rows_all, 1, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(&maxrow, &maxrow_all, 1, MPI_INT64_T, MPI_MAX, comm);
  j->check_rows = rows_all;
  j->check_tol = 2.0 * (double)(maxrow_all + 2) * u;
  j->check_pass = j->check_err <= j->check_tol && rows_all == ns;
  double mine = MPI_Wtime() - t0;
  MPI_Allreduce(&mine, &j->t_check, 1, MPI_DOUBLE, MPI_MAX, comm);
  return 0;
}
