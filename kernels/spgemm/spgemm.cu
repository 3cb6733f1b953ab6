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
// there) or, for a small product, at the bounds' total (no sample).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <cub/device/device_scan.cuh>

#include "spgemm_common.cuh"
#include "spgemm_inplace.cuh"
#include "spgemm_kernels.cuh"

#include "params.h"

namespace {

using namespace gcoo_spg;

int device_sm_count() {
  int d = 0, c = 0;
  if (cudaGetDevice(&d) != cudaSuccess ||
      cudaDeviceGetAttribute(&c, cudaDevAttrMultiProcessorCount, d) != cudaSuccess) {
    (void)cudaGetLastError();
    return 132;
  }
  return c > 0 ? c : 132;
}

size_t device_smem_optin() {
  int d = 0, v = 0;
  if (cudaGetDevice(&d) != cudaSuccess ||
      cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, d) != cudaSuccess) {
    (void)cudaGetLastError();
    return 48 * 1024;
  }
  return (size_t)v;
}

// Pinned host memory for the small copies the host waits for (pageable copies cost more).
unsigned long long *staging() {
  static thread_local unsigned long long *buf = nullptr;
  if (!buf && cudaMallocHost((void **)&buf, 8192) != cudaSuccess) {
    (void)cudaGetLastError();
    buf = nullptr;
  }
  return buf;
}

// Small device values the host needs, brought with one wait (8192 bytes together at most).
struct piece {
  void *dst;
  const void *src;
  size_t bytes;
};
cudaError_t fetch_pieces(const piece *pc, int n, cudaStream_t s) {
  unsigned long long *b = staging();
  cudaError_t e = cudaSuccess;
  size_t at = 0;
  for (int k = 0; k < n && e == cudaSuccess; k++) {
    void *d = b ? (void *)((char *)b + at) : pc[k].dst;
    e = cudaMemcpyAsync(d, pc[k].src, pc[k].bytes, cudaMemcpyDeviceToHost, s);
    at += (pc[k].bytes + 7) & ~(size_t)7;
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e == cudaSuccess && b)
    for (int k = 0, o = 0; k < n; o += (int)((pc[k].bytes + 7) & ~(size_t)7), k++)
      memcpy(pc[k].dst, (char *)b + o, pc[k].bytes);
  return e;
}

// Streams the bins of a pass run on concurrently (forked from and joined back into the product's
// stream by events: no host wait), and the product's timing events; made once per thread and
// device and kept (like a library handle), so a call creates none.
constexpr int kSide = 4, kTimingEvents = 5;
struct side_streams {
  cudaStream_t st[kSide];
  cudaEvent_t fork, join[kSide], timing[kTimingEvents];
  bool ok;
};
side_streams *side_for_device() {
  static thread_local side_streams cache[16];
  static thread_local bool tried[16];
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= 16) {
    (void)cudaGetLastError();
    return nullptr;
  }
  side_streams *x = &cache[d];
  if (!tried[d]) {
    tried[d] = true;
    bool ok = cudaEventCreateWithFlags(&x->fork, cudaEventDisableTiming) == cudaSuccess;
    for (int k = 0; k < kSide && ok; k++)
      ok = cudaStreamCreateWithFlags(&x->st[k], cudaStreamNonBlocking) == cudaSuccess &&
           cudaEventCreateWithFlags(&x->join[k], cudaEventDisableTiming) == cudaSuccess;
    for (int k = 0; k < kTimingEvents && ok; k++)
      ok = cudaEventCreate(&x->timing[k]) == cudaSuccess;
    x->ok = ok;
    (void)cudaGetLastError();
  }
  return x->ok ? x : nullptr;
}

template <typename T>
int last_shared_bin() {
  const size_t optin = device_smem_optin();
  int b = 4;
  // the block kernels' static shared memory (chunk scans, counters) is under 8 KiB
  while (b + 1 < kGlobalBin && (size_t)bin_slots(b + 1) * (sizeof(T) + 4) + 8192 <= optin) b++;
  return b;
}

struct add_i64 {
  __host__ __device__ int64_t operator()(int64_t a, int64_t b) const { return a + b; }
};

// out[j] = sum of z[0 .. j) for j <= n (int64; z is read up to z[n], which adds to nothing).
gcoo_status scan_sizes(cudaStream_t s, spg_mem *mem, const int32_t *z, int64_t *out, int64_t n) {
  gcoo_status st = GCOO_SUCCESS;
  void *tmp = nullptr;
  size_t bytes = 0;
  SPG_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, bytes, z, out, add_i64(), (int64_t)0, n + 1, s));
  SPG_CUDA(spg_tmp_malloc(mem, &tmp, (int64_t)bytes));
  SPG_CUDA(cub::DeviceScan::ExclusiveScan(tmp, bytes, z, out, add_i64(), (int64_t)0, n + 1, s));
done:
  spg_tmp_free(mem, tmp, (int64_t)bytes);
  return st;
}

unsigned blocks_for(int64_t n, int per) { return (unsigned)((n + per - 1) / per); }

// C's arrays go to the caller's dC, and the locals that held them are cleared so that the
// clean-up path (which releases whatever they still hold) leaves them alone.
template <typename T>
void hand_over_csr(gcoo_cuda_csr *dC, int64_t **rowptr, int32_t **ci, T **cv, int64_t nnz) {
  dC->ptr = *rowptr;
  dC->ind = *ci;
  dC->values = *cv;
  dC->nnz = nnz;
  *rowptr = nullptr;
  *ci = nullptr;
  *cv = nullptr;
}

// A pass over a list of rows: first planned (bins, room and table offsets; the host learns the
// totals), then run into its own buffer. The passes of a product run one after another, so they
// share one `binned` list and one set of counters (in the product's arena).
struct pass_plan {
  int64_t nmax = 0, n = 0;
  int32_t *binned = nullptr;
  unsigned long long *pc = nullptr; // kNumBins counts, kNumBins cursors, 3 totals (plan_kernel)
  unsigned long long count[kNumBins] = {0};
  int64_t total_room = 0, total_tab = 0;
  bool planned = false;
  bool sampled = false; // the sample's pass, its rooms the bounds (bin_of; as plan_kernel saw it)
};
constexpr int kPlanCounters = 2 * kNumBins + 3;

