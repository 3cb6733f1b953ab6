/* SPDX-License-Identifier: MIT */
/* bench/predict_accuracy.c: accuracy and cost of the output-size predictors on every ordered
 * pair (A, B) of a set of Matrix Market files, the method of Du et al. (arXiv 2207.13848):
 * A (m x k1), B (k2 x n) are cropped to the first min(k1, k2) columns of A and rows of B.
 *
 * For every pair it measures the exact nnz(A B) and the time of gcoo's CPU SpGEMM (the best of a
 * few runs), then runs every method with several seeds: |relative error| of each prediction,
 * and its time against the SpGEMM's in the same run. It prints, per method, the mean, median,
 * 99th percentile and worst error over all pairs and seeds, the spread of the mean over seeds,
 * the share of pairs where the paper's proposed design beats its reference, and the cost
 * (prediction time / SpGEMM time, total and without the FLOP pass the SpGEMM needs anyway).
 *
 * usage: predict_accuracy [--seeds S] [--methods a,b,..] [--csv file] [--max-flop F] [--adaptive-
 *        rel-error e] [--adaptive-max-cost c] [--adaptive-first s] file.mtx[.gz] ... */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "gcoo/gcoo.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_METHODS 8

static void die(const char *what, gcoo_status st) {
  fprintf(stderr, "predict_accuracy: %s: %s: %s\n", what, gcoo_status_name(st), gcoo_last_error());
  exit(1);
}
#define CALL(x)              \
  do {                       \
    gcoo_status s_ = (x);    \
    if (s_ < 0) die(#x, s_); \
  } while (0)

/* The first k columns of A (CSR, sorted rows: a prefix of each row). */
static gcoo_sparse crop_cols(gcoo_sparse A, int64_t k) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  CALL(gcoo_sparse_get_info(A, &ai));
  CALL(gcoo_sparse_get_arrays(A, &a));
  int64_t *ptr = malloc((size_t)(ai.nrows + 1) * sizeof *ptr);
  int32_t *ind = malloc((size_t)(ai.nnz + 1) * sizeof *ind);
  double *val = malloc((size_t)(ai.nnz + 1) * sizeof *val);
  int64_t n = 0;
  ptr[0] = 0;
  for (int64_t i = 0; i < ai.nrows; i++) {
    for (int64_t p = a.ptr[i]; p < a.ptr[i + 1] && a.ind[p] < k; p++) {
      ind[n] = a.ind[p];
      val[n++] = ((const double *)a.values)[p];
    }
    ptr[i + 1] = n;
  }
  gcoo_sparse C = NULL;
  CALL(gcoo_sparse_create_csr(&C, GCOO_FLOAT64, ai.nrows, k, ptr, ind, val, 0));
  free(ptr);
  free(ind);
  free(val);
  return C;
}

