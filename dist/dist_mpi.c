/* SPDX-License-Identifier: MIT */
/* dist/dist_mpi.c: element and row datatypes, and transfers whose element counts may pass
 * INT_MAX (MPI-3 counts are int). Calls are checked with GCOO_MPI (src/mpi_check.h). */
#include <limits.h>
#include <stdint.h>

#include "dist_impl.h"

MPI_Datatype gcoo__mpi_dtype(gcoo_dtype t) { return t == GCOO_FLOAT64 ? MPI_DOUBLE : MPI_FLOAT; }

gcoo_status gcoo__mpi_row_type(gcoo_dtype t, int64_t ncols, int64_t ld, MPI_Datatype *type) {
  gcoo_status st = GCOO_SUCCESS;
  MPI_Datatype row = MPI_DATATYPE_NULL;
  *type = MPI_DATATYPE_NULL;
  GCOO_CHECK(ncols >= 0 && ncols <= INT_MAX, GCOO_ERR_TOO_LARGE,
             "rows of %lld elements do not fit an MPI count", (long long)ncols);
  GCOO_CHECK(ld >= ncols && ld >= 1, GCOO_ERR_INVALID_ARG, "leading dimension %lld < %lld",
             (long long)ld, (long long)ncols);
  size_t es = gcoo_dtype_size(t);
  GCOO_CHECK((uint64_t)ld <= (uint64_t)PTRDIFF_MAX / es, GCOO_ERR_TOO_LARGE,
             "row stride %lld overflows an MPI extent", (long long)ld);
  GCOO_GOTO(GCOO_MPI(MPI_Type_contiguous((int)ncols, gcoo__mpi_dtype(t), &row)));
  GCOO_GOTO(GCOO_MPI(MPI_Type_create_resized(row, 0, (MPI_Aint)(ld * (int64_t)es), type)));
  GCOO_GOTO(GCOO_MPI(MPI_Type_commit(type)));
done:
  if (row != MPI_DATATYPE_NULL) MPI_Type_free(&row);
  if (st < 0 && *type != MPI_DATATYPE_NULL) MPI_Type_free(type);
  return st;
}

/* Whole blocks of BLOCK elements travel as one message of a block datatype, the rest as a
 * second message of bytes; both counts fit int for any transfer below 2^50 elements. */
enum { BLOCK = 1 << 20 };

static gcoo_status big_split(int64_t count, size_t elem_bytes, int64_t *nblocks, int *rest_bytes,
                             MPI_Datatype *block) {
  GCOO_CHECK(count >= 0, GCOO_ERR_INVALID_ARG, "negative count %lld", (long long)count);
  GCOO_CHECK(elem_bytes > 0 && elem_bytes <= 64, GCOO_ERR_INVALID_ARG, "element size %zu",
             elem_bytes);
  *nblocks = count / BLOCK;
  *rest_bytes = (int)((count % BLOCK) * (int64_t)elem_bytes);
  GCOO_CHECK(*nblocks <= INT_MAX, GCOO_ERR_TOO_LARGE, "%lld elements are too many for one transfer",
             (long long)count);
  *block = MPI_DATATYPE_NULL;
  if (*nblocks) {
    GCOO_CALL(GCOO_MPI(MPI_Type_contiguous((int)(BLOCK * elem_bytes), MPI_BYTE, block)));
    gcoo_status st = GCOO_MPI(MPI_Type_commit(block));
    if (st < 0) MPI_Type_free(block);
    GCOO_CALL(st);
  }
  return GCOO_SUCCESS;
}

/* gcoo__mpi_isend_big and gcoo__mpi_irecv_big: the whole blocks as one message of the block
 * type, then the rest in bytes (a zero-length rest is still posted, so the receiver's matching
 * receive completes). */
static gcoo_status post_big(int send, void *buf, int64_t count, size_t elem_bytes, int peer,
                            int tag, MPI_Comm comm, MPI_Request req[2]) {
  int64_t nb = 0;
  int rest = 0;
  MPI_Datatype block = MPI_DATATYPE_NULL;
  gcoo_status st = GCOO_SUCCESS;
  req[0] = req[1] = MPI_REQUEST_NULL;
  GCOO_CALL(big_split(count, elem_bytes, &nb, &rest, &block));
  char *tail = (char *)buf + (size_t)nb * BLOCK * elem_bytes;
  if (nb)
    GCOO_GOTO(send ? GCOO_MPI(MPI_Isend(buf, (int)nb, block, peer, tag, comm, &req[0]))
                   : GCOO_MPI(MPI_Irecv(buf, (int)nb, block, peer, tag, comm, &req[0])));
  GCOO_GOTO(send ? GCOO_MPI(MPI_Isend(tail, rest, MPI_BYTE, peer, tag, comm, &req[1]))
                 : GCOO_MPI(MPI_Irecv(tail, rest, MPI_BYTE, peer, tag, comm, &req[1])));
done:
  /* a committed datatype may be freed while messages using it are pending (MPI 3.1 §4.1.9) */
  if (block != MPI_DATATYPE_NULL) MPI_Type_free(&block);
  return st;
}

gcoo_status gcoo__mpi_isend_big(const void *buf, int64_t count, size_t elem_bytes, int dest,
                                int tag, MPI_Comm comm, MPI_Request req[2]) {
  /* MPI_Isend takes a const buffer: the cast only lets one function post both directions */
  GCOO_CALL(post_big(1, (void *)buf, count, elem_bytes, dest, tag, comm, req));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__mpi_irecv_big(void *buf, int64_t count, size_t elem_bytes, int src, int tag,
                                MPI_Comm comm, MPI_Request req[2]) {
  GCOO_CALL(post_big(0, buf, count, elem_bytes, src, tag, comm, req));
  return GCOO_SUCCESS;
}
