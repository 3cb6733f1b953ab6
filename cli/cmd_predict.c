/* SPDX-License-Identifier: MIT */
/* cli/cmd_predict.c: gcoo_dist predict: the predicted size of C = A B (gcoo/predict.h), next
 * to the paper's reference design on the same kind of sample, and with --exact the true size
 * and both relative errors. Runs on rank 0 (the predictor uses its OpenMP threads). */
#include <math.h>
#include <string.h>

#include "cmd_files.h"

static cli_option options[] =
    {{"a", "FILE", NULL, "matrix A (.mtx, .mtx.gz, or .h5[:/group])", NULL, false},
     {"b", "FILE", NULL, "matrix B (default: A)", NULL, false},
     CLI_OPT_PREDICT_METHOD,
     {"samples", "S", "0", "rows drawn (adaptive: first sample size); 0: the method's default",
      NULL, false},
     {"seed", "N", "2629890061", "sampling seed", NULL, false},
     {"rel-error", "E", "0.003", "adaptive: target relative standard error", NULL, false},
     {"max-cost", "C", "0.1", "adaptive: most FLOP counted, as a fraction of all", NULL, false},
     {"exact", NULL, NULL, "also count nnz(C) exactly and report the errors", NULL, false},
     CLI_OPT_JSON,
     CLI_OPT_END};

static gcoo_status read_matrix(const char *path, gcoo_sparse *A) {
  if (gcoo_file_kind_of(path) == GCOO_FILE_MTX) return gcoo_mtx_read(path, GCOO_FLOAT64, 0, A);
#if GCOO_HAVE_HDF5
  return gcoo_h5_read_sparse(path, GCOO_FLOAT64, A);
#else
  (void)A;
  return gcoo_mtx_read(path, GCOO_FLOAT64, 0, A); /* reports what is wrong with the file */
#endif
}

