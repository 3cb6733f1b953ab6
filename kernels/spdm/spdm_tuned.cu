// SPDX-License-Identifier: MIT
// kernels/spdm/spdm_tuned.cu: the tuned GCOOSpDM for Hopper (docs/kernels.md has the design and the
// arithmetic behind it).
//
// Y (m x N) = alpha A X + beta Y, X and Y row-major. A block owns one GCOO group (p rows of A)
// and one tile of TN columns. "Staged" variants walk the group's list of distinct columns of A in
// chunks: each chunk's X rows (TN wide) are read from global memory ONCE into shared memory with
// 16-byte loads, then every thread multiplies its own rows' entries for that chunk against them,
// accumulating in registers. So the X traffic from L2 falls by the group's reuse
// (entries / distinct columns), and the only shared-memory traffic per FMA is one broadcast-free
// 16-byte read per 4 (float) or 2 (double) FMAs. "Direct" variants skip the staging (a CSR-style
// kernel on the same row split) to measure what the staging buys.
//
// Thread layout: 8 consecutive threads form a "slot" and share rows; thread `lane` of a slot owns
// packs lane, lane+8, ... (VPT of them) of the tile, so a quarter-warp reads 128 contiguous bytes
// of one staged row (no bank conflicts) and a slot covers TN = 8 * VPT * 16 bytes of columns.
// A slot owns RPT rows of the group: rows pass + r * slots + slot, r < RPT.
#include <stdint.h>
#include <string.h>

#include "common/cuda_check.h"
#include "common/gcoo_kernels.h"
#include "spdm_common.cuh"

