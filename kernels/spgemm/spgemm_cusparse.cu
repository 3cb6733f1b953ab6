// SPDX-License-Identifier: MIT
// kernels/spgemm/spgemm_cusparse.cu: cuSPARSE's SpGEMM (generic API) as the baseline, with its time and
// peak device memory measured the way ours are. Call sequence of the cuSPARSE documentation
// and NVIDIA's CUDALibrarySamples (spgemm, spgemm_mem): workEstimation (size query, then with
// buffer 1); ALG2/ALG3: getNumProducts and estimateMemory (buffer 3 temporary, gives the size
// of buffer 2); ALG1: compute as a size query; compute with buffer 2; SpMatGetSize; allocate C;
// copy. cuSPARSE's SpGEMM takes 32-bit row offsets: A's and B's are converted before the clock
// starts (their input format), C's are widened to ours after it stops. Its buffers come from the
// same stream-ordered pool as gcoo's temporaries, and C's arrays by the same rule as gcoo's C
// (spgemm_common.cuh): what a user who keeps a pool would do, so that neither side's time holds
// a cudaMalloc the other does not pay (with cudaMalloc of buffers 1 and 2 and of C inside its
// clock, ALG1 ran 1.31x slower).
#include <cmath>
#include <cstring>

#include <cusparse.h>

#include "spgemm_common.cuh"

// A failed cuSPARSE call: GCOO_ERR_CUSPARSE whatever its status (the baseline reports what
// cuSPARSE said), through the one checker of kernels/common/cuda_check.h.
#define SPG_CUSPARSE(x) GCOO_CALL_CUSPARSE_RAW_GOTO(x)

