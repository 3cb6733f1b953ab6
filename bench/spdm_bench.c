/* SPDX-License-Identifier: MIT */
/* bench/spdm_bench.c: GCOOSpDM against cuSPARSE and cuBLAS on one GPU, side by side, in one run.
 *
 *   spdm_bench --out DIR [--matrices DIR] [--budget SECONDS] [--sections LIST] [--match LIST]
 *              [--lean] [--quick] [--methods LIST] [--n N]
 *   spdm_bench --out DIR --sweep [--matrices DIR] [--budget SECONDS]
 *
 * Sections (LIST: random,real,real-f64,large,large-f64,structured,convert by default; reordered):
 *   random      the paper's sweep: n in {1000, 2000, 4000, 8000, 14000} x sparsity in
 *               {0.9, ..., 0.9995}, N = n;
 *   real        the Matrix Market files of --matrices with N = 32, 128, 512;
 *   real-f64    the same in double (sparse methods: the tuned kernel, cuSPARSE, AUTO);
 *   large       larger matrices built from the real ones, so that nnz x N >= 10^7 at every N:
 *               Kronecker products A (x) J_b with a dense b x b block of ones (each entry of A
 *               becomes a b x b block: rows b times longer, the row-length distribution and the
 *               power law kept) and block-diagonal copies, N = 32, 128, 512;
 *   large-f64   the same in double;
 *   structured  3-D 7- and 27-point stencils (100^3, 160^3), an R-MAT graph (2^20 nodes), a
 *               block-diagonal tiling and a Kronecker product of real matrices, N = 32, 128, 512;
 *   reordered   (not by default; in no target) the real matrices with nnz >= 10^5, rows in the
 *               tensor-core window order and in reverse Cuthill-McKee (bench/spdm_order.c), each
 *               read against its real case: would the exact kernels gain from the order?
 *   convert     conversion times (CSR -> GCOO, the tuned layout, dense -> GCOO on the GPU; the
 *               CPU conversion beside them), separate from kernel times.
 * Every method sees identical operands; Y = A X, beta = 0. Columns: faithful and tuned
 * GCOOSpDM, cuSPARSE ALG_DEFAULT (column-major) / CSR_ALG2 / CSR_ALG3 (row-major) and, where A is
 * made of dense blocks, BSR_ALG1 (b<block size>; spdm_bsr.c), cuBLAS SGEMM and TF32 on the
 * densified A, GCOO_ALG_AUTO (its choice and time); speedups over the best cuSPARSE algorithm
 * (BSR included); each side's set-up (its operator made from the host CSR; AUTO's trials
 * included) and the break-even: the applies after which AUTO's extra set-up is repaid by its
 * faster applies ("never" when it is not faster); effective GFLOP/s; time over the floor
 * max(2 nnz N / SGEMM rate, compulsory bytes / copy bandwidth). Every method is timed under the
 * benchmarks' rule (bench_stat.h) and checked on sampled rows against a double-precision product:
 * outside bench_tolerance (1e-5 relative in float, 1e-12 in double, 5e-3 for the TF32 methods)
 * it reads FAIL, its time counts nowhere, and a target with such an AUTO case is missed.
 * The real matrices and the constructions made of them (section large) are kept apart: the
 * targets named "real" count the real matrices alone; the constructions are printed beside them.
 * Writes DIR/spdm.csv (every case), DIR/spdm_bench.log, DIR/sweep.csv (--sweep); prints the
 * summary last (geometric means per section) and then one line per target
 * ("target NAME: VALUE (goal GOAL) met|missed"), computed from the cases measured. --sweep
 * times every tuned variant at several p on a representative subset, to choose the defaults. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_list.h"
#include "bench_stat.h"
#include "spdm_bench.h"
#include "spdm_order.h"

#define MAX_CASES 640

/* --match LIST: only the real, large and structured inputs whose name contains one of the
 * comma-separated substrings (NULL: all). */
static const char *g_match = NULL;
/* --lean: only the tuned kernel, cuSPARSE and AUTO (what the targets compare), everywhere */
static int g_lean = 0;
/* --methods LIST (method names as in the CSV, e.g. tuned,csp_alg3) and --n N (one width of the
 * real, large and structured sections): narrow a run to a few kernels, for profiling with ncu.
 * NULL / 0: no restriction. */
static const char *g_methods = NULL;
static int64_t g_only_n = 0;

