/* SPDX-License-Identifier: MIT */
/* io/h5_sparse.c: CSR, CSC and GCOO groups: describing and checking them, reading slabs of
 * their major dimension (each rank its own hyperslab), writing them; and the serial API
 * (gcoo_h5_inspect, gcoo_h5_read_sparse, gcoo_h5_write_sparse), which is the same code on one
 * process.
 *
 * The major pointer array (indptr or gIdxes) is read once, by rank 0, checked there and
 * broadcast: one reader on the file system instead of every rank reading the same bytes, one
 * check with one message, and the whole array is needed on every rank anyway (to balance slabs
 * by nnz), which a broadcast tree delivers in O(log P) steps. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5_impl.h"
#include "prefetch.h"

static const char *const csx_names[] = {"indices", "data", "indptr"};
static const char *const gcoo_names[] = {"rows", "cols", "values", "gIdxes", "nnzPerGroup"};

static const char *major_word(gcoo_format f) {
  return f == GCOO_FORMAT_CSR ? "row" : f == GCOO_FORMAT_CSC ? "column" : "group";
}

static const char *encoding_of(gcoo_format f) {
  return f == GCOO_FORMAT_CSC ? "csc_matrix" : f == GCOO_FORMAT_GCOO ? "gcoo_matrix" : "csr_matrix";
}

/* Read the pointer array (nmajor + 1 offsets) of an open object and check it. */
static gcoo_status read_pointers(const gcoo__h5_dset *pd, const gcoo_h5_info *info, int64_t len,
                                 int64_t **out) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_comm one;
  int64_t n = info->nmajor, *ptr = NULL;
  const char *w = major_word(info->format);
  gcoo__h5_comm_serial(&one); /* this rank alone: independent transfers */
  GCOO_GOTO(gcoo__malloc_n((void **)&ptr, n + 1, sizeof *ptr, pd->label));
  gcoo__h5_read_1d(&one, pd, 0, n + 1, H5K_I64, ptr, &st);
  GCOO_GOTO(st);
  GCOO_CHECK_GOTO(ptr[0] == 0, GCOO_ERR_FORMAT, "%s[0] = %lld, must be 0", pd->label,
                  (long long)ptr[0]);
  for (int64_t i = 0; i < n; i++)
    GCOO_CHECK_GOTO(ptr[i + 1] >= ptr[i], GCOO_ERR_FORMAT,
                    "%s decreases at %s %lld: %lld then %lld", pd->label, w, (long long)i,
                    (long long)ptr[i], (long long)ptr[i + 1]);
  GCOO_CHECK_GOTO(ptr[n] == len, GCOO_ERR_FORMAT,
                  "%s ends at %lld but the entry datasets hold %lld entries", pd->label,
                  (long long)ptr[n], (long long)len);
  *out = ptr;
  ptr = NULL;
done:
  free(ptr);
  return st;
}

/* nnzPerGroup must repeat the differences of gIdxes. */
static gcoo_status check_group_counts(const gcoo__h5_dset *cd, const int64_t *gidx, int64_t g) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_comm one;
  int64_t *cnt = NULL;
  gcoo__h5_comm_serial(&one);
  GCOO_GOTO(gcoo__malloc_n((void **)&cnt, g, sizeof *cnt, cd->label));
  gcoo__h5_read_1d(&one, cd, 0, g, H5K_I64, cnt, &st);
  GCOO_GOTO(st);
  for (int64_t q = 0; q < g; q++)
    GCOO_CHECK_GOTO(cnt[q] == gidx[q + 1] - gidx[q], GCOO_ERR_FORMAT,
                    "%s[%lld] = %lld but gIdxes gives %lld entries to group %lld", cd->label,
                    (long long)q, (long long)cnt[q], (long long)(gidx[q + 1] - gidx[q]),
                    (long long)q);
done:
  free(cnt);
  return st;
}

/* What path names, checked (attributes, dataset kinds and lengths); with ptr, the pointer array
 * read and checked too. A dense dataset is described with is_sparse = 0. Not collective. */
