/* SPDX-License-Identifier: MIT */
/* dist/spgemm_dist.c: distributed C = A B (gcoo/spgemm.h): rank 0 predicts and partitions the
 * rows of C by predicted work, every rank computes its slab of rows on its own backend.
 *
 * Work of row i is modelled as flop(i) + predicted nnz(i) + 1: a hash insertion per product,
 * a write (and a sort step) per output entry, and a fixed cost per row. The partition is
 * gcoo_partition_balanced over the prefix sums of that work. A rank's slab of A references one
 * contiguous range of rows of B (from its smallest to its largest column index), which is what
 * it receives or reads; for banded and mesh matrices that is a small part of B. Every phase
 * ends with gcoo_dist_agree, so a failure on one rank stops all of them with its message. */
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "gcoo/dist.h"
#if GCOO_HAVE_HDF5
#include "gcoo/h5.h"
#endif
#include "gcoo/mtx.h"
#include "gcoo/spgemm.h"
#include "spgemm_fit.h"

#include "dist_impl.h"

enum { TAG_CSR = 7301, CHUNK = 1 << 30 };

/* MPI calls go through the project's one checker (dist/dist_impl.h). */
#define SPG_MPI(x) GCOO_GOTO(GCOO_MPI(x))

/* Point-to-point of any size: chunks of at most 1 GiB (MPI counts are int). */
static gcoo_status send_bytes(MPI_Comm comm, const void *buf, int64_t bytes, int dest) {
  gcoo_status st = GCOO_SUCCESS;
  for (int64_t at = 0; at < bytes; at += CHUNK) {
    const int n = (int)(bytes - at < CHUNK ? bytes - at : CHUNK);
    SPG_MPI(MPI_Send((const char *)buf + at, n, MPI_BYTE, dest, TAG_CSR, comm));
  }
done:
  return st;
}

static gcoo_status recv_bytes(MPI_Comm comm, void *buf, int64_t bytes, int src) {
  gcoo_status st = GCOO_SUCCESS;
  for (int64_t at = 0; at < bytes; at += CHUNK) {
    const int n = (int)(bytes - at < CHUNK ? bytes - at : CHUNK);
    SPG_MPI(MPI_Recv((char *)buf + at, n, MPI_BYTE, src, TAG_CSR, comm, MPI_STATUS_IGNORE));
  }
done:
  return st;
}

/* Rows [r0, r1) of a CSR matrix, column indices shifted by -c0 and ncols set to nc: a new
 * matrix (the arrays are copied). */
static gcoo_status csr_block(gcoo_sparse A, int64_t r0, int64_t r1, int64_t c0, int64_t nc,
                             gcoo_sparse *out) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view v;
  int64_t *ptr = NULL;
  int32_t *ind = NULL;
  void *val = NULL;
  *out = NULL;
  GCOO_CALL(gcoo__sparse_csr_view(A, &v));
  const int64_t nr = r1 - r0, p0 = v.ptr[r0], nnz = v.ptr[r1] - p0;
  const size_t es = gcoo_dtype_size(v.dtype);
  GCOO_GOTO(gcoo__malloc_n((void **)&ptr, nr + 1, sizeof *ptr, "slab row pointers"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ind, nnz, sizeof *ind, "slab column indices"));
  GCOO_GOTO(gcoo__malloc_n(&val, nnz, es, "slab values"));
  for (int64_t i = 0; i <= nr; i++) ptr[i] = v.ptr[r0 + i] - p0;
  for (int64_t q = 0; q < nnz; q++) ind[q] = (int32_t)(v.ind[p0 + q] - c0);
  if (nnz) memcpy(val, (const char *)v.values + (size_t)p0 * es, (size_t)nnz * es);
  st = gcoo__sparse_adopt(out, GCOO_FORMAT_CSR, v.dtype, nr, nc, nnz, 0, ptr, ind, NULL, NULL, NULL,
                          val);
  ptr = NULL, ind = NULL, val = NULL;
