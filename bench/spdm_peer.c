/* SPDX-License-Identifier: MIT */
/* bench/spdm_peer.c: gcoo's AUTO and the best cuSPARSE algorithm beside published SpMM kernels
 * that are not NVIDIA's ("peers": GE-SpMM, Sputnik, ...), on the real matrices, in one run.
 *
 *   spdm_peer_bench --out DIR [--matrices DIR] [--peer LIB]... [--sections real,large,real-f64]
 *                   [--large LIST] [--match LIST] [--budget SECONDS]
 *   spdm_peer_bench --list [--matrices DIR] [--sections ...] [--large LIST] [--match LIST]
 *
 * A peer is a shared library built outside gcoo with an adapter exporting bench/spdm_peer.h
 * (docs/kernels.md, "Peers"); --peer names one (repeatable), or GCOO_SPDM_PEER lists them
 * separated by ':'. Without one the benchmark says "peer not available" and measures gcoo and
 * cuSPARSE alone. Sections: real (the Matrix Market files of --matrices), large (the Kronecker
 * products and block-diagonal copies of spdm_bench's section "large", nnz x N >= 10^7; --large
 * kronB:NAME,diagC:NAME,... names others), real-f64 (the real matrices in double; peers without
 * double say so). N = 32, 128, 512.
 *
 * gcoo AUTO and cuSPARSE (ALG_DEFAULT column-major, CSR_ALG2 and CSR_ALG3 row-major, BSR_ALG1
 * where A has dense blocks) are measured by spdm_bench's own bench_run_case (spdm_measure.c:
 * warm-up, CUDA events, median of at least 5, sampled rows checked against a double-precision
 * host product). Each peer variant then gets the
 * same X (seed 4242), a NaN-poisoned Y, a warm-up whose output is checked against cuSPARSE's on
 * the whole of Y (||Y - Y_csp|| / ||Y_csp|| <= PEER_TOL, else "wrong" and not timed), and the
 * same timing: rotated operand copies when they fit in L2, a delay kernel ahead of short
 * launches, the median of repeated products between CUDA events on the legacy default stream.
 * Per case it prints AUTO, the best cuSPARSE, every peer's default and best variant, with
 * ratios; then, per peer, the geometric mean of the peer's time over AUTO's (> 1: gcoo faster).
 * Writes DIR/spdm_peer.csv (one row per case and peer variant) and DIR/spdm_bench.log. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_list.h"
#include "bench_stat.h"
#include "spdm_bench.h"
#include "spdm_peer.h"

#define PEER_TOL 1e-4 /* relative error against cuSPARSE a correct float SpMM stays under */
#define MAX_PEERS 4
#define MAX_VARIANTS 16
#define MAX_ROWS 1024 /* cases (matrix x N) */

typedef struct peer {
  const char *path;
  void *dl;
#define PEER_FIELD(f, sym) sym##_fn f;
  SPDM_PEER_SYMBOLS(PEER_FIELD)
#undef PEER_FIELD
  int nvar;
} peer;

/* One case's result for one peer: per variant ms (< 0: not timed) and the error. */
typedef struct peer_result {
  double ms[MAX_VARIANTS], err[MAX_VARIANTS], plan_ms[MAX_VARIANTS];
  int state[MAX_VARIANTS]; /* 0 timed, 1 unsupported, 2 wrong, 3 failed */
  int best;                /* fastest timed variant, -1 if none */
} peer_result;

typedef struct row {
  bench_case c;
  peer_result p[MAX_PEERS];
} row;

static const char *state_name[] = {"ok", "unsupported", "WRONG", "failed"};

static int load_peer(const char *path, peer *P) {
  memset(P, 0, sizeof *P);
  P->path = path;
  P->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!P->dl) {
    printf("peer not available (%s)\n", dlerror());
    return 0;
  }
#define PEER_LOAD(f, sym) *(void **)&P->f = dlsym(P->dl, #sym);
  SPDM_PEER_SYMBOLS(PEER_LOAD)
#undef PEER_LOAD
#define PEER_HAS(f, sym) &&P->f
  if (!(1 SPDM_PEER_SYMBOLS(PEER_HAS)) || P->abi() != SPDM_PEER_ABI) {
    printf("peer not available (%s: not the bench/spdm_peer.h interface, version %d)\n", path,
           SPDM_PEER_ABI);
    dlclose(P->dl);
    return 0;
  }
