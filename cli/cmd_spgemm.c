/* SPDX-License-Identifier: MIT */
/* cli/cmd_spgemm.c: gcoo_dist spgemm: distributed C = A B (gcoo/spgemm.h). Rank 0 predicts
 * and partitions the rows of C by predicted work; every rank computes its rows on its GPU (or
 * the CPU); the result is written with parallel HDF5 as one CSR with a global indptr. */
#include <math.h>
#include <string.h>

#include "cli.h"

static cli_option options[] = {
    {"a", "FILE", NULL, "matrix A (.h5[:/group] CSR read in slabs, or .mtx/.mtx.gz)", NULL, false},
    {"b", "FILE", NULL, "matrix B (default: A)", NULL, false},
    CLI_OPT_OUT("write C here as one CSR group (HDF5, scipy/anndata layout)"),
    CLI_OPT_BACKEND,
    CLI_OPT_DTYPE("float64", ""),
    {"safety", "F", "1.25", "room of a row of C: F x its predicted size (GPU)", NULL, false},
    CLI_OPT_PREDICT_METHOD,
    {"memory-budget", "BYTES", "0", "device bytes a rank may use (0: 90 % of free memory)", NULL,
     false},
    {"alg", "A", "gcoo", "local algorithm: gcoo, cusparse_alg1, cusparse_alg2, cusparse_alg3", NULL,
     false},
    CLI_OPT_JSON,
    CLI_OPT_END};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  const char *pa = cli_get(cmd, "a"), *pb = cli_get(cmd, "b"), *out = cli_get(cmd, "out");
  double safety = 0.0;
  long long budget = 0;
  const int method = gcoo_predict_method_from_name(cli_get(cmd, "method"));
  const int alg = gcoo_spgemm_alg_from_name(cli_get(cmd, "alg"));
  if (!pa) {
    if (cli_rank() == 0) fprintf(stderr, "gcoo_dist spgemm: --a FILE is required (see --help)\n");
    return 2;
  }
  gcoo_dtype dt;
  const char *backend;
  if (!cli_dtype(cmd, "dtype", &dt) || !cli_backend(cmd, &backend)) return 2;
  if (method < 0 || alg < 0) {
    if (cli_rank() == 0)
      fprintf(stderr, "gcoo_dist spgemm: unknown %s \"%s\" (see --help)\n",
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
  st = cli_agree(gcoo_dist_create(&d, MPI_COMM_WORLD, backend));
  if (st < 0) return cli_rank() == 0 ? cli_fail("starting the ranks", st) : 1;
  cli_progress("C = A B with A = %s, B = %s on %d ranks", pa, pb ? pb : pa, gcoo_dist_size(d));
  st = gcoo_dist_spgemm_files(d, pa, pb, dt, &o, &slab, &info);
  if (st < 0) { /* every rank has the agreed status; rank 0's message names the failing rank */
    rc = cli_rank() == 0 ? cli_fail("spgemm", st) : 1;
    goto done;
  }
  if (out) {
#if GCOO_HAVE_HDF5
    cli_progress("writing %s", out);
    const double t0 = MPI_Wtime();
    st = gcoo_h5_write_csr_rows(gcoo_dist_comm(d), out, info.m, info.row0, slab);
    twrite = MPI_Wtime() - t0;
    if (st < 0) {
      rc = cli_rank() == 0 ? cli_fail(out, st) : 1;
      goto done;
    }
#else
    rc = cli_fail(out, GCOO_ERR_UNSUPPORTED);
    goto done;
#endif
  }
  {
    /* the slowest rank's times, and the local algorithm that ran */
    double tmax[3] = {info.seconds_read, info.seconds, twrite}, tall[3];
    MPI_Allreduce(tmax, tall, 3, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(d));
    char dev[160];
    gcoo_ctx_describe(gcoo_dist_ctx(d), dev, sizeof dev);
    const double perr = info.nnz ? ((double)info.nnz_predicted - (double)info.nnz) / (double)info.nnz : 0.0;
    if (cli_rank() != 0) goto done;
    if (json) {
      cli_json j;
      cli_json_begin(&j, stdout);
      cli_json_str(&j, "a", pa);
      cli_json_str(&j, "b", pb ? pb : pa);
      cli_json_int(&j, "ranks", gcoo_dist_size(d));
      cli_json_str(&j, "backend", gcoo_ctx_backend(gcoo_dist_ctx(d)));
      cli_json_str(&j, "device", dev);
      cli_json_str(&j, "dtype", cli_dtype_name(dt));
      cli_json_str(&j, "alg", gcoo_spgemm_alg_name(info.local.alg));
      cli_json_int(&j, "m", info.m);
      cli_json_int(&j, "k", info.k);
      cli_json_int(&j, "n", info.n);
      cli_json_int(&j, "flop", info.flop);
      cli_json_int(&j, "nnz", info.nnz);
      cli_json_int(&j, "nnz_predicted", info.nnz_predicted);
      cli_json_real(&j, "prediction_rel_error", perr);
      cli_json_real(&j, "imbalance_predicted", info.imbalance);
      cli_json_real(&j, "imbalance_measured", info.imbalance_actual);
      cli_json_real(&j, "seconds_plan", info.seconds_plan);
      cli_json_real(&j, "seconds_read", tall[0]);
      cli_json_real(&j, "seconds_compute", info.seconds_compute);
      cli_json_real(&j, "seconds_write", tall[2]);
      cli_json_real(&j, "seconds", tall[1] + tall[2]);
      if (out) cli_json_str(&j, "out", out);
      cli_json_end(&j);
    } else {
      printf("C = A B: %lld x %lld (inner %lld), %lld FLOP, nnz(C) = %lld\n", (long long)info.m,
             (long long)info.n, (long long)info.k, (long long)info.flop, (long long)info.nnz);
      printf("prediction %lld (%+.3f %%); rows split over %d ranks, predicted imbalance %.3f, "
             "measured %.3f\n", (long long)info.nnz_predicted, 100 * perr, gcoo_dist_size(d),
             info.imbalance, info.imbalance_actual);
      printf("%s on %s (%s): plan %.3f s, read %.3f s, compute %.3f s, write %.3f s, total %.3f s\n",
             gcoo_spgemm_alg_name(info.local.alg), gcoo_ctx_backend(gcoo_dist_ctx(d)), dev,
             info.seconds_plan, tall[0], info.seconds_compute, tall[2], tall[1] + tall[2]);
      if (out) printf("written: %s\n", out);
    }
  }
done:
  gcoo_sparse_destroy(&slab);
  gcoo_dist_destroy(&d);
  return rc;
}

cli_command cmd_spgemm = {
    "spgemm", "C = A B, sparse times sparse, output preallocated from the prediction",
    "--a A [--b B] [--out C.h5] [--backend cpu|gpu] [--safety F] [--json]",
    "Rank 0 predicts the size of every row of C (gcoo_dist predict) and gives each rank a slab of\n"
    "rows of equal predicted work; each rank reads its slab of A and the rows of B it needs\n"
    "(HDF5 CSR in parallel; Matrix Market files are read by rank 0 and sent), computes its rows\n"
    "on its GPU (or the CPU backend), with room from the prediction and exact recomputation of\n"
    "rows that outgrow it, and the ranks write C together as one CSR (global indptr).",
    options, run};
