/* SPDX-License-Identifier: MIT */
/* bench/spgemm_bench.c: gcoo's GPU SpGEMM against cuSPARSE's (ALG1, ALG2, ALG3) and a peer
 * library (OpSparse, bench/opsparse/) in the same process, on A*A and A*A^T of Matrix Market
 * files and of generated products (2-D Laplacian 1500^2, random 400k x 16, a 27-point stencil),
 * in double and float: time, peak device memory beyond the inputs, nnz(C), the prediction's
 * error, rows and FLOP recomputed after overflowing their predicted room, the predictor's share
 * of the product, and a check of every side's C against cuSPARSE's (on the device: same pattern,
 * values within the tolerance: 1e-12 relative in double, 1e-5 in float; a gcoo C outside it fails
 * the run, a peer's is marked WRONG and left out of every figure).
 *
 * One timing rule for every side (bench/bench_stat.h, docs/benchmarks.md): operands on the device
 * in the side's input format before its clock; one warm-up run, then --reps (at least 5) timed
 * runs in this process, the median; each time the host clock around the whole call, C complete
 * on the device. gcoo and cuSPARSE take their buffers (and a C of at most a quarter of what the
 * pool keeps) from one stream-ordered pool, warm after the warm-up; the peer keeps its buffers
 * between calls and makes its streams once (its warm runs allocate nothing: the "allocs" column
 * says so). cuSPARSE's calls hold cudaMemGetInfo probes that only count its memory (4 for ALG1,
 * 5 for ALG2 and ALG3); their cost, measured at the start on the idle device, is taken out of
 * its times (the full cost, as though none overlapped device work: in cuSPARSE's favour), the
 * raw time kept in the CSV.
 *
 * Products are "tuned" (the ones gcoo's kernels were tuned on: --tuned, default the 8 matrices
 * and 2 generated products of bench/results/h200-spgemm.txt) or "unseen" (every other), and the
 * targets are computed over all, and the unseen ones apart. The last lines are the issue's
 * targets, computed from what was measured; --previous CSV (an earlier run's spgemm.csv of the
 * same products) makes spgemm-worst the lowest of the two runs. One CSV row per (product, side)
 * goes to <outdir>/spgemm.csv.
 *
 * usage: spgemm_bench [--reps R] [--dtype float|double|both] [--no-generated | --gen [l][r][s]]
 *                     [--stencil N] [--skip NAME:OP,...] [--tuned NAME,...] [--previous CSV]
 *                     [--peer-lib LIB] [--opsparse-driver BIN [--opsparse-driver-match LIST]
 *                     [--opsparse-dir DIR] [--opsparse-max-nnz N]] [--budget-test]
 *                     [--plan-json FILE] [--variant NAME] [--out DIR] file.mtx[.gz] ...
 *
 * --peer-lib LIB: a SpGEMM peer built as bench/spgemm_peer.h says (bench/opsparse/build.sh makes
 * OpSparse's), column "peer"; without it the column says "not available".
 * --opsparse-driver BIN: OpSparse's own benchmark driver (reg_opsparse, built by
 * bench/opsparse/build.sh with the steady-clock fix) on the double products whose matrix name
 * contains one of --opsparse-driver-match's names (default: all), one process each, as a
 * reference column "drv" (its own clock: the mean of 10 runs after a warm-up, streams and
 * allocations in every run); never in a target. Its operands are written as Matrix Market files
 * under DIR/matrix/suite_sparse/NAME/NAME.mtx (--opsparse-dir, default /tmp/opsparse), at most
 * --opsparse-max-nnz entries (default 15M).
 *
 * --variant NAME (repeatable; "all": every one): every product is also timed with a variant of
 * gcoo, one of its parameters set with gcoo_param_set (docs/spgemm.md, docs/parameters.md), in
 * the same process, checked against the same reference, and printed beside the default
 * ("variant" lines, CSV alg gcoo_NAME): recompute-direct is GCOO_SPGEMM_RECOMPUTE=direct
 * (overflowed rows recomputed with no host plan), bound-off GCOO_SPGEMM_BOUND_ENTRIES=0 (small
 * products sampled and predicted like the others, not computed at their bounds), bound-4M the
 * same limit at 2^22 entries instead of 2^24, pool-256M GCOO_SPGEMM_POOL_KEEP_MB=256 (the memory
 * pool keeps 256 MiB between calls instead of an eighth of the device's memory, and C comes from
 * it up to 64 MiB), dense-0 and dense-2 GCOO_SPGEMM_DENSE_REACH=0, 2 (a block row of many
 * products per column of its span is always hashed, or may go up to 2 bins past its hash table's
 * to be accumulated densely, instead of 1). The summary gives each side by side with the default;
 * the target lines stay the default's. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_list.h"
#include "bench_stat.h"
#include "spgemm_bench.h"

/* columns: gcoo, ALG1, ALG2, ALG3, the peer (in this process), OpSparse's own driver (reference) */
enum { NALG = 4, NCOL = 6, PEER = 4, DRV = 5 };
static const gcoo_spgemm_alg algs[NALG] = {GCOO_SPGEMM_GCOO, GCOO_SPGEMM_CUSPARSE_ALG1,
                                           GCOO_SPGEMM_CUSPARSE_ALG2, GCOO_SPGEMM_CUSPARSE_ALG3};
static const char *col_name[NCOL] = {"gcoo",          "cusparse_alg1", "cusparse_alg2",
                                     "cusparse_alg3", "peer",          "opsparse_driver"};
/* cudaMemGetInfo probes in cuSPARSE's clock (kernels/spgemm/spgemm_cusparse.cu: the free-memory watch) */
static const int cusparse_probes[NALG] = {0, 4, 5, 5};

/* The products the SpGEMM kernels were tuned on (bench/results/h200-spgemm.txt's 32: A A and
 * A A^T of these, double and float); every other product is "unseen". */
static const char *const
    default_tuned = "add32,adder_dcop_05,bcsstk13,bcsstk33,ca-CondMat_snapderived,cage11,rajat01,"
                    "wiki-Vote_snapderived,gen_laplacian2d_1500,gen_random_400k_16";