namespace {

template <typename T>
struct TunedArgs {
  const int64_t *rowptr; // A's row pointer
  const int64_t *uptr;   // per group: offsets into ucols
  const int32_t *ucols;  // per group: distinct columns
  const Entry<T> *ent;   // CSR-ordered {value, local column index}
  const int32_t *colind; // CSR columns (direct variants)
  const T *vals;         // CSR values (direct variants)
  // The dense side is spelled out here rather than taken as a DenseOps<T> (spdm_common.cuh) as
  // the other kernels do: nested, it changed nvcc's code for the direct kernel (848 -> 520 SASS
  // instructions at VPT 4) and ran it 13-20 % slower on the H200 (cage11 and delaunay_n16 at
  // N = 512, random 8000-14000 at sparsity 0.999).
  const T *X;
  T *Y;
  int64_t ldx, ldy, m, N, tile0;
  int32_t p, chunk, slots;
  T alpha, beta;
  bool xvec, yvec;
};

// Copy the X rows of chunk entries [0, cn) (global columns ucols[0 .. cn)) into xs: row u of the
// chunk at xs[u * VW ...], VW packs wide, starting at column col0. FU loads are issued before the
// first store so that several are in flight per thread.
template <typename T, int VW>
__device__ __forceinline__ void stage_rows(Pack<T> *xs, const int32_t *__restrict__ ucols, int cn,
                                           const T *__restrict__ X, int64_t ldx, int64_t col0,
                                           int64_t N, bool xvec) {
  constexpr int FU = 4;
  constexpr int VEC = Pack<T>::N;
  const int tid = threadIdx.x, nthreads = blockDim.x;
  const int total = cn * VW;
  for (int base = tid; base < total; base += nthreads * FU) {
    Pack<T> r[FU];
#pragma unroll
    for (int f = 0; f < FU; f++) {
      const int idx = base + f * nthreads;
      if (idx < total) {
        const int u = idx / VW, w = idx % VW;
        r[f] = load_pack(X + (int64_t)ucols[u] * ldx, col0 + (int64_t)w * VEC, N, xvec);
      } else {
        r[f] = pack_zero<T>();
      }
    }
#pragma unroll
    for (int f = 0; f < FU; f++) {
      const int idx = base + f * nthreads;
      if (idx < total) xs[idx] = r[f];
    }
  }
}

template <typename T, int RPT, int VPT>
__global__ void __launch_bounds__(512) staged_kernel(const TunedArgs<T> a) {
  using P = Pack<T>;
  constexpr int VEC = P::N;
  constexpr int VW = 8 * VPT; // packs per staged row = TN / VEC
  GCOO_DYNAMIC_SMEM(P, xs);
  const int tid = threadIdx.x;
  const int slot = tid >> 3, lane = tid & 7;
  const int64_t g = blockIdx.x;
  const int64_t row0 = g * a.p;
  const int pg = (int)(a.m - row0 < a.p ? a.m - row0 : a.p);
  const int64_t col0 = (a.tile0 + blockIdx.y) * (int64_t)(VW * VEC);
  // entries of row i sit at rowptr[i] + i in the layout (each row closed by a sentinel)
  const int64_t gbase = a.rowptr[row0] + row0;
  const int64_t ubase = a.uptr[g];
  const int D = (int)(a.uptr[g + 1] - ubase);
  const Entry<T> *__restrict__ ent = a.ent + gbase;
  const int32_t *__restrict__ ucols = a.ucols + ubase;
  const int rows_per_pass = a.slots * RPT;
  const P *const xlane = xs + lane; // this thread's first pack of staged row 0

  for (int pass = 0; pass < pg; pass += rows_per_pass) {
    // pos[r]: the next unused entry of row r (relative to the group's first); no row end is
    // kept in registers: a sentinel closes every row.
    int pos[RPT];
    P acc[RPT][VPT];
#pragma unroll
    for (int r = 0; r < RPT; r++) {
      const int lr = pass + r * a.slots + slot;
      pos[r] = lr < pg ? (int)(a.rowptr[row0 + lr] + row0 + lr - gbase) : 0;
#pragma unroll
      for (int v = 0; v < VPT; v++) acc[r][v] = pack_zero<T>();
    }

    for (int c0 = 0; c0 < D; c0 += a.chunk) {
      const int cn = a.chunk < D - c0 ? a.chunk : D - c0;
      // each row's next entry, wanted right after the staging: start fetching it now (no row
      // end is needed: a sentinel closes every row)
#pragma unroll
      for (int r = 0; r < RPT; r++)
        if (pass + r * a.slots + slot < pg) prefetch_l1(ent + pos[r]);
      __syncthreads(); // everyone is done reading the previous chunk
      stage_rows<T, VW>(xs, ucols + c0, cn, a.X, a.ldx, col0, a.N, a.xvec);
      __syncthreads(); // the chunk is in shared memory
      const int cend = c0 + cn;
#pragma unroll
      for (int r = 0; r < RPT; r++) {
        // This row's entries with a column in the chunk: they are the next ones of the row (its
        // local indices ascend), so walk until the first one past the chunk. The next entry is
        // loaded before the current one is used, to overlap its latency with the FMAs; the
        // sentinel makes that load always valid and the walk's only test the column's.
        if (pass + r * a.slots + slot >= pg) continue;
        int e = pos[r];
        Entry<T> cur = ent[e];
        while (cur.u < cend) { // the row's sentinel (INT32_MAX) ends the walk at the latest
          const Entry<T> nx = ent[e + 1];
          ++e;
          const P *xr = xlane + (cur.u - c0) * VW;
#pragma unroll
          for (int v = 0; v < VPT; v++) {
            const P x = xr[v * 8];
#pragma unroll
            for (int i = 0; i < VEC; i++) acc[r][v].e[i] += cur.v * x.e[i];
          }
          cur = nx;
        }
        pos[r] = e;
      }
    }

#pragma unroll
    for (int r = 0; r < RPT; r++) {
      const int lr = pass + r * a.slots + slot;
      if (lr < pg) {
        T *yr = a.Y + (row0 + lr) * a.ldy;
#pragma unroll
        for (int v = 0; v < VPT; v++) {
          const int64_t j = col0 + (int64_t)(v * 8 + lane) * VEC;
          if (j < a.N) store_pack(yr, j, a.N, a.yvec, acc[r][v], a.alpha, a.beta);
        }
      }
    }
  }
}

// How the direct kernel reads its tile of an X row: kPacked, one 16-byte load a pack, packs past
// the row's end zero (X allows 16-byte loads and N is a multiple of the pack, so every pack is
// wholly in or out); kScalar, load_pack's element-by-element path (unaligned X or an odd N:
// correctness, not speed, so one entry at a time, which keeps its registers down). Separate
// kernels: inlined side by side, the two paths took the float kernel at 4 vectors a thread from
// 64 to 110 registers (ptxas -v).
enum DirectRead { kPacked, kScalar };

// Whether the direct kernel loads a row's next batch of entries during the current one, capped at
// 80 registers (3 blocks of 256 an SM): where it measured faster on the H200 (double: large-f64
// 5-6 % faster at every N; float at 1 vector a thread, i.e. N = 32: 1-3 %), not at 2 and 4
// vectors a thread in float, where the extra registers cost a block an SM and N = 128 / 512 ran
// 4-5 % slower (bcsstk24 N = 512 0.0272 -> 0.0347 ms).
template <typename T>
constexpr bool direct_prefetch(int vpt) {
  return sizeof(T) == 8 || vpt == 1;
}

// One row of the direct kernel, entries taken 8 at a time. Lane l of the row's slot
// loads entry e + l (column and value: one coalesced read a slot instead of every lane reading
// every entry), the slot passes them round with shuffles, and each lane issues the X loads of U
// entries (U * VPT = 8 packs) before the first FMA that needs them. A loop that reads
// one entry, then its X pack behind load_pack's tail/alignment branch, then does the FMAs has, at
// one vector a thread, one L2 round trip in flight per row (in SASS each LDG.128 followed by its
// FFMAs), so a row of 45 entries costs 45 latencies (bcsstk24 at N = 32: 0.015 ms, CSR_ALG3 0.009).
// Entries past the row's end read X row 0 (valid: k >= 1 whenever A has entries) and are not
// accumulated, so an Inf in X cannot become a NaN through them.
template <typename T, int VPT, int READ, bool PREFETCH>
__device__ __forceinline__ void direct_row(const TunedArgs<T> &a, int64_t row, int64_t col0,
                                           int lane, unsigned slot_mask, Pack<T> (&acc)[VPT]) {
  using P = Pack<T>;
  using V = typename NativeVec<T>::type;
  constexpr int VEC = P::N;
  constexpr int B = 8; // entries a batch: one per lane of the slot
  constexpr int U = READ == kScalar || VPT >= B ? 1 : B / VPT; // entries in flight together
  const int64_t e1 = a.rowptr[row + 1];
  int64_t e = a.rowptr[row];
  int cl = 0; // with PREFETCH: this lane's entry of the coming batch, loaded a batch ahead
  T wl = T(0);
  if (PREFETCH && e + lane < e1) {
    cl = a.colind[e + lane];
    wl = a.vals[e + lane];
  }
  for (; e < e1; e += B) {
    const int n = e1 - e < B ? (int)(e1 - e) : B;
    int cb = 0; // this lane's entry of this batch (column 0, value 0 past the row's end)
    T wb = T(0);
    int cn = 0;
    T wn = T(0);
    if (PREFETCH) {
      cb = cl;
      wb = wl;
      if (e + B + lane < e1) { // the next batch's, in flight with this batch's X loads
        cn = a.colind[e + B + lane];
        wn = a.vals[e + B + lane];
      }
    } else if (lane < n) {
      cb = a.colind[e + lane];
      wb = a.vals[e + lane];
    }
#pragma unroll
    for (int j0 = 0; j0 < B; j0 += U) {
      if (j0 >= n) break; // the same n for the slot's 8 lanes: no divergence inside a slot
      P x[U][VPT];
      T w[U];
#pragma unroll
      for (int u = 0; u < U; u++) {
        const int c = __shfl_sync(slot_mask, cb, j0 + u, 8);
        w[u] = __shfl_sync(slot_mask, wb, j0 + u, 8);
        const T *xr = a.X + (int64_t)c * a.ldx;
#pragma unroll
        for (int v = 0; v < VPT; v++) {
          const int64_t j = col0 + (int64_t)(v * 8 + lane) * VEC;
          if (READ == kScalar) {
            x[u][v] = load_pack(xr, j, a.N, a.xvec);
          } else if (j < a.N) {
            const V q = __ldg(reinterpret_cast<const V *>(xr + j));
            memcpy(&x[u][v], &q, sizeof q);
          } else {
            x[u][v] = pack_zero<T>();
          }
        }
      }
#pragma unroll
      for (int u = 0; u < U; u++)
        if (j0 + u < n) {
#pragma unroll
          for (int v = 0; v < VPT; v++)
#pragma unroll
            for (int i = 0; i < VEC; i++) acc[v].e[i] += w[u] * x[u][v].e[i];
        }
    }
    if (PREFETCH) {
      cl = cn;
      wl = wn;
    }
  }
}

template <typename T, int VPT, int READ>
__global__ void __launch_bounds__(256, direct_prefetch<T>(VPT) ? 3 : 0)
    direct_kernel(const TunedArgs<T> a) {
  using P = Pack<T>;
  constexpr int VEC = P::N;
  const int tid = threadIdx.x;
  const int slot = tid >> 3, lane = tid & 7;
  const unsigned slot_mask = 0xffu << (tid & 24); // the slot's 8 lanes within the warp
  const int64_t row0 = (int64_t)blockIdx.x * a.p;
  const int pg = (int)(a.m - row0 < a.p ? a.m - row0 : a.p);
  const int64_t col0 = (a.tile0 + blockIdx.y) * (int64_t)(8 * VPT * VEC);
  for (int lr = slot; lr < pg; lr += a.slots) {
    const int64_t row = row0 + lr;
    P acc[VPT];
#pragma unroll
    for (int v = 0; v < VPT; v++) acc[v] = pack_zero<T>();
    direct_row<T, VPT, READ, direct_prefetch<T>(VPT)>(a, row, col0, lane, slot_mask, acc);
    T *yr = a.Y + row * a.ldy;
#pragma unroll
    for (int v = 0; v < VPT; v++) {
      const int64_t j = col0 + (int64_t)(v * 8 + lane) * VEC;
      if (j < a.N) store_pack(yr, j, a.N, a.yvec, acc[v], a.alpha, a.beta);
    }
  }
}

// ---- variants ----------------------------------------------------------------------------
struct Variant {
  const char *name;
  int staged, vpt, max_threads;
  int resident; // the X-resident kernel (kernels/spdm/spdm_resident.cu); vpt = its packs per row
  int rowsplit; // the row-split kernel (kernels/spdm/spdm_split.cu); vpt = its packs per lane
  int batch; // the batched kernel (kernels/spdm/spdm_batched.cu): entries a batch; vpt as direct's
  int ordered; // ... with the rows longest first (needs L->row_order)
};
// id 0 = auto: the X-resident kernel when L->prefer_resident, the row-split one when
// L->prefer_split, the direct one in the shape trial's blocks and width at N = L->shape_n or
// (in groups, VPT from N and the grid) when L->prefer_direct, else staged, VPT from N and p, 512
// threads unless that leaves fewer than two blocks per SM (then 256, so that one block's staging
// overlaps another's FMAs). The sweep times the others one by one; the last three are what auto
// resolves to (not listed).
const Variant kVariants[] = {
    // name, staged, vpt, max_threads, resident, rowsplit, batch, ordered
    {"auto", 1, 0, 512, 0, 0, 0, 0},
    {"staged-v1", 1, 1, 512, 0, 0, 0, 0},
    {"staged-v2", 1, 2, 512, 0, 0, 0, 0},
    {"staged-v4", 1, 4, 512, 0, 0, 0, 0},
    {"staged-v1-t256", 1, 1, 256, 0, 0, 0, 0},
    {"staged-v2-t256", 1, 2, 256, 0, 0, 0, 0},
    {"staged-v4-t256", 1, 4, 256, 0, 0, 0, 0},
    {"direct-v1", 0, 1, 256, 0, 0, 0, 0},
    {"direct-v2", 0, 2, 256, 0, 0, 0, 0},
    {"direct-v4", 0, 4, 256, 0, 0, 0, 0},
    {"resident-v1", 0, 1, 0, 1, 0, 0, 0},
    {"resident-v2", 0, 2, 0, 1, 0, 0, 0},
    {"resident-v4", 0, 4, 0, 1, 0, 0, 0},
    {"resident-v8", 0, 8, 0, 1, 0, 0, 0},
    {"split-v1", 0, 1, 0, 0, 1, 0, 0},
    {"split-v2", 0, 2, 0, 0, 1, 0, 0},
    {"split-v4", 0, 4, 0, 0, 1, 0, 0},
    {"batch16-v1", 0, 1, 256, 0, 0, 16, 0},
    {"batch32-v1", 0, 1, 256, 0, 0, 32, 0},
    {"batch16-v2", 0, 2, 256, 0, 0, 16, 0},
    {"batch8-v4", 0, 4, 256, 0, 0, 8, 0},
    {"batch16-v1-ord", 0, 1, 256, 0, 0, 16, 1},
    {"batch32-v1-ord", 0, 1, 256, 0, 0, 32, 1},
    {"direct-auto", 0, 0, 256, 0, 0, 0, 0},
    {"resident-auto", 0, 0, 0, 1, 0, 0, 0},
    {"split-auto", 0, 0, 0, 0, 1, 0, 0},
};
constexpr int kVariantTotal = (int)(sizeof kVariants / sizeof kVariants[0]);
constexpr int kDirectAuto = kVariantTotal - 3;   // the direct kernel, vectors per thread below
constexpr int kResidentAuto = kVariantTotal - 2; // the resident kernel, tile from k and N
constexpr int kSplitAuto = kVariantTotal - 1;    // the row-split kernel, tile from the grid
constexpr int kVariantCount = kVariantTotal - 4;

// Accumulators per thread are RPT * VPT packs; at most 16 packs (64 floats / 32 doubles), so
// RPT <= 16 / VPT. Rows one pass covers: (threads / 8) * RPT.
constexpr int kMaxPacksPerThread = 16;
// Blocks per SM below which the direct kernel narrows its tile (see shape_for).
constexpr int64_t kDirectMinBlocksPerSM = 62;

template <typename T>
using KernelPtr = void (*)(const TunedArgs<T>);

template <typename T, int VPT>
KernelPtr<T> staged_for_rpt(int rpt) {
  switch (rpt) {
    case 1: return staged_kernel<T, 1, VPT>;
    case 2: return staged_kernel<T, 2, VPT>;
    case 4: return staged_kernel<T, 4, VPT>;
    case 8: return VPT <= 2 ? staged_kernel<T, (VPT <= 2 ? 8 : 1), VPT> : nullptr;
    case 16: return VPT == 1 ? staged_kernel<T, (VPT == 1 ? 16 : 1), VPT> : nullptr;
  }
  return nullptr;
}

template <typename T, int READ>
KernelPtr<T> direct_for_vpt(int vpt) {
  return vpt == 1   ? direct_kernel<T, 1, READ>
         : vpt == 2 ? direct_kernel<T, 2, READ>
         : vpt == 4 ? direct_kernel<T, 4, READ>
                    : nullptr;
}

// packed: X allows 16-byte loads and N is a multiple of the pack (the direct kernel's kPacked)
template <typename T>
KernelPtr<T> pick_kernel(int staged, int vpt, int rpt, bool packed) {
  if (!staged) return packed ? direct_for_vpt<T, kPacked>(vpt) : direct_for_vpt<T, kScalar>(vpt);
  switch (vpt) {
    case 1: return staged_for_rpt<T, 1>(rpt);
    case 2: return staged_for_rpt<T, 2>(rpt);
    case 4: return staged_for_rpt<T, 4>(rpt);
  }
  return nullptr;
}

// Largest dynamic shared memory set per kernel so far (cudaFuncSetAttribute is needed above
// 48 KiB; calling it once per new maximum is enough).
template <typename T>
gcoo_status allow_smem(KernelPtr<T> k, size_t bytes) {
  if (bytes <= 48 * 1024) return GCOO_SUCCESS;
  GCOO_CALL_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  return GCOO_SUCCESS;
}

// The block shape of one configuration: packs per thread, rows per thread, threads.
template <typename T>
struct Shape {
  int vpt, rpt, threads, slots, passes;
  KernelPtr<T> k;
};

template <typename T>
Shape<T> shape_for(int staged, int vpt_fixed, int max_threads, int64_t p, int64_t N,
                   int64_t ngroups, int sm_count, bool packed) {
  constexpr int VEC = Pack<T>::N;
  Shape<T> sh;
  const int64_t slots_max = max_threads / 8;
  // Packs along N per thread: from N (enough columns to fill the tile), then fewer so that one
  // pass covers the group and the grid still fills the device.
  int vpt = vpt_fixed;
  if (vpt == 0 && !staged) {
    // The direct kernel: the widest tile (fewest index loads per FMA) that still gives the grid
    // kDirectMinBlocksPerSM blocks per SM. From the H200 sweep (bench/results/h200-spdm-sweep.csv):
    // cage11 (1221 groups) ran best at 1 vector per thread, its 4x4 Kronecker
    // tiling (4884 groups) at 2, the 7-point stencil (31250 groups) at 4; random n = 4000 at 1.
    const int64_t npacks = div_up(N, VEC);
    vpt = 4;
    while (vpt > 1 && ngroups * div_up(npacks, 8 * vpt) < kDirectMinBlocksPerSM * (int64_t)sm_count)
      vpt /= 2;
    // and no wider than N needs (at N = 32 in float, 4 vectors a thread left 3 of them idle)
    while (vpt > 1 && 8 * (vpt / 2) >= npacks) vpt /= 2;
  } else if (vpt == 0) {
    const int64_t npacks = div_up(N, VEC);
    vpt = npacks > 16 ? 4 : npacks > 8 ? 2 : 1;
    while (vpt > 1 && p > slots_max * (kMaxPacksPerThread / vpt)) vpt /= 2;
    while (vpt > 1 && ngroups * div_up(npacks, 8 * vpt) < 2 * (int64_t)sm_count) vpt /= 2;
  }
  int rpt = 1;
  if (staged) {
    const int rpt_max = kMaxPacksPerThread / vpt;
    while (rpt < rpt_max && div_up(p, rpt) > slots_max) rpt *= 2;
  }
  int64_t slots = div_up(p, rpt);
  if (slots > slots_max) slots = slots_max;
  sh.threads = (int)(div_up(slots * 8, 32) * 32);
  sh.slots = sh.threads / 8;
  sh.vpt = vpt;
  sh.rpt = rpt;
  sh.passes = (int)div_up(p, (int64_t)sh.slots * rpt);
  sh.k = pick_kernel<T>(staged, vpt, rpt, packed);
  return sh;
}

template <typename T>
gcoo_status launch_tuned(const gcoo_cuda_tuned *L, int variant, const gcoo_cuda_devinfo *dev,
                         double alpha, const void *X, int64_t ldx, double beta, void *Y,
                         int64_t ldy, int64_t N, cudaStream_t stream, gcoo_cuda_tuned_launch *out) {
  constexpr int VEC = Pack<T>::N;
  if (variant == 0 && L->prefer_resident) variant = kResidentAuto;
  if (variant == 0 && L->prefer_split) variant = kSplitAuto;
  // the shape trial's choice holds at the N it was timed at (kernels/spdm/op_trial.c)
  const bool trial_shape = variant == 0 && L->shape_n > 0 && N == L->shape_n;
  // the direct and batched kernels' 16-byte path needs aligned X rows and N a multiple of the pack
  const bool packed = packed_operand<T>(X, ldx, N);
  if (packed && gcoo_cuda_batched_fits(L->k, ldx, (int)sizeof(T)) &&
      (trial_shape ? L->shape_batch > 0 : kVariants[variant].batch > 0)) {
    const Variant &vb = kVariants[variant];
    GCOO_CALL(trial_shape ? gcoo_cuda_spdm_batched(L, L->shape_batch, L->shape_vpt,
                                                   L->shape_ordered, L->shape_rows, dev, alpha, X,
                                                   ldx, beta, Y, ldy, N, stream, out)
                          : gcoo_cuda_spdm_batched(L, vb.batch, vb.vpt, vb.ordered, 16, dev, alpha,
                                                   X, ldx, beta, Y, ldy, N, stream, out));
    if (out) out->variant = trial_shape ? kDirectAuto : variant;
    return GCOO_SUCCESS;
  }
  if (trial_shape || (variant == 0 && L->prefer_direct)) variant = kDirectAuto;
  const Variant &vs = kVariants[variant];
  if (vs.resident) {
    GCOO_CALL(gcoo_cuda_spdm_resident(L, vs.vpt, dev, alpha, X, ldx, beta, Y, ldy, N, stream, out));
    if (out) out->variant = variant;
    return GCOO_SUCCESS;
  }
  if (vs.rowsplit) {
    GCOO_CALL(gcoo_cuda_spdm_split(L, vs.vpt, dev, alpha, X, ldx, beta, Y, ldy, N, stream, out));
    if (out) out->variant = variant;
    return GCOO_SUCCESS;
  }
  // A block owns a GCOO group (p rows) in the staged kernel; the direct kernel reads the CSR and
  // may take fewer rows a block (the shape trial's: 8-row blocks ran the H200 sweep's short
  // random rows 5-25 % faster, bench/results/h200-spdm-sweep.csv).
  const int64_t p = trial_shape ? L->shape_rows : L->p;
  const int64_t blocks_x = trial_shape ? div_up(L->m, p) : L->ngroups;
  Shape<T> shp = shape_for<T>(vs.staged, trial_shape ? L->shape_vpt : vs.vpt, vs.max_threads, p, N,
                              blocks_x, dev->sm_count, packed);
  GCOO_CHECK(shp.k != nullptr, GCOO_ERR_INTERNAL, "no tuned kernel for variant %d (vpt %d, rpt %d)",
             variant, shp.vpt, shp.rpt);
  int b0 = 0;
  GCOO_CALL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b0, shp.k, shp.threads, 0));
  if (variant == 0 && b0 < 2 && shp.threads > 256) {
    Shape<T> s2 = shape_for<T>(vs.staged, 0, 256, p, N, blocks_x, dev->sm_count, packed);
    int b2 = 0;
    if (s2.k)
      GCOO_CALL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b2, s2.k, s2.threads, 0));
    if (s2.k && b2 >= 2) {
      shp = s2;
      b0 = b2;
    }
  }
  if (b0 < 1) b0 = 1;
  KernelPtr<T> k = shp.k;
  const int threads = shp.threads;
  const int64_t slots = shp.slots;
  const int vpt = shp.vpt;
  gcoo_cuda_tuned_launch sh;
  memset(&sh, 0, sizeof sh);
  sh.variant = variant;
  sh.staged = vs.staged;
  sh.vpt = vpt;
  sh.rpt = shp.rpt;
  sh.threads = threads;
  sh.passes = shp.passes;
  sh.tile_cols = 8 * vpt * VEC;
  sh.block_rows = (int)p;

  // Shared memory: as many staged rows as keep the occupancy the registers allow (b0 blocks per
  // SM), within the opt-in limit, and no more than the longest column list needs.
  const size_t row_bytes = (size_t)8 * vpt * sizeof(Pack<T>);
  size_t smem = 0;
  int chunk = 1;
  if (vs.staged) {
    size_t budget = dev->smem_per_sm / (size_t)b0;
    budget = budget > 2048 ? budget - 1024 : 1024; // the runtime reserves 1 KiB per block
    if (budget > dev->smem_per_block_optin) budget = dev->smem_per_block_optin;
    int64_t c = (int64_t)(budget / row_bytes);
    if (c > L->max_distinct) c = L->max_distinct;
    if (c < 1) c = 1;
    chunk = (int)c;
    smem = (size_t)chunk * row_bytes;
    GCOO_CALL(allow_smem<T>(k, smem));
  }
  sh.chunk = chunk;
  sh.smem = smem;
  int occ = 0;
  GCOO_CALL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, threads, smem));
  sh.blocks_per_sm = occ;
  if (out) *out = sh;

  TunedArgs<T> a;
  a.rowptr = L->rowptr;
  a.uptr = L->uptr;
  a.ucols = L->ucols;
  a.ent = static_cast<const Entry<T> *>(L->entries);
  a.colind = L->colind;
  a.vals = static_cast<const T *>(L->csr_values);
  a.X = static_cast<const T *>(X);
  a.Y = static_cast<T *>(Y);
  a.ldx = ldx;
  a.ldy = ldy;
  a.m = L->m;
  a.N = N;
  a.p = (int32_t)p;
  a.chunk = chunk;
  a.slots = (int32_t)slots;
  a.alpha = (T)alpha;
  a.beta = (T)beta;
  // 16-byte accesses need 16-byte aligned rows: aligned base and leading dimension.
  a.xvec = ((uintptr_t)X % 16 == 0) && (ldx % VEC == 0);
  a.yvec = ((uintptr_t)Y % 16 == 0) && (ldy % VEC == 0);
  const int64_t tiles = div_up(N, sh.tile_cols);
  for (int64_t t0 = 0; t0 < tiles; t0 += 65535) {
    a.tile0 = t0;
    const unsigned ty = (unsigned)(tiles - t0 < 65535 ? tiles - t0 : 65535);
    GCOO_LAUNCH(k, dim3((unsigned)blocks_x, ty), dim3((unsigned)threads), smem, stream, a);
    GCOO_CHECK_LAUNCH("the tuned GCOOSpDM kernel");
  }
  return GCOO_SUCCESS;
}

} // namespace