static int method_listed(int m) {
  if (!g_methods) return 1;
  const size_t len = strlen(bench_method_names[m]);
  for (const char *p = g_methods; (p = strstr(p, bench_method_names[m])); p += len)
    if ((p == g_methods || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
  return 0;
}

static int name_matches(const char *name) { return !g_match || bench_list_match(g_match, name); }

typedef struct summary {
  bench_case *cases;
  int n;
} summary;

static const char *alg_short(gcoo_spdm_alg a) {
  switch (a) {
    case GCOO_ALG_GCOO: return "tuned";
    case GCOO_ALG_CUSPARSE_CSR_ALG2: return "alg2";
    case GCOO_ALG_CUSPARSE_CSR_ALG3: return "alg3";
    case GCOO_ALG_DENSE: return "sgemm";
    case GCOO_ALG_DENSE_TF32: return "tf32";
    default: return gcoo_spdm_alg_name(a);
  }
}

/* The method AUTO's choice corresponds to in the table. */
static int auto_method(const bench_case *c) {
  switch (c->autod.alg) {
    case GCOO_ALG_GCOO: return M_TUNED;
    case GCOO_ALG_CUSPARSE_CSR_ALG2: return M_CSP_ALG2;
    case GCOO_ALG_CUSPARSE_CSR_ALG3: return M_CSP_ALG3;
    case GCOO_ALG_DENSE: return M_SGEMM;
    case GCOO_ALG_DENSE_TF32: return M_TF32;
    default: return -1;
  }
}

static int best_method(const bench_case *c) {
  int b = -1;
  for (int m = 0; m < M_AUTO; m++)
    if (c->r[m].ms > 0 && !c->r[m].fail && (b < 0 || c->r[m].ms < c->r[b].ms)) b = m;
  return b;
}

static double ratio(double num, double den) { return num > 0 && den > 0 ? num / den : NAN; }

/* The applies after which AUTO's set-up (its trials included) is repaid against the best
 * cuSPARSE algorithm's: (AUTO's set-up - the peer's) / (the peer's apply - AUTO's). 0 when AUTO
 * costs no more to set up and is not slower; INFINITY when it costs more and is not faster; NaN
 * when either was not measured. */
static double breakeven(const bench_case *c) {
  if (c->best_csp < 0 || c->r[M_AUTO].ms <= 0 || c->r[M_AUTO].fail) return NAN;
  const double sa = c->setup_ms[M_AUTO], sc = c->setup_ms[c->best_csp];
  if (!(sa >= 0) || !(sc >= 0)) return NAN;
  const double gain = c->r[c->best_csp].ms - c->r[M_AUTO].ms, cost = sa - sc;
  if (cost <= 0) return gain >= 0 ? 0.0 : INFINITY;
  return gain > 0 ? cost / gain : INFINITY;
}

static void fmt_breakeven(char *buf, size_t n, double be) {
  if (isnan(be))
    snprintf(buf, n, "%7s", "-");
  else if (isinf(be))
    snprintf(buf, n, "%7s", "never");
  else
    snprintf(buf, n, "%7.0f", be);
}

/* "real" for the Matrix Market files, "construction" for the Kronecker and block-diagonal
 * tilings built from them (section large), else the section. */
static const char *case_kind(const bench_case *c) {
  if (!strcmp(c->section, "real") || !strcmp(c->section, "real-f64")) return "real";
  if (!strcmp(c->section, "large") || !strcmp(c->section, "large-f64")) return "construction";
  return c->section;
}

static void fmt_ms(char *buf, size_t n, const bench_result *r) {
  if (r->ms > 0 && r->fail)
    snprintf(buf, n, "%7s", "FAIL");
  else if (r->ms > 0)
    snprintf(buf, n, r->ms < 10 ? "%7.4f" : "%7.2f", r->ms);
  else
    snprintf(buf, n, "%7s", "-");
}

static void print_case(bench_env *E, const bench_case *c) {
  char t[M_COUNT][16], be[16];
  for (int m = 0; m < M_COUNT; m++) fmt_ms(t[m], sizeof t[m], &c->r[m]);
  fmt_breakeven(be, sizeof be, breakeven(c));
  const double bc = c->best_csp >= 0 ? c->r[c->best_csp].ms : -1;
  const double flop = 2.0 * (double)c->nnz * (double)c->N;
  bench_printf(E,
               "%-24.24s %9lld %5lld | fa %s tu %s p%-4d | de %s a2 %s a3 %s b%d %s | sg %s tf %s "
               "| auto %-5s %s | x%5.2f x%5.2f | set-up auto %7.2f csp %6.2f ms, break-even %s | "
               "tc %s %c x%5.2f %4.2fb | %6.0f GF/s %5.1fx floor | best %s\n",
               c->name, (long long)c->nnz, (long long)c->N, t[M_FAITHFUL], t[M_TUNED], c->tuned.p,
               t[M_CSP_DEFAULT], t[M_CSP_ALG2], t[M_CSP_ALG3], c->bsr_dim, t[M_CSP_BSR], t[M_SGEMM],
               t[M_TF32], alg_short(c->autod.alg), t[M_AUTO], ratio(bc, c->r[M_TUNED].ms),
               ratio(bc, c->r[M_AUTO].ms), c->setup_ms[M_AUTO],
               c->best_csp >= 0 ? c->setup_ms[c->best_csp] : -1.0, be, t[M_TC],
               c->r[M_TC].ms <= 0    ? ' '
               : c->tcd.tensor_cores ? 'T'
                                     : 'e',
               ratio(bc, c->r[M_TC].ms), c->r[M_TC].bound,
               c->r[M_TUNED].ms > 0 ? flop / (c->r[M_TUNED].ms * 1e6) : 0.0,
               ratio(c->r[M_TUNED].ms, c->floor_ms),
               best_method(c) >= 0 ? bench_method_names[best_method(c)] : "-");
}

static void csv_header(FILE *f) {
  fprintf(f, "section,case,m,k,nnz,N,sparsity,reuse_tuned,p_tuned,variant_tuned,vpt,rpt,threads,"
             "chunk");
  for (int m = 0; m < M_COUNT; m++) fprintf(f, ",%s_ms", bench_method_names[m]);
  fprintf(f, ",auto_alg,auto_p,best_csp,best_csp_ms,best_method,best_ms,speedup_tuned,"
             "speedup_auto,speedup_faithful,gflops_tuned,floor_ms,tuned_over_floor");
  for (int m = 0; m < M_COUNT; m++) fprintf(f, ",relerr_%s", bench_method_names[m]);
  fprintf(f, ",tuned_setup_ms,auto_setup_ms,auto_why,dtype,tc_bound_ratio,tc_tensor_cores,tc_why,"
             "kind,bsr_dim,bsr_fill,best_csp_setup_ms,breakeven_applies");
  for (int m = 0; m < M_COUNT; m++) fprintf(f, ",fail_%s", bench_method_names[m]);
  fprintf(f, "\n");
}

/* A reason as one CSV field: its commas and quotes become semicolons. */
static void csv_text(char *dst, size_t n, const char *src) {
  snprintf(dst, n, "%s", src);
  for (char *q = dst; *q; q++)
    if (*q == ',' || *q == '"') *q = ';';
}

static void csv_row(FILE *f, const bench_case *c) {
  const int b = best_method(c);
  const double bc = c->best_csp >= 0 ? c->r[c->best_csp].ms : -1;
  const gcoo_cuda_tuned_launch *l = &c->tuned.last;
  fprintf(f, "%s,%s,%lld,%lld,%lld,%lld,%.6g,%.4g,%d,%s,%d,%d,%d,%d", c->section, c->name,
          (long long)c->m, (long long)c->k, (long long)c->nnz, (long long)c->N, c->sparsity,
          c->tuned.reuse, c->tuned.p, gcoo_cuda_tuned_variant_name(l->variant), l->vpt, l->rpt,
          l->threads, l->chunk);
  for (int m = 0; m < M_COUNT; m++) fprintf(f, ",%.6g", c->r[m].ms);
  fprintf(f, ",%s,%d,%s,%.6g,%s,%.6g,%.4g,%.4g,%.4g,%.6g,%.6g,%.4g", alg_short(c->autod.alg),
          c->autod.p, c->best_csp >= 0 ? bench_method_names[c->best_csp] : "none", bc,
          b >= 0 ? bench_method_names[b] : "none", b >= 0 ? c->r[b].ms : -1,
          ratio(bc, c->r[M_TUNED].ms), ratio(bc, c->r[M_AUTO].ms), ratio(bc, c->r[M_FAITHFUL].ms),
          c->r[M_TUNED].ms > 0 ? 2.0 * (double)c->nnz * (double)c->N / (c->r[M_TUNED].ms * 1e6)
                               : 0.0,
          c->floor_ms, ratio(c->r[M_TUNED].ms, c->floor_ms));
  for (int m = 0; m < M_COUNT; m++) fprintf(f, ",%.3g", c->r[m].relerr);
  char why[sizeof c->autod.why], tcwhy[sizeof c->tcd.why];
  csv_text(why, sizeof why, c->autod.why);
  csv_text(tcwhy, sizeof tcwhy, c->tcd.why);
  fprintf(f, ",%.4g,%.4g,%s,%s,%.3g,%d,%s,%s,%d,%.3f,%.4g,%.4g", c->tuned_setup_ms,
          c->auto_setup_ms, why, c->dtype == GCOO_FLOAT64 ? "f64" : "f32", c->r[M_TC].bound,
          c->r[M_TC].ms > 0 && c->tcd.tensor_cores, tcwhy, case_kind(c), c->bsr_dim, c->bsr_fill,
          c->best_csp >= 0 ? c->setup_ms[c->best_csp] : -1.0, breakeven(c));
  for (int m = 0; m < M_COUNT; m++) fprintf(f, ",%d", c->r[m].fail);
  fprintf(f, "\n");
  fflush(f);
}

/* Measure A at each width Ns[0 .. nN) (one operator per method), print, record. A stays the
 * caller's. */
static void one_case(bench_env *E, summary *S, const char *section, const char *name, gcoo_sparse A,
                     const int64_t *Ns, int nN, double sparsity, const int run[M_COUNT]) {
  int64_t only[1];
  if (g_only_n > 0 && nN > 1) { /* --n: that width alone, where the section offers it */
    int k = 0;
    while (k < nN && Ns[k] != g_only_n) k++;
    if (k == nN) return;
    only[0] = Ns[k];
    Ns = only;
    nN = 1;
  }
  if (S->n + nN > MAX_CASES) return;
  bench_case *c = &S->cases[S->n];
  gcoo_sparse_info ai;
  if (gcoo_sparse_get_info(A, &ai) < 0) return;
  for (int i = 0; i < nN; i++) {
    memset(&c[i], 0, sizeof c[i]);
    c[i].section = section;
    c[i].dtype = ai.dtype;
    snprintf(c[i].name, sizeof c[i].name, "%s", name);
    c[i].A = A;
    c[i].N = Ns[i];
    c[i].sparsity = sparsity;
  }
  int lean_run[M_COUNT];
  for (int m = 0; m < M_COUNT; m++)
    lean_run[m] = run[m] && method_listed(m) &&
                  (!g_lean || m == M_TUNED || m == M_AUTO || m == M_TC ||
                   (m >= M_CSP_DEFAULT && m <= M_CSP_BSR));
  run = lean_run;
  if (bench_run_case(E, c, nN, run) < 0) {
    bench_printf(E, "  %s: %s\n", name, gcoo_last_error());
    return;
  }
  for (int i = 0; i < nN; i++) {
    c[i].A = NULL;
    print_case(E, &c[i]);
    if (E->csv) csv_row(E->csv, &c[i]);
  }
  S->n += nN;
}

/* in bench_method's order: faithful, tuned, csp_default, csp_alg2, csp_alg3, csp_bsr, sgemm,
 * tf32, auto, tc */
static const int all_methods[M_COUNT] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static const int sparse_methods[M_COUNT] = {1, 1, 1, 1, 1, 1, 0, 0, 1, 1};
/* the tuned kernel, cuSPARSE (BSR included), AUTO and the tensor-core mode (float only): the
 * double and large sections */
static const int target_methods[M_COUNT] = {0, 1, 1, 1, 1, 1, 0, 0, 1, 1};

static void section_random(bench_env *E, summary *S, int quick) {
  const int64_t ns[] = {1000, 2000, 4000, 8000, 14000};
  const double ss[] = {0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9995};
  bench_printf(E, "\n== random: n x n, sparsity s, N = n (%.0f s so far)\n", bench_elapsed(E));
  /* --lean leaves out cuSPARSE's column-major ALG_DEFAULT here: the slowest method of the sweep
   * (800 ms at 14000 x 0.9), never its best cuSPARSE algorithm (bench/results/h200-spdm-full.txt)
   * */
  int run[M_COUNT];
  memcpy(run, all_methods, sizeof run);
  if (g_lean) {
    run[M_CSP_DEFAULT] = 0;
    bench_printf(E, "  --lean: cuSPARSE ALG_DEFAULT (column-major) not run on the random sweep\n");
  }
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
    for (size_t j = 0; j < sizeof ss / sizeof ss[0]; j++) {
      if (quick && (ns[i] > 2000 || (ss[j] != 0.99 && ss[j] != 0.999))) continue;
      if (bench_over_budget(E, 0.35)) {
        bench_printf(E, "  budget: random sweep stopped before n = %lld s = %g\n", (long long)ns[i],
                     ss[j]);
        return;
      }
      gcoo_sparse A = NULL;
      if (gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, ns[i], ns[i], ss[j],
                             1234 + i * 10 + j, 0) < 0) {
        bench_printf(E, "  random %lld %g: %s\n", (long long)ns[i], ss[j], gcoo_last_error());
        continue;
      }
      char name[64];
      snprintf(name, sizeof name, "random:%lld:%g", (long long)ns[i], ss[j]);
      one_case(E, S, "random", name, A, &ns[i], 1, ss[j], run);
      gcoo_sparse_destroy(&A);
    }
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The Matrix Market files of dir, sorted by name (at most 256; the caller frees them); -1 (and
 * a line saying so) when dir cannot be opened. */
static int list_matrices(bench_env *E, const char *dir, char *names[256]) {
  DIR *d = opendir(dir);
  if (!d) {
    bench_printf(E, "  cannot open %s\n", dir);
    return -1;
  }
  int nn = 0;
  struct dirent *de;
  while ((de = readdir(d)) && nn < 256)
    if (strstr(de->d_name, ".mtx")) names[nn++] = strdup(de->d_name);
  closedir(d);
  qsort(names, (size_t)nn, sizeof *names, cmp_str);
  return nn;
}

/* A file's name without its directory and ".mtx..." (the case name). */
static void case_base(char *base, size_t n, const char *file) {
  snprintf(base, n, "%s", file);
  char *dot = strstr(base, ".mtx");
  if (dot) *dot = '\0';
}

static void section_real(bench_env *E, summary *S, const char *dir, int quick, gcoo_dtype dt) {
  const int64_t Ns[] = {32, 128, 512};
  const int f64 = dt == GCOO_FLOAT64;
  bench_printf(E, "\n== real%s: %s, N = 32, 128, 512 (%.0f s so far)\n", f64 ? " (double)" : "",
               dir, bench_elapsed(E));
  char *names[256];
  const int nn = list_matrices(E, dir, names);
  int listed = 0; /* --quick: the first 4 of the matched inputs (not of the whole list) */
  for (int f = 0; f < nn; f++) {
    if (!name_matches(names[f])) continue;
    if (quick && listed++ >= 4) break;
    if (bench_over_budget(E, f64 ? 0.62 : 0.45)) {
      bench_printf(E, "  budget: real matrices stopped before %s\n", names[f]);
      break;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    gcoo_sparse A = NULL;
    if (gcoo_mtx_read(path, dt, 0, &A) < 0) {
      bench_printf(E, "  %s: %s\n", names[f], gcoo_last_error());
      continue;
    }
    char base[64];
    case_base(base, sizeof base, names[f]);
    one_case(E, S, f64 ? "real-f64" : "real", base, A, Ns, 3, 0,
             f64 ? target_methods : all_methods);
    gcoo_sparse_destroy(&A);
  }
  for (int f = 0; f < nn; f++) free(names[f]);
}

/* Section "reordered" (an experiment, in no target; bench/spdm_order.c says why): the real
 * matrices of the tc-speedup target (nnz >= 10^5) with their rows in the tensor-core window order
 * and in reverse Cuthill-McKee, as cases "win:NAME" and "rcm:NAME", float, N = 32, 128, 512. What
 * each order gives the exact kernels is read against the real section's case of the same matrix
 * and N, in the same run (print_reordered). */
#define REORDERED_MIN_NNZ 100000

static void section_reordered(bench_env *E, summary *S, const char *dir, int quick) {
  const int64_t Ns[] = {32, 128, 512};
  static const bench_order kinds[] = {BENCH_ORDER_WINDOW, BENCH_ORDER_RCM};
  bench_printf(E,
               "\n== reordered: the real matrices with nnz >= %d, rows in the window order (win:) "
               "and reverse Cuthill-McKee (rcm:), N = 32, 128, 512; in no target (%.0f s so far)\n",
               REORDERED_MIN_NNZ, bench_elapsed(E));
  char *names[256];
  const int nn = list_matrices(E, dir, names);
  int listed = 0; /* --quick: the first 2 of the matched inputs */
  for (int f = 0; f < nn; f++) {
    if (!name_matches(names[f])) continue;
    if (bench_over_budget(E, 0.97)) {
      bench_printf(E, "  budget: reordered inputs stopped before %s\n", names[f]);
      break;
    }
    char path[4096], base[64];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    case_base(base, sizeof base, names[f]);
    gcoo_sparse A = NULL;
    gcoo_sparse_info ai;
    int32_t *order = NULL;
    if (gcoo_mtx_read(path, GCOO_FLOAT32, 0, &A) < 0 || gcoo_sparse_get_info(A, &ai) < 0) {
      bench_printf(E, "  %s: %s\n", names[f], gcoo_last_error());
      gcoo_sparse_destroy(&A);
      continue;
    }
    if (ai.nnz < REORDERED_MIN_NNZ || (quick && listed++ >= 2) ||
        !(order = malloc((size_t)(ai.nrows > 0 ? ai.nrows : 1) * sizeof *order))) {
      gcoo_sparse_destroy(&A);
      continue;
    }
    double reuse_a = 0;
    (void)bench_block_reuse(A, NULL, 16, &reuse_a);
    for (int k = 0; k < 2; k++) {
      gcoo_sparse B = NULL;
      double reuse = 0;
      char name[96];
      snprintf(name, sizeof name, "%s:%s", bench_order_name(kinds[k]), base);
      if (bench_row_order(A, kinds[k], order) < 0 || bench_block_reuse(A, order, 16, &reuse) < 0 ||
          gcoo__csr_rows_permuted(A, order, &B) < 0) {
        bench_printf(E, "  %s: %s\n", name, gcoo_last_error());
        continue;
      }
      bench_printf(E, "  %s: reuse in blocks of 16 rows %.2f -> %.2f\n", name, reuse_a, reuse);
      one_case(E, S, "reordered", name, B, Ns, 3, 0, target_methods);
      gcoo_sparse_destroy(&B);
    }
    free(order);
    gcoo_sparse_destroy(&A);
  }
  for (int f = 0; f < nn; f++) free(names[f]);
}

static gcoo_status read_named(const char *dir, const char *name, gcoo_sparse *A) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx.gz", dir, name);
  return gcoo_mtx_read(path, GCOO_FLOAT32, 0, A);
}

/* The structured inputs, built on the host; index i of a fixed list (NULL name when done). */
static gcoo_status structured_input(int i, const char *dir, gcoo_sparse *A, char *name,
                                    size_t len) {
  gcoo_sparse M = NULL;
  gcoo_status st = GCOO_SUCCESS;
  *A = NULL;
  name[0] = '\0';
  switch (i) {
    case 0:
      snprintf(name, len, "stencil7:100");
      return gcoo_sparse_poisson3d_rows(A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 7, 100, 0, 1000000, 0);
    case 1:
      snprintf(name, len, "stencil27:100");
      return gcoo_sparse_poisson3d_rows(A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 27, 100, 0, 1000000, 0);
    case 2: snprintf(name, len, "rmat:20:8"); return bench_rmat(A, 20, 8, 77);
    case 3:
      if (!dir) return GCOO_SUCCESS;
      snprintf(name, len, "kron:cage11:4x4");
      st = read_named(dir, "cage11", &M);
      if (st >= 0) st = bench_kron_dense_block(A, M, 4);
      gcoo_sparse_destroy(&M);
      return st;
    case 4:
      if (!dir) return GCOO_SUCCESS;
      snprintf(name, len, "diag8:TSOPF_RS_b39_c30");
      st = read_named(dir, "TSOPF_RS_b39_c30", &M);
      if (st >= 0) st = bench_block_diagonal(A, M, 8);
      gcoo_sparse_destroy(&M);
      return st;
    case 5:
      snprintf(name, len, "stencil7:160");
      return gcoo_sparse_poisson3d_rows(A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 7, 160, 0, 4096000, 0);
    case 6:
      snprintf(name, len, "stencil27:160");
      return gcoo_sparse_poisson3d_rows(A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 27, 160, 0, 4096000, 0);
  }
  return GCOO_SUCCESS;
}

static void section_structured(bench_env *E, summary *S, const char *dir, int quick) {
  const int64_t Ns[] = {32, 128, 512};
  bench_printf(E, "\n== structured: stencils, R-MAT, tilings, N = 32, 128, 512 (%.0f s so far)\n",
               bench_elapsed(E));
  for (int i = 0; i < 7; i++) {
    if (quick && i > 0) break;
    if (bench_over_budget(E, 0.96)) {
      bench_printf(E, "  budget: structured inputs stopped at #%d\n", i);
      break;
    }
    gcoo_sparse A = NULL;
    char name[64];
    if (structured_input(i, dir, &A, name, sizeof name) < 0) {
      bench_printf(E, "  %s: %s\n", name, gcoo_last_error());
      continue;
    }
    if (!A || !name_matches(name)) {
      gcoo_sparse_destroy(&A);
      continue;
    }
    one_case(E, S, "structured", name, A, Ns, 3, 0, sparse_methods);
    gcoo_sparse_destroy(&A);
  }
}

/* The larger inputs (section "large"): Kronecker products of the shared real matrices with a
 * dense b x b block of ones, and block-diagonal copies, each with nnz >= 3 x 10^5 so that
 * nnz x N >= 10^7 from N = 32. Power-law graphs (wiki-Vote, ca-CondMat, rajat01) keep their
 * power law: every row becomes b rows b times as long. */
static const struct {
  const char *name;
  int kron; /* b of A (x) J_b, or 0 */
  int diag; /* copies on the diagonal, or 0 */
} large_inputs[] = {
    {"TSOPF_RS_b39_c30", 2, 0},
    {"cage11", 4, 0},
    {"delaunay_n16", 4, 0},
    {"ct2010", 4, 0},
    {"bcsstk33", 2, 0},
    {"ca-CondMat_snapderived", 4, 0},
    {"wiki-Vote_snapderived", 4, 0},
    {"rajat01", 8, 0},
    {"cavity19", 4, 0},
    {"bcsstk24", 0, 16},
    {"FA", 4, 0},
    {"bayer10", 4, 0},
    {"msc04515", 0, 16},
    {"fidapex6", 0, 32},
};

static void section_large(bench_env *E, summary *S, const char *dir, int quick, gcoo_dtype dt) {
  const int64_t Ns[] = {32, 128, 512};
  const int f64 = dt == GCOO_FLOAT64;
  const int n = (int)(sizeof large_inputs / sizeof large_inputs[0]);
  bench_printf(E,
               "\n== large%s: Kronecker products with dense blocks and block-diagonal copies "
               "of the real matrices, N = 32, 128, 512 (%.0f s so far)\n",
               f64 ? " (double)" : "", bench_elapsed(E));
  int listed = 0; /* --quick: the first 2 of the matched inputs */
  for (int i = 0; i < n; i++) {
    if (!name_matches(large_inputs[i].name)) continue;
    if (quick && listed++ >= 2) break;
    if (bench_over_budget(E, f64 ? 0.86 : 0.74)) {
      bench_printf(E, "  budget: large inputs stopped before %s\n", large_inputs[i].name);
      break;
    }
    gcoo_sparse M = NULL, A = NULL, Ad = NULL;
    char name[96];
    gcoo_status st = read_named(dir, large_inputs[i].name, &M);
    if (st >= 0 && large_inputs[i].kron) {
      snprintf(name, sizeof name, "kron%d:%s", large_inputs[i].kron, large_inputs[i].name);
      st = bench_kron_dense_block(&A, M, large_inputs[i].kron);
    } else if (st >= 0) {
      snprintf(name, sizeof name, "diag%d:%s", large_inputs[i].diag, large_inputs[i].name);
      st = bench_block_diagonal(&A, M, large_inputs[i].diag);
    }
    if (st >= 0 && f64) {
      st = gcoo_sparse_astype(&Ad, A, GCOO_FLOAT64);
      gcoo_sparse_destroy(&A);
      A = Ad;
    }
    gcoo_sparse_destroy(&M);
    if (st < 0) {
      bench_printf(E, "  %s: %s\n", large_inputs[i].name, gcoo_last_error());
      gcoo_sparse_destroy(&A);
      continue;
    }
    one_case(E, S, f64 ? "large-f64" : "large", name, A, Ns, 3, 0, target_methods);
    gcoo_sparse_destroy(&A);
  }
}

/* ---- conversions ----------------------------------------------------------------------------- */
static double sync_wall(bench_env *E) {
  cudaStreamSynchronize(E->stream);
  return gcoo__wtime();
}

static void convert_one(bench_env *E, const char *name, gcoo_sparse A, int with_dense) {
  gcoo_sparse_info ai;
  gcoo_sparse_get_info(A, &ai);
  gcoo_cuda_csr d;
  double t = sync_wall(E);
  if (gcoo_cuda_csr_upload(A, &d, E->stream) < 0) {
    bench_printf(E, "  %s: upload: %s\n", name, gcoo_last_error());
    return;
  }
  const double t_up = sync_wall(E) - t;
  gcoo_cuda_gcoo S;
  t = sync_wall(E);
  gcoo_status st = gcoo_cuda_csr_to_gcoo(&d, 4, &S, E->stream);
  const double t_g4 = sync_wall(E) - t;
  if (st >= 0) gcoo_cuda_gcoo_free(&S);
  int64_t dist[11];
  t = sync_wall(E);
  st = gcoo_cuda_reuse_stats(&d, 11, dist, E->stream);
  const double t_stats = sync_wall(E) - t;
  gcoo_cuda_tuned L;
  t = sync_wall(E);
  if (st >= 0) st = gcoo_cuda_tuned_build(&d, 128, &L, NULL, E->stream);
  const double t_layout = sync_wall(E) - t;
  if (st >= 0) gcoo_cuda_tuned_free(&L);
  double t_dense = -1;
  if (with_dense && st >= 0) {
    void *D = NULL;
    if (cudaMalloc(&D, (size_t)(ai.nrows * ai.ncols) * 4) == cudaSuccess) {
      gcoo_cuda_csr_to_dense(&d, D, ai.ncols, E->stream);
      t = sync_wall(E);
      if (gcoo_cuda_dense_to_gcoo(GCOO_FLOAT32, ai.nrows, ai.ncols, D, ai.ncols, 4, &S,
                                  E->stream) >= 0) {
        t_dense = sync_wall(E) - t;
        gcoo_cuda_gcoo_free(&S);
      }
      cudaFree(D);
    }
  }
  /* the CPU's conversion of the same matrix (transpose, then GCOO with p = 4) */
  t = gcoo__wtime();
  gcoo_sparse At = NULL, Sc = NULL;
  if (gcoo_sparse_transpose(&At, A) >= 0) gcoo_sparse_convert(&Sc, At, GCOO_FORMAT_GCOO, 4);
  const double t_cpu = gcoo__wtime() - t;
  gcoo_sparse_destroy(&At);
  gcoo_sparse_destroy(&Sc);
  gcoo_cuda_csr_free(&d);
  if (st < 0) bench_printf(E, "  %s: %s\n", name, gcoo_last_error());
  bench_printf(E,
               "%-24s nnz %10lld | upload %8.2f ms | CSR->GCOO(p=4) %8.3f ms | reuse stats %8.3f ms"
               " | tuned layout(p=128) %8.3f ms | dense->GCOO(p=4) %8.3f ms | CPU CSR->GCOO %8.1f "
               "ms\n",
               name, (long long)ai.nnz, 1e3 * t_up, 1e3 * t_g4, 1e3 * t_stats, 1e3 * t_layout,
               t_dense > 0 ? 1e3 * t_dense : -1.0, 1e3 * t_cpu);
  if (E->csv) {
    char path[4096];
    snprintf(path, sizeof path, "%s/convert.csv", E->outdir);
    FILE *f = fopen(path, "a");
    if (f) {
      fprintf(f, "%s,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", name, (long long)ai.nnz, 1e3 * t_up,
              1e3 * t_g4, 1e3 * t_stats, 1e3 * t_layout, t_dense > 0 ? 1e3 * t_dense : -1.0,
              1e3 * t_cpu);
      fclose(f);
    }
  }
}

static void section_convert(bench_env *E, const char *dir) {
  bench_printf(E,
               "\n== conversions (wall time, stream synchronised; kernel times exclude them) "
               "(%.0f s so far)\n",
               bench_elapsed(E));
  char path[4096];
  snprintf(path, sizeof path, "%s/convert.csv", E->outdir);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f, "case,nnz,upload_ms,csr_to_gcoo_p4_ms,reuse_stats_ms,tuned_layout_p128_ms,"
               "dense_to_gcoo_p4_ms,cpu_csr_to_gcoo_ms\n");
    fclose(f);
  }
  gcoo_sparse A = NULL;
  if (gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 14000, 14000, 0.99, 5, 0) >= 0) {
    convert_one(E, "random:14000:0.99", A, 1);
    gcoo_sparse_destroy(&A);
  }
  if (gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, 8000, 8000, 0.9, 6, 0) >= 0) {
    convert_one(E, "random:8000:0.9", A, 1);
    gcoo_sparse_destroy(&A);
  }
  char name[64];
  for (int i = 0; i < 2; i++)
    if (structured_input(i, dir, &A, name, sizeof name) >= 0 && A) {
      convert_one(E, name, A, 0);
      gcoo_sparse_destroy(&A);
    }
  if (dir && read_named(dir, "cage11", &A) >= 0) {
    convert_one(E, "cage11", A, 1);
    gcoo_sparse_destroy(&A);
  }
}

