// SPDX-License-Identifier: MIT
// bench/opsparse/opsparse_peer.cu: OpSparse (Du, Guan, Guan, Niu, Sun, Yuan, Jia: "OpSparse: a
// highly optimized framework for sparse general matrix multiplication on GPUs", IEEE Access 2022;
// lorentzbf/OpSparse) as a SpGEMM peer of bench/spgemm_bench (the interface of
// bench/spgemm_peer.h), under the benchmarks' timing rule (bench/bench_stat.h). build.sh beside
// this file compiles it against a fetched copy of OpSparse: OpSparse's kernels (inc/setup.cuh,
// binning.cuh, symbolic.cuh, numeric.cuh) run unchanged, with the launch shapes, bins, streams,
// thresholds and order of its own benchmark driver (src/reg_opsparse.cu with the host steps of
// inc/kernel_wrapper.cuh, at 0134b0c). What its driver did inside its timed function on every
// call, and gcoo's and cuSPARSE's clocks do not hold, is done here once or kept between calls:
//   - its 8 streams are made once (create), not created and destroyed by every call;
//   - its device buffers (C's row offsets, the bins with CUB's scratch, the list of rows that
//     failed the shared-memory hash, the global hash tables, C's columns and values) are kept
//     between calls and grown when too small: a warm call allocates nothing (allocations = 0);
//   - the two kernels that take 96 KiB of shared memory get that attribute once;
//   - it is timed by the benchmark's clock around the whole call, not by the TSC divided by cpuid
//     leaf 0x16's frequency (which reads 0 in a virtual machine).
// Its device synchronisations are its driver's own (one after each phase); the phases are timed
// between them. OpSparse computes in double with 32-bit indices: float is SPGEMM_PEER_UNSUPPORTED.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>

#include <cub/cub.cuh>

#include "binning.cuh"
#include "numeric.cuh"
#include "setup.cuh"
#include "symbolic.cuh"

#include "../spgemm_peer.h"

namespace {

constexpr int kBlock = 1024;           // the driver's block for the per-row kernels
constexpr int kMaxSharedBytes = 98304; // bins 7 (symbolic) and 6 (numeric)
constexpr int kSmallFlop = 26;         // every row's FLOP at most this: one bin (symbolic)
constexpr int kSmallNnz = 16;          // every row's nnz at most this: one bin (numeric)

// A device buffer kept between calls; grown (freed and allocated again) when too small.
struct keep_buf {
  void *p = nullptr;
  size_t cap = 0;
};

struct opsparse_peer {
  cudaStream_t stream[NUM_BIN];
  keep_buf rpt, meta, fail, table, ccol, cval;
  int *h_meta =
      nullptr; // bin sizes, max row count, total nnz, bin offsets (pageable, as OpSparse's)
  int allocations = 0;
  int64_t used = 0, peak = 0; // bytes of the kept buffers this call uses
  char err[256] = "";
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

#define OPS_CUDA(x)                                                                           \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      snprintf(P->err, sizeof P->err, "%s: %s (%s:%d)", #x, cudaGetErrorString(e_), __FILE__, \
               __LINE__);                                                                     \
      (void)cudaGetLastError();                                                               \
      return 2;                                                                               \
    }                                                                                         \
  } while (0)

// Make sure b holds bytes; the call uses them (counted toward its peak).
int take(opsparse_peer *P, keep_buf *b, size_t bytes) {
  if (bytes == 0) bytes = 4;
  if (b->cap < bytes) {
    if (b->p) OPS_CUDA(cudaFree(b->p));
    b->p = nullptr;
    b->cap = 0;
    OPS_CUDA(cudaMalloc(&b->p, bytes));
    b->cap = bytes;
    P->allocations++;
  }
  P->used += (int64_t)bytes;
  if (P->used > P->peak) P->peak = P->used;
  return 0;
}

// The call is done with bytes of a buffer (the buffer itself stays).
void give(opsparse_peer *P, size_t bytes) { P->used -= (int64_t)(bytes ? bytes : 4); }

