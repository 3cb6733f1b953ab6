/* SPDX-License-Identifier: MIT */
/* src/blas_lib.h: the system BLAS (OpenBLAS on Debian) for the host's dense block operations:
 * the Fortran interface every BLAS has, and OpenBLAS's thread count. gcoo's own OpenMP threads
 * each call the BLAS on their rows, so the BLAS must not start threads of its own: with
 * OpenBLAS, gcoo__blas_serial() sets it to one thread; another BLAS is called from one thread. */
#ifndef GCOO_BLAS_LIB_H
#define GCOO_BLAS_LIB_H

#include "gcoo/config.h"

#if GCOO_HAVE_LAPACK
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);

/** 1 when the BLAS runs single-threaded for every call (OpenBLAS told so), so that gcoo's threads
 *  may call it side by side; 0 when it should be called from one thread only. */
int gcoo__blas_serial(void);
#endif

#endif
