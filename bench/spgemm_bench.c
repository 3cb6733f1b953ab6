/* SPDX-License-Identifier: MIT */
/* bench/spgemm_bench.c: gcoo's GPU SpGEMM against cuSPARSE's (ALG1, ALG2, ALG3) on A*A and A*A^T
 * of Matrix Market files and of a few larger generated matrices: time (median of the timed
 * runs, after a warm-up), peak device memory beyond the inputs, nnz(C), the prediction's error,
 * rows recomputed after overflowing their predicted room, and a check of every result against
 * the first cuSPARSE result that ran (same pattern, values within a tolerance). Inputs start on
 * the device for every algorithm. The last lines are a summary; one CSV row per (product,
 * algorithm) goes to <outdir>/spgemm.csv.
 *
 * usage: spgemm_bench [--reps R] [--dtype float|double] [--no-generated] [--budget-test]
 *                     [--out DIR] file.mtx[.gz] ... */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend_impl.h"
#include "gcoo/gcoo.h"
#include "spgemm_cuda.h"

enum { NALG = 4 };
static const gcoo_spgemm_alg algs[NALG] = {GCOO_SPGEMM_GCOO, GCOO_SPGEMM_CUSPARSE_ALG1,
                                           GCOO_SPGEMM_CUSPARSE_ALG2, GCOO_SPGEMM_CUSPARSE_ALG3};

typedef struct result {
  int ok;
  double ms, peak_mb;
  int64_t nnz, pred, overflow, batches;
  double check; /* relative value error against the reference result, -1 if not checked */
  char err[160];
} result;

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* ||C - R|| / ||R|| if C and R have the same pattern, else INFINITY. */
static double compare(const gcoo_dev_csr *C, const gcoo_dev_csr *R) {
  gcoo_sparse hc = NULL, hr = NULL;
  if (gcoo__dev_csr_download(C, &hc, NULL) < 0 || gcoo__dev_csr_download(R, &hr, NULL) < 0) {
    gcoo_sparse_destroy(&hc);
    gcoo_sparse_destroy(&hr);
    return INFINITY;
  }
  gcoo_sparse_arrays a, b;
  gcoo_sparse_info ia;
  gcoo_sparse_get_info(hc, &ia);
  gcoo_sparse_get_arrays(hc, &a);
  gcoo_sparse_get_arrays(hr, &b);
  double e = 0.0, r = 0.0;
  int same = C->nnz == R->nnz;
  for (int64_t i = 0; same && i <= ia.nrows; i++) same = a.ptr[i] == b.ptr[i];
  for (int64_t k = 0; same && k < C->nnz; k++) {
    same = a.ind[k] == b.ind[k];
    double x = ia.dtype == GCOO_FLOAT64 ? ((const double *)a.values)[k] : ((const float *)a.values)[k];
    double y = ia.dtype == GCOO_FLOAT64 ? ((const double *)b.values)[k] : ((const float *)b.values)[k];
    e += (x - y) * (x - y);
    r += y * y;
  }
  gcoo_sparse_destroy(&hc);
  gcoo_sparse_destroy(&hr);
  if (!same) return INFINITY;
  return r > 0 ? sqrt(e / r) : sqrt(e);
}

