// SPDX-License-Identifier: MIT
// kernels/solver/bcg_cuda.cu: block CG's device state and its k x k steps (gcoo__bcg_device): the
// Cholesky of P^T Q and the solves for alpha and beta, the pivoted Cholesky of W^T W that gives
// T, in one single-block kernel each (bcg_kernels.cuh); the preconditioner and the residual norms
// in one pass over R; the convergence test on the device, its state read back asynchronously (a
// ring of snapshots); the phase marks. solver/ksp_bcg.c queues the multiply, the cuBLAS GEMMs and
// the reductions around them; the fused passes are in bcg_fused_cuda.cu.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcg_device.h"
#include "bcg_kernels.cuh"

using namespace gcoo_bcg;

extern "C" void gcoo__cuda_bcg_destroy(gcoo__bcg_device *h) {
  if (!h) return;
  for (int s = 0; s < kBcgRing; s++) {
    if (h->snap_ev[s]) cudaEventDestroy(h->snap_ev[s]);
    for (int m = 0; m < kBcgMarks; m++)
      if (h->marks[s][m]) cudaEventDestroy(h->marks[s][m]);
  }
  if (h->snap) cudaFreeHost(h->snap);
  cudaFree(h->dmem);
  cudaFree(h->red);
  cudaFree(h->coef);
  cudaFree(h->partial);
  cudaFree(h->fpartial);
  (void)cudaGetLastError();
  free(h);
}

// Threads of the one-block k x k kernels (kernels/solver/bcg_kernels.cuh: any block size; their time is
// latency: a barrier or more a row or column): GCOO_BCG_KK_THREADS = 32, 64, 128, 256 (the
// default) or 512, for measurements.
static gcoo_status kk_threads_param(int *threads) {
  *threads = 256;
  const char *e = gcoo__param_str(GCOO__P_BCG_KK_THREADS);
  if (!*e) return GCOO_SUCCESS;
  *threads = !strcmp(e, "32")    ? 32
             : !strcmp(e, "64")  ? 64
             : !strcmp(e, "128") ? 128
             : !strcmp(e, "256") ? 256
             : !strcmp(e, "512") ? 512
                                 : 0;
  GCOO_CHECK(*threads > 0, GCOO_ERR_INVALID_ARG,
             "GCOO_BCG_KK_THREADS=\"%s\": want 32, 64, 128, 256 (default) or 512", e);
  return GCOO_SUCCESS;
}

