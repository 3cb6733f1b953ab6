// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_plan.cuh: the device side of the predictor and of a pass's plan: the
// rows' bounds and class histogram, the sample's rooms, the bins and their rule, and the direct
// recomputation of rows that overflowed their rooms (docs/spgemm.md, docs/predictor.md).
#ifndef GCOO_KERNELS_SPGEMM_PLAN_CUH
#define GCOO_KERNELS_SPGEMM_PLAN_CUH

#include "spgemm_state.cuh"

namespace gcoo_spg {

// ---- the predictor and the plan ---------------------------------------------------------------

// Whether a row of FLOP bound hi needs its column span (rs.cmin, rs.w): it is read only by the
// block bins' dense accumulation and bin choice (bin_of tests w only from kFirstBlockBin on) and
// by the bucket ranks (rows of more than 32 entries). A row of hi <= 32 (room <= hi) always fits
// bin 0 or 1 (bin_of: 64 slots >= hi + 1 and >= 3/2 room) and its z <= 32 entries are ranked by
// counting, so its span is never read: bounds_kernel leaves cmin = w = 0 for it.
__host__ __device__ inline bool bound_needs_span(int64_t hi) { return hi > 32; }

// flop, lo, hi and the column span of rows [0, m), G lanes a row (power-law rows do not
// serialise a thread; the host takes fewer lanes when A's rows are short: 8 lanes left 3 of 8
// idle on the 2-D Laplacian's 5 entries a row); class histogram.
template <int G>
__global__ void __launch_bounds__(256)
    bounds_kernel(csr_in in, int64_t m, int64_t ncols, rows_state rs, class_stats *cs) {
  static_assert(G >= 2 && G <= 32 && 32 % G == 0, "lanes a row");
  __shared__ unsigned long long hr[kClasses], hg[kClasses], sflop, slo, shi, smax;
  if (threadIdx.x < kClasses) hr[threadIdx.x] = hg[threadIdx.x] = 0;
  if (threadIdx.x == 0) sflop = slo = shi = smax = 0;
  __syncthreads();
  const int64_t gt = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, i = gt / G;
  const int g = (int)(gt % G);
  if (gt == 0) rs.z[m] = 0; // z has m + 1 entries: the scans of the sizes read one past the end
  int64_t f = 0, lo = 0;
  const int64_t a0 = i < m ? in.Ap[i] : 0, a1 = i < m ? in.Ap[i + 1] : 0;
  for (int64_t a = a0 + g; a < a1; a += G) {
    const int32_t k = in.Ai[a];
    const int64_t len = in.Bp[k + 1] - in.Bp[k];
    f += len;
    lo = len > lo ? len : lo;
  }
  for (int o = G / 2; o > 0; o >>= 1) { // within the row's lanes
    f += __shfl_xor_sync(kFull, f, o);
    lo = max(lo, (int64_t)__shfl_xor_sync(kFull, lo, o));
  }
  // The row's column span (B's rows are sorted): their first and last columns, a fourth
  // dependent load a product, only where it is read (bound_needs_span; 0.175 ms of the 2-D
  // Laplacian's 1.84 ms went to this kernel with the span loaded for every row, ncu s5). A
  // second walk of the row's A entries: they and the B row pointers are in cache from the first.
  int32_t c0 = INT_MAX, c1 = -1;
  if (bound_needs_span(f < ncols ? f : ncols)) // uniform over the row's lanes (f is reduced)
    for (int64_t a = a0 + g; a < a1; a += G) {
      const int32_t k = in.Ai[a];
      const int64_t b0 = in.Bp[k], b1 = in.Bp[k + 1];
      if (b1 > b0) {
        c0 = min(c0, in.Bi[b0]);
        c1 = max(c1, in.Bi[b1 - 1]);
      }
    }
  for (int o = G / 2; o > 0; o >>= 1) {
    c0 = min(c0, __shfl_xor_sync(kFull, c0, o));
    c1 = max(c1, __shfl_xor_sync(kFull, c1, o));
  }
  unsigned long long tf = 0, tl = 0, th = 0, gap = 0;
  int cls = -1; // the row's class when it has uncertainty (one lane a row)
  if (i < m && g == 0) {
    const int64_t hi = f < ncols ? f : ncols;
    rs.hi[i] = (int32_t)(hi < INT_MAX ? hi : INT_MAX);
    rs.lo[i] = (int32_t)lo;
    rs.cmin[i] = c1 >= c0 ? c0 : 0;
    rs.w[i] = c1 >= c0 ? c1 - c0 + 1 : 0;
    rs.z[i] = hi == lo ? (int32_t)hi : -1;
    rs.src[i] = kSrcNone;
    if (hi > lo) {
      cls = class_of((int32_t)hi);
      gap = (unsigned long long)(hi - lo);
    }
    tf = (unsigned long long)f;
    tl = (unsigned long long)lo;
    th = (unsigned long long)hi;
  }
  // the class histogram, one shared atomic per class present in the warp (usually one or two):
  // an atomic a row on the same address serialised the warp's rows
  for (uint32_t todo = __ballot_sync(kFull, cls >= 0); todo;) {
    const int src = __ffs(todo) - 1, c = __shfl_sync(kFull, cls, src);
    const bool in = cls == c;
    const uint32_t peers = __ballot_sync(kFull, in);
    unsigned long long sg = in ? gap : 0;
    for (int o = 16; o > 0; o >>= 1) sg += __shfl_xor_sync(kFull, sg, o);
    if ((int)(threadIdx.x % 32) == src) {
      atomicAdd(&hr[c], (unsigned long long)__popc(peers));
      atomicAdd(&hg[c], sg);
    }
    todo &= ~peers;
  }
  unsigned long long tm = th;
  for (int o = 16; o > 0; o >>= 1) { // warp sums first: one shared atomic per warp
    tf += __shfl_down_sync(kFull, tf, o);
    tl += __shfl_down_sync(kFull, tl, o);
    th += __shfl_down_sync(kFull, th, o);
    const unsigned long long y = __shfl_down_sync(kFull, tm, o);
    tm = y > tm ? y : tm;
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sflop, tf);
    atomicAdd(&slo, tl);
    atomicAdd(&shi, th);
    atomicMax(&smax, tm);
  }
  __syncthreads();
  if (threadIdx.x < kClasses && hr[threadIdx.x]) {
    atomicAdd(&cs->rows[threadIdx.x], hr[threadIdx.x]);
    atomicAdd(&cs->g[threadIdx.x], hg[threadIdx.x]);
  }
  if (threadIdx.x == 0) {
    atomicAdd(&cs->flop, sflop);
    atomicAdd(&cs->sum_lo, slo);
    atomicAdd(&cs->sum_hi, shi);
    atomicMax(&cs->hi_max, smax);
  }
}

