/* SPDX-License-Identifier: MIT */
/* bench/spgemm_bench.c: gcoo's GPU SpGEMM against cuSPARSE's (ALG1, ALG2, ALG3) and OpSparse on
 * A*A and A*A^T of Matrix Market files and of generated products (2-D Laplacian, random
 * 400k x 16, a 27-point stencil), in double and float: time (median of the timed runs after a
 * warm-up), peak device memory beyond the inputs, nnz(C), the prediction's error, rows and FLOP
 * recomputed after overflowing their predicted room, the predictor's share of the product, and a
 * check of every result against cuSPARSE's (on the device: same pattern, values within a
 * tolerance). Inputs start on the device for gcoo and cuSPARSE, and both take their buffers (and a
 * C of at most a quarter of what the pool keeps) from one stream-ordered pool, warm after the
 * warm-up run, as a user who keeps a pool would (no side pays a cudaMalloc inside its clock that
 * the other does not); each time is the host clock from the call's first cuSPARSE or
 * gcoo call to its stream's end, C complete on the device. The last lines are the issue's
 * targets, computed from what was measured. One CSV row per (product, algorithm) goes to
 * <outdir>/spgemm.csv.
 *
 * OpSparse (lorentzbf/OpSparse, not part of gcoo) runs when --opsparse BIN names its
 * reg_opsparse driver: the operands are written as Matrix Market files under
 * DIR/matrix/suite_sparse/NAME/NAME.mtx (--opsparse-dir DIR, default /tmp/opsparse) and the driver
 * runs in DIR/work, which is where it looks for them; its own timing (mean of 10 runs after a
 * warm-up, whole pipeline with C's allocation) is parsed from its last line. Its time is the
 * fastest of --opsparse-runs N processes (default 3), so that one slow process does not count
 * against the peer. (Its time for the 2-D Laplacian can still differ by 1.2x between H200
 * machines, the processes of one machine agreeing.) It is
 * built for double only; operands above --opsparse-max-nnz entries are not passed (text
 * files).
 *
 * usage: spgemm_bench [--reps R] [--dtype float|double|both] [--no-generated | --gen [l][r][s]]
 *                     [--stencil N]
 *                     [--budget-test] [--opsparse BIN] [--opsparse-dir DIR]
 *                     [--opsparse-max-nnz N] [--opsparse-runs N] [--plan-json FILE]
 *                     [--skip NAME:OP,...]
 *                     [--variant NAME] [--out DIR]
 *                     file.mtx[.gz] ...
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
 * to be accumulated densely, instead of 1). The summary gives each side by side with the default
 * and what the targets would be with it.
 * The target lines stay the default's. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend_impl.h"
#include "gcoo/gcoo.h"
#include "spgemm/spgemm_cuda.h"

enum { NALG = 4, NCOL = 5, OPS = 4 }; /* columns: gcoo, ALG1, ALG2, ALG3, OpSparse */
static const gcoo_spgemm_alg algs[NALG] = {GCOO_SPGEMM_GCOO, GCOO_SPGEMM_CUSPARSE_ALG1,
                                           GCOO_SPGEMM_CUSPARSE_ALG2, GCOO_SPGEMM_CUSPARSE_ALG3};
static const char *col_name[NCOL] = {"gcoo", "cusparse_alg1", "cusparse_alg2", "cusparse_alg3",
                                     "opsparse"};

typedef struct result {
  int ok, reps;
  double ms, peak_mb;
  gcoo_spgemm_info info;
  double check; /* relative value error against the reference result, -1 if not checked */
  char err[160];
} result;

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Run one algorithm reps + 1 times (the first is a warm-up; a warm-up over 1 s cuts the timed
 * runs to 2, said in the output); keep the last C in *keep. */
/* the CUDA context both products run on (its stream, its SpGEMM pool, kept warm between them) */
static gcoo_ctx bench_ctx = NULL;