// The W form (bcg_arrays::wform): on by default for double, off for float (its rounding
// errors, grown by W's conditioning, would reach the coefficients' precision);
// GCOO_BCG_WFORM=0|1 decides otherwise, GCOO_BCG_WFORM_RATIO (0 < ratio <= 1, default 1e-6:
// the Gram products' rounding grown at most ~10^6-fold, ~1e-10 relative in double) sets the
// pivot ratio below which an iteration's P is formed explicitly.
static gcoo_status wform_params(gcoo__bcg_device *h) {
  h->a.wform_ratio = 1e-6;
  GCOO_CALL(param_switch(GCOO__P_BCG_WFORM, "GCOO_BCG_WFORM", h->dt == GCOO_FLOAT64, &h->a.wform));
  const char *r = gcoo__param_str(GCOO__P_BCG_WFORM_RATIO);
  if (*r) {
    char *end = nullptr;
    const double v = strtod(r, &end);
    GCOO_CHECK(end != r && !*end && v > 0.0 && v <= 1.0, GCOO_ERR_INVALID_ARG,
               "GCOO_BCG_WFORM_RATIO=\"%s\": want a number in (0, 1] (default 1e-6)", r);
    h->a.wform_ratio = v;
  }
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_create(gcoo_ctx ctx, gcoo_dtype dt, int64_t n, int64_t k,
                                             double rtol, double rank_tol, int64_t maxit,
                                             int history, gcoo__bcg_device **out) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__bcg_device *h = (gcoo__bcg_device *)calloc(1, sizeof *h);
  GCOO_CHECK(h != nullptr, GCOO_ERR_NO_MEMORY, "block CG device state");
  h->ctx = ctx;
  h->dt = dt;
  h->k = k;
  h->maxit = maxit;
  const size_t es = gcoo_dtype_size(dt), kk = (size_t)(k * k);
  const size_t nd = 2 * (size_t)k + 5 * kk + (history ? (size_t)(maxit + 1) * k : 0);
  char *p = nullptr;
  // enough blocks for the loads in flight that a streaming pass needs (1024 rows a block or
  // more; 245 blocks of 4096 rows ran the 10^6 x 32 pass at 1.8 TB/s on an H200)
  int64_t nb = (n + 1023) / 1024;
  h->nblocks = nb < 1 ? 1 : nb > 1024 ? 1024 : nb;
  GCOO_GOTO(gcoo__cuda_alloc(&h->dmem,
                             sizeof(bcg_state) + nd * sizeof(double) +
                                 (size_t)k * (sizeof(int64_t) + sizeof(int)),
                             "block CG state"));
  GCOO_GOTO(gcoo__cuda_alloc(&h->red, es * (2 * kk + k), "block CG reductions"));
  GCOO_GOTO(gcoo__cuda_alloc(&h->coef, es * 3 * kk, "block CG coefficients"));
  GCOO_GOTO(
      gcoo__cuda_alloc(&h->partial, sizeof(double) * h->nblocks * k, "block CG partial sums"));
  GCOO_CALL_CUDA_GOTO(cudaMallocHost((void **)&h->snap, kBcgRing * sizeof(bcg_state)));
  GCOO_GOTO(kk_threads_param(&h->kk_threads));
  GCOO_GOTO(param_switch(GCOO__P_BCG_PHASE_MARKS, "GCOO_BCG_PHASE_MARKS", 1, &h->phase_marks));
  GCOO_GOTO(wform_params(h));
  GCOO_GOTO(gcoo__bcg_fused_setup(h, n));
  {
    int sms = 0;
    GCOO_CALL_CUDA_GOTO(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
    const int64_t rows = kTransformValues / k, tiles = (n + rows - 1) / rows;
    h->tgrid = (int)(tiles < 2 * (int64_t)sms ? (tiles < 1 ? 1 : tiles) : 2 * (int64_t)sms);
  }
  for (int s = 0; s < kBcgRing; s++) {
    GCOO_CALL_CUDA_GOTO(cudaEventCreateWithFlags(&h->snap_ev[s], cudaEventDisableTiming));
    for (int m = 0; m < kBcgMarks; m++) GCOO_CALL_CUDA_GOTO(cudaEventCreate(&h->marks[s][m]));
  }
  p = (char *)h->dmem;
  h->a.k = k;
  h->a.rtol = rtol;
  h->a.rank_tol = rank_tol;
  h->a.st = (bcg_state *)p;
  p += sizeof(bcg_state);
  h->a.b2 = (double *)p;
  h->a.rel = h->a.b2 + k;
  h->a.L = h->a.rel + k;
  h->a.S = h->a.L + kk;
  h->a.Lp = h->a.S + kk;
  h->a.Rinv = h->a.Lp + kk;
  h->a.Y = h->a.Rinv + kk;
  h->a.hist = history ? h->a.Y + kk : nullptr;
  p += nd * sizeof(double);
  h->a.col_its = (int64_t *)p;
  h->a.piv = (int *)(h->a.col_its + k);
  {
    bcg_state s0;
    memset(&s0, 0, sizeof s0);
    s0.rank = (int)k;
    s0.min_rank = (int)k;
    cudaStream_t s = (cudaStream_t)ctx->stream;
    GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(h->a.st, &s0, sizeof s0, cudaMemcpyHostToDevice, s));
    GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(h->a.col_its, 0xff, sizeof(int64_t) * k, s)); /* -1 */
    if (history)
      GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(h->a.hist, 0, sizeof(double) * (maxit + 1) * k, s));
    GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  }
  *out = h;
  return GCOO_SUCCESS;
