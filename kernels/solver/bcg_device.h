// SPDX-License-Identifier: MIT
// kernels/solver/bcg_device.h: block CG's device state (gcoo__bcg_device), shared by the files that
// run its steps (bcg_cuda.cu) and its fused passes (bcg_fused_cuda.cu), and what they both use.
#ifndef GCOO_KERNELS_SOLVER_BCG_DEVICE_H
#define GCOO_KERNELS_SOLVER_BCG_DEVICE_H

#include <stdlib.h>
#include <string.h>

#include "backend/backend_cuda_impl.h"
#include "solver_cuda.h"
#include "bcg_state.cuh"
#include "params.h"

constexpr int kBcgMarks = 16; // phase marks per iteration at most
constexpr int kBcgRing = 4;   // iterations whose marks and snapshots are kept

struct gcoo__bcg_device {
  gcoo_ctx ctx;
  gcoo_dtype dt;
  int64_t k, maxit, nblocks;
  gcoo_bcg::bcg_arrays a;
  void *dmem;       // device arrays of a, one allocation
  void *red, *coef; // reduction buffer (2k^2 + k) and 3 coefficient matrices (k x k), dtype
  double *partial;  // nblocks x k
  int kk_threads;   // threads of the one-block k x k kernels (GCOO_BCG_KK_THREADS)
  int phase_marks;  // events between the phases (GCOO_BCG_PHASE_MARKS=0: none, for measuring them)
  int tgrid;        // blocks of bcg_transform (the W form's explicit P)
  // the fused block-vector passes (k in {8, 16, 32}; kernels/solver/bcg_fused.cuh)
  int fused;        // k is one of them
  int mma;          // the updates of X, R, W on the FP64 tensor cores (double, k = 16, 32)
  int fgrid[3];     // blocks of gram2, update, direction: one wave of resident blocks
  void *fkern[3];   // those kernels (typed in their launchers: fused_fn<T>), chosen at set-up
  size_t fsmem[3];  // their dynamic shared memory
  double *fpartial; // max(fgrid) x 2k^2 per-block partial sums
  gcoo_bcg::bcg_state *snap; // pinned: kBcgRing snapshots
  cudaEvent_t snap_ev[kBcgRing];
  cudaEvent_t marks[kBcgRing][kBcgMarks];
  int mark_phase[kBcgRing][kBcgMarks];
  int nmarks[kBcgRing];
  double phase_s[GCOO__BCG_PHASES];
};

static inline cudaStream_t bcg_stream(const gcoo__bcg_device *h) {
  return (cudaStream_t)h->ctx->stream;
}

// A 0/1 developer switch of the parameter registry (docs/parameters.md): empty keeps the
// default, anything but "0" or "1" is refused (a mistyped switch must not silently measure the
// other variant).
static inline gcoo_status param_switch(gcoo__param p, const char *name, int def, int *out) {
  *out = def;
  const char *e = gcoo__param_str(p);
  if (!*e) return GCOO_SUCCESS;
  GCOO_CHECK(!strcmp(e, "0") || !strcmp(e, "1"), GCOO_ERR_INVALID_ARG,
             "%s=\"%s\": want 0 or 1 (default %d here)", name, e, def);
  *out = e[0] == '1';
  return GCOO_SUCCESS;
}

/** The fused passes' kernels and grids for this solve (bcg_fused_cuda.cu): h->fused says whether
 *  there are any for its width and element type. */
gcoo_status gcoo__bcg_fused_setup(gcoo__bcg_device *h, int64_t n);

#endif