// Exclusive offsets of the host bin sizes (bins in OpSparse's order).
void host_offsets(const int *size, int *offset) {
  offset[0] = 0;
  for (int i = 0; i + 1 < NUM_BIN; i++) offset[i + 1] = offset[i] + size[i];
}

// Every row in bin 0 (the host's view of what k_binning_small does on the device).
void one_bin(int M, int *size, int *offset) {
  size[0] = M;
  offset[0] = 0;
  for (int i = 1; i < NUM_BIN; i++) {
    size[i] = 0;
    offset[i] = M;
  }
}

// C = A B in OpSparse's steps. The kept buffers' layout is its driver's: the bins, then the bin
// sizes, the largest row's count and nnz(C), the bin offsets, and CUB's scratch.
int multiply(opsparse_peer *P, int M, int N, const int *arpt, const int *acol, const double *aval,
             const int *brpt, const int *bcol, const double *bval, spgemm_peer_result *C) {
  (void)N;
  cudaStream_t *s = P->stream;
  int *hs = P->h_meta, *hmax = hs + NUM_BIN, *htotal = hmax + 1, *hoff = htotal + 1;
  const int GS = div_up(M, kBlock);
  double t = now_ms();
  C->nphases = 0;

  // set-up: each row's FLOP (into C's row offsets) and the largest
  if (take(P, &P->rpt, (size_t)(M + 1) * sizeof(int))) return 2;
  int *crpt = (int *)P->rpt.p;
  OPS_CUDA(cudaMemset(crpt + M, 0, sizeof(int)));
  k_compute_flop<<<GS, kBlock>>>(arpt, acol, brpt, M, crpt, crpt + M);
  OPS_CUDA(cudaGetLastError());
  size_t cub_bytes = 0;
  OPS_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, crpt, crpt, M + 1));
  const size_t meta_bytes = ((size_t)M + 2 * NUM_BIN + 2 + cub_bytes / sizeof(int)) * sizeof(int);
  if (take(P, &P->meta, meta_bytes)) return 2;
  int *bins = (int *)P->meta.p, *bin_size = bins + M, *max_row = bin_size + NUM_BIN;
  int *total = max_row + 1, *bin_offset = total + 1, *cub_storage = bin_offset + 1;
  OPS_CUDA(cudaMemcpy(hmax, crpt + M, sizeof(int), cudaMemcpyDeviceToHost));
  OPS_CUDA(cudaDeviceSynchronize());
  C->phase_name[0] = "setup";
  C->phase_ms[C->nphases++] = now_ms() - t;

  // symbolic binning: rows into bins by FLOP
  t = now_ms();
  OPS_CUDA(cudaMemsetAsync(bin_size, 0, (NUM_BIN + 2) * sizeof(int), s[0]));
  if (*hmax <= kSmallFlop) {
    k_binning_small<<<GS, kBlock>>>(bins, M);
    OPS_CUDA(cudaGetLastError());
    one_bin(M, hs, hoff);
  } else {
    k_symbolic_binning<<<GS, kBlock, 0, s[0]>>>(crpt, M, bin_size);
    OPS_CUDA(cudaGetLastError());
    OPS_CUDA(cudaMemcpyAsync(hs, bin_size, NUM_BIN * sizeof(int), cudaMemcpyDeviceToHost, s[0]));
    OPS_CUDA(cudaStreamSynchronize(s[0]));
    OPS_CUDA(cudaMemsetAsync(bin_size, 0, NUM_BIN * sizeof(int), s[0]));
    host_offsets(hs, hoff);
    OPS_CUDA(
        cudaMemcpyAsync(bin_offset, hoff, NUM_BIN * sizeof(int), cudaMemcpyHostToDevice, s[0]));
    k_symbolic_binning2<<<GS, kBlock, 0, s[0]>>>(crpt, M, bins, bin_size, bin_offset);
    OPS_CUDA(cudaGetLastError());
  }
  OPS_CUDA(cudaDeviceSynchronize());
  C->phase_name[1] = "symbolic_binning";
  C->phase_ms[C->nphases++] = now_ms() - t;

  // symbolic: each row's nnz, by hashing in shared memory (bins 0-7), the rows that overflow
  // bin 7's table again in global memory
  t = now_ms();
  if (hs[5])
    k_symbolic_shared_hash_tb<8192>
        <<<hs[5], 1024, 0, s[5]>>>(arpt, acol, brpt, bcol, bins + hoff[5], crpt);
  int *fail_bins = nullptr, *fail_count = nullptr, h_fail = 0;
  size_t fail_bytes = 0, table_sym = 0;
  if (hs[7]) {
    if ((size_t)hs[7] + 1 <= cub_bytes / sizeof(int)) {
      fail_bins = cub_storage;
    } else {
      fail_bytes = ((size_t)hs[7] + 1) * sizeof(int);
      if (take(P, &P->fail, fail_bytes)) return 2;
      fail_bins = (int *)P->fail.p;
    }
    fail_count = fail_bins + hs[7];
    OPS_CUDA(cudaMemsetAsync(fail_count, 0, sizeof(int), s[7]));
    k_symbolic_max_shared_hash_tb_with_fail<<<hs[7], 1024, kMaxSharedBytes, s[7]>>>(arpt, acol,
                                                                                    brpt, bcol,
                                                                                    bins + hoff[7],
                                                                                    fail_bins,
                                                                                    fail_count,
                                                                                    crpt);
  }
  if (hs[6])
    k_symbolic_large_shared_hash_tb<<<hs[6], 1024, 0, s[6]>>>(arpt, acol, brpt, bcol,
                                                              bins + hoff[6], crpt);
  if (hs[0])
    k_symbolic_shared_hash_pwarp<<<div_up(hs[0], PWARP_ROWS), PWARP_ROWS * PWARP, 0,
                                   s[0]>>>(arpt, acol, brpt, bcol, bins + hoff[0], hs[0], crpt);
  if (hs[7]) {
    OPS_CUDA(cudaMemcpyAsync(&h_fail, fail_count, sizeof(int), cudaMemcpyDeviceToHost, s[7]));
    OPS_CUDA(cudaStreamSynchronize(s[7]));
    if (h_fail) {
      const int tsize = *hmax * SYMBOLIC_SCALE_LARGE;
      table_sym = (size_t)h_fail * (size_t)tsize * sizeof(int);
      if (take(P, &P->table, table_sym)) return 2;
      k_symbolic_global_hash_tb<<<h_fail, 1024, 0, s[7]>>>(arpt, acol, brpt, bcol, fail_bins, crpt,
                                                           (int *)P->table.p, tsize);
    }
  }
  if (hs[4])
    k_symbolic_shared_hash_tb<4096>
        <<<hs[4], 512, 0, s[4]>>>(arpt, acol, brpt, bcol, bins + hoff[4], crpt);
  if (hs[3])
    k_symbolic_shared_hash_tb<2048>
        <<<hs[3], 256, 0, s[3]>>>(arpt, acol, brpt, bcol, bins + hoff[3], crpt);
  if (hs[2])
    k_symbolic_shared_hash_tb<1024>
        <<<hs[2], 128, 0, s[2]>>>(arpt, acol, brpt, bcol, bins + hoff[2], crpt);
  if (hs[1])
    k_symbolic_shared_hash_tb<512>
        <<<hs[1], 64, 0, s[1]>>>(arpt, acol, brpt, bcol, bins + hoff[1], crpt);
  OPS_CUDA(cudaGetLastError());
  if (fail_bytes) give(P, fail_bytes);
  OPS_CUDA(cudaDeviceSynchronize());
  C->phase_name[2] = "symbolic";
  C->phase_ms[C->nphases++] = now_ms() - t;

  // numeric binning: rows into bins by nnz, nnz(C), C's row offsets (exclusive scan), C's arrays
  t = now_ms();
  OPS_CUDA(cudaMemsetAsync(bin_size, 0, (NUM_BIN + 2) * sizeof(int), s[0]));
  k_numeric_binning<<<GS, kBlock, 0, s[0]>>>(crpt, M, bin_size, total, max_row);
  OPS_CUDA(cudaGetLastError());
  OPS_CUDA(
      cudaMemcpyAsync(hs, bin_size, (NUM_BIN + 2) * sizeof(int), cudaMemcpyDeviceToHost, s[0]));
  OPS_CUDA(cudaStreamSynchronize(s[0]));
  const int nnz = *htotal;
  if (*hmax <= kSmallNnz) {
    k_binning_small<<<GS, kBlock>>>(bins, M);
    OPS_CUDA(cudaGetLastError());
    if (take(P, &P->ccol, (size_t)nnz * sizeof(int))) return 2;
    one_bin(M, hs, hoff);
  } else {
    OPS_CUDA(cudaMemsetAsync(bin_size, 0, NUM_BIN * sizeof(int), s[0]));
    host_offsets(hs, hoff);
    OPS_CUDA(
        cudaMemcpyAsync(bin_offset, hoff, NUM_BIN * sizeof(int), cudaMemcpyHostToDevice, s[0]));
    k_numeric_binning2<<<GS, kBlock, 0, s[0]>>>(crpt, M, bins, bin_size, bin_offset);
    OPS_CUDA(cudaGetLastError());
    if (take(P, &P->ccol, (size_t)nnz * sizeof(int))) return 2;
  }
  OPS_CUDA(cudaDeviceSynchronize());
  OPS_CUDA(cub::DeviceScan::ExclusiveSum(cub_storage, cub_bytes, crpt, crpt, M + 1));
  if (take(P, &P->cval, (size_t)nnz * sizeof(double))) return 2;
  OPS_CUDA(cudaDeviceSynchronize());
  C->phase_name[3] = "numeric_binning";
  C->phase_ms[C->nphases++] = now_ms() - t;

  // numeric: C's columns and values, hashed in shared memory, bin 7 in global tables
  t = now_ms();
  int *ccol = (int *)P->ccol.p;
  double *cval = (double *)P->cval.p;
  if (hs[6])
    k_numeric_max_shared_hash_tb_half_occu<<<hs[6], 1024, kMaxSharedBytes, s[6]>>>(arpt, acol, aval,
                                                                                   brpt, bcol, bval,
                                                                                   bins + hoff[6],
                                                                                   crpt, ccol,
                                                                                   cval);
  size_t table_num = 0;
  if (hs[7]) {
    const int tsize = *hmax * NUMERIC_SCALE_LARGE;
    table_num = (size_t)hs[7] * (size_t)tsize * (sizeof(int) + sizeof(double));
    // the symbolic tables' memory serves when large enough, as in OpSparse's driver
    if (table_num > table_sym) {
      if (table_sym) give(P, table_sym);
      table_sym = 0;
      if (take(P, &P->table, table_num)) return 2;
    } else {
      table_num = 0;
    }
    k_numeric_global_hash_tb_full_occu<<<hs[7], 1024, 0, s[7]>>>(arpt, acol, aval, brpt, bcol, bval,
                                                                 bins + hoff[7], tsize,
                                                                 (int *)P->table.p, crpt, ccol,
                                                                 cval);
  }
  if (hs[5])
    k_numeric_shared_hash_tb_full_occu<4096, 1024>
        <<<hs[5], 1024, 0, s[5]>>>(arpt, acol, aval, brpt, bcol, bval, bins + hoff[5], crpt, ccol,
                                   cval);
  if (hs[0])
    k_numeric_shared_hash_pwarp<<<div_up(hs[0], NUMERIC_PWARP_ROWS),
                                  NUMERIC_PWARP_ROWS * NUMERIC_PWARP, 0, s[0]>>>(arpt, acol, aval,
                                                                                 brpt, bcol, bval,
                                                                                 bins + hoff[0],
                                                                                 hs[0], crpt, ccol,
                                                                                 cval);
  if (hs[4])
    k_numeric_shared_hash_tb_full_occu<2048, 512>
        <<<hs[4], 512, 0, s[4]>>>(arpt, acol, aval, brpt, bcol, bval, bins + hoff[4], crpt, ccol,
                                  cval);
  if (hs[3])
    k_numeric_shared_hash_tb_full_occu<1024, 256>
        <<<hs[3], 256, 0, s[3]>>>(arpt, acol, aval, brpt, bcol, bval, bins + hoff[3], crpt, ccol,
                                  cval);
  if (hs[2])
    k_numeric_shared_hash_tb_full_occu<512, 128>
        <<<hs[2], 128, 0, s[2]>>>(arpt, acol, aval, brpt, bcol, bval, bins + hoff[2], crpt, ccol,
                                  cval);
  if (hs[1])
    k_numeric_shared_hash_tb_full_occu<256, 64><<<hs[1], 64, 0, s[1]>>>(arpt, acol, aval, brpt,
                                                                        bcol, bval, bins + hoff[1],
                                                                        crpt, ccol, cval);
  OPS_CUDA(cudaGetLastError());
  OPS_CUDA(cudaDeviceSynchronize());
  give(P, table_sym + table_num);
  give(P, meta_bytes);
  C->phase_name[4] = "numeric";
  C->phase_ms[C->nphases++] = now_ms() - t;

  C->nnz = nnz;
  C->rowptr = crpt;
  C->colind = ccol;
  C->values = cval;
  return 0;
}

} // namespace