void plan_free(spg_mem *, pass_plan *p) { *p = pass_plan(); } // its arrays are the product's

// Host CSR being assembled batch by batch.
struct host_csr {
  int64_t *ptr = nullptr;
  int32_t *ind = nullptr;
  void *val = nullptr;
  int64_t nnz = 0, cap = 0;
};

// Everything one product (or prediction) holds on the device.
template <typename T>
struct product {
  cudaStream_t s;
  spg_mem mem;
  side_streams *side;
  const gcoo_cuda_csr *A, *B;
  int64_t m, n;
  bin_rule rule; // the largest shared bin for T, GCOO_SPGEMM_DENSE_REACH (dense_reach())
  int sms;
  rows_state rs;
  int64_t *tab_off_rows = nullptr;
  class_stats *cs = nullptr;
  int32_t *list = nullptr, *ovf1 = nullptr, *ovf2 = nullptr;
  int32_t *plan_binned = nullptr;        // the passes' binned lists (m entries: one pass at a time)
  unsigned long long *plan_pc = nullptr; // and their counters (kPlanCounters)
  void *arena = nullptr;                 // one allocation holds all of the above
  int64_t arena_bytes = 0;
  unsigned long long *ctr = nullptr; // [0] list length, [1] overflows, [2] second overflows,
                                     // [3] FLOP of recomputed rows, [4..6] relist_kernel's totals
  int32_t *ci[3] = {nullptr, nullptr, nullptr};
  T *cv[3] = {nullptr, nullptr, nullptr};
  int64_t buf_len[3] = {0, 0, 0};
  int64_t allocated = 0, overflowed = 0, flop_recomputed = 0;
  bool direct_recompute = false; // GCOO_SPGEMM_RECOMPUTE=direct (recompute_direct())
  bool all_at_bound = false;     // the sample's pass computed every row at its bound
  bool in_place = false;         // every row has hi <= kInplaceMaxHi: the in-place pass takes C
  unsigned long long sum_hi = 0; // sum of the rows' bounds (the sample's plan brings it)
  unsigned long long hi_max = 0; // and the largest
  csr_in in_csr() const { return {A->ptr, A->ind, B->ptr, B->ind}; }
};

// How rows that passed their rooms are recomputed. Default ("plan"): a second pass, planned on
// the host (reroom, plan, one wait, the bins' launches) and a second wait for nnz. With
// GCOO_SPGEMM_RECOMPUTE=direct (a variant until a GPU run measures it, docs/spgemm.md): the
// listed rows are planned on the device while the host waits for nnz anyway (relist_kernel),
// then recomputed by one launch of the global-table block kernel into C allocated at their
// bound: one wait instead of two and one launch instead of a pass's. A developer parameter (the
// benchmark times both in one process, setting it with gcoo_param_set).
bool recompute_direct() { return strcmp(gcoo__param_str(GCOO__P_SPGEMM_RECOMPUTE), "direct") == 0; }

// How many bins past its hash table's a block row of many products per column of its span may go
// to be accumulated densely (bin_of, which says what was measured): GCOO_SPGEMM_DENSE_REACH=N,
// default 1 (0: hashed in its own bin); a developer parameter.
int dense_reach() {
  const int64_t r = gcoo__param_int(GCOO__P_SPGEMM_DENSE_REACH);
  return r < 0 ? 0 : r > 4 ? 4 : (int)r;
}

// A product whose rows all have hi <= kInplaceMaxHi is computed by the in-place pass
// (kernels/spgemm/spgemm_inplace.cuh: rows in order, written straight into C; no rooms, no layout).
constexpr unsigned long long kInplaceMaxHi = 31; // the first bin's 32 slots never fill

// A product whose bounds total at most this many entries (sum hi <= 2^24: 192 MiB of
// double entries) is computed at its bounds, with no sample and no prediction: the sample's pass
// takes every row into a room of hi, so no row can overflow and the product needs two host
// waits instead of three to five (the second plan, the second pass and the recomputation's plan,
// pass and scan go). These are the products whose time is host overhead (add32 0.29 ms, of which
// the sample phase ~0.1 ms and the recomputation of 10 rows 0.09-0.17 ms in a trace);
// the memory is at most 2 sum hi entries, 384 MiB. 2^24 rather than 2^22: wiki-Vote A A^T 1.84x,
// rajat01 1.14-1.16x, cage11 1.06-1.11x, the others the same, peak memory 0.46x of ALG1's in
// geomean instead of 0.41x, total room 1.13x nnz instead of 1.09x (one H200).
// GCOO_SPGEMM_BOUND_ENTRIES=N (a developer parameter, default 2^24) sets the limit (0: never), for
// comparison and for tests of the predictor. Only with safety >= 1 and no memory budget.
unsigned long long bound_entries() {
  const int64_t n = gcoo__param_int(GCOO__P_SPGEMM_BOUND_ENTRIES);
  return n > 0 ? (unsigned long long)n : 0;
}

template <typename T>
void product_init(product<T> *P, cudaStream_t s, const gcoo_cuda_csr *A, const gcoo_cuda_csr *B) {
  P->s = s;
  P->mem.stream = s;
  P->side = side_for_device();
  P->A = A;
  P->B = B;
  P->m = A->nrows;
  P->n = B->ncols;
  P->rule = bin_rule{last_shared_bin<T>(), dense_reach()};
  P->sms = device_sm_count();
  P->direct_recompute = recompute_direct();
}