extern "C" int gcoo_cuda_tuned_variant_count(void) { return kVariantCount; }

extern "C" int gcoo_cuda_tuned_variant_resident(int variant) {
  return variant >= 0 && variant < kVariantTotal && kVariants[variant].resident;
}

extern "C" int gcoo_cuda_tuned_variant_split(int variant) {
  return variant >= 0 && variant < kVariantTotal && kVariants[variant].rowsplit;
}

extern "C" int gcoo_cuda_tuned_variant_ordered(int variant) {
  return variant >= 0 && variant < kVariantTotal && kVariants[variant].ordered;
}

extern "C" const char *gcoo_cuda_tuned_variant_name(int variant) {
  if (variant < 0 || variant >= kVariantTotal) return "unknown";
  return kVariants[variant].name;
}

extern "C" gcoo_status gcoo_cuda_spdm_tuned(const gcoo_cuda_tuned *L, int variant,
                                            const gcoo_cuda_devinfo *dev, double alpha,
                                            const void *X, int64_t ldx, double beta, void *Y,
                                            int64_t ldy, int64_t N, void *stream,
                                            gcoo_cuda_tuned_launch *chosen) {
  GCOO_CHECK(L != NULL && dev != NULL, GCOO_ERR_NULL, "layout or device info is NULL");
  GCOO_CHECK(variant >= 0 && variant <= kVariantCount, GCOO_ERR_INVALID_ARG,
             "tuned variant %d outside 0..%d", variant, kVariantCount);
  GCOO_CHECK(N >= 0 && N <= INT32_MAX, GCOO_ERR_TOO_LARGE, "N = %lld columns", (long long)N);
  GCOO_CHECK(L->max_group_nnz + L->p <= INT32_MAX, GCOO_ERR_TOO_LARGE,
             "a group of %d rows holds %lld entries; the tuned kernel indexes a group with 32 "
             "bits (use a smaller p)",
             L->p, (long long)L->max_group_nnz);
  GCOO_CHECK(L->shape_n <= 0 || (L->shape_rows >= 1 && L->shape_rows <= 32 &&
                                 (L->shape_vpt == 1 || L->shape_vpt == 2 || L->shape_vpt == 4)),
             GCOO_ERR_INVALID_ARG, "direct shape of %d rows a block, %d vectors a thread",
             L->shape_rows, L->shape_vpt);
  GCOO_CHECK(L->shape_n <= 0 || L->shape_batch <= 0 ||
                 (gcoo_cuda_batched_supported(L->shape_batch, L->shape_vpt) &&
                  L->shape_rows <= 16 && (!L->shape_ordered || L->row_order)),
             GCOO_ERR_INVALID_ARG, "batched shape of %d rows a block, batches of %d, %d vectors%s",
             L->shape_rows, L->shape_batch, L->shape_vpt,
             L->shape_ordered && !L->row_order ? ", rows in an order not built" : "");
  return spdm_enter(L->dtype, L->m, L->k, X, ldx, Y, ldy, N, stream, chosen, [&](auto z, auto s) {
    return launch_tuned<decltype(z)>(L, variant, dev, alpha, X, ldx, beta, Y, ldy, N, s, chosen);
  });
}
