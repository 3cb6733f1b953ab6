/* SPDX-License-Identifier: MIT */
/* tests/gpu/t309-kernels-emulated.c: gcoo's own CUDA kernels run on the CPU emulator
 * (tests/common/cuda_emu.h): every block's threads as host threads meeting at real barriers, host
 * memory as device memory. Runs without a GPU (label unit), so the kernels' indexing, tails,
 * chunking and barriers are checked on every machine, against the CPU reference and the CPU
 * conversions, before a GPU ever runs them. What it cannot check (warp timing, races the barrier
 * does not order) is left to tests/gpu with compute-sanitizer.
 *
 * Checked: CSR -> GCOO and dense -> GCOO equal the CPU's arrays exactly; reuse statistics equal
 * a CPU count; CSR -> dense; the faithful kernel (p <= 32) and every tuned variant against
 * gcoo_spdm_reference (||Y - ref|| / ||ref|| <= gcoo_test_tolerance(dtype, longest row)), with
 * Y poisoned with NaN for beta = 0, odd N (1, 3, 33, 70), padded and misaligned X and Y, empty
 * groups and rows, nnz = 0, 1 x 1, a single row, a single column, p in {1, 3, 4, 32, 128, 1000},
 * float and double. The row-split layout is checked entry by entry (every entry in exactly one
 * item, long rows' partials on their workspace rows), and its kernel on power-law rows with
 * pieces of 3 and 7 entries, several column passes and beta over NaN. The tensor-core mode
 * (float): its TF32 tiles entry by entry and its kernel against its stated per-element error
 * bound (gt_tc_bound_ratio <= 1), on random, wide, power-law, empty and one-column matrices. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"
#include "emu_rename.h"
#include "common/gcoo_kernels.h"
#include "emu/emu_host_csr.h"

static gcoo_cuda_devinfo fake_device(void) {
  gcoo_cuda_devinfo d;
  memset(&d, 0, sizeof d);
  d.sm_count = 4;
  d.max_threads_per_sm = 2048;
  d.smem_per_sm = 228 * 1024;
  d.smem_per_block_optin = 227 * 1024;
  d.l2_bytes = 1 << 20;
  return d;
}

/* Y = alpha A X + beta Y by the CPU reference into a copy of Y0. */
static gcoo_dense reference(gcoo_sparse A, double alpha, const gcoo_dense *X, double beta,
                            const gcoo_dense *Y0) {
  gcoo_dense R = gcoo_test_copy(Y0);
  TEST_CALL(gcoo_spdm_reference(alpha, A, X, beta, &R));
  return R;
}

static void check_conversions(gcoo_sparse A, int32_t p, const char *name) {
  char what[160];
  gcoo_cuda_csr d = emu_host_csr(A);
  gcoo_sparse cpu = gt_cpu_gcoo_of_transpose(A, p);
  gcoo_cuda_gcoo S;
  snprintf(what, sizeof what, "%s p=%d csr->gcoo", name, p);
  TEST_CALL(gcoo_cuda_csr_to_gcoo(&d, p, &S, NULL));
  gt_check_gcoo_equal(what, cpu, S.gidx, S.gnnz, S.rows, S.cols, S.values);
  gcoo_cuda_gcoo_free(&S);

  /* dense -> GCOO from A densified row-major with a padded leading dimension */
  gcoo_dense D;
  TEST_CALL(gcoo_dense_create(&D, d.dtype, GCOO_ROW_MAJOR, d.nrows, d.ncols + 3));
  D.ncols = d.ncols;
  TEST_CALL(gcoo_sparse_to_dense(A, &D));
  snprintf(what, sizeof what, "%s p=%d dense->gcoo", name, p);
  TEST_CALL(gcoo_cuda_dense_to_gcoo(d.dtype, d.nrows, d.ncols, D.data, D.ld, p, &S, NULL));
  gt_check_gcoo_equal(what, cpu, S.gidx, S.gnnz, S.rows, S.cols, S.values);
  gcoo_cuda_gcoo_free(&S);

  /* CSR -> dense equals the CPU densification */
  gcoo_dense E;
  TEST_CALL(gcoo_dense_create(&E, d.dtype, GCOO_ROW_MAJOR, d.nrows, d.ncols + 3));
  E.ncols = d.ncols;
  TEST_CALL(gcoo_dense_fill(&E, NAN));
  TEST_CALL(gcoo_cuda_csr_to_dense(&d, E.data, E.ld, NULL));
  TEST_CHECK(gcoo_test_relerr(&E, &D) == 0.0, "%s: csr->dense differs", name);
  gcoo_dense_destroy(&E);
  gcoo_dense_destroy(&D);
  gcoo_sparse_destroy(&cpu);
}

static void check_stats(gcoo_sparse A, const char *name) {
  gcoo_cuda_csr d = emu_host_csr(A);
  int64_t dist[11];
  TEST_CALL(gcoo_cuda_reuse_stats(&d, 11, dist, NULL));
  for (int i = 0; i < 11; i++) {
    int64_t want = d.nnz ? gt_cpu_distinct(A, (int64_t)1 << i) : 0;
    TEST_CHECK(dist[i] == want, "%s: distinct pairs at p = %d: %lld, CPU %lld", name, 1 << i,
               (long long)dist[i], (long long)want);
  }
}

/* Most parts any resident launch cut its slices into (the tall matrix must need several). */
static int max_splits_seen = 0;

/* The resident layout against A: every row appears once in perm; its lane holds the row's
 * entries (in some order) and padding {0, a column in k .. k+7}; slices are sorted by length,
 * longest first; at every step the 8 lanes of each quarter-warp read columns that differ mod 8
 * (the bank-conflict-free schedule), the padding step past the end included; the split points
 * are monotone and cover every slice. */
