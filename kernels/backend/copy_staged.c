/* SPDX-License-Identifier: MIT */
/* kernels/backend/copy_staged.c: large copies between pageable host memory and the GPU at the link's
 * rate, not at one CPU thread's.
 *
 * A cudaMemcpy from or to pageable memory goes through the driver's own pinned staging buffer,
 * which one CPU thread fills (or empties) while the DMA engine moves the previous piece: 4.8 GB/s
 * for the 525 MB dense operand on an H200 machine, the
 * matrix's 906 MB took most of the set-up's 0.2 s, where the link moves pinned memory at tens of
 * GB/s. Here the host side is copied into (or out of) pinned chunks of CHUNK bytes by the OpenMP
 * threads, NBUF chunks in turn: while the DMA engine moves one, the threads fill the next (H2D)
 * or empty the last (D2H); a chunk is reused once the event recorded after its DMA has passed.
 * The pinned chunks are allocated per copy (a few ms for NBUF x CHUNK, against ~0.1 s saved per
 * 500 MB) and freed before it returns, so nothing outlives the call; where they cannot be
 * allocated (a pinned-memory limit), the copy goes through cudaMemcpy2DAsync. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "copy_staged.h"
#include "params.h"

enum { CHUNK = 8 << 20, NBUF = 3, PIECE = 1 << 20 };

/* 1 when p is ordinary (pageable) host memory, the kind the driver stages itself. */
static int pageable(const void *p) {
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0; /* unknown: leave it to cudaMemcpy2DAsync */
  }
  return a.type == cudaMemoryTypeUnregistered;
}

static int on_device(const void *p) {
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return a.type == cudaMemoryTypeDevice;
}

/* Rows [0, n) of rowbytes between a packed chunk and pitched host rows, by the OpenMP threads:
 * pieces of PIECE bytes of a contiguous block, or whole rows. */
static void host_rows(char *packed, char *host, size_t pitch, size_t rowbytes, int64_t n,
                      int to_packed) {
  if (pitch == rowbytes || n == 1) {
    const size_t bytes = rowbytes * (size_t)n;
    const int64_t np = (int64_t)((bytes + PIECE - 1) / PIECE);
#pragma omp parallel for schedule(static) if (np > 1)
    for (int64_t q = 0; q < np; q++) {
      const size_t o = (size_t)q * PIECE, len = bytes - o < PIECE ? bytes - o : PIECE;
      if (to_packed)
        memcpy(packed + o, host + o, len);
      else
        memcpy(host + o, packed + o, len);
    }
    return;
  }
#pragma omp parallel for schedule(static) if (rowbytes * (size_t)n > PIECE)
  for (int64_t r = 0; r < n; r++) {
    if (to_packed)
      memcpy(packed + (size_t)r * rowbytes, host + (size_t)r * pitch, rowbytes);
    else
      memcpy(host + (size_t)r * pitch, packed + (size_t)r * rowbytes, rowbytes);
  }
}