#undef PEER_HAS
  P->nvar = P->variants();
  if (P->nvar > MAX_VARIANTS) P->nvar = MAX_VARIANTS;
  return 1;
}

/* The operands a peer sees: R rotated copies of X and Y (as spdm_measure.c sizes them, so that
 * no product finds its operands in L2 from the previous one), cuSPARSE's Y and a scratch. */
typedef struct peer_operands {
  int R;
  size_t es, xb, yb;
  void *X[8], *Y[8], *ref, *scratch;
} peer_operands;

static void operands_release(peer_operands *o) {
  for (int r = 0; r < 8; r++) {
    cudaFree(o->X[r]);
    cudaFree(o->Y[r]);
  }
  cudaFree(o->ref);
  cudaFree(o->scratch);
  memset(o, 0, sizeof *o);
}

static gcoo_status operands_setup(bench_env *E, const bench_case *c, gcoo_sparse A,
                                  peer_operands *o) {
  memset(o, 0, sizeof *o);
  o->es = gcoo_dtype_size(c->dtype);
  o->xb = (size_t)(c->k * c->N) * o->es;
  o->yb = (size_t)(c->m * c->N) * o->es;
  const double footprint = (double)(c->k + c->m) * (double)c->N * (double)o->es +
                           (double)c->nnz * ((double)o->es + 4);
  o->R = 1;
  if (footprint * 2 < (double)E->dev.l2_bytes) {
    o->R = (int)ceil(3.0 * (double)E->dev.l2_bytes / (footprint > 0 ? footprint : 1));
    if (o->R > 8) o->R = 8;
  }
  gcoo_dense Xh;
  GCOO_CALL(gcoo_dense_create(&Xh, c->dtype, GCOO_ROW_MAJOR, c->k, c->N));
  gcoo_status st = gcoo_dense_fill_random(&Xh, 4242); /* bench_run_case's X */
  for (int r = 0; r < o->R && st >= 0; r++) {
    if (cudaMalloc(&o->X[r], o->xb + 16) != cudaSuccess ||
        cudaMalloc(&o->Y[r], o->yb + 16) != cudaSuccess ||
        cudaMemcpy(o->X[r], Xh.data, o->xb, cudaMemcpyHostToDevice) != cudaSuccess)
      st = GCOO_ERROR(GCOO_ERR_CUDA, "peer operands (%zu + %zu bytes)", o->xb, o->yb);
  }
  if (st >= 0 && (cudaMalloc(&o->ref, o->yb + 16) != cudaSuccess ||
                  cudaMalloc(&o->scratch, o->yb + 16) != cudaSuccess))
    st = GCOO_ERROR(GCOO_ERR_CUDA, "reference output (%zu bytes)", o->yb);
  /* the reference: cuSPARSE (the algorithm gcoo picks for row-major operands) */
  gcoo_op op = NULL;
  gcoo_op_options opt = GCOO_OP_OPTIONS_INIT;
  opt.alg = GCOO_ALG_CUSPARSE;
  opt.ncols_hint = c->N;
  if (st >= 0) st = gcoo_op_create(&op, E->ctx, A, &opt);
  if (st >= 0) {
    gcoo_dense Xd = gcoo_dense_wrap(o->X[0], c->dtype, GCOO_ROW_MAJOR, c->k, c->N, 0);
    gcoo_dense Yd = gcoo_dense_wrap(o->ref, c->dtype, GCOO_ROW_MAJOR, c->m, c->N, 0);
    Xd.mem = Yd.mem = GCOO_MEM_DEVICE;
    st = gcoo_op_apply(op, 1.0, &Xd, 0.0, &Yd);
    if (st >= 0) st = gcoo_ctx_synchronize(E->ctx);
  }
  gcoo_op_destroy(&op);
  gcoo_dense_destroy(&Xh);
  return st;
}

