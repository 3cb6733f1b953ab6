/* SPDX-License-Identifier: MIT */
/* cli/startup.c: the process's fixed start-up, hidden where it can be and measured where it
 * cannot. A command's wall time is not only its phases: before main() the loader maps MPI, HDF5
 * and the CUDA libraries (read from the disk when the page cache is cold); MPI_Init starts the
 * MPI runtime; the first CUDA call loads the driver and creates the GPU's context. The input's
 * read-ahead starts on a thread first thing in main(), beside MPI_Init; the CUDA part starts on
 * a thread right after MPI_Init (gcoo_cuda_prestart), beside the read of the input; the marks
 * below let --json report the rest (docs/datapath.md, "Start-up"). */
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "startup_env.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static double t_main, t_mpi, exec_to_main = -1.0;
static int gpu_prestarted, input_prefetched, may_gpu;

/* Whether the command may run on a GPU: spdm, spgemm, solve or the default job, without
 * --backend cpu (or GCOO_BACKEND=cpu when --backend is not given). */
static int may_use_gpu(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "spdm") && strcmp(argv[1], "spgemm") && strcmp(argv[1], "solve"))
    return 0;
  const char *b = NULL;
  (void)gcoo_param_get("GCOO_BACKEND", &b);
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc) b = argv[i + 1];
    if (!strncmp(argv[i], "--backend=", 10)) b = argv[i] + 10;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 0;
  }
  return !(b && !strcmp(b, "cpu"));
}

/* A singleton reads all of its HDF5 input (every dataset of the matrix: nearly the whole file),
 * so it asks for the whole file before MPI_Init (gcoo_file_prefetch: io/prefetch.c, the same
 * mechanism as gcoo_h5_prefetch's); the read then finds what the disk delivered meanwhile.
 * Ranks launched on one host share one page cache: together they read the whole file too, so
 * local rank l of L asks for the l-th of L equal byte ranges of it, also before MPI_Init, and each
 * rank's read later finds its share whichever rank asked for it. Ranks spread over several hosts
 * ask only for their own share, after MPI_Init (gcoo_h5_prefetch in cmd_spdm.c: it needs the
 * file's layout). */

/* An integer from the environment, or -1. */
static int env_int(const char *name) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : -1;
}

/* This process's part of a whole-file prefetch before MPI_Init: 0 of 1 for a singleton, the
 * local rank among the job's ranks when the launcher says they all run on this host (Open MPI,
 * Slurm, MPICH's Hydra); 0 (none) otherwise. */
static int host_part(int *part, int *parts) {
  if (cli_is_singleton()) {
    *part = 0;
    *parts = 1;
    return 1;
  }
  static const char *const vars[][3] = {/* world size, ranks on this host, local rank */
                                        {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
                                         "OMPI_COMM_WORLD_LOCAL_RANK"},
                                        {"SLURM_STEP_NUM_TASKS", "SLURM_STEP_NUM_TASKS",
                                         "SLURM_LOCALID"},
                                        {"PMI_SIZE", "MPI_LOCALNRANKS", "MPI_LOCALRANKID"}};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const int world = env_int(vars[i][0]), local = env_int(vars[i][1]), rank = env_int(vars[i][2]);
    if (world <= 0 || local <= 0 || rank < 0) continue;
    /* Slurm names no per-host count for a step: one node is SLURM_STEP_NUM_NODES=1 */
    if (i == 1 && env_int("SLURM_STEP_NUM_NODES") != 1) return 0;
    if (local != world || rank >= local) return 0;
    *part = rank;
    *parts = local;
    return 1;
  }
  return 0;
}

