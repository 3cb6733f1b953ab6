/* SPDX-License-Identifier: MIT */
/* kernels/spdm/op_cuda.c: the CUDA backend's persistent SpDM operator: set-up (the algorithm
 * chosen by AUTO's rule and trials, op_trial.c, and everything built once on the GPU), applies on
 * host operands (copied in and out, stream-ordered, synchronised before returning) or device
 * operands (queued on the context's stream, asynchronous), the developer options, destroy.
 * Operands arrive in the SPARSE_DENSE frame (src/op.c): Y (m x N) = alpha A X + beta Y. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_cuda_impl.h"
#include "backend/copy_staged.h"
#include "op_cuda.h"
#include "params.h"
/* Reuse statistics cover p = 1, 2, 4, ..., 1024. */
enum { STATS_NLOG = 11 };

static gcoo_status check_cuda_op(gcoo_op op) {
  GCOO_VALID_OBJECT(op, GCOO_MAGIC_OP, "operator");
  GCOO_CALL(gcoo__cuda_check_ctx(op->ctx));
  GCOO_CHECK(op->backend != NULL, GCOO_ERR_INVALID_ARG,
             "the operator has no CUDA state (algorithm %s)", gcoo_spdm_alg_name(op->info.alg));
  return GCOO_SUCCESS;
}

/* The tuned kernel's X-resident layout, once (on the operator's device and stream). */
gcoo_status gcoo__cuda_op_build_resident(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  if (o->tuned.xres.off) return GCOO_SUCCESS;
  GCOO_CHECK(gcoo_cuda_resident_fits(o->csr.ncols, &c->dev), GCOO_ERR_UNSUPPORTED,
             "the X-resident kernel keeps k + %d rows of X in one block's shared memory: k = %lld "
             "is above %lld on this device",
             GCOO_XRES_ZERO_ROWS, (long long)o->csr.ncols,
             (long long)(c->dev.smem_per_block_optin / 16 - GCOO_XRES_ZERO_ROWS));
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(op->ctx, &g));
  gcoo_status st = gcoo_cuda_tuned_build_resident(&o->csr, &o->tuned, op->ctx->stream);
  if (st >= 0) {
    const size_t esize = gcoo_dtype_size(o->csr.dtype) + 2; /* value and 16-bit column */
    o->device_bytes += (size_t)(o->tuned.xres.nentries + 32) * esize +
                       (size_t)o->tuned.xres.nslices * (8 + 32 * 4);
    op->info.device_bytes = o->device_bytes;
  }
  gcoo__cuda_device_leave(&g);
  return st;
}

/* The batched kernel's row order (rows longest first), once. */
gcoo_status gcoo__cuda_op_build_order(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (o->tuned.row_order) return GCOO_SUCCESS;
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(op->ctx, &g));
  gcoo_status st = gcoo_cuda_tuned_build_order(&o->csr, &o->tuned, op->ctx->stream);
  if (st >= 0) {
    o->device_bytes += (size_t)o->csr.nrows * 8;
    op->info.device_bytes = o->device_bytes;
  }
  gcoo__cuda_device_leave(&g);
  return st;
}

/* The row-split items longest first, once (the shape trial's candidate for skewed rows). */
gcoo_status gcoo__cuda_op_build_split_order(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (o->tuned.split.item_order) return GCOO_SUCCESS;
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(op->ctx, &g));
  gcoo_status st = gcoo_cuda_tuned_build_split_order(&o->csr, &o->tuned, op->ctx->stream);
  if (st >= 0) {
    o->device_bytes += (size_t)o->tuned.split.nitems * 8;
    op->info.device_bytes = o->device_bytes;
  }
  gcoo__cuda_device_leave(&g);
  return st;
}

/* The tuned kernel's row-split layout, once (pieces from the mean row, workspace as wide as the
 * operator's N hint). */
