// SPDX-License-Identifier: MIT
// kernels/solver/bcg_fused_cuda.cu: block CG's fused block-vector passes (bcg_fused.cuh) for
// k in {8, 16, 32}: the variant of each kernel chosen at set-up, its grid (one wave of resident
// blocks), the launches and the sums of their per-block partials.
#include <stdio.h>
#include <string.h>

#include "bcg_device.h"
#include "bcg_fused.cuh"

using namespace gcoo_bcg;

// ---- the fused passes (kernels/solver/bcg_fused.cuh) ------------------------------------------------

// Blocks of a fused kernel: as many as fit on the device at once with its dynamic shared memory
// (one wave: every block gets the same rows), fewer when there are fewer tiles.
template <typename K>
static gcoo_status wave_blocks(K kernel, size_t smem, int64_t n, int sms, int *grid) {
  int per_sm = 0;
  GCOO_CALL_CUDA(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  GCOO_CALL_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kFusedThreads, smem));
  int64_t g = (int64_t)(per_sm > 0 ? per_sm : 1) * sms;
  const int64_t tiles = (n + kTile - 1) / kTile;
  if (g > tiles) g = tiles;
  *grid = (int)(g < 1 ? 1 : g);
  return GCOO_SUCCESS;
}

// The fused kernels' variants (kernels/solver/bcg_fused.cuh), for benchmarks and tests; the defaults
// are the forms measured fastest (fused_shape<T, K>: per element type and width; the developer
// parameters below, docs/parameters.md, are read at set-up):
//   GCOO_BCG_STAGES="G,U,D"  pipeline stages of gram2 (2 or 3), update (2 or 3), direction (3
//                            or 4); default "2,2,3" for double K = 32, "3,2,3" for double
//                            K = 16, "3,3,4" otherwise
//   GCOO_BCG_GRAM2=async|async16|regs  gram2's copies: cp.async of elements, of 16 bytes (the
//                            default for double K = 32), or a register prefetch of one tile
//   GCOO_BCG_W_IN_R=0|1      update: W staged over R's tile (one tile less: at 2 stages 72.5 KiB,
//                            three blocks an SM at k = 32 double); default 0
struct fused_variant {
  int gram2_form, gram2_stages, update_stages, direction_stages, w_in_r;
};

template <typename T, int K>
static gcoo_status fused_variant_params(fused_variant *v) {
  typedef fused_shape<T, K> F;
  v->gram2_form = F::GRAM2_FORM;
  v->gram2_stages = F::GRAM2_STAGES;
  v->update_stages = F::UPDATE_STAGES;
  v->direction_stages = F::DIRECTION_STAGES;
  v->w_in_r = 0;
  const char *st = gcoo__param_str(GCOO__P_BCG_STAGES);
  if (*st) {
    char tail = 0;
    const int got = sscanf(st, "%d,%d,%d%c", &v->gram2_stages, &v->update_stages,
                           &v->direction_stages, &tail);
    GCOO_CHECK(got == 3 && (v->gram2_stages == 2 || v->gram2_stages == 3) &&
                   (v->update_stages == 2 || v->update_stages == 3) &&
                   (v->direction_stages == 3 || v->direction_stages == 4),
               GCOO_ERR_INVALID_ARG,
               "GCOO_BCG_STAGES=\"%s\": want \"G,U,D\" with G, U in {2, 3} and D in {3, 4} "
               "(the stages of gram2, update, direction; default %d,%d,%d here)",
               st, F::GRAM2_STAGES, F::UPDATE_STAGES, F::DIRECTION_STAGES);
  }
  const char *g2 = gcoo__param_str(GCOO__P_BCG_GRAM2);
  if (*g2) {
    v->gram2_form = !strcmp(g2, "async")     ? kGram2Async
                    : !strcmp(g2, "async16") ? kGram2Async16
                    : !strcmp(g2, "regs")    ? kGram2Regs
                                             : -1;
    GCOO_CHECK(v->gram2_form >= 0, GCOO_ERR_INVALID_ARG,
               "GCOO_BCG_GRAM2=\"%s\": want async, async16 or regs (default %s here)", g2,
               F::GRAM2_FORM == kGram2Async16 ? "async16" : "async");
  }
  return param_switch(GCOO__P_BCG_W_IN_R, "GCOO_BCG_W_IN_R", 0, &v->w_in_r);
}

// The fused kernels' types, whatever their variant's template arguments.
template <typename T>
struct fused_fn {
  typedef void (*gram2)(int64_t, const T *, int64_t, const T *, int64_t, const T *, int64_t,
                        double *);
  typedef void (*update)(int64_t, const T *, int64_t, const T *, int64_t, const T *, T *, int64_t,
                         T *, int64_t, const T *, T *, int64_t, double *);
  typedef void (*direction)(int64_t, const T *, int64_t, const T *, T *, int64_t, double *);
};