/* the CUDA context the products run on (its stream, its SpGEMM pool, kept warm between them) */
static gcoo_ctx bench_ctx = NULL;

/* Run one algorithm BENCH_WARMUP_RUNS + reps times (the first untimed); keep the last C in *keep.
 * The time is the library's host clock of each call (info.seconds). */
static void run_alg(gcoo_spgemm_alg alg, const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB, int reps,
                    int64_t budget, result *r, gcoo_cuda_csr *keep) {
  const int runs = BENCH_WARMUP_RUNS + reps;
  double *t = calloc((size_t)runs, sizeof *t);
  memset(r, 0, sizeof *r);
  r->check = -1.0;
  memset(keep, 0, sizeof *keep);
  for (int rep = 0; rep < runs; rep++) {
    gcoo_cuda_csr C;
    gcoo_sparse hC = NULL;
    gcoo_spgemm_info info;
    gcoo_status st;
    memset(&C, 0, sizeof C);
    memset(&info, 0, sizeof info);
    if (alg == GCOO_SPGEMM_GCOO) {
      gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
      o.memory_budget = budget;
      st = gcoo__cuda_spgemm_gcoo(bench_ctx, dA, dB, &o, &C, &hC, &info);
    } else {
      st = gcoo__cuda_spgemm_cusparse(bench_ctx, alg, dA, dB, 0.0, &C, &info);
    }
    if (st < 0) {
      snprintf(r->err, sizeof r->err, "%s: %s", gcoo_status_name(st), gcoo_last_error());
      for (char *c = r->err; *c; c++)
        if (*c == ',' || *c == '\n') *c = ';';
      free(t);
      return;
    }
    t[rep] = info.seconds * 1e3;
    r->peak_mb = (double)info.peak_bytes / 1048576.0;
    r->info = info;
    if (hC) { /* batched: C came back to the host; put it on the device for the check */
      gcoo_csr_view v;
      gcoo__sparse_csr_view(hC, &v);
      gcoo_cuda_csr_free(&C);
      if (rep == runs - 1) gcoo__dev_csr_upload(&v, &C, NULL);
      gcoo_sparse_destroy(&hC);
    }
    if (rep == runs - 1)
      *keep = C;
    else
      gcoo_cuda_csr_free(&C);
  }
  r->ms = r->ms_raw = bench_median(t + BENCH_WARMUP_RUNS, reps);
  r->reps = reps;
  r->ok = 1;
  free(t);
}

/* The host time of one cudaMemGetInfo on the idle device (ms): the median of many. */
static double probe_ms(void) {
  enum { N = 201 };
  double t[N];
  for (int i = 0; i < 20; i++) (void)gcoo__cuda_free_bytes();
  for (int i = 0; i < N; i++) {
    const double t0 = gcoo__wtime();
    (void)gcoo__cuda_free_bytes();
    t[i] = 1e3 * (gcoo__wtime() - t0);
  }
  return bench_median(t, N);
}

/* The 2-D 5-point Laplacian on an n x n grid. */
static gcoo_sparse laplacian(gcoo_dtype dt, int n) {
  const int64_t N = (int64_t)n * n;
  int64_t *p = malloc((size_t)(N + 1) * sizeof *p);
  int32_t *c = malloc((size_t)(5 * N) * sizeof *c);
  double *v = malloc((size_t)(5 * N) * sizeof *v);
  int64_t k = 0;
  p[0] = 0;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) {
      const int32_t i = y * n + x;
      if (y > 0) c[k] = i - n, v[k++] = -1.0;
      if (x > 0) c[k] = i - 1, v[k++] = -1.0;
      c[k] = i, v[k++] = 4.0;
      if (x + 1 < n) c[k] = i + 1, v[k++] = -1.0;
      if (y + 1 < n) c[k] = i + n, v[k++] = -1.0;
      p[i + 1] = k;
    }
  gcoo_sparse A = NULL, B = NULL;
  gcoo_sparse_create_csr(&A, GCOO_FLOAT64, N, N, p, c, v, 0);
  free(p);
  free(c);
  free(v);
  if (A && dt != GCOO_FLOAT64) {
    gcoo_sparse_astype(&B, A, dt);
    gcoo_sparse_destroy(&A);
    A = B;
  }
  return A;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* 1 when A equals its transpose (same arrays): then A A^T is A A, timed once. */
static int same_csr(gcoo_sparse A, gcoo_sparse At) {
  gcoo_sparse_info ia, it;
  gcoo_sparse_arrays a, t;
  if (gcoo_sparse_get_info(A, &ia) < 0 || gcoo_sparse_get_info(At, &it) < 0) return 0;
  if (ia.nrows != it.nrows || ia.ncols != it.ncols || ia.nnz != it.nnz) return 0;
  if (gcoo_sparse_get_arrays(A, &a) < 0 || gcoo_sparse_get_arrays(At, &t) < 0) return 0;
  const size_t es = ia.dtype == GCOO_FLOAT64 ? 8 : 4;
  return !memcmp(a.ptr, t.ptr, (size_t)(ia.nrows + 1) * 8) &&
         !memcmp(a.ind, t.ind, (size_t)ia.nnz * 4) &&
         !memcmp(a.values, t.values, (size_t)ia.nnz * es);
}

/* A number after "key": in a JSON object (the --json output of gcoo_dist spgemm). */
static int json_number(const char *text, const char *key, double *v) {
  char pat[96];
  snprintf(pat, sizeof pat, "\"%s\"", key);
  const char *s = strstr(text, pat);
  if (!s) return 0;
  s = strchr(s + strlen(pat), ':');
  return s && sscanf(s + 1, "%lf", v) == 1;
}

/* gcoo's variants: a parameter of the registry set for their runs (gcoo_param_set). */
typedef struct variant {
  const char *name, *csv, *param, *value;
} variant;
enum { NVAR = 6 };
static const variant variants[NVAR] =
    {{"recompute-direct", "gcoo_recompute_direct", "GCOO_SPGEMM_RECOMPUTE", "direct"},
     {"bound-off", "gcoo_bound_off", "GCOO_SPGEMM_BOUND_ENTRIES", "0"},
     {"bound-4M", "gcoo_bound_4M", "GCOO_SPGEMM_BOUND_ENTRIES", "4194304"},
     {"pool-256M", "gcoo_pool_256M", "GCOO_SPGEMM_POOL_KEEP_MB", "256"},
     {"dense-0", "gcoo_dense_0", "GCOO_SPGEMM_DENSE_REACH", "0"},
     {"dense-2", "gcoo_dense_2", "GCOO_SPGEMM_DENSE_REACH", "2"}};