gcoo_status gcoo__cuda_op_build_split(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (o->tuned.split.item_begin) return GCOO_SUCCESS;
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(op->ctx, &g));
  const int64_t hint = op->opts.ncols_hint > 0 ? op->opts.ncols_hint : GCOO_DISPATCH_DEFAULT_N;
  gcoo_status st = gcoo_cuda_tuned_build_split(&o->csr, 0, hint, &o->tuned, op->ctx->stream);
  if (st >= 0) {
    const gcoo_cuda_split *P = &o->tuned.split;
    o->device_bytes += (size_t)P->nitems * 24 + (size_t)P->nlong * 16 + 8 +
                       (size_t)P->nwork * (size_t)P->work_cols * gcoo_dtype_size(o->csr.dtype);
    op->info.device_bytes = o->device_bytes;
  }
  gcoo__cuda_device_leave(&g);
  return st;
}

gcoo_status gcoo_cuda_op_set_option(gcoo_op op, gcoo_cuda_op_option key, int64_t value) {
  GCOO_CALL(check_cuda_op(op));
  cuda_op_state *o = gcoo__cuda_op(op);
  switch (key) {
    case GCOO_CUDA_OPT_TUNED_VARIANT:
      GCOO_CHECK(!o->tc_active || value == 0, GCOO_ERR_UNSUPPORTED,
                 "the operator runs the tensor-core mode (GCOO_MATH_TF32), which has no tuned "
                 "variants");
      GCOO_CHECK(value >= 0 && value <= gcoo_cuda_tuned_variant_count(), GCOO_ERR_INVALID_ARG,
                 "tuned variant %lld outside 0..%d", (long long)value,
                 gcoo_cuda_tuned_variant_count());
      if (gcoo_cuda_tuned_variant_resident((int)value) && o->alg == GCOO_ALG_GCOO)
        GCOO_CALL(gcoo__cuda_op_build_resident(op));
      if (gcoo_cuda_tuned_variant_split((int)value) && o->alg == GCOO_ALG_GCOO)
        GCOO_CALL(gcoo__cuda_op_build_split(op));
      if (gcoo_cuda_tuned_variant_ordered((int)value) && o->alg == GCOO_ALG_GCOO)
        GCOO_CALL(gcoo__cuda_op_build_order(op));
      o->variant = (int)value;
      o->details.variant = (int)value;
      return GCOO_SUCCESS;
    case GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR: o->cusparse_no_clear = value != 0; return GCOO_SUCCESS;
  }
  return GCOO_ERROR(GCOO_ERR_INVALID_ARG, "unknown CUDA operator option %d", (int)key);
}

gcoo_status gcoo_cuda_op_get_details(gcoo_op op, gcoo_cuda_op_details *d) {
  GCOO_CALL(check_cuda_op(op));
  GCOO_CHECK(d != NULL, GCOO_ERR_NULL, "details is NULL");
  *d = gcoo__cuda_op(op)->details;
  return GCOO_SUCCESS;
}

/* ---- operator setup ------------------------------------------------------------------------ */
/* The tensor-core kernel's developer parameters, each a value forced for measuring against the
 * trial's or the launcher's choice (0: not forced): GCOO_TC_KSPLIT=1|2|4 warps a window,
 * GCOO_TC_COLS=32|64|128 columns a tile. Accepted: base, 2 base, 4 base. */
static int tc_forced(gcoo__param p, int base) {
  const int64_t k = gcoo__param_int(p);
  return k == base || k == 2 * base || k == 4 * base ? (int)k : 0;
}

size_t gcoo__cuda_csr_bytes(const gcoo_cuda_csr *A) {
  return (size_t)(A->nrows + 1) * 8 + (size_t)A->nnz * (4 + gcoo_dtype_size(A->dtype));
}

/* Longest row of the host CSR (the row skew the dispatch rule looks at). */
static int64_t max_row_nnz(gcoo_sparse A) {
  gcoo_sparse_arrays a;
  gcoo_sparse_info ai;
  if (gcoo_sparse_get_arrays(A, &a) < 0 || gcoo_sparse_get_info(A, &ai) < 0 || !a.ptr) return 0;
  int64_t mx = 0;
  for (int64_t i = 0; i < ai.nrows; i++)
    if (a.ptr[i + 1] - a.ptr[i] > mx) mx = a.ptr[i + 1] - a.ptr[i];
  return mx;
}

