/* SPDX-License-Identifier: MIT */
/* dist/gather_overlap.c: a REPLICATED product gathered on one rank while it is computed.
 *
 * gcoo_dist_op_apply then gcoo_dist_gather_rows leaves the link idle during the product and the
 * GPU idle during the gather (on two H200s the gather is 21-54 % of product + gather:
 * docs/scaling.md). Here the slab is multiplied in row blocks (one sub-operator each, made once
 * by gcoo_dist_pipeline_create) and each finished block leaves while the next is computed:
 *   device buffers, NCCL: block b's product on the context's stream, an event after it, the
 *     send of block b on a second (communication) stream that waits for that event; the root
 *     posts all its receives at once on its communication stream, straight into Y_full, and
 *     computes its own blocks straight into Y_full (its own slab is never copied);
 *   host buffers, MPI: the root posts an MPI_Irecv of every peer block into Y_full, the others
 *     an MPI_Isend of each block as soon as it is computed; the root computes in place too.
 * Anything else (the dense x sparse reading, PARTITIONED operators, strided buffers, device
 * buffers without NCCL, gathers to every rank) takes the plain path: the whole product, then
 * gcoo_dist_gather_rows. The result is the same either way. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

#define GCOO_MAGIC_DIST_PIPELINE 0x67636f6f70697065ull /* "gcoopipe" */

struct gcoo_dist_pipeline_s {
  uint64_t magic;
  gcoo_dist_op op;
  int nblocks;
  gcoo_op *sub; /* nblocks sub-operators of this rank's slab (NULL: block without rows) */
};

int64_t gcoo__pipeline_block_begin(int64_t rows, int nblocks, int b) {
  return nblocks > 0 ? rows * (int64_t)b / nblocks : 0;
}

/* The plain path is taken when the blocked one cannot run on these operands; every rank decides
 * from facts all ranks share (the operator's options, the agreed operand checks). */
static int blocked_mode(gcoo_dist_pipeline pl) {
  const gcoo_dist_op op = pl->op;
  return op->opts.local.reading == GCOO_SPARSE_DENSE && op->opts.xmode == GCOO_DIST_X_REPLICATED &&
         pl->nblocks > 1;
}

gcoo_status gcoo_dist_pipeline_create(gcoo_dist_op op, int nblocks, gcoo_dist_pipeline *out) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_dist_pipeline pl = NULL;
  int64_t *rows = NULL;
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  GCOO_CHECK(out != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *out = NULL;
  if (nblocks < 1 || nblocks > 4096)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "nblocks %d outside 1 .. 4096", nblocks);
  if (st >= 0) st = gcoo__calloc((void **)&pl, 1, sizeof *pl, "pipeline");
  if (st >= 0) {
    pl->magic = GCOO_MAGIC_DIST_PIPELINE;
    pl->op = op;
    pl->nblocks = nblocks;
  }
  GCOO_GOTO(gcoo__dist_agree(op->d, st)); /* all ranks take the same nblocks decision */
  if (blocked_mode(pl)) {
    st = gcoo__calloc((void **)&pl->sub, (size_t)nblocks, sizeof *pl->sub, "pipeline blocks");
    if (st >= 0) st = gcoo__malloc_n((void **)&rows, op->nrows, sizeof *rows, "pipeline rows");
    for (int b = 0; b < nblocks && st >= 0; b++) {
      const int64_t lo = gcoo__pipeline_block_begin(op->nrows, nblocks, b),
                    hi = gcoo__pipeline_block_begin(op->nrows, nblocks, b + 1);
      if (hi == lo) continue;
      for (int64_t i = lo; i < hi; i++) rows[i - lo] = op->row0 + i;
      gcoo_sparse R = NULL;
      st = gcoo_dist_op_get_local_rows(op, rows, hi - lo, &R);
      gcoo_op_options o = op->opts.local;
      if (st >= 0) st = gcoo_op_create(&pl->sub[b], gcoo_dist_ctx(op->d), R, &o);
      gcoo_sparse_destroy(&R);
    }
    GCOO_GOTO(gcoo__dist_agree(op->d, st));
  }
  *out = pl;
  pl = NULL;
done:
  free(rows);
  if (pl) gcoo_dist_pipeline_destroy(&pl);
  return st;
}