template <typename T, int K>
static typename fused_fn<T>::gram2 pick_gram2(const fused_variant &v, size_t *smem) {
  typedef fused_shape<T, K> F;
  if (v.gram2_form == kGram2Regs) {
    *smem = F::gram2_bytes(1);
    return bcg_fused_gram2<T, K, kGram2Regs>;
  }
  *smem = F::gram2_bytes(v.gram2_stages);
  if (v.gram2_form == kGram2Async16)
    return v.gram2_stages == 2 ? bcg_fused_gram2<T, K, kGram2Async16, 2>
                               : bcg_fused_gram2<T, K, kGram2Async16, 3>;
  return v.gram2_stages == 2 ? bcg_fused_gram2<T, K, kGram2Async, 2>
                             : bcg_fused_gram2<T, K, kGram2Async, 3>;
}

template <typename T, int K, bool TC>
static void pick_updates(gcoo__bcg_device *h, const fused_variant &v) {
  typedef fused_shape<T, K> F;
  h->fsmem[1] = F::update_bytes(v.update_stages, v.w_in_r);
  h->fkern[1] = (void *)(v.w_in_r ? (v.update_stages == 2 ? bcg_fused_update<T, K, TC, 2, true>
                                                          : bcg_fused_update<T, K, TC, 3, true>)
                                  : (v.update_stages == 2 ? bcg_fused_update<T, K, TC, 2>
                                                          : bcg_fused_update<T, K, TC, 3>));
  h->fsmem[2] = F::direction_bytes(v.direction_stages);
  h->fkern[2] = (void *)(v.direction_stages == 3 ? bcg_fused_direction<T, K, TC, 3>
                                                 : bcg_fused_direction<T, K, TC, 4>);
}

// The kernels of this solve and their grids. h->mma is only set where update_mma<T, K>::on, so
// the TC = true kernels exist where it is true.
template <typename T, int K>
static gcoo_status fused_grids(gcoo__bcg_device *h, int64_t n, int sms) {
  fused_variant v;
  GCOO_CALL((fused_variant_params<T, K>(&v)));
  h->fkern[0] = (void *)pick_gram2<T, K>(v, &h->fsmem[0]);
  if (h->mma)
    pick_updates<T, K, update_mma<T, K>::on>(h, v);
  else
    pick_updates<T, K, false>(h, v);
  GCOO_CALL(
      wave_blocks((typename fused_fn<T>::gram2)h->fkern[0], h->fsmem[0], n, sms, &h->fgrid[0]));
  GCOO_CALL(
      wave_blocks((typename fused_fn<T>::update)h->fkern[1], h->fsmem[1], n, sms, &h->fgrid[1]));
  GCOO_CALL(
      wave_blocks((typename fused_fn<T>::direction)h->fkern[2], h->fsmem[2], n, sms, &h->fgrid[2]));
  return GCOO_SUCCESS;
}

// The element type and width as template arguments: fn<T, K>(args...) for k in {8, 16, 32}.
#define GCOO_FUSED_DISPATCH(dt, k, fn, ...)                           \
  ((dt) == GCOO_FLOAT64 ? ((k) == 8    ? fn<double, 8>(__VA_ARGS__)   \
                           : (k) == 16 ? fn<double, 16>(__VA_ARGS__)  \
                                       : fn<double, 32>(__VA_ARGS__)) \
                        : ((k) == 8    ? fn<float, 8>(__VA_ARGS__)    \
                           : (k) == 16 ? fn<float, 16>(__VA_ARGS__)   \
                                       : fn<float, 32>(__VA_ARGS__)))

gcoo_status gcoo__bcg_fused_setup(gcoo__bcg_device *h, int64_t n) {
  const int64_t k = h->k;
  // k = 8: 2.2x faster than the GEMM path (H200, Poisson 10^6 rows, float64); k = 32
  // with CUDA-core K x K sums: 1.3x slower (7168 FP64 FMAs a row), hence the tensor-core sums of
  // double (gram_mma); float at k = 32 keeps the GEMM path (its sums would run on FP64 cores).
  h->fused = k == 8 || k == 16 ? 1 : k == 32 ? (h->dt == GCOO_FLOAT64 ? 1 : 2) : 0;
  if (!h->fused) return GCOO_SUCCESS;
  // double k = 16, 32: X, R, W updated on the FP64 tensor cores (tile_mma); GCOO_BCG_MMA=0 keeps
  // the CUDA-core updates, for comparisons
  const char *mz = gcoo__param_str(GCOO__P_BCG_MMA);
  h->mma = h->dt == GCOO_FLOAT64 && (k == 16 || k == 32) && strcmp(mz, "0") != 0;
  int sms = 0;
  GCOO_CALL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, h->ctx->device));
  GCOO_CALL(GCOO_FUSED_DISPATCH(h->dt, k, fused_grids, h, n, sms));
  int gmax = h->fgrid[0];
  for (int i = 1; i < 3; i++) gmax = h->fgrid[i] > gmax ? h->fgrid[i] : gmax;
  GCOO_CALL(gcoo__cuda_alloc(&h->fpartial, sizeof(double) * (size_t)gmax * 2 * k * k,
                             "block CG fused partial sums"));
  return GCOO_SUCCESS;
}