/* The tuned layout at width p, its direct/staged preference from the reuse and the row skew. */
size_t gcoo__cuda_tuned_bytes(const gcoo_cuda_tuned *L, const gcoo_cuda_csr *A) {
  return (size_t)(L->ngroups + 1) * 8 + (size_t)L->ndistinct * 4 +
         (size_t)A->nnz * 2 * gcoo_dtype_size(A->dtype);
}
gcoo_status gcoo__cuda_op_tuned_setup(gcoo_op op, int32_t p, int64_t max_row_nnz) {
  cuda_op_state *o = gcoo__cuda_op(op);
  GCOO_CALL(gcoo_cuda_tuned_build(&o->csr, p, &o->tuned, NULL, op->ctx->stream));
  o->details.reuse = o->tuned.ndistinct > 0 ? (double)o->csr.nnz / (double)o->tuned.ndistinct : 0.0;
  const double avg = o->csr.nrows > 0 ? (double)o->csr.nnz / (double)o->csr.nrows : 0.0;
  const double skew = avg > 0 ? (double)max_row_nnz / avg : 0.0;
  o->tuned.prefer_direct = gcoo__dispatch_tuned_direct(o->details.reuse, skew);
  o->device_bytes += gcoo__cuda_tuned_bytes(&o->tuned, &o->csr);
  op->info.device_bytes = o->device_bytes;
  return GCOO_SUCCESS;
}

/* ---- the tensor-core layout (docs/kernels.md, "The tensor-core mode") -----------------------
 * Windows of GCOO_TC_ROWS rows of A in A's order, or in the order of gcoo__tc_row_order (rows
 * sharing columns in one window) where that needs at most TC_REORDER_MAX_TILES of the tiles: the
 * padding, not the schedule, is what the tensor-core kernel loses to on the real matrices
 * (9-15 tile slots a stored entry in A's order on cage11, ct2010, wiki-Vote, ca-CondMat,
 * delaunay_n16). Then the layout is built from a copy of A with its rows in that order, and the
 * kernel writes each of its rows to the row of Y it came from (tc.rowmap). */
#define TC_REORDER_MAX_TILES 0.9

gcoo_status gcoo__cuda_op_tc_setup(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  gcoo_sparse_arrays a;
  gcoo_sparse_info ai;
  int32_t *order = NULL;
  gcoo_sparse B = NULL;
  int64_t t_nat = 0, t_ord = 0;
  gcoo_status st = GCOO_SUCCESS;
  GCOO_GOTO(gcoo_sparse_get_arrays(op->A_csr, &a));
  GCOO_GOTO(gcoo_sparse_get_info(op->A_csr, &ai));
  if (ai.nrows > 0 && ai.nnz > 0 && a.ptr) {
    GCOO_GOTO(GCOO_MALLOC(order, ai.nrows, "tensor-core row order"));
    GCOO_GOTO(gcoo__tc_row_order(a.ptr, a.ind, ai.nrows, ai.ncols, GCOO_TC_ROWS, GCOO_TC_K, order,
                                 &t_nat, &t_ord));
  }
  const int reorder = t_nat > 0 && (double)t_ord <= TC_REORDER_MAX_TILES * (double)t_nat;
  if (reorder) {
    GCOO_GOTO(gcoo__csr_rows_permuted(op->A_csr, order, &B));
    GCOO_GOTO(gcoo_cuda_csr_upload(B, &o->tc_csr, s));
    GCOO_GOTO(gcoo_cuda_tuned_build(&o->tc_csr, GCOO_TC_ROWS, &o->tc_tuned, NULL, s));
    o->device_bytes += gcoo__cuda_csr_bytes(&o->tc_csr) +
                       gcoo__cuda_tuned_bytes(&o->tc_tuned, &o->tc_csr) + (size_t)ai.nrows * 4;
  } else {
    GCOO_GOTO(gcoo_cuda_tuned_build(&o->csr, GCOO_TC_ROWS, &o->tc_tuned, NULL, s));
    o->device_bytes += gcoo__cuda_tuned_bytes(&o->tc_tuned, &o->csr);
  }
  GCOO_GOTO(gcoo_cuda_tc_build(&o->tc_tuned, &o->tc, s));
  o->tc.force_ksplit = tc_forced(GCOO__P_TC_KSPLIT, 1);
  o->tc.force_cols = tc_forced(GCOO__P_TC_COLS, 32);
  o->device_bytes += (size_t)(o->tc.nwin + 1) * 8 +
                     (size_t)o->tc.ntiles * GCOO_TC_ROWS * GCOO_TC_K * sizeof(float);
  if (reorder) {
    GCOO_GOTO(gcoo__cuda_alloc((void **)&o->tc.rowmap, (size_t)ai.nrows * sizeof(int32_t),
                               "tensor-core row map"));
    GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(o->tc.rowmap, order, (size_t)ai.nrows * sizeof(int32_t),
                                        cudaMemcpyHostToDevice, s));
  }
  {
    const size_t wl = strlen(o->details.why);
    snprintf(o->details.why + wl, sizeof o->details.why - wl,
             "; %lld tiles in A's row order, %lld in the window order -> %s", (long long)t_nat,
             (long long)t_ord, reorder ? "rows reordered" : "A's order");
  }
