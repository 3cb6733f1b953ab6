/* SPDX-License-Identifier: MIT */
/* kernels/spgemm_cuda.h: the C gateway to the CUDA SpGEMM (kernels/spgemm*.cu), private to gcoo
 * (the library's gcoo__spgemm_cuda, the GPU tests and bench/spgemm_bench use it). Device
 * matrices are plain CSR arrays in device memory; every function works on the given CUDA
 * stream (NULL: the default stream) of the current device and returns when its results are
 * ready. Device memory is counted: `peak_bytes` in gcoo_spgemm_info is the most this call held
 * at once beyond its inputs (its own allocations, cuSPARSE's buffers, and for cuSPARSE also
 * any drop of cudaMemGetInfo's free memory beyond them, which catches internal allocations). */
#ifndef GCOO_KERNELS_SPGEMM_CUDA_H
#define GCOO_KERNELS_SPGEMM_CUDA_H

#include "backend_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A CSR matrix in device memory (row pointers int64, column indices int32). */
typedef struct gcoo_dev_csr {
  gcoo_dtype dtype;
  int64_t nrows, ncols, nnz;
  int64_t *ptr;  /**< nrows + 1 */
  int32_t *ind;  /**< nnz */
  void *val;     /**< nnz */
} gcoo_dev_csr;

/** Copy a host CSR view to the device (arrays allocated here; free with gcoo__dev_csr_free). */
gcoo_status gcoo__dev_csr_upload(const gcoo_csr_view *h, gcoo_dev_csr *d, void *stream);
/** Copy a device CSR back into a new host CSR object. */
gcoo_status gcoo__dev_csr_download(const gcoo_dev_csr *d, gcoo_sparse *h, void *stream);
void gcoo__dev_csr_free(gcoo_dev_csr *d);

/** gcoo's SpGEMM C = A B on the device. hA/hB are the same matrices on the host, as CSR (the
 *  prediction runs on the host threads, on their pattern); dA/dB their device copies. When
 *  the rows fit the memory budget in one batch, *dC gets the device CSR of C and *hC is left
 *  NULL; otherwise each batch is copied to the host as it completes, *hC gets C and *dC is
 *  left empty (all pointers NULL). info->seconds is the whole call, prediction included. */
gcoo_status gcoo__cuda_spgemm_gcoo(void *stream, gcoo_sparse hA, gcoo_sparse hB,
                                   const gcoo_dev_csr *dA, const gcoo_dev_csr *dB,
                                   const gcoo_spgemm_options *opts, gcoo_dev_csr *dC,
                                   gcoo_sparse *hC, gcoo_spgemm_info *info);

/** cuSPARSE's SpGEMM (generic API) C = A B with ALG1, ALG2 or ALG3 (chunk_fraction for ALG3).
 *  A cuSPARSE status is reported as GCOO_ERR_CUSPARSE with its name in the message
 *  (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES when it cannot run the product). */
gcoo_status gcoo__cuda_spgemm_cusparse(void *stream, gcoo_spgemm_alg alg, const gcoo_dev_csr *dA,
                                       const gcoo_dev_csr *dB, double chunk_fraction,
                                       gcoo_dev_csr *dC, gcoo_spgemm_info *info);

/** Free device memory in bytes (cudaMemGetInfo), 0 on error. */
int64_t gcoo__cuda_free_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