static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void check_resident_layout(gcoo_sparse A, const gcoo_cuda_tuned *L, const char *name) {
  gcoo_sparse_arrays a;
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  const gcoo_cuda_xres *R = &L->xres;
  const int f32 = ai.dtype == GCOO_FLOAT32;
  const int64_t k = ai.ncols;
#define XVAL(i) (f32 ? (double)((const float *)R->values)[i] : ((const double *)R->values)[i])
#define AVAL(i) (f32 ? (double)((const float *)a.values)[i] : ((const double *)a.values)[i])
  TEST_CHECK(R->nslices == (ai.nrows + 31) / 32, "%s: %lld slices", name, (long long)R->nslices);
  char *seen = calloc((size_t)ai.nrows + 1, 1);
  int64_t prev_len = INT64_MAX;
  for (int64_t s = 0; s <= R->nslices; s++) {
    const int64_t w = s < R->nslices ? (R->off[s + 1] - R->off[s]) / 32 : 1; /* + the tail step */
    if (s < R->nslices)
      TEST_CHECK((R->off[s + 1] - R->off[s]) % 32 == 0, "%s: slice %lld size", name, (long long)s);
    for (int64_t j = 0; j < w; j++)
      for (int q = 0; q < 4; q++) {
        unsigned seen_res = 0;
        for (int r = 8 * q; r < 8 * q + 8; r++) {
          const int res = R->cols[R->off[s] + 32 * j + r] & 7;
          TEST_CHECK(!((seen_res >> res) & 1),
                     "%s: slice %lld step %lld quarter %d: residue %d twice", name, (long long)s,
                     (long long)j, q, res);
          seen_res |= 1u << res;
        }
      }
    if (s == R->nslices) break;
    for (int r = 0; r < 32; r++) {
      const int32_t row = R->perm[32 * s + r];
      if (32 * s + r >= ai.nrows) {
        TEST_CHECK(row == -1, "%s: padding lane %lld holds row %d", name, (long long)(32 * s + r),
                   row);
        continue;
      }
      TEST_CHECK(row >= 0 && row < ai.nrows && !seen[row], "%s: lane %lld row %d", name,
                 (long long)(32 * s + r), row);
      if (row < 0 || row >= ai.nrows) continue;
      seen[row] = 1;
      const int64_t b = a.ptr[row], len = a.ptr[row + 1] - b;
      TEST_CHECK(len <= prev_len, "%s: row %d (%lld entries) after a shorter one", name, row,
                 (long long)len);
      prev_len = len;
      /* the lane's real entries, as (column, position) keys, against the row's */
      int64_t *got = malloc((size_t)(w + 1) * sizeof *got),
              *want = malloc((size_t)(len + 1) * sizeof *want);
      int64_t ng = 0;
      for (int64_t j = 0; j < w; j++) {
        const int64_t e = R->off[s] + 32 * j + r;
        if (R->cols[e] >= k) {
          TEST_CHECK(R->cols[e] < k + 8 && XVAL(e) == 0.0, "%s: row %d padding (%d, %g)", name, row,
                     R->cols[e], XVAL(e));
          continue;
        }
        /* the value must be the row's value at that column (columns are unique in a row) */
        int64_t at = -1;
        for (int64_t t = 0; t < len; t++)
          if (a.ind[b + t] == R->cols[e]) at = t;
        TEST_CHECK(at >= 0 && XVAL(e) == AVAL(b + at), "%s: row %d column %d: value %g", name, row,
                   R->cols[e], XVAL(e));
        got[ng++] = R->cols[e];
      }
      for (int64_t t = 0; t < len; t++) want[t] = a.ind[b + t];
      qsort(got, (size_t)ng, sizeof *got, cmp_i64);
      qsort(want, (size_t)len, sizeof *want, cmp_i64);
      TEST_CHECK(ng == len && (len == 0 || !memcmp(got, want, (size_t)len * sizeof *got)),
                 "%s: row %d: %lld of %lld entries in its lane", name, row, (long long)ng,
                 (long long)len);
      free(got);
      free(want);
    }
  }
#undef XVAL
#undef AVAL
  for (int R2 = 1; R2 <= GCOO_XRES_MAX_SPLITS; R2 *= 2) {
    const int64_t *sp = R->splits + gcoo_cuda_xres_split_base(R2);
    TEST_CHECK(sp[0] == 0 && sp[R2] == R->nslices, "%s: splits for %d parts %lld .. %lld", name, R2,
               (long long)sp[0], (long long)sp[R2]);
    for (int i = 0; i < R2; i++)
      TEST_CHECK(sp[i] <= sp[i + 1], "%s: split %d of %d not monotone", name, i, R2);
  }
  free(seen);
}

static int max_split_passes_seen = 0;
static int batched_seen = 0; /* products the batched kernel ran through the shape trial's choice */
static int split_batched_seen = 0; /* row-split products on batched_sum (the 16-byte path) */

/* The row-split layout against A: items in row order covering every entry exactly once, each
 * at most `piece` long, whole rows with slot -1, long rows' items on consecutive workspace rows
 * that long_ptr points at. */
static void check_split_layout(gcoo_sparse A, const gcoo_cuda_tuned *L, const char *name) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  const gcoo_cuda_split *P = &L->split;
  int64_t it = 0, nlong = 0, slot = 0, bad = 0;
  for (int64_t i = 0; i < ai.nrows; i++) {
    const int64_t len = a.ptr[i + 1] - a.ptr[i];
    const int is_long = len > P->piece;
    const int64_t n = is_long ? (len + P->piece - 1) / P->piece : 1;
    if (is_long) {
      bad += nlong >= P->nlong || P->long_row[nlong] != i || P->long_ptr[nlong] != slot;
      nlong++;
    }
    for (int64_t q = 0; q < n; q++, it++) {
      if (it >= P->nitems) {
        bad++;
        continue;
      }
      bad += P->item_row[it] != i || P->item_begin[it] != a.ptr[i] + q * P->piece ||
             P->item_slot[it] != (is_long ? slot + q : -1);
    }
    if (is_long) slot += n;
  }
  TEST_CHECK(bad == 0 && it == P->nitems && nlong == P->nlong && slot == P->nwork &&
                 (P->nlong == 0 || P->long_ptr[P->nlong] == P->nwork) && P->work_cols % 128 == 0,
             "%s: row-split layout (piece %d: %lld items, %lld long rows, %lld workspace rows, "
             "%lld differences)",
             name, P->piece, (long long)P->nitems, (long long)P->nlong, (long long)P->nwork,
             (long long)bad);
}