done:
  cudaStreamSynchronize(s); /* the copies above read the host arrays freed here */
  free(order);
  gcoo_sparse_destroy(&B);
  return st;
}

gcoo_status gcoo__cuda_op_setup(gcoo_op op) {
  gcoo_status st = GCOO_SUCCESS;
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  gcoo__cuda_device_guard g = {0, 0};
  cuda_op_state *o = NULL;
  GCOO_CALL(gcoo__cuda_device_enter(op->ctx, &g));
  GCOO_GOTO(gcoo__calloc((void **)&o, 1, sizeof *o, "CUDA operator state"));
  op->backend = o;          /* from here, a failure is cleaned up by op_destroy */
  o->cusparse_no_clear = 1; /* see GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR */
  GCOO_GOTO(gcoo_cuda_csr_upload(op->A_csr, &o->csr, s));
  o->device_bytes = gcoo__cuda_csr_bytes(&o->csr);

  gcoo_spdm_alg alg = op->opts.alg;
  int32_t p = op->opts.p;
  int resident = 0; /* AUTO chose the tuned kernel's X-resident variant */
  int rowsplit = 0; /* ... or its row-split variant */
  snprintf(o->details.why, sizeof o->details.why, "forced");
  /* the tensor-core mode (opt-in, float), on windows of 16 rows: GCOO runs it; AUTO makes its
   * exact choice and then times the tensor-core kernel against it (tc_trial) */
  o->tc_mode = op->opts.math == GCOO_MATH_TF32 && o->csr.dtype == GCOO_FLOAT32 &&
               (alg == GCOO_ALG_AUTO || alg == GCOO_ALG_GCOO);
  if (o->tc_mode && alg == GCOO_ALG_GCOO) {
    o->tc_active = 1;
    p = GCOO_TC_ROWS;
    snprintf(o->details.why, sizeof o->details.why,
             "tensor-core mode (GCOO_MATH_TF32): TF32 tiles of windows of %d rows", GCOO_TC_ROWS);
  }
  /* the reuse statistics: AUTO needs them, and so does GCOO when p is not given */
  if ((alg == GCOO_ALG_AUTO || (alg == GCOO_ALG_GCOO && p == 0)) && o->csr.nnz > 0) {
    GCOO_GOTO(gcoo_cuda_reuse_stats(&o->csr, STATS_NLOG, o->details.distinct_by_log2p, s));
    o->details.nstats = STATS_NLOG;
  }
  gcoo_dispatch_in din = {o->csr.dtype,
                          o->csr.nrows,
                          o->csr.ncols,
                          op->opts.ncols_hint,
                          o->csr.nnz,
                          o->details.nstats,
                          o->details.distinct_by_log2p,
                          gcoo__param_bool(GCOO__P_ALLOW_TF32),
                          0,
                          c->dev.sm_count,
                          max_row_nnz(op->A_csr),
                          (int64_t)c->dev.smem_per_block_optin};
  if (alg == GCOO_ALG_AUTO) {
    size_t bytes = 0;
    GCOO_GOTO(gcoo__dense_fits(op, &bytes, &din.dense_fits));
    gcoo_dispatch_out dout;
    gcoo__dispatch(&din, &dout);
    alg = dout.alg;
    if (alg == GCOO_ALG_GCOO && p == 0) p = dout.p;
    resident = dout.resident;
    rowsplit = dout.rowsplit;
    snprintf(o->details.why, sizeof o->details.why, "%s", dout.why);
  }
  switch (alg) {
    case GCOO_ALG_GCOO_FAITHFUL:
      if (p == 0) p = GCOO_FAITHFUL_P;
      GCOO_CHECK_GOTO(p <= 32, GCOO_ERR_UNSUPPORTED,
                      "the faithful GCOOSpDM kernel keeps one register accumulator per column of "
                      "a group: it supports p <= 32, not p = %d (use GCOO_ALG_GCOO for wider "
                      "groups)",
                      p);
      GCOO_GOTO(gcoo_cuda_csr_to_gcoo(&o->csr, p, &o->gcoo, s));
      o->device_bytes += (size_t)(o->gcoo.ngroups * 2 + 1) * 8 +
                         (size_t)o->gcoo.nnz * (8 + gcoo_dtype_size(o->gcoo.dtype));
      break;
    case GCOO_ALG_GCOO:
      /* the caller asked for the tuned kernel without a width: its variant by the same rule */
      if (op->opts.alg == GCOO_ALG_GCOO && p == 0) {
        resident = gcoo__dispatch_resident(&din);
        rowsplit = !resident && gcoo__dispatch_split(&din);
      }
      if (p == 0) p = gcoo__dispatch_choose_p(&din, NULL);
      if (p == 0) p = GCOO_DEFAULT_P; /* nnz = 0: any width */
      if (o->tc_active)
        GCOO_GOTO(gcoo__cuda_op_tc_setup(op));
      else
        GCOO_GOTO(gcoo__cuda_op_tuned_setup(op, p, din.max_row_nnz));
      if (resident) {
        GCOO_GOTO(gcoo__cuda_op_build_resident(op));
        o->tuned.prefer_resident = 1;
      }
      if (rowsplit) {
        GCOO_GOTO(gcoo__cuda_op_build_split(op));
        o->tuned.prefer_split = 1;
      }
      break;
    case GCOO_ALG_CUSPARSE:
    case GCOO_ALG_CUSPARSE_DEFAULT:
    case GCOO_ALG_CUSPARSE_CSR_ALG2:
    case GCOO_ALG_CUSPARSE_CSR_ALG3:
      p = 0;
      GCOO_GOTO(gcoo__cusparse_setup(op));
      break;
    case GCOO_ALG_DENSE_TF32:
      GCOO_CHECK_GOTO(o->csr.dtype == GCOO_FLOAT32, GCOO_ERR_UNSUPPORTED,
                      "dense_tf32 (TF32 tensor cores) is for float operators; use dense for "
                      "double");
      /* fall through */
    case GCOO_ALG_DENSE:
      p = 0;
      GCOO_GOTO(gcoo__dense_setup(op));
      break;
    default:
      GCOO_CHECK_GOTO(0, GCOO_ERR_INVALID_ARG, "algorithm %s is not served by the CUDA backend",
                      gcoo_spdm_alg_name(alg));
  }
  o->alg = alg;
  /* GCOO with its width left to the library (or AUTO's rule choosing it): its shape at N */
  if (alg == GCOO_ALG_GCOO && op->opts.p == 0 && op->opts.ncols_hint > 0 && !o->tc_active)
    GCOO_GOTO(gcoo__cuda_shape_trial(op, op->opts.ncols_hint));
  if (op->opts.alg == GCOO_ALG_AUTO) {
    GCOO_GOTO(gcoo__cuda_auto_trial(op, &din, &p));
    if (o->tc_mode) GCOO_GOTO(gcoo__cuda_tc_trial(op, &din, &p));
    alg = o->alg;
  }
  o->details.tensor_cores = o->tc_active;
  o->details.alg = alg;
  o->details.p = p;
  op->info.alg = alg;
  op->info.p = p;
  op->info.device_bytes = o->device_bytes;
  /* setup_seconds (measured by src/op.c) must include the GPU work */
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
done:
  gcoo__cuda_device_leave(&g);
  return st;
}