gcoo_status gcoo_dist_pipeline_destroy(gcoo_dist_pipeline *pl) {
  if (!pl || !*pl) return GCOO_SUCCESS;
  GCOO_VALID_OBJECT(*pl, GCOO_MAGIC_DIST_PIPELINE, "pipeline");
  if ((*pl)->sub)
    for (int b = 0; b < (*pl)->nblocks; b++) gcoo_op_destroy(&(*pl)->sub[b]);
  free((*pl)->sub);
  (*pl)->magic = GCOO_MAGIC_FREED;
  free(*pl);
  *pl = NULL;
  return GCOO_SUCCESS;
}

/* Rows [lo, hi) of a row-major matrix as a view. */
static gcoo_dense row_view(const gcoo_dense *M, int64_t lo, int64_t hi) {
  gcoo_dense v = *M;
  v.data = (char *)M->data + (size_t)lo * (size_t)M->ld * gcoo_dtype_size(M->dtype);
  v.nrows = hi - lo;
  v.owned = 0;
  return v;
}

/* Block b of rank r: rows [lo, hi) of its slab, global rows row_begin[r] + lo ... */
static void block_of(const gcoo_dist_pipeline pl, int r, int b, int64_t *lo, int64_t *hi) {
  const int64_t n = pl->op->row_begin[r + 1] - pl->op->row_begin[r];
  *lo = gcoo__pipeline_block_begin(n, pl->nblocks, b);
  *hi = gcoo__pipeline_block_begin(n, pl->nblocks, b + 1);
}

/* This rank's block b: Y rows = alpha A_b X, into Y_full's rows on the root, Y_slab's elsewhere. */
static gcoo_status block_product(gcoo_dist_pipeline pl, int b, double alpha, const gcoo_dense *X,
                                 gcoo_dense *dst) {
  if (!pl->sub[b]) return GCOO_SUCCESS;
  GCOO_CALL(gcoo_op_apply(pl->sub[b], alpha, X, 0.0, dst));
  return GCOO_SUCCESS;
}

/* Host buffers: MPI_Irecv of every peer block into Y_full on the root, MPI_Isend of each block
 * as soon as it is computed elsewhere (it travels while the next block is computed). A rank
 * whose product fails keeps sending (the blocks' contents are then undefined) so that no
 * receive is left pending; the caller's agreement reports the failure on every rank. */
static gcoo_status blocked_host(gcoo_dist_pipeline pl, double alpha, const gcoo_dense *X,
                                gcoo_dense *Ys, int root, gcoo_dense *Yf) {
  const gcoo_dist d = pl->op->d;
  const int me = d->rank, nb = pl->nblocks;
  const int64_t N = X->ncols;
  gcoo_status st = GCOO_SUCCESS, prod = GCOO_SUCCESS;
  MPI_Request *req = NULL;
  MPI_Datatype row = MPI_DATATYPE_NULL;
  int nreq = 0;
  GCOO_GOTO(gcoo__mpi_row_type(X->dtype, N, N > 0 ? N : 1, &row)); /* both sides: ld == N */
  GCOO_GOTO(gcoo__malloc_n((void **)&req, (int64_t)d->size * nb, sizeof *req, "pipeline requests"));
  if (me == root)
    for (int r = 0; r < d->size; r++)
      for (int b = 0; b < nb && r != root; b++) {
        int64_t lo, hi;
        block_of(pl, r, b, &lo, &hi);
        if (hi == lo) continue;
        gcoo_dense v = row_view(Yf, pl->op->row_begin[r] + lo, pl->op->row_begin[r] + hi);
        st = GCOO_MPI(
            MPI_Irecv(v.data, (int)(hi - lo), row, r, GCOO_TAG_GATHER + b, d->comm, &req[nreq]));
        if (st < 0) goto wait;
        nreq++;
      }
  for (int b = 0; b < nb; b++) {
    int64_t lo, hi;
    block_of(pl, me, b, &lo, &hi);
    if (hi == lo) continue;
    gcoo_dense v = me == root ? row_view(Yf, pl->op->row0 + lo, pl->op->row0 + hi)
                              : row_view(Ys, lo, hi);
    if (prod >= 0) prod = block_product(pl, b, alpha, X, &v);
    if (me != root) {
      st = GCOO_MPI(
          MPI_Isend(v.data, (int)(hi - lo), row, root, GCOO_TAG_GATHER + b, d->comm, &req[nreq]));
      if (st < 0) break;
      nreq++;
    }
  }
wait:
  if (nreq) {
    gcoo_status w = GCOO_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    if (st >= 0) st = w;
  }
done:
  if (row != MPI_DATATYPE_NULL) MPI_Type_free(&row);
  free(req);
  return st >= 0 ? prod : st;
}