done:
  free(ptr);
  free(ind);
  free(val);
  return st;
}

static gcoo_status send_csr(MPI_Comm comm, gcoo_sparse A, int dest) {
  gcoo_csr_view v;
  GCOO_CALL(gcoo__sparse_csr_view(A, &v));
  const int64_t head[4] = {v.nrows, v.ncols, v.nnz, (int64_t)v.dtype};
  GCOO_CALL(send_bytes(comm, head, sizeof head, dest));
  GCOO_CALL(send_bytes(comm, v.ptr, (v.nrows + 1) * 8, dest));
  GCOO_CALL(send_bytes(comm, v.ind, v.nnz * 4, dest));
  GCOO_CALL(send_bytes(comm, v.values, v.nnz * (int64_t)gcoo_dtype_size(v.dtype), dest));
  return GCOO_SUCCESS;
}

static gcoo_status recv_csr(MPI_Comm comm, int src, gcoo_sparse *A) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t head[4], *ptr = NULL;
  int32_t *ind = NULL;
  void *val = NULL;
  *A = NULL;
  GCOO_CALL(recv_bytes(comm, head, sizeof head, src));
  const gcoo_dtype dt = (gcoo_dtype)head[3];
  GCOO_GOTO(gcoo__malloc_n((void **)&ptr, head[0] + 1, 8, "received row pointers"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ind, head[2], 4, "received column indices"));
  GCOO_GOTO(gcoo__malloc_n(&val, head[2], gcoo_dtype_size(dt), "received values"));
  GCOO_GOTO(recv_bytes(comm, ptr, (head[0] + 1) * 8, src));
  GCOO_GOTO(recv_bytes(comm, ind, head[2] * 4, src));
  GCOO_GOTO(recv_bytes(comm, val, head[2] * (int64_t)gcoo_dtype_size(dt), src));
  st = gcoo__sparse_adopt(A, GCOO_FORMAT_CSR, dt, head[0], head[1], head[2], 0, ptr, ind, NULL,
                          NULL, NULL, val);
  ptr = NULL, ind = NULL, val = NULL;
done:
  free(ptr);
  free(ind);
  free(val);
  return st;
}

/* The plan every rank holds after rank 0 made it. */
typedef struct plan {
  int64_t m, k, n, flop, nnz_pred;
  int64_t dtype;
  int64_t *begin; /* nranks + 1 row offsets */
  int64_t *bcol;  /* 2 nranks: the range [c0, c1) of rows of B each rank needs */
  double imbalance;
} plan;

static void plan_free(plan *p) {
  free(p->begin);
  free(p->bcol);
  p->begin = p->bcol = NULL;
}

/* Rank 0: predict (on its GPU when its context is CUDA: the GPU predictor, method CLASSES;
 * else on its CPU threads with opts->predict), partition by predicted work, find each rank's
 * range of B rows. */
