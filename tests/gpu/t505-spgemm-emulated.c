/* SPDX-License-Identifier: MIT */
/* tests/gpu/t505-spgemm-emulated.c: gcoo's SpGEMM kernels (kernels/spgemm/spgemm_kernels.cuh) on the
 * CPU emulator (tests/common/cuda_emu.h, whose warp barriers model the shuffles and ballots), in the
 * order of the direct recomputation of overflowed rows (GCOO_SPGEMM_RECOMPUTE=direct,
 * docs/spgemm.md): bounds (the column spans it leaves checked against the host's), a pass into rooms made too small on purpose (every bin's kernel: the
 * first bin's 8-lane groups, the warp bins, the block bins hashed and dense, the global bin),
 * relist_kernel's plan of the listed rows on the device, one launch of the global-table kernel,
 * and the layout into C allocated at recompute_cap(). Checked: C equals the CPU yardstick
 * (tests/common/spgemm_check.h: same pattern, sorted columns, ||C - ref|| / ||ref|| <=
 * gcoo_test_tolerance), rows did overflow (so the path ran), no recomputed row overflowed, and
 * nnz(C) <= the bound C was allocated at; float and double, random, power-law, mesh, empty rows
 * and an empty product; rows of more than 32 entries ranked through buckets in the warp bins of
 * 128, 256 and 512 slots and the hashed block bins of 1024 to 16384 slots, and keys crowded into
 * one bucket; the layout's two ways of
 * finding an entry's row (heads, or a search per entry), with empty rows; the sample's plan (rooms
 * at the bound: the first bin takes rows of hi <= 31 at any load). The in-place pass
 * (kernels/spgemm/spgemm_inplace.cuh) on products of rows of hi <= 31: C against the yardstick at
 * capacities that fit and that fall short (then nothing is written past the capacity and the row
 * pointers and nnz are still exact), on one block taking every tile, a few, and a block a tile;
 * and its look-back alone over tiles that have published only their totals (walks of several
 * windows of 32) or a prefix part way. Runs without a GPU (label unit). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/gcoo_kernels.h"
#include "emu/emu_host_csr.h"
#include "spgemm_check.h"

int gcoo_emu_spgemm_direct(const gcoo_cuda_csr *A, const gcoo_cuda_csr *B, double frac, int mode,
                           gcoo_cuda_csr *C, int64_t *stats);
int gcoo_emu_spgemm_inplace(const gcoo_cuda_csr *A, const gcoo_cuda_csr *B, int64_t cap,
                            unsigned grid, gcoo_cuda_csr *C, int64_t *stats);
unsigned long long gcoo_emu_spgemm_lookback(const unsigned long long *value, const int *prefix,
                                            int64_t ntiles, unsigned long long total,
                                            unsigned long long *published);

/* 1: the pass is planned as the sample's (its rooms are bounds: bin_of puts every row of
 * hi <= 31 in the first bin, whatever the load); the cases using it have no row of hi 32..63,
 * so the 64-slot bin must stay empty. */
static int sample_pass = 0;

/* entries of C not after their row's previous one: the kernels write each row's columns sorted
 * and unique (gcoo_sparse_create_csr would sort them, so it cannot be the check) */
static int64_t out_of_column_order(const gcoo_cuda_csr *C) {
  int64_t n = 0;
  for (int64_t i = 0; i < C->nrows; i++)
    for (int64_t q = C->ptr[i] + 1; q < C->ptr[i + 1]; q++) n += C->ind[q - 1] >= C->ind[q];
  return n;
}

/* C = A B on the emulator with rooms lo + frac (hi - lo); checked against the yardstick.
 * want_bins: bins that must have rows (a bit per bin), so that each kernel ran. no_reach: no
 * dense reach (GCOO_SPGEMM_DENSE_REACH=0; the library's default is 1). */