#if GCOO_HAVE_NCCL
/* Device buffers, NCCL: products on the context's stream, sends on a communication stream, each
 * after its block's event; the root receives everything at once on its communication stream. */
static gcoo_status blocked_nccl(gcoo_dist_pipeline pl, double alpha, const gcoo_dense *X,
                                gcoo_dense *Ys, int root, gcoo_dense *Yf) {
  const gcoo_dist d = pl->op->d;
  const gcoo_device_ops *dev = gcoo__dist_device(d);
  const int me = d->rank, nb = pl->nblocks;
  const int64_t N = X->ncols;
  const size_t rowb = (size_t)N * gcoo_dtype_size(X->dtype);
  const ncclDataType_t nt = X->dtype == GCOO_FLOAT64 ? ncclFloat64 : ncclFloat32;
  void *s = gcoo_ctx_stream(d->ctx), *cs = NULL, *ev_start = NULL, *ev_done = NULL;
  void **ev = NULL;
  ncclComm_t comm;
  gcoo_status st = gcoo__dist_nccl(d, &comm), prod = GCOO_SUCCESS;
  if (st >= 0 && !dev) st = GCOO_ERROR(GCOO_ERR_INTERNAL, "pipeline: NCCL without the device");
  if (st >= 0) st = dev->stream_create(&cs);
  if (st >= 0) st = dev->event_create(&ev_start);
  if (st >= 0) st = dev->event_create(&ev_done);
  if (st >= 0) st = gcoo__calloc((void **)&ev, (size_t)nb, sizeof *ev, "pipeline events");
  for (int b = 0; b < nb && st >= 0 && me != root; b++) st = dev->event_create(&ev[b]);
  /* the communication stream starts after what is already queued (the producer of X, the last
   * reader of Y_full): then it runs beside the products */
  if (st >= 0) st = dev->event_record(ev_start, s);
  if (st >= 0) st = dev->stream_wait_event(cs, ev_start);
  GCOO_GOTO(gcoo__dist_agree(d, st)); /* set-up agreed before any NCCL call */
  if (me == root) {
    /* every receive at its final place; NCCL runs same-peer operations in order, so block b of
     * rank r matches r's b-th send */
    int any = 0;
    GCOO_GOTO(GCOO_NCCL(d, ncclGroupStart()));
    for (int r = 0; r < d->size && st >= 0; r++)
      for (int b = 0; b < nb && st >= 0 && r != root; b++) {
        int64_t lo, hi;
        block_of(pl, r, b, &lo, &hi);
        if (hi == lo) continue;
        char *dst = (char *)Yf->data + (size_t)(pl->op->row_begin[r] + lo) * rowb;
        st = GCOO_NCCL(d, ncclRecv(dst, (size_t)(hi - lo) * (size_t)N, nt, r, comm, cs));
        any = 1;
      }
    gcoo_status st2 = GCOO_NCCL(d, ncclGroupEnd());
    if (st >= 0) st = st2;
    if (st >= 0 && any) st = gcoo__nccl_wait(d, "pipeline receives (ncclGroupEnd)");
    for (int b = 0; b < nb && st >= 0; b++) { /* own rows, in place, beside the receives */
      int64_t lo, hi;
      block_of(pl, me, b, &lo, &hi);
      gcoo_dense v = row_view(Yf, pl->op->row0 + lo, pl->op->row0 + hi);
      if (hi > lo && prod >= 0) prod = block_product(pl, b, alpha, X, &v);
    }
  } else {
    for (int b = 0; b < nb && st >= 0; b++) {
      int64_t lo, hi;
      block_of(pl, me, b, &lo, &hi);
      if (hi == lo) continue;
      gcoo_dense v = row_view(Ys, lo, hi);
      /* a failed product still sends (undefined rows) so that the root's receive completes */
      if (prod >= 0) prod = block_product(pl, b, alpha, X, &v);
      st = dev->event_record(ev[b], s);
      if (st >= 0) st = dev->stream_wait_event(cs, ev[b]);
      if (st >= 0) st = GCOO_NCCL(d, ncclGroupStart());
      if (st >= 0) {
        st = GCOO_NCCL(d, ncclSend(v.data, (size_t)(hi - lo) * (size_t)N, nt, root, comm, cs));
        gcoo_status st2 = GCOO_NCCL(d, ncclGroupEnd());
        if (st >= 0) st = st2;
      }
      if (st >= 0) st = gcoo__nccl_wait(d, "pipeline send (ncclGroupEnd)");
    }
  }
  /* the context's stream continues after the communication stream: Y_full (root) is complete and
   * Y_slab (elsewhere) may be overwritten once this call returns */
  if (st >= 0) st = dev->event_record(ev_done, cs);
  if (st >= 0) st = dev->stream_wait_event(s, ev_done);
  if (st >= 0) st = gcoo__nccl_stream_wait(d, s, "pipeline");
done:
  if (cs) {
    if (st < 0) (void)dev->stream_sync(cs);
    dev->stream_destroy(cs);
  }
  if (ev)
    for (int b = 0; b < nb; b++)
      if (ev[b]) dev->event_destroy(ev[b]);
  free(ev);
  if (ev_start) dev->event_destroy(ev_start);
  if (ev_done) dev->event_destroy(ev_done);
  return st >= 0 ? prod : st;
}
#endif