static gcoo_status describe(hid_t fid, const gcoo__h5_path *p, gcoo_h5_info *info, int64_t **ptr) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t obj = H5I_INVALID_HID;
  gcoo__h5_dset d[5];
  char label[GCOO_H5_LABEL], dl[GCOO_H5_LABEL], enc[96], members[640];
  int is_group = 0, found = 0;
  int64_t shape[2] = {0, 0}, pv = 0;
  for (int i = 0; i < 5; i++) d[i] = (gcoo__h5_dset)GCOO__H5_DSET_INIT;
  memset(info, 0, sizeof *info);
  gcoo__h5_label(label, sizeof label, p, NULL);
  GCOO_GOTO(gcoo__h5_open_object(fid, p, &obj, &is_group));
  if (!is_group) {
    char layout[64];
    GCOO_GOTO(gcoo__h5_dset_open(obj, NULL, label, &d[0]));
    GCOO_GOTO(gcoo__h5_attr_string(obj, "layout", label, layout, sizeof layout, &found));
    GCOO_GOTO(gcoo__h5_dense_describe(&d[0], layout, info));
    goto done;
  }
  GCOO_GOTO(gcoo__h5_attr_string(obj, "encoding-type", label, enc, sizeof enc, &found));
  GCOO_CHECK_GOTO(found, GCOO_ERR_FORMAT,
                  "%s: group has no attribute encoding-type, so it is not a sparse matrix group "
                  "(csr_matrix, csc_matrix or gcoo_matrix); %s",
                  label, gcoo__h5_members(obj, members, sizeof members));
  if (!strcmp(enc, "csr_matrix"))
    info->format = GCOO_FORMAT_CSR;
  else if (!strcmp(enc, "csc_matrix"))
    info->format = GCOO_FORMAT_CSC;
  else if (!strcmp(enc, "gcoo_matrix"))
    info->format = GCOO_FORMAT_GCOO;
  else
    GCOO_CHECK_GOTO(0, GCOO_ERR_FORMAT,
                    "%s: encoding-type \"%s\" is not a sparse encoding gcoo reads (csr_matrix, "
                    "csc_matrix, gcoo_matrix)",
                    label, enc);
  GCOO_GOTO(gcoo__h5_attr_string(obj, "encoding-version", label, info->encoding_version,
                                 sizeof info->encoding_version, &found));
  GCOO_CHECK_GOTO(!found || !strcmp(info->encoding_version, "0.1") ||
                      !strncmp(info->encoding_version, "0.1.", 4),
                  GCOO_ERR_FORMAT,
                  "%s: encoding-version \"%s\" is not supported (gcoo reads 0.1.x)", label,
                  info->encoding_version);
  GCOO_GOTO(gcoo__h5_attr_ints(obj, "shape", label, shape, 2, &found));
  GCOO_CHECK_GOTO(found, GCOO_ERR_FORMAT, "%s: no attribute shape (two integers: rows, columns)",
                  label);
  GCOO_CHECK_GOTO(shape[0] >= 0 && shape[1] >= 0, GCOO_ERR_FORMAT,
                  "%s: shape %lld x %lld is negative", label, (long long)shape[0],
                  (long long)shape[1]);
  GCOO_CHECK_GOTO(shape[0] <= GCOO_INDEX_MAX && shape[1] <= GCOO_INDEX_MAX, GCOO_ERR_TOO_LARGE,
                  "%s: shape %lld x %lld does not fit 32-bit indices (max %d)", label,
                  (long long)shape[0], (long long)shape[1], GCOO_INDEX_MAX);
  info->is_sparse = 1;
  info->nrows = shape[0];
  info->ncols = shape[1];
  int gcoo = info->format == GCOO_FORMAT_GCOO;
  if (gcoo) {
    GCOO_GOTO(gcoo__h5_attr_ints(obj, "p", label, &pv, 1, &found));
    GCOO_CHECK_GOTO(found, GCOO_ERR_FORMAT, "%s: a gcoo_matrix needs the attribute p (group width)",
                    label);
    GCOO_CHECK_GOTO(pv >= 1 && pv <= GCOO_INDEX_MAX, GCOO_ERR_FORMAT,
                    "%s: group width p = %lld must be in 1..%d", label, (long long)pv,
                    GCOO_INDEX_MAX);
    info->p = (int32_t)pv;
    info->nmajor = (info->ncols + pv - 1) / pv;
  } else {
    info->nmajor = info->format == GCOO_FORMAT_CSR ? info->nrows : info->ncols;
  }
  /* the datasets: entries (indices + values, or rows + cols + values), then the pointers */
  const char *const *names = gcoo ? gcoo_names : csx_names;
  int nd = gcoo ? 5 : 3, nent = gcoo ? 3 : 2;
  for (int i = 0; i < nd; i++) {
    gcoo__h5_label(dl, sizeof dl, p, names[i]);
    if (gcoo && i == 4) {
      htri_t ex = -1;
      H5_TRY(ex = H5Lexists(obj, names[i], H5P_DEFAULT), "%s: cannot look it up", dl);
      if (!ex) break; /* nnzPerGroup repeats gIdxes: optional on read */
    }
    GCOO_GOTO(gcoo__h5_dset_open(obj, names[i], dl, &d[i]));
    GCOO_CHECK_GOTO(d[i].ndims == 1, GCOO_ERR_FORMAT, "%s must be 1-D; it is %lld x %lld", dl,
                    (long long)d[i].dims[0], (long long)d[i].dims[1]);
    int is_values = i == nent - 1;
    GCOO_CHECK_GOTO(is_values || gcoo__h5_kind_is_int(d[i].kind), GCOO_ERR_FORMAT,
                    "%s holds %s; it must hold integers", dl, gcoo__h5_kind_name(d[i].kind));
  }
  int64_t len = d[0].dims[0];
  for (int i = 1; i < nent; i++)
    GCOO_CHECK_GOTO(d[i].dims[0] == len, GCOO_ERR_FORMAT, "%s has %lld entries but %s has %lld",
                    d[i].label, (long long)d[i].dims[0], d[0].label, (long long)len);
  const gcoo__h5_dset *pd = &d[nent];
  GCOO_CHECK_GOTO(pd->dims[0] == info->nmajor + 1, GCOO_ERR_FORMAT,
                  "%s has %lld entries but shape %lld x %lld%s needs %lld (one per %s, plus one)",
                  pd->label, (long long)pd->dims[0], (long long)info->nrows, (long long)info->ncols,
                  gcoo ? " with this p" : "", (long long)(info->nmajor + 1),
                  major_word(info->format));
  if (gcoo && d[4].id >= 0)
    GCOO_CHECK_GOTO(d[4].dims[0] == info->nmajor, GCOO_ERR_FORMAT,
                    "%s has %lld entries, expected %lld (one per group)", d[4].label,
                    (long long)d[4].dims[0], (long long)info->nmajor);
  info->nnz = len;
  info->dtype = d[nent - 1].kind == H5K_F32 ? GCOO_FLOAT32 : GCOO_FLOAT64;
  snprintf(info->value_type, sizeof info->value_type, "%s", gcoo__h5_kind_name(d[nent - 1].kind));
  snprintf(info->index_type, sizeof info->index_type, "%s",
           gcoo__h5_kind_name(d[gcoo ? 1 : 0].kind));
  info->layout = GCOO_ROW_MAJOR;
  if (ptr) {
    GCOO_GOTO(read_pointers(pd, info, len, ptr));
    if (gcoo && d[4].id >= 0) GCOO_GOTO(check_group_counts(&d[4], *ptr, info->nmajor));
  }
