/* SPDX-License-Identifier: MIT */
/* dist/halo.c: the halo exchange of PARTITIONED operators (square A, X rows partitioned like Y).
 *
 * Once, at creation: the columns of the rank's slab outside its own rows are the X rows it needs
 * (its halo). Sorted, they come grouped by owner in rank order. One MPI_Alltoall of counts and
 * one MPI_Alltoallv of row ids tell every owner which of its rows go to whom. The slab is split
 * into a diagonal block (columns renumbered to own X rows) and an off-diagonal block (columns
 * renumbered to halo rows), PETSc's MPIAIJ layout, so the own-rows product runs while the halo
 * travels.
 *
 * Every apply: pack the rows others need (one strided copy per run of consecutive rows through
 * the backend's device operations; a Poisson slab's send list is one run per neighbour), send and
 * receive them (NCCL grouped ncclSend/ncclRecv on a communication stream for device buffers,
 * MPI_Isend/Irecv of whole-row datatypes for host buffers, host staging + MPI for device
 * buffers without NCCL), then the off-diagonal product reads the received rows. Streams, events
 * and copies of device buffers go through the CUDA backend's gcoo_device_ops (gcoo/backend.h). */
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

/* The device operations of the CUDA backend; NULL when CUDA is not compiled in. */
/* The device operations of the halo's context (set by gcoo__halo_reserve), NULL before it or on a
 * backend without a device. */
