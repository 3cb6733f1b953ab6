/* SPDX-License-Identifier: MIT */
/* bench/startup_null.c: the null MPI + CUDA command, for issue 19's floor: what any program that
 * runs on MPI and a GPU pays before and after its own work, measured instead of assumed. It is
 * linked like gcoo_dist (libgcoo and through it MPI, HDF5, the CUDA runtime, cuSPARSE, NCCL: the
 * same shared objects are mapped at exec), sets gcoo_dist's environment defaults before MPI_Init
 * (cli/startup_env.c, compiled in), makes the CUDA context and a cuSPARSE handle after MPI_Init
 * (as gcoo_dist does: MPI_Init's setenv calls must not race the driver's getenv,
 * cli/startup.c), optionally reads a file whole from main() on (the disk's part of any job that
 * reads it), then MPI_Finalize and the same quick exit as gcoo_dist. It does nothing else.
 * bench/datapath.sh runs it cold beside the real job.
 *
 *   startup_null [--overlap] [--plain] [--no-cusparse] [--read FILE]
 *     --overlap      the context on a thread started before MPI_Init, beside it (racy: MPI_Init's
 *                    setenv calls against the driver's getenv; for the measurement only)
 *     --plain        without gcoo_dist's environment defaults (singleton, hwloc plugins)
 *     --no-cusparse  the context only, no cuSPARSE handle
 *     --read FILE    also read FILE whole (16 MiB read()s into one buffer) on a thread from main()
 * Prints one JSON line (rank 0): seconds since main() at which each part was done, and the wall
 * clock at the report (report_epoch_us), from which the caller finds the tear-down. */
#define _GNU_SOURCE /* CLOCK_MONOTONIC, posix_fadvise */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gcoo/gcoo.h"
#include "startup_env.h"

static double t_main;
static double since_main(void) { return cli_clock_s(CLOCK_MONOTONIC) - t_main; }

typedef struct {
  int device, cusparse, ok;
  double done;
} cuda_job;

/* the device as gcoo_dist picks it: the launcher's node-local rank modulo the visible GPUs */
static int local_rank_from_env(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                      "SLURM_LOCALID"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (getenv(names[i]) && *getenv(names[i])) return atoi(getenv(names[i]));
  return 0;
}

static void *cuda_start(void *arg) {
  cuda_job *c = arg;
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) {
    c->device = local_rank_from_env() % n;
    c->ok = cudaSetDevice(c->device) == cudaSuccess && cudaFree(0) == cudaSuccess;
    if (c->ok && c->cusparse) {
      cusparseHandle_t h = NULL;
      c->ok = cusparseCreate(&h) == CUSPARSE_STATUS_SUCCESS;
      if (h) cusparseDestroy(h);
    }
  }
  c->done = since_main();
  return NULL;
}

typedef struct {
  const char *path;
  long long bytes;
  double done;
} read_job;

static void *read_whole(void *arg) {
  read_job *r = arg;
  enum { CHUNK = 16 << 20 };
  char *buf = malloc(CHUNK);
  int fd = buf ? open(r->path, O_RDONLY) : -1;
  r->bytes = -1;
  if (fd >= 0) {
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    r->bytes = 0;
    for (ssize_t got; (got = read(fd, buf, CHUNK)) > 0;) r->bytes += got;
    close(fd);
  }
  free(buf);
  r->done = since_main();
  return NULL;
}

int main(int argc, char **argv) {
  t_main = cli_clock_s(CLOCK_MONOTONIC);
  const double exec_to_main = cli_since_exec();
  int serial = 1, plain = 0, provided = 0;
  cuda_job c = {-1, 1, 0, 0.0};
  read_job r = {NULL, 0, 0.0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--overlap"))
      serial = 0;
    else if (!strcmp(argv[i], "--plain"))
      plain = 1;
    else if (!strcmp(argv[i], "--no-cusparse"))
      c.cusparse = 0;
    else if (!strcmp(argv[i], "--read") && i + 1 < argc)
      r.path = argv[++i];
    else {
      fprintf(stderr, "usage: startup_null [--overlap] [--plain] [--no-cusparse] [--read FILE]\n");
      return 2;
    }
  }
  if (!plain) cli_mpi_env_defaults();
  pthread_t tc, tr;
  if (r.path && pthread_create(&tr, NULL, read_whole, &r) != 0) return 1;
  if (!serial && pthread_create(&tc, NULL, cuda_start, &c) != 0) return 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const double mpi = since_main();
  if (serial)
    cuda_start(&c);
  else
    pthread_join(tc, NULL);
  /* the context is the process's: this thread uses the device the thread set up */
  if (c.ok) c.ok = cudaSetDevice(c.device) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
  const double ready = since_main();
  if (r.path) pthread_join(tr, NULL);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("{\"program\": \"startup_null\", \"gcoo\": \"%s\", \"serial\": %d, \"plain\": %d, "
           "\"cusparse\": %d, \"device\": %d, \"cuda_ok\": %d, \"exec_to_main\": %.6f, "
           "\"mpi_init\": %.6f, \"cuda_done\": %.6f, \"cuda_ready\": %.6f, \"read_bytes\": %lld, "
           "\"read_done\": %.6f, \"main_s\": %.6f, \"report_epoch_us\": %lld}\n",
           gcoo_version_string(), serial, plain, c.cusparse, c.device, c.ok, exec_to_main, mpi,
           c.done, ready, r.bytes, r.path ? r.done : 0.0, since_main(),
           (long long)(cli_clock_s(CLOCK_REALTIME) * 1e6));
  fflush(stdout);
  MPI_Finalize();
  /* gcoo_dist's exit where a GPU was used (cli_startup_end): no CUDA runtime teardown at exit */
  if (c.ok) _exit(0);
  return c.ok ? 0 : 1;
}
