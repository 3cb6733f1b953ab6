/* SPDX-License-Identifier: MIT */
/* bench/predict_rooms.c: how well the default prediction's per-row sizes serve as the rooms of
 * the GPU SpGEMM (room = min(FLOP bound, ceil(safety x predicted))): for A*A and A*A^T of each
 * file and several safety factors, the share of rows (and of the FLOP) that outgrow their room
 * and would be recomputed, and the space reserved over nnz(C). CPU only.
 * usage: predict_rooms file.mtx[.gz] ... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcoo/gcoo.h"

int main(int argc, char **argv) {
  const double safeties[] = {1.0, 1.25, 1.5, 2.0};
  printf("%-28s %-3s %8s", "matrix", "op", "pred%");
  for (int s = 0; s < 4; s++) printf(" | safety %.2f: rows%% FLOP%% room/nnz", safeties[s]);
  printf("\n");
  for (int f = 1; f < argc; f++) {
    gcoo_sparse A = NULL, At = NULL;
    if (gcoo_mtx_read(argv[f], GCOO_FLOAT64, 0, &A) < 0 || gcoo_sparse_transpose(&At, A) < 0) {
      fprintf(stderr, "predict_rooms: %s: %s\n", argv[f], gcoo_last_error());
      return 1;
    }
    const char *name = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
    for (int p = 0; p < 2; p++) {
      gcoo_sparse B = p ? At : A;
      gcoo_sparse_info ai, bi;
      gcoo_sparse_get_info(A, &ai);
      gcoo_sparse_get_info(B, &bi);
      if (ai.ncols != bi.nrows) continue;
      gcoo_predict_options o = GCOO_PREDICT_OPTIONS_INIT;
      gcoo_prediction pr;
      int64_t Z = 0, *z = malloc(sizeof *z * (size_t)(ai.nrows + 1));
      o.want_row_nnz = o.want_row_flop = 1;
      if (gcoo_predict(A, B, &o, &pr) < 0 || gcoo_spgemm_nnz_exact(A, B, &Z, z) < 0) {
        fprintf(stderr, "predict_rooms: %s: %s\n", name, gcoo_last_error());
        return 1;
      }
      printf("%-28.28s %-3s %+8.2f", name, p ? "AAt" : "AA",
             100.0 * (double)(pr.nnz_predicted - Z) / (double)Z);
      for (int s = 0; s < 4; s++) {
        int64_t rows = 0, fl = 0, room_sum = 0;
        for (int64_t i = 0; i < ai.nrows; i++) {
          const int64_t hi = pr.row_flop[i] < bi.ncols ? pr.row_flop[i] : bi.ncols;
          int64_t room = (int64_t)ceil(safeties[s] * (double)pr.row_nnz[i]);
          if (room > hi) room = hi;
          room_sum += room;
          if (z[i] > room) {
            rows++;
            fl += pr.row_flop[i];
          }
        }
        printf(" | %19.1f %5.1f %8.2f", 100.0 * (double)rows / (double)ai.nrows,
               100.0 * (double)fl / (double)pr.flop_total, (double)room_sum / (double)Z);
      }
      printf("\n");
      free(z);
      gcoo_prediction_free(&pr);
    }
    gcoo_sparse_destroy(&A);
    gcoo_sparse_destroy(&At);
  }
  return 0;
}
