/* SPDX-License-Identifier: MIT */
/* kernels/spgemm/spgemm_cuda.h: the C gateway to the CUDA SpGEMM (kernels/spgemm/), private to gcoo
 * (the CUDA backend's table, the GPU tests and bench/spgemm_bench use it). Device
 * matrices are plain CSR arrays in device memory; every function works on the given CUDA
 * stream (NULL: the default stream) of the current device and returns when its results are
 * ready. Device memory is counted: `peak_bytes` in gcoo_spgemm_info is the most this call held
 * at once beyond its inputs (its own allocations, cuSPARSE's buffers, and for cuSPARSE also
 * any drop of cudaMemGetInfo's free memory beyond them, which catches internal allocations). */
#ifndef GCOO_KERNELS_SPGEMM_CUDA_H
#define GCOO_KERNELS_SPGEMM_CUDA_H

#include "backend_impl.h"
#include "common/gcoo_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The CUDA backend's gcoo_backend_ops.spgemm and .predict (spgemm_entry.cu): host matrices in,
 *  uploaded, the product or the prediction on the context's device, C back on the host. */
gcoo_status gcoo__spgemm_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                              const gcoo_spgemm_options *opts, gcoo_sparse *C,
                              gcoo_spgemm_info *info);
gcoo_status gcoo__predict_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                               const gcoo_predict_options *opts, gcoo_prediction *pred);

/* Device matrices are gcoo_cuda_csr (kernels/common/gcoo_kernels.h): int64 row pointers, int32 columns. */

/** Copy a host CSR view to the device (arrays allocated here; free with gcoo_cuda_csr_free). */
gcoo_status gcoo__dev_csr_upload(const gcoo_csr_view *h, gcoo_cuda_csr *d, void *stream);
/** Copy a device CSR back into a new host CSR object. */
gcoo_status gcoo__dev_csr_download(const gcoo_cuda_csr *d, gcoo_sparse *h, void *stream);

/** gcoo's SpGEMM C = A B on the device, prediction included (kernels/spgemm/spgemm.cu). When the rows
 *  fit the memory budget in one batch, *dC gets the device CSR of C (free with
 *  gcoo_cuda_csr_free: cudaFree; small ones come from the context's stream-ordered pool,
 *  which cudaFree does not wait for: finish work on C first) and *hC is left NULL; otherwise
 *  each batch is copied to the host as
 *  it completes, *hC gets C and *dC is left empty (all pointers NULL). info->seconds is the
 *  whole call. */
gcoo_status gcoo__cuda_spgemm_gcoo(gcoo_ctx ctx, const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB,
                                   const gcoo_spgemm_options *opts, gcoo_cuda_csr *dC,
                                   gcoo_sparse *hC, gcoo_spgemm_info *info);

/** The GPU predictor (method CLASSES) of C = A B on device matrices, into a host prediction
 *  (row_flop and row_nnz always filled). */
gcoo_status gcoo__cuda_predict_gcoo(gcoo_ctx ctx, const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB,
                                    const gcoo_predict_options *opts, gcoo_prediction *pred);

/** cuSPARSE's SpGEMM (generic API) C = A B with ALG1, ALG2 or ALG3 (chunk_fraction for ALG3).
 *  A cuSPARSE status is reported as GCOO_ERR_CUSPARSE with its name in the message
 *  (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES when it cannot run the product). */
gcoo_status gcoo__cuda_spgemm_cusparse(gcoo_ctx ctx, gcoo_spgemm_alg alg, const gcoo_cuda_csr *dA,
                                       const gcoo_cuda_csr *dB, double chunk_fraction,
                                       gcoo_cuda_csr *dC, gcoo_spgemm_info *info);

/** ||C - R|| / ||R|| (Frobenius, in double) when C and R have the same shape and pattern (row
 *  pointers and columns), INFINITY otherwise or on a CUDA error. On the device. */
double gcoo__cuda_csr_compare(const gcoo_cuda_csr *C, const gcoo_cuda_csr *R);

/** Free device memory in bytes (cudaMemGetInfo), 0 on error. */
int64_t gcoo__cuda_free_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