// Whether row i is in the sample (it has uncertainty and its coin falls under its class's
// threshold); then its room is its bound hi (it cannot overflow).
// With bound_max > 0 and sum hi <= bound_max (a small product: bounds_kernel's total, the same
// for every thread), every row of work is in it at its bound: the whole product is computed by
// the sample's pass and cannot overflow (all_at_bound on the host).
__device__ __forceinline__ bool all_at_bound(const class_stats *cs, unsigned long long bound_max) {
  return bound_max > 0 && cs->sum_hi <= bound_max;
}
__device__ __forceinline__ bool sample_room(int64_t i, uint64_t seed, const rows_state &rs,
                                            const class_stats *cs, unsigned long long bound_max) {
  const int32_t hi = rs.hi[i], lo = rs.lo[i];
  if (all_at_bound(cs, bound_max)) {
    if (hi == 0) return false; // z = 0 (bounds_kernel)
    rs.room[i] = hi;
    return true;
  }
  if (hi <= lo) return false;
  const int c = class_of(hi);
  if ((unsigned long long)gcoo__row_coin(seed, i) >= gcoo__class_threshold(cs->rows[c]))
    return false;
  rs.room[i] = hi;
  return true;
}

// The room of row i for the pass over the rows not yet computed: -1 when it takes no part (no
// work: z = 0, or already computed: src != kSrcNone); exact where its size is known (z >= 0),
// else lo + ceil(v (hi - lo)) with its class's v.
// Whether every row of unknown size gets its bound hi as its room: when sum hi is within
// kBoundRoomSlack of the class rooms' total (sum lo + sum_c v_c G_c), bounds cost little more
// memory and no row can overflow (a second plan, pass and scan with two more host waits: 0.1 ms
// of a 0.3-1.3 ms product; adder_dcop_05 and rajat01 have sum hi / nnz of 1.03-1.15). Never with
// safety < 1 (the tests that force overflow). Warp 0 computes it, lane c for class c, reduced in
// a fixed order, so every block of a kernel reaches the same answer; it sets *flag (shared).
constexpr double kBoundRoomSlack = 1.2;
__device__ __forceinline__ void rooms_at_bound(const class_stats *cs, double safety, bool *flag) {
  static_assert(kClasses <= 32, "a lane per class");
  if (threadIdx.x >= 32) return;
  const int c = threadIdx.x;
  double r = 0.0;
  if (c < kClasses && cs->g[c] > 0) {
    const double u = gcoo__class_fraction(cs->s_g[c], cs->s_dz[c]);
    r = gcoo__class_room(u, cs->s_umax[c], safety) * (double)cs->g[c];
  }
  for (int o = 16; o > 0; o >>= 1) r += __shfl_xor_sync(kFull, r, o);
  if (c == 0)
    *flag = safety >= 1.0 && (double)cs->sum_hi <= kBoundRoomSlack * ((double)cs->sum_lo + r);
}

