/* SPDX-License-Identifier: MIT */
/* cli/cmd_spgemm.c: gcoo_dist spgemm: distributed C = A B (gcoo/spgemm.h). Rank 0 predicts
 * and partitions the rows of C by predicted work; every rank computes its rows on its GPU (or
 * the CPU); the result is written with parallel HDF5 as one CSR with a global indptr. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_files.h"

static cli_option options[] =
    {{"a", "FILE", NULL, "matrix A (.h5[:/group] CSR read in slabs, or .mtx/.mtx.gz)", NULL, false},
     {"b", "FILE", NULL, "matrix B (default: A)", NULL, false},
     CLI_OPT_OUT("write C: file.h5[:/group] as one CSR group (parallel, scipy/anndata layout) or "
                 "file.mtx[.gz] (gathered on rank 0)"),
     CLI_OPT_OVERWRITE,
     CLI_OPT_BACKEND,
     CLI_OPT_DTYPE(NULL, " [default: as A's file stores it; float64 for Matrix Market]"),
     {"safety", "F", "1.25", "room of a row of C: F x its predicted size (GPU)", NULL, false},
     CLI_OPT_PREDICT_METHOD,
     {"memory-budget", "BYTES", "0", "device bytes a rank may use (0: 90 % of free memory)", NULL,
      false},
     {"alg", "A", "gcoo", "local algorithm: gcoo, cusparse_alg1, cusparse_alg2, cusparse_alg3",
      NULL, false},
     {"check", NULL, NULL,
      "check 64 sampled rows of C against the CPU reference (rank 0 reads "
      "those rows of A and the rows of B they need; exit 1 on FAIL)",
      NULL, false},
     CLI_OPT_JSON,
     CLI_OPT_END};

enum { N_SAMPLE = 64 };

typedef struct check_result {
  int64_t rows, nnz_c;
  double err, tol;
  bool pass;
} check_result;

/* A CSR view of S (converted when S is in another format; *tmp owns the copy). */
static gcoo_status csr_view(gcoo_sparse S, gcoo_sparse *tmp, gcoo_sparse_arrays *a,
                            gcoo_sparse_info *si) {
  *tmp = NULL;
  gcoo_status st = gcoo_sparse_get_info(S, si);
  if (st >= 0 && si->format != GCOO_FORMAT_CSR) {
    st = gcoo_sparse_convert(tmp, S, GCOO_FORMAT_CSR, 0);
    if (st >= 0) S = *tmp;
  }
  if (st >= 0) st = gcoo_sparse_get_arrays(S, a);
  return st;
}

/* Rows of a sparse matrix file, as CSR with double values: rows[t] of the file is row t here. */
typedef struct rowset {
  int64_t *ptr, *ind, ncols;
  double *val;
} rowset;