/* ---- summary ------------------------------------------------------------------------------- */
static void summarize(bench_env *E, const summary *S, const char *section) {
  double lt = 0, la = 0, lf = 0;
  int nt = 0, na = 0, nf = 0, wins = 0, auto_ok = 0, auto_n = 0, cases = 0;
  double maxerr[M_COUNT] = {0};
  int fails[M_COUNT] = {0};
  for (int i = 0; i < S->n; i++) {
    const bench_case *c = &S->cases[i];
    if (strcmp(c->section, section)) continue;
    cases++;
    const double bc = c->best_csp >= 0 ? c->r[c->best_csp].ms : -1;
    const double st = ratio(bc, c->r[M_TUNED].ms), sa = ratio(bc, c->r[M_AUTO].ms),
                 sf = ratio(bc, c->r[M_FAITHFUL].ms);
    if (isfinite(st)) lt += log(st), nt++, wins += st > 1.0;
    if (isfinite(sa)) la += log(sa), na++;
    if (isfinite(sf)) lf += log(sf), nf++;
    const int b = best_method(c), am = auto_method(c);
    if (b >= 0 && am >= 0 && c->r[am].ms > 0) {
      auto_n++;
      auto_ok += c->r[am].ms <= 1.1 * c->r[b].ms;
    }
    for (int m = 0; m < M_COUNT; m++) {
      if (c->r[m].ms > 0 && (c->r[m].relerr > maxerr[m] || !isfinite(c->r[m].relerr)))
        maxerr[m] = c->r[m].relerr;
      fails[m] += c->r[m].ms > 0 && c->r[m].fail;
    }
  }
  if (!cases) return;
  bench_printf(E,
               "%-10s %3d cases | geomean speedup over best cuSPARSE: tuned %.2fx (faster in "
               "%d/%d), "
               "auto %.2fx, faithful %.2fx | auto within 10%% of the best in %d/%d\n",
               section, cases, nt ? exp(lt / nt) : NAN, wins, nt, na ? exp(la / na) : NAN,
               nf ? exp(lf / nf) : NAN, auto_ok, auto_n);
  bench_printf(E, "%-10s max relerr:", "");
  for (int m = 0; m < M_COUNT; m++) bench_printf(E, " %s %.1e", bench_method_names[m], maxerr[m]);
  bench_printf(E, "\n%-10s outside the tolerance (FAIL):", "");
  for (int m = 0; m < M_COUNT; m++) bench_printf(E, " %s %d", bench_method_names[m], fails[m]);
  bench_printf(E, "\n");
}