extern "C" {

int spgemm_peer_abi(void) { return SPGEMM_PEER_ABI; }

const char *spgemm_peer_name(void) {
#ifdef OPSPARSE_COMMIT
  return "OpSparse (lorentzbf/OpSparse " OPSPARSE_COMMIT ")";
#else
  return "OpSparse (lorentzbf/OpSparse)";
#endif
}

const char *spgemm_peer_error(void *peer) {
  return peer ? static_cast<opsparse_peer *>(peer)->err : "no peer";
}

int spgemm_peer_create(void **peer) {
  *peer = nullptr;
  opsparse_peer *P = new (std::nothrow) opsparse_peer;
  if (!P) return 2;
  P->h_meta = static_cast<int *>(calloc(3 * NUM_BIN + 2, sizeof(int)));
  for (int i = 0; i < NUM_BIN; i++) P->stream[i] = nullptr;
  *peer = P;
  if (!P->h_meta) {
    snprintf(P->err, sizeof P->err, "out of host memory");
    return 2;
  }
  for (int i = 0; i < NUM_BIN; i++) OPS_CUDA(cudaStreamCreate(&P->stream[i]));
  OPS_CUDA(cudaFuncSetAttribute(k_symbolic_max_shared_hash_tb_with_fail,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSharedBytes));
  OPS_CUDA(cudaFuncSetAttribute(k_numeric_max_shared_hash_tb_half_occu,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSharedBytes));
  return 0;
}

int spgemm_peer_multiply(void *peer, int elem_size, int m, int k, int n, const int *arowptr,
                         const int *acolind, const void *avalues, int annz, const int *browptr,
                         const int *bcolind, const void *bvalues, int bnnz, spgemm_peer_result *C) {
  opsparse_peer *P = static_cast<opsparse_peer *>(peer);
  (void)k;
  (void)annz;
  (void)bnnz;
  memset(C, 0, sizeof *C);
  if (!P) return 2;
  if (elem_size != (int)sizeof(double)) {
    snprintf(P->err, sizeof P->err, "OpSparse computes in double only");
    return SPGEMM_PEER_UNSUPPORTED;
  }
  P->allocations = 0;
  P->used = P->peak = 0;
  const int rc = multiply(P, m, n, arowptr, acolind, static_cast<const double *>(avalues), browptr,
                          bcolind, static_cast<const double *>(bvalues), C);
  C->allocations = P->allocations;
  C->peak_bytes = P->peak;
  return rc;
}

void spgemm_peer_destroy(void *peer) {
  opsparse_peer *P = static_cast<opsparse_peer *>(peer);
  if (!P) return;
  keep_buf *bufs[] = {&P->rpt, &P->meta, &P->fail, &P->table, &P->ccol, &P->cval};
  for (keep_buf *b : bufs)
    if (b->p) cudaFree(b->p);
  for (int i = 0; i < NUM_BIN; i++)
    if (P->stream[i]) cudaStreamDestroy(P->stream[i]);
  free(P->h_meta);
  delete P;
}

} // extern "C"
