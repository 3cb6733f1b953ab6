/* SPDX-License-Identifier: MIT */
/* cli/startup_env.c: gcoo_dist's start-up before MPI_Init that depends on nothing of gcoo: the
 * time since exec, whether this process is a singleton, and the environment defaults that make
 * MPI_Init short (hwloc's plugins, a singleton's Open MPI components). bench/startup_null.c
 * compiles this file too, so the benchmark's null program starts as the command does. */
#define _GNU_SOURCE /* CLOCK_BOOTTIME, setenv, dladdr, RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "startup_env.h"

double cli_clock_s(int clock_id) {
  struct timespec t;
  clock_gettime((clockid_t)clock_id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds since this process was started (exec), from /proc/self/stat's start time (field 22,
 * clock ticks since boot: 10 ms resolution); -1 where there is no /proc. */
double cli_since_exec(void) {
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
  double s = cli_clock_s(CLOCK_BOOTTIME) - (double)start / (double)hz;
  return s >= 0 ? s : 0.0;
}

/* A process no launcher started (no mpirun, srun, hydra) is a one-rank job. Open MPI 4.1 starts
 * such a singleton by forking a helper daemon (orted, for MPI_Comm_spawn) and probing its network
 * transports (UCX for point-to-point and one-sided): 0.4-0.5 s of MPI_Init with nobody to talk
 * to (0.04 s without, on the CPU machine). gcoo spawns nothing and one rank sends nothing, so a
 * singleton asks for the isolated start and the in-process transports; variables the user set
 * win, and other MPI libraries ignore these names. */
int cli_is_singleton(void) {
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
 * machine (23 loaded on an H200 machine too). */
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

void cli_mpi_env_defaults(void) {
  hwloc_defaults();
  if (cli_is_singleton()) singleton_mpi_defaults();
}
