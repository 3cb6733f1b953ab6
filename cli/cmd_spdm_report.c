/* SPDX-License-Identifier: MIT */
/* cli/cmd_spdm_report.c: gcoo_dist spdm's report on rank 0: the phases' times, the product's
 * sizes and rates, the check, as text or one JSON object (--json). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_spdm.h"

/* ---- the report --------------------------------------------------------------------------- */

void spdm_report(job *j) {
  MPI_Comm comm = gcoo_dist_comm(j->d);
  const int rank = cli_rank(), size = cli_size();
  gcoo_dist_info di;
  gcoo_dist_op_info oi;
  gcoo_dist_get_info(j->d, &di);
  gcoo_dist_op_get_info(j->op, &oi);
  char *all = cli_devices_gather(j->d); /* every rank's "host: device" */
  /* halo traffic and the algorithm every rank chose */
  const size_t es = gcoo_dtype_size(j->dtype);
  int64_t halo[2] = {oi.halo_rows_send, oi.halo_rows_send}, hsum = 0, hmax = 0;
  MPI_Allreduce(&halo[0], &hsum, 1, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(&halo[1], &hmax, 1, MPI_INT64_T, MPI_MAX, comm);
  int alg = oi.nrows_local > 0 ? (int)oi.local.alg : 1000, alg_min = 0, alg_max = 0, p = oi.local.p;
  MPI_Allreduce(&alg, &alg_min, 1, MPI_INT, MPI_MIN, comm);
  int alg2 = oi.nrows_local > 0 ? (int)oi.local.alg : -1;
  MPI_Allreduce(&alg2, &alg_max, 1, MPI_INT, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &p, 1, MPI_INT, MPI_MAX, comm);
  /* sums of Y, so runs at different rank counts can be compared without files */
  double sums[2] = {0, 0};
  /* in gcoo_ctx_dense_sums's fixed order (the same bits from the host's Y and the device's) */
  if (gcoo_ctx_dense_sums(gcoo_dist_ctx(j->d), j->on_device && !j->Yh.data ? &j->Yd : &j->Yh,
                          sums) < 0)
    sums[0] = sums[1] = NAN;
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  if (rank != 0) return;
  const char *algname = alg_min == 1000 ? "none" : gcoo_spdm_alg_name((gcoo_spdm_alg)alg_min);
  const int ds = j->reading == GCOO_DENSE_SPARSE;
  const double flops = 2.0 * (double)j->nnz * (double)j->N;
  const double gflops = j->t_kernel > 0 ? flops / j->t_kernel * 1e-9 : 0.0;
  const double halo_mb = (double)hsum * (double)j->N * (double)es / 1e6;
  if (j->json) {
    cli_json js;
    cli_json_begin(&js, stdout);
    cli_json_head(&js, "spdm");
    cli_json_str(&js, "product", ds ? "C = B S" : "Y = A X");
    cli_json_str(&js, "reading", ds ? "dense-sparse" : "sparse-dense");
    cli_json_str(&js, "dtype", j->dtype == GCOO_FLOAT64 ? "float64" : "float32");
    cli_json_str(&js, "dtype_source", j->dtype_source);
    cli_json_run(&js, j->d, all);
    cli_json_matrix(&js, "a", j->a_desc, ds ? j->k : j->m, ds ? j->m : j->k, j->nnz);
    cli_json_matrix(&js, "b", j->b_desc, ds ? j->N : j->k, ds ? j->k : j->N, -1);
    cli_json_str(&js, "algorithm", algname);
    cli_json_str(&js, "math", j->math == GCOO_MATH_TF32 ? "tf32" : "exact");
    cli_json_bool(&js, "algorithm_same_on_all_ranks", alg_min == alg_max || alg_min == 1000);
    cli_json_int(&js, "p", p);
    cli_json_str(&js, "xmode", oi.xmode == GCOO_DIST_X_PARTITIONED ? "partitioned" : "replicated");
    cli_json_real(&js, "imbalance", oi.imbalance);
    cli_json_object(&js, "halo");
    cli_json_int(&js, "rows_sent_total", hsum);
    cli_json_int(&js, "rows_sent_max", hmax);
    cli_json_int(&js, "bytes_per_apply", hsum * j->N * (int64_t)es);
    cli_json_end(&js);
    /* dist_bind: the wait for the GPU after the read (0 where the context was bound at
     * dist_create, and on the CPU backend, whose binding is part of the read) */
    static const char *const before[] = {"dist_create",   "read",   "dist_bind", "setup",
                                         "dense_operand", "upload", "kernel",    "kernel_min"};
    static const char *const after[] = {"gather", "gather_first", "write", "check", "total"};
    const double t_before[] = {j->t_create, j->t_read, j->t_bind,   j->t_setup,
                               j->t_x,      j->t_h2d,  j->t_kernel, j->t_kernel_min};
    const double t_after[] = {j->t_gather, j->t_gather_first, j->t_write, j->t_check, j->t_total};
    cli_json_object(&js, "time_s");
    cli_json_reals(&js, before, t_before, 8);
    cli_json_int(&js, "repeat", j->repeat);
    cli_json_reals(&js, after, t_after, 2);
    if (j->overlap > 0 && j->gather == GATHER_ROOT) {
      cli_json_int(&js, "overlap_blocks", j->overlap);
      cli_json_real(&js, "kernel_gather_overlapped", j->t_overlap);
      cli_json_real(&js, "kernel_gather_overlapped_first", j->t_overlap_first);
    }
    cli_json_reals(&js, after + 2, t_after + 2, 3);
    cli_json_end(&js);
    cli_json_startup(&js);
    cli_json_real(&js, "gflops", gflops);
    cli_json_real(&js, "y_sum", sums[0]);
    cli_json_real(&js, "y_abs_sum", sums[1]);
    if (j->gather != GATHER_NONE)
      cli_json_str(&js, "gather", j->gather == GATHER_ALL ? "all" : "root");
    if (j->out) cli_json_str(&js, "out", j->out);
    if (j->out) cli_json_bool(&js, "out_written", !j->check_failed);
    if (j->check) {
      cli_json_object(&js, "check");
      cli_json_int(&js, "rows", j->check_rows);
      cli_json_real(&js, "max_rel_err", j->check_err);
      cli_json_real(&js, "tolerance", j->check_tol);
      cli_json_bool(&js, "pass", j->check_pass);
      cli_json_end(&js);
    }
    cli_json_end(&js);
  } else {
    printf("gcoo_dist spdm: %s (%s, %s %s) on %d rank%s, backend %s%s\n",
           ds ? "C = B S" : "Y = A X", ds ? "dense-sparse" : "sparse-dense",
           j->dtype == GCOO_FLOAT64 ? "float64" : "float32", j->dtype_source, size,
           size > 1 ? "s" : "", gcoo_ctx_backend(gcoo_dist_ctx(j->d)), di.nccl ? " + NCCL" : "");
    for (int r = 0; r < size && r < 8; r++) printf("  rank %d: %s\n", r, cli_devices_at(all, r));
    if (size > 8) printf("  ... (%d more ranks)\n", size - 8);
    printf("  %s: %s, %lld x %lld, nnz %lld, nnz imbalance %.3f\n", ds ? "S" : "A", j->a_desc,
           (long long)(ds ? j->k : j->m), (long long)(ds ? j->m : j->k), (long long)j->nnz,
           oi.imbalance);
    printf("  %s: %s, %lld x %lld, %s", ds ? "B" : "X", j->b_desc, (long long)(ds ? j->N : j->k),
           (long long)(ds ? j->k : j->N),
           oi.xmode == GCOO_DIST_X_PARTITIONED ? "partitioned" : "replicated on every rank");
    if (oi.xmode == GCOO_DIST_X_PARTITIONED)
      printf(" (halo: %lld rows = %.3f MB per product)", (long long)hsum, halo_mb);
    printf("\n  algorithm %s, p = %d%s\n", algname, p,
           j->math == GCOO_MATH_TF32 ? ", math tf32 (tensor cores allowed)" : "");
    printf("  time: read %.3f s, setup %.3f s, dense operand %.3f s", j->t_read, j->t_setup,
           j->t_x);
    if (j->t_bind > 0.0005) printf(", waiting for the GPU after the read %.3f s", j->t_bind);
    if (j->on_device) printf(", upload %.3f s", j->t_h2d);
    printf("\n        product %.3f ms (median of %d, min %.3f ms, %.2f GFLOP/s)", 1e3 * j->t_kernel,
           j->repeat, 1e3 * j->t_kernel_min, gflops);
    if (j->gather != GATHER_NONE)
      printf(", gather %.3f ms (median; first %.3f ms)", 1e3 * j->t_gather,
             1e3 * j->t_gather_first);
    if (j->overlap > 0 && j->gather == GATHER_ROOT)
      printf(", product + gather overlapped in %d blocks %.3f ms (median; first %.3f ms)",
             j->overlap, 1e3 * j->t_overlap, 1e3 * j->t_overlap_first);
    if (j->out) printf(", write %.3f s", j->t_write);
    printf(", total %.3f s\n", j->t_total);
    if (j->out && j->check_failed)
      printf("  not written: %s (the check failed)\n", j->out);
    else if (j->out)
      printf("  wrote %s%s\n", j->out,
             !ds ? " (Y, m x N)"
             : cli_file_kind_of(j->out) == CLI_FILE_MTX
                 ? " (C, N x m)"
                 : " (C^T, m x N: the column-major C's bytes)");
    if (j->check)
      printf("  check: %lld sampled %s, max error %.3g of %s (tolerance %.3g): %s\n",
             (long long)j->check_rows, ds ? "columns of C" : "rows of Y", j->check_err,
             ds ? "|B||S|" : "|A||X|", j->check_tol, j->check_pass ? "PASS" : "FAIL");
  }
  fflush(stdout);
  free(all);
}