// Plan the first *d_n (on the device, at most nmax) rows of `list`, whose room[] is set.
// Synchronises the stream once: one wait brings the counts and totals, and `extra` with them.
template <typename T>
gcoo_status plan_pass(product<T> *P, int32_t *list, const unsigned long long *d_n, int64_t nmax,
                      pass_plan *p, const piece *extra, int nextra,
                      rooms_args ra = rooms_args{nullptr, 0.0, 0, false, 0, 0},
                      cudaEvent_t after = nullptr, int64_t *free_bytes = nullptr) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = P->s;
  spg_mem *mem = &P->mem;
  unsigned long long h[kPlanCounters];
  piece pc[4] = {{h, nullptr, sizeof h}};
  GCOO_CHECK_GOTO(nmax <= P->m, GCOO_ERR_INTERNAL, "a pass of %lld rows in a product of %lld",
                  (long long)nmax, (long long)P->m);
  p->nmax = nmax;
  p->binned = P->plan_binned;
  p->pc = P->plan_pc;
  SPG_CUDA(cudaMemsetAsync(p->pc, 0, kPlanCounters * 8, s));
  plan_kernel<<<blocks_for(nmax > 0 ? nmax : 1, kPlanThreads), kPlanThreads, 0,
                s>>>(list, d_n, P->rs, P->rule, p->pc, P->tab_off_rows, ra);
  SPG_LAUNCHED("plan_kernel");
  if (after) SPG_CUDA(cudaEventRecord(after, s));
  if (free_bytes) *free_bytes = gcoo__cuda_free_bytes(); // while the device works (the caller's)
  pc[0].src = p->pc;
  for (int k = 0; k < nextra && k < 3; k++) pc[1 + k] = extra[k];
  SPG_CUDA(fetch_pieces(pc, 1 + (nextra < 3 ? nextra : 3), s));
  memcpy(p->count, h, sizeof p->count);
  p->n = (int64_t)h[2 * kNumBins];
  p->total_room = (int64_t)h[2 * kNumBins + 1];
  p->total_tab = (int64_t)h[2 * kNumBins + 2];
  p->planned = true;
done:
  return st;
}

// The warp bins (G = 32) and the first bin (G lanes a row): group_rows_kernel. Blocks: one
// group per row, capped at `per_sm` blocks an SM (the kernel loops over the rest).
constexpr int kFirstBinLanes = 8;
template <typename T, int TS, int G, int WARPS>
cudaError_t launch_group(cudaStream_t s, csr_in in, const T *Av, const T *Bv, const int32_t *rows,
                         int64_t n, rows_state rs, pass_out<T> out, int sms, int per_sm) {
  constexpr int64_t per_block = (int64_t)WARPS * (32 / G);
  int64_t blocks = (n + per_block - 1) / per_block, cap = (int64_t)sms * per_sm;
  if (blocks > cap) blocks = cap;
  const dim3 grid((unsigned)blocks), block(WARPS * 32);
  if constexpr (TS == 32 && G < 32) // the first bin: a lane per A entry
    group_rows_kernel<T, TS, G, WARPS, true><<<grid, block, 0, s>>>(in, Av, Bv, rows, n, rs, out);
  else
    group_rows_kernel<T, TS, G, WARPS><<<grid, block, 0, s>>>(in, Av, Bv, rows, n, rs, out);
  return cudaGetLastError();
}

template <typename T, int TPB, bool GLOBAL>
cudaError_t launch_block(cudaStream_t s, csr_in in, const T *Av, const T *Bv, const int32_t *rows,
                         int64_t n, int bits, rows_state rs, pass_out<T> out, int sms) {
  auto kernel = block_rows_kernel<T, TPB, GLOBAL>;
  const size_t smem = GLOBAL ? 0 : ((size_t)1 << bits) * (sizeof(T) + 4);
  static size_t opted = 0; // per instantiation (and process); bins of one TPB differ in bits
  if (smem >= 32 * 1024 && smem > opted) { // the static part counts too: opt in before 48 KiB
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem + 1024);
    if (e != cudaSuccess) return e;
    opted = smem;
  }
  int64_t blocks = n, cap = (int64_t)sms * (GLOBAL ? 4 : 16);
  if (blocks > cap) blocks = cap;
  kernel<<<(unsigned)blocks, TPB, smem, s>>>(in, Av, Bv, rows, n, bits, rs, out);
  return cudaGetLastError();
}

// One bin's launch: b's table, threads and accumulator.
template <typename T>
cudaError_t launch_bin(int b, cudaStream_t st, csr_in in, const T *Av, const T *Bv,
                       const int32_t *rows, int64_t nb, rows_state rs, pass_out<T> out, int sms) {
  const int bits = b == kGlobalBin ? 0 : (int)std::log2((double)bin_slots(b));
  switch (b) {
    case 0:
      return launch_group<T, 32, kFirstBinLanes, 8>(st, in, Av, Bv, rows, nb, rs, out, sms, 32);
    case 1: return launch_group<T, 64, 32, 8>(st, in, Av, Bv, rows, nb, rs, out, sms, 64);
    case 2: return launch_group<T, 128, 32, 8>(st, in, Av, Bv, rows, nb, rs, out, sms, 64);
    case 3: return launch_group<T, 256, 32, 4>(st, in, Av, Bv, rows, nb, rs, out, sms, 64);
    case 4: return launch_group<T, 512, 32, 4>(st, in, Av, Bv, rows, nb, rs, out, sms, 64);
    case 5: return launch_block<T, 128, false>(st, in, Av, Bv, rows, nb, bits, rs, out, sms);
    case 6: return launch_block<T, 256, false>(st, in, Av, Bv, rows, nb, bits, rs, out, sms);
    case 7: return launch_block<T, 512, false>(st, in, Av, Bv, rows, nb, bits, rs, out, sms);
    case 8:
    case 9: return launch_block<T, 1024, false>(st, in, Av, Bv, rows, nb, bits, rs, out, sms);
    default: return launch_block<T, 1024, true>(st, in, Av, Bv, rows, nb, 0, rs, out, sms);
  }
}