done:
  if (st < 0 && ptr && *ptr) {
    free(*ptr);
    *ptr = NULL;
  }
  for (int i = 0; i < 5; i++) gcoo__h5_dset_close(&d[i]);
  gcoo__h5_close(&obj);
  return st;
}

/* ---- open / close --------------------------------------------------------------------------- */

gcoo_status gcoo__h5_sparse_close(struct gcoo_h5_sparse_file_s **fp) {
  if (!fp || !*fp) return GCOO_SUCCESS;
  struct gcoo_h5_sparse_file_s *f = *fp;
  GCOO_VALID_OBJECT(f, GCOO_MAGIC_H5_SPARSE, "HDF5 sparse file");
  for (int i = 0; i < 3; i++) gcoo__h5_dset_close(&f->d[i]);
  gcoo__h5_close(&f->fid); /* collective with MPI-IO */
  gcoo__h5_guard_close(&f->guard);
  free(f->ptr);
  gcoo__h5_path_free(&f->path);
  gcoo__h5_comm_free(&f->c);
  f->magic = GCOO_MAGIC_FREED;
  free(f);
  *fp = NULL;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__h5_sparse_open(gcoo__h5_comm *c, const char *path, int with_ptr,
                                 struct gcoo_h5_sparse_file_s **out) {
  gcoo_status st = GCOO_SUCCESS;
  struct gcoo_h5_sparse_file_s *f = NULL;
  hid_t obj = H5I_INVALID_HID;
  *out = NULL;
  st = gcoo__calloc((void **)&f, 1, sizeof *f, "HDF5 sparse file");
  st = gcoo__h5_agree(c, st);
  if (st < 0) {
    free(f);
    gcoo__h5_comm_free(c);
    return st;
  }
  f->magic = GCOO_MAGIC_H5_SPARSE;
  f->c = *c; /* taken over: freed by close */
  gcoo__h5_comm_serial(c);
  f->fid = H5I_INVALID_HID;
  f->guard = (gcoo__h5_guard)GCOO__H5_GUARD_INIT;
  for (int i = 0; i < 3; i++) f->d[i] = (gcoo__h5_dset)GCOO__H5_DSET_INIT;
  st = gcoo__h5_agree(&f->c, gcoo__h5_path_parse(path, &f->path));
  if (st < 0) goto done;
  GCOO_GOTO(gcoo__h5_file_open(&f->c, f->path.file, &f->fid));
  GCOO_GOTO(gcoo__h5_agree(&f->c, gcoo__h5_guard_open(&f->guard, f->path.file)));
  if (f->c.rank == 0) st = describe(f->fid, &f->path, &f->info, with_ptr ? &f->ptr : NULL);
  GCOO_GOTO(gcoo__h5_agree(&f->c, st));
  GCOO_GOTO(gcoo__h5_bcast(&f->c, &f->info, sizeof f->info, 0));
  if (!f->info.is_sparse) {
    char label[GCOO_H5_LABEL];
    GCOO_GOTO(GCOO_ERROR(GCOO_ERR_FORMAT,
                         "%s is a dense dataset (%lld x %lld %s), not a sparse matrix group",
                         gcoo__h5_label(label, sizeof label, &f->path, NULL),
                         (long long)f->info.nrows, (long long)f->info.ncols, f->info.value_type));
  }
  if (with_ptr) {
    if (f->c.rank != 0)
      st = gcoo__malloc_n((void **)&f->ptr, f->info.nmajor + 1, sizeof *f->ptr, "major pointers");
    GCOO_GOTO(gcoo__h5_agree(&f->c, st));
    GCOO_GOTO(gcoo__h5_bcast(&f->c, f->ptr, (f->info.nmajor + 1) * (int64_t)sizeof *f->ptr, 0));
  }
  /* every rank opens the entry datasets for its slab reads (opening does not modify the file,
   * so it need not be collective) */
  {
    int is_group = 0, gcoo = f->info.format == GCOO_FORMAT_GCOO;
    const char *const *names = gcoo ? gcoo_names : csx_names;
    st = gcoo__h5_open_object(f->fid, &f->path, &obj, &is_group);
    for (int i = 0; i < (gcoo ? 3 : 2) && st >= 0; i++) {
      char dl[GCOO_H5_LABEL];
      gcoo__h5_label(dl, sizeof dl, &f->path, names[i]);
      st = gcoo__h5_dset_open(obj, names[i], dl, &f->d[i]);
    }
    gcoo__h5_close(&obj);
    GCOO_GOTO(gcoo__h5_agree(&f->c, st));
  }
  *out = f;
  f = NULL;
done:
  if (f) gcoo__h5_sparse_close(&f);
  return st;
}

/* ---- slabs ------------------------------------------------------------------------------------ */

/* CSR/CSC slab from the arrays read (indices >= 0 already): check the index range, then take
 * the arrays over when every segment is strictly increasing, or sort and sum duplicates through
 * gcoo_sparse_create_csr/csc (as for any caller's arrays). */
static gcoo_status build_compressed(const struct gcoo_h5_sparse_file_s *f, gcoo_dtype dtype,
                                    int64_t b, int64_t nmaj, int64_t lo, int64_t **ptrl,
                                    int32_t **ind, void **vals, gcoo_sparse *A) {
  const gcoo_h5_info *in = &f->info;
  int csr = in->format == GCOO_FORMAT_CSR;
  int64_t nminor = csr ? in->ncols : in->nrows, *p = *ptrl;
  int32_t *ix = *ind;
  int sorted = 1;
  int64_t badk = INT64_MAX;
  /* in parallel over rows (columns): the first entry out of range is still the one named */
#pragma omp parallel for reduction(min : badk) reduction(&& : sorted) schedule(static) \
    if (p[nmaj] > GCOO_OMP_MIN_WORK)
  for (int64_t i = 0; i < nmaj; i++)
    for (int64_t k = p[i]; k < p[i + 1]; k++) {
      if (ix[k] >= nminor && k < badk) badk = k;
      if (k > p[i] && ix[k] <= ix[k - 1]) sorted = 0;
    }
  if (badk != INT64_MAX) {
    int64_t i = 0, hi = nmaj; /* the row of entry badk: the last i with p[i] <= badk */
    while (hi - i > 1) {
      int64_t mid = i + (hi - i) / 2;
      if (p[mid] <= badk)
        i = mid;
      else
        hi = mid;
    }
    while (i + 1 < nmaj && p[i + 1] <= badk) i++;
    return GCOO_ERROR(GCOO_ERR_INDEX_RANGE,
                      "%s: %s %lld has %s index %d outside 0..%lld (entry %lld)", f->d[0].label,
                      major_word(in->format), (long long)(b + i), csr ? "column" : "row", ix[badk],
                      (long long)nminor - 1, (long long)(lo + badk));
  }
  int64_t nr = csr ? nmaj : in->nrows, nc = csr ? in->ncols : nmaj;
  if (sorted) {
    gcoo_status st = gcoo__sparse_adopt(A, in->format, dtype, nr, nc, p[nmaj], 0, p, ix, NULL, NULL,
                                        NULL, *vals);
    *ptrl = NULL, *ind = NULL, *vals = NULL; /* adopted, or freed by adopt on failure */
    GCOO_CALL(st);
  } else if (csr) {
    GCOO_CALL(gcoo_sparse_create_csr(A, dtype, nr, nc, p, ix, *vals, 0));
  } else {
    GCOO_CALL(gcoo_sparse_create_csc(A, dtype, nr, nc, p, ix, *vals, 0));
  }
  return GCOO_SUCCESS;
}

/* GCOO slab: every entry in its group's columns and rows, groups in (row, column) order
 * (refused otherwise, as gcoo_sparse_create_gcoo does); columns renumbered from b * p. */
static gcoo_status build_gcoo(const struct gcoo_h5_sparse_file_s *f, gcoo_dtype dtype, int64_t b,
                              int64_t nmaj, int64_t lo, int64_t **gl, int32_t **rows,
                              int32_t **cols, void **vals, gcoo_sparse *A) {
  const gcoo_h5_info *in = &f->info;
  int64_t p = in->p, *g = *gl, c0 = b * p;
  int64_t cend = (b + nmaj) * p < in->ncols ? (b + nmaj) * p : in->ncols;
  int64_t ncs = nmaj == 0 ? 0 : cend - c0;
  int32_t *r = *rows, *c = *cols;
  int dup = 0;
  for (int64_t q = 0; q < nmaj; q++) {
    int64_t q0 = (b + q) * p, q1 = q0 + p < in->ncols ? q0 + p : in->ncols;
    for (int64_t k = g[q]; k < g[q + 1]; k++) {
      GCOO_CHECK(r[k] < in->nrows, GCOO_ERR_INDEX_RANGE,
                 "%s: group %lld entry %lld: row %d outside 0..%lld", f->d[0].label,
                 (long long)(b + q), (long long)(lo + k), r[k], (long long)in->nrows - 1);
      GCOO_CHECK(c[k] >= q0 && c[k] < q1, GCOO_ERR_INDEX_RANGE,
                 "%s: group %lld entry %lld: column %d outside the group's columns %lld..%lld",
                 f->d[1].label, (long long)(b + q), (long long)(lo + k), c[k], (long long)q0,
                 (long long)q1 - 1);
      if (k > g[q]) {
        int before = r[k - 1] < r[k] || (r[k - 1] == r[k] && c[k - 1] < c[k]);
        int same = r[k - 1] == r[k] && c[k - 1] == c[k];
        GCOO_CHECK(before || same, GCOO_ERR_UNSORTED,
                   "%s: group %lld entry %lld: (%d, %d) after (%d, %d); GCOO groups are ordered "
                   "by row, then column",
                   f->d[0].label, (long long)(b + q), (long long)(lo + k), r[k], c[k], r[k - 1],
                   c[k - 1]);
        dup |= same;
      }
    }
  }
  for (int64_t k = 0; k < g[nmaj]; k++) c[k] = (int32_t)(c[k] - c0);
  if (!dup) {
    gcoo_status st = gcoo__sparse_adopt(A, GCOO_FORMAT_GCOO, dtype, in->nrows, ncs, g[nmaj],
                                        (int32_t)p, NULL, NULL, r, c, g, *vals);
    *gl = NULL, *rows = NULL, *cols = NULL, *vals = NULL;
    GCOO_CALL(st);
  } else {
    GCOO_CALL(gcoo_sparse_create_gcoo(A, dtype, in->nrows, ncs, (int32_t)p, g, r, c, *vals, 0));
  }
  return GCOO_SUCCESS;
}

gcoo_status gcoo__h5_sparse_read_slab(struct gcoo_h5_sparse_file_s *f, gcoo_dtype dtype, int64_t b,
                                      int64_t e, gcoo_sparse *slab) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *pl = NULL;
  int32_t *ia = NULL, *ib = NULL;
  void *vals = NULL;
  gcoo_sparse A = NULL;
  GCOO_VALID_OBJECT(f, GCOO_MAGIC_H5_SPARSE, "HDF5 sparse file");
  const gcoo_h5_info *in = &f->info;
  int gcoo = in->format == GCOO_FORMAT_GCOO;
  if (!slab)
    st = GCOO_ERROR(GCOO_ERR_NULL, "slab output is NULL");
  else if (dtype != GCOO_FLOAT32 && dtype != GCOO_FLOAT64)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "unknown element type %d", (int)dtype);
  else if (!(0 <= b && b <= e && e <= in->nmajor))
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "slab [%lld, %lld) is not inside the %lld %ss of %s",
                    (long long)b, (long long)e, (long long)in->nmajor, major_word(in->format),
                    f->d[0].label);
  else if (!f->ptr)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "file handle was opened without its pointer array");
  if (slab) *slab = NULL;
  st = gcoo__h5_agree(&f->c, st);
  if (st < 0) return st;

  int64_t lo = f->ptr[b], cnt = f->ptr[e] - lo, nmaj = e - b;
  st = gcoo__malloc_n((void **)&pl, nmaj + 1, sizeof *pl, "slab pointers");
  if (st >= 0) st = gcoo__malloc_n((void **)&ia, cnt, sizeof *ia, "slab indices");
  if (st >= 0 && gcoo) st = gcoo__malloc_n((void **)&ib, cnt, sizeof *ib, "slab columns");
  if (st >= 0) st = gcoo__malloc_n(&vals, cnt, gcoo_dtype_size(dtype), "slab values");
  /* collective from here: every rank reads (or takes part with nothing) */
  gcoo__h5_kind vk = gcoo__h5_kind_of_dtype(dtype);
  gcoo__h5_read_1d(&f->c, &f->d[0], lo, cnt, H5K_I32, ia, &st);
  if (gcoo) gcoo__h5_read_1d(&f->c, &f->d[1], lo, cnt, H5K_I32, ib, &st);
  gcoo__h5_read_1d(&f->c, &f->d[gcoo ? 2 : 1], lo, cnt, vk, vals, &st);
  if (st >= 0) {
    for (int64_t i = 0; i <= nmaj; i++) pl[i] = f->ptr[b + i] - lo;
    st = gcoo ? build_gcoo(f, dtype, b, nmaj, lo, &pl, &ia, &ib, &vals, &A)
              : build_compressed(f, dtype, b, nmaj, lo, &pl, &ia, &vals, &A);
  }
  if (st >= 0) st = gcoo__h5_guard_check(&f->guard, f->path.file);
  st = gcoo__h5_agree(&f->c, st);
  if (st >= 0) {
    *slab = A;
    A = NULL;
  }
  gcoo_sparse_destroy(&A);
  free(pl);
  free(ia);
  free(ib);
  free(vals);
  return st;
}