static gcoo_status make_plan(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                             const gcoo_spgemm_options *o, int nranks, plan *p) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse Ac = NULL, Bc = NULL;
  gcoo_sparse_info ai, bi;
  gcoo_prediction pred;
  gcoo_predict_options po = o->predict;
  gcoo_partition part = {0, NULL, NULL, 0.0};
  gcoo_csr_view va;
  int64_t *work = NULL;
  memset(&pred, 0, sizeof pred);
  GCOO_CHECK(A != NULL && B != NULL, GCOO_ERR_NULL, "rank 0 must pass A and B");
  GCOO_CALL(gcoo_sparse_get_info(A, &ai));
  GCOO_CALL(gcoo_sparse_get_info(B, &bi));
  GCOO_CHECK(ai.ncols == bi.nrows, GCOO_ERR_SHAPE,
             "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
             (long long)ai.nrows, (long long)ai.ncols, (long long)bi.nrows, (long long)bi.ncols);
  GCOO_CHECK(ai.dtype == bi.dtype, GCOO_ERR_DTYPE, "C = A B: A is %s, B is %s",
             ai.dtype == GCOO_FLOAT64 ? "double" : "float",
             bi.dtype == GCOO_FLOAT64 ? "double" : "float");
  if (ai.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Ac, A, GCOO_FORMAT_CSR, 0));
  if (bi.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Bc, B, GCOO_FORMAT_CSR, 0));
  po.want_row_flop = 1;
  po.want_row_nnz = 1;
  if (ctx && ctx->ops->predict) /* the backend's own predictor, on its device */
    GCOO_GOTO(ctx->ops->predict(ctx, Ac ? Ac : A, Bc ? Bc : B, &po, &pred));
  else
    GCOO_GOTO(gcoo_predict(Ac ? Ac : A, Bc ? Bc : B, &po, &pred));
  /* an output that cannot exist is refused now, not after a minute of computing (spgemm_fit.c) */
  GCOO_GOTO(gcoo__spgemm_output_fits(&pred, ai.nrows, ai.dtype, o->safety, nranks));
  GCOO_GOTO(gcoo__malloc_n((void **)&work, ai.nrows + 1, sizeof *work, "row work"));
  work[0] = 0;
  for (int64_t i = 0; i < ai.nrows; i++)
    work[i + 1] = work[i] + pred.row_flop[i] + pred.row_nnz[i] + 1;
  GCOO_GOTO(gcoo_partition_balanced(work, ai.nrows, nranks, &part));
  GCOO_GOTO(gcoo__malloc_n((void **)&p->begin, nranks + 1, sizeof *p->begin, "plan"));
  GCOO_GOTO(gcoo__malloc_n((void **)&p->bcol, 2 * nranks, sizeof *p->bcol, "plan"));
  GCOO_GOTO(gcoo__sparse_csr_view(Ac ? Ac : A, &va));
  double wmax = 0.0;
  for (int r = 0; r <= nranks; r++) p->begin[r] = part.begin[r];
  for (int r = 0; r < nranks; r++) {
    int64_t c0 = INT64_MAX, c1 = 0;
    for (int64_t i = p->begin[r]; i < p->begin[r + 1]; i++)
      if (va.ptr[i + 1] > va.ptr[i]) { /* rows are sorted: first and last entries bound them */
        if (va.ind[va.ptr[i]] < c0) c0 = va.ind[va.ptr[i]];
        if (va.ind[va.ptr[i + 1] - 1] + 1 > c1) c1 = va.ind[va.ptr[i + 1] - 1] + 1;
      }
    if (c0 > c1) c0 = c1 = 0;
    p->bcol[2 * r] = c0;
    p->bcol[2 * r + 1] = c1;
    const double w = (double)(work[p->begin[r + 1]] - work[p->begin[r]]);
    if (w > wmax) wmax = w;
  }
  p->imbalance = work[ai.nrows] > 0 ? wmax * nranks / (double)work[ai.nrows] : 1.0;
  p->m = ai.nrows;
  p->k = ai.ncols;
  p->n = bi.ncols;
  p->flop = pred.flop_total;
  p->nnz_pred = pred.nnz_predicted;
  p->dtype = ai.dtype;
done:
  if (st < 0) plan_free(p);
  gcoo_partition_free(&part);
  gcoo_prediction_free(&pred);
  free(work);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  return st;
}

/* Everyone gets rank 0's plan (which exists only if rank 0's planning succeeded). */
static gcoo_status bcast_plan(MPI_Comm comm, int nranks, plan *p) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t head[6] = {p->m, p->k, p->n, p->flop, p->nnz_pred, p->dtype};
  SPG_MPI(MPI_Bcast(head, 6, MPI_INT64_T, 0, comm));
  SPG_MPI(MPI_Bcast(&p->imbalance, 1, MPI_DOUBLE, 0, comm));
  p->m = head[0], p->k = head[1], p->n = head[2], p->flop = head[3], p->nnz_pred = head[4];
  p->dtype = head[5];
  if (!p->begin) GCOO_GOTO(gcoo__malloc_n((void **)&p->begin, nranks + 1, 8, "plan"));
  if (!p->bcol) GCOO_GOTO(gcoo__malloc_n((void **)&p->bcol, 2 * nranks, 8, "plan"));
  SPG_MPI(MPI_Bcast(p->begin, nranks + 1, MPI_INT64_T, 0, comm));
  SPG_MPI(MPI_Bcast(p->bcol, 2 * nranks, MPI_INT64_T, 0, comm));