// Run a planned pass into buffer `buf_id`: *ci/*cv get its buffer (p->total_room entries). The
// bins run concurrently on the side streams, longest rows first; the product's stream waits for
// all of them (events, no host wait). The plan is freed.
template <typename T>
gcoo_status run_pass(product<T> *P, const int32_t *list, pass_plan *p, uint8_t buf_id,
                     int32_t *ovf_rows, unsigned long long *ovf_count, int32_t **ci, T **cv,
                     class_stats *sample_sums = nullptr) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = P->s;
  spg_mem *mem = &P->mem;
  side_streams *side = P->side;
  pass_out<T> out;
  int64_t start[kNumBins + 1];
  int used = 0;
  const csr_in in = P->in_csr();
  const T *Av = (const T *)P->A->values, *Bv = (const T *)P->B->values;
  memset(&out, 0, sizeof out);
  *ci = nullptr;
  *cv = nullptr;
  start[0] = 0;
  for (int b = 0; b < kNumBins; b++) start[b + 1] = start[b] + (int64_t)p->count[b];
  if (p->n == 0) goto done;
  bin_scatter_kernel<<<blocks_for(p->n, 256), 256, 0, s>>>(list, p->n, P->rs, P->rule, p->sampled,
                                                           p->pc, p->binned);
  SPG_LAUNCHED("bin_scatter_kernel");
  SPG_CUDA(spg_tmp_malloc(mem, (void **)ci, p->total_room * 4));
  SPG_CUDA(spg_tmp_malloc(mem, (void **)cv, p->total_room * (int64_t)sizeof(T)));
  SPG_CUDA(spg_tmp_malloc(mem, (void **)&out.gkeys, p->total_tab * 4));
  SPG_CUDA(spg_tmp_malloc(mem, (void **)&out.gvals, p->total_tab * (int64_t)sizeof(T)));
  out.ci = *ci;
  out.cv = *cv;
  out.buf_id = buf_id;
  out.ovf_rows = ovf_rows;
  out.ovf_count = ovf_count;
  out.tab_off = P->tab_off_rows;
  out.cs = sample_sums;
  if (side) SPG_CUDA(cudaEventRecord(side->fork, s));
  for (int b = kNumBins - 1; b >= 0; b--) { // longest rows first: they set the critical path
    const int64_t nb = (int64_t)p->count[b];
    if (nb == 0) continue;
    cudaStream_t bs = s;
    if (side) {
      bs = side->st[used % kSide];
      if (used < kSide) SPG_CUDA(cudaStreamWaitEvent(bs, side->fork, 0));
      used++;
    }
    SPG_CUDA(launch_bin<T>(b, bs, in, Av, Bv, p->binned + start[b], nb, P->rs, out, P->sms));
  }
done:
  for (int k = 0; side && k < kSide && k < used; k++) { // joined even after an error
    if (cudaEventRecord(side->join[k], side->st[k]) != cudaSuccess ||
        cudaStreamWaitEvent(s, side->join[k], 0) != cudaSuccess) {
      (void)cudaGetLastError();
      cudaStreamSynchronize(side->st[k]);
    }
  }
  spg_tmp_free(mem, out.gkeys, p->total_tab * 4);
  spg_tmp_free(mem, out.gvals, p->total_tab * (int64_t)sizeof(T));
  plan_free(mem, p);
  if (st < 0) {
    spg_tmp_free(mem, *ci, 0);
    spg_tmp_free(mem, *cv, 0);
    *ci = nullptr;
    *cv = nullptr;
  }
  return st;
}

template <typename T>
void free_buf(product<T> *P, int b) {
  spg_tmp_free(&P->mem, P->ci[b], P->buf_len[b] * 4);
  spg_tmp_free(&P->mem, P->cv[b], P->buf_len[b] * (int64_t)sizeof(T));
  P->ci[b] = nullptr;
  P->cv[b] = nullptr;
  P->buf_len[b] = 0;
}

// Lay rows [r0, r0 + nr) out as CSR into ci/cv (rowptr set; at most cap entries: the grid), unless
// *guard (an overflow count) is not 0 when the kernel runs.
template <typename T>
gcoo_status lay_out(product<T> *P, int64_t r0, int64_t nr, const int64_t *rowptr,
                    const unsigned long long *guard, int64_t cap, int32_t *ci, T *cv) {
  gcoo_status st = GCOO_SUCCESS;
  bufs<T> b;
  for (int k = 0; k < 3; k++) {
    b.ci[k] = P->ci[k];
    b.cv[k] = P->cv[k];
  }
  if (nr > 0 && cap > 0) {
    compact_rows<T><<<blocks_for(cap, kCompactEntries), kCompactThreads, 0, P->s>>>(r0, nr, rowptr,
                                                                                    P->rs, b, guard,
                                                                                    ci, cv);
    SPG_LAUNCHED("compact_rows");
  }
done:
  return st;
}

// The direct recomputation (GCOO_SPGEMM_RECOMPUTE=direct): relist_kernel has planned the h[1]
// rows of ovf1 (h[4] entries of room, h[5] table slots, h[6] their sizes as scanned); one launch
// of the global-table block kernel computes them into buffer 2 (never past a room: a global
// table is never full and a room is the exact size or the bound), then the sizes are scanned,
// C grows to recompute_cap() if it must (not yet written: the first layout was guarded off) and
// is laid out; one wait brings nnz and the second overflow count (0, or an internal error).
constexpr unsigned kRelistBlocks = 64; // 512 warps walk the list
template <typename T>
gcoo_status recompute_listed(product<T> *P, int64_t r0, int64_t nr, unsigned long long *h,
                             int64_t *nnz, int64_t *cap, const out_mem &om, int64_t *rowptr,
                             int32_t **ci, T **cv) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = P->s;
  spg_mem *mem = &P->mem;
  const int64_t novf = (int64_t)h[1], room = (int64_t)h[4], tab = (int64_t)h[5];
  const int64_t upper = recompute_cap(*nnz, h[4], h[6]);
  pass_out<T> out;
  memset(&out, 0, sizeof out);
  P->overflowed += novf;
  P->allocated += room;
  P->buf_len[2] = room;
  SPG_CUDA(spg_tmp_malloc(mem, (void **)&P->ci[2], room * 4));
  SPG_CUDA(spg_tmp_malloc(mem, (void **)&P->cv[2], room * (int64_t)sizeof(T)));
  SPG_CUDA(spg_tmp_malloc(mem, (void **)&out.gkeys, tab * 4));
  SPG_CUDA(spg_tmp_malloc(mem, (void **)&out.gvals, tab * (int64_t)sizeof(T)));
  out.ci = P->ci[2];
  out.cv = P->cv[2];
  out.buf_id = 2;
  out.ovf_rows = P->ovf2;
  out.ovf_count = P->ctr + 2;
  out.tab_off = P->tab_off_rows;
  SPG_CUDA(
      (launch_block<T, 1024, true>(s, P->in_csr(), (const T *)P->A->values, (const T *)P->B->values,
                                   P->ovf1, novf, 0, P->rs, out, P->sms)));
  GCOO_GOTO(scan_sizes(s, mem, P->rs.z + r0, rowptr, nr));
  if (upper > *cap) {
    om.release(*ci, *cap * 4);
    om.release(*cv, *cap * (int64_t)sizeof(T));
    *ci = nullptr;
    *cv = nullptr;
    *cap = upper;
    SPG_CUDA(om.alloc((void **)ci, *cap * 4));
    SPG_CUDA(om.alloc((void **)cv, *cap * (int64_t)sizeof(T)));
  }
  GCOO_GOTO(lay_out(P, r0, nr, rowptr, P->ctr + 2, *cap, *ci, *cv));
  {
    const piece pc[2] = {{h, P->ctr, 4 * 8}, {nnz, rowptr + nr, 8}};
    SPG_CUDA(fetch_pieces(pc, 2, s));
  }
  GCOO_CHECK_GOTO(h[2] == 0 && *nnz <= *cap, GCOO_ERR_INTERNAL,
                  "%llu directly recomputed rows of C overflowed their rooms (nnz %lld, bound "
                  "%lld)",
                  h[2], (long long)*nnz, (long long)*cap);