/* ---- writing ---------------------------------------------------------------------------------- */

typedef struct sparse_parts {
  gcoo_sparse_info si;
  gcoo_sparse_arrays a;
  int64_t major0, entry0, nmaj;
  int last; /* this rank writes the final pointer */
} sparse_parts;

static void write_parts(const gcoo__h5_comm *c, const gcoo__h5_dset *d, void *ctx,
                        gcoo_status *st) {
  const sparse_parts *w = ctx;
  gcoo__h5_kind vk = gcoo__h5_kind_of_dtype(w->si.dtype);
  int64_t nnz = w->si.nnz;
  if (w->si.format == GCOO_FORMAT_GCOO) {
    gcoo__h5_write_1d(c, &d[0], 0, nnz, H5K_I32, w->a.rows, 0, st);
    gcoo__h5_write_1d(c, &d[1], 0, nnz, H5K_I32, w->a.cols, 0, st);
    gcoo__h5_write_1d(c, &d[2], 0, nnz, vk, w->a.values, 0, st);
    gcoo__h5_write_1d(c, &d[3], 0, w->nmaj + 1, H5K_I64, w->a.gidx, 0, st);
    gcoo__h5_write_1d(c, &d[4], 0, w->nmaj, H5K_I64, w->a.gnnz, 0, st);
  } else {
    gcoo__h5_write_1d(c, &d[0], w->entry0, nnz, H5K_I32, w->a.ind, 0, st);
    gcoo__h5_write_1d(c, &d[1], w->entry0, nnz, vk, w->a.values, 0, st);
    gcoo__h5_write_1d(c, &d[2], w->major0, w->nmaj + w->last, H5K_I64, w->a.ptr, w->entry0, st);
  }
}