done:
  return st;
}

/* Rank 0 plans (A and B are its operands), every rank agrees on the outcome and gets the plan;
 * *seconds: how long that took. */
static gcoo_status plan_everywhere(gcoo_dist d, gcoo_sparse A, gcoo_sparse B,
                                   const gcoo_spgemm_options *o, plan *p, double *seconds) {
  gcoo_status st = GCOO_SUCCESS;
  const double t = gcoo__wtime();
  if (gcoo_dist_rank(d) == 0) st = make_plan(gcoo_dist_ctx(d), A, B, o, gcoo_dist_size(d), p);
  st = gcoo_dist_agree(d, st);
  if (st < 0) return st;
  GCOO_CALL(bcast_plan(gcoo_dist_comm(d), gcoo_dist_size(d), p));
  *seconds = gcoo__wtime() - t;
  return GCOO_SUCCESS;
}

/* Local product, then the totals and timings every rank reports. */
static gcoo_status compute_local(gcoo_dist d, const plan *p, gcoo_sparse Aloc, gcoo_sparse Bloc,
                                 const gcoo_spgemm_options *o, gcoo_sparse *C_slab,
                                 gcoo_dist_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  MPI_Comm comm = gcoo_dist_comm(d);
  const int rank = gcoo_dist_rank(d), nranks = gcoo_dist_size(d);
  gcoo_spgemm_info local;
  memset(&local, 0, sizeof local);
  const double t0 = gcoo__wtime();
  st = gcoo_spgemm(gcoo_dist_ctx(d), Aloc, Bloc, o, C_slab, &local);
  const double dt = gcoo__wtime() - t0;
  st = gcoo_dist_agree(d, st);
  if (st < 0) return st;
  int64_t nnz = local.nnz, tot = 0;
  double tmax = 0.0, tsum = 0.0;
  SPG_MPI(MPI_Allreduce(&nnz, &tot, 1, MPI_INT64_T, MPI_SUM, comm));
  SPG_MPI(MPI_Allreduce(&dt, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  SPG_MPI(MPI_Allreduce(&dt, &tsum, 1, MPI_DOUBLE, MPI_SUM, comm));
  info->nnz = tot;
  info->nnz_local = nnz;
  info->seconds_compute = tmax;
  info->imbalance_actual = tsum > 0.0 ? tmax * nranks / tsum : 1.0;
  info->local = local;
  info->row0 = p->begin[rank];
  info->nrows_local = p->begin[rank + 1] - p->begin[rank];
  info->b_row0 = p->bcol[2 * rank];
  info->b_rows = p->bcol[2 * rank + 1] - p->bcol[2 * rank];
done:
  return st;
}

static void fill_plan_info(const plan *p, gcoo_dist_spgemm_info *info) {
  info->m = p->m;
  info->k = p->k;
  info->n = p->n;
  info->flop = p->flop;
  info->nnz_predicted = p->nnz_pred;
  info->imbalance = p->imbalance;
}

gcoo_status gcoo_dist_spgemm(gcoo_dist d, gcoo_sparse A, gcoo_sparse B,
                             const gcoo_spgemm_options *opts, gcoo_sparse *C_slab,
                             gcoo_dist_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
  gcoo_dist_spgemm_info inf;
  gcoo_sparse Aloc = NULL, Bloc = NULL;
  plan p;
  memset(&p, 0, sizeof p);
  memset(&inf, 0, sizeof inf);
  GCOO_CHECK(d != NULL, GCOO_ERR_NULL, "distributed context is NULL");
  GCOO_CHECK(C_slab != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *C_slab = NULL;
  if (opts) o = *opts;
  MPI_Comm comm = gcoo_dist_comm(d);
  const int rank = gcoo_dist_rank(d), nranks = gcoo_dist_size(d);
  const double t0 = gcoo__wtime();
  /* an unbound context (gcoo_dist_create_unbound) gets its device now */
  GCOO_GOTO(gcoo_dist_bind(d));

  GCOO_GOTO(plan_everywhere(d, A, B, &o, &p, &inf.seconds_plan));

  /* slabs: rank 0 cuts and sends, the others receive */
  const double t1 = gcoo__wtime();
  if (rank == 0) {
    gcoo_sparse Ac = NULL, Bc = NULL;
    gcoo_sparse_info ai, bi;
    st = gcoo_sparse_get_info(A, &ai);
    if (st >= 0) st = gcoo_sparse_get_info(B, &bi);
    if (st >= 0 && ai.format != GCOO_FORMAT_CSR)
      st = gcoo_sparse_convert(&Ac, A, GCOO_FORMAT_CSR, 0);
    if (st >= 0 && bi.format != GCOO_FORMAT_CSR)
      st = gcoo_sparse_convert(&Bc, B, GCOO_FORMAT_CSR, 0);
    for (int r = nranks - 1; r >= 0 && st >= 0; r--) { /* rank 0's own last */
      gcoo_sparse a = NULL, b = NULL;
      const int64_t c0 = p.bcol[2 * r], c1 = p.bcol[2 * r + 1];
      st = csr_block(Ac ? Ac : A, p.begin[r], p.begin[r + 1], c0, c1 - c0, &a);
      if (st >= 0) st = csr_block(Bc ? Bc : B, c0, c1, 0, p.n, &b);
      if (r > 0) { /* a flag first: a rank whose slab could not be made is told so */
        int64_t ok = st >= 0;
        const gcoo_status sf = GCOO_MPI(MPI_Send(&ok, 1, MPI_INT64_T, r, TAG_CSR, comm));
        if (st >= 0) st = sf;
      }
      if (st >= 0 && r > 0) st = send_csr(comm, a, r);
      if (st >= 0 && r > 0) st = send_csr(comm, b, r);
      if (st < 0) /* the ranks not served yet are told not to wait for a slab */
        for (int q = r - 1; q > 0; q--) {
          int64_t ok = 0;
          (void)GCOO_MPI(MPI_Send(&ok, 1, MPI_INT64_T, q, TAG_CSR, comm));
        }
      if (r == 0) {
        Aloc = a;
        Bloc = b;
      } else {
        gcoo_sparse_destroy(&a);
        gcoo_sparse_destroy(&b);
      }
    }
    gcoo_sparse_destroy(&Ac);
    gcoo_sparse_destroy(&Bc);
  } else {
    int64_t ok = 0;
    st = GCOO_MPI(MPI_Recv(&ok, 1, MPI_INT64_T, 0, TAG_CSR, comm, MPI_STATUS_IGNORE));
    if (st >= 0 && !ok)
      st = GCOO_ERROR(GCOO_ERR_MPI, "rank 0 could not send this rank its slab of A and B");
    if (st >= 0) st = recv_csr(comm, 0, &Aloc);
    if (st >= 0) st = recv_csr(comm, 0, &Bloc);
  }
  st = gcoo_dist_agree(d, st);
  if (st < 0) goto done;
  inf.seconds_read = gcoo__wtime() - t1;

  GCOO_GOTO(compute_local(d, &p, Aloc, Bloc, &o, C_slab, &inf));
  fill_plan_info(&p, &inf);
  inf.seconds = gcoo__wtime() - t0;
  if (info) *info = inf;
done:
  plan_free(&p);
  gcoo_sparse_destroy(&Aloc);
  gcoo_sparse_destroy(&Bloc);
  if (st < 0) gcoo_sparse_destroy(C_slab);
  return st;
}

static int is_mtx(const char *path) {
  const size_t n = strlen(path);
  return (n > 4 && !strcmp(path + n - 4, ".mtx")) || (n > 7 && !strcmp(path + n - 7, ".mtx.gz"));
}

/* A whole matrix on one rank: Matrix Market, or any HDF5 layout. */
static gcoo_status read_whole(const char *path, gcoo_dtype dtype, gcoo_sparse *A) {
  if (is_mtx(path)) {
    GCOO_CALL(gcoo_mtx_read(path, dtype, 0, A));
    return GCOO_SUCCESS;
  }
#if GCOO_HAVE_HDF5
  GCOO_CALL(gcoo_h5_read_sparse(path, dtype, A));
  return GCOO_SUCCESS;
#else
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "%s: this gcoo is built without HDF5", path);
#endif
}

gcoo_status gcoo_dist_spgemm_files(gcoo_dist d, const char *path_a, const char *path_b,
                                   gcoo_dtype dtype, const gcoo_spgemm_options *opts,
                                   gcoo_sparse *C_slab, gcoo_dist_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
  gcoo_sparse A = NULL, B = NULL, Aslab = NULL, Aloc = NULL, Bloc = NULL;
#if GCOO_HAVE_HDF5
  gcoo_h5_sparse_file fa = NULL, fb = NULL;
  gcoo_h5_info ia, ib;
#endif
  gcoo_dist_spgemm_info inf;
  plan p;
  memset(&p, 0, sizeof p);
  memset(&inf, 0, sizeof inf);
  GCOO_CHECK(d != NULL, GCOO_ERR_NULL, "distributed context is NULL");
  GCOO_CHECK(path_a != NULL && C_slab != NULL, GCOO_ERR_NULL, "path of A or output is NULL");
  *C_slab = NULL;
  if (opts) o = *opts;
  if (!path_b) path_b = path_a;
  MPI_Comm comm = gcoo_dist_comm(d);
  const int rank = gcoo_dist_rank(d), nranks = gcoo_dist_size(d);
  const double t0 = gcoo__wtime();

  /* Matrix Market, or an HDF5 object that is not CSR: rank 0 reads, then as in memory */
  int whole = is_mtx(path_a) || is_mtx(path_b);
#if !GCOO_HAVE_HDF5
  GCOO_CHECK(whole, GCOO_ERR_UNSUPPORTED,
             "%s: this gcoo is built without HDF5; give Matrix Market files (.mtx, .mtx.gz)",
             is_mtx(path_a) ? path_b : path_a);
#else
  if (!whole) {
    st = gcoo_h5_sparse_open(comm, path_a, &fa);
    if (st >= 0) st = gcoo_h5_sparse_open(comm, path_b, &fb);
    if (st >= 0) st = gcoo_h5_sparse_get_info(fa, &ia);
    if (st >= 0) st = gcoo_h5_sparse_get_info(fb, &ib);
    st = gcoo_dist_agree(d, st);
    if (st < 0) goto done;
    whole = ia.format != GCOO_FORMAT_CSR || ib.format != GCOO_FORMAT_CSR;
  }
#endif
  if (whole) {
    if (rank == 0) {
      const int same = !strcmp(path_a, path_b);
      st = read_whole(path_a, dtype, &A);
      if (st >= 0 && !same) st = read_whole(path_b, dtype, &B);
    }
    st = gcoo_dist_agree(d, st);
    if (st < 0) goto done;
    const double tread = gcoo__wtime() - t0;
    st = gcoo_dist_spgemm(d, A, B ? B : A, &o, C_slab, &inf);
    inf.seconds_read += tread;
    inf.seconds = gcoo__wtime() - t0;
    if (st >= 0 && info) *info = inf;
    goto done;
  }

#if GCOO_HAVE_HDF5
  /* HDF5 CSR: rank 0 reads the operands whole (the others read nothing yet) and plans from them;
   * it keeps them and cuts its own slab from memory, so nothing is read twice (one rank reads the
   * file once). The read counts as reading, the plan is the prediction and partition alone. */
  GCOO_CHECK_GOTO(ia.ncols == ib.nrows, GCOO_ERR_SHAPE,
                  "C = A B: A (%s) is %lld x %lld but B (%s) is %lld x %lld", path_a,
                  (long long)ia.nrows, (long long)ia.ncols, path_b, (long long)ib.nrows,
                  (long long)ib.ncols);
  {
    const double t1 = gcoo__wtime();
    st = gcoo_h5_sparse_read_slab(fa, dtype, 0, rank == 0 ? ia.nmajor : 0, &A);
    if (st >= 0) st = gcoo_h5_sparse_read_slab(fb, dtype, 0, rank == 0 ? ib.nmajor : 0, &B);
    st = gcoo_dist_agree(d, st);
    if (st < 0) goto done;
    inf.seconds_read = gcoo__wtime() - t1;
  }
  /* an unbound context (gcoo_dist_create_unbound) gets its device after the read */
  GCOO_GOTO(gcoo_dist_bind(d));
  GCOO_GOTO(plan_everywhere(d, A, B, &o, &p, &inf.seconds_plan));

  /* every other rank reads its slab of A and its range of rows of B, collectively (rank 0
   * takes part with empty ranges when there are others); rank 0 cuts its own from memory */
  {
    const double t1 = gcoo__wtime();
    const int64_t c0 = p.bcol[2 * rank], c1 = p.bcol[2 * rank + 1];
    if (nranks > 1) {
      const int64_t r0 = rank == 0 ? 0 : p.begin[rank], r1 = rank == 0 ? 0 : p.begin[rank + 1];
      st = gcoo_h5_sparse_read_slab(fa, dtype, r0, r1, &Aslab);
      st = gcoo_dist_agree(d, st);
      if (st < 0) goto done;
      st = gcoo_h5_sparse_read_slab(fb, dtype, rank == 0 ? 0 : c0, rank == 0 ? 0 : c1, &Bloc);
      if (st >= 0 && rank > 0)
        st = csr_block(Aslab, 0, p.begin[rank + 1] - p.begin[rank], c0, c1 - c0, &Aloc);
      if (st >= 0 && rank == 0) gcoo_sparse_destroy(&Bloc);
    }
    if (st >= 0 && rank == 0) {
      st = csr_block(A, p.begin[0], p.begin[1], c0, c1 - c0, &Aloc);
      if (st >= 0) st = csr_block(B, c0, c1, 0, p.n, &Bloc);
    }
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&B);
    st = gcoo_dist_agree(d, st);
    if (st < 0) goto done;
    inf.seconds_read += gcoo__wtime() - t1;
  }
  GCOO_GOTO(compute_local(d, &p, Aloc, Bloc, &o, C_slab, &inf));
  fill_plan_info(&p, &inf);
  inf.seconds = gcoo__wtime() - t0;
  if (info) *info = inf;
#endif
done:
  plan_free(&p);
#if GCOO_HAVE_HDF5
  if (fa) gcoo_h5_sparse_close(&fa);
  if (fb) gcoo_h5_sparse_close(&fb);
#endif
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&B);
  gcoo_sparse_destroy(&Aslab);
  gcoo_sparse_destroy(&Aloc);
  gcoo_sparse_destroy(&Bloc);
  if (st < 0) gcoo_sparse_destroy(C_slab);
  return st;
}