gcoo_status gcoo__cuda_op_destroy(gcoo_op op) {
  cuda_op_state *o = gcoo__cuda_op(op);
  if (!o) return GCOO_SUCCESS;
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(op->ctx, &g));
  /* queued applies may still read the operator's arrays */
  gcoo_status st = gcoo__cuda_status(cudaStreamSynchronize((cudaStream_t)op->ctx->stream),
                                     "cudaStreamSynchronize", __FILE__, __LINE__, __func__);
  gcoo__cusparse_destroy(op);
  gcoo__dense_destroy(op);
  gcoo_cuda_gcoo_free(&o->gcoo);
  gcoo_cuda_tc_free(&o->tc);
  gcoo_cuda_tuned_free(&o->tc_tuned);
  gcoo_cuda_tuned_free(&o->tuned);
  gcoo_cuda_csr_free(&o->tc_csr);
  gcoo_cuda_csr_free(&o->csr);
  void *const buffers[] = {o->xbuf, o->ybuf};
  gcoo__cuda_free_each(buffers, 2);
  free(o);
  op->backend = NULL;
  gcoo__cuda_device_leave(&g);
  return st;
}

/* A grow-only device buffer for a host operand. */
static gcoo_status ensure_buffer(void **buf, size_t *have, size_t need, const char *what) {
  if (need <= *have && *buf) return GCOO_SUCCESS;
  cudaFree(*buf);
  (void)cudaGetLastError();
  *buf = NULL;
  *have = 0;
  GCOO_CALL(gcoo__cuda_alloc(buf, need, what));
  *have = need;
  return GCOO_SUCCESS;
}