static void run_alg(gcoo_spgemm_alg alg, const gcoo_cuda_csr *dA, const gcoo_cuda_csr *dB, int reps,
                    int64_t budget, result *r, gcoo_cuda_csr *keep) {
  double *t = calloc((size_t)reps + 1, sizeof *t);
  memset(r, 0, sizeof *r);
  r->check = -1.0;
  memset(keep, 0, sizeof *keep);
  for (int rep = 0; rep <= reps; rep++) {
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
    if (rep == 0 && t[0] > 1000.0 && reps > 2) reps = 2;
    r->peak_mb = (double)info.peak_bytes / 1048576.0;
    r->info = info;
    if (hC) { /* batched: C came back to the host; put it on the device for the check */
      gcoo_csr_view v;
      gcoo__sparse_csr_view(hC, &v);
      gcoo_cuda_csr_free(&C);
      if (rep == reps) gcoo__dev_csr_upload(&v, &C, NULL);
      gcoo_sparse_destroy(&hC);
    }
    if (rep == reps)
      *keep = C;
    else
      gcoo_cuda_csr_free(&C);
  }
  qsort(t + 1, (size_t)reps, sizeof *t, cmp_d);
  r->ms = reps > 0 ? t[1 + reps / 2] : t[0];
  r->reps = reps;
  r->ok = 1;
  free(t);
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

/* OpSparse's time (ms) of name_a * name_b, writing the operands for it first; < 0 if absent. */
static double run_opsparse(const char *bin, const char *dir, const char *name_a, gcoo_sparse A,
                           const char *name_b, gcoo_sparse B, char *why, size_t whylen) {
  char path[4096], cmd[8192], line[512];
  const char *names[2] = {name_a, name_b};
  gcoo_sparse mats[2] = {A, B};
  snprintf(path, sizeof path, "%s/matrix", dir);
  mkdir(dir, 0755);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/matrix/suite_sparse", dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/work", dir);
  mkdir(path, 0755);
  for (int k = 0; k < 2; k++) {
    if (k == 1 && !strcmp(name_a, name_b)) break;
    snprintf(path, sizeof path, "%s/matrix/suite_sparse/%s", dir, names[k]);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/matrix/suite_sparse/%s/%s.mtx", dir, names[k], names[k]);
    struct stat sb;
    if (stat(path, &sb) != 0 && gcoo_mtx_write(path, mats[k]) < 0) {
      snprintf(why, whylen, "cannot write %s", path);
      return -1.0;
    }
  }
  snprintf(cmd, sizeof cmd, "cd '%s/work' && timeout 300 '%s' '%s' '%s' 2>&1", dir, bin, name_a,
           name_b);
  FILE *p = popen(cmd, "r");
  double ms = -1.0;
  if (!p) {
    snprintf(why, whylen, "cannot run %s", bin);
    return -1.0;
  }
  while (fgets(line, sizeof line, p)) {
    char *g = strstr(line, "GFLOPS");
    double x;
    if (g && sscanf(g, "GFLOPS %lf ms", &x) == 1) ms = x;
  }
  const int rc = pclose(p);
  if (ms < 0 || !(ms > 0)) {
    snprintf(why, whylen, "OpSparse failed (status %d)", rc);
    return -1.0;
  }
  return ms;
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

int main(int argc, char **argv) {
  const char *gen = "lrs"; /* generated products: Laplacian, random, stencil */
  int reps = 5, budget_test = 0, nfiles = 0, stencil_n = 120, ndt = 2, use_var[NVAR] = {0};
  gcoo_dtype dts[2] = {GCOO_FLOAT64, GCOO_FLOAT32};
  const char *outdir = ".", *ops_bin = NULL, *ops_dir = "/tmp/opsparse", *plan_json = NULL;
  int64_t ops_max_nnz = 15000000;
  int ops_runs = 3;
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
    else if (!strcmp(argv[i], "--opsparse") && i + 1 < argc)
      ops_bin = argv[++i];
    else if (!strcmp(argv[i], "--opsparse-dir") && i + 1 < argc)
      ops_dir = argv[++i];
    else if (!strcmp(argv[i], "--opsparse-max-nnz") && i + 1 < argc)
      ops_max_nnz = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--opsparse-runs") && i + 1 < argc) {
      ops_runs = atoi(argv[++i]);
      if (ops_runs < 1) ops_runs = 1;
    } else if (!strcmp(argv[i], "--plan-json") && i + 1 < argc)
      plan_json = argv[++i];
    else if (!strcmp(argv[i], "--skip") && i + 1 < argc)
      skip = argv[++i];
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
  if (gcoo__cuda_free_bytes() == 0 || gcoo_ctx_create(&bench_ctx, "cuda:0") < 0) {
    fprintf(stderr, "spgemm_bench: no usable GPU\n");
    return 77;
  }
  struct stat sb;
  if (ops_bin && stat(ops_bin, &sb) != 0) {
    printf("OpSparse not available (%s not found)\n", ops_bin);
    ops_bin = NULL;
  } else if (!ops_bin) {
    printf("OpSparse not available (no --opsparse)\n");
  } else {
    printf("OpSparse: its driver's mean of 10 runs after a warm-up, the fastest of %d processes\n",
           ops_runs);
  }
  printf("timing: host clock around the whole product (C complete on the device), median of %d "
         "after a warm-up; gcoo's and cuSPARSE's buffers from one stream-ordered pool, warm\n",
         reps);
  mkdir(outdir, 0755);
  char path[4096];
  snprintf(path, sizeof path, "%s/spgemm.csv", outdir);
  FILE *csv = fopen(path, "w");
  if (!csv) {
    fprintf(stderr, "spgemm_bench: cannot write %s\n", path);
    return 1;
  }
  fprintf(csv, "matrix,product,dtype,m,k,n,nnzA,flop,nnzC,alg,ok,reps,ms,peak_MB,predicted,"
               "pred_err_pct,allocated,rows_recomputed,flop_recomputed,predict_ms,flop_pass_ms,"
               "batches,check_relerr,error\n");

  const int ngen = 3;
  const int maxprod = 2 * (nfiles + ngen) * ndt;
  product_rec *P = calloc((size_t)maxprod + 1, sizeof *P);
  int np = 0, nbad = 0;
  for (int d = 0; d < ndt; d++) {
    const gcoo_dtype dt = dts[d];
    const char *dname = dt == GCOO_FLOAT64 ? "double" : "float";
    printf("\n=== %s\n%-24s %-3s %10s %11s | %8s %8s %8s %8s %8s | %7s %7s %7s | %6s %6s %6s %5s\n",
           dname, "matrix", "op", "nnz(A)", "nnz(C)", "gcoo ms", "alg1 ms", "alg2 ms", "alg3 ms",
           "ops ms", "gcoo MB", "alg1 MB", "alg2 MB", "pred%", "recomp", "rflop%", "pr%");
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
        {
          char key[96];
          snprintf(key, sizeof key, "%s:%s", name, prod ? "AAt" : "AA");
          if (strstr(skip, key)) {
            printf("%-24.24s %-3s left out (--skip)\n", name, prod ? "AAt" : "AA");
            continue;
          }
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
        snprintf(pr->op, sizeof pr->op, "%s", prod ? "AAt" : "AA");
        pr->dt = dt;
        gcoo__sparse_csr_view(A, &va);
        gcoo__sparse_csr_view(B, &vb);
        if (gcoo__dev_csr_upload(&va, &dA, NULL) < 0 || gcoo__dev_csr_upload(&vb, &dB, NULL) < 0) {
          fprintf(stderr, "spgemm_bench: %s: upload: %s\n", name, gcoo_last_error());
          return 1;
        }
        for (int a = 0; a < NALG; a++) run_alg(algs[a], &dA, &dB, reps, 0, &r[a], &C[a]);
        memset(&r[OPS], 0, sizeof r[OPS]);
        r[OPS].check = -1;
        if (!ops_bin)
          snprintf(r[OPS].err, sizeof r[OPS].err, "not available");
        else if (dt != GCOO_FLOAT64)
          snprintf(r[OPS].err, sizeof r[OPS].err, "double only");
        else if (ai.nnz > ops_max_nnz)
          snprintf(r[OPS].err, sizeof r[OPS].err, "operand too large for its text input");
        else {
          char nb[80];
          snprintf(nb, sizeof nb, "%s_T", name);
          double ms = -1.0;
          int ran = 0;                    /* processes that printed a time */
          for (; ran < ops_runs; ran++) { /* the fastest process */
            const double x = run_opsparse(ops_bin, ops_dir, name, A, prod ? nb : name, B,
                                          r[OPS].err, sizeof r[OPS].err);
            if (x <= 0) break;
            if (ms < 0 || x < ms) ms = x;
          }
          if (ms > 0) {
            r[OPS].err[0] = '\0';
            r[OPS].ok = 1;
            r[OPS].ms = ms;
            r[OPS].reps = 10 * ran;
          }
        }
        int ref = -1;
        for (int a = 1; a < NALG && ref < 0; a++)
          if (r[a].ok) ref = a;
        for (int a = 0; a < NALG; a++)
          if (r[a].ok && ref >= 0 && a != ref) r[a].check = gcoo__cuda_csr_compare(&C[a], &C[ref]);
        const double tol = dt == GCOO_FLOAT64 ? 1e-12 : 1e-5;
        const gcoo_spgemm_info *gi = &r[0].info;
        const int bad = !r[0].ok || (r[0].check >= 0 && !(r[0].check <= tol));
        nbad += bad;
        printf("%-24.24s %-3s %10lld %11lld |", name, pr->op, (long long)ai.nnz,
               (long long)(r[0].ok ? gi->nnz : (ref >= 0 ? r[ref].info.nnz : -1)));
        for (int a = 0; a < NCOL; a++) {
          if (r[a].ok)
            printf(" %8.3f", r[a].ms);
          else
            printf(" %8s", a == OPS ? "-" : "FAIL");
        }
        printf(" |");
        for (int a = 0; a < 3; a++) {
          if (r[a].ok)
            printf(" %7.1f", r[a].peak_mb);
          else
            printf(" %7s", "-");
        }
        char pred[16] = "     -"; /* no prediction: computed at its bounds */
        if (r[0].ok && gi->nnz_predicted > 0)
          snprintf(pred, sizeof pred, "%6.2f",
                   gi->nnz ? 100.0 * ((double)gi->nnz_predicted - (double)gi->nnz) / (double)gi->nnz
                           : 0.0);
        if (r[0].ok)
          printf(" | %s %6lld %6.2f %5.2f%s%s\n", pred, (long long)gi->rows_overflowed,
                 gi->flop ? 100.0 * (double)gi->flop_recomputed / (double)gi->flop : 0.0,
                 gi->seconds > 0 ? 100.0 * gi->seconds_predict / gi->seconds : 0.0,
                 r[0].reps < reps ? "  (2 runs)" : "", bad ? "  MISMATCH" : "");
        else
          printf(" | gcoo failed: %s\n", r[0].err);
        for (int a = 1; a < NALG; a++)
          if (!r[a].ok) printf("    %s: %s\n", col_name[a], r[a].err);
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
                   name, pr->op, variants[vi].name, v->ms, r[0].ms, r[0].ms / v->ms, v->peak_mb,
                   (long long)v->info.rows_overflowed, v->check, vbad ? "  MISMATCH" : "");
          else
            printf("%-24.24s %-3s variant %s failed: %s\n", name, pr->op, variants[vi].name,
                   v->err);
          fprintf(csv,
                  "%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%s,%d,%d,%.6f,%.3f,%lld,%.4f,%lld,%lld,"
                  "%lld,%.6f,%.6f,%lld,%.3e,%s\n",
                  name, pr->op, dname, (long long)ai.nrows, (long long)ai.ncols,
                  (long long)bi.ncols, (long long)ai.nnz, (long long)gi->flop,
                  (long long)v->info.nnz, variants[vi].csv, v->ok, v->reps, v->ms, v->peak_mb,
                  (long long)v->info.nnz_predicted, 0.0, (long long)v->info.nnz_allocated,
                  (long long)v->info.rows_overflowed, (long long)v->info.flop_recomputed,
                  1e3 * v->info.seconds_predict, 1e3 * v->info.seconds_flop,
                  (long long)v->info.batches, v->check, v->err);
          gcoo_cuda_csr_free(&Cv);
        }
        for (int a = 0; a < NCOL; a++) {
          const gcoo_spgemm_info *q = &r[a].info;
          fprintf(csv,
                  "%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%s,%d,%d,%.6f,%.3f,%lld,%.4f,%lld,%lld,"
                  "%lld,%.6f,%.6f,%lld,%.3e,%s\n",
                  name, pr->op, dname, (long long)ai.nrows, (long long)ai.ncols,
                  (long long)bi.ncols, (long long)ai.nnz, (long long)gi->flop,
                  (long long)(a == OPS ? gi->nnz : q->nnz), col_name[a], r[a].ok, r[a].reps,
                  r[a].ms, r[a].peak_mb, (long long)q->nnz_predicted,
                  a == 0 && q->nnz
                      ? 100.0 * ((double)q->nnz_predicted - (double)q->nnz) / (double)q->nnz
                      : 0.0,
                  (long long)q->nnz_allocated, (long long)q->rows_overflowed,
                  (long long)q->flop_recomputed, 1e3 * q->seconds_predict, 1e3 * q->seconds_flop,
                  (long long)q->batches, r[a].check, r[a].err);
        }
        /* the memory budget: ours again with a quarter of its own peak, batched, still exact */
        if (budget_test && r[0].ok && ref >= 0 && gi->nnz < 20000000) {
          result rb;
          gcoo_cuda_csr Cb;
          const int64_t budget = (int64_t)(r[0].peak_mb * 1048576.0 / 4.0);
          run_alg(GCOO_SPGEMM_GCOO, &dA, &dB, 1, budget, &rb, &Cb);
          if (rb.ok) rb.check = gcoo__cuda_csr_compare(&Cb, &C[ref]);
          printf("%-24.24s %-3s budget %.1f MB: %s, %lld batches, peak %.1f MB, %.3f ms, check "
                 "%.2e\n",
                 name, pr->op, (double)budget / 1048576.0, rb.ok ? "ok" : rb.err,
                 (long long)rb.info.batches, rb.peak_mb, rb.ms, rb.check);
          if (!rb.ok || !(rb.check <= tol)) nbad++;
          gcoo_cuda_csr_free(&Cb);
        }
        fflush(stdout);
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
  double l1 = 0, lops = 0, lmem = 0, worst = INFINITY, rsum = 0, room_sum = 0, nnz_sum = 0;
  int n1 = 0, nops = 0, nmem = 0, nworst = 0, nr = 0, npr = 0;
  double *shares = calloc((size_t)np + 1, sizeof *shares);
  const char *worst_name = "-";
  static char worst_buf[96];
  for (int i = 0; i < np; i++) {
    const result *r = P[i].r;
    if (!r[0].ok) continue;
    const gcoo_spgemm_info *g = &r[0].info;
    if (r[1].ok) {
      l1 += log(r[1].ms / r[0].ms);
      n1++;
      lmem += log((r[0].peak_mb + 1e-6) / (r[1].peak_mb + 1e-6));
      nmem++;
    }
    if (r[OPS].ok) {
      lops += log(r[OPS].ms / r[0].ms);
      nops++;
    }
    double best = INFINITY;
    if (r[1].ok) best = r[1].ms;
    if (r[OPS].ok && r[OPS].ms < best) best = r[OPS].ms;
    if (best < INFINITY) {
      const double q = best / r[0].ms;
      if (q < worst) {
        worst = q;
        snprintf(worst_buf, sizeof worst_buf, "%s %s %s", P[i].name, P[i].op,
                 P[i].dt == GCOO_FLOAT64 ? "double" : "float");
        worst_name = worst_buf;
      }
      nworst++;
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
  qsort(shares, (size_t)npr, sizeof *shares, cmp_d);
  const double share = npr ? (npr % 2 ? shares[npr / 2]
                                      : 0.5 * (shares[npr / 2 - 1] + shares[npr / 2]))
                           : NAN;
  const double g1 = n1 ? exp(l1 / n1) : NAN, gops = nops ? exp(lops / nops) : NAN;
  const double gmem = nmem ? exp(lmem / nmem) : NAN, rmean = nr ? rsum / nr : NAN;
  const double room_ratio = nnz_sum > 0 ? room_sum / nnz_sum : NAN;
  printf("\n=== summary: %d products (%s), median of %d runs after a warm-up, CSV %s\n", np,
         ndt == 2 ? "double and float" : (dts[0] == GCOO_FLOAT64 ? "double" : "float"), reps, path);
  printf("gcoo vs ALG1 over %d products, vs OpSparse over %d (double; its own driver); gcoo wrong "
         "or failed: %d\n",
         n1, nops, nbad);
  printf("worst product against the faster of ALG1 and OpSparse: %s\n", worst_name);
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
    double lv_ovf = 0, lv_rest = 0, lv1 = 0, lvops = 0, vworst = INFINITY;
    int nv_ovf = 0, nv_rest = 0, nv1 = 0, nvops = 0;
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
      double best = INFINITY;
      if (r[1].ok) {
        lv1 += log(r[1].ms / v->ms);
        nv1++;
        best = r[1].ms;
      }
      if (r[OPS].ok) {
        lvops += log(r[OPS].ms / v->ms);
        nvops++;
        if (r[OPS].ms < best) best = r[OPS].ms;
      }
      if (best < INFINITY && best / v->ms < vworst) vworst = best / v->ms;
    }
    printf("variant %s: default / variant time, geomean: %.3fx over %d products with recomputed "
           "rows, %.3fx over %d without\n",
           variants[vi].name, nv_ovf ? exp(lv_ovf / nv_ovf) : NAN, nv_ovf,
           nv_rest ? exp(lv_rest / nv_rest) : NAN, nv_rest);
    printf("variant %s in place of the default: vs ALG1 %.2fx (default %.2fx), vs OpSparse %.2fx "
           "(default %.2fx), worst %.2fx (default %.2fx)\n",
           variants[vi].name, nv1 ? exp(lv1 / nv1) : NAN, g1, nvops ? exp(lvops / nvops) : NAN,
           gops, vworst, worst);
  }
  printf("target spgemm-vs-alg1: %.2fx (goal >= 2.0x) %s\n", g1, g1 >= 2.0 ? "met" : "missed");
  printf("target spgemm-vs-opsparse: %.2fx (goal >= 1.3x) %s\n", gops,
         gops >= 1.3 ? "met" : "missed");
  printf("target spgemm-worst: %.2fx (goal >= 0.9x) %s\n", worst, worst >= 0.9 ? "met" : "missed");
  printf("target spgemm-memory: %.2fx (goal <= 0.5x) %s\n", gmem, gmem <= 0.5 ? "met" : "missed");
  printf("target predictor-share: %.2f %% (goal <= 2 %%) %s\n", 100.0 * share,
         share <= 0.02 ? "met" : "missed");
  if (plan_json && plan_share == plan_share)
    printf("target spgemm-plan-share: %.2f %% (goal <= 5 %%) %s\n", 100.0 * plan_share,
           plan_share <= 0.05 ? "met" : "missed");
  else
    printf("target spgemm-plan-share: not measured (goal <= 5 %%) missed\n");
  printf("target rooms-recompute: %.3f %% (goal <= 1 %%, total room %.3fx nnz, goal <= 1.2x) %s\n",
         100.0 * rmean, room_ratio, rmean <= 0.01 && room_ratio <= 1.2 ? "met" : "missed");
  free(shares);
  free(P);
  free(files);
  gcoo_ctx_destroy(&bench_ctx);
  return nbad ? 1 : 0;
}