static int64_t check_reach(const char *what, gcoo_sparse A, gcoo_sparse B, double frac,
                           int must_overflow, unsigned want_bins, int no_reach) {
  gcoo_sparse Ac = spgemm_check_csr(A), Bc = spgemm_check_csr(B), C = NULL;
  gcoo_cuda_csr dA = emu_host_csr(Ac), dB = emu_host_csr(Bc), dC;
  int64_t stats[4 + 11];
  memset(&dC, 0, sizeof dC);
  memset(stats, 0, sizeof stats);
  const int rc = gcoo_emu_spgemm_direct(&dA, &dB, frac, (sample_pass ? 2 : 0) | (no_reach ? 8 : 0),
                                        &dC, stats);
  TEST_CHECK(rc != 2, "%s: bounds_kernel's column span (cmin, w) of a row is wrong", what);
  TEST_CHECK(rc == 0 || rc == 2,
             "%s: %lld rows recomputed, %lld of them overflowed again, nnz %lld, bound "
             "%lld (or a row left uncomputed)",
             what, (long long)stats[0], (long long)stats[1], (long long)stats[3],
             (long long)stats[2]);
  if (must_overflow)
    TEST_CHECK(stats[0] > 0, "%s: no row overflowed: the recomputation was not exercised", what);
  for (int b = 0; b < 11; b++)
    if ((want_bins >> b) & 1u)
      TEST_CHECK(stats[4 + b] > 0, "%s: no row in bin %d: its kernel did not run", what, b);
  if (sample_pass)
    TEST_CHECK(stats[4 + 1] == 0, "%s: %lld of the sample's rows took the 64-slot bin", what,
               (long long)stats[4 + 1]);
  if (rc == 0) {
    const int64_t unsorted = out_of_column_order(&dC);
    TEST_CHECK(unsorted == 0, "%s: %lld entries of C out of column order", what,
               (long long)unsorted);
    TEST_CALL(
        gcoo_sparse_create_csr(&C, dC.dtype, dC.nrows, dC.ncols, dC.ptr, dC.ind, dC.values, 0));
    gcoo_sparse_info ai;
    TEST_CALL(gcoo_sparse_get_info(Ac, &ai));
    const double err = spgemm_check(A, B, C, what), tol = gcoo_test_tolerance(ai.dtype, ai.ncols);
    TEST_CHECK(err <= tol, "%s: relative error %.3e > %.3e", what, err, tol);
    unsigned bins = 0;
    for (int b = 0; b < 11; b++) bins |= (stats[4 + b] > 0 ? 1u : 0u) << b;
    printf("%-44s bins 0x%03x, rows recomputed %4lld, nnz %7lld, C allocated at %7lld, error "
           "%.2e\n",
           what, bins, (long long)stats[0], (long long)stats[3], (long long)stats[2], err);
    gcoo_sparse_destroy(&C);
  }
  free(dC.ptr);
  free(dC.ind);
  free(dC.values);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
  return stats[4]; /* rows in the first bin */
}

/* The in-place pass on A B (every row of hi <= 31): at a capacity that fits (the FLOP bound),
 * on grids of 1, 3 and a block a tile, C checked against the yardstick; then at half of nnz,
 * where nothing may be written past the capacity and the row pointers must be the same. */