static void print_random_table(bench_env *E, const summary *S) {
  bench_printf(E,
               "\nrandom sweep, ms (N = n):\n%-20s %9s | %7s %7s %5s | %7s %7s %7s | %7s %7s | "
               "%-5s %7s | %6s %6s | %s\n",
               "case", "nnz", "faithf", "tuned", "p", "def_col", "alg2", "alg3", "sgemm", "tf32",
               "auto", "auto_ms", "x_tun", "x_auto", "best");
  for (int i = 0; i < S->n; i++) {
    const bench_case *c = &S->cases[i];
    if (strcmp(c->section, "random")) continue;
    char t[M_COUNT][16];
    for (int m = 0; m < M_COUNT; m++) fmt_ms(t[m], sizeof t[m], &c->r[m]);
    const double bc = c->best_csp >= 0 ? c->r[c->best_csp].ms : -1;
    const int b = best_method(c);
    bench_printf(E, "%-20s %9lld | %s %s %5d | %s %s %s | %s %s | %-5s %s | %6.2f %6.2f | %s\n",
                 c->name, (long long)c->nnz, t[M_FAITHFUL], t[M_TUNED], c->tuned.p,
                 t[M_CSP_DEFAULT], t[M_CSP_ALG2], t[M_CSP_ALG3], t[M_SGEMM], t[M_TF32],
                 alg_short(c->autod.alg), t[M_AUTO], ratio(bc, c->r[M_TUNED].ms),
                 ratio(bc, c->r[M_AUTO].ms), b >= 0 ? bench_method_names[b] : "-");
  }
}