/* The staged copy; h2d: host src to device dst, else device src to host dst. */
static gcoo_status staged(char *dst, size_t dpitch, const char *src, size_t spitch, size_t rowbytes,
                          int64_t nrows, int h2d, cudaStream_t s, int *done_it) {
  gcoo_status st = GCOO_SUCCESS;
  char *buf[NBUF] = {NULL};
  cudaEvent_t ev[NBUF] = {NULL};
  int used[NBUF] = {0};
  /* a contiguous copy is cut anywhere; a pitched one in whole rows (rows of more than a chunk
   * are left to the driver) */
  const int linear = nrows == 1 || (spitch == rowbytes && dpitch == rowbytes);
  const size_t total = linear ? rowbytes * (size_t)nrows : (size_t)nrows;
  const size_t per = linear ? CHUNK : CHUNK / rowbytes;
  *done_it = 0;
  if (per == 0) return GCOO_SUCCESS;
  for (int b = 0; b < NBUF; b++)
    if (cudaHostAlloc((void **)&buf[b], CHUNK, cudaHostAllocDefault) != cudaSuccess ||
        cudaEventCreateWithFlags(&ev[b], cudaEventDisableTiming) != cudaSuccess) {
      (void)cudaGetLastError();
      goto done; /* not done_it: the caller copies the plain way */
    }
  *done_it = 1;
  const size_t nchunks = (total + per - 1) / per;
  /* chunk c covers units [c * per, ...): bytes at offset c * per (linear), or rows */
#define CHUNK_N(c) ((c)*per + per <= total ? per : total - (c)*per)
  if (h2d) {
    for (size_t c = 0; c < nchunks; c++) {
      const int b = (int)(c % NBUF);
      const size_t n = CHUNK_N(c);
      if (used[b]) GCOO_CALL_CUDA_GOTO(cudaEventSynchronize(ev[b])); /* its last DMA is done */
      if (linear)
        host_rows(buf[b], (char *)src + c * per, n, n, 1, 1);
      else
        host_rows(buf[b], (char *)src + c * per * spitch, spitch, rowbytes, (int64_t)n, 1);
      if (linear)
        GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(dst + c * per, buf[b], n, cudaMemcpyHostToDevice, s));
      else
        GCOO_CALL_CUDA_GOTO(cudaMemcpy2DAsync(dst + c * per * dpitch, dpitch, buf[b], rowbytes,
                                              rowbytes, n, cudaMemcpyHostToDevice, s));
      GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[b], s));
      used[b] = 1;
    }
  } else {
    /* the DMA engine runs up to NBUF - 1 chunks ahead of the threads that empty them */
    size_t issued = 0;
    for (size_t c = 0; c < nchunks; c++) {
      for (; issued < nchunks && issued < c + NBUF; issued++) {
        const int b = (int)(issued % NBUF);
        const size_t n = CHUNK_N(issued);
        if (linear)
          GCOO_CALL_CUDA_GOTO(
              cudaMemcpyAsync(buf[b], src + issued * per, n, cudaMemcpyDeviceToHost, s));
        else
          GCOO_CALL_CUDA_GOTO(cudaMemcpy2DAsync(buf[b], rowbytes, src + issued * per * spitch,
                                                spitch, rowbytes, n, cudaMemcpyDeviceToHost, s));
        GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[b], s));
      }
      const int b = (int)(c % NBUF);
      const size_t n = CHUNK_N(c);
      GCOO_CALL_CUDA_GOTO(cudaEventSynchronize(ev[b]));
      if (linear)
        host_rows(buf[b], dst + c * per, n, n, 1, 0);
      else
        host_rows(buf[b], dst + c * per * dpitch, dpitch, rowbytes, (int64_t)n, 0);
    }
  }
#undef CHUNK_N
done:
  /* the chunks are freed only once no DMA uses them */
  if (cudaStreamSynchronize(s) != cudaSuccess && st >= 0)
    st = gcoo__cuda_status(cudaGetLastError(), "cudaStreamSynchronize after a staged copy",
                           __FILE__, __LINE__, __func__);
  for (int b = 0; b < NBUF; b++) {
    if (ev[b]) (void)cudaEventDestroy(ev[b]);
    if (buf[b]) (void)cudaFreeHost(buf[b]);
  }
  (void)cudaGetLastError();
  return st;
}

size_t gcoo__staged_min_bytes(void) {
  const int64_t mb = gcoo__param_int(GCOO__P_STAGED_COPY_MIN_MB);
  if (mb < 0) return (size_t)256 << 20; /* not a count of MiB: the default */
  return mb == 0 ? SIZE_MAX : (size_t)mb << 20;
}

gcoo_status gcoo__cuda_copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t rowbytes, int64_t nrows, cudaStream_t s) {
  if (nrows <= 0 || rowbytes == 0) return GCOO_SUCCESS;
  if (nrows == 1) dpitch = spitch = rowbytes; /* one row: any pitch will do */
  if (rowbytes * (size_t)nrows >= gcoo__staged_min_bytes()) {
    int h2d = -1, done_it = 0;
    if (pageable(src) && on_device(dst))
      h2d = 1;
    else if (on_device(src) && pageable(dst))
      h2d = 0;
    if (h2d >= 0) {
      GCOO_CALL(staged(dst, dpitch, src, spitch, rowbytes, nrows, h2d, s, &done_it));
      if (done_it) return GCOO_SUCCESS;
    }
  }
  GCOO_CALL_CUDA(
      cudaMemcpy2DAsync(dst, dpitch, src, spitch, rowbytes, (size_t)nrows, cudaMemcpyDefault, s));
  return GCOO_SUCCESS;
}
