// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm.cu: gcoo's GPU SpGEMM C = A B, its output preallocated from a prediction made
// on the device, in the product's stream (docs/spgemm.md):
//
//  1. Bounds: flop(i), lo(i) <= z(i) <= hi(i) = min(flop(i), n) for every row; a row with
//     lo = hi is known exactly. Rows with uncertainty are classed by floor(log2 hi(i)).
//  2. The sample: in every class, rows whose seeded coin falls under the class's rate (at
//     least kSampleMinRows rows of the class, all of a small class), selected by the plan kernel
//     of the sample's pass (no kernel of its own). They are computed at once
//     with the product's own kernels into rooms of hi(i) (they cannot overflow) and kept: the
//     sample is part of the product, not extra work; as they write a sampled row, they add its
//     size to its class's sums (no kernel of its own).
//  3. The estimate: per class, u = sum(z - lo) / sum(hi - lo) over its sampled rows; nnz(C) =
//     sum lo + sum_c u_c G_c. Row i's room: lo + ceil(v_c (hi - lo)), v_c from u_c and the
//     largest fraction the class's sample showed (class_room), computed by the plan kernel of
//     the product's pass, which lists the rows as it goes (no kernel of its own).
//  4. One numeric pass into the rooms (no symbolic pass). Rows are binned by the table their
//     room (or their column span) needs (kernels/spgemm/spgemm_kernels.cuh); the bins of a pass run
//     concurrently on side streams joined back by events; a row that passes its room is listed.
//  5. Layout: a CUB scan of the row sizes gives C's row pointers; C is allocated at the rooms'
//     total before the host knows nnz, and a block per 4096 entries copies the rows into it.
//  6. Only when rows passed their rooms: they are recomputed into rooms of their exact size (or
//     their bound when they aborted) and C is laid out again; nothing is written past an
//     allocation.
// The host waits three times: to size the sample's buffer, the product's (this wait brings the
// class sums too), and at the end for nnz and the overflow count (twice more when rows
// overflowed). A small product (sum hi <= 2^24, bound_entries()) is computed whole by the sample's
// pass, every row at its bound: two waits, no prediction, no overflow. Under a memory budget the
// rows are cut into batches in row order; each batch goes to the host. A product whose rows all
// have hi <= 31 (bounds_kernel's hi_max; the 2-D Laplacian's 25) skips steps 4-6: the in-place pass
// (kernels/spgemm/spgemm_inplace.cuh) computes the rows in order and writes them straight into C,
// allocated at the predictor's total room (the sample is still taken: its rows are computed again
// there) or, for a small product, at the bounds' total (no sample). The pieces of a pass are in
// spgemm_pass.cuh, the device code in spgemm_kernels.cuh; the backend's entry points in
// spgemm_entry.cu.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "spgemm_common.cuh"
#include "spgemm_inplace.cuh"
#include "spgemm_kernels.cuh"
#include "spgemm_pass.cuh"