static void rowset_free(rowset *r) {
  free(r->ptr);
  free(r->ind);
  free(r->val);
  memset(r, 0, sizeof *r);
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t sort_unique(int64_t *v, int64_t n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  int64_t u = 0;
  for (int64_t t = 0; t < n; t++)
    if (u == 0 || v[t] != v[u - 1]) v[u++] = v[t];
  return u;
}

/* Index of row r in the sorted rows (present by construction). */
static int64_t rowset_find(const int64_t *rows, int64_t n, int64_t r) {
  const int64_t *h = bsearch(&r, rows, (size_t)n, sizeof *rows, cmp_i64);
  return h ? h - rows : 0;
}

/* Append row i of the CSR arrays a (element type dt) to out at entry *used. */
static gcoo_status rowset_append(rowset *out, int64_t t, const gcoo_sparse_arrays *a, gcoo_dtype dt,
                                 int64_t i, int64_t *cap) {
  const int64_t len = a->ptr[i + 1] - a->ptr[i], at = out->ptr[t];
  if (at + len > *cap) {
    *cap = 2 * (at + len) + 16;
    int64_t *ni = realloc(out->ind, sizeof *ni * (size_t)*cap);
    if (ni) out->ind = ni;
    double *nv = realloc(out->val, sizeof *nv * (size_t)*cap);
    if (nv) out->val = nv;
    if (!ni || !nv) return GCOO_ERR_NO_MEMORY;
  }
  for (int64_t q = 0; q < len; q++) {
    out->ind[at + q] = a->ind[a->ptr[i] + q];
    out->val[at + q] = dt == GCOO_FLOAT64 ? ((const double *)a->values)[a->ptr[i] + q]
                                          : ((const float *)a->values)[a->ptr[i] + q];
  }
  out->ptr[t + 1] = at + len;
  return GCOO_SUCCESS;
}

/* The given rows (sorted or not) of a sparse matrix file on the calling rank: one row slab each
 * from an HDF5 CSR group (a few reads, whatever the matrix's size), else the whole matrix read
 * (Matrix Market, CSC and GCOO groups) and the rows copied. */
static gcoo_status rowset_read(const char *path, gcoo_dtype dt, const int64_t *rows, int64_t n,
                               rowset *out) {
  memset(out, 0, sizeof *out);
  out->ptr = calloc((size_t)n + 1, sizeof *out->ptr);
  if (!out->ptr) return GCOO_ERR_NO_MEMORY;
  int64_t cap = 0;
  gcoo_status st = GCOO_SUCCESS;
#if GCOO_HAVE_HDF5
  gcoo_h5_info hi;
  if (cli_file_kind_of(path) == CLI_FILE_H5 && gcoo_h5_inspect(path, &hi) >= 0 && hi.is_sparse &&
      hi.format == GCOO_FORMAT_CSR) {
    gcoo_h5_sparse_file f = NULL;
    st = gcoo_h5_sparse_open(MPI_COMM_SELF, path, &f);
    out->ncols = hi.ncols;
    for (int64_t t = 0; st >= 0 && t < n; t++) {
      gcoo_sparse slab = NULL, tmp = NULL;
      gcoo_sparse_arrays a;
      gcoo_sparse_info si;
      st = gcoo_h5_sparse_read_slab(f, dt, rows[t], rows[t] + 1, &slab);
      if (st >= 0) st = csr_view(slab, &tmp, &a, &si);
      if (st >= 0) st = rowset_append(out, t, &a, dt, 0, &cap);
      gcoo_sparse_destroy(&tmp);
      gcoo_sparse_destroy(&slab);
    }
    gcoo_h5_sparse_close(&f);
    return st;
  }
#endif
  cli_matrix m;
  st = cli_matrix_read(path, (int)dt, &m);
  if (st >= 0 && !m.is_sparse) st = GCOO_ERR_FORMAT;
  gcoo_sparse tmp = NULL;
  gcoo_sparse_arrays a;
  gcoo_sparse_info si;
  if (st >= 0) st = csr_view(m.A, &tmp, &a, &si);
  if (st >= 0) out->ncols = si.ncols;
  for (int64_t t = 0; st >= 0 && t < n; t++) st = rowset_append(out, t, &a, dt, rows[t], &cap);
  gcoo_sparse_destroy(&tmp);
  cli_matrix_free(&m);
  return st;
}

/* Sampled rows of C against the CPU reference: each rank sends its sampled rows (row, length,
 * columns, values) to rank 0, which reads those rows of A and the rows of B they need (from an
 * HDF5 CSR group row by row; other files whole) and computes those rows of A B in double. The error of an entry is |c - ref| / (|A||B|)_ij, against a bound of a few units of
 * rounding times the products summed; an entry of C where A B has no product fails. */
static gcoo_status check(const char *pa, const char *pb, gcoo_dtype dt,
                         const gcoo_dist_spgemm_info *info, gcoo_sparse slab, check_result *res) {
  memset(res, 0, sizeof *res);
  MPI_Comm comm = MPI_COMM_WORLD;
  const int64_t m = info->m, ns = m < N_SAMPLE ? m : N_SAMPLE;
  gcoo_sparse tmp = NULL;
  gcoo_sparse_arrays a;
  gcoo_sparse_info si;
  gcoo_status st = csr_view(slab, &tmp, &a, &si);
  /* this rank's sampled rows, packed as doubles: row, length, then (column, value) pairs */
  size_t cap = 0, used = 0;
  double *pack = NULL;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int64_t t = 0; st >= 0 && t < ns; t++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const int64_t lo = m * t / ns, hi = m * (t + 1) / ns,
                  i = lo + (int64_t)(x % (uint64_t)(hi - lo));
    const int64_t li = i - info->row0;
    if (li < 0 || li >= si.nrows) continue;
    const int64_t len = a.ptr[li + 1] - a.ptr[li];
    if (used + 2 + 2 * (size_t)len > cap) {
      cap = 2 * (used + 2 + 2 * (size_t)len);
      double *np = realloc(pack, cap * sizeof *np);
      if (!np) {
        st = GCOO_ERR_NO_MEMORY;
        break;
      }
      pack = np;
    }
    pack[used++] = (double)i;
    pack[used++] = (double)len;
    for (int64_t q = a.ptr[li]; q < a.ptr[li + 1]; q++) {
      pack[used++] = (double)a.ind[q];
      pack[used++] = dt == GCOO_FLOAT64 ? ((const double *)a.values)[q]
                                        : ((const float *)a.values)[q];
    }
  }
  gcoo_sparse_destroy(&tmp);
  st = cli_agree(st);
  char *all = NULL;
  size_t total = 0;
  if (st >= 0) st = cli_agree(cli_gather_bytes(comm, pack, used * sizeof *pack, &all, &total));
  free(pack);
  if (st < 0) return st;
  if (cli_rank() == 0) {
    /* the sampled rows of C as they came, and the rows of A and B they need */
    const double *p0 = (const double *)all, *end = p0 + total / sizeof *p0;
    int64_t nrows = 0, *arows = NULL, *brows = NULL, nb = 0;
    for (const double *p = p0; p < end; p += 2 + 2 * (int64_t)p[1]) nrows++;
    arows = malloc(sizeof *arows * (size_t)(nrows + 1));
    if (!arows) st = GCOO_ERR_NO_MEMORY;
    nrows = 0;
    for (const double *p = p0; arows && p < end; p += 2 + 2 * (int64_t)p[1])
      arows[nrows++] = (int64_t)p[0];
    rowset A, B;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    if (st >= 0) st = rowset_read(pa, dt, arows, nrows, &A);
    if (st >= 0) {
      brows = malloc(sizeof *brows * (size_t)(A.ptr[nrows] + 1));
      if (!brows) st = GCOO_ERR_NO_MEMORY;
      for (int64_t q = 0; brows && q < A.ptr[nrows]; q++) brows[q] = A.ind[q];
      if (brows) nb = sort_unique(brows, A.ptr[nrows]);
    }
    if (st >= 0) st = rowset_read(pb ? pb : pa, dt, brows, nb, &B);
    const int64_t n = st >= 0 ? B.ncols : 0;
    double *acc = NULL, *mag = NULL;
    if (st >= 0 &&
        !((acc = calloc((size_t)n + 1, sizeof *acc)) && (mag = calloc((size_t)n + 1, sizeof *mag))))
      st = GCOO_ERR_NO_MEMORY;
    int64_t maxprod = 0, t = 0;
    double worst = 0.0;
    for (const double *p = p0; st >= 0 && p < end; t++) {
      const int64_t len = (int64_t)p[1];
      const double *pairs = p + 2;
      p += 2 + 2 * len;
      res->rows++;
      res->nnz_c += len;
      /* the reference row: acc = sum_q A(i,q) B(q,:), mag = sum |A(i,q)| |B(q,:)| */
      const int64_t prods = A.ptr[t + 1] - A.ptr[t];
      if (prods > maxprod) maxprod = prods;
      for (int64_t q = A.ptr[t]; q < A.ptr[t + 1]; q++) {
        const int64_t r = rowset_find(brows, nb, A.ind[q]);
        for (int64_t w = B.ptr[r]; w < B.ptr[r + 1]; w++) {
          acc[B.ind[w]] += A.val[q] * B.val[w];
          mag[B.ind[w]] += fabs(A.val[q]) * fabs(B.val[w]) + 1e-300; /* > 0 marks a product */
        }
      }
      /* C's entries against it (consumed: acc and mag are zeroed where C has an entry) */
      for (int64_t e = 0; e < len; e++) {
        const int64_t c = (int64_t)pairs[2 * e];
        const double v = pairs[2 * e + 1];
        const double err = c < 0 || c >= n ? INFINITY
                           : mag[c] > 0    ? fabs(v - acc[c]) / mag[c]
                                           : (v == 0 ? 0 : INFINITY);
        if (!(err <= worst)) worst = isnan(err) ? INFINITY : err;
        if (c >= 0 && c < n) acc[c] = mag[c] = 0.0;
      }
      /* products C lacks */
      for (int64_t q = A.ptr[t]; q < A.ptr[t + 1]; q++) {
        const int64_t r = rowset_find(brows, nb, A.ind[q]);
        for (int64_t w = B.ptr[r]; w < B.ptr[r + 1]; w++) {
          const int64_t c = B.ind[w];
          if (mag[c] > 0) {
            const double err = fabs(acc[c]) / mag[c];
            if (!(err <= worst)) worst = isnan(err) ? INFINITY : err;
            acc[c] = mag[c] = 0.0;
          }
        }
      }
    }
    res->err = worst;
    const double u = dt == GCOO_FLOAT64 ? 0x1p-53 : 0x1p-24;
    res->tol = 2.0 * (double)(maxprod + 2) * u;
    res->pass = st >= 0 && res->err <= res->tol && res->rows == ns;
    free(acc);
    free(mag);
    free(arows);
    free(brows);
    rowset_free(&A);
    rowset_free(&B);
  }
  free(all);
  int v[2] = {st < 0, res->pass};
  MPI_Bcast(v, 2, MPI_INT, 0, comm);
  res->pass = v[1];
  return v[0] ? (cli_rank() == 0 ? st : GCOO_ERR_REMOTE) : GCOO_SUCCESS;
}

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  const char *pa = cli_get(cmd, "a"), *pb = cli_get(cmd, "b"), *out = cli_get(cmd, "out");
  double safety = 0.0;
  long long budget = 0;
  const int method = gcoo_predict_method_from_name(cli_get(cmd, "method"));
  const int alg = gcoo_spgemm_alg_from_name(cli_get(cmd, "alg"));
  if (!pa) {
    if (cli_rank() == 0) cli_error("gcoo_dist spgemm: --a FILE is required (see --help)\n");
    return 2;
  }
  gcoo_dtype dt;
  char dt_source[300];
  const char *backend;
  if (!cli_job_dtype(cmd, pa, GCOO_FLOAT64, &dt, dt_source, sizeof dt_source) ||
      !cli_backend(cmd, &backend))
    return 2;
  const int out_rc = cli_job_output_check(cmd, out, pa, pb);
  if (out_rc) return out_rc;
  if (method < 0 || alg < 0) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist spgemm: unknown %s \"%s\" (see --help)\n",
                method < 0 ? "--method" : "--alg", cli_get(cmd, method < 0 ? "method" : "alg"));
    return 2;
  }
  if (!cli_real(cmd, "safety", 1e-9, 1e6, &safety) ||
      !cli_int(cmd, "memory-budget", 0, INT64_MAX, &budget))
    return 2;
  const bool json = cli_flag(cmd, "json");

  gcoo_status st;
  gcoo_dist d = NULL;
  gcoo_sparse slab = NULL;
  gcoo_dist_spgemm_info info;
  gcoo_spgemm_options o = GCOO_SPGEMM_OPTIONS_INIT;
  o.alg = (gcoo_spgemm_alg)alg;
  o.safety = safety;
  o.memory_budget = budget;
  o.predict.method = (gcoo_predict_method)method;
  double twrite = 0.0;
  int rc = 0;
  memset(&info, 0, sizeof info);
  /* unbound: the GPU (its context begun on a thread in main) is bound after the read
   * (gcoo_dist_create_unbound); GCOO_FAST_STARTUP=0 binds here */
  st = cli_agree(cli_fast_startup() ? gcoo_dist_create_unbound(&d, MPI_COMM_WORLD, backend)
                                    : gcoo_dist_create(&d, MPI_COMM_WORLD, backend));
  if (st < 0) return cli_rank() == 0 ? cli_fail("starting the ranks", st) : 1;
  cli_progress("C = A B with A = %s, B = %s on %d ranks", pa, pb ? pb : pa, gcoo_dist_size(d));
  st = gcoo_dist_spgemm_files(d, pa, pb, dt, &o, &slab, &info);
  if (st < 0) { /* every rank has the agreed status; rank 0's message names the failing rank */
    const char *opt[] = {"a", "b"}, *path[] = {pa, pb};
    rc = cli_rank() == 0 ? cli_fail_file("spgemm", opt, path, pb ? 2 : 1, "spgemm", st) : 1;
    goto done;
  }
  /* checked before it is written: a product that fails its check is never published */
  check_result chk;
  memset(&chk, 0, sizeof chk);
  if (cli_flag(cmd, "check")) {
    cli_progress("checking sampled rows of C against the CPU reference");
    st = check(pa, pb, dt, &info, slab, &chk);
    if (st < 0) {
      rc = cli_report("checking (rank 0 reads rows of A and B)", st);
      goto done;
    }
    if (!chk.pass) rc = 1;
  }
  if (out && rc) {
    if (cli_rank() == 0) cli_error("gcoo_dist spgemm: the check failed: %s was not written\n", out);
  } else if (out) {
    cli_progress("writing %s", out);
    const double t0 = MPI_Wtime();
    if (cli_file_kind_of(out) == CLI_FILE_MTX)
      st = cli_write_mtx_csr_rows(gcoo_dist_comm(d), out, info.m, info.n, slab);
    else
#if GCOO_HAVE_HDF5
      st = gcoo_h5_write_csr_rows(gcoo_dist_comm(d), out, info.m, info.row0, slab,
                                  cli_write_flags(cmd));
#else
      st = cli_agree(GCOO_ERR_UNSUPPORTED);
#endif
    twrite = MPI_Wtime() - t0;
    if (st < 0) {
      rc = cli_report(out, st);
      goto done;
    }
    cli_progress_rate("wrote", out, cli_file_mbytes(out), twrite);
  }
  {
    /* the slowest rank's times, and the local algorithm that ran */
    double tmax[3] = {info.seconds_read, info.seconds, twrite}, tall[3];
    MPI_Allreduce(tmax, tall, 3, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(d));
    char dev[160];
    gcoo_ctx_describe(gcoo_dist_ctx(d), dev, sizeof dev);
    char *devices = cli_devices_gather(d); /* every rank's "host: device", on rank 0 */
    gcoo_dist_info di;
    double bind = gcoo_dist_get_info(d, &di) >= 0 ? di.bind_seconds : 0.0;
    MPI_Allreduce(MPI_IN_PLACE, &bind, 1, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(d));
    const double perr = info.nnz
                            ? ((double)info.nnz_predicted - (double)info.nnz) / (double)info.nnz
                            : 0.0;
    if (cli_rank() != 0) {
      free(devices);
      goto done;
    }
    if (json) {
      cli_json j;
      cli_json_begin(&j, stdout);
      cli_json_head(&j, "spgemm");
      cli_json_str(&j, "dtype", cli_dtype_name(dt));
      cli_json_str(&j, "dtype_source", dt_source);
      cli_json_run(&j, d, devices);
      cli_json_matrix(&j, "a", pa, info.m, info.k, -1);
      cli_json_matrix(&j, "b", pb ? pb : pa, info.k, info.n, -1);
      cli_json_matrix(&j, "c", out ? out : "A B", info.m, info.n, info.nnz);
      cli_json_str(&j, "algorithm", gcoo_spgemm_alg_name(info.local.alg));
      cli_json_int(&j, "flop", info.flop);
      cli_json_int(&j, "nnz_predicted", info.nnz_predicted);
      cli_json_real(&j, "prediction_rel_error", perr);
      cli_json_real(&j, "imbalance_predicted", info.imbalance);
      cli_json_real(&j, "imbalance_measured", info.imbalance_actual);
      cli_json_object(&j, "time_s");
      cli_json_real(&j, "read", tall[0]);
      cli_json_real(&j, "bind", bind); /* the wait for the GPU after the read */
      cli_json_real(&j, "plan", info.seconds_plan);
      cli_json_real(&j, "compute", info.seconds_compute);
      cli_json_real(&j, "write", tall[2]);
      cli_json_real(&j, "total", tall[1] + tall[2]);
      cli_json_end(&j);
      if (out) cli_json_str(&j, "out", out);
      if (out) cli_json_bool(&j, "out_written", rc == 0);
      if (cli_flag(cmd, "check")) {
        cli_json_object(&j, "check");
        cli_json_int(&j, "rows", chk.rows);
        cli_json_int(&j, "nnz", chk.nnz_c);
        cli_json_real(&j, "max_rel_err", chk.err);
        cli_json_real(&j, "tolerance", chk.tol);
        cli_json_bool(&j, "pass", chk.pass);
        cli_json_end(&j);
      }
      cli_json_startup(&j);
      cli_json_end(&j);
    } else {
      printf("C = A B: %lld x %lld (inner %lld), %s %s, %lld FLOP, nnz(C) = %lld\n",
             (long long)info.m, (long long)info.n, (long long)info.k, cli_dtype_name(dt), dt_source,
             (long long)info.flop, (long long)info.nnz);
      printf("prediction %lld (%+.3f %%); rows split over %d ranks, predicted imbalance %.3f, "
             "measured %.3f\n",
             (long long)info.nnz_predicted, 100 * perr, gcoo_dist_size(d), info.imbalance,
             info.imbalance_actual);
      printf("%s on %s (%s): plan %.3f s, read %.3f s, compute %.3f s, write %.3f s, total %.3f "
             "s\n",
             gcoo_spgemm_alg_name(info.local.alg), gcoo_ctx_backend(gcoo_dist_ctx(d)), dev,
             info.seconds_plan, tall[0], info.seconds_compute, tall[2], tall[1] + tall[2]);
      if (out && rc)
        printf("not written: %s (the check failed)\n", out);
      else if (out)
        printf("written: %s (%s)\n", out,
               cli_file_kind_of(out) == CLI_FILE_MTX ? "Matrix Market coordinate"
                                                     : "HDF5 CSR group");
      if (cli_flag(cmd, "check"))
        printf("check: %lld sampled rows of C (%lld entries), max error %.3g of |A||B| (tolerance "
               "%.3g): %s\n",
               (long long)chk.rows, (long long)chk.nnz_c, chk.err, chk.tol,
               chk.pass ? "PASS" : "FAIL");
    }
    free(devices);
  }
done:
  gcoo_sparse_destroy(&slab);
  gcoo_dist_destroy(&d);
  return rc;
}

cli_command cmd_spgemm = {
    "spgemm",
    "C = A B, sparse times sparse, output preallocated from the prediction",
    "--a A [--b B] [--out C.h5|C.mtx] [--backend cpu|gpu] [--safety F] [--check] [--json]",
    "Rank 0 predicts the size of every row of C (gcoo_dist predict) and gives each rank a slab of\n"
    "rows of equal predicted work; each rank reads its slab of A and the rows of B it needs\n"
    "(HDF5 CSR in parallel; Matrix Market files are read by rank 0 and sent), computes its rows\n"
    "on its GPU (or the CPU backend), with room from the prediction and exact recomputation of\n"
    "rows that outgrow it, and the ranks write C together as one CSR (global indptr).",
    options,
    run};
