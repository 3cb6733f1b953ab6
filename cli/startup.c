/* SPDX-License-Identifier: MIT */
/* cli/startup.c: the process's fixed start-up, hidden where it can be and measured where it
 * cannot. A command's wall time is not only its phases: before main() the loader maps MPI, HDF5
 * and the CUDA libraries (read from the disk when the page cache is cold); MPI_Init starts the
 * MPI runtime; the first CUDA call loads the driver and creates the GPU's context. The CUDA part
 * depends on nothing else, so it starts on a thread first thing in main() (gcoo_cuda_prestart),
 * beside MPI_Init and the read of the input; the marks below let --json report the rest
 * (docs/datapath.md, "Start-up"). */
#define _GNU_SOURCE /* CLOCK_BOOTTIME, setenv, sched_getaffinity, dladdr, RTLD_DEFAULT */
#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static double t_main, t_mpi, exec_to_main = -1.0;
static int gpu_prestarted, input_prefetched;

static double clock_s(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds since this process was started (exec), from /proc/self/stat's start time (field 22,
 * clock ticks since boot: 10 ms resolution); -1 where there is no /proc. */
static double since_exec(void) {
  char buf[1024];
  FILE *f = fopen("/proc/self/stat", "r");
  if (!f) return -1.0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *p = strrchr(buf, ')'); /* the command name may hold spaces */
  if (!p) return -1.0;
  unsigned long long start = 0;
  int field = 2;
  for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " "))
    if (++field == 22) {
      start = strtoull(tok, NULL, 10);
      break;
    }
  long hz = sysconf(_SC_CLK_TCK);
  if (field != 22 || hz <= 0) return -1.0;
  double s = clock_s(CLOCK_BOOTTIME) - (double)start / (double)hz;
  return s >= 0 ? s : 0.0;
}

/* Whether the command may run on a GPU: spdm, spgemm, solve or the default job, without
 * --backend cpu (or GCOO_BACKEND=cpu when --backend is not given). */
static int may_use_gpu(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "spdm") && strcmp(argv[1], "spgemm") && strcmp(argv[1], "solve"))
    return 0;
  const char *b = getenv("GCOO_BACKEND");
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc) b = argv[i + 1];
    if (!strncmp(argv[i], "--backend=", 10)) b = argv[i] + 10;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 0;
  }
  return !(b && !strcmp(b, "cpu"));
}

/* A process no launcher started (no mpirun, srun, hydra) is a one-rank job. Open MPI 4.1 starts
 * such a singleton by forking a helper daemon (orted, for MPI_Comm_spawn) and probing its network
 * transports (UCX for point-to-point and one-sided): 0.4-0.5 s of MPI_Init with nobody to talk
 * to (0.04 s without, on the CPU machine). gcoo spawns nothing and one rank sends nothing, so a
 * singleton asks for the isolated start and the in-process transports; variables the user set
 * win, and other MPI libraries ignore these names. */
static int is_singleton(void) {
  static const char *const launched[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                         "PMI_SIZE", "PMI_FD"};
  for (size_t i = 0; i < sizeof launched / sizeof launched[0]; i++)
    if (getenv(launched[i])) return 0;
  return 1;
}

/* Open MPI's component directory, found beside libmpi (Debian and Ubuntu: <libdir>/openmpi/lib/
 * openmpi3; a default build: <libdir>/openmpi), recognised by its ob1 component; "" if none. */
static void component_dir(char *dir, size_t len) {
  Dl_info di;
  char lib[4096];
  dir[0] = '\0';
  /* PMPI_Init: a function of libmpi that gcoo_dist does not call, so its address is libmpi's
   * own, not a stub in the executable */
  void *f = dlsym(RTLD_DEFAULT, "PMPI_Init");
  if (!f || !dladdr(f, &di) || !di.dli_fname || !realpath(di.dli_fname, lib)) return;
  char *slash = strrchr(lib, '/');
  if (!slash) return;
  *slash = '\0';
  static const char *const sub[] = {"openmpi/lib/openmpi3", "openmpi3", "openmpi"};
  for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
    char probe[4200];
    if (snprintf(dir, len, "%s/%s", lib, sub[i]) >= (int)len ||
        snprintf(probe, sizeof probe, "%s/mca_pml_ob1.so", dir) >= (int)sizeof probe)
      break;
    if (access(probe, R_OK) == 0) return;
  }
  dir[0] = '\0';
}

/* Name only `names` for a framework when every one of them is installed (an include list that
 * names a missing component fails MPI_Init), unless the user set the framework. */
static void only(const char *dir, const char *framework, const char *names) {
  char var[64], list[128];
  snprintf(var, sizeof var, "OMPI_MCA_%s", framework);
  if (!*dir || getenv(var)) return;
  snprintf(list, sizeof list, "%s", names);
  for (char *save = NULL, *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
    char probe[4200];
    if (snprintf(probe, sizeof probe, "%s/mca_%s_%s.so", dir, framework, c) >= (int)sizeof probe ||
        access(probe, R_OK) != 0)
      return;
  }
  setenv(var, names, 0);
}