namespace {

__global__ void narrow_ptr(const int64_t *__restrict__ in, int32_t *__restrict__ out, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (int32_t)in[i];
}

__global__ void widen_ptr(const int32_t *__restrict__ in, int64_t *__restrict__ out, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Lowest free memory seen at the checkpoints: catches cuSPARSE's own allocations.
struct free_watch {
  int64_t start = 0, low = 0;
  void look() {
    const int64_t f = gcoo__cuda_free_bytes();
    if (f > 0 && f < low) low = f;
  }
};

} // namespace

extern "C" gcoo_status gcoo__cuda_spgemm_cusparse(gcoo_ctx ctx, gcoo_spgemm_alg alg,
                                                  const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB,
                                                  double chunk_fraction, gcoo_cuda_csr *dC,
                                                  gcoo_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  cusparseHandle_t h = nullptr;
  cusparseSpMatDescr_t mA = nullptr, mB = nullptr, mC = nullptr;
  cusparseSpGEMMDescr_t desc = nullptr;
  spg_mem mem;
  free_watch fw;
  out_mem om = {&mem, false};
  int32_t *pA = nullptr, *pB = nullptr, *pC = nullptr;
  void *buf1 = nullptr, *buf2 = nullptr, *buf3 = nullptr;
  size_t size1 = 0, size2 = 0, size3 = 0;
  int64_t rowsC = 0, colsC = 0, nnzC = 0, nprod = 0;
  double t0 = 0.0;
  const cudaDataType dt = dA->dtype == GCOO_FLOAT64 ? CUDA_R_64F : CUDA_R_32F;
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const void *one = dA->dtype == GCOO_FLOAT64 ? (const void *)&one_d : (const void *)&one_f;
  const void *zero = dA->dtype == GCOO_FLOAT64 ? (const void *)&zero_d : (const void *)&zero_f;
  const cusparseSpGEMMAlg_t calg = alg == GCOO_SPGEMM_CUSPARSE_ALG2   ? CUSPARSE_SPGEMM_ALG2
                                   : alg == GCOO_SPGEMM_CUSPARSE_ALG3 ? CUSPARSE_SPGEMM_ALG3
                                                                      : CUSPARSE_SPGEMM_ALG1;
  const float chunk = chunk_fraction > 0.0 ? (float)chunk_fraction : 0.2f;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const size_t es = gcoo_dtype_size(dA->dtype);
  memset(dC, 0, sizeof *dC);
  dC->dtype = dA->dtype;
  dC->nrows = dA->nrows;
  dC->ncols = dB->ncols;
  GCOO_CHECK(alg == GCOO_SPGEMM_CUSPARSE_ALG1 || alg == GCOO_SPGEMM_CUSPARSE_ALG2 ||
                 alg == GCOO_SPGEMM_CUSPARSE_ALG3,
             GCOO_ERR_INVALID_ARG, "%s is not a cuSPARSE algorithm", gcoo_spgemm_alg_name(alg));
  GCOO_CHECK(dA->ncols == dB->nrows && dA->dtype == dB->dtype, GCOO_ERR_SHAPE,
             "C = A B: A is %lld x %lld, B is %lld x %lld", (long long)dA->nrows,
             (long long)dA->ncols, (long long)dB->nrows, (long long)dB->ncols);
  GCOO_CHECK(dA->nnz <= INT32_MAX && dB->nnz <= INT32_MAX, GCOO_ERR_TOO_LARGE,
             "cuSPARSE SpGEMM takes 32-bit offsets: nnz(A) = %lld, nnz(B) = %lld",
             (long long)dA->nnz, (long long)dB->nnz);

  // inputs in cuSPARSE's format (before the clock)
  GCOO_GOTO(gcoo__cuda_alloc(&pA, (size_t)(dA->nrows + 1) * 4, "cuSPARSE's 32-bit row pointers"));
  GCOO_GOTO(gcoo__cuda_alloc(&pB, (size_t)(dB->nrows + 1) * 4, "cuSPARSE's 32-bit row pointers"));
  narrow_ptr<<<(unsigned)((dA->nrows + 256) / 256), 256, 0, s>>>(dA->ptr, pA, dA->nrows + 1);
  SPG_LAUNCHED("narrow_ptr");
  narrow_ptr<<<(unsigned)((dB->nrows + 256) / 256), 256, 0, s>>>(dB->ptr, pB, dB->nrows + 1);
  SPG_LAUNCHED("narrow_ptr");
  SPG_CUSPARSE(cusparseCreate(&h));
  SPG_CUSPARSE(cusparseSetStream(h, s));
  SPG_CUSPARSE(cusparseCreateCsr(&mA, dA->nrows, dA->ncols, dA->nnz, pA, dA->ind, dA->values,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                 dt));
  SPG_CUSPARSE(cusparseCreateCsr(&mB, dB->nrows, dB->ncols, dB->nnz, pB, dB->ind, dB->values,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                 dt));
  SPG_CUSPARSE(cusparseCreateCsr(&mC, dA->nrows, dB->ncols, 0, nullptr, nullptr, nullptr,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                 dt));
  SPG_CUSPARSE(cusparseSpGEMM_createDescr(&desc));
  SPG_CUDA(cudaStreamSynchronize(s));
  mem.stream = s;
  spg_pool_use(ctx, &mem);

  t0 = gcoo__wtime();
  fw.start = fw.low = gcoo__cuda_free_bytes();
  SPG_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, one, mA, mB, zero, mC, dt, calg, desc,
                                             &size1, nullptr));
  GCOO_GOTO(spg_tmp_malloc(&mem, &buf1, (int64_t)size1));
  SPG_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, one, mA, mB, zero, mC, dt, calg, desc,
                                             &size1, buf1));
  fw.look();
  if (calg == CUSPARSE_SPGEMM_ALG1) {
    SPG_CUSPARSE(
        cusparseSpGEMM_compute(h, op, op, one, mA, mB, zero, mC, dt, calg, desc, &size2, nullptr));
  } else {
    SPG_CUSPARSE(cusparseSpGEMM_getNumProducts(desc, &nprod));
    SPG_CUSPARSE(cusparseSpGEMM_estimateMemory(h, op, op, one, mA, mB, zero, mC, dt, calg, desc,
                                               chunk, &size3, nullptr, nullptr));
    GCOO_GOTO(spg_tmp_malloc(&mem, &buf3, (int64_t)size3));
    SPG_CUSPARSE(cusparseSpGEMM_estimateMemory(h, op, op, one, mA, mB, zero, mC, dt, calg, desc,
                                               chunk, &size3, buf3, &size2));
    fw.look();
    spg_tmp_free(&mem, buf3, (int64_t)size3);
    buf3 = nullptr;
  }
  GCOO_GOTO(spg_tmp_malloc(&mem, &buf2, (int64_t)size2));
  SPG_CUSPARSE(
      cusparseSpGEMM_compute(h, op, op, one, mA, mB, zero, mC, dt, calg, desc, &size2, buf2));
  fw.look();
  SPG_CUSPARSE(cusparseSpMatGetSize(mC, &rowsC, &colsC, &nnzC));
  GCOO_GOTO(spg_tmp_malloc(&mem, (void **)&pC, (rowsC + 1) * 4));
  om.pooled = (rowsC + 1) * 8 + nnzC * (int64_t)(4 + es) <= mem.pooled_max;
  GCOO_GOTO(om.alloc((void **)&dC->ind, nnzC * 4));
  GCOO_GOTO(om.alloc(&dC->values, nnzC * (int64_t)es));
  SPG_CUSPARSE(cusparseCsrSetPointers(mC, pC, dC->ind, dC->values));
  SPG_CUSPARSE(cusparseSpGEMM_copy(h, op, op, one, mA, mB, zero, mC, dt, calg, desc));
  SPG_CUDA(cudaStreamSynchronize(s));
  fw.look();
  if (info) {
    memset(info, 0, sizeof *info);
    info->alg = alg;
    info->seconds = gcoo__wtime() - t0;
    info->nnz = nnzC;
    info->flop = nprod;
    info->batches = 1;
    const int64_t seen = fw.start - fw.low;
    info->peak_bytes = seen > mem.peak ? seen : mem.peak;
  }
  // C's offsets in our width (after the clock)
  dC->nnz = nnzC;
  GCOO_GOTO(gcoo__cuda_alloc(&dC->ptr, (size_t)(rowsC + 1) * 8, "C row pointers"));
  widen_ptr<<<(unsigned)((rowsC + 256) / 256), 256, 0, s>>>(pC, dC->ptr, rowsC + 1);
  SPG_LAUNCHED("widen_ptr");
  SPG_CUDA(cudaStreamSynchronize(s));
