// SPDX-License-Identifier: MIT
// kernels/spgemm.cu: gcoo's GPU SpGEMM C = A B with the output preallocated from the prediction.
//
//  1. Prediction on the host threads (gcoo_predict, default method): FLOP and predicted size of
//     every row. Row i gets room cap(i) = min(hi(i), ceil(safety x predicted(i))), hi(i) =
//     min(flop(i), n) being a bound no row can pass.
//  2. Rows are binned by hi(i) (the table a row needs): five shared-memory bins (tables of 64 ..
//     16384 slots, a warp or a block per row) and a global-memory bin for longer rows, and
//     batched in row order so that each batch's buffers fit the memory budget.
//  3. Per batch: one kernel launch per bin computes its rows (kernels/spgemm_kernels.cuh); a
//     row larger than its room is not written but listed. The listed rows, whose sizes are now
//     known, are recomputed into a second buffer of exactly their size. Then the rows are laid
//     out as CSR (CUB exclusive scan of the row sizes, a warp per row copies).
//  4. One batch: C stays on the device. Several: each batch goes to the host as it completes,
//     so the device never holds more than a batch of C.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <cub/device/device_scan.cuh>

#include "spgemm_common.cuh"
#include "spgemm_kernels.cuh"

namespace {

struct bin_cfg {
  int bits;   // log2 slots per row (shared bins)
  int group;  // threads per row
  int tpb;    // threads per block
};
// Shared bins: a row goes to the first whose table has >= 2 hi(i) slots (load <= 1/2).
constexpr bin_cfg kBins[] = {{6, 32, 256}, {8, 32, 128}, {10, 128, 128}, {12, 256, 256},
                             {14, 512, 512}};
constexpr int kNumShared = 5, kGlobalBin = 5, kNumBins = 6;
constexpr int kGlobalTpb = 512;

int bin_of(int64_t hi) {
  for (int b = 0; b < kNumShared; b++)
    if (2 * hi <= ((int64_t)1 << kBins[b].bits)) return b;
  return kGlobalBin;
}

int table_bits(int64_t hi) {
  int bits = 6;
  while (((int64_t)1 << bits) < 2 * hi) bits++;
  return bits;
}

template <typename T>
size_t shared_bytes(int b) {
  if (b == kGlobalBin) return sizeof(int);
  const int rpb = kBins[b].tpb / kBins[b].group;
  return (size_t)rpb * ((size_t)1 << kBins[b].bits) * (sizeof(T) + sizeof(int32_t)) +
         (size_t)rpb * sizeof(int);
}

template <typename T, int GROUP, int TPB, bool GLOBAL>
cudaError_t launch_one(cudaStream_t s, const gcoo_dev_csr *A, const gcoo_dev_csr *B,
                       gcoo_spg::row_job job, int bits, gcoo_spg::row_out<T> out, size_t smem) {
  auto kernel = gcoo_spg::spgemm_rows_kernel<T, GROUP, TPB, GLOBAL>;
  if (smem > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
  }
  const int64_t rpb = TPB / GROUP, blocks = (job.n + rpb - 1) / rpb;
  kernel<<<(unsigned)blocks, TPB, smem, s>>>(A->ptr, A->ind, (const T *)A->val, B->ptr, B->ind,
                                             (const T *)B->val, job, bits, out);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_bin(cudaStream_t s, int b, const gcoo_dev_csr *A, const gcoo_dev_csr *B,
                       gcoo_spg::row_job job, gcoo_spg::row_out<T> out) {
  if (job.n == 0) return cudaSuccess;
  const size_t smem = shared_bytes<T>(b);
  switch (b) {
    case 0: return launch_one<T, 32, 256, false>(s, A, B, job, kBins[0].bits, out, smem);
    case 1: return launch_one<T, 32, 128, false>(s, A, B, job, kBins[1].bits, out, smem);
    case 2: return launch_one<T, 128, 128, false>(s, A, B, job, kBins[2].bits, out, smem);
    case 3: return launch_one<T, 256, 256, false>(s, A, B, job, kBins[3].bits, out, smem);
    case 4: return launch_one<T, 512, 512, false>(s, A, B, job, kBins[4].bits, out, smem);
    default: return launch_one<T, kGlobalTpb, kGlobalTpb, true>(s, A, B, job, 0, out, smem);
  }
}

// Host plan of one pass over a set of rows: per bin, the rows with their room and tables.
struct pass_plan {
  int64_t n = 0;                  // rows in the pass
  int32_t *rows = nullptr;        // by bin, then row order
  int64_t *off = nullptr, *cap = nullptr, *tab_off = nullptr;
  int8_t *tab_bits = nullptr;
  int64_t bin_begin[kNumBins + 1] = {0};
  int64_t out_entries = 0;        // sum of cap
  int64_t table_slots = 0;        // global scratch slots
};

void plan_free(pass_plan *p) {
  free(p->rows);
  free(p->off);
  free(p->cap);
  free(p->tab_off);
  free(p->tab_bits);
  *p = pass_plan();
}

// Plan rows `list[0..n)` (global ids) with rooms `room[t]`; hi[] by row.
gcoo_status plan_rows(const int32_t *list, const int64_t *room, int64_t n, const int64_t *hi,
                      pass_plan *p) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t count[kNumBins] = {0};
  GCOO_GOTO(gcoo__malloc_n((void **)&p->rows, n, sizeof *p->rows, "SpGEMM row list"));
  GCOO_GOTO(gcoo__malloc_n((void **)&p->off, n, sizeof *p->off, "SpGEMM row offsets"));
  GCOO_GOTO(gcoo__malloc_n((void **)&p->cap, n, sizeof *p->cap, "SpGEMM row rooms"));
  GCOO_GOTO(gcoo__malloc_n((void **)&p->tab_off, n, sizeof *p->tab_off, "SpGEMM table offsets"));
  GCOO_GOTO(gcoo__malloc_n((void **)&p->tab_bits, n, sizeof *p->tab_bits, "SpGEMM table sizes"));
  for (int64_t t = 0; t < n; t++) count[bin_of(hi[list[t]])]++;
  p->bin_begin[0] = 0;
  for (int b = 0; b < kNumBins; b++) p->bin_begin[b + 1] = p->bin_begin[b] + count[b];
  {
    int64_t at[kNumBins];
    for (int b = 0; b < kNumBins; b++) at[b] = p->bin_begin[b];
    for (int64_t t = 0; t < n; t++) {
      const int32_t i = list[t];
      const int b = bin_of(hi[i]);
      const int64_t q = at[b]++;
      p->rows[q] = i;
      p->cap[q] = room[t];
      p->off[q] = p->out_entries;
      p->out_entries += room[t];
      p->tab_bits[q] = (int8_t)(b == kGlobalBin ? table_bits(hi[i]) : 0);
      p->tab_off[q] = p->table_slots;
      if (b == kGlobalBin) p->table_slots += (int64_t)1 << p->tab_bits[q];
    }
  }
  p->n = n;
done:
  if (st < 0) plan_free(p);
  return st;
}

// Device copy of a plan, and the launches of one pass.
template <typename T>
gcoo_status run_pass(cudaStream_t s, spg_mem *mem, const gcoo_dev_csr *A, const gcoo_dev_csr *B,
                     const pass_plan *p, gcoo_spg::row_out<T> out, int32_t **ci, T **cv) {
  gcoo_status st = GCOO_SUCCESS;
  int32_t *d_rows = nullptr;
  int64_t *d_off = nullptr, *d_cap = nullptr, *d_toff = nullptr;
  int8_t *d_tbits = nullptr;
  const int64_t n = p->n;
  *ci = nullptr;
  *cv = nullptr;
  out.gkeys = nullptr;
  out.gvals = nullptr;
  SPG_CUDA(spg_malloc(mem, (void **)&d_rows, n * 4));
  SPG_CUDA(spg_malloc(mem, (void **)&d_off, n * 8));
  SPG_CUDA(spg_malloc(mem, (void **)&d_cap, n * 8));
  SPG_CUDA(spg_malloc(mem, (void **)&d_toff, n * 8));
  SPG_CUDA(spg_malloc(mem, (void **)&d_tbits, n));
  SPG_CUDA(spg_malloc(mem, (void **)ci, p->out_entries * (int64_t)sizeof(int32_t)));
  SPG_CUDA(spg_malloc(mem, (void **)cv, p->out_entries * (int64_t)sizeof(T)));
  SPG_CUDA(spg_malloc(mem, (void **)&out.gkeys, p->table_slots * (int64_t)sizeof(int32_t)));
  SPG_CUDA(spg_malloc(mem, (void **)&out.gvals, p->table_slots * (int64_t)sizeof(T)));
  if (n) {
    SPG_CUDA(cudaMemcpyAsync(d_rows, p->rows, n * 4, cudaMemcpyHostToDevice, s));
    SPG_CUDA(cudaMemcpyAsync(d_off, p->off, n * 8, cudaMemcpyHostToDevice, s));
    SPG_CUDA(cudaMemcpyAsync(d_cap, p->cap, n * 8, cudaMemcpyHostToDevice, s));
    SPG_CUDA(cudaMemcpyAsync(d_toff, p->tab_off, n * 8, cudaMemcpyHostToDevice, s));
    SPG_CUDA(cudaMemcpyAsync(d_tbits, p->tab_bits, n, cudaMemcpyHostToDevice, s));
  }
  out.ci = *ci;
  out.cv = *cv;
  for (int b = 0; b < kNumBins; b++) {
    const int64_t b0 = p->bin_begin[b], nb = p->bin_begin[b + 1] - b0;
    gcoo_spg::row_job job = {d_rows + b0, d_off + b0, d_cap + b0, d_toff + b0, d_tbits + b0, nb};
    SPG_CUDA(launch_bin<T>(s, b, A, B, job, out));
  }
  // the plan's arrays and the tables are needed until the kernels finish
  SPG_CUDA(cudaStreamSynchronize(s));
done:
  spg_free(mem, d_rows, n * 4);
  spg_free(mem, d_off, n * 8);
  spg_free(mem, d_cap, n * 8);
  spg_free(mem, d_toff, n * 8);
  spg_free(mem, d_tbits, n);
  spg_free(mem, out.gkeys, p->table_slots * (int64_t)sizeof(int32_t));
  spg_free(mem, out.gvals, p->table_slots * (int64_t)sizeof(T));
  if (st < 0) {
    spg_free(mem, *ci, p->out_entries * (int64_t)sizeof(int32_t));
    spg_free(mem, *cv, p->out_entries * (int64_t)sizeof(T));
    *ci = nullptr;
    *cv = nullptr;
  }
  return st;
}

// Host CSR being assembled batch by batch.
struct host_csr {
  int64_t *ptr = nullptr;
  int32_t *ind = nullptr;
  void *val = nullptr;
  int64_t nnz = 0, cap = 0;
};

template <typename T>
gcoo_status spgemm_gcoo(cudaStream_t s, gcoo_sparse hA, gcoo_sparse hB, const gcoo_dev_csr *A,
                        const gcoo_dev_csr *B, const gcoo_spgemm_options *o, gcoo_dev_csr *dC,
                        gcoo_sparse *hC, gcoo_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  spg_mem mem;
  gcoo_prediction pred;
  const int64_t m = A->nrows, n = B->ncols, E = (int64_t)(sizeof(int32_t) + sizeof(T));
  int64_t *hi = nullptr, *room = nullptr, *batch_end = nullptr, *rn_host = nullptr;
  int32_t *list = nullptr, *ovf_host = nullptr;
  int64_t *row_nnz = nullptr, *src_off = nullptr, *cnt = nullptr, *rowptr = nullptr;
  uint8_t *src_buf = nullptr;
  int32_t *ovf_rows = nullptr, *ci0 = nullptr, *ci1 = nullptr, *ci = nullptr;
  T *cv0 = nullptr, *cv1 = nullptr, *cv = nullptr;
  unsigned long long *ovf_count = nullptr;
  void *scan_tmp = nullptr;
  size_t scan_bytes = 0;
  pass_plan p0, p1;
  host_csr H;
  int64_t nbatches = 0, allocated = 0, overflowed = 0, nnz_total = 0, nlast = 0;
  int64_t out0 = 0, out1 = 0;
  const double t0 = gcoo__wtime();
  const double safety = o->safety > 0.0 ? o->safety : GCOO_SPGEMM_DEFAULT_SAFETY;
  gcoo_predict_options po = o->predict;
  memset(&pred, 0, sizeof pred);
  *hC = nullptr;
  memset(dC, 0, sizeof *dC);
  dC->dtype = A->dtype;
  dC->nrows = m;
  dC->ncols = n;

  // 1. prediction and rooms
  po.want_row_flop = 1;
  po.want_row_nnz = 1;
  GCOO_GOTO(gcoo_predict(hA, hB, &po, &pred));
  GCOO_GOTO(gcoo__malloc_n((void **)&hi, m, sizeof *hi, "row bounds"));
  GCOO_GOTO(gcoo__malloc_n((void **)&room, m, sizeof *room, "row rooms"));
  GCOO_GOTO(gcoo__malloc_n((void **)&list, m, sizeof *list, "row list"));
  GCOO_GOTO(gcoo__malloc_n((void **)&batch_end, m + 1, sizeof *batch_end, "batches"));
  for (int64_t i = 0; i < m; i++) {
    hi[i] = pred.row_flop[i] < n ? pred.row_flop[i] : n;
    GCOO_CHECK_GOTO(hi[i] <= ((int64_t)1 << 29), GCOO_ERR_TOO_LARGE,
                    "row %lld of C may hold %lld entries: more than the 2^29 one hash table "
                    "of the GPU SpGEMM can take", (long long)i, (long long)hi[i]);
    const double want = std::ceil(safety * (double)pred.row_nnz[i]);
    room[i] = hi[i] == 0 ? 0 : (want < (double)hi[i] ? (int64_t)want : hi[i]);
    allocated += room[i];
  }

  // 2. batches in row order under the budget: room for the row twice (its first-pass buffer
  //    and its place in the compacted C), its global table, and per-row bookkeeping
  {
    int64_t budget = o->memory_budget;
    if (budget == 0) budget = (int64_t)(0.9 * (double)gcoo__cuda_free_bytes());
    const int64_t fixed = m * (8 + 8 + 1) + m * 4 + 64;
    GCOO_CHECK_GOTO(budget > fixed, GCOO_ERR_NO_MEMORY,
                    "memory budget %lld bytes is below the %lld bytes of per-row bookkeeping "
                    "for %lld rows", (long long)budget, (long long)fixed, (long long)m);
    budget -= fixed;
    int64_t used = 0;
    for (int64_t i = 0; i < m; i++) {
      const int b = bin_of(hi[i]);
      const int64_t cost = 2 * room[i] * E + 8 + 28 +
                           (b == kGlobalBin ? ((int64_t)1 << table_bits(hi[i])) * E : 0);
      GCOO_CHECK_GOTO(cost <= budget, GCOO_ERR_NO_MEMORY,
                      "row %lld alone needs %lld bytes of device memory (FLOP %lld, room %lld), "
                      "more than the budget of %lld", (long long)i, (long long)cost,
                      (long long)pred.row_flop[i], (long long)room[i], (long long)budget);
      if (used + cost > budget) {
        batch_end[nbatches++] = i;
        used = 0;
      }
      used += cost;
    }
    batch_end[nbatches++] = m;
  }

  // 3. per-row device arrays
  SPG_CUDA(spg_malloc(&mem, (void **)&row_nnz, (m + 1) * 8));
  SPG_CUDA(spg_malloc(&mem, (void **)&src_off, (m + 1) * 8));
  SPG_CUDA(spg_malloc(&mem, (void **)&src_buf, m + 1));
  SPG_CUDA(spg_malloc(&mem, (void **)&ovf_rows, (m + 1) * 4));
  SPG_CUDA(spg_malloc(&mem, (void **)&ovf_count, 8));
  if (nbatches > 1) {
    GCOO_GOTO(gcoo__malloc_n((void **)&H.ptr, m + 1, sizeof *H.ptr, "C row pointers"));
    H.ptr[0] = 0;
  }

  for (int64_t bt = 0, r0 = 0; bt < nbatches; r0 = batch_end[bt++]) {
    const int64_t r1 = batch_end[bt], nr = r1 - r0;
    int64_t nl = 0, novf = 0, bnnz = 0;
    // first pass: the batch's rows with work
    for (int64_t i = r0; i < r1; i++)
      if (hi[i] > 0) list[nl++] = (int32_t)i;
    {
      int64_t *rm = nullptr;
      GCOO_GOTO(gcoo__malloc_n((void **)&rm, nl, sizeof *rm, "rooms"));
      for (int64_t t = 0; t < nl; t++) rm[t] = room[list[t]];
      st = plan_rows(list, rm, nl, hi, &p0);
      free(rm);
      GCOO_GOTO(st);
    }
    SPG_CUDA(cudaMemsetAsync(row_nnz + r0, 0, nr * 8, s));
    SPG_CUDA(cudaMemsetAsync(ovf_count, 0, 8, s));
    {
      gcoo_spg::row_out<T> out = {nullptr, nullptr, row_nnz, src_off, src_buf, 0,
                                  ovf_rows,  ovf_count, nullptr, nullptr};
      out0 = p0.out_entries;
      GCOO_GOTO(run_pass<T>(s, &mem, A, B, &p0, out, &ci0, &cv0));
    }
    {
      unsigned long long c = 0;
      SPG_COPY(&c, ovf_count, 8, cudaMemcpyDeviceToHost);
      novf = (int64_t)c;
    }
    // second pass: rows that did not fit, now of known size, into a buffer of exactly that
    if (novf > 0) {
      int64_t *rm = nullptr;
      overflowed += novf;
      GCOO_GOTO(gcoo__malloc_n((void **)&ovf_host, novf, sizeof *ovf_host, "overflowed rows"));
      GCOO_GOTO(gcoo__malloc_n((void **)&rn_host, nr, sizeof *rn_host, "row sizes"));
      SPG_COPY(ovf_host, ovf_rows, novf * 4, cudaMemcpyDeviceToHost);
      SPG_COPY(rn_host, row_nnz + r0, nr * 8, cudaMemcpyDeviceToHost);
      GCOO_GOTO(gcoo__malloc_n((void **)&rm, novf, sizeof *rm, "rooms"));
      for (int64_t t = 0; t < novf; t++) rm[t] = rn_host[ovf_host[t] - r0];
      st = plan_rows(ovf_host, rm, novf, hi, &p1);
      free(rm);
      GCOO_GOTO(st);
      gcoo_spg::row_out<T> out = {nullptr, nullptr, row_nnz, src_off, src_buf, 1,
                                  ovf_rows,  ovf_count, nullptr, nullptr};
      out1 = p1.out_entries;
      GCOO_GOTO(run_pass<T>(s, &mem, A, B, &p1, out, &ci1, &cv1));
      free(ovf_host);
      free(rn_host);
      ovf_host = nullptr;
      rn_host = nullptr;
      unsigned long long c = 0; /* the second pass had exact rooms: nothing may overflow */
      SPG_COPY(&c, ovf_count, 8, cudaMemcpyDeviceToHost);
      GCOO_CHECK_GOTO((int64_t)c == novf, GCOO_ERR_INTERNAL,
                      "recomputed rows overflowed their exact room (%llu vs %lld)", c,
                      (long long)novf);
    }
    // layout: exclusive scan of the batch's row sizes, then copy rows into place
    SPG_CUDA(spg_malloc(&mem, (void **)&cnt, (nr + 1) * 8));
    SPG_CUDA(spg_malloc(&mem, (void **)&rowptr, (nr + 1) * 8));
    gcoo_spg::gather_counts<<<(unsigned)((nr + 1 + 255) / 256), 256, 0, s>>>(row_nnz, r0, nr, cnt);
    SPG_LAUNCHED("gather_counts");
    SPG_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cnt, rowptr, nr + 1, s));
    SPG_CUDA(spg_malloc(&mem, &scan_tmp, (int64_t)scan_bytes));
    SPG_CUDA(cub::DeviceScan::ExclusiveSum(scan_tmp, scan_bytes, cnt, rowptr, nr + 1, s));
    SPG_CUDA(cudaMemcpyAsync(&bnnz, rowptr + nr, 8, cudaMemcpyDeviceToHost, s));
    SPG_CUDA(cudaStreamSynchronize(s));
    spg_free(&mem, scan_tmp, (int64_t)scan_bytes);
    scan_tmp = nullptr;
    spg_free(&mem, cnt, (nr + 1) * 8);
    cnt = nullptr;
    SPG_CUDA(spg_malloc(&mem, (void **)&ci, bnnz * 4));
    SPG_CUDA(spg_malloc(&mem, (void **)&cv, bnnz * (int64_t)sizeof(T)));
    if (nr > 0) {
      const int64_t threads = nr * 32;
      gcoo_spg::compact_rows<T><<<(unsigned)((threads + 255) / 256), 256, 0, s>>>(
          r0, nr, rowptr, src_off, src_buf, ci0, cv0, ci1, cv1, ci, cv);
      SPG_LAUNCHED("compact_rows");
    }
    SPG_CUDA(cudaStreamSynchronize(s));
    spg_free(&mem, ci0, out0 * 4);
    spg_free(&mem, cv0, out0 * (int64_t)sizeof(T));
    spg_free(&mem, ci1, out1 * 4);
    spg_free(&mem, cv1, out1 * (int64_t)sizeof(T));
    ci0 = ci1 = nullptr;
    cv0 = cv1 = nullptr;
    out0 = out1 = 0;
    plan_free(&p0);
    plan_free(&p1);
    nnz_total += bnnz;
    nlast = nr;
    if (nbatches == 1) {
      dC->ptr = rowptr;
      dC->ind = ci;
      dC->val = cv;
      dC->nnz = bnnz;
      rowptr = nullptr;
      ci = nullptr;
      cv = nullptr;
    } else { /* to the host, then the device buffers go */
      if (H.nnz + bnnz > H.cap) {
        int64_t c2 = 2 * H.cap > H.nnz + bnnz ? 2 * H.cap : H.nnz + bnnz;
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
      SPG_COPY(H.ptr + r0 + 1, rowptr + 1, nr * 8, cudaMemcpyDeviceToHost);
      for (int64_t i = r0 + 1; i <= r1; i++) H.ptr[i] += H.nnz;
      SPG_COPY(H.ind + H.nnz, ci, bnnz * 4, cudaMemcpyDeviceToHost);
      SPG_COPY((T *)H.val + H.nnz, cv, bnnz * sizeof(T), cudaMemcpyDeviceToHost);
      H.nnz += bnnz;
      spg_free(&mem, rowptr, (nr + 1) * 8);
      spg_free(&mem, ci, bnnz * 4);
      spg_free(&mem, cv, bnnz * (int64_t)sizeof(T));
      rowptr = nullptr;
      ci = nullptr;
      cv = nullptr;
    }
  }
  (void)nlast;
  if (nbatches > 1) {
    st = gcoo__sparse_adopt(hC, GCOO_FORMAT_CSR, A->dtype, m, n, H.nnz, 0, H.ptr, H.ind, nullptr,
                            nullptr, nullptr, H.val);
    H.ptr = nullptr;
    H.ind = nullptr;
    H.val = nullptr;
    GCOO_GOTO(st);
  }
  if (info) {
    info->alg = GCOO_SPGEMM_GCOO;
    info->flop = pred.flop_total;
    info->nnz = nnz_total;
    info->nnz_predicted = pred.nnz_predicted;
    info->nnz_allocated = allocated;
    info->rows_overflowed = overflowed;
    info->batches = nbatches;
    info->seconds = gcoo__wtime() - t0;
    info->seconds_predict = pred.seconds;
    info->peak_bytes = mem.peak;
  }
done:
  gcoo_prediction_free(&pred);
  free(hi);
  free(room);
  free(list);
  free(batch_end);
  free(rn_host);
  free(ovf_host);
  plan_free(&p0);
  plan_free(&p1);
  free(H.ptr);
  free(H.ind);
  free(H.val);
  // the device: what is not handed to the caller goes (after whatever was queued)
  cudaStreamSynchronize(s);
  spg_free(&mem, row_nnz, (m + 1) * 8);
  spg_free(&mem, src_off, (m + 1) * 8);
  spg_free(&mem, src_buf, m + 1);
  spg_free(&mem, ovf_rows, (m + 1) * 4);
  spg_free(&mem, ovf_count, 8);
  spg_free(&mem, cnt, 0);
  spg_free(&mem, scan_tmp, 0);
  spg_free(&mem, ci0, 0);
  spg_free(&mem, cv0, 0);
  spg_free(&mem, ci1, 0);
  spg_free(&mem, cv1, 0);
  spg_free(&mem, rowptr, 0);
  spg_free(&mem, ci, 0);
  spg_free(&mem, cv, 0);
  if (st < 0) {
    gcoo__dev_csr_free(dC);
    gcoo_sparse_destroy(hC);
  }
  return st;
}

}  // namespace