/* Per N: geometric means for the real and structured sections, and the extremes. */
static void print_by_n(bench_env *E, const summary *S, const char *section) {
  const int64_t Ns[] = {32, 128, 512};
  for (size_t k = 0; k < 3; k++) {
    double lt = 0, la = 0;
    int nt = 0, na = 0;
    const bench_case *lo = NULL, *hi = NULL;
    for (int i = 0; i < S->n; i++) {
      const bench_case *c = &S->cases[i];
      if (strcmp(c->section, section) || c->N != Ns[k]) continue;
      const double bc = c->best_csp >= 0 ? c->r[c->best_csp].ms : -1;
      const double st = ratio(bc, c->r[M_TUNED].ms), sa = ratio(bc, c->r[M_AUTO].ms);
      if (isfinite(st)) {
        lt += log(st), nt++;
        if (!lo || st < ratio(lo->r[lo->best_csp].ms, lo->r[M_TUNED].ms)) lo = c;
        if (!hi || st > ratio(hi->r[hi->best_csp].ms, hi->r[M_TUNED].ms)) hi = c;
      }
      if (isfinite(sa)) la += log(sa), na++;
    }
    if (!nt) continue;
    bench_printf(E,
                 "%-10s N=%-4lld geomean tuned %.2fx auto %.2fx over best cuSPARSE (%d cases); "
                 "worst %s %.2fx, best %s %.2fx\n",
                 section, (long long)Ns[k], exp(lt / nt), na ? exp(la / na) : NAN, nt, lo->name,
                 ratio(lo->r[lo->best_csp].ms, lo->r[M_TUNED].ms), hi->name,
                 ratio(hi->r[hi->best_csp].ms, hi->r[M_TUNED].ms));
  }
}

/* ---- the targets ---------------------------------------------------------------------- */
static int in_sections(const bench_case *c, const char *a, const char *b) {
  return !strcmp(c->section, a) || (b && !strcmp(c->section, b));
}

/* The best cuSPARSE algorithm's time over AUTO's; NaN when either did not run or AUTO failed the
 * tolerance. */
static double auto_ratio(const bench_case *c) {
  if (c->r[M_AUTO].fail) return NAN;
  return ratio(c->best_csp >= 0 ? c->r[c->best_csp].ms : -1, c->r[M_AUTO].ms);
}

/* The "reordered" section is an experiment on copies of the real matrices: in no target. */
static int in_no_target(const bench_case *c) { return !strcmp(c->section, "reordered"); }

/* Geometric mean of AUTO over the best cuSPARSE (BSR included) on the cases of section sec with
 * the given N (0: any) and, when filtered, nnz x N >= 10^7; *count receives how many, *failed how
 * many of them AUTO failed the tolerance on (never in the mean; a target with one is missed). */
static double target_geomean(const summary *S, const char *sec, int64_t N, int filtered, int *count,
                             int *failed) {
  double l = 0;
  int n = 0, bad = 0;
  for (int i = 0; i < S->n; i++) {
    const bench_case *c = &S->cases[i];
    if (strcmp(c->section, sec) || (N && c->N != N)) continue;
    if (filtered && (double)c->nnz * (double)c->N < 1e7) continue;
    bad += c->r[M_AUTO].ms > 0 && c->r[M_AUTO].fail;
    const double r = auto_ratio(c);
    if (isfinite(r)) l += log(r), n++;
  }
  *count = n;
  *failed = bad;
  return n ? exp(l / n) : NAN;
}

