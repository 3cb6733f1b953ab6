/* SPDX-License-Identifier: MIT */
/* gcoo/gcoo.h: the whole public API of gcoo. Applications include this one header.
 *
 *   gcoo/types.h   status codes, element types, index conventions
 *   gcoo/status.h  gcoo_last_error(), gcoo_strerror(), version
 *   gcoo/dense.h   dense descriptors of caller buffers
 *   gcoo/sparse.h  COO / CSR / CSC / GCOO objects and conversions
 *   gcoo/ctx.h     backends: CPU (OpenMP) or one GPU (CUDA)
 *   gcoo/spdm.h    sparse x dense products, the two readings, persistent operators
 *   gcoo/blas.h    dense block operations (GEMM, diagonal scaling) for solvers
 *   gcoo/predict.h output size of sparse x sparse products (sampled predictor)
 *   gcoo/spgemm.h  sparse x sparse products C = A B
 *   gcoo/mtx.h     Matrix Market files
 *   gcoo/generate.h random and stencil matrices, any slab of rows of each
 *   gcoo/h5.h      HDF5 files (scipy/h5py/anndata layouts), parallel through MPI-IO
 *   gcoo/params.h  the GCOO_* environment variables gcoo reads (its parameter registry)
 * With MPI (GCOO_HAVE_MPI):
 *   gcoo/dist.h    ranks, GPUs, partitions, distributed operators and products
 *   gcoo/ksp.h     solvers: Krylov methods with a preconditioner on the distributed operator
 *   gcoo/pc.h      preconditioners: Jacobi, algebraic multigrid, a direct solve
 *   gcoo/solver.h  block conjugate gradients (the first solver interface, a call of gcoo/ksp.h)
 */
#ifndef GCOO_GCOO_H
#define GCOO_GCOO_H

#include "gcoo/config.h"
#include "gcoo/types.h"
#include "gcoo/status.h"
#include "gcoo/dense.h"
#include "gcoo/sparse.h"
#include "gcoo/ctx.h"
#include "gcoo/spdm.h"
#include "gcoo/blas.h"
#include "gcoo/predict.h"
#include "gcoo/spgemm.h"
#include "gcoo/files.h"
#include "gcoo/mtx.h"
#include "gcoo/generate.h"
#include "gcoo/params.h"
#if GCOO_HAVE_HDF5
#include "gcoo/h5.h"
#endif
#if GCOO_HAVE_MPI
#include "gcoo/dist.h"
#include "gcoo/pc.h"
#include "gcoo/ksp.h"
#include "gcoo/solver.h"
#endif

#endif