/* The row-split items longest first: a permutation of the items, their lengths (at most a
 * piece) not increasing, items of equal length in the layout's order (the sort is stable). */
static int split_ordered_seen = 0;
static void check_split_order(gcoo_sparse A, const gcoo_cuda_tuned *L, const char *name) {
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  const gcoo_cuda_split *P = &L->split;
  char *seen = calloc((size_t)P->nitems + 1, 1);
  int64_t bad = 0, prev_len = INT64_MAX, prev_item = -1;
  for (int64_t r = 0; r < P->nitems; r++) {
    const int64_t it = P->item_order[r];
    if (it < 0 || it >= P->nitems || seen[it]) {
      bad++;
      continue;
    }
    seen[it] = 1;
    const int64_t left = a.ptr[P->item_row[it] + 1] - P->item_begin[it];
    const int64_t len = left < P->piece ? left : P->piece;
    bad += len > prev_len || (len == prev_len && it < prev_item);
    prev_len = len;
    prev_item = it;
  }
  free(seen);
  TEST_CHECK(bad == 0, "%s: row-split items longest first: %lld of %lld out of place", name,
             (long long)bad, (long long)P->nitems);
}

/* The batched kernel's row order against A: a permutation of the rows, lengths not increasing,
 * rows of equal length in A's order (the sort is stable). */
static void check_row_order(gcoo_sparse A, const gcoo_cuda_tuned *L, const char *name) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  char *seen = calloc((size_t)ai.nrows + 1, 1);
  int64_t bad = 0;
  for (int64_t r = 0; r < ai.nrows; r++) {
    const int64_t i = L->row_order[r];
    if (i < 0 || i >= ai.nrows || seen[i]) {
      bad++;
      continue;
    }
    seen[i] = 1;
    if (r > 0) {
      const int64_t h = L->row_order[r - 1];
      const int64_t lh = a.ptr[h + 1] - a.ptr[h], li = a.ptr[i + 1] - a.ptr[i];
      bad += lh < li || (lh == li && h > i);
    }
  }
  TEST_CHECK(bad == 0, "%s: row order (%lld rows out of place)", name, (long long)bad);
  free(seen);
}

/* Variant 0 of L (its shape as L says) on Y reset from Y0: ||Y - R|| / ||R||, the launch in *sh. */
static double run_variant0(const gcoo_cuda_tuned *L, const gcoo_cuda_devinfo *dev, double alpha,
                           const gcoo_dense *X, double beta, gcoo_dense *Y, const gcoo_dense *Y0,
                           const gcoo_dense *R, gcoo_cuda_tuned_launch *sh) {
  for (int64_t i = 0; i < Y->nrows; i++)
    for (int64_t j = 0; j < Y->ncols; j++) gcoo_dense_set(Y, i, j, gcoo_dense_get(Y0, i, j));
  TEST_CALL(gcoo_cuda_spdm_tuned(L, 0, dev, alpha, X->data, X->ld, beta, Y->data, Y->ld, Y->ncols,
                                 NULL, sh));
  return gcoo_test_relerr(Y, R);
}