/* The median break-even (applies to repay AUTO's set-up, breakeven()) over the cases of section
 * sec with the given N (0: any) and nnz x N >= 10^7; *count, *never (cases AUTO never repays). */
static double breakeven_median(const summary *S, const char *sec, int64_t N, int *count,
                               int *never) {
  double *v = malloc((size_t)(S->n > 0 ? S->n : 1) * sizeof *v);
  int n = 0;
  *never = 0;
  for (int i = 0; v && i < S->n; i++) {
    const bench_case *c = &S->cases[i];
    if (strcmp(c->section, sec) || (N && c->N != N) || (double)c->nnz * (double)c->N < 1e7)
      continue;
    const double be = breakeven(c);
    if (isnan(be)) continue;
    v[n++] = be;
    *never += isinf(be);
  }
  *count = n;
  const double med = v ? bench_median(v, n) : NAN;
  free(v);
  return med;
}

static void print_target(bench_env *E, const char *name, double value, int n, double goal,
                         const char *extra) {
  if (n && value < 0) {
    bench_printf(E, "target %s: not met%s (goal >= %.2gx) missed\n", name, extra ? extra : "",
                 goal);
    return;
  }
  if (!n || !isfinite(value)) {
    bench_printf(E, "target %s: not measured (no case ran) (goal >= %.2gx) missed\n", name, goal);
    return;
  }
  bench_printf(E, "target %s: %.2fx%s (goal >= %.2gx) %s\n", name, value, extra ? extra : "", goal,
               value >= goal ? "met" : "missed");
}

/* The tensor-core mode: best FP32 cuSPARSE / tc, geometric mean over the float cases of the
 * sections a/b with N >= 128 and nnz >= 10^5; *count, *worst_bound (its largest error over the
 * per-element bound, every TC case of those sections), *unchecked (TC cases without a finite
 * bound ratio). */
static double tc_geomean(const summary *S, const char *a, const char *b, int *count,
                         int *on_tensor_cores, double *worst_bound, int *unchecked) {
  double l = 0;
  int n = 0;
  for (int i = 0; i < S->n; i++) {
    const bench_case *c = &S->cases[i];
    if (!in_sections(c, a, b) || c->r[M_TC].ms <= 0) continue;
    if (!isfinite(c->r[M_TC].bound))
      ++*unchecked;
    else if (c->r[M_TC].bound > *worst_bound)
      *worst_bound = c->r[M_TC].bound;
    if (c->N < 128 || c->nnz < 100000) continue;
    const double r = ratio(c->best_csp >= 0 ? c->r[c->best_csp].ms : -1, c->r[M_TC].ms);
    if (!isfinite(r)) continue;
    l += log(r), n++;
    *on_tensor_cores += c->tcd.tensor_cores;
  }
  *count = n;
  return n ? exp(l / n) : NAN;
}

static void print_tc_target(bench_env *E, const summary *S) {
  bench_printf(E, "\ntensor-core mode (GCOO_MATH_TF32) over the best FP32 cuSPARSE, N >= 128, nnz "
                  ">= 1e5:\n");
  const char *const secs[][2] = {{"real", NULL},
                                 {"large", NULL},
                                 {"structured", NULL},
                                 {"random", NULL}};
  for (int k = 0; k < 4; k++) {
    int n = 0, ntc = 0, bad = 0;
    double wb = 0;
    const double g = tc_geomean(S, secs[k][0], secs[k][1], &n, &ntc, &wb, &bad);
    if (n)
      bench_printf(E,
                   "  %-10s %.2fx over %d cases (%d on tensor cores); worst error %.2f of the "
                   "bound, %d unchecked\n",
                   secs[k][0], g, n, ntc, wb, bad);
  }
  int n = 0, ntc = 0, bad = 0, nall = 0, ntcall = 0, badall = 0;
  double wb = 0, wball = 0;
  const double g = tc_geomean(S, "real", NULL, &n, &ntc, &wb, &bad);
  /* the bound must hold on every TC case measured, any section */
  for (int k = 0; k < 4; k++)
    (void)tc_geomean(S, secs[k][0], NULL, &nall, &ntcall, &wball, &badall);
  if (!n || !isfinite(g)) {
    bench_printf(E, "target tc-speedup: not measured (no real float case with N >= 128 and nnz >= "
                    "1e5 ran) (goal >= 2x) missed\n");
    return;
  }
  bench_printf(E,
               "target tc-speedup: %.2fx over %d real float cases with N >= 128, nnz >= 1e5 "
               "(%d on tensor cores); error bound %s (worst %.2f of it, %d unchecked) (goal >= "
               "2x, bound met on every case) %s\n",
               g, n, ntc, wball <= 1.0 && badall == 0 ? "met on every case" : "NOT met", wball,
               badall, g >= 2.0 && wball <= 1.0 && badall == 0 ? "met" : "missed");
}

/* The reordered section against the real section's case of the same matrix and N (same run):
 * the tuned kernel (its default choice), AUTO, the best cuSPARSE algorithm and the tensor-core
 * mode, on A's order -> on the reordered rows. Then, over the tc-speedup target's cases (N >= 128,
 * nnz >= 10^5), the target as measured and what it would read if the tensor-core mode could also
 * run AUTO's exact choice on the reordered rows (best FP32 cuSPARSE on A's order over the faster
 * of the two): an estimate, since an operator that reordered would also write each row of Y back
 * to its place (the tensor-core kernel's row map: one 4-byte load a row). */
static void print_reordered(bench_env *E, const summary *S) {
  double l[3] = {0, 0, 0};
  int n[3] = {0, 0, 0}, header = 0;
  for (int i = 0; i < S->n; i++) {
    const bench_case *c = &S->cases[i];
    const char *colon = strchr(c->name, ':');
    if (!in_no_target(c) || !colon) continue;
    const bench_case *o = NULL;
    for (int j = 0; j < S->n && !o; j++)
      if (!strcmp(S->cases[j].section, "real") && S->cases[j].N == c->N &&
          !strcmp(S->cases[j].name, colon + 1))
        o = &S->cases[j];
    if (!o) continue;
    if (!header++)
      bench_printf(E, "\nreordered rows against A's order (ms, A's -> reordered; x: A's / "
                      "reordered):\n");
    const double bo = o->best_csp >= 0 ? o->r[o->best_csp].ms : -1,
                 br = c->best_csp >= 0 ? c->r[c->best_csp].ms : -1;
    bench_printf(E,
                 "  %-28.28s N=%-4lld tuned %.4f -> %.4f (x%.2f) | auto %s %.4f -> %s %.4f "
                 "(x%.2f) | best cuSPARSE %.4f -> %.4f (x%.2f) | tc %.4f -> %.4f\n",
                 c->name, (long long)c->N, o->r[M_TUNED].ms, c->r[M_TUNED].ms,
                 ratio(o->r[M_TUNED].ms, c->r[M_TUNED].ms), alg_short(o->autod.alg),
                 o->r[M_AUTO].ms, alg_short(c->autod.alg), c->r[M_AUTO].ms,
                 ratio(o->r[M_AUTO].ms, c->r[M_AUTO].ms), bo, br, ratio(bo, br), o->r[M_TC].ms,
                 c->r[M_TC].ms);
    if (o->N < 128 || o->nnz < 100000 || o->r[M_TC].ms <= 0 || bo <= 0) continue;
    const char *win = bench_order_name(BENCH_ORDER_WINDOW);
    const int k = !strncmp(c->name, win, strlen(win)) && c->name[strlen(win)] == ':' ? 1 : 2;
    const double alt = c->r[M_AUTO].ms > 0 && c->r[M_AUTO].ms < o->r[M_TC].ms ? c->r[M_AUTO].ms
                                                                              : o->r[M_TC].ms;
    l[k] += log(bo / alt), n[k]++;
    if (k == 1) l[0] += log(bo / o->r[M_TC].ms), n[0]++;
  }
  if (n[0])
    bench_printf(E,
                 "  tc-speedup's cases (N >= 128, nnz >= 1e5; %d): %.2fx as measured; with AUTO's "
                 "exact choice on the window order beside it %.2fx, on RCM %.2fx (estimates, not "
                 "the target)\n",
                 n[0], exp(l[0] / n[0]), exp(l[1] / n[1]), n[2] ? exp(l[2] / n[2]) : NAN);
}

