/* SPDX-License-Identifier: MIT */
/* kernels/spdm/op_trial.c: the CUDA operator's plan-time trials (docs/dispatch.md): AUTO's choice
 * among its candidates timed once at set-up, the tuned kernel's shape, and the tensor-core mode
 * against the exact choice. Each keeps the rule's choice where it fails or gains too little. */
#include <stdio.h>
#include <string.h>

#include "backend/backend_cuda_impl.h"
#include "op_cuda.h"
#include "params.h"
/* ---- AUTO's plan-time trial (docs/dispatch.md, "The plan-time trial") -----------------------
 * The rule's misjudgements are scattered (zenios at N = 128 tuned 0.74x, delaunay_n16 in double
 * at N = 512, kron4:ca-CondMat at N = 128 ALG2 0.89x of the best cuSPARSE) and the tuned kernel
 * wins about 40 cases the rule gives to cuSPARSE (mostly N = 32): no threshold separates them.
 * So AUTO times its candidates once, at setup, on the hint's N: the rule's choice, CSR_ALG2,
 * CSR_ALG3, and the tuned kernel (p = 32): where rows are not skewed its own variant, where they
 * are and the longest row spans enough pieces (gcoo__dispatch_split) its row-split variant
 * (kron8:rajat01 at 1.40x and 1.05x of the best cuSPARSE at N = 512 and 128, where the rule's
 * ALG2/ALG3 stand); an alternative replaces the rule's choice only when
 * TRIAL_MIN_GAIN faster. Skipped for dense choices, for products too
 * large to time cheaply, and with GCOO_AUTO_TRIAL=0. A failed trial leaves the rule's choice. */
#define TRIAL_MAX_WORK 4.0e9                /* nnz x N above which the rule stands untimed */
#define TRIAL_MAX_BYTES ((size_t)768 << 20) /* X and Y of the trial at most */
#define TRIAL_REPS 5                        /* timed applies per candidate (the median) */
#define TRIAL_MIN_GAIN 0.93                 /* time ratio an alternative must beat */

static int env_trial_off(void) { return !gcoo__param_bool(GCOO__P_AUTO_TRIAL); }

/* Median GPU time of TRIAL_REPS applies, queued back to back behind a spin kernel (as the
 * benchmark times): host launch gaps, which differ between cuSPARSE and the GCOO kernels, stay
 * out, and so the trial ranks the candidates as the benchmark's per-launch events do. */
static gcoo_status trial_time(gcoo_op op, const cuda_operand *X, const cuda_operand *Y, float *ms) {
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  cudaEvent_t ev[2 * TRIAL_REPS + 2];
  int nev = 0;
  gcoo_status st = GCOO_SUCCESS;
  *ms = -1;
  for (; nev < 2 * TRIAL_REPS + 2; nev++) GCOO_CALL_CUDA_GOTO(cudaEventCreate(&ev[nev]));
  /* warm-up (plans, caches), timed alone: an upper bound of one apply, to size the spin */
  GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[0], s));
  GCOO_GOTO(gcoo__cuda_op_run(op, 1.0, X, 0.0, Y));
  GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[1], s));
  GCOO_CALL_CUDA_GOTO(cudaEventSynchronize(ev[1]));
  float first = 0;
  GCOO_CALL_CUDA_GOTO(cudaEventElapsedTime(&first, ev[0], ev[1]));
  const double spin_us = 1e3 * first * TRIAL_REPS + 30.0 * TRIAL_REPS + 100.0;
  gcoo_cuda_spin(s, spin_us < 20000 ? spin_us : 20000);
  for (int r = 0; r < TRIAL_REPS; r++) {
    GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[2 + 2 * r], s));
    GCOO_GOTO(gcoo__cuda_op_run(op, 1.0, X, 0.0, Y));
    GCOO_CALL_CUDA_GOTO(cudaEventRecord(ev[3 + 2 * r], s));
  }
  GCOO_CALL_CUDA_GOTO(cudaEventSynchronize(ev[1 + 2 * TRIAL_REPS]));
  float t[TRIAL_REPS];
  for (int r = 0; r < TRIAL_REPS; r++) {
    GCOO_CALL_CUDA_GOTO(cudaEventElapsedTime(&t[r], ev[2 + 2 * r], ev[3 + 2 * r]));
    for (int q = r; q > 0 && t[q] < t[q - 1]; q--) { /* insertion sort: median below */
      const float tmp = t[q];
      t[q] = t[q - 1];
      t[q - 1] = tmp;
    }
  }
  *ms = t[TRIAL_REPS / 2];
