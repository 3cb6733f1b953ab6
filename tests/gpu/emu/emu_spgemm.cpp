// SPDX-License-Identifier: MIT
// tests/gpu/emu/emu_spgemm.cpp: kernels/spgemm/spgemm_kernels.cuh compiled for the CPU emulator
// (tests/common/cuda_emu.h, warp collectives included), with one C entry point for tests/gpu/t505:
// a product's device steps run on host arrays in the order kernels/spgemm/spgemm.cu launches them
// when rows pass their rooms and GCOO_SPGEMM_RECOMPUTE=direct: bounds, a numeric pass into
// rooms made too small on purpose (plan, bin scatter, every bin's kernel), the direct
// recomputation of the listed rows (relist_kernel, then the global-table block kernel once, into
// C allocated at recompute_cap()), and the layout. The rooms here are not the predictor's (the
// sample and the class rooms are checked by tests/gpu/t503 against the CPU's): they are
// lo + frac (hi - lo), so that rows of every bin overflow. `mode` bit 1 plans the pass as the
// sample's (rooms at the bound, frac 1: the first bin takes rows of hi <= 31); bit 3 no dense
// reach (GCOO_SPGEMM_DENSE_REACH=0; the library's default is 1); bits 0 and 2 are not used. Two more entry
// points check the in-place pass (kernels/spgemm/spgemm_inplace.cuh): the product of rows of hi <= 31
// at a given capacity and grid, and the look-back alone over tiles that have published only
// their totals.
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "spgemm/spgemm_inplace.cuh"
#include "spgemm/spgemm_kernels.cuh"

#include "common/gcoo_kernels.h"

using namespace gcoo_spg;

