/* SPDX-License-Identifier: MIT */
/* gcoo/ctx.h: a context binds gcoo to one backend (the CPU, or one GPU) for the calling process.
 * Distributed work uses gcoo/dist.h, which makes one context per rank. */
#ifndef GCOO_CTX_H
#define GCOO_CTX_H

#include "gcoo/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A context (opaque): one backend (CPU, or CUDA on one GPU) and its stream and handles. */
typedef struct gcoo_ctx_s *gcoo_ctx;

/** Make a context. resource:
 *   "cpu"      the CPU backend (OpenMP), always available;
 *   "cuda"     the CUDA backend on the current device; "cuda:N" on device N;
 *   "auto"     CUDA when a GPU is usable, the CPU otherwise;
 *   NULL       the environment variable GCOO_BACKEND, or "auto" when unset.
 *  Asking for CUDA where none is compiled or no GPU is present fails with GCOO_ERR_UNSUPPORTED
 *  or GCOO_ERR_NO_DEVICE, never silently falls back. Not collective. */
gcoo_status gcoo_ctx_create(gcoo_ctx *ctx, const char *resource);

/** Free a context; *ctx becomes NULL. Objects made with it must be destroyed first. */
gcoo_status gcoo_ctx_destroy(gcoo_ctx *ctx);

/** "cpu" or "cuda". */
const char *gcoo_ctx_backend(gcoo_ctx ctx);

/** CUDA device ordinal of the context, -1 for the CPU backend. */
int gcoo_ctx_device(gcoo_ctx ctx);

/** Device name and memory, for reports ("NVIDIA H200, 132 SMs, 139.8 GiB" or the CPU's threads). */
gcoo_status gcoo_ctx_describe(gcoo_ctx ctx, char *buf, size_t len);

/** Use the caller's CUDA stream (a cudaStream_t) for all work of this context; NULL: the
 *  context's own stream. Ignored on the CPU backend. */
gcoo_status gcoo_ctx_set_stream(gcoo_ctx ctx, void *cuda_stream);

/** The CUDA stream work is queued on (NULL on the CPU backend). */
void *gcoo_ctx_stream(gcoo_ctx ctx);

/** Wait for all queued work of this context. */
gcoo_status gcoo_ctx_synchronize(gcoo_ctx ctx);

/** Number of usable CUDA devices in this process (0 when none or not compiled). */
int gcoo_cuda_device_count(void);

/** Start the CUDA stack's one-time start-up for a GPU (the driver, the device's primary context,
 *  cuSPARSE's first handle: about half a second; cuBLAS is loaded at its first use instead) on a
 *  background thread and return at once, so that it overlaps the caller's own start-up: call it
 *  right after MPI_Init, before reading the input (gcoo_dist_create_unbound lets the read come
 *  before the device's binding). Not before MPI_Init: MPI_Init sets environment variables while
 *  the driver reads them on the thread, and glibc's setenv beside a getenv is undefined
 *  behaviour (one such start died of SIGSEGV on an H200 node). device < 0: the node-local rank the launcher announces
 *  (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID, ...; 0 without one) modulo the
 *  visible GPUs, which is the GPU gcoo_dist_create picks. The first gcoo_ctx_create on the CUDA
 *  backend waits for the thread. Once per process; nothing without CUDA. A hint: a failure is
 *  left for gcoo_ctx_create to report. */
void gcoo_cuda_prestart(int device);

#ifdef __cplusplus
}
#endif
#endif