extern "C" {

int64_t gcoo__cuda_free_bytes(void) {
  size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return (int64_t)f;
}

void gcoo__dev_csr_free(gcoo_dev_csr *d) {
  if (!d) return;
  cudaFree(d->ptr);
  cudaFree(d->ind);
  cudaFree(d->val);
  d->ptr = nullptr;
  d->ind = nullptr;
  d->val = nullptr;
}

gcoo_status gcoo__dev_csr_upload(const gcoo_csr_view *h, gcoo_dev_csr *d, void *stream) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)stream;
  const size_t es = gcoo_dtype_size(h->dtype);
  memset(d, 0, sizeof *d);
  d->dtype = h->dtype;
  d->nrows = h->nrows;
  d->ncols = h->ncols;
  d->nnz = h->nnz;
  SPG_CUDA(cudaMalloc((void **)&d->ptr, (size_t)(h->nrows + 1) * 8));
  SPG_CUDA(cudaMalloc((void **)&d->ind, (size_t)(h->nnz ? h->nnz : 1) * 4));
  SPG_CUDA(cudaMalloc(&d->val, (size_t)(h->nnz ? h->nnz : 1) * es));
  SPG_CUDA(cudaMemcpyAsync(d->ptr, h->ptr, (size_t)(h->nrows + 1) * 8, cudaMemcpyHostToDevice, s));
  if (h->nnz) {
    SPG_CUDA(cudaMemcpyAsync(d->ind, h->ind, (size_t)h->nnz * 4, cudaMemcpyHostToDevice, s));
    SPG_CUDA(cudaMemcpyAsync(d->val, h->values, (size_t)h->nnz * es, cudaMemcpyHostToDevice, s));
  }
  SPG_CUDA(cudaStreamSynchronize(s));