#define VARIANT_NAMES "recompute-direct, bound-off, bound-4M, pool-256M, dense-0, dense-2, all"

typedef struct product_rec {
  char name[64], op[4];
  gcoo_dtype dt;
  int tuned; /* one of the products the kernels were tuned on */
  int bad;   /* gcoo failed or its C is outside the tolerance */
  result r[NCOL];
  result var[NVAR]; /* --variant: gcoo with each variant (ok = 0 when not run or failed) */
} product_rec;

/* gcoo with variant v's parameter set for these runs only. */
static void run_variant(const variant *v, const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB,
                        int reps, result *r, gcoo_cuda_csr *keep) {
  const char *was = NULL;
  char saved[64] = "";
  if (gcoo_param_get(v->param, &was) >= 0) snprintf(saved, sizeof saved, "%s", was);
  if (gcoo_param_set(v->param, v->value) < 0) {
    fprintf(stderr, "spgemm_bench: variant %s: %s\n", v->name, gcoo_last_error());
    memset(r, 0, sizeof *r);
    return;
  }
  run_alg(GCOO_SPGEMM_GCOO, dA, dB, reps, 0, r, keep);
  (void)gcoo_param_set(v->param, saved);
}

/* The fastest peer's time of a product (cuSPARSE ALG1, ALG2, ALG3, the peer): the sides timed
 * and, where checked, correct; INFINITY when none. */
static double fastest_peer(const result *r) {
  double best = INFINITY;
  for (int a = 1; a <= PEER; a++)
    if (r[a].ok && r[a].ms > 0 && r[a].ms < best) best = r[a].ms;
  return best;
}

/* ---- an earlier run's CSV (--previous): its worst product against the fastest peer ---------- */
typedef struct prev_run {
  int products;
  double worst;
  char worst_name[128];
} prev_run;

static int csv_field(const char *header, const char *name) {
  int i = 0;
  for (const char *p = header; p && *p; i++) {
    const char *q = strpbrk(p, ",\n");
    const size_t len = q ? (size_t)(q - p) : strlen(p);
    if (len == strlen(name) && !strncmp(p, name, len)) return i;
    p = q && *q == ',' ? q + 1 : NULL;
  }
  return -1;
}

/* Field i of a CSV line (no quoting: the benchmark writes none) into buf. */
static const char *csv_get(const char *line, int i, char *buf, size_t n) {
  const char *p = line;
  for (int k = 0; k < i && p; k++) {
    p = strchr(p, ',');
    if (p) p++;
  }
  if (!p) return "";
  const size_t len = strcspn(p, ",\n");
  snprintf(buf, n, "%.*s", (int)(len < n - 1 ? len : n - 1), p);
  return buf;
}

static int read_previous(const char *path, prev_run *pr) {
  memset(pr, 0, sizeof *pr);
  pr->worst = INFINITY;
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  static char line[8192];
  if (!fgets(line, sizeof line, f)) {
    fclose(f);
    return 0;
  }
  const int fm = csv_field(line, "matrix"), fp = csv_field(line, "product"),
            fd = csv_field(line, "dtype"), fa = csv_field(line, "alg"), fo = csv_field(line, "ok"),
            fms = csv_field(line, "ms");
  if (fm < 0 || fp < 0 || fd < 0 || fa < 0 || fo < 0 || fms < 0) {
    fclose(f);
    return 0;
  }
  char key[128] = "", cur[128] = "", b1[96], b2[16], b3[16], b4[32], b5[8], b6[32];
  double g = -1, best = INFINITY;
  for (int more = 1; more;) {
    more = fgets(line, sizeof line, f) != NULL;
    if (more) {
      snprintf(key, sizeof key, "%s %s %s", csv_get(line, fm, b1, sizeof b1),
               csv_get(line, fp, b2, sizeof b2), csv_get(line, fd, b3, sizeof b3));
    }
    if (!more || strcmp(key, cur)) { /* the product in cur is complete */
      if (cur[0] && g > 0 && best < INFINITY) {
        pr->products++;
        if (best / g < pr->worst) {
          pr->worst = best / g;
          snprintf(pr->worst_name, sizeof pr->worst_name, "%s", cur);
        }
      }
      snprintf(cur, sizeof cur, "%s", key);
      g = -1;
      best = INFINITY;
    }
    if (!more) break;
    const char *alg = csv_get(line, fa, b4, sizeof b4);
    const int ok = atoi(csv_get(line, fo, b5, sizeof b5));
    const double ms = atof(csv_get(line, fms, b6, sizeof b6));
    if (!ok || !(ms > 0)) continue;
    if (!strcmp(alg, "gcoo"))
      g = ms;
    else if (!strcmp(alg, "cusparse_alg1") || !strcmp(alg, "cusparse_alg2") ||
             !strcmp(alg, "cusparse_alg3") || !strcmp(alg, "peer"))
      best = ms < best ? ms : best;
  }
  fclose(f);
  return pr->products > 0;
}

/* ---- output ---------------------------------------------------------------------------------- */
static void fmt_ms(char *buf, size_t n, const result *r, const char *absent) {
  if (r->ok)
    snprintf(buf, n, "%8.3f", r->ms);
  else
    snprintf(buf, n, "%8s", absent);
}

static void fmt_mb(char *buf, size_t n, const result *r) {
  if (r->ok && r->peak_mb >= 0)
    snprintf(buf, n, "%7.1f", r->peak_mb);
  else
    snprintf(buf, n, "%7s", "-");
}

