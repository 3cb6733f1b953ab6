/* SPDX-License-Identifier: MIT */
/* dist/gather.c: slabs of a distributed result gathered to one rank or to all, and sums over
 * ranks.
 *
 * Everything is done in the row-major frame: a column-major slab (the paper's C = B S, columns
 * of C per rank) is read through its transposed view, where it is a row slab, and a column slab
 * of a column-major matrix is one contiguous block, so both readings gather the same way.
 *   host buffers:   MPI_Gatherv / MPI_Allgatherv with counts in rows of a row datatype whose
 *                   extent is the leading dimension (no int overflow, no packing for strides);
 *   device buffers: NCCL: the root posts ncclRecv from every peer and copies its own slab, the
 *                   others ncclSend, all in one ncclGroupStart/End; to all: ncclAllGather when
 *                   every slab has the same size, else one group of send/recv pairs. Without
 *                   NCCL (GCOO_ALLOW_SHARED_GPU, GCOO_NCCL=0, no NCCL built): staged through
 *                   host memory and MPI. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

enum { G_ROWS, G_COLS, G_DTYPE, G_LAYOUT, G_MEM, G_FULL_ROWS, G_FULL_COLS, G_COUNT };

/* Host gather of row slabs (row-major views) into Yf on the receiving ranks. */
static gcoo_status gather_host(gcoo_dist d, const gcoo_dense *Ys, int root, gcoo_dense *Yf,
                               const int64_t *rows) {
  gcoo_status st = GCOO_SUCCESS;
  MPI_Datatype stype = MPI_DATATYPE_NULL, rtype = MPI_DATATYPE_NULL;
  int *cnt = NULL, *dis = NULL;
  const int recv = root < 0 || root == d->rank;
  GCOO_GOTO(gcoo__malloc_n((void **)&cnt, d->size, sizeof *cnt, "gather counts"));
  GCOO_GOTO(gcoo__malloc_n((void **)&dis, d->size, sizeof *dis, "gather counts"));
  int64_t off = 0;
  for (int r = 0; r < d->size; r++) {
    cnt[r] = (int)rows[r]; /* rows fit int32 (index convention, checked by the caller) */
    dis[r] = (int)off;
    off += rows[r];
  }
  GCOO_GOTO(gcoo__mpi_row_type(Ys->dtype, Ys->ncols, Ys->ld > 0 ? Ys->ld : 1, &stype));
  if (recv) GCOO_GOTO(gcoo__mpi_row_type(Yf->dtype, Yf->ncols, Yf->ld > 0 ? Yf->ld : 1, &rtype));
  if (root >= 0)
    GCOO_GOTO(GCOO_MPI(MPI_Gatherv(Ys->data, (int)Ys->nrows, stype, recv ? Yf->data : NULL, cnt,
                                   dis, recv ? rtype : stype, root, d->comm)));
  else
    GCOO_GOTO(GCOO_MPI(MPI_Allgatherv(Ys->data, (int)Ys->nrows, stype, Yf->data, cnt, dis, rtype,
                                      d->comm)));
done:
  if (stype != MPI_DATATYPE_NULL) MPI_Type_free(&stype);
  if (rtype != MPI_DATATYPE_NULL) MPI_Type_free(&rtype);
  free(cnt);
  free(dis);
  return st;
}

#if GCOO_HAVE_CUDA
/* Device slabs without NCCL: to host, MPI, back. */
static gcoo_status gather_staged(gcoo_dist d, const gcoo_dense *Ys, int root, gcoo_dense *Yf,
                                 const int64_t *rows, int64_t total, void *stream) {
  gcoo_status st = GCOO_SUCCESS;
  const size_t es = gcoo_dtype_size(Ys->dtype), rowb = (size_t)Ys->ncols * es;
  const int recv = root < 0 || root == d->rank;
  void *hs = NULL, *hf = NULL;
  GCOO_GOTO(gcoo__malloc_n(&hs, Ys->nrows, rowb ? rowb : 1, "gather staging"));
  if (recv) GCOO_GOTO(gcoo__malloc_n(&hf, total, rowb ? rowb : 1, "gather staging"));
  GCOO_GOTO(gcoo__dist_copy_rows(hs, rowb, Ys->data, (size_t)Ys->ld * es, rowb, Ys->nrows,
                                 GCOO_MEM_HOST, GCOO_MEM_DEVICE, stream));
  GCOO_GOTO(GCOO_CUDA(cudaStreamSynchronize((cudaStream_t)stream)));
  gcoo_dense hsd = gcoo_dense_wrap(hs, Ys->dtype, GCOO_ROW_MAJOR, Ys->nrows, Ys->ncols, 0);
  gcoo_dense hfd = gcoo_dense_wrap(hf, Ys->dtype, GCOO_ROW_MAJOR, total, Ys->ncols, 0);
  GCOO_GOTO(gather_host(d, &hsd, root, &hfd, rows));
  if (recv) {
    GCOO_GOTO(gcoo__dist_copy_rows(Yf->data, (size_t)Yf->ld * es, hf, rowb, rowb, total,
                                   GCOO_MEM_DEVICE, GCOO_MEM_HOST, stream));
    GCOO_GOTO(GCOO_CUDA(cudaStreamSynchronize((cudaStream_t)stream)));
  }
done:
  free(hs);
  free(hf);
  return st;
}
#endif

