/* SPDX-License-Identifier: MIT */
/* dist/dist_agree.c: all ranks leave a collective with an error when any rank failed.
 *
 * One MPI_Allreduce(MIN) of three ints tells every rank the worst status, the lowest failing
 * rank and whether any NCCL work failed; then the lowest failing rank broadcasts its message,
 * which the ranks that did not fail take as their own ("rank R: ...", GCOO_ERR_REMOTE). The cost
 * when nothing failed is that one small all-reduce. */
#include <stdio.h>
#include <string.h>

#include "dist_impl.h"

enum { MSG_LEN = 1536 };

gcoo_status gcoo__agree_comm(MPI_Comm comm, gcoo_status local, int *nccl_failed) {
  int rank = 0, size = 1;
  if (nccl_failed) *nccl_failed = 0;
  GCOO_CALL(GCOO_MPI(MPI_Comm_rank(comm, &rank)));
  GCOO_CALL(GCOO_MPI(MPI_Comm_size(comm, &size)));
  int mine[3] = {(int)local, local < 0 ? rank : size, local == GCOO_ERR_NCCL ? -1 : 0};
  int all[3];
  GCOO_CALL(GCOO_MPI(MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, comm)));
  if (nccl_failed) *nccl_failed = all[2] < 0;
  if (all[0] >= 0) return local;
  /* someone failed: the lowest failing rank tells the others what happened */
  const int root = all[1];
  char msg[MSG_LEN];
  if (rank == root) snprintf(msg, sizeof msg, "%s", gcoo_last_error());
  GCOO_CALL(GCOO_MPI(MPI_Bcast(msg, MSG_LEN, MPI_CHAR, root, comm)));
  msg[MSG_LEN - 1] = '\0';
  if (local < 0) return local; /* a failing rank keeps its own status and message */
  char text[MSG_LEN + 32];
  snprintf(text, sizeof text, "rank %d: %s", root, msg);
  gcoo__set_error_text(text);
  return GCOO_ERR_REMOTE;
}

gcoo_status gcoo__dist_agree(gcoo_dist d, gcoo_status local) {
  int nccl_failed = 0;
  gcoo_status st = gcoo__agree_comm(d->comm, local, &nccl_failed);
#if GCOO_HAVE_NCCL
  if (nccl_failed && d->nccl) {
    /* queued operations may never complete: abort, never destroy (which could block) */
    GCOO_LOG(GCOO_LOG_WARN, "NCCL", "aborting the NCCL communicator after a failed operation");
    (void)ncclCommAbort(d->nccl);
    d->nccl = NULL;
    d->nccl_broken = 1;
  }
#else
  (void)nccl_failed;
#endif
  return st;
}

gcoo_status gcoo_dist_agree(gcoo_dist d, gcoo_status local) {
  GCOO_VALID_OBJECT(d, GCOO_MAGIC_DIST, "distributed context");
  return gcoo__dist_agree(d, local);
}
