/* SPDX-License-Identifier: MIT */
/* src/spgemm_cpu_impl.h: the CPU SpGEMM row kernel, a C template (gcoo/template.h).
 * One row of C: accumulate value products in an open-addressing table (keys = columns), then
 * move the entries out, sort them by column and append them to the thread's buffer. A row with
 * a single entry in A is a scaled copy of one row of B (already sorted): no table. */

/* Sort n (column, value) pairs by column (columns are distinct): quicksort, insertion sort
 * below 24 elements. */
static void GCOO_FN(sort_pairs)(int32_t *c, GCOO_T *v, int64_t n) {
  while (n > 24) {
    /* median of three as pivot */
    int64_t m = n / 2;
    int32_t a = c[0], b = c[m], d = c[n - 1];
    int32_t piv = a < b ? (b < d ? b : (a < d ? d : a)) : (a < d ? a : (b < d ? d : b));
    int64_t i = 0, j = n - 1;
    for (;;) {
      while (c[i] < piv) i++;
      while (c[j] > piv) j--;
      if (i >= j) break;
      int32_t tc = c[i];
      c[i] = c[j];
      c[j] = tc;
      GCOO_T tv = v[i];
      v[i] = v[j];
      v[j] = tv;
      i++;
      j--;
    }
    /* [0, j] <= piv <= [j+1, n): recurse on the smaller side, loop on the larger */
    int64_t nl = j + 1;
    if (nl < n - nl) {
      GCOO_FN(sort_pairs)(c, v, nl);
      c += nl;
      v += nl;
      n -= nl;
    } else {
      GCOO_FN(sort_pairs)(c + nl, v + nl, n - nl);
      n = nl;
    }
  }
  for (int64_t i = 1; i < n; i++) {
    int32_t kc = c[i];
    GCOO_T kv = v[i];
    int64_t j = i - 1;
    while (j >= 0 && c[j] > kc) {
      c[j + 1] = c[j];
      v[j + 1] = v[j];
      j--;
    }
    c[j + 1] = kc;
    v[j + 1] = kv;
  }
}

/* Row i of C into (oc, ov), returning its length. The table maps a column to its position in
 * the output, where its value accumulates: entries come out in first-seen order, with no scan of
 * the table, and are then sorted. */
static int64_t GCOO_FN(spgemm_row)(const gcoo_csr_view *A, const gcoo_csr_view *B, int64_t i,
                                   int bits, gcoo_row_table *t, int32_t *pos, int32_t *oc,
                                   GCOO_T *ov) {
  const GCOO_T *av = A->values, *bv = B->values;
  const int64_t a0 = A->ptr[i], a1 = A->ptr[i + 1];
  if (a1 - a0 == 1) { /* one row of B, scaled */
    const int32_t k = A->ind[a0];
    const GCOO_T s = av[a0];
    int64_t n = 0;
    for (int64_t b = B->ptr[k]; b < B->ptr[k + 1]; b++, n++) {
      oc[n] = B->ind[b];
      ov[n] = s * bv[b];
    }
    return n;
  }
  const uint32_t mask = (1u << bits) - 1u;
  const uint64_t tag = gcoo__row_table_next(t);
  uint64_t *slot = t->slot;
  int32_t n = 0;
  for (int64_t a = a0; a < a1; a++) {
    const int32_t k = A->ind[a];
    const GCOO_T s = av[a];
    for (int64_t b = B->ptr[k]; b < B->ptr[k + 1]; b++) {
      const int32_t col = B->ind[b];
      const uint64_t key = tag | (uint32_t)col;
      uint32_t h = gcoo__col_hash(col, bits);
      for (;;) {
        const uint64_t sl = slot[h];
        if (sl == key) {
          ov[pos[h]] += s * bv[b];
          break;
        }
        if ((sl >> 32) != (tag >> 32)) {
          slot[h] = key;
          pos[h] = n;
          oc[n] = col;
          ov[n] = s * bv[b];
          n++;
          break;
        }
        h = (h + 1) & mask;
      }
    }
  }
  GCOO_FN(sort_pairs)(oc, ov, n);
  return n;
}

typedef struct GCOO_FN(spgemm_buf) {
  int32_t *cols;
  GCOO_T *vals;
  int64_t len, cap;
} GCOO_FN(spgemm_buf);

