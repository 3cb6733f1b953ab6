// SPDX-License-Identifier: MIT
// kernels/solver/bcg_kernels.cuh: the device side of block CG's small steps (solver/ksp_bcg.c's device path,
// launched by kernels/solver/bcg_cuda.cu): the k x k algebra in one thread block each (Cholesky of
// P^T Q and the solves for alpha and beta, the pivoted Cholesky of W^T W that gives T, the
// convergence test) and the one-pass Jacobi step with the residual norms. The same arithmetic as
// src/smallmat.c, in the same order where it matters (pivot choice, stopping rule), with the
// loops over rows or columns spread over the block's threads.
// Barriers only (no warp shuffles or atomics): tests/solver/t612 runs these kernels on the CPU
// emulator (tests/common/cuda_emu.h) against src/smallmat.c.
#ifndef GCOO_BCG_KERNELS_CUH
#define GCOO_BCG_KERNELS_CUH

#include <math.h>
#include <stdint.h>

#include "common/column_sums.cuh"
#include "common/cuda_compat.h"
#include "bcg_state.cuh"

namespace gcoo_bcg {

// Whether the solve had stopped when this kernel began, the same answer in every thread (thread
// 0 may set st->done later in the kernel: the other warps must not read it after that).
__device__ int entered_done(const bcg_state *st) {
  __shared__ int d;
  if (threadIdx.x == 0) d = st->done;
  __syncthreads();
  return d;
}

// T coefficients k x k (row-major), zero.
template <typename T>
__device__ void zero_coef(int64_t k, T *c) {
  for (int64_t e = threadIdx.x; e < k * k; e += blockDim.x) c[e] = (T)0;
}

// The k x k work arrays of a step live in shared memory for k <= kSmallK (the serial loops of
// the factorisations and solves then wait on shared, not global, memory: ~10x shorter steps),
// in the global arrays of bcg_arrays otherwise. 4 such arrays at most: 32 KB.
constexpr int kSmallK = 32;

// The block's threads on a grid of rows x ncols (ncols >= 1): thread t takes column c = t % nc
// (and c + nc, ...; nc = min(ncols, blockDim.x)) of rows g, g + G, ... with g = t / nc, G =
// blockDim.x / nc. 32-bit and computed once per step: a 64-bit division and remainder per
// element made every step of the k x k kernels several hundred cycles long.
struct thread_grid {
  int c, g, G, nc;
};
__device__ inline thread_grid grid_of(int ncols) {
  thread_grid m;
  const int t = (int)threadIdx.x, bd = (int)blockDim.x;
  m.nc = ncols < bd ? ncols : bd;
  m.G = bd / m.nc;
  m.c = t % m.nc;
  m.g = t / m.nc < m.G ? t / m.nc : 1 << 30; // threads past G * nc take no rows
  return m;
}

// Triangular solves with the leading r x r block of a lower-triangular L (ld k), in place on the
// first ncols columns of y (ld k), by all threads: each step applies the final row i to every
// later row (spread over the block) and divides row i + 1, which is then final, by its diagonal:
// one barrier a row, the arithmetic of a row-by-row substitution. The caller has a barrier
// between writing L and y and the call.
__device__ void lower_solve(int64_t k, const double *L, double *y, int r, int64_t ncols) {
  if (r <= 0 || ncols <= 0) return;
  const int kk = (int)k, nc = (int)ncols;
  const thread_grid m = grid_of(nc);
  for (int c = threadIdx.x; c < nc; c += blockDim.x) y[c] /= L[0]; // L z = y
  __syncthreads();
  for (int i = 0; i + 1 < r; i++) {
    for (int l = i + 1 + m.g; l < r; l += m.G)
      for (int c = m.c; c < nc; c += m.nc) {
        double v = y[l * kk + c] - L[l * kk + i] * y[i * kk + c];
        if (l == i + 1) v /= L[l * kk + l];
        y[l * kk + c] = v;
      }
    __syncthreads();
  }
}

__device__ void upper_solve_lt(int64_t k, const double *L, double *y, int r, int64_t ncols) {
  if (r <= 0 || ncols <= 0) return;
  const int kk = (int)k, nc = (int)ncols;
  const thread_grid m = grid_of(nc);
  for (int c = threadIdx.x; c < nc; c += blockDim.x) // L^T x = y
    y[(r - 1) * kk + c] /= L[(r - 1) * kk + r - 1];
  __syncthreads();
  for (int i = r - 1; i > 0; i--) {
    for (int l = m.g; l < i; l += m.G)
      for (int c = m.c; c < nc; c += m.nc) {
        double v = y[l * kk + c] - L[i * kk + l] * y[i * kk + c];
        if (l == i - 1) v /= L[l * kk + l];
        y[l * kk + c] = v;
      }
    __syncthreads();
  }
}

// The trailing update of a Cholesky step j: A[i][l] -= L[i][j] L[l][j] for j < i, l < n (only
// l <= i when lower: bcg_alpha factors in place, A = L; bcg_orth keeps the whole S beside L).
__device__ void chol_trailing(int k, double *A, const double *L, int j, int n, bool lower) {
  const int m = n - j - 1;
  if (m <= 0) return;
  const thread_grid g = grid_of(m);
  for (int i = j + 1 + g.g; i < n; i += g.G)
    for (int l = j + 1 + g.c; l < n; l += g.nc)
      if (l <= i || !lower) A[i * k + l] -= L[i * k + j] * L[l * k + j];
}

// Solve (L L^T) Y = sign * B for the leading r rows of the k columns of B (ld k, element type T),
// write Y into coef (T, rows >= r zero). L and the scratch y are k x k (ld k). The W form (Tw,
// k x k in double, not NULL): the right-hand side is Tw^T B and coef = Tw Y (all k rows). Every
// thread calls it (the barriers are uniform).
template <typename T>
__device__ void chol_solve_cols(int64_t k, const double *L, double *y, int r, const T *B,
                                double sign, T *coef, const double *Tw) {
  const int kk = (int)k;
  const thread_grid m = grid_of(kk);
  for (int i = m.g; i < r; i += m.G)
    for (int c = m.c; c < kk; c += m.nc) {
      double v = 0.0;
      if (Tw)
        for (int a = 0; a < kk; a++) v += Tw[a * kk + i] * (double)B[a * kk + c];
      else
        v = (double)B[i * kk + c];
      y[i * kk + c] = v;
    }
  __syncthreads();
  lower_solve(k, L, y, r, k);
  upper_solve_lt(k, L, y, r, k);
  if (!Tw) {
    for (int e = threadIdx.x; e < kk * kk; e += blockDim.x)
      coef[e] = e < r * kk ? (T)(sign * y[e]) : (T)0;
    return;
  }
  for (int i = m.g; i < kk; i += m.G)
    for (int c = m.c; c < kk; c += m.nc) {
      double v = 0.0;
      for (int l = 0; l < r; l++) v += Tw[i * kk + l] * y[l * kk + c];
      coef[i * kk + c] = (T)(sign * v);
    }
}

// The W form's T for this step, in double (shared memory where k <= kSmallK, a.Rinv otherwise:
// bcg_orth's scratch, free between its runs), or NULL: the P form (no T given, or bcg_orth made
// P explicit). Every thread; ends with a barrier.
template <typename T>
__device__ const double *stage_wform_T(const bcg_arrays &a, const T *Tm, double *sT) {
  __shared__ int on;
  if (threadIdx.x == 0) on = Tm != nullptr && !a.st->pform;
  __syncthreads();
  if (!on) return nullptr;
  double *Tw = a.k <= kSmallK ? sT : a.Rinv;
  for (int64_t e = threadIdx.x; e < a.k * a.k; e += blockDim.x) Tw[e] = (double)Tm[e];
  __syncthreads();
  return Tw;
}

// red: [0, k^2) P^T Q, [k^2, 2k^2) P^T R (ld k). alpha (k x k) = (P^T Q)^{-1} P^T R on the
// leading rank x rank block; a non-positive pivot is a breakdown (A not SPD).
// The W form (Tm = T, not NULL, and bcg_orth did not make P explicit): red = [W^T Q' | W^T R],
// P^T Q = T^T (W^T Q') T and P^T R = T^T W^T R, and alpha comes out as T alpha (the coefficient
// of W).
template <typename T>
__global__ void bcg_alpha(bcg_arrays a, const T *red, T *alpha, const T *Tm) {
  const int64_t k = a.k;
  bcg_state *st = a.st;
  __shared__ int stop;
  __shared__ double sL[kSmallK * kSmallK], sY[kSmallK * kSmallK], sT[kSmallK * kSmallK];
  if (entered_done(st)) {
    zero_coef(k, alpha);
    return;
  }
  const bool small = k <= kSmallK;
  double *L = small ? sL : a.L, *Y = small ? sY : a.Y;
  const int r = st->rank;
  if (threadIdx.x == 0 && r < st->min_rank) st->min_rank = r;
  const double *Tw = stage_wform_T(a, Tm, sT);
  if (Tw) { // Y = (W^T Q') T (k x r), then L = T^T Y, symmetrised below
    const int kk = (int)k;
    const thread_grid m = grid_of(r);
    for (int i = m.g; i < kk; i += m.G)
      for (int c = m.c; c < r; c += m.nc) {
        double v = 0.0;
        for (int l = 0; l < kk; l++) v += (double)red[i * kk + l] * Tw[l * kk + c];
        Y[i * kk + c] = v;
      }
    __syncthreads();
    for (int i = m.g; i < r; i += m.G)
      for (int c = m.c; c < r; c += m.nc) {
        double v = 0.0;
        for (int l = 0; l < kk; l++) v += Tw[l * kk + i] * Y[l * kk + c];
        L[i * kk + c] = v;
      }
    __syncthreads();
    for (int e = threadIdx.x; e < r * r; e += blockDim.x) { // the pair (i, j), i < j, by one thread
      const int i = e / r, j = e % r;
      if (i < j) {
        const double v = 0.5 * (L[i * k + j] + L[j * k + i]);
        L[i * k + j] = v;
        L[j * k + i] = v;
      }
    }
  } else {
    for (int e = threadIdx.x; e < r * r; e += blockDim.x) {
      const int i = e / r, j = e % r;
      L[i * k + j] = 0.5 * ((double)red[i * k + j] + (double)red[j * k + i]);
    }
  }
  for (int j = 0; j < r; j++) {
    __syncthreads();
    if (threadIdx.x == 0) {
      double d = L[j * k + j];
      stop = !(d > 0.0 && isfinite(d));
      if (stop) {
        st->breakdown = 1;
        st->done = 1;
        st->bad_pivot = d;
      } else {
        L[j * k + j] = sqrt(d);
      }
    }
    __syncthreads();
    if (stop) {
      zero_coef(k, alpha);
      return;
    }
    const double ljj = L[j * k + j];
    for (int i = j + 1 + threadIdx.x; i < r; i += blockDim.x) L[i * k + j] /= ljj;
    __syncthreads();
    chol_trailing((int)k, L, L, j, r, true);
  }
  __syncthreads();
  if (small) // the factor for bcg_check's solve
    for (int e = threadIdx.x; e < r * r; e += blockDim.x) {
      const int i = e / r, j = e % r;
      a.L[i * k + j] = L[i * k + j];
    }
  chol_solve_cols(k, L, Y, r, red + k * k, 1.0, alpha, Tw);
}

// first: record iteration 0 from red[0, k) = ||R_j||^2 (no beta). Otherwise: count the
// iteration, record, test convergence; beta = -(P^T Q)^{-1} Q^T Z from red[k, k + k^2).
// The W form (Tm, as in bcg_alpha): Q^T Z = T^T (Q'^T Z), and beta comes out as T beta.
template <typename T>
__global__ void bcg_check(bcg_arrays a, const T *red, T *beta, int first, const T *Tm) {
  const int64_t k = a.k;
  bcg_state *st = a.st;
  __shared__ int open; // some column not converged: threads store 1, never anything else
  __shared__ double sL[kSmallK * kSmallK], sY[kSmallK * kSmallK], sT[kSmallK * kSmallK];
  if (entered_done(st)) {
    if (!first) zero_coef(k, beta);
    return;
  }
  if (threadIdx.x == 0) open = 0;
  __syncthreads();
  const int64_t it = first ? 0 : st->it + 1;
  for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
    double rr = fmax((double)red[j], 0.0);
    double rel = a.b2[j] > 0.0 ? sqrt(rr / a.b2[j]) : sqrt(rr);
    a.rel[j] = rel;
    if (a.hist) a.hist[it * k + j] = rel;
    if (rel <= a.rtol) {
      if (a.col_its[j] < 0) a.col_its[j] = it;
    } else {
      open = 1;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    st->it = it;
    if (!open) {
      st->done = 1;
      st->converged = 1;
    }
  }
  if (first) return;
  if (!open) {
    zero_coef(k, beta);
    return;
  }
  const int r = st->rank;
  const bool small = k <= kSmallK;
  if (small) { // bcg_alpha's factor into shared memory
    for (int e = threadIdx.x; e < r * r; e += blockDim.x) {
      const int i = e / r, j = e % r;
      sL[i * k + j] = a.L[i * k + j];
    }
    __syncthreads();
  }
  const double *Tw = stage_wform_T(a, Tm, sT);
  chol_solve_cols(k, small ? sL : a.L, small ? sY : a.Y, r, red + k, -1.0, beta, Tw);
}

// red[0, k^2) = W^T W. T (k x k) with W T orthonormal from the pivoted Cholesky; its columns past
// the rank are zero (those directions are dropped). Rank 0: the block vanished, stop. pform: P =
// W T is to be formed (always outside the W form; in it where the smallest kept pivot is below
// wform_ratio times its column's W^T W diagonal).
template <typename T>
__global__ void bcg_orth(bcg_arrays a, const T *red, T *Tout) {
  const int64_t k = a.k;
  bcg_state *st = a.st;
  __shared__ int p_sh, stop;
  __shared__ double dmax;
  __shared__ double sS[kSmallK * kSmallK], sLp[kSmallK * kSmallK], sRinv[kSmallK * kSmallK];
  if (entered_done(st)) {
    zero_coef(k, Tout);
    return;
  }
  const bool small = k <= kSmallK;
  double *S = small ? sS : a.S, *L = small ? sLp : a.Lp, *Rinv = small ? sRinv : a.Rinv;
  for (int64_t e = threadIdx.x; e < k * k; e += blockDim.x) {
    S[e] = (double)red[e];
    L[e] = 0.0;
    Rinv[e] = 0.0;
  }
  for (int64_t i = threadIdx.x; i < k; i += blockDim.x) a.piv[i] = (int)i;
  __syncthreads();
  if (threadIdx.x == 0) {
    dmax = 0.0;
    for (int64_t i = 0; i < k; i++)
      if (S[i * k + i] > dmax) dmax = S[i * k + i];
  }
  int r = 0;
  double ratio = 1.0; // thread 0: the smallest kept pivot over its column's squared norm
  for (int64_t j = 0; j < k; j++) {
    __syncthreads();
    if (threadIdx.x == 0) { // the first largest remaining diagonal (the best kept in a register)
      int64_t p = j;
      double best = S[j * k + j];
      for (int64_t i = j + 1; i < k; i++) {
        const double v = S[i * k + i];
        if (v > best) {
          best = v;
          p = i;
        }
      }
      p_sh = (int)p;
      stop = !(dmax > 0.0) || !(best > a.rank_tol * dmax);
      const int c = a.piv[p]; // the column of W the pivot belongs to
      if (!stop && best < ratio * (double)red[c * k + c]) ratio = best / (double)red[c * k + c];
    }
    __syncthreads();
    if (stop) break;
    const int64_t p = p_sh;
    if (p != j) {
      for (int64_t i = threadIdx.x; i < k; i += blockDim.x) {
        double t = S[j * k + i];
        S[j * k + i] = S[p * k + i];
        S[p * k + i] = t;
      }
      for (int64_t l = threadIdx.x; l < j; l += blockDim.x) {
        double t = L[j * k + l];
        L[j * k + l] = L[p * k + l];
        L[p * k + l] = t;
      }
      __syncthreads();
      for (int64_t i = threadIdx.x; i < k; i += blockDim.x) {
        double t = S[i * k + j];
        S[i * k + j] = S[i * k + p];
        S[i * k + p] = t;
      }
      if (threadIdx.x == 0) {
        int t = a.piv[j];
        a.piv[j] = a.piv[p];
        a.piv[p] = t;
      }
      __syncthreads();
    }
    const double ljj = sqrt(S[j * k + j]);
    for (int64_t i = j + threadIdx.x; i < k; i += blockDim.x)
      L[i * k + j] = i == j ? ljj : S[i * k + j] / ljj;
    __syncthreads();
    chol_trailing((int)k, S, L, (int)j, (int)k, false);
    r = (int)j + 1;
  }
  __syncthreads();
  // R = L^T (r x r upper triangular); Rinv = R^{-1}: L^T X = I (Rinv was zeroed above)
  for (int64_t i = threadIdx.x; i < r; i += blockDim.x) Rinv[i * k + i] = 1.0;
  __syncthreads();
  upper_solve_lt(k, L, Rinv, r, r);
  zero_coef(k, Tout);
  __syncthreads();
  for (int e = threadIdx.x; e < r * r; e += blockDim.x) {
    const int x = e / r, y = e % r;
    Tout[(int64_t)a.piv[x] * k + y] = (T)Rinv[x * k + y];
  }
  if (threadIdx.x == 0) {
    st->rank = r;
    if (r == 0) st->done = 1; // W vanished: nothing left to search (not converged)
    st->pform = !a.wform || !(ratio >= a.wform_ratio);
    if (a.wform && st->pform && r > 0) st->explicit_blocks++;
  }
}

// The W form's explicit search block: W = W T in place (rows in tiles of kTransformValues / k
// values in shared memory), where bcg_orth set pform; nothing otherwise (or once stopped). The
// kernels after it then take T = I (bcg_alpha, bcg_check: the P form for one iteration).
constexpr int kTransformValues = 4096;
template <typename T>
__global__ void bcg_transform(bcg_arrays a, int64_t n, T *W, int64_t ldw, const T *Tm) {
  __shared__ int go;
  __shared__ double tile[kTransformValues];
  if (threadIdx.x == 0) go = a.wform && a.st->pform && !a.st->done;
  __syncthreads();
  if (!go) return;
  const int k = (int)a.k, rows = kTransformValues / k;
  for (int64_t r0 = (int64_t)blockIdx.x * rows; r0 < n; r0 += (int64_t)gridDim.x * rows) {
    const int nt = n - r0 < rows ? (int)(n - r0) : rows;
    for (int e = threadIdx.x; e < nt * k; e += blockDim.x)
      tile[e] = (double)W[(r0 + e / k) * ldw + e % k];
    __syncthreads();
    for (int e = threadIdx.x; e < nt * k; e += blockDim.x) {
      const int i = e / k, c = e % k;
      double v = 0.0;
      for (int l = 0; l < k; l++) v += tile[i * k + l] * (double)Tm[l * k + c];
      W[(r0 + i) * ldw + c] = (T)v;
    }
    __syncthreads();
  }
}

template <typename T>
__global__ void bcg_store_b2(bcg_arrays a, const T *red) {
  for (int64_t j = threadIdx.x; j < a.k; j += blockDim.x) a.b2[j] = (double)red[j];
}

// W = D^-1 R (or R) and R_ij^2, the summand of column_partials (kernels/common/column_sums.cuh): the
// Jacobi step and the residual norms in one pass over R.
template <typename T>
struct precond_norms_op {
  const T *R;
  int64_t ldr;
  const T *dinv;
  T *W;
  int64_t ldw;
  __device__ double operator()(int64_t i, int64_t j) const {
    const T v = R[i * ldr + j];
    W[i * ldw + j] = dinv ? dinv[i] * v : v;
    return (double)v * (double)v;
  }
};

} // namespace gcoo_bcg

#endif