__device__ __forceinline__ int32_t pass_room(int64_t i, double safety, bool at_bound,
                                             const rows_state &rs, const class_stats *cs) {
  const int32_t hi = rs.hi[i];
  if (hi == 0) {
    rs.z[i] = 0;
    return -1;
  }
  if (rs.src[i] != kSrcNone) return -1;
  const int32_t z = rs.z[i];
  int32_t room;
  if (z >= 0) {
    room = z;
  } else if (at_bound) {
    room = hi;
  } else {
    const int c = class_of(hi);
    const double u = gcoo__class_fraction(cs->s_g[c], cs->s_dz[c]);
    room = gcoo__class_rows_room(rs.lo[i], hi, gcoo__class_room(u, cs->s_umax[c], safety));
  }
  rs.room[i] = room;
  return room;
}

// Rooms of rows [r0, r1) (pass_room); they form the list of the pass (batches; the single batch
// takes them in plan_kernel).
__global__ void rooms_kernel(int64_t r0, int64_t r1, double safety, rows_state rs,
                             const class_stats *cs, int32_t *list, unsigned long long *count) {
  __shared__ bool at_bound;
  rooms_at_bound(cs, safety, &at_bound);
  __syncthreads();
  const int64_t i = r0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= r1) return;
  if (pass_room(i, safety, at_bound, rs, cs) >= 0) list[atomicAdd(count, 1ull)] = (int32_t)i;
}