namespace {

using namespace gcoo_spg;

// Steps 1 and 2: bounds and classes, then the sample, computed into buffer 0 (kept) and summed
// per class. ev (may be NULL): events 1-3 are recorded after the bounds, the selection (with the
// sample's plan) and the sample's pass.
// bound_max > 0: when sum hi <= bound_max, every row is computed at its bound instead
// (sample_room; P->all_at_bound is set, the class sums are left out).
template <typename T>
gcoo_status sample_phase(product<T> *P, uint64_t seed, cudaEvent_t *ev,
                         unsigned long long bound_max, bool in_place_ok) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = P->s;
  const int64_t m = P->m, n = P->n;
  pass_plan ps;
  unsigned long long hi[2] = {0, 0}; // sum_hi and hi_max, adjacent in class_stats
  static_assert(offsetof(class_stats, hi_max) == offsetof(class_stats, sum_hi) + 8, "adjacent");
  const piece hi_piece = {hi, &P->cs->sum_hi, sizeof hi};
  if (m > 0) {
    // 4 lanes a row when A's rows average at most 6 entries, else 8
    if (P->A->nnz <= 6 * m)
      bounds_kernel<4><<<blocks_for(m * 4, 256), 256, 0, s>>>(P->in_csr(), m, n, P->rs, P->cs);
    else
      bounds_kernel<8><<<blocks_for(m * 8, 256), 256, 0, s>>>(P->in_csr(), m, n, P->rs, P->cs);
    SPG_LAUNCHED("bounds_kernel");
  }
  if (ev) SPG_CUDA(cudaEventRecord(ev[1], s));
  // the plan kernel selects the sample and plans it (one launch); ev[2] follows it, so the
  // predictor's time includes the sample's plan
  GCOO_GOTO(plan_pass(P, P->list, P->ctr, m, &ps, &hi_piece, 1,
                      rooms_args{P->cs, 0.0, m, true, seed, bound_max}, ev ? ev[2] : nullptr));
  P->all_at_bound = bound_max > 0 && hi[0] <= bound_max; // as sample_room decided it
  P->sum_hi = hi[0];
  P->hi_max = hi[1];
  P->in_place = in_place_ok && P->hi_max <= kInplaceMaxHi;
  ps.sampled = !P->all_at_bound;        // as plan_kernel gave bin_of
  if (P->in_place && P->all_at_bound) { // the in-place pass takes every row: no sample
    if (ev) SPG_CUDA(cudaEventRecord(ev[3], s));
  } else {
    P->allocated += ps.total_room;
    P->buf_len[0] = ps.total_room;
    // the rows' kernels add the sampled sizes to the class sums as they write them
    GCOO_GOTO(run_pass<T>(P, P->list, &ps, 0, P->ovf1, P->ctr + 1, &P->ci[0], &P->cv[0],
                          P->all_at_bound ? nullptr : P->cs));
    if (ev) SPG_CUDA(cudaEventRecord(ev[3], s));
  }
done:
  plan_free(&P->mem, &ps); // run_pass frees it; a failed plan_pass does not
  return st;
}

// C by the in-place pass (kernels/spgemm/spgemm_inplace.cuh) into arrays of `cap` entries: one launch
// and one wait, which brings nnz (C's last row pointer, exact whatever the capacity). When the
// capacity was short (the prediction missed by more than its margin: no entry was written past
// it, and the tiles past it wrote none), C is allocated at exactly nnz and the pass runs again:
// every row is then recomputed, and counted so in the product's info. The first wait brings the
// class sums into *hcs too.
template <typename T>
gcoo_status in_place_csr(product<T> *P, int64_t cap, gcoo_cuda_csr *dC, class_stats *hcs) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = P->s;
  spg_mem *mem = &P->mem;
  const int64_t m = P->m, tiles = (m + kInplaceRows - 1) / kInplaceRows;
  const int64_t words = tiles + 2; // the tiles' status, the ticket, the full-table count
  out_mem om = {mem, false}, om_ptr = {mem, false}; // C's entries; its row pointers (kept)
  unsigned long long *ctr = nullptr;
  int64_t *rowptr = nullptr;
  int32_t *ci = nullptr;
  T *cv = nullptr;
  int64_t nnz = 0;
  unsigned long long full = 0;
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)&ctr, words * 8));
  for (int round = 0;; round++) {
    om.pooled = (m + 1) * 8 + cap * (int64_t)(4 + sizeof(T)) <= mem->pooled_max;
    if (!rowptr) {
      om_ptr.pooled = om.pooled;
      GCOO_GOTO(om_ptr.alloc((void **)&rowptr, (m + 1) * 8));
    }
    GCOO_GOTO(om.alloc((void **)&ci, cap * 4));
    GCOO_GOTO(om.alloc((void **)&cv, cap * (int64_t)sizeof(T)));
    P->allocated += cap;
    SPG_CUDA(cudaMemsetAsync(ctr, 0, words * 8, s));
    if (m == 0) {
      SPG_CUDA(cudaMemsetAsync(rowptr, 0, 8, s));
    } else {
      inplace_out<T> out = {rowptr, ci, cv, cap, ctr, ctr + tiles, ctr + tiles + 1};
      // at most as many blocks as can run at once (8 of 256 threads an SM, when registers
      // allow): the rest would only start to find no tile left
      const int64_t grid = tiles < (int64_t)P->sms * 8 ? tiles : (int64_t)P->sms * 8;
      inplace_rows_kernel<T>
          <<<(unsigned)grid, kInplaceWarps * 32, 0, s>>>(P->in_csr(), (const T *)P->A->values,
                                                         (const T *)P->B->values, m, out);
      SPG_LAUNCHED("inplace_rows_kernel");
    }
    {
      const piece pc[3] = {{&nnz, rowptr + m, 8},
                           {&full, ctr + tiles + 1, 8},
                           {hcs, P->cs, sizeof *hcs}};
      SPG_CUDA(fetch_pieces(pc, round == 0 ? 3 : 2, s));
    }
    GCOO_CHECK_GOTO(full == 0, GCOO_ERR_INTERNAL,
                    "%llu rows of C filled their 32-slot tables (their bound hi <= %llu is wrong)",
                    full, kInplaceMaxHi);
    if (nnz <= cap) break;
    GCOO_CHECK_GOTO(round == 0, GCOO_ERR_INTERNAL,
                    "C's in-place pass found %lld entries, more than the %lld it counted",
                    (long long)nnz, (long long)cap);
    om.release(ci, cap * 4);
    om.release(cv, cap * (int64_t)sizeof(T));
    ci = nullptr;
    cv = nullptr;
    cap = nnz;
    P->overflowed += m;
    P->flop_recomputed += (int64_t)hcs->flop;
  }
  hand_over_csr(dC, &rowptr, &ci, &cv, nnz);