/* Open MPI's MPI_Init has hwloc discover the machine, and hwloc loads every plugin it has
 * installed: on the CPU machine the GL plugin (libX11, libXNVCtrl, xcb), the OpenCL one
 * (libOpenCL, which loads and starts each vendor's OpenCL driver to list its devices) and the
 * libxml2 one (libxml2 and ICU's 30 MB of data): 16 shared objects read cold and initialised
 * for a topology gcoo_dist only uses for cores and PCI locality (hwloc's own XML code reads
 * what Open MPI's daemons send). The variable names the plugin files not to load (hwloc 2.1+;
 * names not installed are ignored); one the user set wins. */
static void hwloc_defaults(void) {
  setenv("HWLOC_PLUGINS_BLACKLIST",
         "hwloc_gl,hwloc_opencl,hwloc_xml_libxml,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero",
         0);
}

/* Open MPI opens every component file of a framework to ask it whether it applies, unless the
 * framework's variable names the ones to use: a singleton's MPI_Init opened 43 component files
 * on the CPU machine, each read cold from the disk the input's prefetch fills. One rank needs
 * the basic collectives (libnbc: the nonblocking ones), no one-sided transport (gcoo uses none:
 * pt2pt, the lightest, stands in), the application's error manager and state machine, one
 * shared-memory and one reachability component: 23 component files instead of 43 on the CPU
 * machine (23 loaded on the H200 VM too, bench/results/2026-12-01-h200-data-s4.txt). */
static void singleton_mpi_defaults(void) {
  char dir[4096];
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  setenv("OMPI_MCA_pml", "ob1", 0);
  setenv("OMPI_MCA_btl", "self", 0);
  component_dir(dir, sizeof dir);
  only(dir, "coll", "basic,libnbc,self");
  only(dir, "osc", "pt2pt");
  only(dir, "errmgr", "default_app");
  only(dir, "state", "app");
  only(dir, "shmem", "mmap");
  only(dir, "reachable", "weighted");
  setenv("OMPI_MCA_osc", "^ucx", 0); /* where pt2pt is not installed */
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
  if (is_singleton()) {
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
  const char *e = getenv("GCOO_FAST_STARTUP");
  return !(e && e[0] == '0');
}

void cli_startup_begin(int argc, char **argv) {
  t_main = clock_s(CLOCK_MONOTONIC);
  exec_to_main = since_exec();
  if (!cli_fast_startup()) return;
  hwloc_defaults();
  if (is_singleton()) singleton_mpi_defaults();
  if (argc >= 2 &&
      (!strcmp(argv[1], "spdm") || !strcmp(argv[1], "spgemm") || !strcmp(argv[1], "solve")))
    prefetch_input(argc, argv);
  if (may_use_gpu(argc, argv)) {
    gcoo_cuda_prestart(-1);
    gpu_prestarted = 1;
  }
}

int cli_startup_end(int rc) {
  /* Everything is written, closed and flushed (outputs were renamed into place before the
   * report): what the exit handlers would still do is the CUDA runtime destroying its context
   * and modules, which the driver does anyway when the process goes. Skipped where a GPU was
   * used; processes without one (CI, --backend cpu) leave normally, leak checkers included. */
  if (gpu_prestarted && gcoo_cuda_device_count() > 0) {
    fflush(NULL);
    _exit(rc);
  }
  return rc;
}

/* A rank whose CPU set is smaller than its OpenMP team runs the team's threads on a few cores.
 * Open MPI binds each rank to one core when it starts two or fewer (to a socket above that), so
 * `OMP_NUM_THREADS=8 mpirun -np 2 gcoo_dist ...` on a 16-core node runs each rank's 8 threads on
 * one core. On an H200 node, 2 ranks started so (8 threads each, sharing the one GPU) read a 906
 * MB file 2.6x and set it up 7.5x slower than one unbound rank
 * (bench/results/2026-12-01-h200-data-s3.txt; the benchmark now passes --bind-to none). Rank 0
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

void cli_startup_mpi_done(void) {
  t_mpi = clock_s(CLOCK_MONOTONIC) - t_main;
  check_binding();
}

void cli_json_startup(cli_json *js) {
  cli_json_object(js, "startup_s");
  cli_json_real(js, "exec_to_main", exec_to_main);
  cli_json_real(js, "mpi_init", t_mpi);
  /* the time of this report on the wall clock: a caller that noted when it started the command
   * and when it ended finds the start-up before main() and the tear-down after the report */
  cli_json_int(js, "report_epoch_us", (long long)(clock_s(CLOCK_REALTIME) * 1e6));
  cli_json_end(js);
}
