/* SPDX-License-Identifier: MIT */
/* dist/halo_csr.c: the halo of a sparse matrix: the rows of M (distributed like a PARTITIONED
 * operator's X) that the operator's halo names, sent by their owners along the operator's halo
 * pattern. A product A M across ranks needs them (the rows of M that A's off-rank columns
 * reach); AMG's set-up forms A P and R (A P) so. Two rounds with the halo's peers: row lengths,
 * then the rows' columns and values. */
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

enum { TAG_LEN = 105, TAG_COL = 106, TAG_VAL = 107 };

gcoo_status gcoo__dist_op_halo_csr(gcoo_dist_op op, gcoo_sparse own, gcoo_sparse *halo) {
  gcoo_status st = GCOO_SUCCESS;
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_DIST_OP, "distributed operator");
  gcoo_dist d = op->d;
  const gcoo__halo *h = &op->halo;
  gcoo_csr_view v = {0};
  int64_t *slen = NULL, *soff = NULL;
  int32_t *scol = NULL;
  char *sval = NULL;
  MPI_Request *req = NULL;
  gcoo__csr_arrays out = {0};
  *halo = NULL;
  st = gcoo__sparse_csr_view(own, &v);
  if (st >= 0 && v.nrows != op->xnrows)
    st = GCOO_ERROR(GCOO_ERR_SHAPE, "rank %d holds %lld rows of the matrix, the operator's X %lld",
                    d->rank, (long long)v.nrows, (long long)op->xnrows);
  const size_t es = gcoo_dtype_size(v.dtype);
  const int npeer = h->nsend_peers + h->nrecv_peers;
  if (st >= 0) st = gcoo__malloc_n((void **)&slen, h->nsend + 1, sizeof *slen, "halo lengths");
  if (st >= 0) st = gcoo__malloc_n((void **)&soff, h->nsend + 1, sizeof *soff, "halo offsets");
  if (st >= 0) st = gcoo__calloc((void **)&out.ptr, (size_t)h->nrecv + 1, sizeof *out.ptr, "halo");
  if (st >= 0) st = gcoo__malloc_n((void **)&req, 4 * (int64_t)npeer + 1, sizeof *req, "requests");
  GCOO_GOTO(gcoo__dist_agree(d, st));

  /* 1. the lengths of the rows each peer needs (received into out.ptr + 1) */
  soff[0] = 0;
  for (int64_t k = 0; k < h->nsend; k++) {
    const int32_t r = h->send_rows[k];
    slen[k] = v.ptr[r + 1] - v.ptr[r];
    soff[k + 1] = soff[k] + slen[k];
  }
  int nreq = 0;
  for (int p = 0; p < h->nrecv_peers; p++)
    GCOO_GOTO(gcoo__mpi_irecv_big(out.ptr + 1 + h->recv_off[p], h->recv_off[p + 1] - h->recv_off[p],
                                  sizeof(int64_t), h->recv_peer[p], TAG_LEN, d->comm,
                                  req + 2 * nreq++));
  for (int p = 0; p < h->nsend_peers; p++)
    GCOO_GOTO(gcoo__mpi_isend_big(slen + h->send_off[p], h->send_off[p + 1] - h->send_off[p],
                                  sizeof(int64_t), h->send_peer[p], TAG_LEN, d->comm,
                                  req + 2 * nreq++));
  GCOO_GOTO(GCOO_MPI(MPI_Waitall(2 * nreq, req, MPI_STATUSES_IGNORE)));
  for (int64_t r = 0; r < h->nrecv; r++) out.ptr[r + 1] += out.ptr[r];

  /* 2. the rows' entries, packed by peer in send order */
  const int64_t nnz_out = out.ptr[h->nrecv];
  st = gcoo__malloc_n((void **)&scol, soff[h->nsend], sizeof *scol, "halo columns");
  if (st >= 0) st = gcoo__malloc_n((void **)&sval, soff[h->nsend], es, "halo values");
  if (st >= 0) st = gcoo__malloc_n((void **)&out.ind, nnz_out, sizeof *out.ind, "halo columns");
  if (st >= 0) st = gcoo__malloc_n((void **)&out.values, nnz_out, es, "halo values");
  GCOO_GOTO(gcoo__dist_agree(d, st));
  for (int64_t k = 0; k < h->nsend; k++) {
    const int64_t r = h->send_rows[k], n = slen[k];
    memcpy(scol + soff[k], v.ind + v.ptr[r], (size_t)n * sizeof *scol);
    memcpy(sval + (size_t)soff[k] * es, (const char *)v.values + (size_t)v.ptr[r] * es,
           (size_t)n * es);
  }
  nreq = 0;
  for (int p = 0; p < h->nrecv_peers; p++) {
    const int64_t e0 = out.ptr[h->recv_off[p]], e1 = out.ptr[h->recv_off[p + 1]];
    GCOO_GOTO(gcoo__mpi_irecv_big(out.ind + e0, e1 - e0, sizeof(int32_t), h->recv_peer[p], TAG_COL,
                                  d->comm, req + 2 * nreq++));
    GCOO_GOTO(gcoo__mpi_irecv_big((char *)out.values + (size_t)e0 * es, e1 - e0, es,
                                  h->recv_peer[p], TAG_VAL, d->comm, req + 2 * nreq++));
  }
  for (int p = 0; p < h->nsend_peers; p++) {
    const int64_t e0 = soff[h->send_off[p]], e1 = soff[h->send_off[p + 1]];
    GCOO_GOTO(gcoo__mpi_isend_big(scol + e0, e1 - e0, sizeof(int32_t), h->send_peer[p], TAG_COL,
                                  d->comm, req + 2 * nreq++));
    GCOO_GOTO(gcoo__mpi_isend_big(sval + (size_t)e0 * es, e1 - e0, es, h->send_peer[p], TAG_VAL,
                                  d->comm, req + 2 * nreq++));
  }
  GCOO_GOTO(GCOO_MPI(MPI_Waitall(2 * nreq, req, MPI_STATUSES_IGNORE)));
  GCOO_GOTO(gcoo__csr_arrays_adopt(&out, halo, v.dtype, h->nrecv, v.ncols, nnz_out));
done:
  gcoo__csr_arrays_free(&out);
  free(slen);
  free(soff);
  free(scol);
  free(sval);
  free(req);
  return st;
}
