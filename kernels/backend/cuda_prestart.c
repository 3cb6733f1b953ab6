/* SPDX-License-Identifier: MIT */
/* kernels/backend/cuda_prestart.c: the CUDA stack's one-time start-up on a background thread
 * (gcoo_cuda_prestart), so that it overlaps the caller's own start-up instead of following it.
 *
 * A command's first CUDA call pays for loading the driver, creating the device's primary context
 * and the first cuSPARSE handle: about half a second on an H200, more with a cold page cache.
 * cuBLAS is not touched here: it is loaded at its first use (kernels/backend/cublas_lazy.h), so that a
 * job without BLAS calls never reads it. Nothing of it depends on MPI or on the input, so a thread
 * started right after MPI_Init (not beside it: MPI_Init's setenv calls against the driver's
 * getenv, gcoo/ctx.h) does it while the input is read; the first gcoo_ctx_create on the CUDA
 * backend waits for that thread (gcoo__cuda_prestart_wait), then finds everything initialised.
 * The thread's handles are destroyed again: what is kept is the process-wide state (driver,
 * primary context, the libraries' loaded modules), which later handles share. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "backend_cuda_impl.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t thread;
static int started, joined;

/* The node-local rank the launcher announces, as gcoo_dist_create will find it with MPI. */
static int local_rank_from_env(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                      "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                                      "PMI_LOCAL_RANK"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *v = getenv(names[i]);
    if (v && *v) return atoi(v) > 0 ? atoi(v) : 0;
  }
  return 0;
}

static void *prestart_main(void *arg) {
  int device = (int)(intptr_t)arg, n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) goto done;
  if (device < 0) device = local_rank_from_env() % n;
  if (device >= n || cudaSetDevice(device) != cudaSuccess || cudaFree(0) != cudaSuccess) goto done;
  cusparseHandle_t sp = NULL;
  if (cusparseCreate(&sp) == CUSPARSE_STATUS_SUCCESS) cusparseDestroy(sp);
done:
  (void)cudaGetLastError(); /* a failure here is found again, and reported, by gcoo_ctx_create */
  return NULL;
}

void gcoo__cuda_prestart(int device) {
  pthread_mutex_lock(&lock);
  if (!started && pthread_create(&thread, NULL, prestart_main, (void *)(intptr_t)device) == 0)
    started = 1;
  pthread_mutex_unlock(&lock);
}

void gcoo__cuda_prestart_wait(void) {
  pthread_mutex_lock(&lock);
  if (started && !joined) {
    pthread_join(thread, NULL);
    joined = 1;
  }
  pthread_mutex_unlock(&lock);
}
