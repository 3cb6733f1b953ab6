/* SPDX-License-Identifier: MIT */
/* dist/gather.c: slabs of a distributed result gathered to one rank or to all, and sums over
 * ranks.
 *
 * Everything is done in the row-major frame: a column-major slab (the paper's C = B S, columns
 * of C per rank) is read through its transposed view, where it is a row slab, and a column slab
 * of a column-major matrix is one contiguous block, so both readings gather the same way.
 *   host buffers:   MPI_Gatherv / MPI_Allgatherv with counts in rows of a row datatype whose
 *                   extent is the leading dimension (no int overflow, no packing for strides);
 *   device buffers: NCCL, straight into the final buffer: the receiving ranks post ncclRecv of
 *                   every peer's rows at their place in Y_full, the others ncclSend, in chunks
 *                   (GCOO_GATHER_CHUNK_MB) inside one ncclGroupStart/End, while the own slab is
 *                   copied on a side stream; to all with equal slabs: ncclAllGather. The plan of
 *                   who sends which rows is a pure function (gcoo__gather_plan) that the CPU
 *                   tests execute with MPI. Without NCCL (GCOO_ALLOW_SHARED_GPU, GCOO_NCCL=0,
 *                   no NCCL built): staged through host memory and MPI. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"
#include "params.h"

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
    GCOO_GOTO(GCOO_MPI(
        MPI_Allgatherv(Ys->data, (int)Ys->nrows, stype, Yf->data, cnt, dis, rtype, d->comm)));
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
  GCOO_GOTO(gcoo__dist_copy_rows(d->ctx, hs, rowb, Ys->data, (size_t)Ys->ld * es, rowb, Ys->nrows,
                                 GCOO_MEM_HOST, GCOO_MEM_DEVICE, stream));
  GCOO_GOTO(gcoo__dist_device(d)->stream_sync(stream));
  gcoo_dense hsd = gcoo_dense_wrap(hs, Ys->dtype, GCOO_ROW_MAJOR, Ys->nrows, Ys->ncols, 0);
  gcoo_dense hfd = gcoo_dense_wrap(hf, Ys->dtype, GCOO_ROW_MAJOR, total, Ys->ncols, 0);
  GCOO_GOTO(gather_host(d, &hsd, root, &hfd, rows));
  if (recv) {
    GCOO_GOTO(gcoo__dist_copy_rows(d->ctx, Yf->data, (size_t)Yf->ld * es, hf, rowb, rowb, total,
                                   GCOO_MEM_DEVICE, GCOO_MEM_HOST, stream));
    GCOO_GOTO(gcoo__dist_device(d)->stream_sync(stream));
  }
done:
  free(hs);
  free(hf);
  return st;
}
#endif

/* The plan of a device gather. Both ends of a pair walk the ranks in the same order and cut a
 * slab into the same chunks, so the k-th send from a to b matches the k-th receive of b from a
 * (NCCL runs same-peer operations of a group in order; MPI matches in order on one tag). */
gcoo_status gcoo__gather_plan(int rank, int size, int root, const int64_t *rows, int64_t chunk_rows,
                              gcoo__gather_xfer **out, int64_t *n) {
  *out = NULL;
  *n = 0;
  GCOO_CHECK(size > 0 && rank >= 0 && rank < size && root >= -1 && root < size,
             GCOO_ERR_INVALID_ARG, "gather plan: rank %d, size %d, root %d", rank, size, root);
  const int recv = root < 0 || root == rank;
  gcoo__gather_xfer *x = NULL;
  for (int pass = 0; pass < 2; pass++) { /* count, then fill */
    int64_t k = 0, off = 0;
    for (int r = 0; r < size; r++) {
      GCOO_CHECK(rows[r] >= 0, GCOO_ERR_INVALID_ARG, "gather plan: rank %d has %lld rows", r,
                 (long long)rows[r]);
      const int64_t step = chunk_rows > 0 && r != rank ? chunk_rows : (rows[r] > 0 ? rows[r] : 1);
      if (recv)
        for (int64_t c = 0; c < rows[r]; c += step) {
          if (pass)
            x[k] = (gcoo__gather_xfer){r, 0, off + c, rows[r] - c < step ? rows[r] - c : step};
          k++;
        }
      if (r != rank && (root < 0 || r == root)) {
        const int64_t mine = rows[rank], st = chunk_rows > 0 ? chunk_rows : (mine > 0 ? mine : 1);
        for (int64_t c = 0; c < mine; c += st) {
          if (pass) x[k] = (gcoo__gather_xfer){r, 1, c, mine - c < st ? mine - c : st};
          k++;
        }
      }
      off += rows[r];
    }
    if (!pass) {
      if (k == 0) return GCOO_SUCCESS;
      GCOO_CALL(gcoo__malloc_n((void **)&x, k, sizeof *x, "gather plan"));
    }
    *n = k;
  }
  *out = x;
  return GCOO_SUCCESS;
}