done:
  spg_tmp_free(mem, ctr, words * 8);
  om_ptr.release(rowptr, (m + 1) * 8);
  om.release(ci, cap * 4);
  om.release(cv, cap * (int64_t)sizeof(T));
  return st;
}

// Below this many bytes of worst-case device memory (every row at its bound) a product runs in
// one batch without asking the driver for free memory (cudaMemGetInfo costs more than the
// smallest products); a device short of that much fails the allocation with a clear error.
constexpr int64_t kSmallProductBytes = (int64_t)256 << 20;

template <typename T>
gcoo_status spgemm_gcoo(gcoo_ctx ctx, const gcoo_cuda_csr *A, const gcoo_cuda_csr *B,
                        const gcoo_spgemm_options *o, gcoo_cuda_csr *dC, gcoo_sparse *hC,
                        gcoo_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  product<T> P;
  class_stats hcs;
  host_csr H;
  pass_plan p1;
  int32_t *h_room = nullptr, *h_hi = nullptr, *h_w = nullptr;
  int64_t *batch_end = nullptr, *rowptr = nullptr;
  int32_t *ci = nullptr;
  T *cv = nullptr;
  int64_t nbatches = 1, nnz_total = 0, nnz = 0, cap = 0, in_place_cap = 0;
  int64_t free_early = -1; // the device's free memory, asked during the rooms' plan (or not: -1)
  cudaEvent_t *ev = nullptr;
  float ms_bounds = 0, ms_select = 0, ms_est = 0;
  const int64_t m = A->nrows, n = B->ncols, E = (int64_t)(sizeof(int32_t) + sizeof(T));
  const double t0 = gcoo__wtime();
  const double safety = o->safety > 0.0 ? o->safety : GCOO_SPGEMM_DEFAULT_SAFETY;
  const uint64_t seed = o->predict.seed;
  memset(&hcs, 0, sizeof hcs);
  *hC = nullptr;
  memset(dC, 0, sizeof *dC);
  dC->dtype = A->dtype;
  dC->nrows = m;
  dC->ncols = n;
  product_init(&P, s, A, B);
  GCOO_CHECK_GOTO(m < INT32_MAX, GCOO_ERR_TOO_LARGE,
                  "C has %lld rows: the GPU SpGEMM takes fewer than 2^31", (long long)m);
  GCOO_CHECK_GOTO(P.side != nullptr, GCOO_ERR_CUDA,
                  "could not create the CUDA streams and events of the SpGEMM");
  ev = P.side->timing;
  spg_pool_use(ctx, &P.mem);

  // 1. bounds and classes; 2. the sample, computed and kept
  SPG_CUDA(cudaEventRecord(ev[0], s));
  GCOO_GOTO(product_alloc(&P));
  GCOO_GOTO(sample_phase(&P, seed, ev, safety >= 1.0 && o->memory_budget == 0 ? bound_entries() : 0,
                         o->memory_budget == 0));
  // Every row of hi <= kInplaceMaxHi: the in-place pass computes C in row order straight into
  // its place, at the predictor's total room (or the bounds' total, when every row is at its
  // bound). A sampled product falls back to the rooms when that might not fit the device.
  if (P.in_place && !P.all_at_bound) {
    const piece pc = {&hcs, P.cs, sizeof hcs};
    SPG_CUDA(fetch_pieces(&pc, 1, s));
    in_place_cap = (int64_t)gcoo__class_total_room(hcs.sum_lo, hcs.sum_hi, hcs.g, hcs.s_g, hcs.s_dz,
                                                   safety);
    const int64_t need = P.mem.live + (m + 1) * 8 + in_place_cap * E;
    if (need >= kSmallProductBytes && need > (int64_t)(0.9 * (double)gcoo__cuda_free_bytes()))
      P.in_place = false;
  } else if (P.in_place) {
    in_place_cap = (int64_t)P.sum_hi;
  }
  SPG_CUDA(cudaEventRecord(ev[4], s));
  if (P.in_place) {
    GCOO_GOTO(in_place_csr<T>(&P, in_place_cap, dC, &hcs));
    nnz_total = dC->nnz;
    free_buf(&P, 0); // the sample's rows were computed again in place
  } else {
    // 3. the estimate and the rooms of the other rows, planned as one batch; the same wait brings
    // the class sums
    // (the rooms are computed by the plan kernel, which lists the rows: one launch)
    SPG_CUDA(cudaMemsetAsync(P.ctr, 0, 3 * 8, s));
    if (P.all_at_bound) { // nothing is left to plan; the last wait brings the class sums
      p1.planned = true;
    } else {
      // A product that will likely ask the driver for its free memory (below: need past
      // kSmallProductBytes) asks while the device runs the sample's pass and this plan, rather
      // than after the wait with the device idle (cudaMemGetInfo: microseconds of host time). No
      // allocation comes in between, so the answer is the same.
      const bool ask_early = o->memory_budget == 0 &&
                             (double)P.sum_hi * 2.0 * (double)E >= (double)kSmallProductBytes;
      const piece pc = {&hcs, P.cs, sizeof hcs};
      GCOO_GOTO(plan_pass(&P, P.list, P.ctr, m, &p1, &pc, 1,
                          rooms_args{P.cs, safety, m, false, 0, 0}, nullptr,
                          ask_early ? &free_early : nullptr));
    }

    // 4.-6. one batch when the rooms (twice: buffer and C), the tables and a tenth for the rows
    // that may not fit stay within the budget
    {
      const int64_t need = P.mem.live + (m + 1) * 8 +
                           (int64_t)(1.1 *
                                     (double)(2 * p1.total_room + P.buf_len[0] + p1.total_tab) *
                                     (double)E);
      int64_t budget = o->memory_budget;
      if (budget == 0)
        budget = need < kSmallProductBytes
                     ? INT64_MAX
                     : (int64_t)(0.9 *
                                 (double)(free_early >= 0 ? free_early : gcoo__cuda_free_bytes())) +
                           P.mem.live;
      if (need > budget) { // the rooms decide: cut batches in row order on the host
        plan_free(&P.mem, &p1);
        GCOO_GOTO(gcoo__malloc_n((void **)&h_room, m, 4, "row rooms"));
        GCOO_GOTO(gcoo__malloc_n((void **)&h_hi, m, 4, "row bounds"));
        GCOO_GOTO(gcoo__malloc_n((void **)&h_w, m, 4, "row spans"));
        GCOO_GOTO(gcoo__malloc_n((void **)&batch_end, m + 1, 8, "batches"));
        // sampled rows are recomputed in their batch into exact rooms: the sample buffer goes
        free_buf(&P, 0);
        SPG_CUDA(cudaMemsetAsync(P.rs.src, kSrcNone, m, s));
        SPG_CUDA(cudaMemsetAsync(P.ctr, 0, 8, s));
        if (m > 0) {
          rooms_kernel<<<blocks_for(m, 256), 256, 0, s>>>(0, m, safety, P.rs, P.cs, P.list, P.ctr);
          SPG_LAUNCHED("rooms_kernel");
        }
        SPG_CUDA(cudaMemcpyAsync(h_room, P.rs.room, m * 4, cudaMemcpyDeviceToHost, s));
        SPG_CUDA(cudaMemcpyAsync(h_hi, P.rs.hi, m * 4, cudaMemcpyDeviceToHost, s));
        SPG_CUDA(cudaMemcpyAsync(h_w, P.rs.w, m * 4, cudaMemcpyDeviceToHost, s));
        SPG_CUDA(cudaStreamSynchronize(s));
        const int64_t fixed = P.mem.live + (m + 1) * 16;
        GCOO_CHECK_GOTO(fixed < budget, GCOO_ERR_NO_MEMORY,
                        "memory budget %lld bytes is below the %lld bytes of per-row bookkeeping "
                        "for %lld rows",
                        (long long)budget, (long long)fixed, (long long)m);
        const int64_t room_budget = budget - fixed;
        int64_t used = 0;
        nbatches = 0;
        for (int64_t i = 0; i < m; i++) {
          const int64_t room = h_hi[i] == 0 ? 0 : h_room[i];
          const int b = h_hi[i] == 0 ? 0 : bin_of(h_hi[i], h_room[i], h_w[i], P.rule);
          const int64_t cost = 2 * room * E + 48 +
                               (b == kGlobalBin ? global_slots(h_hi[i]) * E : 0);
          GCOO_CHECK_GOTO(cost <= room_budget, GCOO_ERR_NO_MEMORY,
                          "row %lld alone needs %lld bytes of device memory (room %lld), more "
                          "than the %lld bytes the budget leaves",
                          (long long)i, (long long)cost, (long long)room, (long long)room_budget);
          if (used + cost > room_budget) {
            batch_end[nbatches++] = i;
            used = 0;
          }
          used += cost;
        }
        batch_end[nbatches++] = m;
        if (nbatches > 1) {
          GCOO_GOTO(gcoo__malloc_n((void **)&H.ptr, m + 1, 8, "C row pointers"));
          H.ptr[0] = 0;
        }
      } else {
        batch_end = (int64_t *)malloc(sizeof(int64_t));
        GCOO_CHECK_GOTO(batch_end != nullptr, GCOO_ERR_NO_MEMORY, "no host memory");
        batch_end[0] = m;
      }
    }
    for (int64_t bt = 0, r0 = 0; bt < nbatches; r0 = batch_end[bt++]) {
      const int64_t r1 = batch_end[bt];
      if (nbatches > 1) {
        SPG_CUDA(cudaMemsetAsync(P.ctr, 0, 8, s));
        if (r1 > r0) {
          rooms_kernel<<<blocks_for(r1 - r0, 256), 256, 0, s>>>(r0, r1, safety, P.rs, P.cs, P.list,
                                                                P.ctr);
          SPG_LAUNCHED("rooms_kernel");
        }
      }
      const piece sums = {&hcs, P.cs, sizeof hcs};
      GCOO_GOTO(rows_to_csr<T>(&P, r0, r1, nbatches > 1 ? r1 - r0 : m, &p1, &rowptr, &ci, &cv, &nnz,
                               &cap, P.all_at_bound ? &sums : nullptr));
      nnz_total += nnz;
      if (nbatches == 1) {
        hand_over_csr(dC, &rowptr, &ci, &cv, nnz);
      } else { /* to the host, then the device arrays go */
        if (H.nnz + nnz > H.cap) {
          int64_t c2 = 2 * H.cap > H.nnz + nnz ? 2 * H.cap : H.nnz + nnz;
          int32_t *i2 = (int32_t *)realloc(H.ind, (size_t)(c2 ? c2 : 1) * sizeof(int32_t));
          GCOO_CHECK_GOTO(i2 != nullptr, GCOO_ERR_NO_MEMORY, "no host memory for %lld entries of C",
                          (long long)c2);
          H.ind = i2;
          void *v2 = realloc(H.val, (size_t)(c2 ? c2 : 1) * sizeof(T));
          GCOO_CHECK_GOTO(v2 != nullptr, GCOO_ERR_NO_MEMORY, "no host memory for %lld entries of C",
                          (long long)c2);
          H.val = v2;
          H.cap = c2;
        }
        const int64_t nr = r1 - r0;
        SPG_CUDA(cudaMemcpyAsync(H.ptr + r0 + 1, rowptr + 1, nr * 8, cudaMemcpyDeviceToHost, s));
        SPG_CUDA(cudaMemcpyAsync(H.ind + H.nnz, ci, nnz * 4, cudaMemcpyDeviceToHost, s));
        SPG_CUDA(
            cudaMemcpyAsync((T *)H.val + H.nnz, cv, nnz * sizeof(T), cudaMemcpyDeviceToHost, s));
        SPG_CUDA(cudaStreamSynchronize(s));
        for (int64_t i = r0 + 1; i <= r1; i++) H.ptr[i] += H.nnz;
        H.nnz += nnz;
        spg_free(&P.mem, rowptr, (nr + 1) * 8);
        spg_free(&P.mem, ci, cap * 4);
        spg_free(&P.mem, cv, cap * (int64_t)sizeof(T));
        rowptr = nullptr;
        ci = nullptr;
        cv = nullptr;
      }
    }
    free_buf(&P, 0);
    if (nbatches > 1) {
      st = gcoo__sparse_adopt(hC, GCOO_FORMAT_CSR, A->dtype, m, n, H.nnz, 0, H.ptr, H.ind, nullptr,
                              nullptr, nullptr, H.val);
      H.ptr = nullptr;
      H.ind = nullptr;
      H.val = nullptr;
      GCOO_GOTO(st);
    }
  } // the rooms
  SPG_CUDA(cudaStreamSynchronize(s));
  cudaEventElapsedTime(&ms_bounds, ev[0], ev[1]);
  cudaEventElapsedTime(&ms_select, ev[1], ev[2]);
  cudaEventElapsedTime(&ms_est, ev[3], ev[4]);
  if (info) {
    info->alg = GCOO_SPGEMM_GCOO;
    info->flop = (int64_t)hcs.flop;
    info->nnz = nnz_total;
    info->nnz_predicted = P.all_at_bound
                              ? 0 // computed at its bounds: no prediction
                              : (int64_t)llround(
                                    gcoo__class_estimate(hcs.sum_lo, hcs.g, hcs.s_g, hcs.s_dz));
    info->nnz_allocated = P.allocated;
    info->rows_overflowed = P.overflowed;
    info->flop_recomputed = P.flop_recomputed;
    info->batches = nbatches;
    info->seconds = gcoo__wtime() - t0;
    info->seconds_flop = 1e-3 * ms_bounds;
    info->seconds_predict = 1e-3 * (ms_select + ms_est);
    info->peak_bytes = P.mem.peak;
  }
done:
  plan_free(&P.mem, &p1);
  free(h_room);
  free(h_hi);
  free(h_w);
  free(batch_end);
  free(H.ptr);
  free(H.ind);
  free(H.val);
  cudaStreamSynchronize(s);
  product_free(&P);
  spg_free(&P.mem, rowptr, 0);
  spg_free(&P.mem, ci, 0);
  spg_free(&P.mem, cv, 0);
  spg_pool_trim(&P.mem);
  if (st < 0) {
    gcoo_cuda_csr_free(dC);
    gcoo_sparse_destroy(hC);
  }
  return st;
}