/* Run one product through `kind` (0 faithful, 1 tuned) on the given operands and compare. */
static void check_product(gcoo_sparse A, int32_t p, int64_t N, double alpha, double beta,
                          int64_t xpad, int xoff, int64_t ypad, int yoff, const char *name) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  gcoo_cuda_csr d = emu_host_csr(A);
  gcoo_cuda_devinfo dev = fake_device();
  gcoo_dense X = gt_dense_padded(ai.dtype, ai.ncols, N, N + xpad, xoff, 11);
  gcoo_dense Y0 = gt_dense_padded(ai.dtype, ai.nrows, N, N + ypad, yoff, 12);
  if (beta == 0.0 && ai.nrows * N > 0) TEST_CALL(gcoo_dense_fill(&Y0, NAN));
  gcoo_dense R = reference(A, alpha, &X, beta, &Y0);
  const double tol = gt_tolerance(A);
  gcoo_dense Y = gt_dense_padded(ai.dtype, ai.nrows, N, N + ypad, yoff, 13);

  if (p <= 32) {
    gcoo_cuda_gcoo S;
    TEST_CALL(gcoo_cuda_csr_to_gcoo(&d, p, &S, NULL));
    for (int64_t i = 0; i < ai.nrows; i++)
      for (int64_t j = 0; j < N; j++) gcoo_dense_set(&Y, i, j, gcoo_dense_get(&Y0, i, j));
    TEST_CALL(gcoo_cuda_spdm_faithful(&S, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL));
    double err = gcoo_test_relerr(&Y, &R);
    TEST_CHECK(err <= tol, "%s faithful p=%d N=%lld: relerr %.3g > %.3g", name, p, (long long)N,
               err, tol);
    if (ai.nrows > 0 && N > 0) { /* the launchers' shared entry (spdm_enter) checks Y and ldy */
      TEST_FAILS(gcoo_cuda_spdm_faithful(&S, alpha, X.data, X.ld, beta, Y.data, N - 1, N, NULL),
                 GCOO_ERR_INVALID_ARG, "leading dimensions");
      TEST_FAILS(gcoo_cuda_spdm_faithful(&S, alpha, X.data, X.ld, beta, NULL, Y.ld, N, NULL),
                 GCOO_ERR_NULL, "X or Y");
    }
    gcoo_cuda_gcoo_free(&S);
  }
  gcoo_cuda_tuned L;
  TEST_CALL(gcoo_cuda_tuned_build(&d, p, &L, NULL, NULL));
  TEST_CHECK(L.ndistinct == (ai.nnz ? gt_cpu_distinct(A, p) : 0), "%s: layout distinct %lld", name,
             (long long)L.ndistinct);
  /* the resident variants before their layout exists: a clear refusal */
  if (ai.nrows > 0 && N > 0)
    TEST_FAILS(gcoo_cuda_spdm_resident(&L, 0, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N,
                                       NULL, NULL),
               GCOO_ERR_UNSUPPORTED, "not built");
  TEST_CALL(gcoo_cuda_tuned_build_resident(&d, &L, NULL));
  check_resident_layout(A, &L, name);
  /* the row-split variants before their layout exists: a clear refusal; then the layout with
   * pieces of 3 entries (many long rows) or of the matrix's own length (p odd / even) */
  if (ai.nrows > 0 && N > 0)
    TEST_FAILS(gcoo_cuda_spdm_split(&L, 0, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL,
                                    NULL),
               GCOO_ERR_UNSUPPORTED, "not built");
  TEST_CALL(gcoo_cuda_tuned_build_split(&d, p % 2 ? 3 : 0, N, &L, NULL));
  check_split_layout(A, &L, name);
  TEST_CALL(gcoo_cuda_tuned_build_order(&d, &L, NULL));
  check_row_order(A, &L, name);
  /* the last round: variant 0 resolved to the resident kernel */
  for (int v = 0; v <= gcoo_cuda_tuned_variant_count() + 1; v++) {
    L.prefer_resident = v > gcoo_cuda_tuned_variant_count();
    if (L.prefer_resident) v = 0;
    for (int64_t i = 0; i < ai.nrows; i++)
      for (int64_t j = 0; j < N; j++) gcoo_dense_set(&Y, i, j, gcoo_dense_get(&Y0, i, j));
    gcoo_cuda_tuned_launch sh;
    TEST_CALL(
        gcoo_cuda_spdm_tuned(&L, v, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL, &sh));
    double err = gcoo_test_relerr(&Y, &R);
    TEST_CHECK(err <= tol,
               "%s tuned %s p=%d N=%lld (vpt %d rpt %d threads %d chunk %d passes %d "
               "splits %d): relerr %.3g > %.3g",
               name, gcoo_cuda_tuned_variant_name(sh.variant), p, (long long)N, sh.vpt, sh.rpt,
               sh.threads, sh.chunk, sh.passes, sh.splits, err, tol);
    TEST_CHECK(!L.prefer_resident || ai.nrows == 0 || N == 0 || sh.resident,
               "%s: variant 0 with prefer_resident ran %s", name,
               gcoo_cuda_tuned_variant_name(sh.variant));
    if (sh.resident && sh.splits > max_splits_seen) max_splits_seen = sh.splits;
    if (sh.rowsplit && L.split.nlong > 0 && sh.passes > max_split_passes_seen)
      max_split_passes_seen = sh.passes;
    if (L.prefer_resident) break;
  }
  /* the launchers' shared entry (spdm_enter): a Y row shorter than N, or no Y, refused by each
   * before anything runs (the launch record cleared) */
  if (ai.nrows > 0 && N > 0) {
    gcoo_cuda_tuned_launch sh;
    sh.threads = -1;
    TEST_FAILS(gcoo_cuda_spdm_tuned(&L, 0, &dev, alpha, X.data, X.ld, beta, Y.data, N - 1, N, NULL,
                                    &sh),
               GCOO_ERR_INVALID_ARG, "leading dimensions");
    TEST_CHECK(sh.threads == 0, "%s: a refused launch left its record", name);
    TEST_FAILS(gcoo_cuda_spdm_resident(&L, 0, &dev, alpha, X.data, X.ld, beta, Y.data, N - 1, N,
                                       NULL, NULL),
               GCOO_ERR_INVALID_ARG, "leading dimensions");
    TEST_FAILS(gcoo_cuda_spdm_split(&L, 0, &dev, alpha, X.data, X.ld, beta, NULL, Y.ld, N, NULL,
                                    NULL),
               GCOO_ERR_NULL, "X or Y");
  }
  /* the shape trial's choice: variant 0 at N = shape_n runs the direct kernel in blocks of
   * shape_rows rows (8, 3: a part-filled warp, 32) with shape_vpt vectors a thread; at another N
   * the rules' variant (here the resident one was built, but prefer_resident is off) */
  L.prefer_resident = 0;
  for (int si = 0; si <= 9; si++) {
    static const int32_t rows[] = {8, 3, 32};
    const int other_n = si == 9;
    L.shape_n = other_n ? N + 1 : N;
    L.shape_rows = rows[si % 3];
    L.shape_vpt = 1 << (si / 3 % 3);
    gcoo_cuda_tuned_launch sh;
    const double err = run_variant0(&L, &dev, alpha, &X, beta, &Y, &Y0, &R, &sh);
    TEST_CHECK(err <= tol, "%s shape %d rows x %d vectors (N %s) p=%d N=%lld: relerr %.3g > %.3g",
               name, L.shape_rows, L.shape_vpt, other_n ? "other" : "its", p, (long long)N, err,
               tol);
    if (ai.nrows > 0 && N > 0)
      TEST_CHECK(other_n ? sh.block_rows == p
                         : sh.block_rows == L.shape_rows && sh.vpt == L.shape_vpt && !sh.staged,
                 "%s: shape %d x %d at %s N ran %s in blocks of %d rows, %d vectors", name,
                 L.shape_rows, L.shape_vpt, other_n ? "another" : "its",
                 gcoo_cuda_tuned_variant_name(sh.variant), sh.block_rows, sh.vpt);
  }
  /* the shape trial's batched choice: variant 0 at N = shape_n runs the batched kernel (X
   * aligned and N a multiple of the pack; else the direct kernel in the same shape) */
  for (int si = 0; si < 12; si++) {
    /* each shape in blocks of 16 and 3 rows, in A's order in one and longest first in the other */
    static const int32_t batch[] = {16, 32, 16, 8, 8, 8}, vpt[] = {1, 1, 2, 4, 1, 2},
                         rows[] = {16, 3};
    L.shape_n = N;
    L.shape_batch = batch[si % 6];
    L.shape_vpt = vpt[si % 6];
    L.shape_rows = rows[si / 6];
    L.shape_ordered = (si + si / 6) % 2;
    gcoo_cuda_tuned_launch sh;
    const double err = run_variant0(&L, &dev, alpha, &X, beta, &Y, &Y0, &R, &sh);
    TEST_CHECK(err <= tol,
               "%s batched shape %d rows, batches of %d, %d vectors%s p=%d N=%lld: "
               "relerr %.3g > %.3g",
               name, L.shape_rows, L.shape_batch, L.shape_vpt, L.shape_ordered ? ", ordered" : "",
               p, (long long)N, err, tol);
    const int64_t vec = 16 / (int64_t)gcoo_dtype_size(ai.dtype);
    const int packed = (uintptr_t)X.data % 16 == 0 && X.ld % vec == 0 && N % vec == 0;
    if (ai.nrows > 0 && N > 0)
      TEST_CHECK(sh.batch == (packed ? L.shape_batch : 0) &&
                     (!packed || sh.ordered == L.shape_ordered),
                 "%s: batched shape (batches of %d, ordered %d) ran batches of %d, ordered %d",
                 name, L.shape_batch, L.shape_ordered, sh.batch, sh.ordered);
    if (sh.batch) batched_seen++;
  }
  L.shape_batch = 0;
  L.shape_ordered = 0;
  /* a shape the launcher cannot run: refused, not run */
  L.shape_n = N > 0 ? N : 1;
  L.shape_rows = 8;
  L.shape_vpt = 3;
  TEST_FAILS(gcoo_cuda_spdm_tuned(&L, 0, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL,
                                  NULL),
             GCOO_ERR_INVALID_ARG, "direct shape");
  L.shape_n = 0;
  gcoo_cuda_tuned_free(&L);
  gt_dense_free(&X, xoff);
  gt_dense_free(&Y0, yoff);
  gt_dense_free(&Y, yoff);
  gcoo_dense_destroy(&R);
}

