/* SPDX-License-Identifier: MIT */
/* src/spgemm.c: gcoo_spgemm, the one place where an SpGEMM picks its backend, and the CPU
 * SpGEMM (float and double from the template spgemm_cpu_impl.h). */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "gcoo/spgemm.h"
#include "spgemm_rows.h"

#define GCOO_TEMPLATE "spgemm_cpu_impl.h"
#include "gcoo/template.h"

static const char *const alg_names[] = {"auto", "gcoo", "cusparse_alg1", "cusparse_alg2",
                                        "cusparse_alg3"};

const char *gcoo_spgemm_alg_name(gcoo_spgemm_alg alg) {
  return gcoo__name_of(alg_names, GCOO_COUNT_OF(alg_names), (int)alg);
}

int gcoo_spgemm_alg_from_name(const char *name) {
  return gcoo__index_of(alg_names, GCOO_COUNT_OF(alg_names), name);
}

gcoo_status gcoo_spgemm_cpu(gcoo_sparse A, gcoo_sparse B, const int64_t *row_flop, gcoo_sparse *C,
                            gcoo_spgemm_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse Ac = NULL, Bc = NULL;
  gcoo_csr_view va, vb;
  int32_t *hi = NULL;
  gcoo_row_bounds tot = {0, 0, 0, 0, 0};
  int64_t peak = 0;
  GCOO_CHECK(C != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *C = NULL;
  const double t0 = gcoo__wtime();
  GCOO_GOTO(gcoo__spgemm_operands(A, B, &Ac, &Bc, &va, &vb));
  GCOO_CHECK_GOTO(va.dtype == vb.dtype, GCOO_ERR_DTYPE,
                  "C = A B: A is %s, B is %s (convert one with gcoo_sparse_astype)",
                  va.dtype == GCOO_FLOAT64 ? "double" : "float",
                  vb.dtype == GCOO_FLOAT64 ? "double" : "float");
  GCOO_GOTO(gcoo__malloc_n((void **)&hi, va.nrows, sizeof *hi, "row bounds"));
  if (row_flop) {
    const int64_t N = vb.ncols;
    for (int64_t i = 0; i < va.nrows; i++) {
      const int64_t h = row_flop[i] < N ? row_flop[i] : N;
      hi[i] = (int32_t)h;
      tot.flop_total += row_flop[i];
      if (h > tot.hi_max) tot.hi_max = h;
    }
  } else {
    GCOO_GOTO(gcoo__row_flop_bounds(&va, &vb, NULL, NULL, hi, &tot));
  }
  GCOO_GOTO(GCOO_DISPATCH(va.dtype, spgemm_cpu, &va, &vb, hi, tot.hi_max, C, &peak));
  if (info) {
    memset(info, 0, sizeof *info);
    info->alg = GCOO_SPGEMM_GCOO;
    info->flop = tot.flop_total;
    gcoo_sparse_info ci;
    GCOO_GOTO(gcoo_sparse_get_info(*C, &ci));
    info->nnz = ci.nnz;
    info->batches = 1;
    info->seconds = info->seconds_total = gcoo__wtime() - t0;
    info->peak_bytes = peak;
  }
done:
  free(hi);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  if (st < 0) gcoo_sparse_destroy(C);
  return st;
}

gcoo_status gcoo_spgemm(gcoo_ctx ctx, gcoo_sparse A, gcoo_sparse B, const gcoo_spgemm_options *opts,
                        gcoo_sparse *C, gcoo_spgemm_info *info) {
  gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CHECK(C != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *C = NULL;
  if (opts) {
    GCOO_CHECK(opts->size == sizeof *opts, GCOO_ERR_INVALID_ARG,
               "gcoo_spgemm_options.size is %zu, expected %zu (initialise with "
               "GCOO_SPGEMM_OPTIONS_INIT)",
               opts->size, sizeof *opts);
    o = *opts;
  }
  GCOO_CHECK((int)o.alg >= GCOO_SPGEMM_AUTO && o.alg <= GCOO_SPGEMM_CUSPARSE_ALG3,
             GCOO_ERR_INVALID_ARG, "unknown SpGEMM algorithm %d", (int)o.alg);
  GCOO_CHECK(o.safety >= 0.0 && o.safety <= 1e6, GCOO_ERR_INVALID_ARG,
             "safety factor %g outside [0, 1e6] (0: default)", o.safety);
  GCOO_CHECK(o.memory_budget >= 0, GCOO_ERR_INVALID_ARG, "negative memory budget %lld",
             (long long)o.memory_budget);
  GCOO_CHECK(o.chunk_fraction >= 0.0 && o.chunk_fraction <= 1.0, GCOO_ERR_INVALID_ARG,
             "chunk_fraction %g outside [0, 1] (0: default)", o.chunk_fraction);
  if (ctx->ops->spgemm) { /* the backend's own (the CUDA backend's on its device) */
    GCOO_CALL(ctx->ops->spgemm(ctx, A, B, &o, C, info));
    return GCOO_SUCCESS;
  }
  GCOO_CHECK(o.alg == GCOO_SPGEMM_AUTO || o.alg == GCOO_SPGEMM_GCOO, GCOO_ERR_UNSUPPORTED,
             "SpGEMM algorithm %s needs the CUDA backend", gcoo_spgemm_alg_name(o.alg));
  GCOO_CALL(gcoo_spgemm_cpu(A, B, NULL, C, info));
  return GCOO_SUCCESS;
}