done:
  for (int i = 0; i < nev; i++) cudaEventDestroy(ev[i]);
  return st;
}

static const char *trial_name(gcoo_spdm_alg a, int split) {
  return a == GCOO_ALG_GCOO                ? (split ? "split" : "tuned")
         : a == GCOO_ALG_CUSPARSE_CSR_ALG2 ? "alg2"
                                           : "alg3";
}

/* The operands both trials time on: X and Y (row-major, N columns, rows padded to 16 bytes), X
 * every byte 0x3c (0.0115 in float, 1.6e-19 in double: finite, nonzero). Returns 0 (nothing
 * allocated) where the product is too large to time cheaply. */
typedef struct trial_operands {
  void *X, *Y;
  cuda_operand dX, dY;
} trial_operands;

static int trial_fits(const cuda_op_state *o, int64_t N, int64_t *ld, size_t *xb, size_t *yb) {
  const size_t es = gcoo_dtype_size(o->csr.dtype);
  *ld = (N + (int64_t)(16 / es) - 1) / (int64_t)(16 / es) * (int64_t)(16 / es);
  *xb = (size_t)(o->csr.ncols > 0 ? o->csr.ncols : 1) * (size_t)*ld * es;
  *yb = (size_t)(o->csr.nrows > 0 ? o->csr.nrows : 1) * (size_t)*ld * es;
  return !env_trial_off() && o->csr.nnz > 0 && o->csr.nnz <= INT32_MAX &&
         (double)o->csr.nnz * (double)N <= TRIAL_MAX_WORK && *xb + *yb <= TRIAL_MAX_BYTES;
}

static gcoo_status trial_operands_make(gcoo_op op, int64_t N, int64_t ld, size_t xb, size_t yb,
                                       trial_operands *t) {
  cuda_op_state *o = gcoo__cuda_op(op);
  cudaStream_t s = (cudaStream_t)op->ctx->stream;
  memset(t, 0, sizeof *t);
  GCOO_CALL(gcoo__cuda_alloc(&t->X, xb, "trial X"));
  GCOO_CALL(gcoo__cuda_alloc(&t->Y, yb, "trial Y"));
  GCOO_CALL_CUDA(cudaMemsetAsync(t->X, 0x3c, xb, s));
  GCOO_CALL_CUDA(cudaMemsetAsync(t->Y, 0, yb, s));
  t->dX = (cuda_operand){.data = t->X,
                         .layout = GCOO_ROW_MAJOR,
                         .nrows = o->csr.ncols,
                         .ncols = N,
                         .ld = ld};
  t->dY = (cuda_operand){.data = t->Y,
                         .layout = GCOO_ROW_MAJOR,
                         .nrows = o->csr.nrows,
                         .ncols = N,
                         .ld = ld};
  return GCOO_SUCCESS;
}

static void trial_operands_free(gcoo_op op, trial_operands *t) {
  cudaStreamSynchronize((cudaStream_t)op->ctx->stream);
  cudaFree(t->X);
  cudaFree(t->Y);
  (void)cudaGetLastError();
  memset(t, 0, sizeof *t);
}

/* ---- the tuned kernel's shape trial (docs/dispatch.md, "The shape trial") -------------------
 * The rule gives the direct kernel GCOO groups (p rows) as blocks and its vectors a thread from
 * five inputs; the H200 sweep (bench/results/h200-spdm-sweep.csv) found 8-row blocks at 2
 * vectors a thread 5-25 % faster on short random rows (random 2000-14000 at sparsity
 * 0.999-0.9995, where CSR_ALG2 stood level with the tuned kernel), and the rule's width 2-17 %
 * off the best on delaunay_n16, kron:cage11 and stencil7. So where the tuned kernel runs its
 * direct or staged variant (not X-resident, row-split or tensor-core) and N is known, setup
 * times, at that N, the variant its rule chose and the direct kernel in blocks of 8 and 32 rows
 * at 1, 2 and 4 vectors a thread (no tile twice as wide as N needs), and keeps the fastest shape
 * where it beats the rule's by SHAPE_MIN_GAIN. The batched kernel's shapes are candidates too.
 * Every direct and batched shape sums each element's terms in the row's order, so the result does
 * not depend on the choice. */