static void print_targets(bench_env *E, const summary *S) {
  /* where AUTO lost: to the best cuSPARSE by more than 10 %, and to the best method measured */
  bench_printf(E, "\nAUTO below 0.9x of the best cuSPARSE algorithm:\n");
  int nlow = 0, nlost = 0, ncases = 0;
  for (int i = 0; i < S->n; i++) {
    const bench_case *c = &S->cases[i];
    const double r = auto_ratio(c);
    ncases += !in_no_target(c);
    if (isfinite(r) && r < 0.9 && !in_no_target(c)) {
      nlow++;
      bench_printf(E,
                   "  %-10s %-34.34s N=%-5lld auto %-5s %.4f ms, best cuSPARSE %s %.4f ms: %.2fx "
                   "(%s)\n",
                   c->section, c->name, (long long)c->N, alg_short(c->autod.alg), c->r[M_AUTO].ms,
                   bench_method_names[c->best_csp], c->r[c->best_csp].ms, r, c->autod.why);
    }
  }
  bench_printf(E,
               "  %d of %d cases\nAUTO's choice more than 10%% slower than the best method "
               "measured:\n",
               nlow, ncases);
  for (int i = 0; i < S->n; i++) {
    const bench_case *c = &S->cases[i];
    const int b = best_method(c), am = auto_method(c);
    if (b < 0 || am < 0 || c->r[am].ms <= 0 || c->r[am].ms <= 1.1 * c->r[b].ms || in_no_target(c))
      continue;
    nlost++;
    bench_printf(E, "  %-10s %-34.34s N=%-5lld auto %-5s %.4f ms, best %s %.4f ms\n", c->section,
                 c->name, (long long)c->N, alg_short(c->autod.alg), c->r[am].ms,
                 bench_method_names[b], c->r[b].ms);
  }
  bench_printf(E, "  %d cases\n\n", nlost);

  /* constructions (Kronecker and block-diagonal tilings of the real matrices) and the real
   * matrices without the nnz x N filter: beside the targets, never in them */
  const int64_t Ns[] = {32, 128, 512};
  bench_printf(E, "AUTO over the best cuSPARSE (BSR included where A has dense blocks), not "
                  "targets:\n");
  for (int k = 0; k <= 3; k++) {
    const int64_t N = k < 3 ? Ns[k] : 0;
    const char *fsec = k < 3 ? "large" : "large-f64", *rsec = k < 3 ? "real" : "real-f64";
    int nc, fc, na, fa;
    const double gc = target_geomean(S, fsec, N, 1, &nc, &fc);
    const double ga = target_geomean(S, rsec, N, 0, &na, &fa);
    char which[32];
    snprintf(which, sizeof which, k < 3 ? "float N=%lld" : "double", (long long)N);
    bench_printf(E,
                 "  %-11s constructions (nnz x N >= 1e7) %.2fx over %d cases; every real matrix "
                 "(no nnz x N filter) %.2fx over %d cases\n",
                 which, gc, nc, ga, na);
  }
  char tline[160];
  for (int k = 0; k < 3; k++) {
    int n = 0, failed = 0;
    const double g = target_geomean(S, "real", Ns[k], 1, &n, &failed);
    char name[32];
    snprintf(name, sizeof name, "real-auto-n%lld", (long long)Ns[k]);
    snprintf(tline, sizeof tline, " over %d real float matrices with nnz x N >= 1e7%s", n,
             failed ? " (AUTO outside the tolerance on some)" : "");
    print_target(E, name, failed ? -1.0 : g, n, 1.3, tline);
  }
  {
    int n = 0, failed = 0;
    const double g = target_geomean(S, "real-f64", 0, 1, &n, &failed);
    snprintf(tline, sizeof tline, " over %d real double cases with nnz x N >= 1e7, N = 32-512%s", n,
             failed ? " (AUTO outside the tolerance on some)" : "");
    print_target(E, "real-auto-double", failed ? -1.0 : g, n, 1.3, tline);
  }
  {
    /* the set-up a user pays: applies to repay AUTO's set-up (its trials included) against the
     * best cuSPARSE algorithm's, over the real target cases */
    int nf, nd, vf, vd;
    const double bf = breakeven_median(S, "real", 0, &nf, &vf);
    const double bd = breakeven_median(S, "real-f64", 0, &nd, &vd);
    double *all = malloc(sizeof *all * (size_t)(S->n > 0 ? S->n : 1));
    int n = 0;
    for (int i = 0; all && i < S->n; i++) {
      const bench_case *c = &S->cases[i];
      if ((strcmp(c->section, "real") && strcmp(c->section, "real-f64")) ||
          (double)c->nnz * (double)c->N < 1e7 || isnan(breakeven(c)))
        continue;
      all[n++] = breakeven(c);
    }
    const double med = all ? bench_median(all, n) : NAN;
    free(all);
    bench_printf(E,
                 "target spdm-breakeven: median %.0f applies to repay AUTO's set-up (its trials "
                 "included) against the best cuSPARSE's, over %d real cases with nnz x N >= 1e7 "
                 "(float %.0f over %d, %d never; double %.0f over %d, %d never) (printed, no "
                 "goal)\n",
                 med, n, bf, nf, vf, bd, nd, vd);
  }
  {
    double lo = INFINITY;
    const bench_case *w = NULL;
    int n = 0;
    for (int i = 0; i < S->n; i++) {
      const double r = auto_ratio(&S->cases[i]);
      if (!isfinite(r) || in_no_target(&S->cases[i])) continue;
      n++;
      if (r < lo) lo = r, w = &S->cases[i];
    }
    char extra[160];
    snprintf(extra, sizeof extra, " (%s %s N=%lld; %d of %d cases below 0.9x)",
             w ? w->section : "-", w ? w->name : "-", w ? (long long)w->N : 0LL, nlow, n);
    print_target(E, "auto-worst", lo, n, 0.9, extra);
  }
  {
    double l = 0, lo = INFINITY;
    int n = 0;
    for (int i = 0; i < S->n; i++) {
      const bench_case *c = &S->cases[i];
      if (strcmp(c->section, "random")) continue;
      const double r = ratio(c->best_csp >= 0 ? c->r[c->best_csp].ms : -1, c->r[M_TUNED].ms);
      if (!isfinite(r)) continue;
      l += log(r), n++;
      if (r < lo) lo = r;
    }
    const double g = n ? exp(l / n) : NAN;
    if (!n) {
      bench_printf(E, "target random-tuned: not measured (no case ran) (goal >= 1.5x, none below "
                      "0.9x) missed\n");
    } else {
      bench_printf(E,
                   "target random-tuned: %.2fx, lowest %.2fx over %d cases (goal >= 1.5x, none "
                   "below 0.9x) %s\n",
                   g, lo, n, g >= 1.5 && lo >= 0.9 ? "met" : "missed");
    }
  }
  print_tc_target(E, S);
}