/* Variant 0 with prefer_split set resolves to the row-split kernel; pieces of `piece`. */
static void check_split_product(gcoo_sparse A, int32_t piece, int64_t N, double alpha, double beta,
                                const char *name) {
  gcoo_sparse_info ai;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  gcoo_cuda_csr d = emu_host_csr(A);
  gcoo_cuda_devinfo dev = fake_device();
  gcoo_dense X = gt_dense_padded(ai.dtype, ai.ncols, N, N, 0, 21);
  gcoo_dense Y = gt_dense_padded(ai.dtype, ai.nrows, N, N, 0, 22);
  if (beta == 0.0) TEST_CALL(gcoo_dense_fill(&Y, NAN));
  gcoo_dense R = reference(A, alpha, &X, beta, &Y);
  gcoo_dense Y0 = gcoo_test_copy(&Y);
  gcoo_cuda_tuned L;
  TEST_CALL(gcoo_cuda_tuned_build(&d, 32, &L, NULL, NULL));
  TEST_CALL(gcoo_cuda_tuned_build_split(&d, piece, N, &L, NULL));
  check_split_layout(A, &L, name);
  L.prefer_split = 1;
  /* the items in row order, then longest first (ordered before its order exists: refused) */
  L.split.ordered = 1;
  TEST_FAILS(gcoo_cuda_spdm_tuned(&L, 0, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL,
                                  NULL),
             GCOO_ERR_UNSUPPORTED, "order is not built");
  for (int ordered = 0; ordered <= 1; ordered++) {
    if (ordered) {
      TEST_CALL(gcoo_cuda_tuned_build_split_order(&d, &L, NULL));
      check_split_order(A, &L, name);
      for (int64_t i = 0; i < ai.nrows; i++)
        for (int64_t j = 0; j < N; j++) gcoo_dense_set(&Y, i, j, gcoo_dense_get(&Y0, i, j));
    }
    L.split.ordered = ordered;
    gcoo_cuda_tuned_launch sh;
    TEST_CALL(
        gcoo_cuda_spdm_tuned(&L, 0, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL, &sh));
    const double err = gcoo_test_relerr(&Y, &R), tol = gt_tolerance(A);
    TEST_CHECK(sh.rowsplit && err <= tol,
               "%s: prefer_split ran %s (piece %d, vpt %d, items %s): relerr %.3g > %.3g", name,
               gcoo_cuda_tuned_variant_name(sh.variant), sh.piece, sh.vpt,
               ordered ? "longest first" : "in row order", err, tol);
    if (sh.batch) split_batched_seen++;
    split_ordered_seen += ordered;
  }
  gcoo_dense_destroy(&Y0);
  gcoo_cuda_tuned_free(&L);
  gt_dense_free(&X, 0);
  gt_dense_free(&Y, 0);
  gcoo_dense_destroy(&R);
}

/* TF32 rounding as the kernel does it (nearest, ties away): for the layout check */
static float tf32_round(float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  if ((b & 0x7f800000u) != 0x7f800000u) b = (b + 0x1000u) & 0xffffe000u;
  memcpy(&v, &b, 4);
  return v;
}

/* The tensor-core mode (float): its tiles entry by entry, then its kernel against the stated
 * per-element bound (gt_tc_bound_ratio), Y poisoned with NaN for beta = 0. */
static int tc_checked = 0;
static int tc_reordered = 0;    /* tensor-core cases where the window order had fewer tiles */
static int tc_widths_seen = 0;  /* bit c / 32: a launch with tiles of c columns of Y */
static int tc_ksplits_seen = 0; /* bit s: a launch with s warps a window */
/* Y before a tensor-core product: NaN where beta = 0 (it must not be read), else Y0. */
static void reset_y(gcoo_dense *Y, const gcoo_dense *Y0, double beta) {
  if (beta == 0.0) {
    TEST_CALL(gcoo_dense_fill(Y, NAN));
    return;
  }
  for (int64_t i = 0; i < Y->nrows; i++)
    for (int64_t j = 0; j < Y->ncols; j++) gcoo_dense_set(Y, i, j, gcoo_dense_get(Y0, i, j));
}