#define SHAPE_MIN_GAIN 0.97 /* time ratio a shape must beat the rule's variant by */

static gcoo_status shape_trial(gcoo_op op, const trial_operands *t, int64_t N) {
  cuda_op_state *o = gcoo__cuda_op(op);
  gcoo_cuda_tuned *L = &o->tuned;
  if (o->tc_active || L->prefer_resident || !L->entries || o->variant != 0) return GCOO_SUCCESS;
  /* skewed rows (the rule chose the row-split kernel): its items longest first and the
   * batched kernel's shapes against it; no direct shape (a long row holds its block back) */
  const int split = L->prefer_split;
  /* the candidates: the direct kernel in blocks of 8 and 32 rows at 1, 2, 4 vectors a thread;
   * the batched kernel (batches of 8, 16 or 32 entries at 1 vector, 8 or 16 at 2, 8 at 4) at the one
   * width that covers N (or the widest), in blocks of 4 and 16 rows, in A's order and longest
   * rows first; for skewed rows, the row-split items longest first */
  typedef struct {
    int32_t rows, vpt, batch, ordered, split;
  } shape;
  shape cand[32];
  int nc = 0;
  const int vec = 16 / (int)gcoo_dtype_size(o->csr.dtype);
  static const int32_t vpts[] = {1, 2, 4};
  for (int r = 0; r < 2 && !split; r++)
    for (int v = 0; v < 3; v++)
      if (vpts[v] == 1 || 8 * (vpts[v] / 2) * vec < N) /* else a narrower tile covers N */
        cand[nc++] = (shape){r ? 32 : 8, vpts[v], 0, 0, 0};
  if (split && gcoo__cuda_op_build_split_order(op) >= 0) cand[nc++] = (shape){0, 0, 0, 1, 1};
  const int packed = N % vec == 0 && t->dX.ld % vec == 0;
  int bv = 1;
  while (bv < 4 && 8 * bv * vec < N) bv *= 2;
  /* every batch size the batched kernel has an instance for at this width (kernels/
   * spdm_batched.cu, batched_for: the one list of them) */
  const int order_ok = packed && gcoo__cuda_op_build_order(op) >= 0;
  for (int batch = 8; packed && batch <= 32; batch *= 2)
    if (gcoo_cuda_batched_supported(batch, bv))
      for (int r = 0; r < 2; r++)
        for (int ord = 0; ord <= order_ok; ord++)
          cand[nc++] = (shape){r ? 16 : 4, bv, batch, ord, 0};
  (void)cudaGetLastError();
  L->shape_n = 0;
  L->shape_batch = 0;
  L->shape_ordered = 0;
  L->split.ordered = 0;
  float rule = -1, best = -1;
  int bi = -1;
  if (trial_time(op, &t->dX, &t->dY, &rule) < 0) {
    (void)cudaGetLastError();
    return GCOO_SUCCESS; /* the rule's variant stands */
  }
  const char *rule_name = split ? "row-split" : L->prefer_direct ? "direct" : "staged";
  /* every candidate's time in the log (GCOO_DEBUG=TRACE, subsystem TRIAL) */
  GCOO_LOG(GCOO_LOG_TRACE, "TRIAL", "shape trial: N %lld rule (%s): %.4g ms", (long long)N,
           rule_name, rule);
  for (int c = 0; c < nc; c++) {
    L->prefer_split = cand[c].split;
    L->split.ordered = cand[c].split;
    L->shape_n = cand[c].split ? 0 : N;
    L->shape_rows = cand[c].rows;
    L->shape_vpt = cand[c].vpt;
    L->shape_batch = cand[c].batch;
    L->shape_ordered = cand[c].split ? 0 : cand[c].ordered;
    float ms = -1;
    if (trial_time(op, &t->dX, &t->dY, &ms) < 0) {
      ms = -1;
      (void)cudaGetLastError();
    }
    GCOO_LOG(GCOO_LOG_TRACE, "TRIAL",
             "shape trial: N %lld %s %d rows x %d vectors, batch %d%s: %.4g ms", (long long)N,
             cand[c].split   ? "row-split"
             : cand[c].batch ? "batched"
                             : "direct",
             cand[c].rows, cand[c].vpt, cand[c].batch, cand[c].ordered ? " ordered" : "", ms);
    if (ms > 0 && (best < 0 || ms < best)) {
      best = ms;
      bi = c;
    }
  }
  const int take = bi >= 0 && rule > 0 && best < SHAPE_MIN_GAIN * rule;
  const shape none = {0, 0, 0, 0, 0}, pick = take ? cand[bi] : none;
  L->prefer_split = split && (!take || pick.split);
  L->split.ordered = pick.split;
  L->shape_n = take && !pick.split ? N : 0;
  L->shape_rows = pick.rows;
  L->shape_vpt = pick.vpt;
  L->shape_batch = pick.batch;
  L->shape_ordered = pick.split ? 0 : pick.ordered;
  const size_t wl = strlen(o->details.why);
  const shape shown = bi >= 0 ? cand[bi] : none;
  char kind[48];
  if (shown.split)
    snprintf(kind, sizeof kind, "row-split, items longest first");
  else if (shown.batch)
    snprintf(kind, sizeof kind, "batched %d%s %d rows x %d vectors", shown.batch,
             shown.ordered ? " ordered" : "", shown.rows, shown.vpt);
  else
    snprintf(kind, sizeof kind, "direct %d rows x %d vectors", shown.rows, shown.vpt);
  snprintf(o->details.why + wl, sizeof o->details.why - wl,
           "; shape trial at N = %lld: %s %.4g ms, %s %.4g ms -> %s", (long long)N, rule_name, rule,
           kind, best, take ? "that shape" : "rule");
  return GCOO_SUCCESS;
}

