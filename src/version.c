/* SPDX-License-Identifier: MIT */
/* src/version.c: the version string, with what this build contains. */
#include <stdio.h>

#include "backend_impl.h"

const char *gcoo_version_string(void) {
  static const char text[] = "gcoo " GCOO_VERSION_STRING " ("
#if GCOO_HAVE_CUDA
                             "CUDA"
#else
                             "no CUDA"
#endif
#if GCOO_HAVE_NCCL
                             ", NCCL"
#endif
#if GCOO_HAVE_MPI
                             ", MPI"
#endif
#if GCOO_HAVE_HDF5
                             ", HDF5"
#endif
#if GCOO_HAVE_MUMPS
                             ", MUMPS"
#endif
#if GCOO_HAVE_OPENMP
                             ", OpenMP"
#endif
                             ")";
  return text;
}