done:
  if (desc) cusparseSpGEMM_destroyDescr(desc);
  if (mA) cusparseDestroySpMat(mA);
  if (mB) cusparseDestroySpMat(mB);
  if (mC) cusparseDestroySpMat(mC);
  if (h) cusparseDestroy(h);
  spg_tmp_free(&mem, buf1, (int64_t)size1);
  spg_tmp_free(&mem, buf2, (int64_t)size2);
  spg_tmp_free(&mem, buf3, (int64_t)size3);
  spg_tmp_free(&mem, pC, (rowsC + 1) * 4);
  spg_pool_trim(&mem);
  cudaFree(pA);
  cudaFree(pB);
  if (st < 0) gcoo_cuda_csr_free(dC);
  return st;
}

// ---- comparing two device CSR results (the benchmark and tests) --------------------------------

namespace {

template <typename T>
__global__ void compare_kernel(int64_t m, const int64_t *__restrict__ cp,
                               const int32_t *__restrict__ ci, const T *__restrict__ cv,
                               const int64_t *__restrict__ rp, const int32_t *__restrict__ ri,
                               const T *__restrict__ rv, unsigned long long *diff_pattern,
                               double *sums) {
  const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (w >= m) return;
  const int64_t c0 = cp[w], r0 = rp[w], z = cp[w + 1] - c0;
  double e = 0.0, r = 0.0;
  bool bad = z != rp[w + 1] - r0;
  if (!bad)
    for (int64_t k = lane; k < z; k += 32) {
      if (ci[c0 + k] != ri[r0 + k]) bad = true;
      const double x = (double)cv[c0 + k], y = (double)rv[r0 + k];
      e += (x - y) * (x - y);
      r += y * y;
    }
  for (int o = 16; o > 0; o >>= 1) {
    e += __shfl_down_sync(0xffffffffu, e, o);
    r += __shfl_down_sync(0xffffffffu, r, o);
  }
  if (__any_sync(0xffffffffu, bad) && lane == 0) atomicAdd(diff_pattern, 1ull);
  if (lane == 0 && (e != 0.0 || r != 0.0)) {
    atomicAdd(&sums[0], e);
    atomicAdd(&sums[1], r);
  }
}

} // namespace

extern "C" double gcoo__cuda_csr_compare(const gcoo_cuda_csr *C, const gcoo_cuda_csr *R) {
  gcoo_status st = GCOO_SUCCESS;
  cudaStream_t s = nullptr;
  unsigned long long *d_bad = nullptr, h_bad = 1;
  double *d_sums = nullptr, h_sums[2] = {0, 0};
  double out = INFINITY;
  if (C->nrows != R->nrows || C->ncols != R->ncols || C->nnz != R->nnz || C->dtype != R->dtype)
    return INFINITY;
  if (C->nrows == 0) return 0.0;
  GCOO_GOTO(gcoo__cuda_alloc(&d_bad, 8, "comparison counter"));
  GCOO_GOTO(gcoo__cuda_alloc(&d_sums, 16, "comparison sums"));
  SPG_CUDA(cudaMemset(d_bad, 0, 8));
  SPG_CUDA(cudaMemset(d_sums, 0, 16));
  {
    const unsigned blocks = (unsigned)((C->nrows * 32 + 255) / 256);
    if (C->dtype == GCOO_FLOAT64)
      compare_kernel<double><<<blocks, 256, 0, s>>>(C->nrows, C->ptr, C->ind,
                                                    (const double *)C->values, R->ptr, R->ind,
                                                    (const double *)R->values, d_bad, d_sums);
    else
      compare_kernel<float><<<blocks, 256, 0, s>>>(C->nrows, C->ptr, C->ind,
                                                   (const float *)C->values, R->ptr, R->ind,
                                                   (const float *)R->values, d_bad, d_sums);
  }
  SPG_LAUNCHED("compare_kernel");
  SPG_CUDA(cudaMemcpy(&h_bad, d_bad, 8, cudaMemcpyDeviceToHost));
  SPG_CUDA(cudaMemcpy(h_sums, d_sums, 16, cudaMemcpyDeviceToHost));
  if (h_bad == 0) out = h_sums[1] > 0 ? std::sqrt(h_sums[0] / h_sums[1]) : std::sqrt(h_sums[0]);
done:
  cudaFree(d_bad);
  cudaFree(d_sums);
  (void)st;
  return out;
}