done:
  spg_tmp_free(mem, out.gkeys, tab * 4);
  spg_tmp_free(mem, out.gvals, tab * (int64_t)sizeof(T));
  return st;
}

// Rows [r0, r1) whose rooms are set and listed (ctr[0] of them, nmax at most; planned into *p1
// already when p1->planned): compute them, recompute the rows that did not fit, and lay them out
// as CSR (rowptr relative to r0) in arrays allocated with cudaMalloc (the caller's). C is
// allocated before the host knows its size, at the rooms' total (the most it can hold when no row
// overflowed), and laid out at once; the one wait at the end brings nnz and the overflow count.
// Only when rows overflowed are they recomputed and C laid out again (reallocated if it grew).
// Buffers 1 and 2 are freed.
template <typename T>
gcoo_status rows_to_csr(product<T> *P, int64_t r0, int64_t r1, int64_t nmax, pass_plan *p1,
                        int64_t **rowptr_out, int32_t **ci_out, T **cv_out, int64_t *nnz_out,
                        int64_t *cap_out, const piece *extra) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = P->s;
  spg_mem *mem = &P->mem;
  out_mem om = {mem, false};
  pass_plan p2;
  int64_t *rowptr = nullptr;
  int32_t *ci = nullptr;
  T *cv = nullptr;
  const int64_t nr = r1 - r0;
  unsigned long long h[7] = {0, 0, 0, 0, 0, 0, 0};
  int64_t nnz = 0, cap = 0;
  *rowptr_out = nullptr;
  *ci_out = nullptr;
  *cv_out = nullptr;
  if (!p1->planned) {
    SPG_CUDA(cudaMemsetAsync(P->ctr + 1, 0, 2 * 8, s));
    GCOO_GOTO(plan_pass(P, P->list, P->ctr, nmax, p1, nullptr, 0));
  }
  P->allocated += p1->total_room;
  P->buf_len[1] = p1->total_room;
  cap = p1->total_room + P->buf_len[0]; // the sample's rows are in buffer 0 (one batch only)
  om.pooled = (nr + 1) * 8 + cap * (int64_t)(4 + sizeof(T)) <= spg_pooled_output_bytes();
  GCOO_GOTO(run_pass<T>(P, P->list, p1, 1, P->ovf1, P->ctr + 1, &P->ci[1], &P->cv[1]));
  if (P->direct_recompute) { // plan the listed rows now: the wait below brings the totals
    SPG_CUDA(cudaMemsetAsync(P->ctr + 4, 0, 3 * 8, s));
    relist_kernel<<<kRelistBlocks, 256, 0, s>>>(P->ovf1, P->ctr + 1, P->rs, P->in_csr(),
                                                P->tab_off_rows, P->ctr + 4, P->ctr + 3);
    SPG_LAUNCHED("relist_kernel");
  }
  SPG_CUDA(om.alloc((void **)&rowptr, (nr + 1) * 8));
  SPG_CUDA(om.alloc((void **)&ci, cap * 4));
  SPG_CUDA(om.alloc((void **)&cv, cap * (int64_t)sizeof(T)));
  GCOO_GOTO(scan_sizes(s, mem, P->rs.z + r0, rowptr, nr));
  GCOO_GOTO(lay_out(P, r0, nr, rowptr, P->ctr + 1, cap, ci, cv));
  {
    const piece pc[3] = {{h, P->ctr, 7 * 8}, {&nnz, rowptr + nr, 8}, extra ? *extra : piece{}};
    SPG_CUDA(fetch_pieces(pc, extra ? 3 : 2, s));
  }
  if (h[1] > 0 && P->direct_recompute) {
    GCOO_GOTO(recompute_listed(P, r0, nr, h, &nnz, &cap, om, rowptr, &ci, &cv));
  } else if (h[1] > 0) { // rows that did not fit: exact rooms (or their bound), a second buffer
    const int64_t novf = (int64_t)h[1];
    P->overflowed += novf;
    reroom_kernel<<<blocks_for(novf * 32, 256), 256, 0, s>>>(P->ovf1, novf, P->rs, P->in_csr(),
                                                             P->ctr + 3);
    SPG_LAUNCHED("reroom_kernel");
    GCOO_GOTO(plan_pass(P, P->ovf1, P->ctr + 1, novf, &p2, nullptr, 0));
    P->buf_len[2] = p2.total_room;
    GCOO_GOTO(run_pass<T>(P, P->ovf1, &p2, 2, P->ovf2, P->ctr + 2, &P->ci[2], &P->cv[2]));
    GCOO_GOTO(scan_sizes(s, mem, P->rs.z + r0, rowptr, nr));
    {
      const piece pc[2] = {{h, P->ctr, 4 * 8}, {&nnz, rowptr + nr, 8}};
      SPG_CUDA(fetch_pieces(pc, 2, s));
    }
    GCOO_CHECK_GOTO(h[2] == 0, GCOO_ERR_INTERNAL,
                    "%llu recomputed rows of C overflowed their exact rooms", h[2]);
    if (nnz > cap) {
      om.release(ci, cap * 4);
      om.release(cv, cap * (int64_t)sizeof(T));
      ci = nullptr;
      cv = nullptr;
      cap = nnz;
      SPG_CUDA(om.alloc((void **)&ci, cap * 4));
      SPG_CUDA(om.alloc((void **)&cv, cap * (int64_t)sizeof(T)));
    }
    GCOO_GOTO(lay_out(P, r0, nr, rowptr, P->ctr + 2, cap, ci, cv));
  }
  P->flop_recomputed = (int64_t)h[3];
  *rowptr_out = rowptr;
  *ci_out = ci;
  *cv_out = cv;
  *nnz_out = nnz;
  *cap_out = cap;
  rowptr = nullptr;
  ci = nullptr;
  cv = nullptr;