/* ---- --sweep ---------------------------------------------------------------------------------- */
static void sweep_case(bench_env *E, const char *name, gcoo_sparse A, int64_t N, FILE *csv,
                       char *lines, size_t lines_len) {
  const int32_t ps[] = {8, 32, 64, 128, 256, 512};
  const int nps = 6, nv = gcoo_cuda_tuned_variant_count() + 1;
  double ms[6 * 32];
  gcoo_cuda_tuned_launch sh[6 * 32];
  if (nv > 32) {
    bench_printf(E, "  sweep %s: %d variants, the table holds 32\n", name, nv);
    return;
  }
  double setup[6] = {0};
  memset(sh, 0, sizeof sh);
  if (bench_sweep(E, A, N, ps, nps, ms, sh, setup) < 0) {
    bench_printf(E, "  sweep %s: %s\n", name, gcoo_last_error());
    return;
  }
  /* the defaults and cuSPARSE on the same case */
  bench_case c;
  memset(&c, 0, sizeof c);
  c.section = "sweep";
  snprintf(c.name, sizeof c.name, "%s", name);
  c.A = A;
  c.N = N;
  const int run[M_COUNT] = {0, 1, 0, 1, 1, 0, 0, 0, 1, 0};
  bench_run_case(E, &c, 1, run);
  int bi = -1, bv = -1;
  for (int i = 0; i < nps; i++) {
    bench_printf(E, "%-22s N=%-6lld p=%-4d", name, (long long)N, ps[i]);
    for (int v = 0; v < nv; v++) {
      const double t = ms[i * nv + v];
      bench_printf(E, " %s %.4g", gcoo_cuda_tuned_variant_name(v), t);
      if (csv)
        fprintf(csv, "%s,%lld,%d,%s,%.6g,%d,%d,%d,%d,%d,%.4g,%d\n", name, (long long)N, ps[i],
                gcoo_cuda_tuned_variant_name(v), t, sh[i * nv + v].vpt, sh[i * nv + v].rpt,
                sh[i * nv + v].threads, sh[i * nv + v].chunk, sh[i * nv + v].blocks_per_sm,
                setup[i], sh[i * nv + v].splits);
      if (t > 0 && (bi < 0 || t < ms[bi * nv + bv])) bi = i, bv = v;
    }
    bench_printf(E, "\n");
  }
  if (csv) fflush(csv);
  const double bc = c.best_csp >= 0 ? c.r[c.best_csp].ms : -1;
  char line[400];
  snprintf(line, sizeof line,
           "%-22s N=%-6lld best p=%-4d %-15s %8.4f ms | default p=%-4d %8.4f ms (%.2fx of best) | "
           "best cuSPARSE %8.4f | auto %s %8.4f\n",
           name, (long long)N, bi >= 0 ? ps[bi] : 0,
           bi >= 0 ? gcoo_cuda_tuned_variant_name(bv) : "-", bi >= 0 ? ms[bi * nv + bv] : -1.0,
           c.tuned.p, c.r[M_TUNED].ms, ratio(c.r[M_TUNED].ms, bi >= 0 ? ms[bi * nv + bv] : -1.0),
           bc, alg_short(c.autod.alg), c.r[M_AUTO].ms);
  strncat(lines, line, lines_len - strlen(lines) - 1);
  bench_printf(E, "%s", line);
}

static void run_sweep(bench_env *E, const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/sweep.csv", E->outdir);
  FILE *csv = fopen(path, "w");
  if (csv)
    fprintf(csv, "case,N,p,variant,ms,vpt,rpt,threads,chunk,blocks_per_sm,setup_ms,splits\n");
  static char lines[16384];
  lines[0] = '\0';
  bench_printf(E, "\n== sweep: tuned variants x p on a representative subset (%.0f s so far)\n",
               bench_elapsed(E));
  struct {
    int64_t n;
    double s;
  } rnd[] = {{14000, 0.99}, {4000, 0.95}, {8000, 0.999}, {14000, 0.999}, {4000, 0.99},
             {2000, 0.9},   {1000, 0.99}, {2000, 0.999}, {8000, 0.95},   {14000, 0.9995}};
  for (int i = 0; i < (int)(sizeof rnd / sizeof rnd[0]); i++) {
    if (bench_over_budget(E, 0.9)) break;
    gcoo_sparse A = NULL;
    char name[64];
    snprintf(name, sizeof name, "random:%lld:%g", (long long)rnd[i].n, rnd[i].s);
    if (gcoo_sparse_random(&A, GCOO_FLOAT32, GCOO_FORMAT_CSR, rnd[i].n, rnd[i].n, rnd[i].s, 11 + i,
                           0) >= 0)
      sweep_case(E, name, A, rnd[i].n, csv, lines, sizeof lines);
    gcoo_sparse_destroy(&A);
  }
  for (int i = 0; i < 4; i++) {
    if (bench_over_budget(E, 0.9)) break;
    gcoo_sparse A = NULL;
    char name[64];
    if (structured_input(i, dir, &A, name, sizeof name) >= 0 && A)
      sweep_case(E, name, A, 128, csv, lines, sizeof lines);
    gcoo_sparse_destroy(&A);
  }
  const struct {
    const char *name;
    int64_t N;
  } real[] = {{"bcsstk33", 512},
              {"cage11", 128},
              {"TSOPF_RS_b39_c30", 128},
              {"delaunay_n16", 128},
              {"ca-CondMat_snapderived", 128},
              {"bcsstk24", 32},
              {"add32", 32},
              {"cavity19", 512}};
  for (int i = 0; dir && i < (int)(sizeof real / sizeof real[0]); i++) {
    if (bench_over_budget(E, 0.9)) break;
    gcoo_sparse A = NULL;
    if (read_named(dir, real[i].name, &A) >= 0)
      sweep_case(E, real[i].name, A, real[i].N, csv, lines, sizeof lines);
    gcoo_sparse_destroy(&A);
  }
  if (csv) fclose(csv);
  bench_printf(E, "\n== sweep summary (full grid in sweep.csv; %.0f s)\n%s", bench_elapsed(E),
               lines);
}

int main(int argc, char **argv) {
  const char *out = NULL, *mdir = NULL,
             *sections = "random,real,real-f64,large,large-f64,structured,convert";
  double budget = 300;
  int sweep = 0, quick = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--matrices") && i + 1 < argc)
      mdir = argv[++i];
    else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
      budget = atof(argv[++i]);
    else if (!strcmp(argv[i], "--sections") && i + 1 < argc)
      sections = argv[++i];
    else if (!strcmp(argv[i], "--match") && i + 1 < argc)
      g_match = argv[++i];
    else if (!strcmp(argv[i], "--methods") && i + 1 < argc)
      g_methods = argv[++i];
    else if (!strcmp(argv[i], "--n") && i + 1 < argc)
      g_only_n = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--lean"))
      g_lean = 1;
    else if (!strcmp(argv[i], "--sweep"))
      sweep = 1;
    else if (!strcmp(argv[i], "--quick"))
      quick = 1;
    else {
      fprintf(stderr,
              "usage: %s --out DIR [--matrices DIR] [--budget SECONDS] [--sections "
              "random,real,real-f64,large,large-f64,structured,reordered,convert] [--match "
              "NAME,...] [--lean] [--quick] [--methods LIST] [--n N] [--sweep]\n",
              argv[0]);
      return 2;
    }
  }
  if (!out) {
    fprintf(stderr, "%s: --out DIR is required\n", argv[0]);
    return 2;
  }
  if (gcoo_cuda_device_count() == 0) {
    printf("spdm_bench: no GPU\n");
    return 77;
  }
  (void)mkdir(out, 0755); /* the CSV and log were lost where DIR did not exist */
  bench_env E;
  if (bench_env_init(&E, out, budget) < 0) {
    fprintf(stderr, "spdm_bench: %s\n", gcoo_last_error());
    return 1;
  }
  if (sweep) {
    run_sweep(&E, mdir);
    bench_env_fini(&E);
    return 0;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/spdm.csv", out);
  E.csv = fopen(path, "w");
  if (E.csv) csv_header(E.csv);
  summary S;
  S.cases = calloc(MAX_CASES, sizeof *S.cases);
  S.n = 0;
  bench_printf(&E, "columns: ms per product (median); x = best cuSPARSE / method; GF/s = 2 nnz N / "
                   "time of tuned; floor = max(2 nnz N / SGEMM rate, bytes / copy rate)\n");
  if (bench_list_has(sections, "random")) section_random(&E, &S, quick);
  if (bench_list_has(sections, "real") && mdir) section_real(&E, &S, mdir, quick, GCOO_FLOAT32);
  if (bench_list_has(sections, "real-f64") && mdir) section_real(&E, &S, mdir, quick, GCOO_FLOAT64);
  if (bench_list_has(sections, "large") && mdir) section_large(&E, &S, mdir, quick, GCOO_FLOAT32);
  if (bench_list_has(sections, "large-f64") && mdir)
    section_large(&E, &S, mdir, quick, GCOO_FLOAT64);
  if (bench_list_has(sections, "structured")) section_structured(&E, &S, mdir, quick);
  if (bench_list_has(sections, "reordered") && mdir) section_reordered(&E, &S, mdir, quick);
  if (bench_list_has(sections, "convert")) section_convert(&E, mdir);
  /* the summary, last (the end of the output is what one sees) */
  print_random_table(&E, &S);
  bench_printf(&E,
               "\n== summary (%d cases, %.0f s; ceilings: copy %.0f GB/s, SGEMM %.1f TFLOP/s; "
               "CSV: %s/spdm.csv)\n",
               S.n, bench_elapsed(&E), E.copy_gbs, E.sgemm_tflops, out);
  const char *const secs[] = {"real", "real-f64", "large", "large-f64", "structured", "reordered"};
  for (int i = 0; i < 6; i++) print_by_n(&E, &S, secs[i]);
  summarize(&E, &S, "random");
  for (int i = 0; i < 6; i++) summarize(&E, &S, secs[i]);
  print_reordered(&E, &S);
  print_targets(&E, &S);
  free(S.cases);
  bench_env_fini(&E);
  return 0;
}