static void check_tc_product(gcoo_sparse A, int64_t N, double alpha, double beta, int64_t xpad,
                             int xoff, int64_t ypad, int yoff, int sms, const char *name) {
  gcoo_sparse_info ai;
  gcoo_sparse_arrays a;
  TEST_CALL(gcoo_sparse_get_info(A, &ai));
  TEST_CALL(gcoo_sparse_get_arrays(A, &a));
  gcoo_cuda_csr d = emu_host_csr(A);
  gcoo_cuda_devinfo dev = fake_device();
  dev.sm_count = sms; /* 0: the widest tile N allows (no narrowing for a small grid) */
  gcoo_cuda_tuned L;
  TEST_CALL(gcoo_cuda_tuned_build(&d, 8, &L, NULL, NULL));
  gcoo_cuda_tc T;
  TEST_FAILS(gcoo_cuda_tc_build(&L, &T, NULL), GCOO_ERR_INVALID_ARG, "p = 16");
  gcoo_cuda_tuned_free(&L);
  TEST_CALL(gcoo_cuda_tuned_build(&d, GCOO_TC_ROWS, &L, NULL, NULL));
  TEST_CALL(gcoo_cuda_tc_build(&L, &T, NULL));
  /* layout: ceil(distinct / 8) tiles a window; every entry at (its row, its column's place in
   * the window's list), rounded to TF32; nothing else nonzero */
  int64_t nonzero = 0, placed = 0, bad = 0;
  for (int64_t w = 0; w < T.nwin; w++) {
    const int64_t len = T.uptr[w + 1] - T.uptr[w];
    if (T.tile_off[w + 1] - T.tile_off[w] != (len + GCOO_TC_K - 1) / GCOO_TC_K) bad++;
  }
  for (int64_t t = 0; t < T.ntiles * GCOO_TC_ROWS * GCOO_TC_K; t++) nonzero += T.tiles[t] != 0.0f;
  const float *v = a.values;
  for (int64_t i = 0; i < ai.nrows; i++) {
    const int64_t w = i / GCOO_TC_ROWS;
    for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; e++) {
      int64_t li = -1;
      for (int64_t u = T.uptr[w]; u < T.uptr[w + 1]; u++)
        if (T.ucols[u] == a.ind[e]) li = u - T.uptr[w];
      if (li < 0) {
        bad++;
        continue;
      }
      const float got = T.tiles[(T.tile_off[w] + li / GCOO_TC_K) * GCOO_TC_ROWS * GCOO_TC_K +
                                GCOO_TC_SLOT(i % GCOO_TC_ROWS, li % GCOO_TC_K)];
      if (got != tf32_round(v[e])) bad++;
      placed += v[e] != 0.0f;
    }
  }
  TEST_CHECK(bad == 0 && nonzero == placed,
             "%s: tensor-core tiles: %lld misplaced, %lld nonzero for %lld entries", name,
             (long long)bad, (long long)nonzero, (long long)placed);
  /* the product */
  gcoo_dense X = gt_dense_padded(ai.dtype, ai.ncols, N, N + xpad, xoff, 31);
  gcoo_dense Y0 = gt_dense_padded(ai.dtype, ai.nrows, N, N + ypad, yoff, 32);
  gcoo_dense Y = gt_dense_padded(ai.dtype, ai.nrows, N, N + ypad, yoff, 33);
  /* the launcher's choice of warps a window (0), then 1, 2 and 4 (split-K) forced */
  static const int ksplits[] = {0, 1, 2, 4};
  for (int q = 0; q < 4; q++) {
    T.force_ksplit = ksplits[q];
    reset_y(&Y, &Y0, beta);
    gcoo_cuda_tuned_launch sh;
    TEST_CALL(gcoo_cuda_spdm_tc(&T, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL, &sh));
    double rel = 0;
    const double ratio = gt_tc_bound_ratio(A, alpha, &X, beta, &Y0, &Y, &rel);
    TEST_CHECK(sh.tensor_core && ratio <= 1.0 && (ksplits[q] == 0 || sh.tc_ksplit == ksplits[q]),
               "%s tensor-core N=%lld (tile %d columns, %d warps a window): error %.3g of the "
               "bound (relerr %.3g)",
               name, (long long)N, sh.tile_cols, sh.tc_ksplit, ratio, rel);
    tc_widths_seen |= sh.tile_cols / 32;
    tc_ksplits_seen |= sh.tc_ksplit;
  }
  /* every tile width forced (32, 64 and 128 columns: 4, 8 and 16 mma n-tiles a warp) */
  for (int q = 0; q < 3; q++) {
    T.force_ksplit = 0;
    T.force_cols = 32 << q;
    reset_y(&Y, &Y0, beta);
    gcoo_cuda_tuned_launch sh;
    TEST_CALL(gcoo_cuda_spdm_tc(&T, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL, &sh));
    double rel = 0;
    const double ratio = gt_tc_bound_ratio(A, alpha, &X, beta, &Y0, &Y, &rel);
    const int need = N <= 32 ? 32 : N <= 64 ? 64 : 128; /* a forced width is capped by N's */
    TEST_CHECK(sh.tensor_core && ratio <= 1.0 &&
                   sh.tile_cols == ((32 << q) < need ? 32 << q : need),
               "%s tensor-core N=%lld, tile of %d columns forced (%d ran, %d warps a window): "
               "error %.3g of the bound (relerr %.3g)",
               name, (long long)N, 32 << q, sh.tile_cols, sh.tc_ksplit, ratio, rel);
    tc_widths_seen |= sh.tile_cols / 32;
  }
  T.force_cols = 0;
  /* the same product with A's rows in the tensor-core order (gcoo__tc_row_order): the layout
   * of the reordered rows, each written back to its own row of Y through the row map; the order
   * is a permutation and its tile count the one a recount gives */
  if (ai.nrows > 0) {
    int32_t *order = malloc((size_t)ai.nrows * sizeof *order);
    int64_t *ptr2 = malloc((size_t)(ai.nrows + 1) * sizeof *ptr2);
    int32_t *ind2 = malloc((size_t)(ai.nnz > 0 ? ai.nnz : 1) * sizeof *ind2);
    float *val2 = malloc((size_t)(ai.nnz > 0 ? ai.nnz : 1) * sizeof *val2);
    unsigned char *seen = calloc((size_t)ai.nrows, 1);
    TEST_CHECK(order && ptr2 && ind2 && val2 && seen, "malloc");
    int64_t t_nat = 0, t_ord = 0;
    TEST_CALL(gcoo__tc_row_order(a.ptr, a.ind, ai.nrows, ai.ncols, GCOO_TC_ROWS, GCOO_TC_K, order,
                                 &t_nat, &t_ord));
    int64_t dup = 0;
    ptr2[0] = 0;
    for (int64_t r = 0; r < ai.nrows; r++) {
      const int32_t i = order[r];
      TEST_CHECK(i >= 0 && i < ai.nrows, "%s: order[%lld] = %d", name, (long long)r, i);
      dup += seen[i]++;
      const int64_t len = a.ptr[i + 1] - a.ptr[i];
      memcpy(ind2 + ptr2[r], a.ind + a.ptr[i], (size_t)len * sizeof *ind2);
      memcpy(val2 + ptr2[r], (const float *)a.values + a.ptr[i], (size_t)len * sizeof *val2);
      ptr2[r + 1] = ptr2[r] + len;
    }
    TEST_CHECK(dup == 0, "%s: the tensor-core order repeats %lld rows", name, (long long)dup);
    TEST_CHECK(t_nat == T.ntiles, "%s: %lld tiles counted in A's order, %lld built", name,
               (long long)t_nat, (long long)T.ntiles);
    gcoo_sparse B = NULL;
    TEST_CALL(gcoo_sparse_create_csr(&B, GCOO_FLOAT32, ai.nrows, ai.ncols, ptr2, ind2, val2, 0));
    gcoo_cuda_csr d2 = emu_host_csr(B);
    gcoo_cuda_tuned L2;
    gcoo_cuda_tc T2;
    TEST_CALL(gcoo_cuda_tuned_build(&d2, GCOO_TC_ROWS, &L2, NULL, NULL));
    TEST_CALL(gcoo_cuda_tc_build(&L2, &T2, NULL));
    TEST_CHECK(t_ord == T2.ntiles, "%s: %lld tiles counted in the window order, %lld built", name,
               (long long)t_ord, (long long)T2.ntiles);
    T2.rowmap = order;
    for (int q = 0; q < 4; q++) {
      T2.force_ksplit = ksplits[q];
      reset_y(&Y, &Y0, beta);
      TEST_CALL(
          gcoo_cuda_spdm_tc(&T2, &dev, alpha, X.data, X.ld, beta, Y.data, Y.ld, N, NULL, NULL));
      double rel = 0;
      const double ratio = gt_tc_bound_ratio(A, alpha, &X, beta, &Y0, &Y, &rel);
      TEST_CHECK(ratio <= 1.0,
                 "%s tensor-core, rows reordered (%lld -> %lld tiles), N=%lld, KS %d: error %.3g "
                 "of the bound (relerr %.3g)",
                 name, (long long)t_nat, (long long)t_ord, (long long)N, ksplits[q], ratio, rel);
    }
    T2.rowmap = NULL; /* the test's memory */
    tc_reordered += t_ord < t_nat;
    gcoo_cuda_tc_free(&T2);
    gcoo_cuda_tuned_free(&L2);
    gcoo_sparse_destroy(&B);
    free(order);
    free(ptr2);
    free(ind2);
    free(val2);
    free(seen);
  }
  if (ai.nrows > 0 && N > 0) /* the shared entry's check of ldy (spdm_enter) */
    TEST_FAILS(gcoo_cuda_spdm_tc(&T, &dev, alpha, X.data, X.ld, beta, Y.data, N - 1, N, NULL, NULL),
               GCOO_ERR_INVALID_ARG, "leading dimensions");
  tc_checked++;
  gcoo_cuda_tc_free(&T);
  gcoo_cuda_tuned_free(&L);
  gt_dense_free(&X, xoff);
  gt_dense_free(&Y0, yoff);
  gt_dense_free(&Y, yoff);
}