done:
  plan_free(mem, &p2);
  om.release(rowptr, (nr + 1) * 8);
  om.release(ci, cap * 4);
  om.release(cv, cap * (int64_t)sizeof(T));
  free_buf(P, 1);
  free_buf(P, 2);
  return st;
}

// The per-row state, counters and lists of a product (or a prediction), and their release: one
// allocation from the pool, cut into 256-byte aligned parts (one call instead of fifteen: the
// host's calls set the time of the smallest products).
template <typename T>
gcoo_status product_alloc(product<T> *P) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = P->s;
  const int64_t m = P->m;
  const int64_t cs_bytes = (int64_t)sizeof(class_stats) + 8 * 8; // the counters follow the sums
  struct part {
    void **p;
    int64_t bytes;
  } parts[] = {{(void **)&P->rs.hi, m * 4},
               {(void **)&P->rs.lo, m * 4},
               {(void **)&P->rs.room, m * 4},
               {(void **)&P->rs.z, (m + 1) * 4},
               {(void **)&P->rs.off, m * 8},
               {(void **)&P->rs.src, m},
               {(void **)&P->rs.cmin, m * 4},
               {(void **)&P->rs.w, m * 4},
               {(void **)&P->tab_off_rows, m * 8},
               {(void **)&P->cs, cs_bytes},
               {(void **)&P->list, m * 4},
               {(void **)&P->ovf1, m * 4},
               {(void **)&P->ovf2, m * 4},
               {(void **)&P->plan_binned, m * 4},
               {(void **)&P->plan_pc, kPlanCounters * 8}};
  int64_t total = 0;
  for (const part &q : parts) total += (q.bytes + 255) & ~(int64_t)255;
  SPG_CUDA(spg_tmp_malloc(&P->mem, &P->arena, total));
  P->arena_bytes = total;
  {
    char *at = (char *)P->arena;
    for (const part &q : parts) {
      *q.p = at;
      at += (q.bytes + 255) & ~(int64_t)255;
    }
  }
  P->ctr = (unsigned long long *)(P->cs + 1);
  SPG_CUDA(cudaMemsetAsync(P->cs, 0, cs_bytes, s));
done:
  return st;
}

template <typename T>
void product_free(product<T> *P) {
  cudaStreamSynchronize(P->s);
  for (int k = 0; k < 3; k++) free_buf(P, k);
  spg_tmp_free(&P->mem, P->arena, P->arena_bytes);
  P->arena = nullptr;
  P->arena_bytes = 0;
}

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
  SPG_CUDA(spg_tmp_malloc(mem, (void **)&ctr, words * 8));
  for (int round = 0;; round++) {
    om.pooled = (m + 1) * 8 + cap * (int64_t)(4 + sizeof(T)) <= spg_pooled_output_bytes();
    if (!rowptr) {
      om_ptr.pooled = om.pooled;
      SPG_CUDA(om_ptr.alloc((void **)&rowptr, (m + 1) * 8));
    }
    SPG_CUDA(om.alloc((void **)&ci, cap * 4));
    SPG_CUDA(om.alloc((void **)&cv, cap * (int64_t)sizeof(T)));
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
gcoo_status spgemm_gcoo(cudaStream_t s, const gcoo_cuda_csr *A, const gcoo_cuda_csr *B,
                        const gcoo_spgemm_options *o, gcoo_cuda_csr *dC, gcoo_sparse *hC,
                        gcoo_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
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
  P.mem.pool = spg_pool();

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
  spg_pool_trim(s, P.mem.pool);
  if (st < 0) {
    gcoo_cuda_csr_free(dC);
    gcoo_sparse_destroy(hC);
  }
  return st;
}

// The GPU predictor alone (the plan of the distributed SpGEMM): steps 1-3 of a product, the
// per-row predictions and FLOP brought to the host.
template <typename T>
gcoo_status predict_gcoo(cudaStream_t s, const gcoo_cuda_csr *A, const gcoo_cuda_csr *B,
                         const gcoo_predict_options *po, gcoo_prediction *pred) {
  gcoo_status st = GCOO_SUCCESS;
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
  P.mem.pool = spg_pool();
  GCOO_GOTO(product_alloc(&P));
  GCOO_GOTO(sample_phase(&P, po->seed, (cudaEvent_t *)nullptr, 0, false));
  SPG_CUDA(spg_tmp_malloc(&P.mem, (void **)&d_flop, m * 8));
  SPG_CUDA(spg_tmp_malloc(&P.mem, (void **)&d_nnz, m * 8));
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
  spg_pool_trim(s, P.mem.pool);
  if (st < 0) gcoo_prediction_free(pred);
  return st;
}

} // namespace

