/* SPDX-License-Identifier: MIT */
/* src/spgemm_cpu_impl.h: the CPU SpGEMM row kernel, a C template (gcoo/template.h).
 * One row of C: accumulate value products in an open-addressing table (keys = columns), then
 * move the entries out, sort them by column and append them to the thread's buffer. A row with
 * a single entry in A is a scaled copy of one row of B (already sorted): no table. */

/* Sort n (column, value) pairs by column (columns are distinct), or the columns alone (v NULL):
 * quicksort, insertion sort below 24 elements. */
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
      if (v) {
        GCOO_T tv = v[i];
        v[i] = v[j];
        v[j] = tv;
      }
      i++;
      j--;
    }
    /* [0, j] <= piv <= [j+1, n): recurse on the smaller side, loop on the larger */
    int64_t nl = j + 1;
    if (nl < n - nl) {
      GCOO_FN(sort_pairs)(c, v, nl);
      c += nl;
      if (v) v += nl;
      n -= nl;
    } else {
      GCOO_FN(sort_pairs)(c + nl, v ? v + nl : NULL, n - nl);
      n = nl;
    }
  }
  for (int64_t i = 1; i < n; i++) {
    int32_t kc = c[i];
    GCOO_T kv = v ? v[i] : (GCOO_T)0;
    int64_t j = i - 1;
    while (j >= 0 && c[j] > kc) {
      c[j + 1] = c[j];
      if (v) v[j + 1] = v[j];
      j--;
    }
    c[j + 1] = kc;
    if (v) v[j + 1] = kv;
  }
}

/* A row of A with one entry a_ik: row i of C is row k of B scaled by a_ik, already in column
 * order; returns its length. */
static int64_t GCOO_FN(spgemm_row_scaled)(const gcoo_csr_view *B, int32_t k, GCOO_T s,
                                          int32_t *restrict oc, GCOO_T *restrict ov) {
  const GCOO_T *bv = B->values;
  int64_t n = 0;
  for (int64_t b = B->ptr[k]; b < B->ptr[k + 1]; b++, n++) {
    oc[n] = B->ind[b];
    ov[n] = s * bv[b];
  }
  return n;
}

/* Row i of C with a dense accumulator: acc[col] sums the products of a column whose tag[col] is
 * this row's tagv, and a bit of seen marks it. The columns come out in order from the bitmap of
 * the row's span, 64 columns a word, where the span has at most 4 words an entry (a sort of n
 * entries costs more than that); otherwise they are sorted alone (integers: half the moves of
 * sorting pairs) and their values gathered after. No hashing and no collisions, at the price of
 * two arrays as long as B's rows and a bitmap a thread. */
static int64_t GCOO_FN(spgemm_row_dense)(const gcoo_csr_view *A, const gcoo_csr_view *B, int64_t i,
                                         uint32_t tagv, uint32_t *restrict tag,
                                         uint64_t *restrict seen, GCOO_T *restrict acc,
                                         int32_t *restrict oc, GCOO_T *restrict ov) {
  const GCOO_T *av = A->values, *bv = B->values;
  const int64_t a0 = A->ptr[i], a1 = A->ptr[i + 1];
  if (a1 - a0 == 1) return GCOO_FN(spgemm_row_scaled)(B, A->ind[a0], av[a0], oc, ov);
  int64_t n = 0;
  int32_t lo = INT32_MAX, hi = -1;
  for (int64_t a = a0; a < a1; a++) {
    const int32_t k = A->ind[a];
    const GCOO_T s = av[a];
    const int64_t b0 = B->ptr[k], b1 = B->ptr[k + 1];
    if (b1 > b0) { /* B's rows are sorted: their ends bound the row's span */
      if (B->ind[b0] < lo) lo = B->ind[b0];
      if (B->ind[b1 - 1] > hi) hi = B->ind[b1 - 1];
    }
    for (int64_t b = b0; b < b1; b++) {
      const int32_t col = B->ind[b];
      const GCOO_T v = s * bv[b];
      if (tag[col] != tagv) {
        tag[col] = tagv;
        acc[col] = v;
        seen[col >> 6] |= (uint64_t)1 << (col & 63);
        oc[n++] = col;
      } else {
        acc[col] += v;
      }
    }
  }
  const int64_t w0 = lo >> 6, w1 = hi >> 6;
  if (n > 0 && w1 - w0 + 1 <= 4 * n + 16) { /* the span's bitmap, word by word, in order */
    int64_t j = 0;
    for (int64_t q = w0; q <= w1; q++) {
      uint64_t w = seen[q];
      seen[q] = 0;
      while (w) {
        const int32_t c = (int32_t)(q * 64 + __builtin_ctzll(w));
        oc[j] = c;
        ov[j++] = acc[c];
        w &= w - 1;
      }
    }
    return n;
  }
  for (int64_t j = 0; j < n; j++) seen[oc[j] >> 6] = 0;
  GCOO_FN(sort_pairs)(oc, NULL, n);
  for (int64_t j = 0; j < n; j++) ov[j] = acc[oc[j]];
  return n;
}