static void check_inplace(const char *what, gcoo_sparse A, gcoo_sparse B) {
  gcoo_sparse Ac = spgemm_check_csr(A), Bc = spgemm_check_csr(B);
  gcoo_cuda_csr dA = emu_host_csr(Ac), dB = emu_host_csr(Bc);
  int64_t flop = 0;
  for (int64_t i = 0; i < dA.nrows; i++)
    for (int64_t a = dA.ptr[i]; a < dA.ptr[i + 1]; a++)
      flop += dB.ptr[dA.ind[a] + 1] - dB.ptr[dA.ind[a]];
  const int64_t tiles = (dA.nrows + 31) / 32;
  const unsigned grids[3] = {1u, 3u, (unsigned)(tiles > 0 ? tiles : 1)};
  int64_t *ptr0 = NULL, nnz0 = -1;
  for (int k = 0; k < 4; k++) {
    gcoo_cuda_csr dC;
    int64_t stats[4] = {0, 0, 0, 0};
    memset(&dC, 0, sizeof dC);
    const int64_t cap = k < 3 ? flop : nnz0 / 2;
    const unsigned grid = k < 3 ? grids[k] : 2u;
    const int rc = gcoo_emu_spgemm_inplace(&dA, &dB, cap, grid, &dC, stats);
    TEST_CHECK(rc == 0, "%s: hi_max %lld: not a product of rows of hi <= 31", what,
               (long long)stats[0]);
    TEST_CHECK(stats[3] == 0, "%s: %lld rows filled their tables", what, (long long)stats[3]);
    TEST_CHECK(stats[2] == 0, "%s, capacity %lld: %lld entries written past it", what,
               (long long)cap, (long long)stats[2]);
    if (rc == 0 && k < 3) {
      const int64_t unsorted = out_of_column_order(&dC);
      TEST_CHECK(unsorted == 0, "%s: %lld entries of C out of column order", what,
                 (long long)unsorted);
      gcoo_sparse C = NULL;
      TEST_CALL(
          gcoo_sparse_create_csr(&C, dC.dtype, dC.nrows, dC.ncols, dC.ptr, dC.ind, dC.values, 0));
      gcoo_sparse_info ai;
      TEST_CALL(gcoo_sparse_get_info(Ac, &ai));
      const double err = spgemm_check(A, B, C, what), tol = gcoo_test_tolerance(ai.dtype, ai.ncols);
      TEST_CHECK(err <= tol, "%s, grid %u: relative error %.3e > %.3e", what, grid, err, tol);
      if (k == 0)
        printf("%-44s in place, hi_max %2lld, nnz %7lld, %lld tiles, error %.2e\n", what,
               (long long)stats[0], (long long)dC.nnz, (long long)tiles, err);
      gcoo_sparse_destroy(&C);
    }
    if (rc == 0 && k == 0) {
      nnz0 = dC.nnz;
      ptr0 = malloc((size_t)(dC.nrows + 1) * sizeof *ptr0);
      memcpy(ptr0, dC.ptr, (size_t)(dC.nrows + 1) * sizeof *ptr0);
    } else if (rc == 0 && ptr0) {
      TEST_CHECK(memcmp(ptr0, dC.ptr, (size_t)(dC.nrows + 1) * sizeof *ptr0) == 0,
                 "%s, grid %u, capacity %lld: row pointers differ from the first run's", what, grid,
                 (long long)cap);
    }
    free(dC.ptr);
    free(dC.ind);
    free(dC.values);
  }
  free(ptr0);
  gcoo_sparse_destroy(&Ac);
  gcoo_sparse_destroy(&Bc);
}

/* The look-back alone: 100 tiles of pseudo-random totals, all published as totals but tile 0
 * (three windows of 32 and a part), then with a prefix at tile 60 (the walk stops there). */
static void check_lookback(void) {
  enum { N = 100 };
  unsigned long long value[N], incl[N], x = 99;
  int prefix[N];
  for (int k = 0; k < N; k++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    value[k] = (x >> 40) % 1000u;
    incl[k] = value[k] + (k ? incl[k - 1] : 0);
    prefix[k] = k == 0;
  }
  for (int stop = 0; stop < 2; stop++) {
    unsigned long long published = 0, v[N];
    memcpy(v, value, sizeof v);
    if (stop) { /* tile 60 has found its prefix: its word holds the sum through it */
      prefix[60] = 1;
      v[60] = incl[60];
    }
    const unsigned long long found = gcoo_emu_spgemm_lookback(v, prefix, N, 7, &published);
    TEST_CHECK(found == incl[N - 1] && published == incl[N - 1] + 7,
               "look-back over %d tiles%s: found %llu (want %llu), published %llu (want %llu)", N,
               stop ? " with a prefix at 60" : "", found, incl[N - 1], published, incl[N - 1] + 7);
  }
}

/* A case with the library's dense reach. */
static void check(const char *what, gcoo_sparse A, gcoo_sparse B, double frac, int must_overflow,
                  unsigned want_bins) {
  (void)check_reach(what, A, B, frac, must_overflow, want_bins, 0);
}

static gcoo_sparse transpose(gcoo_sparse A) {
  gcoo_sparse T = NULL;
  TEST_CALL(gcoo_sparse_transpose(&T, A));
  return T;
}