gcoo_status gcoo__h5_sparse_write(const gcoo__h5_comm *c, const char *path, int64_t nmajor_global,
                                  int64_t major0, gcoo_sparse A, gcoo_status local) {
  gcoo_status st = gcoo__h5_agree(c, local);
  sparse_parts w;
  gcoo__h5_wlayout lay;
  int64_t before = 0, total = 0;
  memset(&w, 0, sizeof w);
  memset(&lay, 0, sizeof lay);
  if (st < 0) return st;
  st = gcoo_sparse_get_info(A, &w.si);
  if (st >= 0) st = gcoo_sparse_get_arrays(A, &w.a);
  if (st >= 0 && w.si.format == GCOO_FORMAT_COO)
    st = GCOO_ERROR(GCOO_ERR_INTERNAL, "COO reached the HDF5 writer (convert to CSR first)");
  if (st >= 0 && w.si.format == GCOO_FORMAT_GCOO && c->size > 1)
    st = GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "parallel GCOO writes are not implemented");
  st = gcoo__h5_agree(c, st);
  if (st < 0) return st;
  int gcoo = w.si.format == GCOO_FORMAT_GCOO, csr = w.si.format == GCOO_FORMAT_CSR;
  w.nmaj = gcoo ? w.si.ngroups : csr ? w.si.nrows : w.si.ncols;
  w.major0 = major0;
  w.last = c->rank == c->size - 1;
  /* where this rank's entries go, and whether the slabs tile the major dimension in order */
  GCOO_CALL(gcoo__h5_exscan_i64(c, w.si.nnz, &w.entry0, &total));
  int64_t nnz_total = total;
  GCOO_CALL(gcoo__h5_exscan_i64(c, w.nmaj, &before, &total));
  if (major0 != before)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "rank %d: its %ss start at %lld but the ranks before it hold %lld %ss (slabs "
                    "must tile 0..%lld in rank order)",
                    c->rank, major_word(w.si.format), (long long)major0, (long long)before,
                    major_word(w.si.format), (long long)nmajor_global);
  else if (total != nmajor_global)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "the slabs hold %lld %ss in all, not %lld",
                    (long long)total, major_word(w.si.format), (long long)nmajor_global);
  st = gcoo__h5_agree(c, st);
  if (st < 0) return st;
  int64_t same[4] = {csr ? w.si.ncols : w.si.nrows, w.si.dtype, w.si.format, nmajor_global};
  GCOO_CALL(gcoo__h5_same_on_all(c, same, 4, NULL, "minor dimension, dtype, format, major size"));

  lay.encoding = encoding_of(w.si.format);
  lay.shape[0] = csr ? nmajor_global : w.si.nrows;
  lay.shape[1] = csr ? w.si.ncols : gcoo ? w.si.ncols : nmajor_global;
  gcoo__h5_kind vk = gcoo__h5_kind_of_dtype(w.si.dtype);
  if (gcoo) {
    lay.p = w.si.p;
    lay.nd = 5;
    for (int i = 0; i < 5; i++) {
      lay.d[i].name = gcoo_names[i];
      lay.d[i].ndims = 1;
    }
    lay.d[0].kind = lay.d[1].kind = H5K_I32;
    lay.d[2].kind = vk;
    lay.d[3].kind = lay.d[4].kind = H5K_I64;
    lay.d[0].dims[0] = lay.d[1].dims[0] = lay.d[2].dims[0] = nnz_total;
    lay.d[3].dims[0] = w.nmaj + 1;
    lay.d[4].dims[0] = w.nmaj;
  } else {
    lay.nd = 3;
    for (int i = 0; i < 3; i++) {
      lay.d[i].name = csx_names[i];
      lay.d[i].ndims = 1;
    }
    lay.d[0].kind = H5K_I32;
    lay.d[1].kind = vk;
    lay.d[2].kind = H5K_I64;
    lay.d[0].dims[0] = lay.d[1].dims[0] = nnz_total;
    lay.d[2].dims[0] = nmajor_global + 1;
  }
  GCOO_CALL(gcoo__h5_write_object(c, path, &lay, write_parts, &w, GCOO_SUCCESS));
  return GCOO_SUCCESS;
}