// The prediction of every row (for gcoo__predict_cuda): exact where known, else
// llround(lo + u_c (hi - lo)) as the CPU's CLASSES method; and flop(i).
__global__ void predict_rows_kernel(csr_in in, int64_t m, rows_state rs, const class_stats *cs,
                                    int64_t *row_flop, int64_t *row_nnz) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  int64_t f = 0;
  for (int64_t a = in.Ap[i]; a < in.Ap[i + 1]; a++) f += in.Bp[in.Ai[a] + 1] - in.Bp[in.Ai[a]];
  row_flop[i] = f;
  const int32_t z = rs.z[i], hi = rs.hi[i], lo = rs.lo[i];
  if (z >= 0 || hi <= lo) {
    row_nnz[i] = z >= 0 ? z : hi;
    return;
  }
  const int c = class_of(hi);
  const double u = gcoo__class_fraction(cs->s_g[c], cs->s_dz[c]);
  int64_t v = llround(__dadd_rn((double)lo, __dmul_rn(u, (double)(hi - lo))));
  row_nnz[i] = v < lo ? lo : v > hi ? hi : v;
}

// Rooms of listed rows for a recomputation: exact if known, else the bound; their FLOP is added
// to *flop (what the overflow cost). A warp a row (listed rows are few and often long).
__global__ void reroom_kernel(const int32_t *list, int64_t n, rows_state rs, csr_in in,
                              unsigned long long *flop) {
  const int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (t >= n) return; // whole warps leave together
  const int32_t i = list[t], z = rs.z[i];
  unsigned long long f = 0;
  for (int64_t a = in.Ap[i] + lane; a < in.Ap[i + 1]; a += 32)
    f += (unsigned long long)(in.Bp[in.Ai[a] + 1] - in.Bp[in.Ai[a]]);
  for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(kFull, f, o);
  if (lane == 0) {
    rs.room[i] = z >= 0 ? z : rs.hi[i];
    atomicAdd(flop, f);
  }
}

// ---- bins -------------------------------------------------------------------------------------

constexpr int kNumBins = 11, kGlobalBin = 10, kFirstBlockBin = 5;
// table slots per bin (0: global), threads per row, most keys that can arrive after a row's
// room is passed (so the table still has a free slot)
__host__ __device__ inline int bin_slots(int b) {
  const int t[kNumBins] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 0};
  return t[b];
}
__host__ __device__ inline int bin_threads(int b) {
  const int t[kNumBins] = {32, 32, 32, 32, 32, 128, 256, 512, 1024, 1024, 1024};
  return t[b];
}
// The first bin whose table takes the row: as a hash table, never full (room + margin, or hi,
// plus one free slot) and at most 2/3 loaded at the room; or, a block bin, as a dense
// accumulator of the row's column span w.
// A row whose FLOP bound passes kWarpMaxHi skips the warp bins (a warp would take 64 products
// a lane or more: such rows set a pass's critical path).
// sampled: the pass is the sample's, whose rooms are the rows' bounds hi, not their sizes (a
// size is usually well below it: the 2-D Laplacian's rows have 13 entries for hi = 25), so the
// 2/3-load rule, meant for a predicted size, is not applied in the first bin: a row of hi <= 31
// takes it (its keys always fit, with a free slot). By that rule the Laplacian's sample took
// the 64-slot bin, a warp a row: 95 us for its 45k rows (ncu, H200), against 11 us in the first
// bin for the sample's smaller rows. The passes over the other rows keep the rule.
// rule.dense_reach (GCOO_SPGEMM_DENSE_REACH, default 1): a row hashed in a block bin whose FLOP
// bound is at least 1.5 times its span goes instead to the first of the next dense_reach bins
// whose slots hold the span, to be accumulated densely there: no hashing, probing or ranking,
// for more slots to clear and scan, which pays where many products fall on each slot. Measured
// on the H200 (reach 1 without the FLOP condition): bcsstk33 A A (5184 products over spans of 1792
// columns, medians; 6689 of 8738 rows move from the hashed 1024-slot bin to the dense 2048-slot
// one) 1.19-1.26x faster; rajat01 0.89-0.93x and wiki-Vote 0.91-0.96x slower: their moved rows have
// FLOP bounds of 0.26 and 0.4-1.2 times their spans, and the condition keeps them hashed.
constexpr int32_t kWarpMaxHi = 2048;
struct bin_rule {
  int last_shared; // the largest shared bin for the element type
  int dense_reach;
};
__host__ __device__ inline int bin_of(int32_t hi, int32_t room, int32_t w, bin_rule rule,
                                      bool sampled = false) {
  for (int b = hi > kWarpMaxHi ? kFirstBlockBin : 0; b <= rule.last_shared; b++) {
    const int64_t ts = bin_slots(b), margin = bin_threads(b);
    const int64_t keys = room >= hi ? hi : (room + margin < hi ? room + margin : hi);
    if (ts >= keys + 1 && (2 * ts >= 3 * (int64_t)room || (sampled && b == 0))) {
      if (b >= kFirstBlockBin && w > ts && 2 * (int64_t)hi >= 3 * (int64_t)w)
        for (int d = b + 1; d <= b + rule.dense_reach && d <= rule.last_shared; d++)
          if (w <= bin_slots(d)) return d;
      return b;
    }
    if (b >= kFirstBlockBin && w <= ts) return b;
  }
  return kGlobalBin;
}
__host__ __device__ inline int64_t global_slots(int32_t hi) {
  int bits = 6;
  while (((int64_t)1 << bits) * 2 < 3 * (int64_t)hi) bits++;
  return (int64_t)1 << bits;
}

