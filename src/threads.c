/* SPDX-License-Identifier: MIT */
/* src/threads.c: how many OpenMP threads a rank runs. Left alone, every rank of a node starts one
 * thread per core, so 4 ranks on 2 cores run 8 threads that wait on each other at every barrier
 * (15-190x slower on small problems). A rank bound to some cores (its affinity mask, which
 * omp_get_num_procs reads) uses those; an unbound rank takes its share of the node's cores. An
 * explicit choice wins: OMP_NUM_THREADS, or a count the application set itself. */
#include <stdlib.h>
#include <unistd.h>

#include "backend_impl.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int gcoo__rank_threads(int ranks_on_node) {
#ifdef _OPENMP
  const int avail = omp_get_num_procs(); /* the CPUs of this rank's affinity mask */
  if (getenv("OMP_NUM_THREADS") || omp_get_max_threads() != avail) return omp_get_max_threads();
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = avail;
  if (online > 0 && avail >= online && ranks_on_node > 1) /* not bound: a share of the node */
    threads = (int)(online / ranks_on_node);
  if (threads < 1) threads = 1;
  omp_set_num_threads(threads);
  return threads;
#else
  (void)ranks_on_node;
  return 1;
#endif
}