/* ---- the serial API ---------------------------------------------------------------------------- */

static gcoo_status inspect(const char *path, gcoo_h5_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_comm one;
  gcoo__h5_path p = {NULL, NULL};
  hid_t fid = H5I_INVALID_HID;
  gcoo__h5_comm_serial(&one);
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  GCOO_GOTO(gcoo__h5_path_parse(path, &p));
  GCOO_GOTO(gcoo__h5_file_open(&one, p.file, &fid));
  GCOO_GOTO(describe(fid, &p, info, NULL));
done:
  gcoo__h5_close(&fid);
  gcoo__h5_path_free(&p);
  return st;
}

gcoo_status gcoo_h5_inspect(const char *path, gcoo_h5_info *info) {
  gcoo__h5_quiet q;
  gcoo__h5_quiet_begin(&q);
  gcoo_status st = inspect(path, info);
  gcoo__h5_quiet_end(&q);
  GCOO_CALL(st);
  return st;
}

/* The byte ranges of the entry datasets that rank `rank` of `size` reads (its share by entries,
 * which is what an nnz-balanced partition gives it) and, on rank 0, the pointer array, handed
 * to a background thread that asks the kernel to read them into the page cache. */
static gcoo_status prefetch(const char *path, int rank, int size) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_comm one;
  gcoo__h5_path p = {NULL, NULL};
  gcoo_h5_info info;
  hid_t fid = H5I_INVALID_HID, obj = H5I_INVALID_HID;
  int64_t off[GCOO__PREFETCH_MAX_RANGES], len[GCOO__PREFETCH_MAX_RANGES];
  int n = 0, fd = -1, is_group = 0;
  gcoo__h5_comm_serial(&one);
  GCOO_CHECK(rank >= 0 && size >= 1 && rank < size, GCOO_ERR_INVALID_ARG, "rank %d of %d ranks",
             rank, size);
  GCOO_GOTO(gcoo__h5_path_parse(path, &p));
  GCOO_GOTO(gcoo__h5_file_open(&one, p.file, &fid));
  GCOO_GOTO(describe(fid, &p, &info, NULL));
  if (!info.is_sparse) goto done;
  GCOO_GOTO(gcoo__h5_open_object(fid, &p, &obj, &is_group));
  const int gcoo = info.format == GCOO_FORMAT_GCOO, nent = gcoo ? 3 : 2;
  const char *const *names = gcoo ? gcoo_names : csx_names;
  for (int i = 0; i <= nent && st >= 0; i++) {
    const char *name = i < nent ? names[i] : gcoo ? "gIdxes" : "indptr";
    if (i == nent && rank != 0) break; /* rank 0 reads the pointers for everyone */
    gcoo__h5_dset d = GCOO__H5_DSET_INIT;
    gcoo__h5_direct w;
    st = gcoo__h5_dset_open(obj, name, name, &d);
    if (st >= 0 && gcoo__h5_direct_find(&d, d.kind, &w)) {
      int64_t lo = i < nent ? w.nbytes / size * rank : 0;
      int64_t hi = i < nent && rank + 1 < size ? w.nbytes / size * (rank + 1) : w.nbytes;
      if (fd < 0) fd = dup(w.fd);
      off[n] = w.offset + lo;
      len[n++] = hi - lo;
    }
    gcoo__h5_dset_close(&d);
  }