/* The first k rows of B. */
static gcoo_sparse crop_rows(gcoo_sparse B, int64_t k) {
  gcoo_sparse_info bi;
  gcoo_sparse_arrays b;
  CALL(gcoo_sparse_get_info(B, &bi));
  CALL(gcoo_sparse_get_arrays(B, &b));
  gcoo_sparse C = NULL;
  CALL(gcoo_sparse_create_csr(&C, GCOO_FLOAT64, k, bi.ncols, b.ptr, b.ind, b.values, 0));
  return C;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static double quantile(double *v, int64_t n, double q) {
  if (n == 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  int64_t i = (int64_t)ceil(q * (double)n) - 1;
  if (i < 0) i = 0;
  if (i >= n) i = n - 1;
  return v[i];
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int main(int argc, char **argv) {
  int seeds = 5, nfiles = 0;
  const char *csv_path = NULL;
  const char *methods_arg = "paper,reference,pps,adaptive,upper";
  double max_flop = 0.0, rel_error = 0.0, max_cost = 0.0;
  long long first = 0;
  const char **files = calloc((size_t)argc, sizeof *files);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
      seeds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
      csv_path = argv[++i];
    else if (!strcmp(argv[i], "--methods") && i + 1 < argc)
      methods_arg = argv[++i];
    else if (!strcmp(argv[i], "--max-flop") && i + 1 < argc)
      max_flop = atof(argv[++i]);
    else if (!strcmp(argv[i], "--adaptive-rel-error") && i + 1 < argc)
      rel_error = atof(argv[++i]);
    else if (!strcmp(argv[i], "--adaptive-max-cost") && i + 1 < argc)
      max_cost = atof(argv[++i]);
    else if (!strcmp(argv[i], "--adaptive-first") && i + 1 < argc)
      first = atoll(argv[++i]);
    else if (argv[i][0] == '-') {
      fprintf(stderr, "predict_accuracy: unknown option %s\n", argv[i]);
      return 2;
    } else
      files[nfiles++] = argv[i];
  }
  if (nfiles == 0 || seeds < 1) {
    fprintf(stderr, "usage: predict_accuracy [--seeds S] [--methods m,..] [--csv f] files...\n");
    return 2;
  }
  gcoo_predict_method methods[MAX_METHODS];
  int nm = 0;
  {
    char *dup = strdup(methods_arg), *save = NULL;
    for (char *t = strtok_r(dup, ",", &save); t && nm < MAX_METHODS;
         t = strtok_r(NULL, ",", &save)) {
      int m = gcoo_predict_method_from_name(t);
      if (m < 0) {
        fprintf(stderr, "predict_accuracy: unknown method %s\n", t);
        return 2;
      }
      methods[nm++] = (gcoo_predict_method)m;
    }
    free(dup);
  }
  int ipaper = -1, iref = -1;
  for (int m = 0; m < nm; m++) {
    if (methods[m] == GCOO_PREDICT_PAPER) ipaper = m;
    if (methods[m] == GCOO_PREDICT_REFERENCE) iref = m;
  }

  gcoo_sparse *mats = calloc((size_t)nfiles, sizeof *mats);
  for (int f = 0; f < nfiles; f++) {
    CALL(gcoo_mtx_read(files[f], GCOO_FLOAT64, 0, &mats[f]));
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  if (csv)
    fprintf(csv, "A,B,m,k,n,flop,nnz,spgemm_s,method,seed,predicted,rel_error,est_rel_stderr,"
                 "rows_counted,flop_counted,predict_s,flop_pass_s\n");

  const int64_t npairs = (int64_t)nfiles * nfiles;
  const int64_t nres = npairs * seeds;
  double *err = calloc((size_t)(nm * nres), sizeof *err);       /* |rel error| */
  double *cost = calloc((size_t)(nm * nres), sizeof *cost);     /* time / spgemm */
  double *cost_s = calloc((size_t)(nm * nres), sizeof *cost_s); /* without FLOP pass */
  double *tpred = calloc((size_t)nm, sizeof *tpred), *tpred_s = calloc((size_t)nm, sizeof *tpred_s);
  double *mass = calloc((size_t)(nm * nres), sizeof *mass); /* flop_counted / F */
  double *seed_mean = calloc((size_t)(nm * seeds), sizeof *seed_mean);
  int64_t *wins = calloc((size_t)seeds, sizeof *wins), ties = 0;
  int64_t *pair_idx = calloc((size_t)npairs * 2, sizeof *pair_idx);
  double tspgemm = 0.0;
  int64_t np = 0, skipped = 0;
  gcoo_predict_options po = GCOO_PREDICT_OPTIONS_INIT;
  po.rel_error = rel_error;
  po.max_cost = max_cost;

  for (int fa = 0; fa < nfiles; fa++)
    for (int fb = 0; fb < nfiles; fb++) {
      gcoo_sparse_info ai, bi;
      CALL(gcoo_sparse_get_info(mats[fa], &ai));
      CALL(gcoo_sparse_get_info(mats[fb], &bi));
      const int64_t k = ai.ncols < bi.nrows ? ai.ncols : bi.nrows;
      gcoo_sparse A = ai.ncols == k ? NULL : crop_cols(mats[fa], k);
      gcoo_sparse B = bi.nrows == k ? NULL : crop_rows(mats[fb], k);
      gcoo_sparse Ause = A ? A : mats[fa], Buse = B ? B : mats[fb];
      /* exact answer and the SpGEMM's time: best of up to 5 runs, at least 3 unless slow */
      gcoo_spgemm_info si;
      double best = INFINITY, spent = 0.0;
      int64_t nnz = 0, flop = 0;
      for (int r = 0; r < 5 && (r < 3 || spent < 0.05); r++) {
        gcoo_sparse C = NULL;
        CALL(gcoo_spgemm_cpu(Ause, Buse, NULL, &C, &si));
        gcoo_sparse_destroy(&C);
        if (si.seconds < best) best = si.seconds;
        spent += si.seconds;
        nnz = si.nnz;
        flop = si.flop;
        if (max_flop > 0 && (double)flop > max_flop) break;
      }
      if (max_flop > 0 && (double)flop > max_flop) { /* stated rule: skip oversized pairs */
        skipped++;
        gcoo_sparse_destroy(&A);
        gcoo_sparse_destroy(&B);
        continue;
      }
      tspgemm += best;
      pair_idx[2 * np] = fa;
      pair_idx[2 * np + 1] = fb;
      double e_paper[64], e_ref[64];
      for (int m = 0; m < nm; m++) {
        for (int sd = 0; sd < seeds; sd++) {
          gcoo_prediction p;
          po.method = methods[m];
          po.seed = GCOO_PREDICT_DEFAULT_SEED + 7919u * (uint64_t)sd;
          po.samples = methods[m] == GCOO_PREDICT_ADAPTIVE ? first : 0;
          CALL(gcoo_predict(Ause, Buse, &po, &p));
          /* time: best of 3 runs of the same (deterministic) prediction, like the SpGEMM's */
          double tbest = p.seconds, tflop = p.seconds_flop;
          for (int r = 1; r < 3; r++) {
            gcoo_prediction q;
            CALL(gcoo_predict(Ause, Buse, &po, &q));
            if (q.seconds < tbest) {
              tbest = q.seconds;
              tflop = q.seconds_flop;
            }
            gcoo_prediction_free(&q);
          }
          p.seconds = tbest;
          p.seconds_flop = tflop;
          const double e = nnz ? ((double)p.nnz_predicted - (double)nnz) / (double)nnz : 0.0;
          const int64_t at = (int64_t)m * nres + np * seeds + sd;
          err[at] = fabs(e);
          cost[at] = p.seconds / best;
          cost_s[at] = (p.seconds - p.seconds_flop) / best;
          mass[at] = flop ? (double)p.flop_counted / (double)flop : 0.0;
          tpred[m] += p.seconds / seeds;
          tpred_s[m] += (p.seconds - p.seconds_flop) / seeds;
          seed_mean[m * seeds + sd] += fabs(e);
          if (m == ipaper && sd < 64) e_paper[sd] = fabs(e);
          if (m == iref && sd < 64) e_ref[sd] = fabs(e);
          if (csv)
            fprintf(csv,
                    "%s,%s,%lld,%lld,%lld,%lld,%lld,%.6e,%s,%d,%lld,%.6e,%.4e,%lld,%lld,%.6e,%."
                    "6e\n",
                    base_name(files[fa]), base_name(files[fb]), (long long)ai.nrows, (long long)k,
                    (long long)bi.ncols, (long long)flop, (long long)nnz, best,
                    gcoo_predict_method_name(methods[m]), sd, (long long)p.nnz_predicted, e,
                    p.rel_stderr, (long long)p.rows_counted, (long long)p.flop_counted, p.seconds,
                    p.seconds_flop);
          gcoo_prediction_free(&p);
        }
      }
      if (ipaper >= 0 && iref >= 0)
        for (int sd = 0; sd < seeds && sd < 64; sd++) {
          if (e_paper[sd] < e_ref[sd])
            wins[sd]++;
          else if (e_paper[sd] == e_ref[sd])
            ties++;
        }
      np++;
      gcoo_sparse_destroy(&A);
      gcoo_sparse_destroy(&B);
    }

  printf("pairs: %lld of %d x %d (skipped %lld with FLOP > %.3g), seeds: %d, OpenMP threads: %d\n",
         (long long)np, nfiles, nfiles, (long long)skipped, max_flop, seeds, threads);
  printf("CPU SpGEMM time over all pairs (best of runs, summed): %.3f s\n\n", tspgemm);
  printf("|relative error| of nnz(C) over %lld pairs x %d seeds\n", (long long)np, seeds);
  printf("%-10s %9s %9s %9s %9s   %-21s  %s\n", "method", "mean%", "median%", "p99%", "worst%",
         "mean% per seed min..max", "pairs w/ any >5%");
  double *tmp = malloc((size_t)(np * seeds + 1) * sizeof *tmp);
  for (int m = 0; m < nm; m++) {
    const int64_t n = np * seeds;
    double sum = 0.0, worst = 0.0;
    int64_t over = 0;
    for (int64_t p = 0; p < np; p++) {
      int any = 0;
      for (int sd = 0; sd < seeds; sd++) {
        const double e = err[(int64_t)m * nres + p * seeds + sd];
        sum += e;
        if (e > worst) worst = e;
        if (e > 0.05) any = 1;
      }
      over += any;
    }
    memcpy(tmp, err + (int64_t)m * nres, (size_t)n * sizeof *tmp);
    const double med = quantile(tmp, n, 0.5), p99 = quantile(tmp, n, 0.99);
    double smin = INFINITY, smax = 0.0;
    for (int sd = 0; sd < seeds; sd++) {
      const double v = seed_mean[m * seeds + sd] / (double)np;
      if (v < smin) smin = v;
      if (v > smax) smax = v;
    }
    printf("%-10s %9.3f %9.3f %9.3f %9.2f   %8.3f .. %-8.3f  %lld\n",
           gcoo_predict_method_name(methods[m]), 100 * sum / (double)n, 100 * med, 100 * p99,
           100 * worst, 100 * smin, 100 * smax, (long long)over);
  }
  if (ipaper >= 0 && iref >= 0) {
    double wmin = 1.0, wmax = 0.0, wsum = 0.0;
    for (int sd = 0; sd < seeds && sd < 64; sd++) {
      const double w = (double)wins[sd] / (double)np;
      wsum += w;
      if (w < wmin) wmin = w;
      if (w > wmax) wmax = w;
    }
    printf("\npaper's proposed design better than its reference: %.1f %% of pairs (seeds %.1f .. "
           "%.1f %%; %lld ties, e.g. both exact)\n",
           100 * wsum / seeds, 100 * wmin, 100 * wmax, (long long)ties);
  }
  printf("\ncost = prediction time / CPU SpGEMM time on the same pair\n");
  printf("%-10s %9s %9s %9s %11s   %9s %9s   %s\n", "method", "mean%", "median%", "p90%",
         "sum/sum%", "noflop med%", "sum/sum%", "FLOP counted/F mean%");
  for (int m = 0; m < nm; m++) {
    const int64_t n = np * seeds;
    double sum = 0.0, msum = 0.0;
    for (int64_t i = 0; i < n; i++) {
      sum += cost[(int64_t)m * nres + i];
      msum += mass[(int64_t)m * nres + i];
    }
    memcpy(tmp, cost + (int64_t)m * nres, (size_t)n * sizeof *tmp);
    const double med = quantile(tmp, n, 0.5), p90 = quantile(tmp, n, 0.9);
    memcpy(tmp, cost_s + (int64_t)m * nres, (size_t)n * sizeof *tmp);
    const double meds = quantile(tmp, n, 0.5);
    printf("%-10s %9.2f %9.2f %9.2f %11.2f   %9.2f %11.2f   %.2f\n",
           gcoo_predict_method_name(methods[m]), 100 * sum / (double)n, 100 * med, 100 * p90,
           100 * tpred[m] / tspgemm, 100 * meds, 100 * tpred_s[m] / tspgemm,
           100 * msum / (double)n);
  }
  /* the worst pairs of the last method listed first (the default is usually named) */
  for (int m = 0; m < nm; m++) {
    if (methods[m] != GCOO_PREDICT_ADAPTIVE) continue;
    printf("\nworst pairs for adaptive (max over seeds):\n");
    for (int rep = 0; rep < 8; rep++) {
      int64_t best_p = -1;
      double bw = -1.0;
      for (int64_t p = 0; p < np; p++) {
        double w = 0.0;
        for (int sd = 0; sd < seeds; sd++) {
          const double e = err[(int64_t)m * nres + p * seeds + sd];
          if (e > w) w = e;
        }
        if (w > bw) {
          bw = w;
          best_p = p;
        }
      }
      if (best_p < 0 || bw <= 0.0) break;
      double mc = 0.0;
      for (int sd = 0; sd < seeds; sd++) {
        mc += mass[(int64_t)m * nres + best_p * seeds + sd] / seeds;
        err[(int64_t)m * nres + best_p * seeds + sd] = -1.0; /* consumed */
      }
      printf("  %-28s x %-28s %7.2f %%  (FLOP counted %.1f %%)\n",
             base_name(files[pair_idx[2 * best_p]]), base_name(files[pair_idx[2 * best_p + 1]]),
             100 * bw, 100 * mc);
    }
  }
  free(tmp);
  if (csv) fclose(csv);
  for (int f = 0; f < nfiles; f++) gcoo_sparse_destroy(&mats[f]);
  free(mats);
  free(files);
  free(err);
  free(cost);
  free(cost_s);
  free(mass);
  free(tpred);
  free(tpred_s);
  free(seed_mean);
  free(wins);
  free(pair_idx);
  return 0;
}
