/* SPDX-License-Identifier: MIT */
/* dist/spgemm_fit.c: refuse an SpGEMM whose output cannot exist. The predictor (gcoo/predict.h)
 * counts nnz(C) in a fraction of a second; a product like a 10^7 x 1 column times a 1 x 10^7 row
 * (10^14 entries, 1.2 PB in CSR) would otherwise compute for a minute until an unrelated
 * allocation failed. The output of every backend ends in host memory (the GPU path copies its slabs
 * back), and gcoo has no out-of-core SpGEMM (nothing batches C to disk), so C must fit the memory
 * the job can have: at most the ranks times this host's physical memory, whatever the device budget
 * (which only batches the rows on the device). That bound never refuses a product that could fit;
 * one that fits it but not the real machine still fails at allocation. */
#define _GNU_SOURCE
#include <math.h>
#include <unistd.h>

#include "spgemm_fit.h"

#include "gcoo/backend.h"
#include "gcoo/spgemm.h"

static double host_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

gcoo_status gcoo__spgemm_output_fits(const gcoo_prediction *pred, int64_t m, gcoo_dtype dtype,
                                     double safety, int nranks) {
  const double s = safety > 0.0 ? safety : GCOO_SPGEMM_DEFAULT_SAFETY;
  const double entry = 4.0 + (double)gcoo_dtype_size(dtype); /* int32 index + value */
  const double need = s * (double)pred->nnz_predicted * entry + 8.0 * ((double)m + 1.0);
  const double host = host_bytes();
  if (host <= 0.0) return GCOO_SUCCESS; /* no way to know: let the allocations decide */
  const double can = host * (double)(nranks > 0 ? nranks : 1);
  GCOO_CHECK(need <= can, GCOO_ERR_NO_MEMORY,
             "C = A B is predicted to hold %lld entries (%.3g, %s predictor, %.3g products): "
             "with safety %.2f that is %.3g bytes of CSR, more than the job can hold (%d "
             "rank%s x %.3g bytes of host memory); refused before computing (gcoo has no "
             "out-of-core SpGEMM)",
             (long long)pred->nnz_predicted, (double)pred->nnz_predicted,
             gcoo_predict_method_name(pred->method), (double)pred->flop_total, s, need, nranks,
             nranks == 1 ? "" : "s", host);
  return GCOO_SUCCESS;
}