done:
  gcoo__h5_close(&obj);
  if (fd >= 0 && n > 0)
    gcoo__prefetch_ranges(fd, off, len, n); /* closes fd */
  else if (fd >= 0)
    close(fd);
  gcoo__h5_close(&fid);
  gcoo__h5_path_free(&p);
  return st;
}

gcoo_status gcoo_h5_prefetch(const char *path, int rank, int size) {
  gcoo__h5_quiet q;
  gcoo__h5_quiet_begin(&q);
  gcoo_status st = path ? prefetch(path, rank, size) : GCOO_ERROR(GCOO_ERR_NULL, "path is NULL");
  gcoo__h5_quiet_end(&q);
  GCOO_CALL(st);
  return st;
}

static gcoo_status read_sparse(const char *path, gcoo_dtype dtype, gcoo_sparse *A) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_comm one;
  struct gcoo_h5_sparse_file_s *f = NULL;
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "output matrix is NULL");
  *A = NULL;
  gcoo__h5_comm_serial(&one);
  GCOO_GOTO(gcoo__h5_sparse_open(&one, path, 1, &f));
  GCOO_GOTO(gcoo__h5_sparse_read_slab(f, dtype, 0, f->info.nmajor, A));
done:
  gcoo__h5_sparse_close(&f);
  return st;
}