namespace {

template <int TPB, bool GLOBAL, typename T>
void block_launch(int64_t n, int bits, csr_in in, const T *Av, const T *Bv, const int32_t *rows,
                  rows_state rs, pass_out<T> out) {
  if (n == 0) return;
  const size_t smem = GLOBAL ? 0 : ((size_t)1 << bits) * (sizeof(T) + 4);
  const unsigned blocks = (unsigned)(n < 3 ? n : 3); // the kernels loop over the rest
  gcoo_emu::launch(block_rows_kernel<T, TPB, GLOBAL>, dim3(blocks), dim3(TPB), smem, in, Av, Bv,
                   rows, n, bits, rs, out);
}

template <typename T, int TS, int G, int WARPS>
void group_launch(int64_t n, csr_in in, const T *Av, const T *Bv, const int32_t *rows,
                  rows_state rs, pass_out<T> out) {
  if (n == 0) return;
  constexpr int64_t per_block = (int64_t)WARPS * (32 / G);
  int64_t blocks = (n + per_block - 1) / per_block;
  if (blocks > 2) blocks = 2; // the kernel loops over the rest
  const dim3 grid((unsigned)blocks), block(WARPS * 32);
  if constexpr (TS == 32 && G < 32) // the first bin: a lane per A entry
    gcoo_emu::launch(group_rows_kernel<T, TS, G, WARPS, true>, grid, block, 0, in, Av, Bv, rows, n,
                     rs, out);
  else
    gcoo_emu::launch(group_rows_kernel<T, TS, G, WARPS>, grid, block, 0, in, Av, Bv, rows, n, rs,
                     out);
}

// As kernels/spgemm/spgemm.cu's launch_bin (the same instantiations, fewer blocks).
template <typename T>
void run_bin(int b, int64_t nb, csr_in in, const T *Av, const T *Bv, const int32_t *rows,
             rows_state rs, pass_out<T> out) {
  int bits = 0;
  while (b != kGlobalBin && (1 << bits) < bin_slots(b)) bits++;
  switch (b) {
    case 0: group_launch<T, 32, 8, 8>(nb, in, Av, Bv, rows, rs, out); break;
    case 1: group_launch<T, 64, 32, 8>(nb, in, Av, Bv, rows, rs, out); break;
    case 2: group_launch<T, 128, 32, 8>(nb, in, Av, Bv, rows, rs, out); break;
    case 3: group_launch<T, 256, 32, 4>(nb, in, Av, Bv, rows, rs, out); break;
    case 4: group_launch<T, 512, 32, 4>(nb, in, Av, Bv, rows, rs, out); break;
    case 5: block_launch<128, false>(nb, bits, in, Av, Bv, rows, rs, out); break;
    case 6: block_launch<256, false>(nb, bits, in, Av, Bv, rows, rs, out); break;
    case 7: block_launch<512, false>(nb, bits, in, Av, Bv, rows, rs, out); break;
    case 8:
    case 9: block_launch<1024, false>(nb, bits, in, Av, Bv, rows, rs, out); break;
    default: block_launch<1024, true>(nb, 0, in, Av, Bv, rows, rs, out); break;
  }
}

// rows_state's arrays for m rows, on the host (the emulator's device memory)
struct host_rows {
  std::vector<int32_t> hi, lo, room, z, cmin, w;
  std::vector<int64_t> off;
  std::vector<uint8_t> src;
  explicit host_rows(int64_t m) : hi(m), lo(m), room(m), z(m + 1), cmin(m), w(m), off(m), src(m) {}
  rows_state state() {
    return {hi.data(),  lo.data(),  room.data(), z.data(),
            off.data(), src.data(), cmin.data(), w.data()};
  }
};

template <typename T>
int direct_product(const gcoo_cuda_csr *A, const gcoo_cuda_csr *B, double frac, int mode,
                   gcoo_cuda_csr *C, int64_t *stats) {
  const int64_t m = A->nrows, n = B->ncols;
  const csr_in in = {A->ptr, A->ind, B->ptr, B->ind};
  const T *Av = (const T *)A->values, *Bv = (const T *)B->values;
  const bin_rule rule = {9, (mode & 8) ? 0 : 1}; // bit 3: GCOO_SPGEMM_DENSE_REACH=0
  host_rows hr(m);
  std::vector<int64_t> tab_off(m);
  rows_state rs = hr.state();
  class_stats cs;
  memset(&cs, 0, sizeof cs);
  // 1. bounds (8 lanes a row, as for A with more than 6 entries a row on average)
  if (m > 0)
    gcoo_emu::launch(bounds_kernel<8>, dim3((unsigned)((m * 8 + 255) / 256)), dim3(256), 0, in, m,
                     n, rs, &cs);
  // the column spans bounds_kernel left: exact where bound_needs_span(hi) (the block bins and the
  // bucket ranks read them), 0 elsewhere (never read there)
  for (int64_t i = 0; i < m; i++) {
    int32_t c0 = INT32_MAX, c1 = -1;
    for (int64_t a = A->ptr[i]; a < A->ptr[i + 1]; a++) {
      const int64_t k = A->ind[a];
      if (B->ptr[k + 1] > B->ptr[k]) {
        c0 = std::min(c0, B->ind[B->ptr[k]]);
        c1 = std::max(c1, B->ind[B->ptr[k + 1] - 1]);
      }
    }
    const bool span = bound_needs_span(hr.hi[i]) && c1 >= c0;
    if (hr.cmin[i] != (span ? c0 : 0) || hr.w[i] != (span ? c1 - c0 + 1 : 0)) return 2;
  }
  // 2. rooms too small on purpose; every row with work is listed
  std::vector<int32_t> list, binned(m > 0 ? m : 1), ovf1(m > 0 ? m : 1), ovf2(m > 0 ? m : 1);
  for (int64_t i = 0; i < m; i++) {
    if (hr.hi[i] == 0) {
      hr.z[i] = 0;
      continue;
    }
    hr.room[i] = hr.z[i] >= 0 ? hr.z[i]
                              : hr.lo[i] + (int32_t)(frac * (double)(hr.hi[i] - hr.lo[i]));
    list.push_back((int32_t)i);
  }
  const unsigned long long nlist = list.size();
  std::vector<unsigned long long> pc(2 * kNumBins + 3, 0);
  const bool sampled = (mode & 2) != 0; // planned as the sample's pass (bin_of)
  rooms_args ra = {nullptr, 0.0, 0, sampled, 0, 0};
  if (nlist > 0) {
    gcoo_emu::launch(plan_kernel, dim3((unsigned)((nlist + kPlanThreads - 1) / kPlanThreads)),
                     dim3(kPlanThreads), 0, list.data(), &nlist, rs, rule, pc.data(),
                     tab_off.data(), ra);
    gcoo_emu::launch(bin_scatter_kernel, dim3((unsigned)((nlist + 255) / 256)), dim3(256), 0,
                     list.data(), (int64_t)nlist, rs, rule, sampled, pc.data(), binned.data());
  }
  const int64_t room1 = (int64_t)pc[2 * kNumBins + 1], tab1 = (int64_t)pc[2 * kNumBins + 2];
  std::vector<int32_t> ci1(room1 + 1), gk1(tab1 + 1);
  std::vector<T> cv1(room1 + 1), gv1(tab1 + 1);
  unsigned long long ctr[8] = {0, 0, 0, 0, 0, 0, 0, 0}; // as kernels/spgemm/spgemm.cu's P->ctr
  pass_out<T> out;
  memset(&out, 0, sizeof out);
  out.ci = ci1.data();
  out.cv = cv1.data();
  out.buf_id = 1;
  out.ovf_rows = ovf1.data();
  out.ovf_count = &ctr[1];
  out.gkeys = gk1.data();
  out.gvals = gv1.data();
  out.tab_off = tab_off.data();
  int64_t start = 0;
  for (int b = 0; b < kNumBins; b++) {
    const int64_t nb = (int64_t)pc[b];
    run_bin<T>(b, nb, in, Av, Bv, binned.data() + start, rs, out);
    stats[4 + b] = nb;
    start += nb;
  }
  // 3. the direct recomputation: planned on the device, one launch of the global-table kernel
  gcoo_emu::launch(relist_kernel, dim3(2), dim3(256), 0, ovf1.data(), &ctr[1], rs, in,
                   tab_off.data(), &ctr[4], &ctr[3]);
  int64_t nnz = 0; // the scan the host's one wait brings (z as the first pass left it)
  for (int64_t i = 0; i < m; i++) nnz += hr.z[i];
  const int64_t novf = (int64_t)ctr[1], room2 = (int64_t)ctr[4], tab2 = (int64_t)ctr[5];
  const int64_t cap = novf > 0 ? recompute_cap(nnz, ctr[4], ctr[6]) : nnz;
  std::vector<int32_t> ci2(room2 + 1), gk2(tab2 + 1);
  std::vector<T> cv2(room2 + 1), gv2(tab2 + 1);
  out.ci = ci2.data();
  out.cv = cv2.data();
  out.buf_id = 2;
  out.ovf_rows = ovf2.data();
  out.ovf_count = &ctr[2];
  out.gkeys = gk2.data();
  out.gvals = gv2.data();
  block_launch<1024, true>(novf, 0, in, Av, Bv, ovf1.data(), rs, out);
  // 4. layout into C of cap entries (the scan of the final sizes; compact_rows as on the device)
  C->dtype = A->dtype;
  C->nrows = m;
  C->ncols = n;
  C->ptr = (int64_t *)malloc((size_t)(m + 1) * 8);
  C->ptr[0] = 0;
  for (int64_t i = 0; i < m; i++) C->ptr[i + 1] = C->ptr[i] + (hr.z[i] > 0 ? hr.z[i] : 0);
  C->nnz = C->ptr[m];
  C->ind = (int32_t *)malloc((size_t)(cap + 1) * 4);
  C->values = malloc((size_t)(cap + 1) * sizeof(T));
  memset(C->ind, 0xff, (size_t)(cap + 1) * 4); // poisoned: an entry not written shows
  memset(C->values, 0xff, (size_t)(cap + 1) * sizeof(T));
  stats[0] = novf;
  stats[1] = (int64_t)ctr[2];
  stats[2] = cap;
  stats[3] = C->nnz;
  int bad = 0;
  for (int64_t i = 0; i < m; i++) bad |= hr.z[i] < 0 || (hr.hi[i] > 0 && hr.src[i] == kSrcNone);
  if (bad || ctr[2] != 0 || C->nnz > cap) return 1;
  bufs<T> bb;
  bb.ci[0] = nullptr;
  bb.cv[0] = nullptr;
  bb.ci[1] = ci1.data();
  bb.cv[1] = cv1.data();
  bb.ci[2] = ci2.data();
  bb.cv[2] = cv2.data();
  const unsigned long long guard = 0;
  if (C->nnz > 0)
    gcoo_emu::launch(compact_rows<T>,
                     dim3((unsigned)((cap + kCompactEntries - 1) / kCompactEntries)),
                     dim3(kCompactThreads), 0, (int64_t)0, m, (const int64_t *)C->ptr, rs, bb,
                     &guard, C->ind, (T *)C->values);
  return 0;
}

// The in-place pass as kernels/spgemm/spgemm.cu runs it (bounds, then inplace_rows_kernel on `grid`
// blocks) into C of `cap` entries, poisoned, with 64 poisoned entries past it. stats: [0] hi_max
// as bounds_kernel found it, [1] nnz (C's last row pointer), [2] entries written past cap (must
// be 0), [3] rows whose table filled. Returns 0, or 1 when hi_max > 31 (not a product for it).
template <typename T>
int inplace_product(const gcoo_cuda_csr *A, const gcoo_cuda_csr *B, int64_t cap, unsigned grid,
                    gcoo_cuda_csr *C, int64_t *stats) {
  const int64_t m = A->nrows, n = B->ncols, guard = 64;
  const csr_in in = {A->ptr, A->ind, B->ptr, B->ind};
  host_rows hr(m);
  rows_state rs = hr.state();
  class_stats cs;
  memset(&cs, 0, sizeof cs);
  if (m > 0)
    gcoo_emu::launch(bounds_kernel<4>, dim3((unsigned)((m * 4 + 255) / 256)), dim3(256), 0, in, m,
                     n, rs, &cs);
  stats[0] = (int64_t)cs.hi_max;
  if (cs.hi_max > 31) return 1;
  const int64_t tiles = (m + kInplaceRows - 1) / kInplaceRows;
  std::vector<unsigned long long> ctr(tiles + 2, 0);
  C->dtype = A->dtype;
  C->nrows = m;
  C->ncols = n;
  C->ptr = (int64_t *)malloc((size_t)(m + 1) * 8);
  C->ind = (int32_t *)malloc((size_t)(cap + guard) * 4);
  C->values = malloc((size_t)(cap + guard) * sizeof(T));
  memset(C->ptr, 0xff, (size_t)(m + 1) * 8); // poisoned: a pointer not written shows
  memset(C->ind, 0xff, (size_t)(cap + guard) * 4);
  memset(C->values, 0xff, (size_t)(cap + guard) * sizeof(T));
  if (m == 0) C->ptr[0] = 0;
  inplace_out<T> out =
      {C->ptr, C->ind, (T *)C->values, cap, ctr.data(), ctr.data() + tiles, ctr.data() + tiles + 1};
  if (m > 0)
    gcoo_emu::launch(inplace_rows_kernel<T>, dim3(grid), dim3(kInplaceWarps * 32), 0, in,
                     (const T *)A->values, (const T *)B->values, m, out);
  C->nnz = C->ptr[m];
  int64_t past = 0;
  for (int64_t q = cap; q < cap + guard; q++) past += C->ind[q] != -1;
  stats[1] = C->nnz;
  stats[2] = past;
  stats[3] = (int64_t)ctr[tiles + 1];
  return 0;
}

// The look-back alone, by one warp: the prefix of `tile` over the words already in `tiles`.
__global__ void lookback_probe(unsigned long long *tiles, int64_t tile, unsigned long long total,
                               unsigned long long *prefix) {
  const unsigned long long p = tile_prefix(tiles, tile, total, (int)threadIdx.x);
  if (threadIdx.x == 5) *prefix = p; // every lane has it
}

} // namespace