#if GCOO_HAVE_NCCL
/* Device slabs through NCCL. Strided slabs or outputs go through a contiguous device buffer. */
static gcoo_status gather_nccl(gcoo_dist d, const gcoo_dense *Ys, int root, gcoo_dense *Yf,
                               const int64_t *rows, int64_t total, void *stream) {
  gcoo_status st = GCOO_SUCCESS;
  ncclComm_t comm;
  const size_t es = gcoo_dtype_size(Ys->dtype), rowb = (size_t)Ys->ncols * es;
  const int64_t N = Ys->ncols;
  const int recv = root < 0 || root == d->rank;
  const ncclDataType_t nt = Ys->dtype == GCOO_FLOAT64 ? ncclFloat64 : ncclFloat32;
  cudaStream_t s = (cudaStream_t)stream;
  void *sbuf = NULL, *rbuf = NULL; /* contiguous stand-ins when strided */
  const void *src = Ys->data;
  void *dst = recv ? Yf->data : NULL;
  GCOO_CALL(gcoo__dist_nccl(d, &comm));
  if (Ys->ld != N && Ys->nrows > 0) {
    GCOO_GOTO(gcoo__dist_alloc(GCOO_MEM_DEVICE, (size_t)Ys->nrows * rowb, &sbuf, "gather send"));
    GCOO_GOTO(gcoo__dist_copy_rows(sbuf, rowb, Ys->data, (size_t)Ys->ld * es, rowb, Ys->nrows,
                                   GCOO_MEM_DEVICE, GCOO_MEM_DEVICE, s));
    src = sbuf;
  }
  if (recv && Yf->ld != N && total > 0) {
    GCOO_GOTO(gcoo__dist_alloc(GCOO_MEM_DEVICE, (size_t)total * rowb, &rbuf, "gather receive"));
    dst = rbuf;
  }
  int equal = 1;
  for (int r = 1; r < d->size; r++) equal &= rows[r] == rows[0];
  if (root < 0 && equal) {
    GCOO_GOTO(GCOO_NCCL(d, ncclAllGather(src, dst, (size_t)(rows[0] * N), nt, comm, s)));
    GCOO_GOTO(gcoo__nccl_wait(d, "ncclAllGather"));
  } else {
    /* one group: unfused point-to-point calls can deadlock (NCCL p2p docs) */
    int64_t off = 0;
    GCOO_GOTO(GCOO_NCCL(d, ncclGroupStart()));
    for (int r = 0; r < d->size && st >= 0; r++) {
      if (recv && r != d->rank && rows[r] > 0)
        st = GCOO_NCCL(d, ncclRecv((char *)dst + (size_t)off * rowb, (size_t)(rows[r] * N), nt, r,
                                   comm, s));
      if (st >= 0 && r != d->rank && Ys->nrows > 0 && (root < 0 || r == root))
        st = GCOO_NCCL(d, ncclSend(src, (size_t)(Ys->nrows * N), nt, r, comm, s));
      off += rows[r];
    }
    gcoo_status st2 = GCOO_NCCL(d, ncclGroupEnd());
    GCOO_GOTO(st);
    GCOO_GOTO(st2);
    GCOO_GOTO(gcoo__nccl_wait(d, "gather (ncclGroupEnd)"));
    if (recv) {
      int64_t own = 0;
      for (int r = 0; r < d->rank; r++) own += rows[r];
      GCOO_GOTO(gcoo__dist_copy_rows((char *)dst + (size_t)own * rowb, rowb, src, rowb, rowb,
                                     Ys->nrows, GCOO_MEM_DEVICE, GCOO_MEM_DEVICE, s));
    }
  }
  if (rbuf)
    GCOO_GOTO(gcoo__dist_copy_rows(Yf->data, (size_t)Yf->ld * es, rbuf, rowb, rowb, total,
                                   GCOO_MEM_DEVICE, GCOO_MEM_DEVICE, s));
  GCOO_GOTO(gcoo__nccl_stream_wait(d, s, "gather"));
done:
  if (sbuf || rbuf) (void)cudaStreamSynchronize(s);
  gcoo__dist_free(GCOO_MEM_DEVICE, sbuf);
  gcoo__dist_free(GCOO_MEM_DEVICE, rbuf);
  return st;
}
#endif