/* The shape trial on its own operands (GCOO without p, or AUTO's rule choosing it). */
gcoo_status gcoo__cuda_shape_trial(gcoo_op op, int64_t N) {
  cuda_op_state *o = gcoo__cuda_op(op);
  int64_t ld;
  size_t xb, yb;
  if (!trial_fits(o, N, &ld, &xb, &yb)) return GCOO_SUCCESS;
  trial_operands t;
  gcoo_status st = trial_operands_make(op, N, ld, xb, yb, &t);
  if (st >= 0) st = shape_trial(op, &t, N);
  trial_operands_free(op, &t);
  if (st < 0) { /* the trial itself failed (memory, say): the rule's variant stands */
    (void)cudaGetLastError();
    o->tuned.shape_n = 0;
  }
  return GCOO_SUCCESS;
}

/* Time the candidates and keep the fastest (o->alg, the layouts, details); on return the
 * operator is set up for its final choice. *p is the group width (0 for cuSPARSE). */
gcoo_status gcoo__cuda_auto_trial(gcoo_op op, const gcoo_dispatch_in *din, int32_t *p) {
  cuda_op_state *o = gcoo__cuda_op(op);
  const gcoo_spdm_alg rule = o->alg;
  const int64_t N = din->n > 0 ? din->n : GCOO_DISPATCH_DEFAULT_N;
  int64_t ld;
  size_t xb, yb;
  if (!trial_fits(o, N, &ld, &xb, &yb) ||
      !(rule == GCOO_ALG_GCOO || rule == GCOO_ALG_CUSPARSE_CSR_ALG2 ||
        rule == GCOO_ALG_CUSPARSE_CSR_ALG3))
    return GCOO_SUCCESS;
  const double avg = (double)o->csr.nnz / (double)o->csr.nrows;
  const int tuned_ok = rule == GCOO_ALG_GCOO ||
                       (gcoo__dispatch_choose_p(din, NULL) > 0 && avg > 0 &&
                        (double)din->max_row_nnz / avg < GCOO_DISPATCH_TRIAL_MAX_ROW_SKEW);
  /* skewed rows: the tuned kernel through its row-split variant where the longest row spans
   * enough pieces, else as GCOO without p runs it: the rule's variant against the direct
   * kernel's shapes (shape_trial). On moderately skewed rows the direct kernel runs ct2010, FA,
   * add32 and their Kronecker tilings 1.2-1.7x faster than the cuSPARSE algorithm a trial
   * without it keeps (H200). */
  const int split_ok = !tuned_ok && gcoo__dispatch_choose_p(din, NULL) > 0 &&
                       gcoo__dispatch_split(din);
  const int skewed_ok = !tuned_ok && !split_ok && gcoo__dispatch_choose_p(din, NULL) > 0;
  gcoo_spdm_alg cands[4];
  int nc = 0;
  cands[nc++] = rule;
  if (rule != GCOO_ALG_CUSPARSE_CSR_ALG3) cands[nc++] = GCOO_ALG_CUSPARSE_CSR_ALG3;
  if (rule != GCOO_ALG_CUSPARSE_CSR_ALG2) cands[nc++] = GCOO_ALG_CUSPARSE_CSR_ALG2;
  if (rule != GCOO_ALG_GCOO && (tuned_ok || split_ok || skewed_ok)) cands[nc++] = GCOO_ALG_GCOO;
  trial_operands t;
  gcoo_status st = GCOO_SUCCESS;
  float ms[4] = {-1, -1, -1, -1};
  int32_t tuned_p = rule == GCOO_ALG_GCOO ? *p : 0;
  GCOO_GOTO(trial_operands_make(op, N, ld, xb, yb, &t));
  if (!o->spA) GCOO_GOTO(gcoo__cusparse_setup(op));
  for (int c = 0; c < nc; c++) {
    o->alg = cands[c];
    if (cands[c] == GCOO_ALG_GCOO && rule != GCOO_ALG_GCOO) {
      tuned_p = gcoo__dispatch_choose_p(din, NULL);
      if (gcoo__cuda_op_tuned_setup(op, tuned_p, din->max_row_nnz) < 0) break;
      if (split_ok) {
        if (gcoo__cuda_op_build_split(op) < 0) break;
        o->tuned.prefer_split = 1;
      }
      GCOO_GOTO(shape_trial(op, &t, N)); /* the tuned candidate in its best shape */
    }
    if (trial_time(op, &t.dX, &t.dY, &ms[c]) < 0) {
      ms[c] = -1;
      (void)cudaGetLastError();
    }
  }
  /* the fastest; the rule's choice unless that is TRIAL_MIN_GAIN faster */
  int best = 0;
  for (int c = 1; c < nc; c++)
    if (ms[c] > 0 && (ms[best] <= 0 || ms[c] < ms[best])) best = c;
  if (best != 0 && ms[0] > 0 && ms[best] >= TRIAL_MIN_GAIN * ms[0]) best = 0;
  o->alg = cands[best];
  if (o->alg != GCOO_ALG_GCOO && o->tuned.entries) {
    gcoo_cuda_tuned_free(&o->tuned); /* frees its resident and row-split layouts too */
    memset(&o->tuned, 0, sizeof o->tuned);
    o->details.reuse = 0;
    o->device_bytes = gcoo__cuda_csr_bytes(&o->csr) +
                      (size_t)(o->csr.nrows + 1) * 4; /* + cuSPARSE's */
  }
  *p = o->alg == GCOO_ALG_GCOO ? tuned_p : 0;
  {
    char tail[160];
    int len = snprintf(tail, sizeof tail, "; trial at N = %lld:", (long long)N);
    for (int c = 0; c < nc && len < (int)sizeof tail; c++)
      len += snprintf(tail + len, sizeof tail - (size_t)len, " %s %.4g ms",
                      trial_name(cands[c], split_ok), ms[c]);
    if (len < (int)sizeof tail)
      snprintf(tail + len, sizeof tail - (size_t)len, " -> %s", trial_name(o->alg, split_ok));
    const size_t wl = strlen(o->details.why);
    snprintf(o->details.why + wl, sizeof o->details.why - wl, "%s", tail);
  }
done:
  if (st < 0) {
    /* the trial itself failed (memory, say): the rule's choice stands, set up as it was */
    (void)cudaGetLastError();
    o->alg = rule;
    st = GCOO_SUCCESS;
  }
  trial_operands_free(op, &t);
  return st;
}