// SpGEMM's own stream-ordered pool, one per device, keeps what a call freed for the next call (no
// cudaMalloc per call); after each call it is trimmed back to pool_keep() bytes: an eighth of
// the device's memory (17.6 GiB of an H200), so that the next product of a similar size maps no
// new memory (keeping 256 MiB cost the 2-D Laplacian 1.24x and random 400k x 16 1.12-1.14x on an
// H200: its 1.2 GB buffer and C were mapped afresh by every call), and the rest stays free for
// others. GCOO_SPGEMM_POOL_KEEP_MB=N sets it (0: keep nothing). The pool is gcoo's, not the
// device's default pool: an application's own cudaMallocAsync keeps the release policy it set
// (setting the default pool's threshold would change it for everyone in the process). It lives as
// long as the process, as a cached library handle does; where it cannot be created, the default
// pool serves, untouched.
static size_t device_total_bytes() {
  static size_t total[16];
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= 16) {
    (void)cudaGetLastError();
    return 0;
  }
  if (total[d] == 0) {
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) == cudaSuccess)
      total[d] = t;
    else
      (void)cudaGetLastError();
  }
  return total[d];
}
static size_t pool_keep() {
  const int64_t mb = gcoo__param_int(GCOO__P_SPGEMM_POOL_KEEP_MB);
  if (mb >= 0) return (size_t)mb << 20;
  const size_t eighth = device_total_bytes() / 8;
  return eighth > ((size_t)256 << 20) ? eighth : (size_t)256 << 20;
}
// The current device's pool (created at its first use, never released before the trim), or
// nullptr: the default pool.
cudaMemPool_t spg_pool() {
  static std::mutex lock;
  static cudaMemPool_t pools[16];
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= 16) {
    (void)cudaGetLastError();
    return nullptr;
  }
  std::lock_guard<std::mutex> hold(lock);
  if (!pools[d]) {
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = d;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
      uint64_t thr = UINT64_MAX; // released only by spg_pool_trim
      if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr) == cudaSuccess)
        pools[d] = pool;
      else
        (void)cudaMemPoolDestroy(pool);
    }
  }
  (void)cudaGetLastError();
  return pools[d];
}
void spg_pool_trim(cudaStream_t s, cudaMemPool_t pool) {
  cudaStreamSynchronize(s);
  if (pool) cudaMemPoolTrimTo(pool, pool_keep());
  (void)cudaGetLastError();
}

int64_t spg_pooled_output_bytes() { return (int64_t)(pool_keep() / 4); }

extern "C" {

int64_t gcoo__cuda_free_bytes(void) {
  size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return (int64_t)f;
}

// A host CSR on the device; with_values false uploads the pattern only and zeroes the values
// (the predictor needs only the pattern: a third less to copy).
static gcoo_status upload_csr(const gcoo_csr_view *h, gcoo_cuda_csr *d, cudaStream_t s,
                              bool with_values) {
  gcoo_status st = GCOO_SUCCESS;
  const size_t es = gcoo_dtype_size(h->dtype);
  memset(d, 0, sizeof *d);
  d->dtype = h->dtype;
  d->nrows = h->nrows;
  d->ncols = h->ncols;
  d->nnz = h->nnz;
  SPG_CUDA(cudaMalloc((void **)&d->ptr, (size_t)(h->nrows + 1) * 8));
  SPG_CUDA(cudaMalloc((void **)&d->ind, (size_t)(h->nnz ? h->nnz : 1) * 4));
  SPG_CUDA(cudaMalloc(&d->values, (size_t)(h->nnz ? h->nnz : 1) * es));
  SPG_CUDA(cudaMemcpyAsync(d->ptr, h->ptr, (size_t)(h->nrows + 1) * 8, cudaMemcpyHostToDevice, s));
  if (h->nnz) {
    SPG_CUDA(cudaMemcpyAsync(d->ind, h->ind, (size_t)h->nnz * 4, cudaMemcpyHostToDevice, s));
    if (with_values)
      SPG_CUDA(
          cudaMemcpyAsync(d->values, h->values, (size_t)h->nnz * es, cudaMemcpyHostToDevice, s));
    else
      SPG_CUDA(cudaMemsetAsync(d->values, 0, (size_t)h->nnz * es, s));
  }
  SPG_CUDA(cudaStreamSynchronize(s));
done:
  if (st < 0) gcoo_cuda_csr_free(d);
  return st;
}

gcoo_status gcoo__dev_csr_upload(const gcoo_csr_view *h, gcoo_cuda_csr *d, void *stream) {
  return upload_csr(h, d, (cudaStream_t)stream, true);
}

gcoo_status gcoo__dev_csr_download(const gcoo_cuda_csr *d, gcoo_sparse *h, void *stream) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)stream;
  const size_t es = gcoo_dtype_size(d->dtype);
  int64_t *ptr = nullptr;
  int32_t *ind = nullptr;
  void *val = nullptr;
  *h = nullptr;
  GCOO_GOTO(gcoo__malloc_n((void **)&ptr, d->nrows + 1, 8, "C row pointers"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ind, d->nnz, 4, "C column indices"));
  GCOO_GOTO(gcoo__malloc_n(&val, d->nnz, es, "C values"));
  if (d->ptr) {
    SPG_CUDA(cudaMemcpyAsync(ptr, d->ptr, (size_t)(d->nrows + 1) * 8, cudaMemcpyDeviceToHost, s));
  } else {
    memset(ptr, 0, (size_t)(d->nrows + 1) * 8);
  }
  if (d->nnz) {
    SPG_CUDA(cudaMemcpyAsync(ind, d->ind, (size_t)d->nnz * 4, cudaMemcpyDeviceToHost, s));
    SPG_CUDA(cudaMemcpyAsync(val, d->values, (size_t)d->nnz * es, cudaMemcpyDeviceToHost, s));
  }
  SPG_CUDA(cudaStreamSynchronize(s));
  st = gcoo__sparse_adopt(h, GCOO_FORMAT_CSR, d->dtype, d->nrows, d->ncols, d->nnz, 0, ptr, ind,
                          nullptr, nullptr, nullptr, val);
  ptr = nullptr;
  ind = nullptr;
  val = nullptr;
done:
  free(ptr);
  free(ind);
  free(val);
  return st;
}