int main(void) {
  const gcoo_dtype types[2] = {GCOO_FLOAT64, GCOO_FLOAT32};
  for (int t = 0; t < 2; t++) {
    const gcoo_dtype dt = types[t];
    const char *ty = dt == GCOO_FLOAT64 ? "double" : "float";
    char what[96];
    /* power-law rows: the first bin and the small warp bins, most rows overflowing */
    gcoo_sparse P = spgemm_check_powerlaw(dt, 300, 3000, 6, 11 + t), Pt = transpose(P);
    snprintf(what, sizeof what, "%s power-law A A^T, rooms at lo", ty);
    check(what, P, Pt, 0.0, 1, 0x3u);
    snprintf(what, sizeof what, "%s power-law A A^T, rooms half-way", ty);
    check(what, P, Pt, 0.5, 1, 0x1u);
    gcoo_sparse_destroy(&Pt);
    gcoo_sparse_destroy(&P);
    /* 16 entries a row (256 products a row of A A^T, as random 400k x 16): the 256- and
     * 512-slot warp bins */
    gcoo_sparse U = spgemm_check_uniform(dt, 400, 400, 16, 7 + t), Ut = transpose(U);
    gcoo_sparse S = spgemm_check_uniform(dt, 200, 200, 16, 17 + t), St = transpose(S);
    snprintf(what, sizeof what, "%s uniform 16 a row A A^T, rooms half-way", ty);
    check(what, S, St, 0.5, 1, 0x8u);
    snprintf(what, sizeof what, "%s uniform 16 a row A A^T, rooms 0.9", ty);
    check(what, S, St, 0.9, 0, 0u);
    /* rows of about 49, 100, 224 and 324 distinct entries at rooms of their bounds: the 128-,
     * 256- and 512-slot warp bins, full to 2/3 */
    {
      const int64_t da[4] = {7, 10, 16, 18}, db[4] = {7, 10, 14, 18};
      for (int c = 0; c < 4; c++) {
        gcoo_sparse X = spgemm_check_uniform(dt, 200, 300, da[c], 31 + c + t),
                    Y = spgemm_check_uniform(dt, 300, 5000, db[c], 41 + c + t);
        snprintf(what, sizeof what, "%s uniform %lld x %lld products a row", ty, (long long)da[c],
                 (long long)db[c]);
        check(what, X, Y, 1.0, 0, 0u);
        gcoo_sparse_destroy(&X);
        gcoo_sparse_destroy(&Y);
      }
    }
    gcoo_sparse_destroy(&St);
    gcoo_sparse_destroy(&S);
    snprintf(what, sizeof what, "%s uniform 16 a row A A^T, rooms 0.7", ty);
    check(what, U, Ut, 0.7, 1, 0x10u);
    gcoo_sparse_destroy(&Ut);
    gcoo_sparse_destroy(&U);
    /* long B rows over 2000 columns: a dense block accumulator (rows past 2048 products skip
     * the warp bins; the room does not fit the hashed 2048 slots, the span does); over 60000
     * columns: the hashed block bins, and the global bin */
    gcoo_sparse A4 = spgemm_check_uniform(dt, 24, 60, 4, 3 + t),
                A8 = spgemm_check_uniform(dt, 24, 60, 8, 3 + t);
    gcoo_sparse Bn = spgemm_check_uniform(dt, 60, 2000, 300, 5 + t);
    snprintf(what, sizeof what, "%s narrow long rows (dense bin)", ty);
    check(what, A8, Bn, 0.9, 0, 0x40u);
    { /* B's rows: 300 distinct columns of [0, 1200), one in each run of 4 (no repeats to sum,
       * so a row of A with 7 or 8 distinct entries has a FLOP bound of 2100 or 2400: past 2048,
       * no warp bin), C's rows spanning about 1200 of 4000 columns, rooms at lo: with the
       * default dense reach of 1 bin accumulated densely in the 2048-slot bin (bounds >= 1.5
       * spans), where they pass their rooms and are listed with their sizes; with
       * GCOO_SPGEMM_DENSE_REACH=0 (bit 3 of the mode) hashed in the 1024-slot bin. (Columns
       * drawn from [0, 1500) with repeats summed left bounds near 2176 < 1.5 spans: a seed's
       * luck which bin took them.) */
      const int64_t k = 60 * 300;
      int32_t *r = malloc((size_t)k * sizeof *r), *c = malloc((size_t)k * sizeof *c);
      double *v = malloc((size_t)k * sizeof *v);
      uint64_t x = 91 + (uint64_t)t;
      for (int64_t q = 0; q < k; q++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        r[q] = (int32_t)(q / 300);
        c[q] = (int32_t)((q % 300) * 4 + (int64_t)((x >> 33) % 4u));
        v[q] = (double)((x >> 11) & 1023) / 512.0 - 1.0;
      }
      gcoo_sparse Bb = spgemm_check_from_coo(dt, 60, 4000, k, r, c, v);
      snprintf(what, sizeof what, "%s banded long rows, rooms at lo", ty);
      check_reach(what, A8, Bb, 0.0, 1, 0x40u, 0);
      snprintf(what, sizeof what, "%s banded long rows, rooms at lo, no dense reach", ty);
      check_reach(what, A8, Bb, 0.0, 1, 0x20u, 1);
      gcoo_sparse_destroy(&Bb);
    }
    gcoo_sparse_destroy(&A8);
    gcoo_sparse A40 = spgemm_check_uniform(dt, 6, 60, 40, 9 + t),
                Bw = spgemm_check_uniform(dt, 60, 60000, 400, 13 + t);
    snprintf(what, sizeof what, "%s wide long rows, rooms at lo", ty);
    check(what, A4, Bw, 0.0, 1, 0x20u);
    snprintf(what, sizeof what, "%s wide long rows, rooms 0.9 (global)", ty);
    check(what, A40, Bw, 0.9, 0, 0x400u);
    /* hashed block-bin rows that fit their rooms (rooms at the bound): ~600 entries in 1024
     * slots (128 threads), ~1600 in 4096 (512), ~9200 in 16384 (1024: two counters a thread) */
    {
      gcoo_sparse A2 = spgemm_check_uniform(dt, 8, 60, 2, 19 + t),
                  A25 = spgemm_check_uniform(dt, 2, 60, 25, 23 + t),
                  B3 = spgemm_check_uniform(dt, 60, 60000, 300, 29 + t);
      snprintf(what, sizeof what, "%s block bin 1024 slots", ty);
      check(what, A2, B3, 1.0, 0, 0x20u);
      snprintf(what, sizeof what, "%s block bin 4096 slots", ty);
      check(what, A4, Bw, 1.0, 0, 0x80u);
      snprintf(what, sizeof what, "%s block bin 16384 slots", ty);
      check(what, A25, Bw, 1.0, 0, 0x200u);
      gcoo_sparse_destroy(&A2);
      gcoo_sparse_destroy(&A25);
      gcoo_sparse_destroy(&B3);
    }
    /* keys crowded into one bucket: B's rows take 14 columns of [0, 400) and column 59999, so
     * a row of C spans 60000 columns but all its keys but one fall in its first bucket */
    {
      const int64_t m = 300, d = 15, k = m * d;
      int32_t *r = malloc((size_t)k * sizeof *r), *c = malloc((size_t)k * sizeof *c);
      double *v = malloc((size_t)k * sizeof *v);
      uint64_t x = 77 + (uint64_t)t;
      for (int64_t q = 0; q < k; q++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        r[q] = (int32_t)(q / d);
        c[q] = q % d == d - 1 ? 59999 : (int32_t)((x >> 33) % 400u);
        v[q] = (double)((x >> 11) & 1023) / 512.0 - 1.0;
      }
      gcoo_sparse Bc = spgemm_check_from_coo(dt, m, 60000, k, r, c, v),
                  Ac = spgemm_check_uniform(dt, 100, m, 16, 37 + t);
      snprintf(what, sizeof what, "%s keys crowded into one bucket", ty);
      check(what, Ac, Bc, 1.0, 0, 0x10u);
      gcoo_sparse_destroy(&Ac);
      gcoo_sparse_destroy(&Bc);
    }
    gcoo_sparse_destroy(&A4);
    gcoo_sparse_destroy(&A40);
    gcoo_sparse_destroy(&Bn);
    gcoo_sparse_destroy(&Bw);
    /* a mesh (the first bin's rows, known sizes included) */
    gcoo_sparse L = spgemm_check_laplacian(dt, 12, 9);
    snprintf(what, sizeof what, "%s Laplacian 12 x 9 squared", ty);
    check(what, L, L, 0.0, 1, 0x1u);
    /* no row overflows: the direct path's plan on an empty list */
    snprintf(what, sizeof what, "%s Laplacian, rooms at the bound", ty);
    check(what, L, L, 1.0, 0, 0x1u);
    /* the sample's pass: rooms at the bound hi, not a size, so the first bin takes every row of
     * hi <= 31 (the 2/3-load rule sent the Laplacian's rows of 25 products, 13 entries, to the
     * 64-slot bin); and 30 products into 4000 columns, nearly all distinct: ~30 keys in the 32
     * slots of a group's table */
    sample_pass = 1;
    snprintf(what, sizeof what, "%s Laplacian, the sample's plan", ty);
    check(what, L, L, 1.0, 0, 0x1u);
    gcoo_sparse A5 = spgemm_check_uniform(dt, 300, 300, 5, 71 + t),
                B6 = spgemm_check_uniform(dt, 300, 4000, 6, 73 + t);
    snprintf(what, sizeof what, "%s 5 x 6 a row, the sample's plan", ty);
    check(what, A5, B6, 1.0, 0, 0x1u);
    sample_pass = 0;
    snprintf(what, sizeof what, "%s 5 x 6 a row, rooms at the bound", ty);
    check(what, A5, B6, 1.0, 0, 0x2u); /* the same rows by the 2/3-load rule: the 64-slot bin */
    /* the in-place pass (check_inplace) on the products of rows of hi <= 31 of this test: the
     * 12 x 9 and 40 x 30 meshes (4 and 38 tiles), 30 products of 4000 columns a row, one entry
     * a row (94 tiles), an empty product */
    snprintf(what, sizeof what, "%s Laplacian 12 x 9 squared", ty);
    check_inplace(what, L, L);
    snprintf(what, sizeof what, "%s 5 x 6 a row", ty);
    check_inplace(what, A5, B6);
    gcoo_sparse_destroy(&A5);
    gcoo_sparse_destroy(&B6);
    gcoo_sparse_destroy(&L);
    /* the layout (compact_rows): a larger mesh (a block's rows found by their heads, several
     * warps' slices, rows across rounds); one entry a row (more rows than a block keeps: each
     * entry searches rowptr); three rows in four empty (heads of non-empty rows only) */
    gcoo_sparse L2 = spgemm_check_laplacian(dt, 40, 30);
    snprintf(what, sizeof what, "%s Laplacian 40 x 30 squared", ty);
    check(what, L2, L2, 1.0, 0, 0x1u);
    check_inplace(what, L2, L2);
    gcoo_sparse_destroy(&L2);
    gcoo_sparse D1 = spgemm_check_uniform(dt, 3000, 3000, 1, 51 + t);
    snprintf(what, sizeof what, "%s one entry a row", ty);
    check(what, D1, D1, 1.0, 0, 0x1u);
    check_inplace(what, D1, D1);
    gcoo_sparse_destroy(&D1);
    gcoo_sparse Pe = spgemm_check_powerlaw(dt, 4000, 4000, 1, 61 + t), Pet = transpose(Pe);
    snprintf(what, sizeof what, "%s power-law, most rows empty, A A^T", ty);
    check(what, Pe, Pet, 1.0, 0, 0u);
    gcoo_sparse_destroy(&Pet);
    gcoo_sparse_destroy(&Pe);
    { /* one row in four empty among rows of ~24 entries: heads with empty rows between them */
      const int64_t m = 2000, d = 6;
      int32_t *r = malloc((size_t)(m * d) * sizeof *r), *c = malloc((size_t)(m * d) * sizeof *c);
      double *v = malloc((size_t)(m * d) * sizeof *v);
      int64_t k = 0;
      uint64_t x = 83 + (uint64_t)t;
      for (int64_t i = 0; i < m; i++)
        for (int64_t e = 0; i % 4 != 0 && e < d; e++, k++) {
          x = x * 6364136223846793005ull + 1442695040888963407ull;
          r[k] = (int32_t)i;
          c[k] = (int32_t)((x >> 33) % (uint64_t)m);
          v[k] = (double)((x >> 11) & 1023) / 512.0 - 1.0;
        }
      gcoo_sparse Ae = spgemm_check_from_coo(dt, m, m, k, r, c, v),
                  Be = spgemm_check_uniform(dt, m, 3000, 4, 87 + t);
      snprintf(what, sizeof what, "%s a row in four empty", ty);
      check(what, Ae, Be, 1.0, 0, 0u);
      gcoo_sparse_destroy(&Ae);
      gcoo_sparse_destroy(&Be);
    }
    /* empty rows only: an empty product */
    gcoo_sparse E = spgemm_check_powerlaw(dt, 50, 50, 0, 3);
    snprintf(what, sizeof what, "%s empty", ty);
    check(what, E, E, 0.0, 0, 0u);
    snprintf(what, sizeof what, "%s empty", ty);
    check_inplace(what, E, E);
    gcoo_sparse_destroy(&E);
  }
  check_lookback();
  return gcoo_test_finish("t505-spgemm-emulated");
}