static const gcoo_device_ops *device(const gcoo__halo *h) {
  return h->ctx ? h->ctx->ops->device : NULL;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Owner of global row g: the r with row_begin[r] <= g < row_begin[r + 1] (empty ranks skipped). */
static int owner_of(const int64_t *row_begin, int size, int64_t g) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (row_begin[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Index of g in the sorted array a[0..n) (present by construction). */
static int64_t find_row(const int32_t *a, int64_t n, int32_t g) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (a[mid] < g)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Diagonal block (own columns, renumbered from 0) and off-diagonal block (halo columns,
 * renumbered to their position in recv_rows) of the slab. Column order inside rows is kept, so
 * both come out sorted. */
static gcoo_status split_slab(const gcoo_csr_view *v, int64_t row0, int64_t nown,
                              const gcoo__halo *h, gcoo_sparse *A_diag, gcoo_sparse *A_offd) {
  gcoo_status st = GCOO_SUCCESS;
  const size_t es = gcoo_dtype_size(v->dtype);
  int64_t *pd = NULL, *po = NULL;
  int32_t *cd = NULL, *co = NULL;
  char *vd = NULL, *vo = NULL;
  GCOO_GOTO(gcoo__calloc((void **)&pd, (size_t)v->nrows + 1, sizeof *pd, "diagonal block"));
  GCOO_GOTO(gcoo__calloc((void **)&po, (size_t)v->nrows + 1, sizeof *po, "off-diagonal block"));
  for (int64_t i = 0; i < v->nrows; i++) {
    int64_t nd = 0;
    for (int64_t k = v->ptr[i]; k < v->ptr[i + 1]; k++)
      nd += v->ind[k] >= row0 && v->ind[k] < row0 + nown;
    pd[i + 1] = pd[i] + nd;
    po[i + 1] = po[i] + (v->ptr[i + 1] - v->ptr[i] - nd);
  }
  GCOO_GOTO(gcoo__malloc_n((void **)&cd, pd[v->nrows], sizeof *cd, "diagonal block"));
  GCOO_GOTO(gcoo__malloc_n((void **)&vd, pd[v->nrows], es, "diagonal block"));
  GCOO_GOTO(gcoo__malloc_n((void **)&co, po[v->nrows], sizeof *co, "off-diagonal block"));
  GCOO_GOTO(gcoo__malloc_n((void **)&vo, po[v->nrows], es, "off-diagonal block"));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < v->nrows; i++) {
    int64_t a = pd[i], b = po[i];
    for (int64_t k = v->ptr[i]; k < v->ptr[i + 1]; k++) {
      const int32_t c = v->ind[k];
      const char *val = (const char *)v->values + (size_t)k * es;
      if (c >= row0 && c < row0 + nown) {
        cd[a] = (int32_t)(c - row0);
        memcpy(vd + (size_t)a * es, val, es);
        a++;
      } else {
        co[b] = (int32_t)find_row(h->recv_rows, h->nrecv, c);
        memcpy(vo + (size_t)b * es, val, es);
        b++;
      }
    }
  }
  st = gcoo__sparse_adopt(A_diag, GCOO_FORMAT_CSR, v->dtype, v->nrows, nown, pd[v->nrows], 0, pd,
                          cd, NULL, NULL, NULL, vd);
  pd = NULL, cd = NULL, vd = NULL;
  GCOO_GOTO(st);
  st = gcoo__sparse_adopt(A_offd, GCOO_FORMAT_CSR, v->dtype, v->nrows, h->nrecv, po[v->nrows], 0,
                          po, co, NULL, NULL, NULL, vo);
  po = NULL, co = NULL, vo = NULL;
  GCOO_GOTO(st);
done:
  free(pd);
  free(po);
  free(cd);
  free(co);
  free(vd);
  free(vo);
  if (st < 0) {
    gcoo_sparse_destroy(A_diag);
    gcoo_sparse_destroy(A_offd);
  }
  return st;
}

/* Runs of consecutive local rows in send_rows: one copy each when packing. */
static gcoo_status build_runs(gcoo__halo *h) {
  int64_t n = 0;
  for (int64_t k = 0; k < h->nsend; k++) n += k == 0 || h->send_rows[k] != h->send_rows[k - 1] + 1;
  GCOO_CALL(gcoo__malloc_n((void **)&h->run_src, n, sizeof(int64_t), "halo runs"));
  GCOO_CALL(gcoo__malloc_n((void **)&h->run_len, n, sizeof(int64_t), "halo runs"));
  GCOO_CALL(gcoo__malloc_n((void **)&h->run_dst, n, sizeof(int64_t), "halo runs"));
  int64_t r = -1;
  for (int64_t k = 0; k < h->nsend; k++) {
    if (k == 0 || h->send_rows[k] != h->send_rows[k - 1] + 1) {
      r++;
      h->run_src[r] = h->send_rows[k];
      h->run_dst[r] = k;
      h->run_len[r] = 0;
    }
    h->run_len[r]++;
  }
  h->nruns = n;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__halo_build(gcoo_dist d, const int64_t *row_begin, gcoo_sparse A_csr,
                             gcoo_sparse *A_diag, gcoo_sparse *A_offd, gcoo__halo *h) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_csr_view v;
  int *cnt_need = NULL, *cnt_give = NULL, *dis_need = NULL, *dis_give = NULL;
  const int size = d->size;
  const int64_t row0 = row_begin[d->rank], nown = row_begin[d->rank + 1] - row0;
  memset(h, 0, sizeof *h);
  *A_diag = *A_offd = NULL;

  /* 1. the halo: columns outside our rows, sorted and unique (local work) */
  st = gcoo__sparse_csr_view(A_csr, &v);
  if (st >= 0) {
    int64_t n = 0;
    for (int64_t k = 0; k < v.nnz; k++) n += v.ind[k] < row0 || v.ind[k] >= row0 + nown;
    st = gcoo__malloc_n((void **)&h->recv_rows, n, sizeof(int32_t), "halo rows");
    if (st >= 0) {
      int64_t w = 0;
      for (int64_t k = 0; k < v.nnz; k++)
        if (v.ind[k] < row0 || v.ind[k] >= row0 + nown) h->recv_rows[w++] = v.ind[k];
      if (n > 1) qsort(h->recv_rows, (size_t)n, sizeof(int32_t), cmp_i32);
      int64_t u = 0;
      for (int64_t k = 0; k < n; k++)
        if (u == 0 || h->recv_rows[k] != h->recv_rows[u - 1]) h->recv_rows[u++] = h->recv_rows[k];
      h->nrecv = u;
    }
  }
  if (st >= 0) st = gcoo__calloc((void **)&cnt_need, (size_t)size, sizeof(int), "halo counts");
  if (st >= 0) st = gcoo__calloc((void **)&cnt_give, (size_t)size, sizeof(int), "halo counts");
  if (st >= 0) st = gcoo__calloc((void **)&dis_need, (size_t)size, sizeof(int), "halo counts");
  if (st >= 0) st = gcoo__calloc((void **)&dis_give, (size_t)size, sizeof(int), "halo counts");
  if (st >= 0) st = gcoo__calloc((void **)&h->recv_peer, (size_t)size, sizeof(int), "halo peers");
  if (st >= 0)
    st = gcoo__calloc((void **)&h->recv_off, (size_t)size + 1, sizeof(int64_t), "halo peers");
  if (st >= 0) {
    /* owners, in rank order since the rows are sorted */
    for (int64_t k = 0; k < h->nrecv; k++) {
      int o = owner_of(row_begin, size, h->recv_rows[k]);
      if (o == d->rank || h->recv_rows[k] >= row_begin[size]) {
        st = GCOO_ERROR(GCOO_ERR_INTERNAL, "halo row %d has owner %d (rank %d)", h->recv_rows[k], o,
                        d->rank);
        break;
      }
      cnt_need[o]++;
    }
    for (int r = 0; r < size; r++)
      if (cnt_need[r]) {
        h->recv_peer[h->nrecv_peers] = r;
        h->recv_off[h->nrecv_peers + 1] = h->recv_off[h->nrecv_peers] + cnt_need[r];
        h->nrecv_peers++;
      }
    for (int r = 1; r < size; r++) dis_need[r] = dis_need[r - 1] + cnt_need[r - 1];
  }
  GCOO_GOTO(gcoo__dist_agree(d, st));

  /* 2. tell each owner which of its rows we need */
  GCOO_GOTO(GCOO_MPI(MPI_Alltoall(cnt_need, 1, MPI_INT, cnt_give, 1, MPI_INT, d->comm)));
  int64_t total = 0;
  for (int r = 0; r < size; r++) total += cnt_give[r];
  st = total <= 0x7fffffff ? GCOO_SUCCESS
                           : GCOO_ERROR(GCOO_ERR_TOO_LARGE,
                                        "rank %d must send %lld halo rows per apply, more than an "
                                        "MPI count holds",
                                        d->rank, (long long)total);
  if (st >= 0) {
    for (int r = 1; r < size; r++) dis_give[r] = dis_give[r - 1] + cnt_give[r - 1];
    h->nsend = total;
    st = gcoo__malloc_n((void **)&h->send_rows, total, sizeof(int32_t), "halo send rows");
  }
  if (st >= 0) st = gcoo__calloc((void **)&h->send_peer, (size_t)size, sizeof(int), "halo peers");
  if (st >= 0)
    st = gcoo__calloc((void **)&h->send_off, (size_t)size + 1, sizeof(int64_t), "halo peers");
  GCOO_GOTO(gcoo__dist_agree(d, st));
  GCOO_GOTO(GCOO_MPI(MPI_Alltoallv(h->recv_rows, cnt_need, dis_need, MPI_INT32_T, h->send_rows,
                                   cnt_give, dis_give, MPI_INT32_T, d->comm)));

  /* 3. our side: local ids of the rows we send, their peers and runs; the split slab */
  for (int64_t k = 0; k < h->nsend && st >= 0; k++) {
    int64_t g = h->send_rows[k];
    if (g < row0 || g >= row0 + nown)
      st = GCOO_ERROR(GCOO_ERR_INTERNAL, "rank %d was asked for row %lld it does not own", d->rank,
                      (long long)g);
    else
      h->send_rows[k] = (int32_t)(g - row0);
  }
  if (st >= 0) {
    for (int r = 0; r < size; r++)
      if (cnt_give[r]) {
        h->send_peer[h->nsend_peers] = r;
        h->send_off[h->nsend_peers + 1] = h->send_off[h->nsend_peers] + cnt_give[r];
        h->nsend_peers++;
      }
    st = build_runs(h);
  }
  if (st >= 0) st = split_slab(&v, row0, nown, h, A_diag, A_offd);
  GCOO_GOTO(gcoo__dist_agree(d, st));
  GCOO_LOG(GCOO_LOG_INFO, "HALO",
           "receives %lld rows from %d ranks, sends %lld rows (%lld runs) "
           "to %d ranks",
           (long long)h->nrecv, h->nrecv_peers, (long long)h->nsend, (long long)h->nruns,
           h->nsend_peers);
done:
  free(cnt_need);
  free(cnt_give);
  free(dis_need);
  free(dis_give);
  if (st < 0) {
    gcoo__halo_free(h);
    gcoo_sparse_destroy(A_diag);
    gcoo_sparse_destroy(A_offd);
  }
  return st;
}

/* ---- buffers ------------------------------------------------------------------------------ */

static void free_buffers(gcoo__halo *h) {
  gcoo__dist_free(h->ctx, h->mem, h->sendbuf);
  gcoo__dist_free(h->ctx, h->mem, h->recvbuf);
  free(h->h_send);
  free(h->h_recv);
  h->sendbuf = h->recvbuf = h->h_send = h->h_recv = NULL;
  h->send_cap = h->recv_cap = h->h_send_cap = h->h_recv_cap = 0;
}

static gcoo_status grow(gcoo_ctx ctx, gcoo_memspace mem, void **p, size_t *cap, size_t need,
                        const char *what) {
  if (need <= *cap && *p) return GCOO_SUCCESS;
  gcoo__dist_free(ctx, mem, *p);
  *p = NULL;
  *cap = 0;
  GCOO_CALL(gcoo__dist_alloc(ctx, mem, need, p, what));
  *cap = need;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__halo_reserve(gcoo_dist d, gcoo__halo *h, gcoo_dtype dtype, int64_t N,
                               gcoo_memspace mem) {
  size_t sb, rb;
  GCOO_CALL(gcoo__array_bytes(h->nsend * N, gcoo_dtype_size(dtype), &sb));
  GCOO_CALL(gcoo__array_bytes(h->nrecv * N, gcoo_dtype_size(dtype), &rb));
  if (mem != h->mem) free_buffers(h);
  h->mem = mem;
  h->ctx = d->ctx;
  GCOO_CALL(grow(h->ctx, mem, &h->sendbuf, &h->send_cap, sb, "halo send buffer"));
  GCOO_CALL(grow(h->ctx, mem, &h->recvbuf, &h->recv_cap, rb, "halo receive buffer"));
  if (!h->reqs)
    GCOO_CALL(gcoo__malloc_n(&h->reqs, h->nsend_peers + h->nrecv_peers + 1, sizeof(MPI_Request),
                             "halo requests"));
  if (mem == GCOO_MEM_DEVICE) {
    const gcoo_device_ops *dv = device(h);
    GCOO_CHECK(dv != NULL, GCOO_ERR_UNSUPPORTED, "device operands: the %s backend has no device",
               d->ctx ? d->ctx->ops->name : "(unbound)");
    if (!gcoo__dist_uses_nccl(d)) {
      GCOO_CALL(grow(h->ctx, GCOO_MEM_HOST, &h->h_send, &h->h_send_cap, sb, "halo host staging"));
      GCOO_CALL(grow(h->ctx, GCOO_MEM_HOST, &h->h_recv, &h->h_recv_cap, rb, "halo host staging"));
    }
    if (!h->stream) { /* the communication stream and its two events, made once */
      GCOO_CALL(dv->stream_create(&h->stream));
      GCOO_CALL(dv->event_create(&h->ev_ready));
      GCOO_CALL(dv->event_create(&h->ev_done));
    }
  }
  return GCOO_SUCCESS;
}

void gcoo__halo_free(gcoo__halo *h) {
  free_buffers(h);
  const gcoo_device_ops *dv = device(h);
  if (dv) {
    if (h->stream) dv->stream_destroy(h->stream);
    if (h->ev_ready) dv->event_destroy(h->ev_ready);
    if (h->ev_done) dv->event_destroy(h->ev_done);
  }
  free(h->recv_rows);
  free(h->recv_peer);
  free(h->recv_off);
  free(h->send_rows);
  free(h->send_peer);
  free(h->send_off);
  free(h->run_src);
  free(h->run_len);
  free(h->run_dst);
  free(h->reqs);
  memset(h, 0, sizeof *h);
}

/* ---- the exchange ------------------------------------------------------------------------- */

/* Copy the rows others need from Xown (row-major view) into `to` (rows packed, N wide). */
static gcoo_status pack(const gcoo__halo *h, const gcoo_dense *Xown, void *to, gcoo_memspace mem,
                        void *stream) {
  const size_t es = gcoo_dtype_size(Xown->dtype), rowb = (size_t)Xown->ncols * es;
  const size_t pitch = (size_t)Xown->ld * es;
  for (int64_t r = 0; r < h->nruns; r++)
    GCOO_CALL(gcoo__dist_copy_rows(h->ctx, (char *)to + (size_t)h->run_dst[r] * rowb, rowb,
                                   (const char *)Xown->data + (size_t)h->run_src[r] * pitch, pitch,
                                   rowb, h->run_len[r], mem, Xown->mem, stream));
  return GCOO_SUCCESS;
}

/* Post MPI_Irecv/Isend of whole rows between host buffers. */
static gcoo_status post_mpi(gcoo_dist d, gcoo__halo *h, gcoo_dtype dtype, int64_t N,
                            const void *sendbuf, void *recvbuf) {
  gcoo_status st = GCOO_SUCCESS;
  MPI_Datatype row = MPI_DATATYPE_NULL;
  MPI_Request *req = h->reqs;
  const size_t rowb = (size_t)N * gcoo_dtype_size(dtype);
  int nreq = 0;
  for (int i = 0; i < h->nsend_peers + h->nrecv_peers; i++) req[i] = MPI_REQUEST_NULL;
  if (h->nsend_peers + h->nrecv_peers == 0) {
    h->pending = 1;
    return GCOO_SUCCESS;
  }
  GCOO_CALL(gcoo__mpi_row_type(dtype, N, N > 0 ? N : 1, &row));
  for (int i = 0; i < h->nrecv_peers; i++) {
    int64_t off = h->recv_off[i], cnt = h->recv_off[i + 1] - off;
    GCOO_GOTO(GCOO_MPI(MPI_Irecv((char *)recvbuf + (size_t)off * rowb, (int)cnt, row,
                                 h->recv_peer[i], GCOO_TAG_HALO, d->comm, &req[nreq++])));
  }
  for (int i = 0; i < h->nsend_peers; i++) {
    int64_t off = h->send_off[i], cnt = h->send_off[i + 1] - off;
    GCOO_GOTO(GCOO_MPI(MPI_Isend((const char *)sendbuf + (size_t)off * rowb, (int)cnt, row,
                                 h->send_peer[i], GCOO_TAG_HALO, d->comm, &req[nreq++])));
  }
  h->pending = 1;
done:
  MPI_Type_free(&row);
  return st;
}

static gcoo_status wait_mpi(gcoo__halo *h) {
  int n = h->nsend_peers + h->nrecv_peers;
  h->pending = 0;
  if (n) GCOO_CALL(GCOO_MPI(MPI_Waitall(n, (MPI_Request *)h->reqs, MPI_STATUSES_IGNORE)));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__halo_begin(gcoo_dist d, gcoo__halo *h, const gcoo_dense *Xown, void *ctx_stream) {
  const gcoo_dtype dtype = Xown->dtype;
  const int64_t N = Xown->ncols;
  GCOO_CHECK(Xown->layout == GCOO_ROW_MAJOR, GCOO_ERR_INTERNAL, "halo source must be row-major");
  if (Xown->mem == GCOO_MEM_HOST) {
    GCOO_CALL(pack(h, Xown, h->sendbuf, GCOO_MEM_HOST, NULL));
    GCOO_CALL(post_mpi(d, h, dtype, N, h->sendbuf, h->recvbuf));
    return GCOO_SUCCESS;
  }
  const gcoo_device_ops *dv = device(h);
  GCOO_CHECK(dv != NULL && h->stream, GCOO_ERR_UNSUPPORTED,
             "device operands: CUDA is not compiled in (or the halo was not reserved)");
  const size_t rowb = (size_t)N * gcoo_dtype_size(dtype);
  void *cs = ctx_stream;
#if GCOO_HAVE_NCCL
  if (gcoo__dist_uses_nccl(d)) {
    void *hs = h->stream;
    ncclComm_t comm;
    GCOO_CALL(gcoo__dist_nccl(d, &comm));
    const ncclDataType_t nt = dtype == GCOO_FLOAT64 ? ncclFloat64 : ncclFloat32;
    /* the communication stream starts after the work that produced X (and that read the
     * previous halo) on the context's stream */
    GCOO_CALL(dv->event_record(h->ev_ready, cs));
    GCOO_CALL(dv->stream_wait_event(hs, h->ev_ready));
    GCOO_CALL(pack(h, Xown, h->sendbuf, GCOO_MEM_DEVICE, hs));
    if (h->nsend_peers + h->nrecv_peers > 0) {
      /* all peers in one group: unfused send/recv pairs can deadlock (NCCL p2p docs) */
      GCOO_CALL(GCOO_NCCL(d, ncclGroupStart()));
      gcoo_status st = GCOO_SUCCESS;
      for (int i = 0; i < h->nrecv_peers && st >= 0; i++) {
        int64_t off = h->recv_off[i], cnt = h->recv_off[i + 1] - off;
        st = GCOO_NCCL(d, ncclRecv((char *)h->recvbuf + (size_t)off * rowb, (size_t)(cnt * N), nt,
                                   h->recv_peer[i], comm, (cudaStream_t)hs));
      }
      for (int i = 0; i < h->nsend_peers && st >= 0; i++) {
        int64_t off = h->send_off[i], cnt = h->send_off[i + 1] - off;
        st = GCOO_NCCL(d, ncclSend((const char *)h->sendbuf + (size_t)off * rowb, (size_t)(cnt * N),
                                   nt, h->send_peer[i], comm, (cudaStream_t)hs));
      }
      gcoo_status st2 = GCOO_NCCL(d, ncclGroupEnd());
      GCOO_CALL(st);
      GCOO_CALL(st2);
      GCOO_CALL(gcoo__nccl_wait(d, "halo exchange (ncclGroupEnd)"));
    }
    GCOO_CALL(dv->event_record(h->ev_done, hs));
    h->pending = 1;
    return GCOO_SUCCESS;
  }
#endif
  /* no NCCL: pack on the GPU, stage through the host, MPI, back to the GPU */
  GCOO_CALL(pack(h, Xown, h->sendbuf, GCOO_MEM_DEVICE, cs));
  GCOO_CALL(gcoo__dist_copy_rows(h->ctx, h->h_send, rowb, h->sendbuf, rowb, rowb, h->nsend,
                                 GCOO_MEM_HOST, GCOO_MEM_DEVICE, cs));
  GCOO_CALL(dv->stream_sync(cs));
  GCOO_CALL(post_mpi(d, h, dtype, N, h->h_send, h->h_recv));
  GCOO_CALL(wait_mpi(h));
  GCOO_CALL(gcoo__dist_copy_rows(h->ctx, h->recvbuf, rowb, h->h_recv, rowb, rowb, h->nrecv,
                                 GCOO_MEM_DEVICE, GCOO_MEM_HOST, cs));
  /* h_recv must not be overwritten by the next apply before this copy ran */
  GCOO_CALL(dv->stream_sync(cs));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__halo_end(gcoo_dist d, gcoo__halo *h, void *ctx_stream) {
  (void)d;
  if (!h->pending) return GCOO_SUCCESS;
  if (h->mem == GCOO_MEM_HOST || !h->stream) {
    GCOO_CALL(wait_mpi(h));
    return GCOO_SUCCESS;
  }
  h->pending = 0;
  const gcoo_device_ops *dv = device(h);
  GCOO_CHECK(dv != NULL, GCOO_ERR_INTERNAL, "device halo without CUDA");
  GCOO_CALL(dv->stream_wait_event(ctx_stream, h->ev_done));
  return GCOO_SUCCESS;
}