gcoo_status gcoo_h5_read_sparse(const char *path, gcoo_dtype dtype, gcoo_sparse *A) {
  GCOO_H5_RETURN_QUIETLY(read_sparse(path, dtype, A));
}

static gcoo_status write_sparse(const char *path, gcoo_sparse A, int flags) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_comm one;
  gcoo_sparse B = NULL;
  gcoo_sparse_info si;
  gcoo__h5_comm_serial(&one);
  one.write_flags = flags;
  GCOO_CALL(gcoo_sparse_get_info(A, &si));
  if (si.format == GCOO_FORMAT_COO) {
    GCOO_CALL(gcoo_sparse_convert(&B, A, GCOO_FORMAT_CSR, 0));
    A = B;
    GCOO_GOTO(gcoo_sparse_get_info(A, &si));
  }
  int64_t nmaj = si.format == GCOO_FORMAT_GCOO  ? si.ngroups
                 : si.format == GCOO_FORMAT_CSC ? si.ncols
                                                : si.nrows;
  GCOO_GOTO(gcoo__h5_sparse_write(&one, path, nmaj, 0, A, GCOO_SUCCESS));
done:
  gcoo_sparse_destroy(&B);
  return st;
}

gcoo_status gcoo_h5_write_sparse(const char *path, gcoo_sparse A, int flags) {
  GCOO_H5_RETURN_QUIETLY(write_sparse(path, A, flags));
}