done:
  if (st < 0) gcoo__dev_csr_free(d);
  return st;
}

gcoo_status gcoo__dev_csr_download(const gcoo_dev_csr *d, gcoo_sparse *h, void *stream) {
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
    SPG_CUDA(cudaMemcpyAsync(val, d->val, (size_t)d->nnz * es, cudaMemcpyDeviceToHost, s));
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

gcoo_status gcoo__cuda_spgemm_gcoo(void *stream, gcoo_sparse hA, gcoo_sparse hB,
                                   const gcoo_dev_csr *dA, const gcoo_dev_csr *dB,
                                   const gcoo_spgemm_options *opts, gcoo_dev_csr *dC,
                                   gcoo_sparse *hC, gcoo_spgemm_info *info) {
  GCOO_CHECK(dA->ncols == dB->nrows, GCOO_ERR_SHAPE,
             "C = A B: A is %lld x %lld but B is %lld x %lld (inner dimensions differ)",
             (long long)dA->nrows, (long long)dA->ncols, (long long)dB->nrows,
             (long long)dB->ncols);
  GCOO_CHECK(dA->dtype == dB->dtype, GCOO_ERR_DTYPE, "C = A B: A and B have different types");
  cudaStream_t s = (cudaStream_t)stream;
  if (dA->dtype == GCOO_FLOAT64)
    GCOO_CALL(spgemm_gcoo<double>(s, hA, hB, dA, dB, opts, dC, hC, info));
  else
    GCOO_CALL(spgemm_gcoo<float>(s, hA, hB, dA, dB, opts, dC, hC, info));
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
  gcoo_dev_csr dA, dB, dC;
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
    GCOO_GOTO(gcoo__cuda_spgemm_gcoo(s, Ac ? Ac : A, Bc ? Bc : B, &dA, &dB, opts, &dC, &hC, &local));
  } else {
    GCOO_GOTO(gcoo__cuda_spgemm_cusparse(s, opts->alg, &dA, &dB, opts->chunk_fraction, &dC, &local));
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
  gcoo__dev_csr_free(&dA);
  gcoo__dev_csr_free(&dB);
  gcoo__dev_csr_free(&dC);
  gcoo_sparse_destroy(&hC);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  return st;
}

}  // extern "C"