gcoo_status gcoo_dist_gather_rows(gcoo_dist d, const gcoo_dense *Y_slab, int root,
                                  gcoo_dense *Y_full) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *facts = NULL, *rows = NULL;
  GCOO_VALID_OBJECT(d, GCOO_MAGIC_DIST, "distributed context");
  const int recv = root < 0 || root == d->rank;

  /* 1. local checks, agreed before anything is exchanged */
  if (root < -1 || root >= d->size)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "root %d outside -1 .. %d", root, d->size - 1);
  if (st >= 0) st = gcoo_dense_check(Y_slab);
  if (st >= 0 && recv) {
    if (!Y_full)
      st = GCOO_ERROR(GCOO_ERR_NULL, "Y_full is NULL on receiving rank %d", d->rank);
    else
      st = gcoo_dense_check(Y_full);
  }
  if (st >= 0) st = gcoo__malloc_n((void **)&facts, (int64_t)d->size * G_COUNT, sizeof *facts,
                                   "gather table");
  if (st >= 0) st = gcoo__malloc_n((void **)&rows, d->size, sizeof *rows, "gather table");
  GCOO_GOTO(gcoo__dist_agree(d, st));

  /* 2. the row-major frame: column slabs of a column-major matrix are row slabs of its transpose */
  const gcoo_dense Ys = Y_slab->layout == GCOO_COL_MAJOR ? gcoo__dense_transposed(Y_slab) : *Y_slab;
  gcoo_dense Yf = {0};
  if (recv) Yf = Y_full->layout == GCOO_COL_MAJOR ? gcoo__dense_transposed(Y_full) : *Y_full;
  int64_t mine[G_COUNT] = {Ys.nrows, Ys.ncols, Ys.dtype, Y_slab->layout, Ys.mem,
                           recv ? Yf.nrows : -1, recv ? Yf.ncols : -1};
  if (recv && Y_full->layout != Y_slab->layout) mine[G_LAYOUT] = -1;
  if (recv && Y_full->mem != Y_slab->mem) mine[G_MEM] = -1;
  if (recv && Y_full->dtype != Y_slab->dtype) mine[G_DTYPE] = -1;
  GCOO_GOTO(GCOO_MPI(MPI_Allgather(mine, G_COUNT, MPI_INT64_T, facts, G_COUNT, MPI_INT64_T,
                                   d->comm)));
  /* 3. every rank reaches the same verdict from the same table */
  int64_t total = 0;
  for (int r = 0; r < d->size; r++) {
    const int64_t *f = facts + (size_t)r * G_COUNT;
    rows[r] = f[G_ROWS];
    total += f[G_ROWS];
    GCOO_CHECK_GOTO(f[G_DTYPE] == facts[G_DTYPE] && f[G_DTYPE] >= 0, GCOO_ERR_DTYPE,
                    "gather: rank %d's slab (or its full matrix) has another element type", r);
    GCOO_CHECK_GOTO(f[G_LAYOUT] == facts[G_LAYOUT] && f[G_LAYOUT] >= 0, GCOO_ERR_INVALID_ARG,
                    "gather: rank %d's slab (or its full matrix) has another layout than rank "
                    "0's slab", r);
    GCOO_CHECK_GOTO(f[G_MEM] == facts[G_MEM] && f[G_MEM] >= 0, GCOO_ERR_INVALID_ARG,
                    "gather: rank %d mixes host and device buffers", r);
    GCOO_CHECK_GOTO(f[G_COLS] == facts[G_COLS], GCOO_ERR_SHAPE,
                    "gather: rank %d's slab is %lld wide, rank 0's %lld (%s)", r,
                    (long long)f[G_COLS], (long long)facts[G_COLS],
                    Y_slab->layout == GCOO_COL_MAJOR ? "rows of column slabs" : "columns");
  }
  GCOO_CHECK_GOTO(total <= INT32_MAX, GCOO_ERR_TOO_LARGE, "gather of %lld slab rows",
                  (long long)total);
  for (int r = 0; r < d->size; r++) {
    const int64_t *f = facts + (size_t)r * G_COUNT;
    if (f[G_FULL_ROWS] < 0) continue;
    GCOO_CHECK_GOTO(f[G_FULL_ROWS] == total && f[G_FULL_COLS] == facts[G_COLS], GCOO_ERR_SHAPE,
                    "gather: the slabs make a %lld x %lld matrix, rank %d's Y_full is %lld x %lld "
                    "(%s)", (long long)total, (long long)facts[G_COLS], r,
                    (long long)f[G_FULL_ROWS], (long long)f[G_FULL_COLS],
                    Y_slab->layout == GCOO_COL_MAJOR ? "transposed: column slabs" : "row slabs");
  }

  /* 4. move the rows (one rank: its slab is the whole matrix, a plain copy in place) */
  if (d->size == 1) {
    const size_t es = gcoo_dtype_size(Ys.dtype);
    st = gcoo__dist_copy_rows(Yf.data, (size_t)Yf.ld * es, Ys.data, (size_t)Ys.ld * es,
                              (size_t)Ys.ncols * es, Ys.nrows, Yf.mem, Ys.mem,
                              Ys.mem == GCOO_MEM_DEVICE ? gcoo_ctx_stream(d->ctx) : NULL);
#if GCOO_HAVE_CUDA
    if (st >= 0 && Ys.mem == GCOO_MEM_DEVICE)
      st = GCOO_CUDA(cudaStreamSynchronize((cudaStream_t)gcoo_ctx_stream(d->ctx)));
#endif
  } else if (Ys.mem == GCOO_MEM_HOST) {
    st = gather_host(d, &Ys, root, &Yf, rows);
  } else {
#if GCOO_HAVE_CUDA
    void *stream = gcoo_ctx_stream(d->ctx);
#if GCOO_HAVE_NCCL
    if (gcoo__dist_uses_nccl(d) || d->nccl_broken)
      st = gather_nccl(d, &Ys, root, &Yf, rows, total, stream);
    else
#endif
      st = gather_staged(d, &Ys, root, &Yf, rows, total, stream);
#else
    st = GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "device buffers: CUDA is not compiled in");