static void csv_row(FILE *csv, const product_rec *pr, const char *dname, const gcoo_sparse_info *ai,
                    const gcoo_sparse_info *bi, const gcoo_spgemm_info *gi, const char *alg,
                    const result *r, int with_prediction) {
  const gcoo_spgemm_info *q = &r->info;
  char phases[256] = "";
  for (int p = 0, n = 0; p < r->nphases && n < (int)sizeof phases; p++)
    n += snprintf(phases + n, sizeof phases - (size_t)n, "%s%s=%.4f", p ? ";" : "",
                  r->phase_name[p] ? r->phase_name[p] : "?", r->phase_ms[p]);
  fprintf(csv,
          "%s,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%s,%d,%d,%.6f,%.6f,%.3f,%lld,%.4f,%lld,%lld,"
          "%lld,%.6f,%.6f,%lld,%.3e,%d,%s,%s\n",
          pr->name, pr->op, dname, pr->tuned ? "tuned" : "unseen", (long long)ai->nrows,
          (long long)ai->ncols, (long long)bi->ncols, (long long)ai->nnz, (long long)gi->flop,
          (long long)(q->nnz ? q->nnz : gi->nnz), alg, r->ok, r->reps, r->ms, r->ms_raw, r->peak_mb,
          (long long)q->nnz_predicted,
          with_prediction && q->nnz
              ? 100.0 * ((double)q->nnz_predicted - (double)q->nnz) / (double)q->nnz
              : 0.0,
          (long long)q->nnz_allocated, (long long)q->rows_overflowed, (long long)q->flop_recomputed,
          1e3 * q->seconds_predict, 1e3 * q->seconds_flop, (long long)q->batches, r->check,
          r->allocations, phases, r->err);
}

/* Geometric mean of peer / gcoo over the products of a set (-1 all, 0 unseen, 1 tuned) and an
 * element type (only_dt: a gcoo_dtype, or -1 for both); side: 1-4 one column, 0 the fastest peer
 * of each product. */
static double geomean(const product_rec *P, int np, int set, int side, int only_dt, int *count) {
  double l = 0;
  int n = 0;
  for (int i = 0; i < np; i++) {
    const result *r = P[i].r;
    if (!r[0].ok || P[i].bad || (set >= 0 && P[i].tuned != set)) continue;
    if (only_dt >= 0 && (int)P[i].dt != only_dt) continue;
    const double peer = side ? (r[side].ok ? r[side].ms : INFINITY) : fastest_peer(r);
    if (!(peer < INFINITY) || !(r[0].ms > 0)) continue;
    l += log(peer / r[0].ms);
    n++;
  }
  *count = n;
  return n ? exp(l / n) : NAN;
}

/* Geometric mean of gcoo's peak memory over a side's (1-4), and on how many products the side
 * used less than gcoo. */
static double memory_ratio(const product_rec *P, int np, int side, int *count, int *side_less) {
  double l = 0;
  int n = 0, less = 0;
  for (int i = 0; i < np; i++) {
    const result *r = P[i].r;
    if (!r[0].ok || P[i].bad || !r[side].ok || r[side].peak_mb < 0 || r[0].peak_mb < 0) continue;
    l += log((r[0].peak_mb + 1e-6) / (r[side].peak_mb + 1e-6));
    n++;
    less += r[side].peak_mb < r[0].peak_mb;
  }
  *count = n;
  *side_less = less;
  return n ? exp(l / n) : NAN;
}

static const char *met(int ok) { return ok ? "met" : "missed"; }