static void prefetch_input(int argc, char **argv) {
  const char *a = NULL;
  int part = 0, parts = 1;
  for (int i = 2; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--a")) a = argv[i + 1];
  /* a hint: a file it cannot open is reported by the read */
  if (a && gcoo_file_kind_of(a) == GCOO_FILE_H5 && host_part(&part, &parts))
    input_prefetched = gcoo_file_prefetch(a, part, parts) >= 0;
}

bool cli_input_prefetched(void) { return input_prefetched; }

bool cli_fast_startup(void) {
  int64_t on = 1; /* GCOO_FAST_STARTUP (gcoo/params.h) */
  (void)gcoo_param_get_int("GCOO_FAST_STARTUP", &on);
  return on != 0;
}

void cli_startup_begin(int argc, char **argv) {
  t_main = cli_clock_s(CLOCK_MONOTONIC);
  exec_to_main = cli_since_exec();
  if (!cli_fast_startup()) return;
  cli_mpi_env_defaults();
  if (argc >= 2 &&
      (!strcmp(argv[1], "spdm") || !strcmp(argv[1], "spgemm") || !strcmp(argv[1], "solve")))
    prefetch_input(argc, argv);
  /* the GPU's start-up begins after MPI_Init (cli_startup_mpi_done), not beside it */
  may_gpu = may_use_gpu(argc, argv);
}

bool cli_quick_exit(void) { return gpu_prestarted && gcoo_cuda_device_count() > 0; }

int cli_startup_end(int rc) {
  /* Everything is written, closed and flushed (outputs were renamed into place before the
   * report): what the exit handlers would still do is the CUDA runtime destroying its context
   * and modules, which the driver does anyway when the process goes. Skipped where a GPU was
   * used; processes without one (CI, --backend cpu) leave normally, leak checkers included. */
  if (cli_quick_exit()) {
    fflush(NULL);
    _exit(rc);
  }
  return rc;
}

/* A rank whose CPU set is smaller than its OpenMP team runs the team's threads on a few cores.
 * Open MPI binds each rank to one core when it starts two or fewer (to a socket above that), so
 * `OMP_NUM_THREADS=8 mpirun -np 2 gcoo_dist ...` on a 16-core node runs each rank's 8 threads on
 * one core. On an H200 node, 2 ranks started so (8 threads each, sharing the one GPU) read a 906
 * MB file 2.6x and set it up 7.5x slower than one unbound rank (bench/datapath.sh passes
 * --bind-to none for that reason). Rank 0
 * says so, once, on stderr, with the launcher options that fix it. */
static void check_binding(void) {
#if defined(_OPENMP) && defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  const int cores = CPU_COUNT(&set), threads = omp_get_max_threads();
  if (threads <= cores || cli_rank() != 0) return;
  fprintf(stderr,
          "gcoo_dist: warning: rank 0 is bound to %d core%s but runs %d OpenMP threads on %s "
          "(Open MPI binds each rank to one core when it starts 2 or fewer). Start it with "
          "mpirun --bind-to none or --map-by slot:PE=%d, or set OMP_NUM_THREADS=%d\n",
          cores, cores == 1 ? "" : "s", threads, cores == 1 ? "it" : "them", threads, cores);
#endif
}

/* The CUDA start-up's thread begins once MPI_Init has returned. MPI_Init changes the process's
 * environment (Open MPI and PMIx setenv dozens of variables while they start) and the CUDA
 * driver reads it while it starts (getenv): glibc's setenv may move the environment's array
 * while another thread's getenv walks it, which is undefined behaviour and can crash. One warm
 * `gcoo_dist spgemm` on an H200 machine died of SIGSEGV 21 ms after exec with the two
 * overlapped; the prefetch's thread reads no environment. A
 * singleton's MPI_Init takes ~0.1 s beside the input's prefetch (io/prefetch.c), so the context,
 * ready ~0.3 s after it starts, is still made while the input is read. */
void cli_startup_mpi_done(void) {
  t_mpi = cli_clock_s(CLOCK_MONOTONIC) - t_main;
  if (may_gpu && cli_fast_startup()) {
    gcoo_cuda_prestart(-1);
    gpu_prestarted = 1;
  }
  check_binding();
}

void cli_json_startup(cli_json *js) {
  cli_json_object(js, "startup_s");
  cli_json_real(js, "exec_to_main", exec_to_main);
  cli_json_real(js, "mpi_init", t_mpi);
  /* the time of this report on the wall clock: a caller that noted when it started the command
   * and when it ended finds the start-up before main() and the tear-down after the report */
  cli_json_int(js, "report_epoch_us", (long long)(cli_clock_s(CLOCK_REALTIME) * 1e6));
  cli_json_end(js);
}