/* ||Y - ref|| / ||ref|| over the whole of Y, on the device (cuBLAS). */
static double error_vs_ref(bench_env *E, const peer_operands *o, const void *Y, int64_t n) {
  if (n > INT_MAX) return NAN;
  if (cudaMemcpy(o->scratch, Y, o->yb, cudaMemcpyDeviceToDevice) != cudaSuccess) return INFINITY;
  double e = 0, r = 0;
  int ok;
  if (o->es == 8) {
    const double m1 = -1.0;
    ok = cublasDaxpy(E->blas, (int)n, &m1, o->ref, 1, o->scratch, 1) == CUBLAS_STATUS_SUCCESS &&
         cublasDnrm2(E->blas, (int)n, o->scratch, 1, &e) == CUBLAS_STATUS_SUCCESS &&
         cublasDnrm2(E->blas, (int)n, o->ref, 1, &r) == CUBLAS_STATUS_SUCCESS;
  } else {
    const float m1 = -1.0f;
    float ef = 0, rf = 0;
    ok = cublasSaxpy(E->blas, (int)n, &m1, o->ref, 1, o->scratch, 1) == CUBLAS_STATUS_SUCCESS &&
         cublasSnrm2(E->blas, (int)n, o->scratch, 1, &ef) == CUBLAS_STATUS_SUCCESS &&
         cublasSnrm2(E->blas, (int)n, o->ref, 1, &rf) == CUBLAS_STATUS_SUCCESS;
    e = ef;
    r = rf;
  }
  if (!ok || isnan(e)) return INFINITY;
  return r > 0 ? e / r : (e == 0 ? 0.0 : INFINITY);
}

/* Median ms of the peer's product under the benchmarks' rule (bench_stat.h), sized like
 * spdm_measure.c's (at least BENCH_MIN_RUNS, about 60 ms of launches, at most 40). */
static double time_peer(const peer *P, void *plan, const peer_operands *o, double first_ms) {
  enum { MAX_REPS = 40 };
  const int reps = bench_runs(first_ms, 60.0, MAX_REPS);
  cudaEvent_t ev[2 * MAX_REPS];
  double t[MAX_REPS];
  for (int i = 0; i < 2 * reps; i++) cudaEventCreate(&ev[i]);
  if (first_ms < 2.0) bench_delay(0, reps * 30.0 + 200.0);
  int ok = 1;
  for (int r = 0; r < reps && ok; r++) {
    cudaEventRecord(ev[2 * r], 0);
    ok = P->run(plan, o->X[r % o->R], o->Y[r % o->R], NULL) == 0;
    cudaEventRecord(ev[2 * r + 1], 0);
  }
  double ms = -1;
  if (ok && cudaDeviceSynchronize() == cudaSuccess) {
    for (int r = 0; r < reps; r++) {
      float f = 0;
      cudaEventElapsedTime(&f, ev[2 * r], ev[2 * r + 1]);
      t[r] = f;
    }
    ms = bench_median(t, reps);
  }
  for (int i = 0; i < 2 * reps; i++) cudaEventDestroy(ev[i]);
  return ms;
}