int main(int argc, char **argv) {
  const char *gen = "lrs"; /* generated products: Laplacian, random, stencil */
  int reps = BENCH_MIN_RUNS, budget_test = 0, nfiles = 0, stencil_n = 120, ndt = 2;
  int use_var[NVAR] = {0};
  gcoo_dtype dts[2] = {GCOO_FLOAT64, GCOO_FLOAT32};
  const char *outdir = ".", *drv_bin = NULL, *drv_dir = "/tmp/opsparse", *plan_json = NULL;
  const char *drv_match = NULL, *peer_lib = NULL, *tuned = default_tuned, *previous = NULL;
  int64_t drv_max_nnz = 15000000;
  const char *skip = ""; /* NAME:OP,NAME:OP: products left out (said in the output) */
  const char **files = calloc((size_t)argc + 1, sizeof *files);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
      const char *d = argv[++i];
      ndt = strcmp(d, "both") ? 1 : 2;
      if (!strcmp(d, "float")) dts[0] = GCOO_FLOAT32;
    } else if (!strcmp(argv[i], "--no-generated"))
      gen = "";
    else if (!strcmp(argv[i], "--gen") && i + 1 < argc)
      gen = argv[++i];
    else if (!strcmp(argv[i], "--stencil") && i + 1 < argc)
      stencil_n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--budget-test"))
      budget_test = 1;
    else if (!strcmp(argv[i], "--peer-lib") && i + 1 < argc)
      peer_lib = argv[++i];
    else if (!strcmp(argv[i], "--opsparse-driver") && i + 1 < argc)
      drv_bin = argv[++i];
    else if (!strcmp(argv[i], "--opsparse-driver-match") && i + 1 < argc)
      drv_match = argv[++i];
    else if (!strcmp(argv[i], "--opsparse-dir") && i + 1 < argc)
      drv_dir = argv[++i];
    else if (!strcmp(argv[i], "--opsparse-max-nnz") && i + 1 < argc)
      drv_max_nnz = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--plan-json") && i + 1 < argc)
      plan_json = argv[++i];
    else if (!strcmp(argv[i], "--skip") && i + 1 < argc)
      skip = argv[++i];
    else if (!strcmp(argv[i], "--tuned") && i + 1 < argc)
      tuned = argv[++i];
    else if (!strcmp(argv[i], "--previous") && i + 1 < argc)
      previous = argv[++i];
    else if (!strcmp(argv[i], "--variant") && i + 1 < argc) {
      const char *name = argv[++i];
      int found = 0;
      for (int v = 0; v < NVAR; v++)
        if (!strcmp(name, "all") || !strcmp(name, variants[v].name)) use_var[v] = found = 1;
      if (!found) {
        fprintf(stderr, "spgemm_bench: unknown variant %s (" VARIANT_NAMES ")\n", name);
        return 2;
      }
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc)
      outdir = argv[++i];
    else if (argv[i][0] == '-') {
      fprintf(stderr, "spgemm_bench: unknown option %s\n", argv[i]);
      return 2;
    } else
      files[nfiles++] = argv[i];
  }
  if (reps < BENCH_MIN_RUNS) {
    printf("--reps %d raised to %d (the timing rule's least: bench/bench_stat.h)\n", reps,
           BENCH_MIN_RUNS);
    reps = BENCH_MIN_RUNS;
  }
  if (gcoo__cuda_free_bytes() == 0 || gcoo_ctx_create(&bench_ctx, "cuda:0") < 0) {
    fprintf(stderr, "spgemm_bench: no usable GPU\n");
    return 77;
  }
  bench_peer peer;
  memset(&peer, 0, sizeof peer);
  char why[512] = "no --peer-lib";
  const int have_peer = peer_lib && bench_peer_load(peer_lib, &peer, why, sizeof why);
  if (have_peer)
    printf("peer: %s (%s), in this process under the same timing rule\n", peer.name(), peer_lib);
  else
    printf("peer not available (%s)\n", why);
  struct stat sb;
  if (drv_bin && stat(drv_bin, &sb) != 0) {
    printf("OpSparse's own driver not available (%s not found)\n", drv_bin);
    drv_bin = NULL;
  } else if (drv_bin) {
    printf("reference (in no target): OpSparse's own driver %s on the double products of %s: its "
           "clock, the mean of its 10 runs after a warm-up, one process each\n",
           drv_bin, drv_match ? drv_match : "every matrix");
  }
  const double probe = probe_ms();
  printf("timing (every side): %d warm-up run, then the median of %d timed runs in this process; "
         "the host clock around the whole call, C complete on the device; gcoo's and cuSPARSE's "
         "buffers from one stream-ordered pool, warm; the peer's kept between calls\n",
         BENCH_WARMUP_RUNS, reps);
  printf("cuSPARSE's memory probes: one cudaMemGetInfo takes %.2f us here; taken out of its "
         "times (ALG1 4, ALG2 and ALG3 5 a call)\n",
         1e3 * probe);
  printf("tolerance: every C against the reference (cuSPARSE ALG1, else the first that ran), "
         "relative Frobenius error <= 1e-12 in double, 1e-5 in float; same pattern\n");
  prev_run prev;
  const int have_prev = previous && read_previous(previous, &prev);
  if (previous && !have_prev) printf("--previous %s: no products read\n", previous);
  mkdir(outdir, 0755);
  char path[4096];
  snprintf(path, sizeof path, "%s/spgemm.csv", outdir);
  FILE *csv = fopen(path, "w");
  if (!csv) {
    fprintf(stderr, "spgemm_bench: cannot write %s\n", path);
    return 1;
  }
  fprintf(csv, "matrix,product,dtype,set,m,k,n,nnzA,flop,nnzC,alg,ok,reps,ms,ms_raw,peak_MB,"
               "predicted,pred_err_pct,allocated,rows_recomputed,flop_recomputed,predict_ms,"
               "flop_pass_ms,batches,check_relerr,allocations,phases_ms,error\n");

  const int ngen = 3;
  const int maxprod = 2 * (nfiles + ngen) * ndt;
  product_rec *P = calloc((size_t)maxprod + 1, sizeof *P);
  int np = 0, nbad = 0, nwrong = 0, nalloc = 0;
  for (int d = 0; d < ndt; d++) {
    const gcoo_dtype dt = dts[d];
    const char *dname = dt == GCOO_FLOAT64 ? "double" : "float";
    const double tol = dt == GCOO_FLOAT64 ? 1e-12 : 1e-5;
    printf("\n=== %s\n%-24s %-3s %10s %11s | %8s %8s %8s %8s %8s %8s | %7s %7s %7s %7s %7s | "
           "%6s %6s %6s %5s\n",
           dname, "matrix", "op", "nnz(A)", "nnz(C)", "gcoo ms", "alg1 ms", "alg2 ms", "alg3 ms",
           "peer ms", "drv ms", "gcoo MB", "alg1 MB", "alg2 MB", "alg3 MB", "peer MB", "pred%",
           "recomp", "rflop%", "pr%");
    for (int f = 0; f < nfiles + ngen; f++) {
      gcoo_sparse A = NULL, At = NULL;
      char name[64];
      if (f < nfiles) {
        if (gcoo_mtx_read(files[f], dt, 0, &A) < 0) {
          fprintf(stderr, "spgemm_bench: %s: %s\n", files[f], gcoo_last_error());
          continue;
        }
        snprintf(name, sizeof name, "%s", base_name(files[f]));
        char *dot = strstr(name, ".mtx");
        if (dot) *dot = 0;
      } else if (!strchr(gen, "lrs"[f - nfiles])) {
        continue;
      } else if (f == nfiles) {
        A = laplacian(dt, 1500);
        snprintf(name, sizeof name, "gen_laplacian2d_1500");
      } else if (f == nfiles + 1) {
        gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 400000, 400000, 1.0 - 16.0 / 400000.0, 77, 0);
        snprintf(name, sizeof name, "gen_random_400k_16");
      } else {
        const int64_t N = (int64_t)stencil_n * stencil_n * stencil_n;
        gcoo_sparse_poisson3d_rows(&A, dt, GCOO_FORMAT_CSR, 27, stencil_n, 0, N, 0);
        snprintf(name, sizeof name, "gen_stencil27_%d", stencil_n);
      }
      if (!A) continue;
      if (gcoo_sparse_transpose(&At, A) < 0) {
        gcoo_sparse_destroy(&A);
        continue;
      }
      gcoo_sparse_info ai;
      gcoo_sparse_get_info(A, &ai);
      const int symmetric = same_csr(A, At);
      for (int prod = 0; prod < 2; prod++) {
        const char *op = prod ? "AAt" : "AA";
        char key[96];
        snprintf(key, sizeof key, "%s:%s", name, op);
        if (bench_list_has(skip, key)) {
          printf("%-24.24s %-3s left out (--skip)\n", name, op);
          continue;
        }
        if (prod == 1 && symmetric) {
          printf("%-24.24s AAt = AA (A is symmetric: the same product, timed once)\n", name);
          continue;
        }
        gcoo_sparse B = prod ? At : A;
        gcoo_sparse_info bi;
        gcoo_sparse_get_info(B, &bi);
        if (ai.ncols != bi.nrows) continue; /* A*A of a rectangular matrix */
        gcoo_csr_view va, vb;
        gcoo_cuda_csr dA, dB, C[NALG];
        product_rec *pr = &P[np++];
        result *r = pr->r;
        snprintf(pr->name, sizeof pr->name, "%s", name);
        snprintf(pr->op, sizeof pr->op, "%s", op);
        pr->dt = dt;
        pr->tuned = bench_list_has(tuned, name);
        gcoo__sparse_csr_view(A, &va);
        gcoo__sparse_csr_view(B, &vb);
        if (gcoo__dev_csr_upload(&va, &dA, NULL) < 0 || gcoo__dev_csr_upload(&vb, &dB, NULL) < 0) {
          fprintf(stderr, "spgemm_bench: %s: upload: %s\n", name, gcoo_last_error());
          return 1;
        }
        for (int a = 0; a < NALG; a++) {
          run_alg(algs[a], &dA, &dB, reps, 0, &r[a], &C[a]);
          if (r[a].ok && cusparse_probes[a]) {
            const double fair = r[a].ms_raw - cusparse_probes[a] * probe;
            r[a].ms = fair > 0 ? fair : r[a].ms_raw;
          }
        }
        int ref = -1;
        for (int a = 1; a < NALG && ref < 0; a++)
          if (r[a].ok) ref = a;
        for (int a = 0; a < NALG; a++)
          if (r[a].ok && ref >= 0 && a != ref) r[a].check = gcoo__cuda_csr_compare(&C[a], &C[ref]);
        /* the peer, in this process, its C against the same reference */
        if (have_peer) {
          bench_peer_run(&peer, &dA, &dB, reps, ref >= 0 ? &C[ref] : NULL, &r[PEER]);
          if (r[PEER].ok && r[PEER].check >= 0 && !(r[PEER].check <= tol)) {
            r[PEER].ok = 0;
            nwrong++;
            snprintf(r[PEER].err, sizeof r[PEER].err, "WRONG: relative error %.2e > %.0e",
                     r[PEER].check, tol);
          }
          nalloc += r[PEER].allocations;
        } else {
          memset(&r[PEER], 0, sizeof r[PEER]);
          r[PEER].check = -1;
          snprintf(r[PEER].err, sizeof r[PEER].err, "not available");
        }
        /* OpSparse's own driver: the reference column */
        memset(&r[DRV], 0, sizeof r[DRV]);
        r[DRV].check = -1;
        r[DRV].peak_mb = -1;
        if (!drv_bin || (drv_match && !bench_list_match(drv_match, name)))
          snprintf(r[DRV].err, sizeof r[DRV].err, "not run");
        else if (dt != GCOO_FLOAT64)
          snprintf(r[DRV].err, sizeof r[DRV].err, "double only");
        else if (ai.nnz > drv_max_nnz)
          snprintf(r[DRV].err, sizeof r[DRV].err, "operand too large for its text input");
        else {
          char nb[80];
          snprintf(nb, sizeof nb, "%s_T", name);
          const double ms = bench_opsparse_driver(drv_bin, drv_dir, name, A, prod ? nb : name, B,
                                                  r[DRV].err, sizeof r[DRV].err);
          if (ms > 0) {
            r[DRV].ok = 1;
            r[DRV].ms = r[DRV].ms_raw = ms;
            r[DRV].reps = 10;
          }
        }
        const gcoo_spgemm_info *gi = &r[0].info;
        pr->bad = !r[0].ok || (r[0].check >= 0 && !(r[0].check <= tol));
        nbad += pr->bad;
        char t[NCOL][16], mb[5][16];
        for (int a = 0; a < NCOL; a++) fmt_ms(t[a], sizeof t[a], &r[a], a >= PEER ? "-" : "FAIL");
        for (int a = 0; a < 5; a++) fmt_mb(mb[a], sizeof mb[a], &r[a]);
        printf("%-24.24s %-3s %10lld %11lld | %s %s %s %s %s %s | %s %s %s %s %s |", name, op,
               (long long)ai.nnz,
               (long long)(r[0].ok ? gi->nnz : (ref >= 0 ? r[ref].info.nnz : -1)), t[0], t[1], t[2],
               t[3], t[4], t[5], mb[0], mb[1], mb[2], mb[3], mb[4]);
        char pred[16] = "     -"; /* no prediction: computed at its bounds */
        if (r[0].ok && gi->nnz_predicted > 0)
          snprintf(pred, sizeof pred, "%6.2f",
                   gi->nnz ? 100.0 * ((double)gi->nnz_predicted - (double)gi->nnz) / (double)gi->nnz
                           : 0.0);
        if (r[0].ok)
          printf(" %s %6lld %6.2f %5.2f %s%s\n", pred, (long long)gi->rows_overflowed,
                 gi->flop ? 100.0 * (double)gi->flop_recomputed / (double)gi->flop : 0.0,
                 gi->seconds > 0 ? 100.0 * gi->seconds_predict / gi->seconds : 0.0,
                 pr->tuned ? "tuned" : "unseen", pr->bad ? "  MISMATCH" : "");
        else
          printf(" gcoo failed: %s\n", r[0].err);
        for (int a = 1; a < NCOL; a++) { /* why a side has no time (not where it is expected) */
          const int said = a < PEER ||
                           (a == PEER && have_peer && strncmp(r[a].err, "unsupported", 11)) ||
                           (a == DRV && drv_bin && strcmp(r[a].err, "not run") &&
                            strcmp(r[a].err, "double only"));
          if (!r[a].ok && said) printf("    %s: %s\n", col_name[a], r[a].err);
        }
        if (r[PEER].ok && (r[PEER].allocations || r[PEER].nphases)) {
          printf("    peer phases (ms):");
          for (int p = 0; p < r[PEER].nphases; p++)
            printf(" %s %.3f", r[PEER].phase_name[p], r[PEER].phase_ms[p]);
          printf("; device allocations in its timed runs: %d\n", r[PEER].allocations);
        }
        memset(pr->var, 0, sizeof pr->var);
        for (int vi = 0; vi < NVAR; vi++) {
          if (!use_var[vi] || !r[0].ok) continue;
          gcoo_cuda_csr Cv;
          result *v = &pr->var[vi];
          run_variant(&variants[vi], &dA, &dB, reps, v, &Cv);
          if (v->ok && ref >= 0) v->check = gcoo__cuda_csr_compare(&Cv, &C[ref]);
          const int vbad = !v->ok || (ref >= 0 && !(v->check <= tol)) ||
                           (v->ok && v->info.nnz != gi->nnz);
          nbad += vbad;
          if (v->ok)
            printf("%-24.24s %-3s variant %s: %8.3f ms (default %8.3f, %.2fx), peak %.1f MB, rows "
                   "recomputed %lld, check %.2e%s\n",
                   name, op, variants[vi].name, v->ms, r[0].ms, r[0].ms / v->ms, v->peak_mb,
                   (long long)v->info.rows_overflowed, v->check, vbad ? "  MISMATCH" : "");
          else
            printf("%-24.24s %-3s variant %s failed: %s\n", name, op, variants[vi].name, v->err);
          csv_row(csv, pr, dname, &ai, &bi, gi, variants[vi].csv, v, 1);
          gcoo_cuda_csr_free(&Cv);
        }
        for (int a = 0; a < NCOL; a++)
          csv_row(csv, pr, dname, &ai, &bi, gi, col_name[a], &r[a], !a);
        /* the memory budget: ours again with a quarter of its own peak, batched, still exact */
        if (budget_test && r[0].ok && ref >= 0 && gi->nnz < 20000000) {
          result rb;
          gcoo_cuda_csr Cb;
          const int64_t budget = (int64_t)(r[0].peak_mb * 1048576.0 / 4.0);
          run_alg(GCOO_SPGEMM_GCOO, &dA, &dB, BENCH_MIN_RUNS, budget, &rb, &Cb);
          if (rb.ok) rb.check = gcoo__cuda_csr_compare(&Cb, &C[ref]);
          printf("%-24.24s %-3s budget %.1f MB: %s, %lld batches, peak %.1f MB, %.3f ms, check "
                 "%.2e\n",
                 name, op, (double)budget / 1048576.0, rb.ok ? "ok" : rb.err,
                 (long long)rb.info.batches, rb.peak_mb, rb.ms, rb.check);
          if (!rb.ok || !(rb.check <= tol)) nbad++;
          gcoo_cuda_csr_free(&Cb);
        }
        fflush(stdout);
        fflush(csv);
        for (int a = 0; a < NALG; a++) gcoo_cuda_csr_free(&C[a]);
        gcoo_cuda_csr_free(&dA);
        gcoo_cuda_csr_free(&dB);
      }
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&At);
    }
  }
  fclose(csv);

  /* summary and targets, from the records */
  int ntuned = 0, nunseen = 0;
  double worst = INFINITY, rsum = 0, room_sum = 0, nnz_sum = 0;
  int nr = 0, npr = 0;
  double *shares = calloc((size_t)np + 1, sizeof *shares);
  static char worst_name[128] = "-";
  for (int i = 0; i < np; i++) {
    const result *r = P[i].r;
    if (P[i].tuned)
      ntuned++;
    else
      nunseen++;
    if (!r[0].ok) continue;
    const gcoo_spgemm_info *g = &r[0].info;
    const double best = fastest_peer(r);
    if (best < INFINITY && !P[i].bad && best / r[0].ms < worst) {
      worst = best / r[0].ms;
      snprintf(worst_name, sizeof worst_name, "%s %s %s", P[i].name, P[i].op,
               P[i].dt == GCOO_FLOAT64 ? "double" : "float");
    }
    if (g->flop > 0) {
      rsum += (double)g->flop_recomputed / (double)g->flop;
      nr++;
    }
    room_sum += (double)g->nnz_allocated;
    nnz_sum += (double)g->nnz;
    /* the predictor's share where it ran (a product computed at its bounds predicts nothing) */
    if (g->seconds > 0 && g->nnz_predicted > 0) shares[npr++] = g->seconds_predict / g->seconds;
  }
  const double share = npr ? bench_median(shares, npr) : NAN;
  const double rmean = nr ? rsum / nr : NAN;
  const double room_ratio = nnz_sum > 0 ? room_sum / nnz_sum : NAN;
  printf("\n=== summary: %d products (%d tuned, %d unseen; %s), median of %d runs after a "
         "warm-up, CSV %s\n",
         np, ntuned, nunseen,
         ndt == 2 ? "double and float" : (dts[0] == GCOO_FLOAT64 ? "double" : "float"), reps, path);
  printf("gcoo wrong or failed: %d; peer WRONG (outside the tolerance, left out): %d; peer device "
         "allocations in timed runs: %d\n",
         nbad, nwrong, nalloc);
  const int any = -1;
  static const char *const set_name[3] = {"all", "unseen", "tuned"};
  for (int set = -1; set <= 1; set++) {
    int n1, n2, n3, np4, nf;
    const double g1 = geomean(P, np, set, 1, any, &n1), g2 = geomean(P, np, set, 2, any, &n2);
    const double g3 = geomean(P, np, set, 3, any, &n3), gp = geomean(P, np, set, PEER, any, &np4);
    const double gf = geomean(P, np, set, 0, any, &nf);
    printf("%-6s products: gcoo over ALG1 %.2fx (%d), ALG2 %.2fx (%d), ALG3 %.2fx (%d), the peer "
           "%.2fx (%d), the fastest peer of each %.2fx (%d)\n",
           set_name[set + 1], g1, n1, g2, n2, g3, n3, gp, np4, gf, nf);
  }
  printf("worst product against the fastest peer (ALG1, ALG2, ALG3, the peer): %s %.2fx\n",
         worst_name, worst);
  if (have_prev)
    printf("previous run (%s): %d products, worst %s %.2fx\n", previous, prev.products,
           prev.worst_name, prev.worst);
  printf("rooms: total room %.0f entries for %.0f nnz (%.3fx), FLOP recomputed %.3f %% on "
         "average\n",
         room_sum, nnz_sum, room_ratio, 100.0 * rmean);
  printf("predictor: share of the product over the %d products it ran for (the other %d were "
         "computed at their bounds, no prediction)\n",
         npr, np - npr);
  double plan_share = NAN;
  if (plan_json) {
    FILE *jf = fopen(plan_json, "r");
    static char text[1 << 16];
    size_t len = jf ? fread(text, 1, sizeof text - 1, jf) : 0;
    text[len] = 0;
    if (jf) fclose(jf);
    double sp = NAN, st = NAN;
    /* gcoo_dist spgemm --json: time_s {plan, ..., total} */
    if (json_number(text, "plan", &sp) && json_number(text, "total", &st) && st > 0) {
      plan_share = sp / st;
      printf("gcoo_dist spgemm (%s): plan %.3f s of %.3f s\n", plan_json, sp, st);
    } else {
      printf("gcoo_dist spgemm: no time_s plan/total in %s\n", plan_json);
    }
  }
  for (int vi = 0; vi < NVAR; vi++) { /* side by side; the targets below stay the default's */
    if (!use_var[vi]) continue;
    double lv_ovf = 0, lv_rest = 0, lv1 = 0, vworst = INFINITY;
    int nv_ovf = 0, nv_rest = 0, nv1 = 0;
    for (int i = 0; i < np; i++) {
      const result *r = P[i].r, *v = &P[i].var[vi];
      if (!r[0].ok || !v->ok) continue;
      if (r[0].info.rows_overflowed > 0) {
        lv_ovf += log(r[0].ms / v->ms);
        nv_ovf++;
      } else {
        lv_rest += log(r[0].ms / v->ms);
        nv_rest++;
      }
      if (r[1].ok) {
        lv1 += log(r[1].ms / v->ms);
        nv1++;
      }
      const double best = fastest_peer(r);
      if (best < INFINITY && best / v->ms < vworst) vworst = best / v->ms;
    }
    int n1;
    printf("variant %s: default / variant time, geomean: %.3fx over %d products with recomputed "
           "rows, %.3fx over %d without\n",
           variants[vi].name, nv_ovf ? exp(lv_ovf / nv_ovf) : NAN, nv_ovf,
           nv_rest ? exp(lv_rest / nv_rest) : NAN, nv_rest);
    printf("variant %s in place of the default: vs ALG1 %.2fx (default %.2fx), worst %.2fx "
           "(default %.2fx)\n",
           variants[vi].name, nv1 ? exp(lv1 / nv1) : NAN, geomean(P, np, -1, 1, any, &n1), vworst,
           worst);
  }

  /* the targets (issue 41's rule: every side under the same clock, all products, unseen apart) */
  const char *failed = nbad ? " (gcoo failed or was outside the tolerance on some product)" : "";
  int n1 = 0, nops = 0, nun = 0;
  const double g1 = geomean(P, np, -1, 1, any, &n1);
  const double gops = geomean(P, np, -1, PEER, (int)GCOO_FLOAT64, &nops);
  const double gun = geomean(P, np, 0, 0, any, &nun);
  printf("target spgemm-vs-alg1: %.2fx over %d products (goal >= 2.0x) %s%s\n", g1, n1,
         met(g1 >= 2.0 && !nbad), failed);
  if (!have_peer)
    printf("target spgemm-vs-opsparse: not measured (peer not available) (goal >= 1.3x) missed\n");
  else
    printf("target spgemm-vs-opsparse: %.2fx over %d double products, %s in this process (goal "
           ">= 1.3x) %s%s\n",
           gops, nops, peer.name(), met(gops >= 1.3 && !nbad && !nwrong), failed);
  const double worst2 = have_prev && prev.worst < worst ? prev.worst : worst;
  if (have_prev)
    printf("target spgemm-worst: %.2fx, the lowest of two runs (this run %.2fx %s, the previous "
           "%.2fx %s) (goal >= 0.9x of the fastest peer) %s%s\n",
           worst2, worst, worst_name, prev.worst, prev.worst_name, met(worst2 >= 0.9 && !nbad),
           failed);
  else
    printf("target spgemm-worst: %.2fx (%s), one run: the target takes the lowest of two (goal "
           ">= 0.9x of the fastest peer) %s%s\n",
           worst, worst_name, met(0), failed);
  int nm1, nm2, nm3, nmp, l1, l2, l3, lp;
  const double m1 = memory_ratio(P, np, 1, &nm1, &l1), m2 = memory_ratio(P, np, 2, &nm2, &l2);
  const double m3 = memory_ratio(P, np, 3, &nm3, &l3), mp = memory_ratio(P, np, PEER, &nmp, &lp);
  printf("target spgemm-memory: %.2fx of ALG1's peak over %d products (goal <= 0.5x) %s; of "
         "ALG2's %.2fx (ALG2 below gcoo on %d of %d), of ALG3's %.2fx (below on %d of %d), of "
         "the peer's %.2fx (below on %d of %d)\n",
         m1, nm1, met(m1 <= 0.5), m2, l2, nm2, m3, l3, nm3, mp, lp, nmp);
  printf("target spgemm-unseen: %.2fx over %d products not tuned on, against the fastest peer of "
         "each (goal >= 1.5x) %s%s\n",
         gun, nun, met(gun >= 1.5 && !nbad), failed);
  printf("target predictor-share: %.2f %% (goal <= 2 %%) %s\n", 100.0 * share, met(share <= 0.02));
  if (plan_json && plan_share == plan_share)
    printf("target spgemm-plan-share: %.2f %% (goal <= 5 %%) %s\n", 100.0 * plan_share,
           met(plan_share <= 0.05));
  else
    printf("target spgemm-plan-share: not measured (goal <= 5 %%) missed\n");
  printf("target rooms-recompute: %.3f %% (goal <= 1 %%, total room %.3fx nnz, goal <= 1.2x) %s\n",
         100.0 * rmean, room_ratio, met(rmean <= 0.01 && room_ratio <= 1.2));
  if (have_peer) bench_peer_unload(&peer);
  free(shares);
  free(P);
  free(files);
  gcoo_ctx_destroy(&bench_ctx);
  return nbad ? 1 : 0;
}