// The GPU predictor alone (the plan of the distributed SpGEMM): steps 1-3 of a product, the
// per-row predictions and FLOP brought to the host.
template <typename T>
gcoo_status predict_gcoo(gcoo_ctx ctx, const gcoo_cuda_csr *A, const gcoo_cuda_csr *B,
                         const gcoo_predict_options *po, gcoo_prediction *pred) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  product<T> P;
  class_stats hcs;
  int64_t *d_flop = nullptr, *d_nnz = nullptr;
  const int64_t m = A->nrows, n = B->ncols;
  const double t0 = gcoo__wtime();
  memset(&hcs, 0, sizeof hcs);
  memset(pred, 0, sizeof *pred);
  product_init(&P, s, A, B);
  GCOO_CHECK_GOTO(m < INT32_MAX, GCOO_ERR_TOO_LARGE,
                  "C has %lld rows: the GPU predictor takes fewer than 2^31", (long long)m);
  spg_pool_use(ctx, &P.mem);
  GCOO_GOTO(product_alloc(&P));
  GCOO_GOTO(sample_phase(&P, po->seed, (cudaEvent_t *)nullptr, 0, false));
  GCOO_GOTO(spg_tmp_malloc(&P.mem, (void **)&d_flop, m * 8));
  GCOO_GOTO(spg_tmp_malloc(&P.mem, (void **)&d_nnz, m * 8));
  if (m > 0) {
    predict_rows_kernel<<<blocks_for(m, 256), 256, 0, s>>>(P.in_csr(), m, P.rs, P.cs, d_flop,
                                                           d_nnz);
    SPG_LAUNCHED("predict_rows_kernel");
  }
  {
    const piece pc = {&hcs, P.cs, sizeof hcs};
    SPG_CUDA(fetch_pieces(&pc, 1, s));
  }
  GCOO_GOTO(gcoo__malloc_n((void **)&pred->row_flop, m, 8, "row FLOP"));
  GCOO_GOTO(gcoo__malloc_n((void **)&pred->row_nnz, m, 8, "row NNZ"));
  if (m > 0) {
    SPG_CUDA(cudaMemcpyAsync(pred->row_flop, d_flop, m * 8, cudaMemcpyDeviceToHost, s));
    SPG_CUDA(cudaMemcpyAsync(pred->row_nnz, d_nnz, m * 8, cudaMemcpyDeviceToHost, s));
    SPG_CUDA(cudaStreamSynchronize(s));
  }
  {
    const double e = gcoo__class_estimate(hcs.sum_lo, hcs.g, hcs.s_g, hcs.s_dz);
    int64_t counted = 0, exact = 1;
    for (int c = 0; c < kClasses; c++) {
      counted += (int64_t)hcs.s_rows[c];
      if (hcs.rows[c] > 0 && hcs.s_g[c] < hcs.g[c]) exact = 0;
    }
    pred->method = GCOO_PREDICT_CLASSES;
    pred->nrows = m;
    pred->ncols = n;
    pred->flop_total = (int64_t)hcs.flop;
    pred->nnz_lower = (int64_t)hcs.sum_lo;
    pred->nnz_upper = (int64_t)hcs.sum_hi;
    pred->nnz_estimate = e;
    pred->nnz_predicted = llround(e);
    pred->compression_ratio = pred->nnz_predicted > 0
                                  ? (double)hcs.flop / (double)pred->nnz_predicted
                                  : 1.0;
    pred->rel_stderr = exact ? 0.0 : NAN;
    pred->exact = (int)exact;
    pred->samples = counted;
    pred->rows_counted = counted;
    pred->seconds = gcoo__wtime() - t0;
  }