// ---- the direct recomputation of overflowed rows (GCOO_SPGEMM_RECOMPUTE=direct) -------------

// The rows a pass listed as past their rooms (*d_n of them, known only on the device), planned
// for their recomputation by the global-table block kernel with no host plan: room = the exact
// size where known, else the bound hi; a place in the recomputation's buffer and a global table
// (global_slots(hi)) taken by atomics on the totals; their FLOP added to *flop. A warp a row
// (listed rows are few and often long) over a fixed grid: launched before the host knows
// whether any row overflowed, so the wait that brings nnz and the overflow count brings these
// totals too (the plan of a second pass and its wait are gone).
// rp (zero on entry): [0] total room, [1] total table slots, [2] the listed rows' sizes as the
// scan of the first pass saw them (-1 for an aborted row; a two's complement sum).
__global__ void __launch_bounds__(256)
    relist_kernel(const int32_t *__restrict__ list, const unsigned long long *d_n, rows_state rs,
                  csr_in in, int64_t *tab_off, unsigned long long *rp, unsigned long long *flop) {
  const int64_t n = (int64_t)*d_n, nw = (int64_t)gridDim.x * (blockDim.x / 32);
  const int lane = threadIdx.x % 32;
  for (int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; t < n; t += nw) {
    const int32_t i = list[t], z = rs.z[i], hi = rs.hi[i];
    unsigned long long f = 0;
    for (int64_t a = in.Ap[i] + lane; a < in.Ap[i + 1]; a += 32)
      f += (unsigned long long)(in.Bp[in.Ai[a] + 1] - in.Bp[in.Ai[a]]);
    for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(kFull, f, o);
    if (lane == 0) {
      const int32_t room = z >= 0 ? z : hi;
      rs.room[i] = room;
      rs.off[i] = (int64_t)atomicAdd(&rp[0], (unsigned long long)room);
      tab_off[i] = (int64_t)atomicAdd(&rp[1], (unsigned long long)global_slots(hi));
      atomicAdd(&rp[2], (unsigned long long)(long long)z);
      atomicAdd(flop, f);
    }
  }
}

// The most entries C can have after the direct recomputation: the first scan's total
// (nnz_scanned) less the listed rows' part of it (z_sum, rp[2]) plus their rooms (room_total,
// rp[0]); a recomputed row is at most its room. C is allocated at this bound (an aborted row's
// room is its bound hi), so no further wait is needed before the layout.
__host__ __device__ inline int64_t recompute_cap(int64_t nnz_scanned, unsigned long long room_total,
                                                 unsigned long long z_sum) {
  return nnz_scanned - (int64_t)z_sum + (int64_t)room_total;
}