gcoo_status gcoo_dist_spgemm_gather(gcoo_dist d, gcoo_sparse C_slab, int root, gcoo_sparse *C) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *ptr = NULL, *cnt = NULL;
  int32_t *ind = NULL;
  char *val = NULL;
  gcoo_sparse piece = NULL;
  GCOO_CHECK(d != NULL && C != NULL, GCOO_ERR_NULL, "distributed context or output is NULL");
  *C = NULL;
  MPI_Comm comm = gcoo_dist_comm(d);
  const int rank = gcoo_dist_rank(d), nranks = gcoo_dist_size(d);
  gcoo_sparse_info ci;
  int64_t mine[4] = {0, 0, 0, 0};
  st = C_slab ? gcoo_sparse_get_info(C_slab, &ci) : GCOO_ERROR(GCOO_ERR_NULL, "C_slab is NULL");
  if (st >= 0) {
    st = ci.format == GCOO_FORMAT_CSR ? GCOO_SUCCESS
                                      : GCOO_ERROR(GCOO_ERR_INVALID_ARG, "C_slab is not CSR");
    mine[0] = ci.nrows, mine[1] = ci.ncols, mine[2] = ci.nnz, mine[3] = ci.dtype;
  }
  st = gcoo_dist_agree(d, st);
  if (st < 0) return st;
  /* every slab's shape first (all ranks), and agree, so no rank sends to a root that gave up */
  GCOO_GOTO(gcoo__malloc_n((void **)&cnt, 4 * (int64_t)nranks, 8, "counts"));
  SPG_MPI(MPI_Allgather(mine, 4, MPI_INT64_T, cnt, 4, MPI_INT64_T, comm));
  for (int r = 0; r < nranks; r++)
    GCOO_CHECK_GOTO(cnt[4 * r + 1] == cnt[1] && cnt[4 * r + 3] == cnt[3], GCOO_ERR_SHAPE,
                    "rank %d's slab has %lld columns (type %lld), rank 0's %lld (type %lld)", r,
                    (long long)cnt[4 * r + 1], (long long)cnt[4 * r + 3], (long long)cnt[1],
                    (long long)cnt[3]);
  if (rank != root) {
    GCOO_GOTO(send_csr(comm, C_slab, root));
  } else {
    int64_t m = 0, nnz = 0, at = 0, row = 0;
    const gcoo_dtype dt = (gcoo_dtype)mine[3];
    const size_t es = gcoo_dtype_size(dt);
    for (int r = 0; r < nranks; r++) {
      m += cnt[4 * r];
      nnz += cnt[4 * r + 2];
    }
    GCOO_GOTO(gcoo__malloc_n((void **)&ptr, m + 1, 8, "C row pointers"));
    GCOO_GOTO(gcoo__malloc_n((void **)&ind, nnz, 4, "C column indices"));
    GCOO_GOTO(gcoo__malloc_n((void **)&val, nnz, es, "C values"));
    ptr[0] = 0;
    for (int r = 0; r < nranks; r++) {
      gcoo_csr_view v;
      if (r == root)
        GCOO_GOTO(gcoo__sparse_csr_view(C_slab, &v));
      else {
        GCOO_GOTO(recv_csr(comm, r, &piece));
        GCOO_GOTO(gcoo__sparse_csr_view(piece, &v));
      }
      for (int64_t i = 0; i < v.nrows; i++) ptr[row + i + 1] = at + v.ptr[i + 1];
      if (v.nnz) {
        memcpy(ind + at, v.ind, (size_t)v.nnz * 4);
        memcpy(val + (size_t)at * es, v.values, (size_t)v.nnz * es);
      }
      row += v.nrows;
      at += v.nnz;
      gcoo_sparse_destroy(&piece);
    }
    st = gcoo__sparse_adopt(C, GCOO_FORMAT_CSR, dt, m, mine[1], nnz, 0, ptr, ind, NULL, NULL, NULL,
                            val);
    ptr = NULL, ind = NULL, val = NULL;
  }
done:
  free(cnt);
  free(ptr);
  free(ind);
  free(val);
  gcoo_sparse_destroy(&piece);
  st = gcoo_dist_agree(d, st);
  if (st < 0) gcoo_sparse_destroy(C);
  return st;
}