int main(void) {
  const gcoo_dtype dtypes[2] = {GCOO_FLOAT32, GCOO_FLOAT64};
  for (int t = 0; t < 2; t++) {
    gcoo_dtype dt = dtypes[t];
    char name[96];
    /* a random matrix with empty rows and columns (sparsity 0.9), 45 x 37 */
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 45, 37, 0.9, 100 + t, 0));
    snprintf(name, sizeof name, "random45x37 %s", t ? "f64" : "f32");
    check_stats(A, name);
    const int32_t ps[] = {1, 3, 4, 32, 128, 1000};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) check_conversions(A, ps[i], name);
    check_product(A, 4, 33, 1.5, 0.0, 0, 0, 0, 0, name);
    check_product(A, 3, 70, -0.5, 0.25, 3, 1, 1, 1, name); /* padded, misaligned */
    check_product(A, 1, 1, 1.0, 0.0, 0, 0, 0, 0, name);    /* N = 1 */
    check_product(A, 32, 3, 2.0, -1.0, 0, 0, 2, 0, name);  /* N = 3 */
    check_product(A, 128, 70, 1.0, 0.0, 0, 0, 0, 0, name); /* one group wider than m */
    check_product(A, 1000, 8, 1.0, 0.5, 0, 0, 0, 0, name);
    if (dt == GCOO_FLOAT32) {
      check_tc_product(A, 70, 1.5, 0.0, 0, 0, 0, 0, 0, name);   /* 64 + a tail of 6 */
      check_tc_product(A, 33, -0.5, 0.25, 3, 1, 1, 1, 0, name); /* padded, misaligned */
      check_tc_product(A, 1, 1.0, 0.0, 0, 0, 0, 0, 4, name);
    }
    gcoo_sparse_destroy(&A);

    /* a denser matrix with long rows, so that the staged chunks are several (chunk < distinct
     * columns: the fake device's shared memory holds about 56 staged rows of 128 bytes) */
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 12, 400, 0.6, 200 + t, 0));
    snprintf(name, sizeof name, "wide12x400 %s", t ? "f64" : "f32");
    check_stats(A, name);
    check_conversions(A, 4, name);
    check_product(A, 8, 130, 1.0, 0.0, 0, 0, 0, 0, name);
    check_product(A, 3, 64, 1.0, 1.0, 0, 0, 0, 0, name);
    if (dt == GCOO_FLOAT32)
      check_tc_product(A, 130, 1.0, 0.0, 0, 0, 0, 0, 0, name); /* 50 k-tiles */
    gcoo_sparse_destroy(&A);

    /* a tall matrix: enough slices that the resident kernel cuts them into several parts */
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 700, 60, 0.93, 300 + t, 0));
    snprintf(name, sizeof name, "tall700x60 %s", t ? "f64" : "f32");
    check_product(A, 32, 8, 1.0, 0.0, 0, 0, 0, 0, name);
    check_product(A, 8, 37, 0.5, 1.5, 2, 1, 0, 0, name);
    gcoo_sparse_destroy(&A);

    /* power-law rows (the row-split kernel's case): long rows cut into many pieces, N wider
     * than the workspace (several column passes), beta over NaN and beta != 0 */
    A = gt_power_law(dt, 90, 700, 600, 400 + t);
    snprintf(name, sizeof name, "powerlaw90x700 %s", t ? "f64" : "f32");
    check_product(A, 32, 40, 1.0, 0.0, 0, 0, 0, 0, name);
    check_product(A, 3, 530, -1.5, 0.5, 1, 1, 3, 0, name);
    check_split_product(A, 0, 130, 1.0, 0.0, name);
    check_split_product(A, 7, 3, 2.0, 1.0, name);
    check_split_product(A, 19, 32, 1.0, 0.5, name); /* the 16-byte path: batches across pieces */
    if (dt == GCOO_FLOAT32) {
      check_tc_product(A, 48, 1.0, 0.0, 0, 0, 0, 0, 4, name); /* windows of very unequal length */
      check_tc_product(A, 200, 2.0, 1.0, 0, 0, 0, 0, 0, name);
    }
    gcoo_sparse_destroy(&A);

    /* nnz = 0, a 1 x 1 matrix, a single column */
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 9, 7, 1.0, 1, 0));
    snprintf(name, sizeof name, "empty9x7 %s", t ? "f64" : "f32");
    check_conversions(A, 4, name);
    check_stats(A, name);
    check_product(A, 4, 5, 1.0, 0.0, 0, 0, 0, 0, name);
    check_product(A, 4, 5, 1.0, 2.0, 0, 0, 0, 0, name);
    if (dt == GCOO_FLOAT32) check_tc_product(A, 5, 1.0, 2.0, 0, 0, 0, 0, 4, name); /* no tiles */
    gcoo_sparse_destroy(&A);
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 1, 1, 0.0, 2, 0));
    snprintf(name, sizeof name, "one1x1 %s", t ? "f64" : "f32");
    check_conversions(A, 1, name);
    check_product(A, 1, 1, 3.0, 0.0, 0, 0, 0, 0, name);
    check_product(A, 4, 129, 3.0, 1.0, 0, 1, 0, 1, name);
    gcoo_sparse_destroy(&A);
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 1, 300, 0.5, 4, 0));
    snprintf(name, sizeof name, "row1x300 %s", t ? "f64" : "f32");
    check_conversions(A, 4, name);
    check_product(A, 4, 9, 1.0, 0.5, 0, 0, 0, 0, name);
    gcoo_sparse_destroy(&A);
    TEST_CALL(gcoo_sparse_random(&A, dt, GCOO_FORMAT_CSR, 50, 1, 0.3, 3, 0));
    snprintf(name, sizeof name, "column50x1 %s", t ? "f64" : "f32");
    check_conversions(A, 4, name);
    check_stats(A, name);
    check_product(A, 4, 17, 1.0, 0.0, 0, 0, 0, 0, name);
    if (dt == GCOO_FLOAT32) check_tc_product(A, 17, 1.0, 0.0, 0, 0, 0, 0, 0, name);
    gcoo_sparse_destroy(&A);
  }
  {
    /* the tensor-core row order on rows that alternate between two sets of 8 columns: A's order
     * puts both sets into every window (16 distinct columns, 2 tiles), the window order one set
     * (1 tile); then the product through it */
    enum { M = 64, K = 200 };
    int64_t ptr[M + 1];
    int32_t ind[M * 8];
    float val[M * 8];
    for (int i = 0; i <= M; i++) ptr[i] = 8 * i;
    for (int i = 0; i < M; i++)
      for (int c = 0; c < 8; c++) {
        ind[8 * i + c] = (i % 2) * 100 + 3 * c + (i / 2) % 3;
        val[8 * i + c] = 0.5f + 0.25f * (float)c - 0.125f * (float)(i % 5);
      }
    int32_t order[M];
    int64_t t_nat = 0, t_ord = 0;
    TEST_CALL(gcoo__tc_row_order(ptr, ind, M, K, GCOO_TC_ROWS, GCOO_TC_K, order, &t_nat, &t_ord));
    TEST_CHECK(t_ord < t_nat, "alternating rows: %lld tiles in the window order, %lld in A's",
               (long long)t_ord, (long long)t_nat);
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_sparse_create_csr(&A, GCOO_FLOAT32, M, K, ptr, ind, val, 0));
    const int before = tc_reordered;
    check_tc_product(A, 40, 1.5, 0.0, 0, 0, 0, 0, 0, "alternating64x200 f32");
    TEST_CHECK(tc_reordered == before + 1, "alternating rows: the window order was not taken");
    gcoo_sparse_destroy(&A);
  }
  TEST_CHECK(tc_checked == 9 && tc_widths_seen == 7 && tc_ksplits_seen == 7,
             "tensor-core cases checked: %d of 9, tile widths seen (bits of 32, 64, 128 columns): "
             "%d, warps a window seen (bits of 1, 2, 4): %d",
             tc_checked, tc_widths_seen, tc_ksplits_seen);
  TEST_CHECK(max_splits_seen > 1, "no resident launch cut its slices into parts (most: %d)",
             max_splits_seen);
  TEST_CHECK(max_split_passes_seen > 1,
             "no row-split launch with long rows ran several column "
             "passes (most: %d)",
             max_split_passes_seen);
  TEST_CHECK(batched_seen > 0, "no product ran through the batched kernel");
  TEST_CHECK(split_batched_seen > 0, "no row-split product ran its 16-byte (batched) path");
  TEST_CHECK(split_ordered_seen > 0, "no row-split product ran its items longest first");
  return gcoo_test_finish("t309-kernels-emulated");
}