// The per-block partials (grid x count) summed into red[0, count) in the solver's element type.
template <typename T>
static gcoo_status fused_finish(gcoo__bcg_device *h, int grid, int64_t count) {
  gcoo_colsum::column_totals<T>
      <<<gcoo_colsum::totals_grid(count), 256, 0, bcg_stream(h)>>>(h->fpartial, grid, count,
                                                                   (T *)h->red, 1);
  GCOO_CHECK_LAUNCH("block CG partial sums");
  return GCOO_SUCCESS;
}

template <typename T, int K>
static gcoo_status gram2_t(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                           const gcoo_dense *R) {
  const typename fused_fn<T>::gram2 kernel = (typename fused_fn<T>::gram2)h->fkern[0];
  kernel<<<h->fgrid[0], kFusedThreads, h->fsmem[0], bcg_stream(h)>>>(P->nrows, (const T *)P->data,
                                                                     P->ld, (const T *)Q->data,
                                                                     Q->ld, (const T *)R->data,
                                                                     R->ld, h->fpartial);
  GCOO_CHECK_LAUNCH("block CG [P^T Q | P^T R]");
  GCOO_CALL(fused_finish<T>(h, h->fgrid[0], 2 * K * K));
  return GCOO_SUCCESS;
}

template <typename T, int K>
static gcoo_status update_t(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                            gcoo_dense *X, gcoo_dense *R, const gcoo_dense *dinv, gcoo_dense *W) {
  const typename fused_fn<T>::update kernel = (typename fused_fn<T>::update)h->fkern[1];
  kernel<<<h->fgrid[1], kFusedThreads, h->fsmem[1], bcg_stream(h)>>>(P->nrows, (const T *)P->data,
                                                                     P->ld, (const T *)Q->data,
                                                                     Q->ld,
                                                                     (const T *)
                                                                         gcoo__cuda_bcg_coef(h, 0),
                                                                     (T *)X->data, X->ld,
                                                                     (T *)R->data, R->ld,
                                                                     dinv ? (const T *)dinv->data
                                                                          : nullptr,
                                                                     (T *)W->data, W->ld,
                                                                     h->fpartial);
  GCOO_CHECK_LAUNCH("block CG fused update");
  GCOO_CALL(fused_finish<T>(h, h->fgrid[1], K + K * K));
  return GCOO_SUCCESS;
}

template <typename T, int K>
static gcoo_status direction_t(gcoo__bcg_device *h, const gcoo_dense *P, gcoo_dense *W) {
  const typename fused_fn<T>::direction kernel = (typename fused_fn<T>::direction)h->fkern[2];
  kernel<<<h->fgrid[2], kFusedThreads, h->fsmem[2], bcg_stream(h)>>>(P->nrows, (const T *)P->data,
                                                                     P->ld,
                                                                     (const T *)
                                                                         gcoo__cuda_bcg_coef(h, 1),
                                                                     (T *)W->data, W->ld,
                                                                     h->fpartial);
  GCOO_CHECK_LAUNCH("block CG fused direction");
  GCOO_CALL(fused_finish<T>(h, h->fgrid[2], K * K));
  return GCOO_SUCCESS;
}

extern "C" int gcoo__cuda_bcg_fused(const gcoo__bcg_device *h) { return h->fused; }

extern "C" gcoo_status gcoo__cuda_bcg_gram2(gcoo__bcg_device *h, const gcoo_dense *P,
                                            const gcoo_dense *Q, const gcoo_dense *R) {
  GCOO_CHECK(h->fused && P->ncols == h->k, GCOO_ERR_INTERNAL, "no fused passes for k = %lld",
             (long long)P->ncols);
  GCOO_CALL(GCOO_FUSED_DISPATCH(h->dt, h->k, gram2_t, h, P, Q, R));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_update(gcoo__bcg_device *h, const gcoo_dense *P,
                                             const gcoo_dense *Q, gcoo_dense *X, gcoo_dense *R,
                                             const gcoo_dense *dinv, gcoo_dense *W) {
  GCOO_CHECK(h->fused && P->ncols == h->k, GCOO_ERR_INTERNAL, "no fused passes for k = %lld",
             (long long)P->ncols);
  GCOO_CALL(GCOO_FUSED_DISPATCH(h->dt, h->k, update_t, h, P, Q, X, R, dinv, W));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_direction(gcoo__bcg_device *h, const gcoo_dense *P,
                                                gcoo_dense *W) {
  GCOO_CHECK(h->fused && P->ncols == h->k, GCOO_ERR_INTERNAL, "no fused passes for k = %lld",
             (long long)P->ncols);
  GCOO_CALL(GCOO_FUSED_DISPATCH(h->dt, h->k, direction_t, h, P, W));
  return GCOO_SUCCESS;
}
