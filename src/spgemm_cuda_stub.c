/* SPDX-License-Identifier: MIT */
/* src/spgemm_cuda_stub.c: stands in for the CUDA SpGEMM (kernels/spgemm*.cu) in builds without
 * CUDA, so a CUDA context asking for an SpGEMM gets a clear error, not a link failure. */
#include "backend_impl.h"

gcoo_status gcoo__spgemm_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                              const gcoo_spgemm_options *opts, gcoo_sparse *C,
                              gcoo_spgemm_info *info) {
  (void)ctx, (void)A, (void)B, (void)opts, (void)C, (void)info;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                    "the CUDA SpGEMM is not compiled into this gcoo (rebuild with a CUDA "
                    "compiler and -DGCOO_ENABLE_CUDA=ON), use the cpu backend");
}

gcoo_status gcoo__predict_cuda(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B,
                               const gcoo_predict_options *opts, gcoo_prediction *pred) {
  (void)ctx, (void)A, (void)B, (void)opts, (void)pred;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                    "the CUDA predictor is not compiled into this gcoo (rebuild with a CUDA "
                    "compiler and -DGCOO_ENABLE_CUDA=ON), use the cpu backend");
}