// Count the warp's rows into cnt[b] (shared) with one atomic per distinct bin in the warp (all
// 32 lanes call it; b < 0: the lane adds nothing). Returns the lane's place among the rows
// counted into b: the atomic's old value plus the lanes before it with the same b. One shared
// atomic a row serialised a block when nearly every row falls into one bin (the 2-D Laplacian).
__device__ __forceinline__ unsigned int warp_count(unsigned int *cnt, int b) {
  const int lane = threadIdx.x % 32;
  const uint32_t peers = __match_any_sync(kFull, b);
  const int leader = __ffs(peers) - 1;
  unsigned int base = 0;
  if (b >= 0 && lane == leader) base = atomicAdd(&cnt[b], (unsigned int)__popc(peers));
  base = __shfl_sync(kFull, base, leader);
  return base + (unsigned int)__popc(peers & ((1u << lane) - 1u));
}

// Plan the first *d_n rows of a list (the grid covers at most nmax): each row's bin, where its
// room starts in the pass's buffer and its global table (if any) starts, counted per bin. The
// places are taken by one atomic per block on the pass's totals (a block's rows get consecutive
// places in list order, the blocks any order: a room only needs to be disjoint from the others).
// With ra.cs set the kernel makes the list itself: thread t takes row t of [0, ra.m), its room
// from pass_room (one launch for the rooms and the plan) or, with ra.sample, from sample_room
// (one launch for the sample's selection and plan), and, when it is in the pass, a place in the
// list (one atomic per block on the list length).
// pc: kNumBins counts, kNumBins cursors (for the scatter), then (list length, total room, total
// table slots), zero on entry.
constexpr int kPlanThreads = 256;
struct rooms_args {
  const class_stats *cs; // NULL: plan the given list
  double safety;
  int64_t m;
  bool sample;   // select the sample (sample_room) instead of the rooms of the rest (pass_room);
                 // with a given list (cs NULL): its rooms are bounds, as the sample's (bin_of)
  uint64_t seed; // the sample's coins
  unsigned long long bound_max; // the sample: every row at its bound when sum hi <= this (> 0)
};
__global__ void __launch_bounds__(kPlanThreads)
    plan_kernel(int32_t *__restrict__ list, const unsigned long long *d_n, rows_state rs,
                bin_rule rule, unsigned long long *pc, int64_t *tab_off, rooms_args ra) {
  constexpr int NW = kPlanThreads / 32;
  __shared__ unsigned int h[kNumBins];
  __shared__ long long wr[NW], wt[NW], wc[NW];
  __shared__ unsigned long long base_r, base_t, base_c;
  const bool make = ra.cs != nullptr;
  const int64_t n = make ? ra.m : (int64_t)*d_n;
  const int64_t t = (int64_t)blockIdx.x * kPlanThreads + threadIdx.x;
  if (t == 0 && !make) pc[2 * kNumBins] = (unsigned long long)n;
  if ((int64_t)blockIdx.x * kPlanThreads >= n) return; // the whole block is past the list
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __shared__ bool at_bound;
  if (make && !ra.sample) rooms_at_bound(ra.cs, ra.safety, &at_bound);
  // the sample's rooms are bounds (bin_of); not when its pass computes the whole product
  const bool sampled = ra.sample && !(make && all_at_bound(ra.cs, ra.bound_max));
  if (threadIdx.x < kNumBins) h[threadIdx.x] = 0;
  __syncthreads();
  long long room = 0, tab = 0;
  int32_t i = -1;
  if (t < n) {
    if (make)
      i = (ra.sample ? sample_room(t, ra.seed, rs, ra.cs, ra.bound_max)
                     : pass_room(t, ra.safety, at_bound, rs, ra.cs) >= 0)
              ? (int32_t)t
              : -1;
    else
      i = list[t];
  }
  int b = -1;
  if (i >= 0) {
    const int32_t hi = rs.hi[i];
    room = rs.room[i];
    b = bin_of(hi, (int32_t)room, rs.w[i], rule, sampled);
    tab = b == kGlobalBin ? global_slots(hi) : 0;
  }
  (void)warp_count(h, b);
  long long r = room, q = tab, c = i >= 0; // inclusive scans over the warp
  for (int o = 1; o < 32; o <<= 1) {
    const long long y = __shfl_up_sync(kFull, r, o), x = __shfl_up_sync(kFull, q, o),
                    u = __shfl_up_sync(kFull, c, o);
    if (lane >= o) {
      r += y;
      q += x;
      c += u;
    }
  }
  if (lane == 31) {
    wr[warp] = r;
    wt[warp] = q;
    wc[warp] = c;
  }
  __syncthreads();
  if (threadIdx.x == 0) { // warp totals to exclusive prefixes; the block's places
    long long sr = 0, st = 0, sc = 0;
    for (int k = 0; k < NW; k++) {
      const long long a = wr[k], b = wt[k], d = wc[k];
      wr[k] = sr;
      wt[k] = st;
      wc[k] = sc;
      sr += a;
      st += b;
      sc += d;
    }
    base_r = atomicAdd(&pc[2 * kNumBins + 1], (unsigned long long)sr);
    base_t = atomicAdd(&pc[2 * kNumBins + 2], (unsigned long long)st);
    base_c = make ? atomicAdd(&pc[2 * kNumBins], (unsigned long long)sc) : 0;
  }
  __syncthreads();
  if (i >= 0) {
    rs.off[i] = (int64_t)base_r + wr[warp] + (r - room);
    tab_off[i] = (int64_t)base_t + wt[warp] + (q - tab);
    if (make) list[base_c + wc[warp] + (c - 1)] = i;
  }
  if (threadIdx.x < kNumBins && h[threadIdx.x])
    atomicAdd(&pc[threadIdx.x], (unsigned long long)h[threadIdx.x]);
}