/* Copy a dense matrix between host and device (same layout, leading dimensions may differ). */
static gcoo_status copy_dense(void *dst, int64_t dld, const void *src, int64_t sld,
                              gcoo_layout layout, int64_t nrows, int64_t ncols, size_t es,
                              cudaStream_t s) {
  const int64_t minor = layout == GCOO_ROW_MAJOR ? ncols : nrows;
  const int64_t major = layout == GCOO_ROW_MAJOR ? nrows : ncols;
  if (minor == 0 || major == 0) return GCOO_SUCCESS;
  /* the pointers tell the direction (kernels/backend/copy_staged.c stages large pageable copies) */
  GCOO_CALL(gcoo__cuda_copy_rows(dst, (size_t)dld * es, src, (size_t)sld * es, (size_t)minor * es,
                                 major, s));
  return GCOO_SUCCESS;
}

/* A device view of an operand: the caller's memory, or a copy of a host operand. */
static gcoo_status device_operand(gcoo_op op, const gcoo_dense *D, int copy_in, void **buf,
                                  size_t *have, const char *what, cuda_operand *out) {
  const size_t es = gcoo_dtype_size(D->dtype);
  out->layout = D->layout;
  out->nrows = D->nrows;
  out->ncols = D->ncols;
  if (D->mem == GCOO_MEM_DEVICE) {
    out->data = D->data;
    out->ld = D->ld;
    if (D->nrows * D->ncols > 0) GCOO_CALL(gcoo__cuda_check_pointer(op->ctx, D->data, what));
    return GCOO_SUCCESS;
  }
  /* host: a device copy whose rows (or columns) start 16-byte aligned */
  const int64_t vec = (int64_t)(16 / es);
  const int64_t minor = D->layout == GCOO_ROW_MAJOR ? D->ncols : D->nrows;
  const int64_t major = D->layout == GCOO_ROW_MAJOR ? D->nrows : D->ncols;
  out->ld = ((minor > 0 ? minor : 1) + vec - 1) / vec * vec;
  GCOO_CALL(ensure_buffer(buf, have, (size_t)(major > 0 ? major : 1) * (size_t)out->ld * es, what));
  out->data = *buf;
  if (copy_in)
    GCOO_CALL(copy_dense(out->data, out->ld, D->data, D->ld, D->layout, D->nrows, D->ncols, es,
                         (cudaStream_t)op->ctx->stream));
  return GCOO_SUCCESS;
}

/* Y = beta Y on an operand of either layout (the product of an empty A). */
static gcoo_status scale_operand(gcoo_dtype dt, double beta, const cuda_operand *Y,
                                 cudaStream_t s) {
  if (Y->layout == GCOO_ROW_MAJOR)
    GCOO_CALL(gcoo_cuda_scale(dt, Y->nrows, Y->ncols, beta, Y->data, Y->ld, s));
  else
    GCOO_CALL(gcoo_cuda_scale(dt, Y->ncols, Y->nrows, beta, Y->data, Y->ld, s));
  return GCOO_SUCCESS;
}