/* C = A B. hi[i] = min(flop(i), N) bounds row i; hi_max their maximum. */
static gcoo_status GCOO_FN(spgemm_cpu)(const gcoo_csr_view *A, const gcoo_csr_view *B,
                                       const int32_t *hi, int64_t hi_max, gcoo_sparse *C,
                                       int64_t *peak_bytes) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t M = A->nrows;
  int nthreads = 1;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  GCOO_FN(spgemm_buf) *bufs = NULL;
  int32_t *tid_of = NULL, *colind = NULL;
  int64_t *off = NULL, *rowptr = NULL;
  GCOO_T *values = NULL;
  int failed = 0;
  int64_t peak = 0;
  GCOO_GOTO(gcoo__calloc((void **)&bufs, (size_t)nthreads, sizeof *bufs, "thread buffers"));
  GCOO_GOTO(gcoo__malloc_n((void **)&tid_of, M, sizeof *tid_of, "row owners"));
  GCOO_GOTO(gcoo__malloc_n((void **)&off, M, sizeof *off, "row offsets"));
  GCOO_GOTO(gcoo__malloc_n((void **)&rowptr, M + 1, sizeof *rowptr, "C row pointers"));
  const int bits_max = gcoo__table_bits(hi_max);
  /* each thread's buffer starts at its share of the rows' bound sum(hi) (half as much again):
   * pages are only touched as entries arrive, and the buffer rarely grows (each growth is a
   * copy); one thread's buffer holds the bound whole and is never copied */
  int64_t hi_total = 0;
  for (int64_t i = 0; i < M; i++) hi_total += hi[i];
  const int64_t cap0 = nthreads == 1 ? hi_total : hi_total / nthreads + hi_total / (2 * nthreads);
#pragma omp parallel num_threads(nthreads) reduction(+ : peak)
  {
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    GCOO_FN(spgemm_buf) *buf = &bufs[tid];
    if (cap0 > 0) {
      buf->cols = malloc((size_t)cap0 * sizeof *buf->cols);
      buf->vals = malloc((size_t)cap0 * sizeof *buf->vals);
      buf->cap = buf->cols && buf->vals ? cap0 : 0;
    }
    gcoo_row_table table;
    const int ok = gcoo__row_table_init(&table, bits_max);
    int32_t *pos = malloc(((size_t)1 << bits_max) * sizeof *pos);
    if (!ok || !pos) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(dynamic, 16)
    for (int64_t i = 0; i < M; i++) {
      if (!ok || !pos) continue;
      if (buf->len + hi[i] > buf->cap) {
        int64_t cap = 2 * buf->cap > buf->len + hi[i] ? 2 * buf->cap : buf->len + hi[i] + 1024;
        int32_t *c2 = realloc(buf->cols, (size_t)cap * sizeof *c2);
        if (c2) buf->cols = c2;
        GCOO_T *v2 = c2 ? realloc(buf->vals, (size_t)cap * sizeof *v2) : NULL;
        if (v2) buf->vals = v2;
        if (!c2 || !v2) {
#pragma omp atomic write
          failed = 1;
          continue;
        }
        buf->cap = cap;
      }
      const int64_t n = hi[i] == 0
                            ? 0
                            : GCOO_FN(spgemm_row)(A, B, i, gcoo__table_bits(hi[i]), &table, pos,
                                                  buf->cols + buf->len, buf->vals + buf->len);
      tid_of[i] = tid;
      off[i] = buf->len;
      rowptr[i + 1] = n;
      buf->len += n;
    }
    peak += (int64_t)(((size_t)1 << bits_max) * (sizeof *table.slot + sizeof *pos)) +
            buf->cap * (int64_t)(sizeof(int32_t) + sizeof(GCOO_T));
    free(table.slot);
    free(pos);
  }
  GCOO_CHECK_GOTO(!failed, GCOO_ERR_NO_MEMORY,
                  "no memory for the SpGEMM's per-thread tables (%lld slots) or row buffers",
                  (long long)1 << bits_max);
  rowptr[0] = 0;
  for (int64_t i = 0; i < M; i++) rowptr[i + 1] += rowptr[i];
  const int64_t nnz = rowptr[M];
  if (nthreads == 1 && bufs[0].cols && bufs[0].vals) { /* one thread: its buffer is C's arrays */
    colind = bufs[0].cols;
    values = bufs[0].vals;
    bufs[0].cols = NULL;
    bufs[0].vals = NULL;
  } else {
    GCOO_GOTO(gcoo__malloc_n((void **)&colind, nnz, sizeof *colind, "C column indices"));
    GCOO_GOTO(gcoo__malloc_n((void **)&values, nnz, sizeof *values, "C values"));
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < M; i++) {
      const int64_t n = rowptr[i + 1] - rowptr[i];
      if (!n) continue;
      const GCOO_FN(spgemm_buf) *b = &bufs[tid_of[i]];
      memcpy(colind + rowptr[i], b->cols + off[i], (size_t)n * sizeof *colind);
      memcpy(values + rowptr[i], b->vals + off[i], (size_t)n * sizeof *values);
    }
  }
  peak += nnz * (int64_t)(sizeof *colind + sizeof *values) + (M + 1) * 8 + M * 12;
  if (peak_bytes) *peak_bytes = peak;
  st = gcoo__sparse_adopt(C, GCOO_FORMAT_CSR, GCOO_DT, M, B->ncols, nnz, 0, rowptr, colind, NULL,
                          NULL, NULL, values);
  rowptr = NULL, colind = NULL, values = NULL;
  GCOO_GOTO(st);
done:
  if (bufs)
    for (int t = 0; t < nthreads; t++) {
      free(bufs[t].cols);
      free(bufs[t].vals);
    }
  free(bufs);
  free(tid_of);
  free(off);
  free(rowptr);
  free(colind);
  free(values);
  return st;
}