gcoo_status gcoo_dist_pipeline_apply_gather(gcoo_dist_pipeline pl, double alpha,
                                            const gcoo_dense *X, gcoo_dense *Y_slab, int root,
                                            gcoo_dense *Y_full) {
  GCOO_VALID_OBJECT(pl, GCOO_MAGIC_DIST_PIPELINE, "pipeline");
  const gcoo_dist d = pl->op->d;
  const int me = d->rank;
  gcoo_status st = GCOO_SUCCESS;
  if (root < -1 || root >= d->size)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "root %d outside -1 .. %d", root, d->size - 1);
  if (st >= 0) st = gcoo_dense_check(X);
  if (st >= 0)
    st = Y_slab ? gcoo_dense_check(Y_slab)
                : GCOO_ERROR(GCOO_ERR_NULL, "Y_slab is NULL on rank %d", me);
  if (st >= 0 && (root < 0 || me == root))
    st = Y_full ? gcoo_dense_check(Y_full)
                : GCOO_ERROR(GCOO_ERR_NULL, "Y_full is NULL on receiving rank %d", me);
  /* the blocked path's conditions, as facts every rank contributes */
  int mine = st >= 0 && blocked_mode(pl) && root >= 0 && X->layout == GCOO_ROW_MAJOR;
  if (mine && me != root)
    mine = Y_slab->layout == GCOO_ROW_MAJOR && Y_slab->ld == X->ncols && Y_slab->mem == X->mem &&
           Y_slab->nrows == pl->op->nrows && Y_slab->ncols == X->ncols && Y_slab->dtype == X->dtype;
  if (mine && me == root)
    mine = Y_full->layout == GCOO_ROW_MAJOR && Y_full->ld == X->ncols && Y_full->mem == X->mem &&
           Y_full->nrows == pl->op->m_global && Y_full->ncols == X->ncols &&
           Y_full->dtype == X->dtype;
  if (mine && X->mem == GCOO_MEM_DEVICE) mine = gcoo__dist_uses_nccl(d);
  if (mine && X->ncols > 0 && pl->op->m_global > INT_MAX / 2) mine = 0;
  int all = 0;
  GCOO_CALL(gcoo__dist_agree(d, st)); /* every rank passes here, or every rank returns */
  GCOO_CALL(
      gcoo__dist_agree(d, GCOO_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, d->comm))));
  if (!all) { /* the plain path: the product, then the gather (each checks its operands) */
    GCOO_CALL(gcoo_dist_op_apply(pl->op, alpha, X, 0.0, Y_slab));
    GCOO_CALL(gcoo_dist_gather_rows(d, Y_slab, root, Y_full));
    return GCOO_SUCCESS;
  }
  if (X->mem == GCOO_MEM_HOST) {
    st = blocked_host(pl, alpha, X, Y_slab, root, Y_full);
  } else {
#if GCOO_HAVE_NCCL
    st = blocked_nccl(pl, alpha, X, Y_slab, root, Y_full);
#else
    st = GCOO_ERROR(GCOO_ERR_INTERNAL, "pipeline: device path without NCCL");
#endif
  }
  GCOO_CALL(gcoo__dist_agree(d, st));
  return GCOO_SUCCESS;
}
