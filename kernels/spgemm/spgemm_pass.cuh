// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_pass.cuh: the pieces of gcoo's SpGEMM that spgemm.cu puts in order: the
// device's limits, small copies the host waits for, the side streams of a pass's bins, the
// product's state and buffers, a pass's plan and launch, C's layout from the passes' buffers, the
// recomputation of rows that passed their rooms and the rows of C made from them. Included by
// spgemm.cu alone (templates on the element type, instantiated there).
#ifndef GCOO_KERNELS_SPGEMM_PASS_CUH
#define GCOO_KERNELS_SPGEMM_PASS_CUH

#include <cstdlib>
#include <cstring>

#include <cub/device/device_scan.cuh>

#include "spgemm_common.cuh"
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
  GCOO_GOTO(spg_tmp_malloc(mem, &tmp, (int64_t)bytes));
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
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)ci, p->total_room * 4));
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)cv, p->total_room * (int64_t)sizeof(T)));
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)&out.gkeys, p->total_tab * 4));
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)&out.gvals, p->total_tab * (int64_t)sizeof(T)));
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
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)&P->ci[2], room * 4));
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)&P->cv[2], room * (int64_t)sizeof(T)));
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)&out.gkeys, tab * 4));
  GCOO_GOTO(spg_tmp_malloc(mem, (void **)&out.gvals, tab * (int64_t)sizeof(T)));
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
    GCOO_GOTO(om.alloc((void **)ci, *cap * 4));
    GCOO_GOTO(om.alloc((void **)cv, *cap * (int64_t)sizeof(T)));
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
  om.pooled = (nr + 1) * 8 + cap * (int64_t)(4 + sizeof(T)) <= P->mem.pooled_max;
  GCOO_GOTO(run_pass<T>(P, P->list, p1, 1, P->ovf1, P->ctr + 1, &P->ci[1], &P->cv[1]));
  if (P->direct_recompute) { // plan the listed rows now: the wait below brings the totals
    SPG_CUDA(cudaMemsetAsync(P->ctr + 4, 0, 3 * 8, s));
    relist_kernel<<<kRelistBlocks, 256, 0, s>>>(P->ovf1, P->ctr + 1, P->rs, P->in_csr(),
                                                P->tab_off_rows, P->ctr + 4, P->ctr + 3);
    SPG_LAUNCHED("relist_kernel");
  }
  GCOO_GOTO(om.alloc((void **)&rowptr, (nr + 1) * 8));
  GCOO_GOTO(om.alloc((void **)&ci, cap * 4));
  GCOO_GOTO(om.alloc((void **)&cv, cap * (int64_t)sizeof(T)));
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
      GCOO_GOTO(om.alloc((void **)&ci, cap * 4));
      GCOO_GOTO(om.alloc((void **)&cv, cap * (int64_t)sizeof(T)));
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
  GCOO_GOTO(spg_tmp_malloc(&P->mem, &P->arena, total));
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

} // namespace

#endif