// Scatter the planned rows into their bins (cursor[b] starts at the bin's first place). The
// block counts its rows per bin in shared memory (warp_count) and takes its places in each bin
// with one global atomic per bin: one global atomic a row serialised on a single counter when
// nearly every row falls into one bin (1.7 ms of the 2-D Laplacian's 4.6 ms product in ncu). The
// order of rows inside a bin does not matter: each row is computed on its own. `sampled` must
// be what plan_kernel gave bin_of (the sample's pass of a product not computed at its bounds).
__global__ void __launch_bounds__(256)
    bin_scatter_kernel(const int32_t *list, int64_t n, rows_state rs, bin_rule rule, bool sampled,
                       unsigned long long *pc, int32_t *binned) {
  __shared__ unsigned int count[kNumBins];
  __shared__ unsigned long long place[kNumBins];
  static_assert(kNumBins <= 256, "one thread per bin takes the block's places");
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < kNumBins) count[threadIdx.x] = 0;
  __syncthreads();
  int b = -1;
  int32_t i = 0;
  if (t < n) {
    i = list[t];
    b = bin_of(rs.hi[i], rs.room[i], rs.w[i], rule, sampled);
  }
  const unsigned int mine = warp_count(count, b);
  __syncthreads();
  if (threadIdx.x < kNumBins && count[threadIdx.x] != 0) {
    unsigned long long start = 0; // the bin's first place: counts of the bins before it
    for (int c = 0; c < (int)threadIdx.x; c++) start += pc[c];
    place[threadIdx.x] = start + atomicAdd(&pc[kNumBins + threadIdx.x],
                                           (unsigned long long)count[threadIdx.x]);
  }
  __syncthreads();
  if (b >= 0) binned[place[b] + mine] = i;
}

} // namespace gcoo_spg

#endif