done:
  spg_tmp_free(&P.mem, d_flop, m * 8);
  spg_tmp_free(&P.mem, d_nnz, m * 8);
  product_free(&P);
  spg_pool_trim(&P.mem);
  if (st < 0) gcoo_prediction_free(pred);
  return st;
}

} // namespace

extern "C" {

gcoo_status gcoo__cuda_spgemm_gcoo(gcoo_ctx ctx, const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB,
                                   const gcoo_spgemm_options *opts, gcoo_cuda_csr *dC,
                                   gcoo_sparse *hC, gcoo_spgemm_info *info) {
  GCOO_CHECK(dA->ncols == dB->nrows, GCOO_ERR_SHAPE,
             "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
             (long long)dA->nrows, (long long)dA->ncols, (long long)dB->nrows,
             (long long)dB->ncols);
  GCOO_CHECK(dA->dtype == dB->dtype, GCOO_ERR_DTYPE, "C = A B: A and B have different types");
  if (dA->dtype == GCOO_FLOAT64)
    GCOO_CALL(spgemm_gcoo<double>(ctx, dA, dB, opts, dC, hC, info));
  else
    GCOO_CALL(spgemm_gcoo<float>(ctx, dA, dB, opts, dC, hC, info));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__cuda_predict_gcoo(gcoo_ctx ctx, const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB,
                                    const gcoo_predict_options *opts, gcoo_prediction *pred) {
  if (dA->dtype == GCOO_FLOAT64)
    GCOO_CALL(predict_gcoo<double>(ctx, dA, dB, opts, pred));
  else
    GCOO_CALL(predict_gcoo<float>(ctx, dA, dB, opts, pred));
  return GCOO_SUCCESS;
}

} // extern "C"
