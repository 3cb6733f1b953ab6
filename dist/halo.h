/* SPDX-License-Identifier: MIT */
/* dist/halo.h: the halo of a PARTITIONED operator: which rows of X this rank needs from which
 * owner, which of its own rows the others need, and the exchange of those rows at every apply.
 * Private to dist/. */
#ifndef GCOO_HALO_H
#define GCOO_HALO_H

#include <stdint.h>

#include "gcoo/types.h"

typedef struct gcoo__halo {
  /* receive side: the halo rows (global ids, ascending, hence grouped by owner in rank order) */
  int64_t nrecv;
  int32_t *recv_rows;
  int nrecv_peers;
  int *recv_peer;    /* owners we receive from */
  int64_t *recv_off; /* nrecv_peers + 1 offsets into recv_rows */
  /* send side: our rows (local ids) others need, grouped by destination rank */
  int64_t nsend;
  int32_t *send_rows;
  int nsend_peers;
  int *send_peer;
  int64_t *send_off; /* nsend_peers + 1 offsets into send_rows */
  /* send_rows as runs of consecutive rows: one strided copy per run when packing */
  int64_t nruns;
  int64_t *run_src, *run_len, *run_dst;
  /* buffers, sized at the first apply and grown when N grows */
  gcoo_ctx ctx; /* the rank's context: its allocator and device operations (set by reserve) */
  gcoo_memspace mem;
  size_t send_cap, recv_cap, h_send_cap, h_recv_cap;
  void *sendbuf, *recvbuf; /* in mem: packed rows to send; received halo rows (nrecv x N) */
  void *h_send, *h_recv;   /* host staging when device rows cannot go through NCCL */
  void *ev_ready, *ev_done, *stream; /* CUDA events and the communication stream */
  void *reqs;                        /* MPI requests of a pending host exchange */
  int pending;
} gcoo__halo;

struct gcoo_dist_s;

/** Split this rank's CSR slab (global columns) into its diagonal block (columns renumbered to
 *  local X rows) and its off-diagonal block (columns renumbered to halo rows), and agree with
 *  the other ranks on who sends what (MPI_Alltoall of counts, MPI_Alltoallv of row ids).
 *  row_begin: the size + 1 row offsets of every rank. Collective. */
gcoo_status gcoo__halo_build(struct gcoo_dist_s *d, const int64_t *row_begin, gcoo_sparse A_csr,
                             gcoo_sparse *A_diag, gcoo_sparse *A_offd, gcoo__halo *h);

/** Make sure the buffers hold N columns of dtype in mem (before the agreement of an apply, so
 *  that an allocation failure stops every rank before any message is posted). Not collective. */
gcoo_status gcoo__halo_reserve(struct gcoo_dist_s *d, gcoo__halo *h, gcoo_dtype dtype, int64_t N,
                               gcoo_memspace mem);

/** Start sending our rows of Xown (nrows_local x N, row-major view) and receiving the halo rows
 *  into h->recvbuf. Device buffers: pack and NCCL on the communication stream after the work
 *  queued on ctx_stream. Collective. */
gcoo_status gcoo__halo_begin(struct gcoo_dist_s *d, gcoo__halo *h, const gcoo_dense *Xown,
                             void *ctx_stream);
/** Finish the exchange; afterwards work queued on ctx_stream may read h->recvbuf. */
gcoo_status gcoo__halo_end(struct gcoo_dist_s *d, gcoo__halo *h, void *ctx_stream);

void gcoo__halo_free(gcoo__halo *h);

#endif
