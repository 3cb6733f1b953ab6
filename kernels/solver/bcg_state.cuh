// SPDX-License-Identifier: MIT
// kernels/solver/bcg_state.cuh: block CG's device state and the arrays its k x k steps work on,
// as the kernels (bcg_kernels.cuh) and the host side that holds them (bcg_device.h) both see them.
#ifndef GCOO_BCG_STATE_CUH
#define GCOO_BCG_STATE_CUH

#include <stdint.h>

namespace gcoo_bcg {

struct bcg_state {
  int64_t it;
  int done, converged, breakdown, rank, min_rank;
  int pform; // bcg_orth: the search block is made explicit, P = W T (bcg_transform), T = I after
  double bad_pivot;
  int64_t explicit_blocks; // the W form's iterations with pform set
};

struct bcg_arrays {
  int64_t k;
  double rtol, rank_tol;
  // The W form (kernels/solver/bcg_cuda.cu: GCOO_BCG_WFORM): the search block P = W T is not formed;
  // the passes run on W, and bcg_alpha and bcg_check take T into their k x k products (P^T Q =
  // T^T (W^T Q') T with Q' = A W, P^T R = T^T W^T R, Q^T Z = T^T Q'^T Z; the coefficients T alpha,
  // T beta for W). Their rounding errors grow with the conditioning of W's scaled columns, so
  // bcg_orth asks for the explicit P where a pivot of the Cholesky of W^T W falls below
  // wform_ratio times its column's squared norm (1 / wform_ratio bounds that growth, roughly).
  int wform;
  double wform_ratio;
  bcg_state *st;
  double *b2, *rel, *L, *S, *Lp, *Rinv, *Y, *hist;
  int64_t *col_its;
  int *piv;
};

} // namespace gcoo_bcg

#endif