#endif
  }
  GCOO_GOTO(gcoo__dist_agree(d, st));
done:
  free(facts);
  free(rows);
  return st;
}

gcoo_status gcoo_dist_allreduce_sum(gcoo_dist d, gcoo_dtype dtype, void *buf, int64_t count,
                                    gcoo_memspace mem) {
  gcoo_status st = GCOO_SUCCESS;
  GCOO_VALID_OBJECT(d, GCOO_MAGIC_DIST, "distributed context");
  if (dtype != GCOO_FLOAT32 && dtype != GCOO_FLOAT64)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "unknown element type %d", (int)dtype);
  else if (count < 0 || count > INT_MAX)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "count %lld outside [0, INT_MAX]", (long long)count);
  else if (!buf && count > 0)
    st = GCOO_ERROR(GCOO_ERR_NULL, "buffer is NULL");
  else if (mem != GCOO_MEM_HOST && mem != GCOO_MEM_DEVICE)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "unknown memory space %d", (int)mem);
  GCOO_CALL(gcoo__dist_agree(d, st));
  if (count == 0 || d->size == 1) return GCOO_SUCCESS; /* a sum over one rank */
  if (mem == GCOO_MEM_HOST) {
    st = GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, gcoo__mpi_dtype(dtype), MPI_SUM,
                                d->comm));
    GCOO_CALL(gcoo__dist_agree(d, st));
    return GCOO_SUCCESS;
  }
#if GCOO_HAVE_CUDA
  cudaStream_t s = (cudaStream_t)gcoo_ctx_stream(d->ctx);
#if GCOO_HAVE_NCCL
  if (gcoo__dist_uses_nccl(d) || d->nccl_broken) {
    ncclComm_t comm;
    st = gcoo__dist_nccl(d, &comm);
    if (st >= 0)
      st = GCOO_NCCL(d, ncclAllReduce(buf, buf, (size_t)count,
                                      dtype == GCOO_FLOAT64 ? ncclFloat64 : ncclFloat32, ncclSum,
                                      comm, s));
    if (st >= 0) st = gcoo__nccl_wait(d, "ncclAllReduce");
    if (st >= 0) st = gcoo__nccl_stream_wait(d, s, "ncclAllReduce");
    GCOO_CALL(gcoo__dist_agree(d, st));
    return GCOO_SUCCESS;
  }
#endif
  /* staged: a small array, so a synchronous round trip is fine */
  void *h = NULL;
  const size_t bytes = (size_t)count * gcoo_dtype_size(dtype);
  st = gcoo__malloc(&h, bytes, "all-reduce staging");
  if (st >= 0) st = GCOO_CUDA(cudaMemcpyAsync(h, buf, bytes, cudaMemcpyDeviceToHost, s));
  if (st >= 0) st = GCOO_CUDA(cudaStreamSynchronize(s));
  st = gcoo__dist_agree(d, st); /* every rank takes the same branch */
  if (st >= 0)
    st = GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, h, (int)count, gcoo__mpi_dtype(dtype), MPI_SUM,
                                d->comm));
  else {
    free(h);
    return st;
  }
  if (st >= 0) st = GCOO_CUDA(cudaMemcpy(buf, h, bytes, cudaMemcpyHostToDevice));
  free(h);
  GCOO_CALL(gcoo__dist_agree(d, st));
  return GCOO_SUCCESS;
#else
  GCOO_CALL(gcoo__dist_agree(d, GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                                           "device buffers: CUDA is not compiled in")));
  return GCOO_SUCCESS;
#endif
}