static double rel(int64_t x, int64_t ref) {
  return ref ? ((double)x - (double)ref) / (double)ref : (x ? INFINITY : 0.0);
}

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  const char *pa = cli_get(cmd, "a"), *pb = cli_get(cmd, "b");
  if (!pa) {
    if (cli_rank() == 0) cli_error("gcoo_dist predict: --a FILE is required (see --help)\n");
    return 2;
  }
  const int method = gcoo_predict_method_from_name(cli_get(cmd, "method"));
  long long samples = 0, seed = 0;
  double rel_error = 0.0, max_cost = 0.0;
  if (method < 0) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist predict: --method %s: expected adaptive, paper, reference, pps, "
                "upper or exact\n",
                cli_get(cmd, "method"));
    return 2;
  }
  if (!cli_int(cmd, "samples", 0, INT64_MAX, &samples) ||
      !cli_int(cmd, "seed", 0, INT64_MAX, &seed) ||
      !cli_real(cmd, "rel-error", 1e-9, 0.5, &rel_error) ||
      !cli_real(cmd, "max-cost", 1e-9, 1.0, &max_cost))
    return 2;
  const bool json = cli_flag(cmd, "json"), exact = cli_flag(cmd, "exact");
  if (cli_rank() != 0) return 0; /* the work is rank 0's */

  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse A = NULL, B = NULL;
  gcoo_prediction p, r;
  gcoo_sparse_info ai, bi;
  int64_t z = -1;
  double texact = 0.0;
  memset(&p, 0, sizeof p);
  memset(&r, 0, sizeof r);
  cli_progress("reading %s", pa);
  const char *opt[] = {"a", "b"}, *path[] = {pa, pb};
  if ((st = read_matrix(pa, &A)) < 0) return cli_fail_file("predict", opt, path, 1, pa, st);
  if (pb && strcmp(pb, pa)) {
    cli_progress("reading %s", pb);
    if ((st = read_matrix(pb, &B)) < 0) {
      gcoo_sparse_destroy(&A);
      return cli_fail_file("predict", opt + 1, path + 1, 1, pb, st);
    }
  }
  gcoo_sparse_get_info(A, &ai);
  gcoo_sparse_get_info(B ? B : A, &bi);
  gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
  o.method = (gcoo_predict_method)method;
  o.samples = samples;
  o.seed = (uint64_t)seed;
  o.rel_error = rel_error;
  o.max_cost = max_cost;
  int rc = 0;
  if ((st = gcoo_predict(A, B ? B : A, &o, &p)) < 0) {
    rc = cli_fail("prediction", st);
    goto done;
  }
  o.method = GCOO_PREDICT_REFERENCE; /* the paper's reference design, its own sample size */
  o.samples = 0;
  if ((st = gcoo_predict(A, B ? B : A, &o, &r)) < 0) {
    rc = cli_fail("reference prediction", st);
    goto done;
  }
  if (exact) {
    const double t0 = MPI_Wtime();
    if ((st = gcoo_spgemm_nnz_exact(A, B ? B : A, &z, NULL)) < 0) {
      rc = cli_fail("exact count", st);
      goto done;
    }
    texact = MPI_Wtime() - t0;
  }
  if (json) {
    cli_json j;
    cli_json_begin(&j, stdout);
    cli_json_head(&j, "predict");
    cli_json_matrix(&j, "a", pa, ai.nrows, ai.ncols, ai.nnz);
    cli_json_matrix(&j, "b", pb ? pb : pa, bi.nrows, bi.ncols, bi.nnz);
    cli_json_int(&j, "flop", p.flop_total);
    cli_json_int(&j, "nnz_lower", p.nnz_lower);
    cli_json_int(&j, "nnz_upper", p.nnz_upper);
    cli_json_str(&j, "method", gcoo_predict_method_name(p.method));
    cli_json_int(&j, "nnz_predicted", p.nnz_predicted);
    cli_json_real(&j, "compression_ratio", p.compression_ratio);
    cli_json_real(&j, "rel_stderr", p.rel_stderr);
    cli_json_bool(&j, "counted_all", p.exact);
    cli_json_int(&j, "samples", p.samples);
    cli_json_int(&j, "rows_counted", p.rows_counted);
    cli_json_int(&j, "flop_counted", p.flop_counted);
    cli_json_int(&j, "nnz_reference", r.nnz_predicted);
    cli_json_int(&j, "samples_reference", r.samples);
    if (exact) {
      cli_json_int(&j, "nnz_exact", z);
      cli_json_real(&j, "rel_error", rel(p.nnz_predicted, z));
      cli_json_real(&j, "rel_error_reference", rel(r.nnz_predicted, z));
    }
    cli_json_object(&j, "time_s");
    cli_json_real(&j, "predict", p.seconds);
    cli_json_real(&j, "flop", p.seconds_flop);
    if (exact) cli_json_real(&j, "exact", texact);
    cli_json_end(&j);
    cli_json_end(&j);
  } else {
    printf("C = A B: A %lld x %lld (%lld entries), B %lld x %lld (%lld entries)\n",
           (long long)ai.nrows, (long long)ai.ncols, (long long)ai.nnz, (long long)bi.nrows,
           (long long)bi.ncols, (long long)bi.nnz);
    printf("FLOP                %lld (exact); nnz(C) bounds %lld .. %lld\n",
           (long long)p.flop_total, (long long)p.nnz_lower, (long long)p.nnz_upper);
    printf("predicted nnz(C)    %lld  (%s: ", (long long)p.nnz_predicted,
           gcoo_predict_method_name(p.method));
    if (p.exact)
      printf("every uncertain row counted");
    else if (isfinite(p.rel_stderr))
      printf("estimated relative standard error %.3f %%", 100 * p.rel_stderr);
    else
      printf("no error estimate");
    printf("; %lld rows counted, %.2f %% of the FLOP; %.3f ms)\n", (long long)p.rows_counted,
           p.flop_total ? 100.0 * (double)p.flop_counted / (double)p.flop_total : 0.0,
           1e3 * p.seconds);
    printf("compression ratio   %.4f\n", p.compression_ratio);
    printf("reference design    %lld  (z* M / s, %lld rows)\n", (long long)r.nnz_predicted,
           (long long)r.samples);
    if (exact)
      printf("exact nnz(C)        %lld  (%.3f ms); relative error: predicted %+.3f %%, reference "
             "%+.3f %%\n",
             (long long)z, 1e3 * texact, 100 * rel(p.nnz_predicted, z),
             100 * rel(r.nnz_predicted, z));
  }
done:
  gcoo_prediction_free(&p);
  gcoo_prediction_free(&r);
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&B);
  return rc;
}

cli_command cmd_predict = {
    "predict",
    "predict the output size of A*B (sampled compression ratio)",
    "--a A [--b B] [--method M] [--samples S] [--seed N] [--exact] [--json]",
    "Counts the FLOP of every row of C = A B exactly, then estimates nnz(C) from a sample of rows\n"
    "whose output size is counted exactly (docs/predictor.md). The default method bounds every\n"
    "row and samples rows in proportion to their uncertainty until the estimate is precise\n"
    "enough or 10 % of the FLOP has been counted. The paper's reference design (z* M / s) is\n"
    "printed beside it; --exact counts nnz(C) as well and prints both errors.",
    options,
    run};