/* Every variant of peer P on case c (A on the device as 32-bit CSR). */
static void run_peer(bench_env *E, const peer *P, const bench_case *c, const peer_operands *o,
                     const int *rowptr, const int *colind, const void *val, peer_result *pr) {
  pr->best = -1;
  for (int v = 0; v < P->nvar; v++) {
    pr->ms[v] = -1;
    pr->err[v] = NAN;
    (void)cudaGetLastError(); /* no earlier error is blamed on this variant */
    void *plan = NULL;
    const double t0 = gcoo__wtime();
    const int rc = P->plan(v, (int)o->es, (int)c->m, (int)c->k, (int)c->nnz, rowptr, colind, val,
                           (int)c->N, &plan);
    pr->plan_ms[v] = 1e3 * (gcoo__wtime() - t0);
    if (rc) {
      pr->state[v] = rc == SPDM_PEER_UNSUPPORTED ? 1 : 3;
      continue;
    }
    cudaMemset(o->Y[0], 0xff, o->yb); /* NaN: a peer that skips an output is caught */
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    int ok = P->run(plan, o->X[0], o->Y[0], NULL) == 0 && cudaDeviceSynchronize() == cudaSuccess;
    pr->err[v] = ok ? error_vs_ref(E, o, o->Y[0], c->m * c->N) : INFINITY;
    float first = -1;
    if (ok && pr->err[v] <= PEER_TOL) {
      cudaEventRecord(a, 0);
      ok = P->run(plan, o->X[0], o->Y[0], NULL) == 0;
      cudaEventRecord(b, 0);
      if (ok && cudaEventSynchronize(b) == cudaSuccess) cudaEventElapsedTime(&first, a, b);
      if (first > 0) pr->ms[v] = time_peer(P, plan, o, first);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    const cudaError_t ce = cudaGetLastError();
    pr->state[v] = !ok || ce != cudaSuccess ? 3 : pr->err[v] <= PEER_TOL ? 0 : 2;
    if (pr->state[v] == 0 && pr->ms[v] <= 0) pr->state[v] = 3;
    if (pr->state[v] == 3) {
      bench_printf(E, "  %s N=%lld %s %s: failed (%s)\n", c->name, (long long)c->N, P->name(),
                   P->variant_name(v), cudaGetErrorString(ce));
      /* a sticky error (an illegal address, say) leaves the context unusable for the rest of
       * the run: say which peer, for the caller to run again without it */
      if (cudaDeviceSynchronize() != cudaSuccess) {
        bench_printf(E, "CUDA context lost after %s %s on %s N=%lld: stopping (exit 3)\n", P->path,
                     P->variant_name(v), c->name, (long long)c->N);
        char path[4096];
        snprintf(path, sizeof path, "%s/peer_lost.txt", E->outdir);
        FILE *f = fopen(path, "w");
        if (f) fprintf(f, "%s\n", P->path), fclose(f);
        exit(3);
      }
    }
    if (pr->state[v] == 0 && (pr->best < 0 || pr->ms[v] < pr->ms[pr->best])) pr->best = v;
    P->free(plan);
  }
}

static double ratio(double num, double den) { return num > 0 && den > 0 ? num / den : NAN; }

static const char *alg_name(const bench_case *c) {
  switch (c->autod.alg) {
    case GCOO_ALG_GCOO: return "tuned";
    case GCOO_ALG_CUSPARSE_CSR_ALG2: return "alg2";
    case GCOO_ALG_CUSPARSE_CSR_ALG3: return "alg3";
    default: return gcoo_spdm_alg_name(c->autod.alg);
  }
}

static void print_row(bench_env *E, const row *w, const peer *P, int np) {
  const bench_case *c = &w->c;
  const double csp = c->best_csp >= 0 ? c->r[c->best_csp].ms : -1, au = c->r[M_AUTO].ms;
  char line[1024];
  int n = snprintf(line, sizeof line,
                   "%-26.26s %9lld %4lld | auto %-5s %8.4f | csp %-12s %8.4f "
                   "| x%5.2f",
                   c->name, (long long)c->nnz, (long long)c->N, alg_name(c), au,
                   c->best_csp >= 0 ? bench_method_names[c->best_csp] : "-", csp, ratio(csp, au));
  for (int i = 0; i < np && n < (int)sizeof line; i++) {
    const peer_result *pr = &w->p[i];
    if (pr->best < 0) {
      n += snprintf(line + n, sizeof line - (size_t)n, " | peer%d %s (%s)", i + 1,
                    state_name[pr->state[0]],
                    P[i].nvar > 1 ? "every variant" : P[i].variant_name(0));
      continue;
    }
    n += snprintf(line + n, sizeof line - (size_t)n,
                  " | peer%d def %8.4f best %-9s %8.4f err %.1e | auto x%5.2f csp x%5.2f", i + 1,
                  pr->ms[0], P[i].variant_name(pr->best), pr->ms[pr->best], pr->err[pr->best],
                  ratio(pr->ms[pr->best], au), ratio(pr->ms[pr->best], csp));
    int wrong = 0;
    for (int v = 0; v < P[i].nvar; v++) wrong += pr->state[v] == 2;
    if (wrong) n += snprintf(line + n, sizeof line - (size_t)n, " (%d variant(s) WRONG)", wrong);
  }
  bench_printf(E, "%s\n", line);
}

static void csv_rows(FILE *f, const row *w, const peer *P, int np) {
  const bench_case *c = &w->c;
  const double csp = c->best_csp >= 0 ? c->r[c->best_csp].ms : -1;
  for (int i = 0; i < np; i++)
    for (int v = 0; v < P[i].nvar; v++)
      fprintf(f, "%s,%s,%s,%lld,%lld,%lld,%lld,%s,%.6g,%.3g,%s,%.6g,%.3g,%d,%s,%s,%.6g,%.3g,%.4g\n",
              c->section, c->name, c->dtype == GCOO_FLOAT64 ? "f64" : "f32", (long long)c->m,
              (long long)c->k, (long long)c->nnz, (long long)c->N, alg_name(c), c->r[M_AUTO].ms,
              c->r[M_AUTO].relerr, c->best_csp >= 0 ? bench_method_names[c->best_csp] : "none", csp,
              c->best_csp >= 0 ? c->r[c->best_csp].relerr : NAN, i + 1, P[i].variant_name(v),
              state_name[w->p[i].state[v]], w->p[i].ms[v], w->p[i].err[v], w->p[i].plan_ms[v]);
  fflush(f);
}

/* Measure A (float or double, host CSR) at N = 32, 128, 512 with gcoo, cuSPARSE and the peers. */
static void measure_matrix(bench_env *E, const char *section, const char *name, gcoo_sparse A,
                           const peer *P, int np, row *rows, int *nrows) {
  static const int64_t Ns[] = {32, 128, 512};
  if (*nrows + 3 > MAX_ROWS) return;
  gcoo_sparse_info ai;
  gcoo_sparse_arrays aa;
  if (gcoo_sparse_get_info(A, &ai) < 0 || gcoo_sparse_get_arrays(A, &aa) < 0) return;
  bench_case cs[3];
  for (int i = 0; i < 3; i++) {
    cs[i] = (bench_case){.section = section, .dtype = ai.dtype, .A = A, .N = Ns[i]};
    snprintf(cs[i].name, sizeof cs[i].name, "%s", name);
  }
  int run[M_COUNT] = {0};
  run[M_CSP_DEFAULT] = run[M_CSP_ALG2] = run[M_CSP_ALG3] = run[M_CSP_BSR] = run[M_AUTO] = 1;
  if (bench_run_case(E, cs, 3, run) < 0) {
    bench_printf(E, "  %s: %s\n", name, gcoo_last_error());
    return;
  }
  /* A on the device, 32-bit CSR, for the peers */
  int *dptr = NULL, *dind = NULL, *hptr = NULL;
  void *dval = NULL;
  const size_t es = gcoo_dtype_size(ai.dtype);
  int have_csr = np > 0 && ai.nnz <= INT_MAX && ai.nrows < INT_MAX;
  if (have_csr) {
    hptr = malloc(sizeof(int) * (size_t)(ai.nrows + 1));
    have_csr = hptr != NULL;
    for (int64_t i = 0; have_csr && i <= ai.nrows; i++) hptr[i] = (int)aa.ptr[i];
    have_csr = have_csr &&
               cudaMalloc((void **)&dptr, sizeof(int) * (size_t)(ai.nrows + 1)) == cudaSuccess &&
               cudaMalloc((void **)&dind, sizeof(int) * (size_t)(ai.nnz + 4)) == cudaSuccess &&
               cudaMalloc(&dval, es * (size_t)(ai.nnz + 4)) == cudaSuccess &&
               cudaMemcpy(dptr, hptr, sizeof(int) * (size_t)(ai.nrows + 1),
                          cudaMemcpyHostToDevice) == cudaSuccess &&
               cudaMemcpy(dind, aa.ind, sizeof(int) * (size_t)ai.nnz, cudaMemcpyHostToDevice) ==
                   cudaSuccess &&
               cudaMemcpy(dval, aa.values, es * (size_t)ai.nnz, cudaMemcpyHostToDevice) ==
                   cudaSuccess;
    free(hptr);
  }
  for (int i = 0; i < 3; i++) {
    row *w = &rows[*nrows];
    memset(w, 0, sizeof *w);
    w->c = cs[i];
    w->c.A = NULL;
    for (int p = 0; p < np; p++) {
      w->p[p].best = -1;
      for (int v = 0; v < MAX_VARIANTS; v++) {
        w->p[p].ms[v] = -1;
        w->p[p].err[v] = NAN;
        w->p[p].state[v] = 3;
      }
    }
    peer_operands o;
    memset(&o, 0, sizeof o);
    if (have_csr && operands_setup(E, &cs[i], A, &o) >= 0) {
      for (int p = 0; p < np; p++) run_peer(E, &P[p], &cs[i], &o, dptr, dind, dval, &w->p[p]);
    } else if (np) {
      bench_printf(E, "  %s N=%lld: peer operands: %s\n", name, (long long)cs[i].N,
                   have_csr ? gcoo_last_error() : "A not on the device as 32-bit CSR");
    }
    operands_release(&o);
    print_row(E, w, P, np);
    if (E->csv) csv_rows(E->csv, w, P, np);
    (*nrows)++;
  }
  cudaFree(dptr);
  cudaFree(dind);
  cudaFree(dval);
}

/* spdm_bench's section "large" (spdm_bench.c, large_inputs), kept in step by hand: kronB:NAME is
 * A (x) J_b (bench_kron_dense_block), diagC:NAME C copies on the diagonal (bench_block_diagonal);
 * --large LIST replaces it. */
static const char *g_large =
    "kron2:TSOPF_RS_b39_c30,kron4:cage11,kron4:delaunay_n16,kron4:ct2010,kron2:bcsstk33,"
    "kron4:ca-CondMat_snapderived,kron4:wiki-Vote_snapderived,kron8:rajat01,kron4:cavity19,"
    "diag16:bcsstk24,kron4:FA,kron4:bayer10,diag16:msc04515,diag32:fidapex6";

/* Read a "large" input (kronB:NAME or diagC:NAME) from dir. */
static gcoo_status large_input(const char *dir, const char *spec, gcoo_dtype dt, gcoo_sparse *A) {
  const char *colon = strchr(spec, ':');
  const int kron = !strncmp(spec, "kron", 4), diag = !strncmp(spec, "diag", 4);
  const int times = colon && (kron || diag) ? atoi(spec + 4) : 0;
  GCOO_CHECK(times > 0, GCOO_ERR_INVALID_ARG, "large input '%s': not kronB:NAME or diagC:NAME",
             spec);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx.gz", dir, colon + 1);
  gcoo_sparse M = NULL;
  GCOO_CALL(gcoo_mtx_read(path, dt, 0, &M));
  const gcoo_status st = kron ? bench_kron_dense_block(A, M, times)
                              : bench_block_diagonal(A, M, times);
  gcoo_sparse_destroy(&M);
  return st;
}

/* One section's inputs, measured; E == NULL (--list): only read, built and listed (no GPU). */
static void section(bench_env *E, const char *sec, const char *dir, const char *match,
                    const peer *P, int np, row *rows, int *nrows) {
  const int large = !strcmp(sec, "large"), f64 = !strcmp(sec, "real-f64");
  if (E)
    bench_printf(E, "\n== %s: N = 32, 128, 512 (%.0f s so far)\n", sec, bench_elapsed(E));
  else
    printf("== %s\n", sec);
  char *names[256];
  int nn = 0;
  if (large) {
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", g_large);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && nn < 256; t = strtok_r(NULL, ",", &save))
      names[nn++] = strdup(t);
  } else { /* the Matrix Market files of dir, in glob's (sorted) order */
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/*.mtx*", dir);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0) {
      printf("  no Matrix Market files in %s\n", dir);
      return;
    }
    for (size_t i = 0; i < g.gl_pathc && nn < 256; i++)
      names[nn++] = strdup(strrchr(g.gl_pathv[i], '/') + 1);
    globfree(&g);
  }
  for (int f = 0; f < nn; f++) {
    if (match && !bench_list_match(match, names[f])) continue;
    if (E && bench_over_budget(E, 1.0)) {
      bench_printf(E, "  budget: %s stopped before %s\n", sec, names[f]);
      break;
    }
    char path[4096], base[96];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    snprintf(base, sizeof base, "%s", names[f]);
    if (strstr(base, ".mtx")) *strstr(base, ".mtx") = '\0';
    const gcoo_dtype dt = f64 ? GCOO_FLOAT64 : GCOO_FLOAT32;
    gcoo_sparse A = NULL;
    const gcoo_status st = large ? large_input(dir, names[f], dt, &A)
                                 : gcoo_mtx_read(path, dt, 0, &A);
    gcoo_sparse_info ai;
    if (st < 0)
      printf("  %s: %s\n", names[f], gcoo_last_error());
    else if (E)
      measure_matrix(E, sec, base, A, P, np, rows, nrows);
    else if (gcoo_sparse_get_info(A, &ai) >= 0)
      printf("  %-32s %9lld x %-9lld nnz %lld\n", base, (long long)ai.nrows, (long long)ai.ncols,
             (long long)ai.nnz);
    gcoo_sparse_destroy(&A);
  }
  for (int f = 0; f < nn; f++) free(names[f]);
}

/* Per peer: geometric means of peer / AUTO (and of peer / best cuSPARSE) over the timed cases. */
static void summarize(bench_env *E, const peer *P, int np, const row *rows, int nrows) {
  static const int64_t Ns[] = {32, 128, 512, 0};
  bench_printf(E,
               "\n== summary (%d cases, %.0f s; AUTO over the peer > 1: gcoo faster; the peer over "
               "cuSPARSE > 1: the peer faster)\n",
               nrows, bench_elapsed(E));
  for (int i = 0; i < np; i++) {
    int wrong = 0, unsup = 0, failed = 0, ncase = 0;
    for (int r = 0; r < nrows; r++)
      for (int v = 0; v < P[i].nvar; v++) {
        wrong += rows[r].p[i].state[v] == 2;
        unsup += rows[r].p[i].state[v] == 1;
        failed += rows[r].p[i].state[v] == 3;
      }
    bench_printf(E,
                 "peer%d %s: %d variant(s); %d variant-cases wrong (error > %.0e, not timed), "
                 "%d unsupported, %d failed\n",
                 i + 1, P[i].name(), P[i].nvar, wrong, PEER_TOL, unsup, failed);
    for (int dbl = 0; dbl < 2; dbl++)
      for (int k = 0; k < 4; k++) {
        double la = 0, ld = 0, lc = 0, lcd = 0;
        int n = 0, nd = 0, nbig = 0;
        double lbig = 0;
        for (int r = 0; r < nrows; r++) {
          const row *w = &rows[r];
          const peer_result *pr = &w->p[i];
          if ((w->c.dtype == GCOO_FLOAT64) != dbl || (Ns[k] && w->c.N != Ns[k])) continue;
          const double au = w->c.r[M_AUTO].ms;
          const double csp = w->c.best_csp >= 0 ? w->c.r[w->c.best_csp].ms : -1;
          if (pr->best < 0 || au <= 0 || csp <= 0) continue;
          la += log(pr->ms[pr->best] / au);
          lc += log(pr->ms[pr->best] / csp);
          n++;
          if (pr->state[0] == 0) {
            ld += log(pr->ms[0] / au);
            lcd += log(pr->ms[0] / csp);
            nd++;
          }
          if ((double)w->c.nnz * (double)w->c.N >= 1e7) {
            lbig += log(pr->ms[pr->best] / au);
            nbig++;
          }
        }
        ncase += Ns[k] ? 0 : n;
        if (!n) continue;
        char which[32];
        snprintf(which, sizeof which, Ns[k] ? "N=%lld" : "all N", (long long)Ns[k]);
        bench_printf(E,
                     "summary peer%d %s %-6s: gcoo AUTO over the peer's best variant %.2fx, over "
                     "its default %.2fx (%d cases); peer best over best cuSPARSE %.2fx, default "
                     "%.2fx; nnz x N >= 1e7: AUTO over peer best %.2fx (%d cases)\n",
                     i + 1, dbl ? "f64" : "f32", which, exp(la / n), nd ? exp(ld / nd) : NAN, n,
                     exp(-lc / n), nd ? exp(-lcd / nd) : NAN, nbig ? exp(lbig / nbig) : NAN, nbig);
      }
    if (!ncase) bench_printf(E, "summary peer%d: no case timed\n", i + 1);
  }
}

int main(int argc, char **argv) {
  const char *outdir = NULL, *dir = NULL, *sections = "real,large", *match = NULL;
  const char *paths[MAX_PEERS];
  int npath = 0, list = 0;
  double budget = 300;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      outdir = argv[++i];
    else if (!strcmp(argv[i], "--matrices") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--peer") && i + 1 < argc && npath < MAX_PEERS)
      paths[npath++] = argv[++i];
    else if (!strcmp(argv[i], "--sections") && i + 1 < argc)
      sections = argv[++i];
    else if (!strcmp(argv[i], "--large") && i + 1 < argc)
      g_large = argv[++i];
    else if (!strcmp(argv[i], "--match") && i + 1 < argc)
      match = argv[++i];
    else if (!strcmp(argv[i], "--list"))
      list = 1;
    else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
      budget = atof(argv[++i]);
    else {
      fprintf(stderr,
              "usage: spdm_peer_bench --out DIR [--matrices DIR] [--peer LIB]... "
              "[--sections real,large,real-f64] [--large LIST] [--match LIST] [--budget SECONDS]\n"
              "       spdm_peer_bench --list [--matrices DIR] [--sections ...] (the inputs, no "
              "GPU)\n"
              "  peers: --peer, else GCOO_SPDM_PEER (LIB:LIB...), built per docs/kernels.md\n");
      return 2;
    }
  }
  char secs[256];
  snprintf(secs, sizeof secs, "%s", sections);
  char *save = NULL;
  if (!dir) dir = getenv("GCOO_MATRICES") ? getenv("GCOO_MATRICES") : "../shared/matrices";
  if (list) { /* the inputs alone, read and built on the host */
    for (char *s = strtok_r(secs, ",", &save); s; s = strtok_r(NULL, ",", &save))
      section(NULL, s, dir, match, NULL, 0, NULL, NULL);
    return 0;
  }
  if (!outdir) {
    fprintf(stderr, "spdm_peer_bench: --out DIR is required\n");
    return 2;
  }
  static char envbuf[4096];
  if (!npath && getenv("GCOO_SPDM_PEER")) {
    snprintf(envbuf, sizeof envbuf, "%s", getenv("GCOO_SPDM_PEER"));
    for (char *s = strtok(envbuf, ":"); s && npath < MAX_PEERS; s = strtok(NULL, ":"))
      if (*s) paths[npath++] = s;
  }
  peer P[MAX_PEERS];
  int np = 0;
  for (int i = 0; i < npath; i++) np += load_peer(paths[i], &P[np]);
  if (!npath) printf("peer not available (no --peer and no GCOO_SPDM_PEER)\n");
  bench_env E;
  if (bench_env_init(&E, outdir, budget) < 0) {
    fprintf(stderr, "spdm_peer_bench: %s\n", gcoo_last_error());
    return 1;
  }
  for (int i = 0; i < np; i++) {
    bench_printf(&E, "peer%d: %s (%s), variants:", i + 1, P[i].name(), P[i].path);
    for (int v = 0; v < P[i].nvar; v++) bench_printf(&E, " %s", P[i].variant_name(v));
    bench_printf(&E, "\n");
  }
  if (!np) bench_printf(&E, "peer not available: gcoo AUTO and cuSPARSE only\n");
  char path[4096];
  snprintf(path, sizeof path, "%s/spdm_peer.csv", outdir);
  E.csv = fopen(path, "w");
  if (E.csv)
    fprintf(E.csv, "section,case,dtype,m,k,nnz,N,auto_alg,auto_ms,auto_relerr,best_csp,"
                   "best_csp_ms,csp_relerr,peer,variant,state,peer_ms,peer_err_vs_csp,plan_ms\n");
  bench_printf(&E, "columns: ms per product (median); auto x = best cuSPARSE / AUTO; peer: its "
                   "default and best variant, err = ||Y - Y_cusparse|| / ||Y_cusparse||, auto x = "
                   "peer best / AUTO, csp x = peer best / best cuSPARSE\n");
  static row rows[MAX_ROWS];
  int nrows = 0;
  for (char *s = strtok_r(secs, ",", &save); s; s = strtok_r(NULL, ",", &save))
    section(&E, s, dir, match, P, np, rows, &nrows);
  summarize(&E, P, np, rows, nrows);
  bench_env_fini(&E);
  for (int i = 0; i < np; i++) dlclose(P[i].dl);
  return 0;
}