done:
  gcoo__cuda_bcg_destroy(h);
  return st;
}

extern "C" void *gcoo__cuda_bcg_red(gcoo__bcg_device *h) { return h->red; }
extern "C" void *gcoo__cuda_bcg_coef(gcoo__bcg_device *h, int which) {
  return (char *)h->coef + (size_t)which * h->k * h->k * gcoo_dtype_size(h->dt);
}

template <typename T>
static gcoo_status bcg_step_t(gcoo__bcg_device *h, gcoo__bcg_step step) {
  cudaStream_t s = bcg_stream(h);
  const T *red = (const T *)h->red;
  T *alpha = (T *)gcoo__cuda_bcg_coef(h, 0), *beta = (T *)gcoo__cuda_bcg_coef(h, 1),
    *Tm = (T *)gcoo__cuda_bcg_coef(h, 2);
  const T *Tw = h->a.wform ? Tm : nullptr; // the W form: T in the k x k products
  const int nt = h->kk_threads;
  switch (step) {
    case GCOO__BCG_STORE_B2: bcg_store_b2<T><<<1, nt, 0, s>>>(h->a, red); break;
    case GCOO__BCG_CHECK0: bcg_check<T><<<1, nt, 0, s>>>(h->a, red, beta, 1, Tw); break;
    case GCOO__BCG_ALPHA: bcg_alpha<T><<<1, nt, 0, s>>>(h->a, red, alpha, Tw); break;
    case GCOO__BCG_CHECK: bcg_check<T><<<1, nt, 0, s>>>(h->a, red, beta, 0, Tw); break;
    case GCOO__BCG_ORTH: bcg_orth<T><<<1, nt, 0, s>>>(h->a, red, Tm); break;
  }
  GCOO_CHECK_LAUNCH("block CG k x k step");
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_step(gcoo__bcg_device *h, gcoo__bcg_step step) {
  GCOO_CALL(h->dt == GCOO_FLOAT64 ? bcg_step_t<double>(h, step) : bcg_step_t<float>(h, step));
  return GCOO_SUCCESS;
}

extern "C" int gcoo__cuda_bcg_wform(const gcoo__bcg_device *h) { return h->a.wform; }

template <typename T>
static gcoo_status transform_t(gcoo__bcg_device *h, gcoo_dense *W) {
  bcg_transform<T><<<h->tgrid, 256, 0, bcg_stream(h)>>>(h->a, W->nrows, (T *)W->data, W->ld,
                                                        (const T *)gcoo__cuda_bcg_coef(h, 2));
  GCOO_CHECK_LAUNCH("block CG explicit search block");
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_transform(gcoo__bcg_device *h, gcoo_dense *W) {
  GCOO_CHECK(W->ncols == h->k && W->layout == GCOO_ROW_MAJOR, GCOO_ERR_INTERNAL,
             "explicit search block: W is %lld columns, the solve has %lld", (long long)W->ncols,
             (long long)h->k);
  GCOO_CALL(h->dt == GCOO_FLOAT64 ? transform_t<double>(h, W) : transform_t<float>(h, W));
  return GCOO_SUCCESS;
}

template <typename T>
static gcoo_status precond_norms_t(gcoo__bcg_device *h, const gcoo_dense *dinv, const gcoo_dense *R,
                                   gcoo_dense *W) {
  cudaStream_t s = bcg_stream(h);
  const int64_t n = R->nrows, k = R->ncols;
  const int nb = (int)h->nblocks;
  const precond_norms_op<T> f = {(const T *)R->data, R->ld, dinv ? (const T *)dinv->data : nullptr,
                                 (T *)W->data, W->ld};
  gcoo_colsum::column_partials<<<nb, 256, 256 * sizeof(double), s>>>(n, k, f, h->partial);
  GCOO_CHECK_LAUNCH("preconditioner and residual norms");
  gcoo_colsum::column_totals<T>
      <<<gcoo_colsum::totals_grid(k), 256, 0, s>>>(h->partial, nb, k, (T *)h->red, 1);
  GCOO_CHECK_LAUNCH("residual norms");
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_precond_norms(gcoo__bcg_device *h, const gcoo_dense *dinv,
                                                    const gcoo_dense *R, gcoo_dense *W) {
  GCOO_CHECK(R->nrows <= h->nblocks * 1024 || h->nblocks == 1024, GCOO_ERR_INTERNAL,
             "block CG state made for fewer rows");
  GCOO_CALL(h->dt == GCOO_FLOAT64 ? precond_norms_t<double>(h, dinv, R, W)
                                  : precond_norms_t<float>(h, dinv, R, W));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_mark(gcoo__bcg_device *h, int64_t it, int phase) {
  const int slot = (int)(it % kBcgRing);
  int m = h->nmarks[slot];
  if (phase < 0) m = 0; // start of the iteration
  if (m >= kBcgMarks || (!h->phase_marks && phase >= 0)) return GCOO_SUCCESS;
  GCOO_CALL_CUDA(cudaEventRecord(h->marks[slot][m], bcg_stream(h)));
  h->mark_phase[slot][m] = phase;
  h->nmarks[slot] = m + 1;
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_post(gcoo__bcg_device *h, int64_t it) {
  const int slot = (int)(it % kBcgRing);
  cudaStream_t s = bcg_stream(h);
  GCOO_CALL_CUDA(
      cudaMemcpyAsync(&h->snap[slot], h->a.st, sizeof(bcg_state), cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(cudaEventRecord(h->snap_ev[slot], s));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_wait(gcoo__bcg_device *h, int64_t it, int *done) {
  const int slot = (int)(it % kBcgRing);
  GCOO_CALL_CUDA(cudaEventSynchronize(h->snap_ev[slot]));
  for (int m = 1; m < h->nmarks[slot]; m++) {
    float ms = 0;
    GCOO_CALL_CUDA(cudaEventElapsedTime(&ms, h->marks[slot][m - 1], h->marks[slot][m]));
    int ph = h->mark_phase[slot][m];
    if (ph >= 0 && ph < GCOO__BCG_PHASES) h->phase_s[ph] += 1e-3 * ms;
  }
  h->nmarks[slot] = 0;
  *done = h->snap[slot].done;
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_result(gcoo__bcg_device *h, gcoo__bcg_outcome *o) {
  cudaStream_t s = bcg_stream(h);
  bcg_state fin;
  GCOO_CALL_CUDA(cudaMemcpyAsync(&fin, h->a.st, sizeof fin, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(cudaMemcpyAsync(o->column_iterations, h->a.col_its, sizeof(int64_t) * h->k,
                                 cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(
      cudaMemcpyAsync(o->residual, h->a.rel, sizeof(double) * h->k, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(cudaStreamSynchronize(s));
  for (int slot = 0; slot < kBcgRing; slot++) { // iterations queued after the last wait
    for (int m = 1; m < h->nmarks[slot]; m++) {
      float ms = 0;
      GCOO_CALL_CUDA(cudaEventElapsedTime(&ms, h->marks[slot][m - 1], h->marks[slot][m]));
      int ph = h->mark_phase[slot][m];
      if (ph >= 0 && ph < GCOO__BCG_PHASES) h->phase_s[ph] += 1e-3 * ms;
    }
    h->nmarks[slot] = 0;
  }
  if (o->history && h->a.hist)
    GCOO_CALL_CUDA(cudaMemcpy(o->history, h->a.hist, sizeof(double) * (fin.it + 1) * h->k,
                              cudaMemcpyDeviceToHost));
  o->iterations = fin.it;
  o->converged = fin.converged;
  o->breakdown = fin.breakdown;
  o->bad_pivot = fin.bad_pivot;
  o->min_rank = fin.min_rank;
  o->explicit_blocks = fin.explicit_blocks;
  for (int p = 0; p < GCOO__BCG_PHASES; p++) o->phase_seconds[p] = h->phase_s[p];
  return GCOO_SUCCESS;
}