extern "C" int gcoo_emu_spgemm_inplace(const gcoo_cuda_csr *A, const gcoo_cuda_csr *B, int64_t cap,
                                       unsigned grid, gcoo_cuda_csr *C, int64_t *stats) {
  return A->dtype == GCOO_FLOAT64 ? inplace_product<double>(A, B, cap, grid, C, stats)
                                  : inplace_product<float>(A, B, cap, grid, C, stats);
}

// The look-back of tile `ntiles` (its total `total`) over tiles 0 .. ntiles - 1 holding value k,
// published as a prefix (the sum of tiles 0 .. k, inclusive) where prefix[k], else as the tile's
// total: returns the prefix found, and in *published the word the tile then holds (the sum
// through itself, when it is right).
extern "C" unsigned long long gcoo_emu_spgemm_lookback(const unsigned long long *value,
                                                       const int *prefix, int64_t ntiles,
                                                       unsigned long long total,
                                                       unsigned long long *published) {
  std::vector<unsigned long long> tiles(ntiles + 1);
  for (int64_t k = 0; k < ntiles; k++) tiles[k] = (prefix[k] ? kTilePrefix : kTileTotal) | value[k];
  tiles[ntiles] = kTileEmpty;
  unsigned long long found = ~0ull;
  gcoo_emu::launch(lookback_probe, dim3(1), dim3(32), 0, tiles.data(), ntiles, total, &found);
  *published = (tiles[ntiles] & kTilePrefix) ? tiles[ntiles] & kTileValue : ~0ull;
  return found;
}

extern "C" int gcoo_emu_spgemm_direct(const gcoo_cuda_csr *A, const gcoo_cuda_csr *B, double frac,
                                      int mode, gcoo_cuda_csr *C, int64_t *stats) {
  return A->dtype == GCOO_FLOAT64 ? direct_product<double>(A, B, frac, mode, C, stats)
                                  : direct_product<float>(A, B, frac, mode, C, stats);
}