gcoo_status gcoo__cuda_op_run(gcoo_op op, double alpha, const cuda_operand *X, double beta,
                              const cuda_operand *Y) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cuda_ctx_state *c = gcoo__cuda_ctx(op->ctx);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  const int64_t N = X->ncols;
  if (o->csr.nrows == 0 || N == 0) return GCOO_SUCCESS;
  if (o->csr.nnz == 0 || o->csr.ncols == 0) {
    GCOO_CALL(scale_operand(o->csr.dtype, beta, Y, s));
    return GCOO_SUCCESS;
  }
  gcoo_spdm_alg alg = o->alg;
  const int rowmajor = X->layout == GCOO_ROW_MAJOR && Y->layout == GCOO_ROW_MAJOR;
  if ((alg == GCOO_ALG_GCOO || alg == GCOO_ALG_GCOO_FAITHFUL) && !rowmajor) {
    GCOO_CHECK(op->opts.alg == GCOO_ALG_AUTO, GCOO_ERR_UNSUPPORTED,
               "the GCOO kernels take X and Y row-major in the SPARSE_DENSE frame (column-major "
               "in the DENSE_SPARSE reading); got X %s, Y %s: use GCOO_ALG_AUTO, a cuSPARSE or "
               "a dense algorithm for other layouts",
               X->layout == GCOO_ROW_MAJOR ? "row-major" : "column-major",
               Y->layout == GCOO_ROW_MAJOR ? "row-major" : "column-major");
    /* AUTO: serve the other layouts with cuSPARSE (its descriptor made on first need) */
    if (!o->spA) {
      double t0 = gcoo__wtime();
      GCOO_CALL(gcoo__cusparse_setup(op));
      op->info.setup_seconds += gcoo__wtime() - t0;
    }
    alg = GCOO_ALG_CUSPARSE;
  }
  switch (alg) {
    case GCOO_ALG_GCOO_FAITHFUL:
      GCOO_CALL(
          gcoo_cuda_spdm_faithful(&o->gcoo, alpha, X->data, X->ld, beta, Y->data, Y->ld, N, s));
      break;
    case GCOO_ALG_GCOO:
      if (o->tc_active)
        GCOO_CALL(gcoo_cuda_spdm_tc(&o->tc, &c->dev, alpha, X->data, X->ld, beta, Y->data, Y->ld, N,
                                    s, &o->details.last));
      else
        GCOO_CALL(gcoo_cuda_spdm_tuned(&o->tuned, o->variant, &c->dev, alpha, X->data, X->ld, beta,
                                       Y->data, Y->ld, N, s, &o->details.last));
      break;
    case GCOO_ALG_DENSE:
    case GCOO_ALG_DENSE_TF32:
      GCOO_CALL(gcoo__dense_apply(op, alg == GCOO_ALG_DENSE_TF32, alpha, X, beta, Y));
      break;
    default: GCOO_CALL(gcoo__cusparse_apply(op, alg, alpha, X, beta, Y));
  }
  return GCOO_SUCCESS;
}

gcoo_status gcoo__cuda_op_apply(gcoo_op op, double alpha, const gcoo_dense *X, double beta,
                                gcoo_dense *Y) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  gcoo_status st = GCOO_SUCCESS;
  gcoo__cuda_device_guard g = {0, 0};
  cuda_operand dX, dY;
  GCOO_CHECK(o != NULL, GCOO_ERR_INTERNAL, "operator has no CUDA state");
  GCOO_CALL(gcoo__cuda_device_enter(op->ctx, &g));
  GCOO_GOTO(device_operand(op, X, 1, &o->xbuf, &o->xbuf_bytes, "X", &dX));
  GCOO_GOTO(device_operand(op, Y, beta != 0.0, &o->ybuf, &o->ybuf_bytes, "Y", &dY));
  GCOO_GOTO(gcoo__cuda_op_run(op, alpha, &dX, beta, &dY));
  if (Y->mem == GCOO_MEM_HOST) {
    GCOO_GOTO(copy_dense(Y->data, Y->ld, dY.data, dY.ld, Y->layout, Y->nrows, Y->ncols,
                         gcoo_dtype_size(Y->dtype), s));
    GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  }
done:
  gcoo__cuda_device_leave(&g);
  return st;
}