/* Row i of C into (oc, ov), returning its length. The table maps a column to its position in
 * the output, where its value accumulates: entries come out in first-seen order, with no scan of
 * the table, and are then sorted. */
static int64_t GCOO_FN(spgemm_row)(const gcoo_csr_view *A, const gcoo_csr_view *B, int64_t i,
                                   int bits, gcoo_row_table *t, int32_t *pos, int32_t *oc,
                                   GCOO_T *ov) {
  const GCOO_T *av = A->values, *bv = B->values;
  const int64_t a0 = A->ptr[i], a1 = A->ptr[i + 1];
  if (a1 - a0 == 1) return GCOO_FN(spgemm_row_scaled)(B, A->ind[a0], av[a0], oc, ov);
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
  /* a dense accumulator where B's rows are short enough for a thread to hold two arrays as long
   * (12 bytes a column); the hash table otherwise */
  const int dense = B->ncols <= GCOO_SPGEMM_DENSE_MAX_COLS;
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
    gcoo_row_table table = {0};
    int32_t *pos = NULL;
    uint32_t *tag = NULL, tagv = 0;
    uint64_t *seen = NULL;
    GCOO_T *acc = NULL;
    int ok = 1;
    if (dense) {
      tag = calloc((size_t)(B->ncols > 0 ? B->ncols : 1), sizeof *tag);
      seen = calloc((size_t)(B->ncols / 64 + 1), sizeof *seen);
      acc = malloc((size_t)(B->ncols > 0 ? B->ncols : 1) * sizeof *acc);
      ok = tag && acc && seen;
      pos = (int32_t *)tag; /* only tested for NULL below */
    } else {
      ok = gcoo__row_table_init(&table, bits_max);
      pos = malloc(((size_t)1 << bits_max) * sizeof *pos);
    }
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
      int64_t n = 0;
      if (hi[i] > 0 && dense) {
        if (++tagv == 0) { /* the tags wrapped: start the marks again */
          memset(tag, 0, (size_t)B->ncols * sizeof *tag);
          tagv = 1;
        }
        n = GCOO_FN(spgemm_row_dense)(A, B, i, tagv, tag, seen, acc, buf->cols + buf->len,
                                      buf->vals + buf->len);
      } else if (hi[i] > 0) {
        n = GCOO_FN(spgemm_row)(A, B, i, gcoo__table_bits(hi[i]), &table, pos, buf->cols + buf->len,
                                buf->vals + buf->len);
      }
      tid_of[i] = tid;
      off[i] = buf->len;
      rowptr[i + 1] = n;
      buf->len += n;
    }
    peak += (dense ? B->ncols * (int64_t)(sizeof *tag + sizeof *acc)
                   : (int64_t)(((size_t)1 << bits_max) * (sizeof *table.slot + sizeof *pos))) +
            buf->cap * (int64_t)(sizeof(int32_t) + sizeof(GCOO_T));
    free(table.slot);
    if (!dense) free(pos);
    free(tag);
    free(seen);
    free(acc);
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