/* Run one algorithm reps + 1 times (the first is a warm-up); keep the last C in *keep. */
static void run_alg(gcoo_spgemm_alg alg, gcoo_sparse hA, gcoo_sparse hB, const gcoo_dev_csr *dA,
                    const gcoo_dev_csr *dB, int reps, int64_t budget, result *r,
                    gcoo_dev_csr *keep) {
  double *t = calloc((size_t)reps + 1, sizeof *t);
  memset(r, 0, sizeof *r);
  r->check = -1.0;
  memset(keep, 0, sizeof *keep);
  for (int rep = 0; rep <= reps; rep++) {
    gcoo_dev_csr C;
    gcoo_sparse hC = NULL;
    gcoo_spgemm_info info;
    gcoo_status st;
    memset(&C, 0, sizeof C);
    if (alg == GCOO_SPGEMM_GCOO) {
      gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
      o.memory_budget = budget;
      st = gcoo__cuda_spgemm_gcoo(NULL, hA, hB, dA, dB, &o, &C, &hC, &info);
    } else {
      st = gcoo__cuda_spgemm_cusparse(NULL, alg, dA, dB, 0.0, &C, &info);
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
    r->nnz = info.nnz;
    r->pred = info.nnz_predicted;
    r->overflow = info.rows_overflowed;
    r->batches = info.batches;
    if (hC) { /* batched: C came back to the host; put it on the device for the check */
      gcoo_csr_view v;
      gcoo__sparse_csr_view(hC, &v);
      gcoo__dev_csr_free(&C);
      if (rep == reps) gcoo__dev_csr_upload(&v, &C, NULL);
      gcoo_sparse_destroy(&hC);
    }
    if (rep == reps) *keep = C;
    else gcoo__dev_csr_free(&C);
  }
  qsort(t + 1, (size_t)reps, sizeof *t, cmp_d);
  r->ms = reps > 0 ? t[1 + reps / 2] : t[0];
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

int main(int argc, char **argv) {
  int reps = 5, generated = 1, budget_test = 0, nfiles = 0;
  gcoo_dtype dt = GCOO_FLOAT64;
  const char *outdir = ".";
  const char **files = calloc((size_t)argc + 1, sizeof *files);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dtype") && i + 1 < argc)
      dt = !strcmp(argv[++i], "float") ? GCOO_FLOAT32 : GCOO_FLOAT64;
    else if (!strcmp(argv[i], "--no-generated")) generated = 0;
    else if (!strcmp(argv[i], "--budget-test")) budget_test = 1;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) outdir = argv[++i];
    else if (argv[i][0] == '-') {
      fprintf(stderr, "spgemm_bench: unknown option %s\n", argv[i]);
      return 2;
    } else files[nfiles++] = argv[i];
  }
  if (gcoo__cuda_free_bytes() == 0) {
    fprintf(stderr, "spgemm_bench: no usable GPU\n");
    return 77;
  }
  mkdir(outdir, 0755);
  char path[4096];
  snprintf(path, sizeof path, "%s/spgemm.csv", outdir);
  FILE *csv = fopen(path, "w");
  if (!csv) {
    fprintf(stderr, "spgemm_bench: cannot write %s\n", path);
    return 1;
  }
  fprintf(csv, "matrix,product,dtype,m,k,n,nnzA,nnzC,alg,ok,ms,peak_MB,predicted,pred_err_pct,"
               "rows_recomputed,batches,check_relerr,error\n");

  /* geometric-mean accumulators: ours vs each cuSPARSE algorithm where both ran */
  double lt[NALG] = {0}, lm[NALG] = {0}, pe_sum = 0.0, pe_max = 0.0;
  int nboth[NALG] = {0}, nfail[NALG] = {0}, nprod = 0, nbad = 0, ours_only = 0;
  int64_t ovf_total = 0, rows_total = 0;
  const int ngen = generated ? 2 : 0;
  printf("%-26s %-4s %10s %12s | %9s %9s %9s %9s | %8s %8s %8s %8s | %7s %6s\n", "matrix", "op",
         "nnz(A)", "nnz(C)", "gcoo ms", "alg1 ms", "alg2 ms", "alg3 ms", "gcoo MB", "alg1 MB",
         "alg2 MB", "alg3 MB", "pred%", "recomp");
  for (int f = 0; f < nfiles + ngen; f++) {
    gcoo_sparse A = NULL, At = NULL;
    const char *name;
    char gname[64];
    if (f < nfiles) {
      gcoo_status st = gcoo_mtx_read(files[f], dt, 0, &A);
      if (st < 0) {
        fprintf(stderr, "spgemm_bench: %s: %s\n", files[f], gcoo_last_error());
        continue;
      }
      name = base_name(files[f]);
    } else if (f == nfiles) {
      A = laplacian(dt, 1500);
      name = "gen:laplacian2d_1500";
    } else {
      gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 400000, 400000, 1.0 - 16.0 / 400000.0, 77, 0);
      snprintf(gname, sizeof gname, "gen:random_400k_16");
      name = gname;
    }
    if (!A) continue;
    if (gcoo_sparse_transpose(&At, A) < 0) {
      gcoo_sparse_destroy(&A);
      continue;
    }
    gcoo_sparse_info ai;
    gcoo_sparse_get_info(A, &ai);
    for (int prod = 0; prod < 2; prod++) {
      gcoo_sparse B = prod ? At : A;
      gcoo_sparse_info bi;
      gcoo_sparse_get_info(B, &bi);
      if (ai.ncols != bi.nrows) continue; /* A*A of a rectangular matrix */
      gcoo_csr_view va, vb;
      gcoo_dev_csr dA, dB, C[NALG];
      result r[NALG];
      gcoo__sparse_csr_view(A, &va);
      gcoo__sparse_csr_view(B, &vb);
      if (gcoo__dev_csr_upload(&va, &dA, NULL) < 0 || gcoo__dev_csr_upload(&vb, &dB, NULL) < 0) {
        fprintf(stderr, "spgemm_bench: %s: upload: %s\n", name, gcoo_last_error());
        return 1;
      }
      for (int a = 0; a < NALG; a++) run_alg(algs[a], A, B, &dA, &dB, reps, 0, &r[a], &C[a]);
      int ref = -1;
      for (int a = 1; a < NALG && ref < 0; a++)
        if (r[a].ok) ref = a;
      for (int a = 0; a < NALG; a++)
        if (r[a].ok && ref >= 0 && a != ref) r[a].check = compare(&C[a], &C[ref]);
      const double tol = dt == GCOO_FLOAT64 ? 1e-12 : 1e-5;
      nprod++;
      if (!r[0].ok || (r[0].check >= 0 && !(r[0].check <= tol))) nbad++;
      if (r[0].ok) {
        const double pe = r[0].nnz ? 100.0 * fabs((double)r[0].pred - (double)r[0].nnz) / (double)r[0].nnz : 0.0;
        pe_sum += pe;
        if (pe > pe_max) pe_max = pe;
        ovf_total += r[0].overflow;
        rows_total += ai.nrows;
      }
      for (int a = 1; a < NALG; a++) {
        if (!r[a].ok) nfail[a]++;
        if (!r[a].ok && r[0].ok) ours_only++;
        if (r[a].ok && r[0].ok && r[0].ms > 0 && r[a].ms > 0) {
          lt[a] += log(r[a].ms / r[0].ms);
          lm[a] += log((r[0].peak_mb + 1e-6) / (r[a].peak_mb + 1e-6));
          nboth[a]++;
        }
      }
      if (!r[0].ok) nfail[0]++;
      printf("%-26.26s %-4s %10lld %12lld |", name, prod ? "AAt" : "AA", (long long)ai.nnz,
             (long long)(r[0].ok ? r[0].nnz : (ref >= 0 ? r[ref].nnz : -1)));
      for (int a = 0; a < NALG; a++) {
        if (r[a].ok) printf(" %9.3f", r[a].ms);
        else printf(" %9s", "FAIL");
      }
      printf(" |");
      for (int a = 0; a < NALG; a++) {
        if (r[a].ok) printf(" %8.1f", r[a].peak_mb);
        else printf(" %8s", "-");
      }
      if (r[0].ok)
        printf(" | %7.2f %6lld%s\n",
               r[0].nnz ? 100.0 * ((double)r[0].pred - (double)r[0].nnz) / (double)r[0].nnz : 0.0,
               (long long)r[0].overflow,
               r[0].check >= 0 && !(r[0].check <= tol) ? "  MISMATCH" : "");
      else printf(" | gcoo failed: %s\n", r[0].err);
      for (int a = 0; a < NALG; a++) {
        fprintf(csv, "%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%s,%d,%.6f,%.3f,%lld,%.4f,%lld,%lld,%.3e,%s\n",
                name, prod ? "AAt" : "AA", dt == GCOO_FLOAT64 ? "double" : "float",
                (long long)ai.nrows, (long long)ai.ncols, (long long)bi.ncols, (long long)ai.nnz,
                (long long)r[a].nnz, gcoo_spgemm_alg_name(algs[a]), r[a].ok, r[a].ms, r[a].peak_mb,
                (long long)r[a].pred,
                a == 0 && r[a].nnz ? 100.0 * ((double)r[a].pred - (double)r[a].nnz) / (double)r[a].nnz : 0.0,
                (long long)r[a].overflow, (long long)r[a].batches, r[a].check, r[a].err);
      }
      /* the memory budget: ours again with a quarter of its own peak, batched, still exact */
      if (budget_test && r[0].ok && ref >= 0) {
        result rb;
        gcoo_dev_csr Cb;
        const int64_t budget = (int64_t)(r[0].peak_mb * 1048576.0 / 4.0);
        run_alg(GCOO_SPGEMM_GCOO, A, B, &dA, &dB, 1, budget, &rb, &Cb);
        if (rb.ok) rb.check = compare(&Cb, &C[ref]);
        printf("%-26.26s %-4s budget %.1f MB: %s, %lld batches, peak %.1f MB, %.3f ms, check %.2e\n",
               name, prod ? "AAt" : "AA", (double)budget / 1048576.0, rb.ok ? "ok" : rb.err,
               (long long)rb.batches, rb.peak_mb, rb.ms, rb.check);
        if (!rb.ok || !(rb.check <= tol)) nbad++;
        gcoo__dev_csr_free(&Cb);
      }
      for (int a = 0; a < NALG; a++) gcoo__dev_csr_free(&C[a]);
      gcoo__dev_csr_free(&dA);
      gcoo__dev_csr_free(&dB);
    }
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&At);
  }
  fclose(csv);
  printf("\n=== summary: %d products (%s), median of %d runs, CSV %s\n", nprod,
         dt == GCOO_FLOAT64 ? "double" : "float", reps, path);
  for (int a = 1; a < NALG; a++)
    printf("gcoo vs cuSPARSE %s: geomean speedup %.2fx, geomean peak memory ratio (gcoo/cuSPARSE) "
           "%.2f over %d products; cuSPARSE failed on %d\n",
           gcoo_spgemm_alg_name(algs[a]), nboth[a] ? exp(lt[a] / nboth[a]) : NAN,
           nboth[a] ? exp(lm[a] / nboth[a]) : NAN, nboth[a], nfail[a]);
  printf("gcoo: failed %d, wrong results %d, finished where a cuSPARSE algorithm failed: %d; "
         "prediction |error| mean %.2f %% max %.2f %%; rows recomputed %lld of %lld\n",
         nfail[0], nbad, ours_only, nprod ? pe_sum / nprod : 0.0, pe_max, (long long)ovf_total,
         (long long)rows_total);
  free(files);
  return nbad ? 1 : 0;
}