int64_t gcoo__gather_chunk_rows(size_t row_bytes) {
  const double mb = gcoo__param_number(GCOO__P_GATHER_CHUNK_MB);
  if (!(mb > 0) || row_bytes == 0) return 0;
  const double r = mb * 1048576.0 / (double)row_bytes;
  return r < 1 ? 1 : r > 9e18 ? 0 : (int64_t)r;
}

#if GCOO_HAVE_NCCL
/* Device slabs through NCCL, straight into the final buffer: every peer's rows are received at
 * their place in Y_full, in chunks (GCOO_GATHER_CHUNK_MB) posted in row order in one group, while
 * the receiving rank's own slab is copied on a side stream at the same time (before, it was
 * copied after the group: ~0.2 ms of the 1.65 ms gather of 784 MB on two H200s). The only
 * staging left is for strided buffers (ld > width), which NCCL cannot address: the strided
 * side's peer rows go through one contiguous device buffer. */
static gcoo_status gather_nccl(gcoo_dist d, const gcoo_dense *Ys, int root, gcoo_dense *Yf,
                               const int64_t *rows, int64_t total, void *stream) {
  gcoo_status st = GCOO_SUCCESS;
  ncclComm_t comm;
  const size_t es = gcoo_dtype_size(Ys->dtype), rowb = (size_t)Ys->ncols * es;
  const int64_t N = Ys->ncols;
  const int recv = root < 0 || root == d->rank;
  const ncclDataType_t nt = Ys->dtype == GCOO_FLOAT64 ? ncclFloat64 : ncclFloat32;
  const gcoo_device_ops *dev = gcoo__dist_device(d);
  void *s = stream, *side = NULL, *ev_ready = NULL, *ev_own = NULL; /* device streams, events */
  void *sbuf = NULL, *rbuf = NULL; /* contiguous stand-ins for strided buffers */
  gcoo__gather_xfer *plan = NULL;
  int64_t nplan = 0, own = 0;
  const char *src = Ys->data;
  char *dst = recv ? Yf->data : NULL;
  GCOO_CALL(gcoo__dist_nccl(d, &comm));
  GCOO_CHECK(dev != NULL, GCOO_ERR_INTERNAL, "gather: NCCL without the CUDA backend's device");
  for (int r = 0; r < d->rank; r++) own += rows[r];
  const int64_t peer_rows = total - rows[d->rank]; /* rows this rank receives when it receives */
  const int sends = Ys->nrows > 0 && (root < 0 || root != d->rank);

  int equal = 1;
  for (int r = 1; r < d->size; r++) equal &= rows[r] == rows[0];
  /* every branch below depends on facts all ranks share (rows, root), so all ranks take it */
  if (root < 0 && equal) { /* NCCL's own ring; copies only for strided buffers */
    if (Ys->ld != N && Ys->nrows > 0) {
      st = gcoo__dist_alloc(d->ctx, GCOO_MEM_DEVICE, (size_t)Ys->nrows * rowb, &sbuf,
                            "gather send");
      if (st >= 0)
        st = gcoo__dist_copy_rows(d->ctx, sbuf, rowb, Ys->data, (size_t)Ys->ld * es, rowb,
                                  Ys->nrows, GCOO_MEM_DEVICE, GCOO_MEM_DEVICE, s);
      src = sbuf;
    }
    if (st >= 0 && Yf->ld != N && total > 0) {
      st = gcoo__dist_alloc(d->ctx, GCOO_MEM_DEVICE, (size_t)total * rowb, &rbuf, "gather receive");
      dst = rbuf;
    }
    GCOO_GOTO(gcoo__dist_agree(d, st));
    GCOO_GOTO(GCOO_NCCL(d, ncclAllGather(src, dst, (size_t)(rows[0] * N), nt, comm, s)));
    GCOO_GOTO(gcoo__nccl_wait(d, "ncclAllGather"));
    if (rbuf)
      GCOO_GOTO(gcoo__dist_copy_rows(d->ctx, Yf->data, (size_t)Yf->ld * es, rbuf, rowb, rowb, total,
                                     GCOO_MEM_DEVICE, GCOO_MEM_DEVICE, s));
    GCOO_GOTO(gcoo__nccl_stream_wait(d, s, "ncclAllGather"));
    goto done;
  }
  /* set-up (staging for strided buffers, the side stream, the plan), agreed before the group so
   * that no rank waits in it for a peer that failed here */
  if (sends && Ys->ld != N) {
    st = gcoo__dist_alloc(d->ctx, GCOO_MEM_DEVICE, (size_t)Ys->nrows * rowb, &sbuf, "gather send");
    if (st >= 0)
      st = gcoo__dist_copy_rows(d->ctx, sbuf, rowb, Ys->data, (size_t)Ys->ld * es, rowb, Ys->nrows,
                                GCOO_MEM_DEVICE, GCOO_MEM_DEVICE, s);
    src = sbuf;
  }
  if (st >= 0 && recv && peer_rows > 0 && Yf->ld != N) {
    st = gcoo__dist_alloc(d->ctx, GCOO_MEM_DEVICE, (size_t)total * rowb, &rbuf, "gather receive");
    dst = rbuf;
  }
  /* the own slab: on a side stream, ordered after the work already on the context's stream
   * (the product that wrote it), concurrent with the NCCL group below */
  if (st >= 0 && recv && Ys->nrows > 0) {
    st = dev->stream_create(&side);
    if (st >= 0) st = dev->event_create(&ev_ready);
    if (st >= 0) st = dev->event_create(&ev_own);
    if (st >= 0) st = dev->event_record(ev_ready, s);
    if (st >= 0) st = dev->stream_wait_event(side, ev_ready);
    if (st >= 0)
      st = gcoo__dist_copy_rows(d->ctx, (char *)Yf->data + (size_t)own * Yf->ld * es,
                                (size_t)Yf->ld * es, Ys->data, (size_t)Ys->ld * es, rowb, Ys->nrows,
                                GCOO_MEM_DEVICE, GCOO_MEM_DEVICE, side);
    if (st >= 0) st = dev->event_record(ev_own, side);
  }
  if (st >= 0)
    st = gcoo__gather_plan(d->rank, d->size, root, rows, gcoo__gather_chunk_rows(rowb), &plan,
                           &nplan);
  GCOO_GOTO(gcoo__dist_agree(d, st));
  /* one group: unfused point-to-point calls can deadlock (NCCL p2p docs) */
  if (nplan > (recv && Ys->nrows > 0 ? 1 : 0)) {
    GCOO_GOTO(GCOO_NCCL(d, ncclGroupStart()));
    for (int64_t i = 0; i < nplan && st >= 0; i++) {
      const gcoo__gather_xfer *x = &plan[i];
      if (x->peer == d->rank) continue; /* the own slab, copied above */
      const size_t count = (size_t)(x->nrows * N);
      if (x->send)
        st = GCOO_NCCL(d, ncclSend(src + (size_t)x->row * rowb, count, nt, x->peer, comm, s));
      else
        st = GCOO_NCCL(d, ncclRecv(dst + (size_t)x->row * rowb, count, nt, x->peer, comm, s));
    }
    gcoo_status st2 = GCOO_NCCL(d, ncclGroupEnd());
    GCOO_GOTO(st);
    GCOO_GOTO(st2);
    GCOO_GOTO(gcoo__nccl_wait(d, "gather (ncclGroupEnd)"));
  }
  if (rbuf) { /* the peers' rows from the contiguous stand-in into the strided Y_full */
    int64_t off = 0;
    for (int r = 0; r < d->size; r++) {
      if (r != d->rank && rows[r] > 0)
        GCOO_GOTO(gcoo__dist_copy_rows(d->ctx, (char *)Yf->data + (size_t)off * Yf->ld * es,
                                       (size_t)Yf->ld * es, (char *)rbuf + (size_t)off * rowb, rowb,
                                       rowb, rows[r], GCOO_MEM_DEVICE, GCOO_MEM_DEVICE, s));
      off += rows[r];
    }
  }
  if (ev_own) GCOO_GOTO(dev->stream_wait_event(s, ev_own));
  GCOO_GOTO(gcoo__nccl_stream_wait(d, s, "gather"));
done:
  if (st < 0 || sbuf || rbuf) { /* nothing may still read or write what is freed below */
    (void)dev->stream_sync(s);
    if (side) (void)dev->stream_sync(side);
  }
  if (side) dev->stream_destroy(side);
  if (ev_ready) dev->event_destroy(ev_ready);
  if (ev_own) dev->event_destroy(ev_own);
  free(plan);
  gcoo__dist_free(d->ctx, GCOO_MEM_DEVICE, sbuf);
  gcoo__dist_free(d->ctx, GCOO_MEM_DEVICE, rbuf);
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
  if (st >= 0)
    st = gcoo__malloc_n((void **)&facts, (int64_t)d->size * G_COUNT, sizeof *facts, "gather table");
  if (st >= 0) st = gcoo__malloc_n((void **)&rows, d->size, sizeof *rows, "gather table");
  GCOO_GOTO(gcoo__dist_agree(d, st));

  /* 2. the row-major frame: column slabs of a column-major matrix are row slabs of its transpose */
  const gcoo_dense Ys = Y_slab->layout == GCOO_COL_MAJOR ? gcoo__dense_transposed(Y_slab) : *Y_slab;
  gcoo_dense Yf = {0};
  if (recv) Yf = Y_full->layout == GCOO_COL_MAJOR ? gcoo__dense_transposed(Y_full) : *Y_full;
  int64_t mine[G_COUNT] = {Ys.nrows,
                           Ys.ncols,
                           Ys.dtype,
                           Y_slab->layout,
                           Ys.mem,
                           recv ? Yf.nrows : -1,
                           recv ? Yf.ncols : -1};
  if (recv && Y_full->layout != Y_slab->layout) mine[G_LAYOUT] = -1;
  if (recv && Y_full->mem != Y_slab->mem) mine[G_MEM] = -1;
  if (recv && Y_full->dtype != Y_slab->dtype) mine[G_DTYPE] = -1;
  GCOO_GOTO(
      GCOO_MPI(MPI_Allgather(mine, G_COUNT, MPI_INT64_T, facts, G_COUNT, MPI_INT64_T, d->comm)));
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
                    "0's slab",
                    r);
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
                    "(%s)",
                    (long long)total, (long long)facts[G_COLS], r, (long long)f[G_FULL_ROWS],
                    (long long)f[G_FULL_COLS],
                    Y_slab->layout == GCOO_COL_MAJOR ? "transposed: column slabs" : "row slabs");
  }

  /* 4. move the rows (one rank: its slab is the whole matrix, a plain copy in place) */
  if (d->size == 1) {
    const size_t es = gcoo_dtype_size(Ys.dtype);
    st = gcoo__dist_copy_rows(d->ctx, Yf.data, (size_t)Yf.ld * es, Ys.data, (size_t)Ys.ld * es,
                              (size_t)Ys.ncols * es, Ys.nrows, Yf.mem, Ys.mem,
                              Ys.mem == GCOO_MEM_DEVICE ? gcoo_ctx_stream(d->ctx) : NULL);
#if GCOO_HAVE_CUDA
    if (st >= 0 && Ys.mem == GCOO_MEM_DEVICE)
      st = gcoo__dist_device(d)->stream_sync(gcoo_ctx_stream(d->ctx));
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
    st = GCOO_MPI(
        MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, gcoo__mpi_dtype(dtype), MPI_SUM, d->comm));
    GCOO_CALL(gcoo__dist_agree(d, st));
    return GCOO_SUCCESS;
  }
#if GCOO_HAVE_CUDA
  void *s = gcoo_ctx_stream(d->ctx);
  const gcoo_device_ops *dev = gcoo__dist_device(d);
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
  if (st >= 0) st = dev->copy_rows(h, bytes, buf, bytes, bytes, 1, s);
  if (st >= 0) st = dev->stream_sync(s);
  st = gcoo__dist_agree(d, st); /* every rank takes the same branch */
  if (st >= 0)
    st = GCOO_MPI(
        MPI_Allreduce(MPI_IN_PLACE, h, (int)count, gcoo__mpi_dtype(dtype), MPI_SUM, d->comm));
  else {
    free(h);
    return st;
  }
  if (st >= 0) st = dev->copy_rows(buf, bytes, h, bytes, bytes, 1, s);
  if (st >= 0) st = dev->stream_sync(s);
  free(h);
  GCOO_CALL(gcoo__dist_agree(d, st));
  return GCOO_SUCCESS;
#else
  GCOO_CALL(gcoo__dist_agree(d, GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                                           "device buffers: CUDA is not compiled in")));
  return GCOO_SUCCESS;
#endif
}