gcoo_status gcoo__cuda_spgemm_gcoo(void *stream, const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB,
                                   const gcoo_spgemm_options *opts, gcoo_cuda_csr *dC,
                                   gcoo_sparse *hC, gcoo_spgemm_info *info) {
  GCOO_CHECK(dA->ncols == dB->nrows, GCOO_ERR_SHAPE,
             "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
             (long long)dA->nrows, (long long)dA->ncols, (long long)dB->nrows,
             (long long)dB->ncols);
  GCOO_CHECK(dA->dtype == dB->dtype, GCOO_ERR_DTYPE, "C = A B: A and B have different types");
  cudaStream_t s = (cudaStream_t)stream;
  if (dA->dtype == GCOO_FLOAT64)
    GCOO_CALL(spgemm_gcoo<double>(s, dA, dB, opts, dC, hC, info));
  else
    GCOO_CALL(spgemm_gcoo<float>(s, dA, dB, opts, dC, hC, info));
  return GCOO_SUCCESS;
}

// The library's entry (gcoo_spgemm on a CUDA context): host objects in and out.
gcoo_status gcoo__spgemm_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                              const gcoo_spgemm_options *opts, gcoo_sparse *C,
                              gcoo_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse Ac = nullptr, Bc = nullptr, hC = nullptr;
  gcoo_sparse_info ai, bi;
  gcoo_csr_view va, vb;
  gcoo_cuda_csr dA, dB, dC;
  gcoo_spgemm_info local;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  const double t0 = gcoo__wtime();
  memset(&dA, 0, sizeof dA);
  memset(&dB, 0, sizeof dB);
  memset(&dC, 0, sizeof dC);
  memset(&local, 0, sizeof local);
  *C = nullptr;
  if (ctx->device >= 0) SPG_CUDA(cudaSetDevice(ctx->device));
  GCOO_GOTO(gcoo_sparse_get_info(A, &ai));
  GCOO_GOTO(gcoo_sparse_get_info(B, &bi));
  GCOO_CHECK_GOTO(ai.ncols == bi.nrows, GCOO_ERR_SHAPE,
                  "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
                  (long long)ai.nrows, (long long)ai.ncols, (long long)bi.nrows,
                  (long long)bi.ncols);
  GCOO_CHECK_GOTO(ai.dtype == bi.dtype, GCOO_ERR_DTYPE,
                  "C = A B: A is %s, B is %s (convert one with gcoo_sparse_astype)",
                  ai.dtype == GCOO_FLOAT64 ? "double" : "float",
                  bi.dtype == GCOO_FLOAT64 ? "double" : "float");
  if (ai.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Ac, A, GCOO_FORMAT_CSR, 0));
  if (bi.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Bc, B, GCOO_FORMAT_CSR, 0));
  GCOO_GOTO(gcoo__sparse_csr_view(Ac ? Ac : A, &va));
  GCOO_GOTO(gcoo__sparse_csr_view(Bc ? Bc : B, &vb));
  GCOO_GOTO(gcoo__dev_csr_upload(&va, &dA, s));
  GCOO_GOTO(gcoo__dev_csr_upload(&vb, &dB, s));
  if (opts->alg == GCOO_SPGEMM_AUTO || opts->alg == GCOO_SPGEMM_GCOO) {
    GCOO_GOTO(gcoo__cuda_spgemm_gcoo(s, &dA, &dB, opts, &dC, &hC, &local));
  } else {
    GCOO_GOTO(
        gcoo__cuda_spgemm_cusparse(s, opts->alg, &dA, &dB, opts->chunk_fraction, &dC, &local));
  }
  if (hC) {
    *C = hC;
    hC = nullptr;
  } else {
    GCOO_GOTO(gcoo__dev_csr_download(&dC, C, s));
  }
  local.seconds_total = gcoo__wtime() - t0;
  if (info) *info = local;
done:
  gcoo_cuda_csr_free(&dA);
  gcoo_cuda_csr_free(&dB);
  gcoo_cuda_csr_free(&dC);
  gcoo_sparse_destroy(&hC);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  return st;
}

// The predictor on a CUDA context (host operands, host prediction; method CLASSES).
gcoo_status gcoo__predict_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                               const gcoo_predict_options *opts, gcoo_prediction *pred) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse Ac = nullptr, Bc = nullptr, Bt = nullptr;
  gcoo_sparse_info ai, bi;
  gcoo_csr_view va, vb;
  gcoo_cuda_csr dA, dB;
  gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  memset(&dA, 0, sizeof dA);
  memset(&dB, 0, sizeof dB);
  if (opts) o = *opts;
  if (ctx->device >= 0) SPG_CUDA(cudaSetDevice(ctx->device));
  GCOO_GOTO(gcoo_sparse_get_info(A, &ai));
  GCOO_GOTO(gcoo_sparse_get_info(B, &bi));
  GCOO_CHECK_GOTO(ai.ncols == bi.nrows, GCOO_ERR_SHAPE,
                  "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
                  (long long)ai.nrows, (long long)ai.ncols, (long long)bi.nrows,
                  (long long)bi.ncols);
  if (ai.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Ac, A, GCOO_FORMAT_CSR, 0));
  if (bi.dtype != ai.dtype) { /* only the pattern matters: one element type on the device */
    GCOO_GOTO(gcoo_sparse_astype(&Bt, B, ai.dtype));
    B = Bt;
    GCOO_GOTO(gcoo_sparse_get_info(B, &bi));
  }
  if (bi.format != GCOO_FORMAT_CSR) GCOO_GOTO(gcoo_sparse_convert(&Bc, B, GCOO_FORMAT_CSR, 0));
  GCOO_GOTO(gcoo__sparse_csr_view(Ac ? Ac : A, &va));
  GCOO_GOTO(gcoo__sparse_csr_view(Bc ? Bc : B, &vb));
  GCOO_GOTO(upload_csr(&va, &dA, s, false));
  GCOO_GOTO(upload_csr(&vb, &dB, s, false));
  if (ai.dtype == GCOO_FLOAT64)
    GCOO_GOTO(predict_gcoo<double>(s, &dA, &dB, &o, pred));
  else
    GCOO_GOTO(predict_gcoo<float>(s, &dA, &dB, &o, pred));
done:
  gcoo_cuda_csr_free(&dA);
  gcoo_cuda_csr_free(&dB);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  gcoo_sparse_destroy(&Bt);
  return st;
}

} // extern "C"