/* ---- the tensor-core mode under AUTO (docs/dispatch.md, "The tensor-core mode") ------------
 * TF32 math allows the tensor-core kernel; it does not oblige the library to run it where it is
 * slower, as cuBLAS's TF32 mode does not. The kernel wins where windows of 16 rows are dense
 * (bcsstk24, bcsstk33, cavity19, TSOPF: 1.1-1.3x faster than the exact kernel at N >= 128) and
 * loses where its tiles are mostly padding (cage11, ct2010, wiki-Vote: 1.4-2.5x slower on an
 * H200). So once AUTO's exact choice is set up, the tensor-core
 * layout is built beside it and both are timed at the N hint (narrower where the operands at the
 * hint are too large to time); the slower one is freed. Without a trial (GCOO_AUTO_TRIAL=0, or
 * too large even at N = TC_TRIAL_MIN_N) the tensor-core kernel serves, as asked. */
#define TC_TRIAL_MIN_N 64 /* the narrowest N the TF32 trial times at */

static void tc_release(cuda_op_state *o) {
  gcoo_cuda_tc_free(&o->tc);
  gcoo_cuda_tuned_free(&o->tc_tuned);
  memset(&o->tc_tuned, 0, sizeof o->tc_tuned);
  gcoo_cuda_csr_free(&o->tc_csr);
  o->tc_active = 0;
}

gcoo_status gcoo__cuda_tc_trial(gcoo_op op, const gcoo_dispatch_in *din, int32_t *p) {
  cuda_op_state *o = gcoo__cuda_op(op);
  const gcoo_spdm_alg exact = o->alg;
  const size_t bytes_exact = o->device_bytes;
  /* the trial's launches must not stand as the operator's last launch: where the exact choice
   * is cuSPARSE no later apply overwrites it */
  const gcoo_cuda_tuned_launch last_before = o->details.last;
  if (gcoo__cuda_op_tc_setup(op) < 0) { /* memory, say: the exact choice serves, and says why */
    (void)cudaGetLastError();
    tc_release(o);
    o->device_bytes = bytes_exact;
    const size_t wl = strlen(o->details.why);
    snprintf(o->details.why + wl, sizeof o->details.why - wl,
             "; TF32: the tensor-core layout failed (%s) -> exact", gcoo_last_error());
    return GCOO_SUCCESS;
  }
  const size_t bytes_tc = o->device_bytes - bytes_exact;
  const int64_t N = din->n > 0 ? din->n : GCOO_DISPATCH_DEFAULT_N;
  int64_t ld;
  size_t xb, yb;
  float ms_exact = -1, ms_tc = -1;
  float ms_tab[3][3] = {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}; /* [32, 64, 128 columns][ks] */
  /* GCOO_TC_KSPLIT / GCOO_TC_COLS (tc_setup); 0: timed here, or the launcher's where untimed */
  const int forced_ks = o->tc.force_ksplit, forced_cols = o->tc.force_cols;
  int ks_best = forced_ks, cols_best = forced_cols;
  int tc_timings = 0;
  /* operands at N too large to time: at a narrower N, halved until they fit (both kernels run
   * 16-column slabs of X there alike). Untimed, the tensor-core kernel runs the random sweep's
   * large products 1.5-3.5x slower than the exact choice (H200) */
  int64_t Nt = N;
  int timed = trial_fits(o, Nt, &ld, &xb, &yb);
  while (!timed && !env_trial_off() && Nt > TC_TRIAL_MIN_N) {
    Nt = (Nt / 2 + 15) / 16 * 16;
    timed = trial_fits(o, Nt, &ld, &xb, &yb);
  }
  if (timed) {
    trial_operands t;
    if (trial_operands_make(op, Nt, ld, xb, yb, &t) >= 0) {
      o->tc_active = 0;
      if (trial_time(op, &t.dX, &t.dY, &ms_exact) < 0) ms_exact = -1;
      o->alg = GCOO_ALG_GCOO;
      o->tc_active = 1;
      /* the warps a window (1, 2, 4) and the tile of columns (32, 64, 128, no wider than Nt
       * needs) timed too, unless GCOO_TC_KSPLIT / GCOO_TC_COLS force them: the launcher's
       * estimate from the tile counts can pick 4 warps where 1 or 2 run up to 1.4x faster
       * (H200) */
      for (int wi = 0; wi < 3; wi++) {
        const int cols = forced_cols ? forced_cols : 32 << wi;
        if (!forced_cols && wi > 0 && (32 << (wi - 1)) >= Nt) break; /* wider than Nt needs */
        for (int i = 0; i < 3; i++) {
          const int ks = forced_ks ? forced_ks : 1 << i;
          float ms = -1;
          o->tc.force_ksplit = ks;
          o->tc.force_cols = cols;
          if (trial_time(op, &t.dX, &t.dY, &ms) < 0) ms = -1;
          ms_tab[cols == 32 ? 0 : cols == 64 ? 1 : 2][ks == 1 ? 0 : ks == 2 ? 1 : 2] = ms;
          tc_timings++;
          if (ms > 0 && (ms_tc <= 0 || ms < ms_tc)) {
            ms_tc = ms;
            ks_best = ks;
            cols_best = cols;
          }
          if (forced_ks) break;
        }
        if (forced_cols) break;
      }
      o->tc.force_cols = cols_best;
      o->tc.force_ksplit = ks_best;
      o->alg = exact;
    }
    (void)cudaGetLastError();
    trial_operands_free(op, &t);
  }
  const int use_tc = ms_tc > 0 ? ms_exact <= 0 || ms_tc < ms_exact : ms_exact <= 0;
  if (use_tc) {
    /* the exact choice's tuned layout goes (cuSPARSE's handles stay: they serve the layouts the
     * GCOO kernels do not) */
    gcoo_cuda_tuned_free(&o->tuned);
    memset(&o->tuned, 0, sizeof o->tuned);
    o->device_bytes = gcoo__cuda_csr_bytes(&o->csr) + bytes_tc;
    o->alg = GCOO_ALG_GCOO;
    o->tc_active = 1;
    *p = GCOO_TC_ROWS;
  } else {
    tc_release(o);
    o->device_bytes = bytes_exact;
    o->alg = exact;
    o->tc_active = 0;
    o->details.last = last_before;
  }
  op->info.device_bytes = o->device_bytes;
  const size_t wl = strlen(o->details.why);
  const float *row = ms_tab[cols_best == 128 ? 2 : cols_best == 64 ? 1 : 0];
  char ks_note[256];
  snprintf(ks_note, sizeof ks_note,
           "tiles of %d columns, %d warps a window: the fastest of %d timings; at %d columns, 1, "
           "2, 4 warps: %.4g, %.4g, %.4g ms%s",
           cols_best, ks_best, tc_timings, cols_best, row[0], row[1], row[2],
           forced_ks || forced_cols ? " (GCOO_TC_KSPLIT / GCOO_TC_COLS forced)" : "");
  if (timed)
    snprintf(o->details.why + wl, sizeof o->details.why - wl,
             "; TF32 trial at N = %lld%s: exact (%s) %.4g ms, tensor cores %.4g ms (%s) -> %s",
             (long long)Nt, Nt < N ? " (the hint's N too large to time)" : "",
             gcoo_spdm_alg_name(exact), ms_exact, ms_tc, ks_note,
             use_tc ? "tensor cores" : "exact");
  else
    snprintf(o->details.why + wl, sizeof o->details.why - wl,
             "; TF32 untimed (GCOO_AUTO_TRIAL=0, or operands too large to time even at N = %lld): "
             "the "
             "tensor-core kernel, as asked -> tensor cores",
             (long long)Nt);
  return GCOO_SUCCESS;
}
