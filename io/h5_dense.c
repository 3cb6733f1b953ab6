/* SPDX-License-Identifier: MIT */
/* io/h5_dense.c: dense matrices as 2-D datasets: rows in ranges or sets read in rounds (each
 * rank its own rows), rows written in rounds, and the serial API (gcoo_h5_read_dense,
 * gcoo_h5_write_dense) as the same code on one process.
 *
 * How a dataset maps to the matrix: "row-major" (or no layout attribute: what h5py writes for a
 * numpy array) means dataset[i][j] = A(i, j); "column-major" means the dataset has dims
 * [ncols, nrows] and dataset[j][i] = A(i, j) (what Fortran, Julia and MATLAB write); a 1-D
 * dataset is an n x 1 matrix. gcoo writes row-major. */
#include <stdlib.h>
#include <string.h>

#include "h5_impl.h"

/* Rows of a round from a row set: at most this many separate runs, because parallel HDF5 1.10
 * builds a union of hyperslabs in time growing with the number already selected. */
enum { MAX_RUNS_PER_ROUND = 1024 };

gcoo_status gcoo__h5_dense_describe(const gcoo__h5_dset *d, const char *layout_attr,
                                    gcoo_h5_info *info) {
  memset(info, 0, sizeof *info);
  int col = 0;
  if (layout_attr && layout_attr[0]) {
    if (!strcmp(layout_attr, "column-major"))
      col = 1;
    else
      GCOO_CHECK(!strcmp(layout_attr, "row-major"), GCOO_ERR_FORMAT,
                 "%s: attribute layout = \"%s\"; gcoo reads \"row-major\" and \"column-major\"",
                 d->label, layout_attr);
  }
  info->is_sparse = 0;
  info->layout = col ? GCOO_COL_MAJOR : GCOO_ROW_MAJOR;
  info->nrows = col && d->ndims == 2 ? d->dims[1] : d->dims[0];
  info->ncols = col && d->ndims == 2 ? d->dims[0] : d->dims[1];
  info->nmajor = info->nrows;
  info->dtype = d->kind == H5K_F32 ? GCOO_FLOAT32 : GCOO_FLOAT64;
  info->format = GCOO_FORMAT_CSR; /* unused for dense objects */
  snprintf(info->value_type, sizeof info->value_type, "%s", gcoo__h5_kind_name(d->kind));
  return GCOO_SUCCESS;
}

/* Rank 0: the dataset's description (layout attribute read and checked). */
static gcoo_status describe_dense(hid_t fid, const gcoo__h5_path *p, gcoo_h5_info *info) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t obj = H5I_INVALID_HID;
  gcoo__h5_dset d = GCOO__H5_DSET_INIT;
  char label[GCOO_H5_LABEL], layout[64], enc[96];
  int is_group = 0, found = 0;
  gcoo__h5_label(label, sizeof label, p, NULL);
  GCOO_GOTO(gcoo__h5_open_object(fid, p, &obj, &is_group));
  if (is_group) {
    GCOO_GOTO(gcoo__h5_attr_string(obj, "encoding-type", label, enc, sizeof enc, &found));
    GCOO_CHECK_GOTO(0, GCOO_ERR_FORMAT, "%s is a group%s%s%s, not a dense dataset", label,
                    found ? " (encoding-type " : "", found ? enc : "", found ? ")" : "");
  }
  GCOO_GOTO(gcoo__h5_dset_open(obj, NULL, label, &d));
  GCOO_GOTO(gcoo__h5_attr_string(obj, "layout", label, layout, sizeof layout, &found));
  GCOO_GOTO(gcoo__h5_dense_describe(&d, layout, info));
done:
  gcoo__h5_dset_close(&d);
  gcoo__h5_close(&obj);
  return st;
}

typedef struct dense_file {
  gcoo__h5_dset d;
  int col; /* dataset is [ncols, nrows] */
  int64_t nrows, ncols;
} dense_file;

/* Add (op = SET or OR) the matrix rows [r, r + len) to a selection of the dataset. */
static gcoo_status select_rows(hid_t space, const dense_file *s, int64_t r, int64_t len,
                               H5S_seloper_t op) {
  gcoo_status st = GCOO_SUCCESS;
  hsize_t start[2] = {0, 0}, count[2] = {0, 0};
  if (s->d.ndims == 1) {
    start[0] = (hsize_t)r, count[0] = (hsize_t)len;
  } else if (!s->col) {
    start[0] = (hsize_t)r, count[0] = (hsize_t)len, count[1] = (hsize_t)s->ncols;
  } else {
    start[1] = (hsize_t)r, count[0] = (hsize_t)s->ncols, count[1] = (hsize_t)len;
  }
  H5_TRY(H5Sselect_hyperslab(space, op, start, NULL, count, NULL), "%s: selecting rows %lld..%lld",
         s->d.label, (long long)r, (long long)(r + len - 1));
done:
  return st;
}

/* End of the round that starts at row i0 of the n rows wanted: at most R rows and, for a row
 * set, at most MAX_RUNS_PER_ROUND runs of consecutive rows. */
static int64_t round_end(const int64_t *rows, int64_t n, int64_t i0, int64_t R) {
  int64_t i1 = i0 + R < n ? i0 + R : n;
  if (!rows) return i1;
  int64_t runs = 1;
  for (int64_t i = i0 + 1; i < i1; i++)
    if (rows[i] != rows[i - 1] + 1 && ++runs > MAX_RUNS_PER_ROUND) return i;
  return i1;
}

gcoo_status gcoo__h5_dense_read(const gcoo__h5_comm *c, const char *path, gcoo_dtype dtype,
                                int64_t row0, const int64_t *rows, int64_t n, int mode,
                                gcoo_layout layout, gcoo_dense *D) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_path p = {NULL, NULL};
  hid_t fid = H5I_INVALID_HID, obj = H5I_INVALID_HID, space = H5I_INVALID_HID;
  dense_file s;
  gcoo_h5_info info;
  gcoo__h5_guard guard = GCOO__H5_GUARD_INIT;
  void *scratch = NULL;
  s.d = (gcoo__h5_dset)GCOO__H5_DSET_INIT;
  memset(&info, 0, sizeof info);
  if (!D)
    st = GCOO_ERROR(GCOO_ERR_NULL, "output matrix is NULL");
  else if (dtype != GCOO_FLOAT32 && dtype != GCOO_FLOAT64)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "unknown element type %d", (int)dtype);
  else if (layout != GCOO_ROW_MAJOR && layout != GCOO_COL_MAJOR)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "unknown layout %d", (int)layout);
  else if (mode != GCOO__H5_ROWS_ALL && n < 0)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "negative row count %lld", (long long)n);
  else if (mode == GCOO__H5_ROWS_SET && n > 0 && !rows)
    st = GCOO_ERROR(GCOO_ERR_NULL, "row set is NULL with n = %lld", (long long)n);
  if (D) memset(D, 0, sizeof *D);
  if (st >= 0) st = gcoo__h5_path_parse(path, &p);
  st = gcoo__h5_agree(c, st);
  if (st < 0) goto done;
  GCOO_GOTO(gcoo__h5_file_open(c, p.file, &fid));
  GCOO_GOTO(gcoo__h5_agree(c, gcoo__h5_guard_open(&guard, p.file)));
  if (c->rank == 0) st = describe_dense(fid, &p, &info);
  GCOO_GOTO(gcoo__h5_agree(c, st));
  GCOO_GOTO(gcoo__h5_bcast(c, &info, sizeof info, 0));
  {
    int is_group = 0;
    char label[GCOO_H5_LABEL];
    gcoo__h5_label(label, sizeof label, &p, NULL);
    st = gcoo__h5_open_object(fid, &p, &obj, &is_group);
    if (st >= 0) st = gcoo__h5_dset_open(obj, NULL, label, &s.d);
    GCOO_GOTO(gcoo__h5_agree(c, st));
  }
  s.col = info.layout == GCOO_COL_MAJOR;
  s.nrows = info.nrows;
  s.ncols = info.ncols;
  if (mode == GCOO__H5_ROWS_ALL) row0 = 0, n = s.nrows;
  if (mode != GCOO__H5_ROWS_SET) rows = NULL;
  if (!rows && (row0 < 0 || row0 > s.nrows - n))
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "rows %lld..%lld are not inside the %lld rows of %s",
                    (long long)row0, (long long)(row0 + n - 1), (long long)s.nrows, s.d.label);
  for (int64_t i = 0; rows && i < n && st >= 0; i++)
    if (rows[i] < 0 || rows[i] >= s.nrows || (i > 0 && rows[i] <= rows[i - 1]))
      st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                      "rows[%lld] = %lld: the row set must be strictly increasing inside the "
                      "%lld rows of %s",
                      (long long)i, (long long)rows[i], (long long)s.nrows, s.d.label);
  GCOO_GOTO(gcoo__h5_agree(c, st));

  /* collective from here: every rank makes the same number of rounds */
  st = gcoo_dense_create(D, dtype, layout, n, s.ncols);
  size_t fs = gcoo__h5_kind_size(s.d.kind), ts = gcoo_dtype_size(dtype);
  int64_t row_bytes = s.ncols * (int64_t)(fs > ts ? fs : ts);
  int64_t R = gcoo__h5_chunk_bytes() / (row_bytes > 0 ? row_bytes : 1);
  if (R < 1) R = 1;
  int64_t mine = 0;
  if (st >= 0 && s.ncols > 0)
    for (int64_t i0 = 0; i0 < n; i0 = round_end(rows, n, i0, R)) mine++;
  int64_t rounds = gcoo__h5_rounds(c, mine);
  int direct = st >= 0 && s.d.kind == gcoo__h5_kind_of_dtype(dtype) && !s.col &&
               layout == GCOO_ROW_MAJOR;
  if (st >= 0 && !direct && mine > 0)
    st = gcoo__malloc_n(&scratch, (n < R ? n : R) * s.ncols, fs, "dense read buffer");
  space = H5Dget_space(s.d.id);
  if (space < 0 && st >= 0)
    st = gcoo__h5_raise(GCOO_ERR_HDF5, __FILE__, __LINE__, __func__, "%s: dataspace", s.d.label);
  int64_t i0 = 0;
  for (int64_t r = 0; r < rounds; r++) {
    int64_t i1 = st >= 0 && i0 < n && s.ncols > 0 ? round_end(rows, n, i0, R) : i0, m = i1 - i0;
    gcoo_status sel = GCOO_SUCCESS;
    if (space >= 0) {
      if (m == 0) {
        H5Sselect_none(space);
      } else if (!rows) {
        sel = select_rows(space, &s, row0 + i0, m, H5S_SELECT_SET);
      } else {
        for (int64_t a = i0; a < i1 && sel >= 0;) {
          int64_t z = a + 1;
          while (z < i1 && rows[z] == rows[z - 1] + 1) z++;
          sel = select_rows(space, &s, rows[a], z - a, a == i0 ? H5S_SELECT_SET : H5S_SELECT_OR);
          a = z;
        }
      }
      if (sel < 0) {
        H5Sselect_none(space);
        m = 0;
      }
    }
    void *buf = direct ? (char *)D->data + (size_t)(i0 * s.ncols) * ts : scratch;
    gcoo_status x = gcoo__h5_xfer(c, s.d.id, 0, s.d.kind, space, m * s.ncols, buf, s.d.label);
    if (st >= 0 && sel < 0) st = sel;
    if (st >= 0 && x < 0) st = x;
    if (st >= 0 && m > 0) {
      int64_t bad;
      if (direct) {
        bad = gcoo__h5_first_nonfinite(dtype, buf, m * s.ncols);
      } else {
        int64_t ssi = s.col ? 1 : s.ncols, ssj = s.col ? m : 1;
        int64_t dsi = layout == GCOO_ROW_MAJOR ? D->ld : 1,
                dsj = layout == GCOO_ROW_MAJOR ? 1 : D->ld;
        char *dst = (char *)D->data + (size_t)(i0 * dsi) * ts;
        bad = gcoo__h5_copy2d(s.d.kind, scratch, ssi, ssj, dtype, dst, dsi, dsj, m, s.ncols);
      }
      if (bad >= 0) {
        int64_t bi = i0 + bad / s.ncols, bj = bad % s.ncols;
        st = GCOO_ERROR(GCOO_ERR_NOT_FINITE,
                        "%s: row %lld, column %lld is %g; gcoo refuses NaN "
                        "and infinite values",
                        s.d.label, (long long)(rows ? rows[bi] : row0 + bi), (long long)bj,
                        gcoo_dense_get(D, bi, bj));
      }
    }
    i0 = i1;
  }
  if (st >= 0) st = gcoo__h5_guard_check(&guard, p.file);
  st = gcoo__h5_agree(c, st);
done:
  if (st < 0 && D) gcoo_dense_destroy(D);
  free(scratch);
  gcoo__h5_close(&space);
  gcoo__h5_dset_close(&s.d);
  gcoo__h5_close(&obj);
  gcoo__h5_close(&fid);
  gcoo__h5_guard_close(&guard);
  gcoo__h5_path_free(&p);
  return st;
}

/* ---- writing ---------------------------------------------------------------------------------- */

typedef struct dense_parts {
  const gcoo_dense *D;
  int64_t row0;
} dense_parts;

static void write_rows(const gcoo__h5_comm *c, const gcoo__h5_dset *d, void *ctx, gcoo_status *st) {
  const dense_parts *w = ctx;
  const gcoo_dense *D = w->D;
  gcoo__h5_kind k = gcoo__h5_kind_of_dtype(D->dtype);
  size_t es = gcoo_dtype_size(D->dtype);
  int64_t nc = D->ncols, n = D->nrows;
  int64_t R = gcoo__h5_chunk_bytes() / (nc > 0 ? nc * (int64_t)es : 1);
  if (R < 1) R = 1;
  int64_t mine = *st < 0 || nc == 0 || n == 0 ? 0 : (n + R - 1) / R;
  int64_t rounds = gcoo__h5_rounds(c, mine);
  int direct = D->layout == GCOO_ROW_MAJOR && D->ld == nc;
  void *scratch = NULL;
  hid_t space = H5I_INVALID_HID;
  if (*st >= 0 && !direct && mine > 0) {
    gcoo_status s = gcoo__malloc_n(&scratch, (n < R ? n : R) * nc, es, "dense write buffer");
    if (s < 0) *st = s;
  }
  space = H5Dget_space(d->id);
  if (space < 0 && *st >= 0)
    *st = gcoo__h5_raise(GCOO_ERR_HDF5, __FILE__, __LINE__, __func__, "%s: dataspace", d->label);
  for (int64_t r = 0; r < rounds; r++) {
    int64_t i0 = r * R, m = *st >= 0 && i0 < n ? (n - i0 < R ? n - i0 : R) : 0;
    void *buf = scratch;
    if (m > 0) {
      int64_t bad;
      if (direct) {
        buf = (char *)D->data + (size_t)(i0 * nc) * es;
        bad = gcoo__h5_first_nonfinite(D->dtype, buf, m * nc);
      } else {
        int row = D->layout == GCOO_ROW_MAJOR;
        int64_t ssi = row ? D->ld : 1, ssj = row ? 1 : D->ld;
        const char *src = (const char *)D->data + (size_t)(i0 * ssi) * es;
        bad = gcoo__h5_copy2d(k, src, ssi, ssj, D->dtype, scratch, nc, 1, m, nc);
      }
      if (bad >= 0) {
        int64_t bi = i0 + bad / nc, bj = bad % nc;
        *st = GCOO_ERROR(GCOO_ERR_NOT_FINITE,
                         "%s: row %lld, column %lld is %g: refusing to write "
                         "a non-finite value",
                         d->label, (long long)(w->row0 + bi), (long long)bj,
                         gcoo_dense_get(D, bi, bj));
        m = 0;
      }
    }
    gcoo_status sel = GCOO_SUCCESS;
    if (space >= 0) {
      if (m > 0) {
        hsize_t start[2] = {(hsize_t)(w->row0 + i0), 0}, count[2] = {(hsize_t)m, (hsize_t)nc};
        if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) < 0) {
          sel = gcoo__h5_raise(GCOO_ERR_HDF5, __FILE__, __LINE__, __func__, "%s: selecting rows",
                               d->label);
          m = 0;
        }
      }
      if (m == 0) H5Sselect_none(space);
    }
    gcoo_status x = gcoo__h5_xfer(c, d->id, 1, k, space, m * nc, buf, d->label);
    if (*st >= 0 && sel < 0) *st = sel;
    if (*st >= 0 && x < 0) *st = x;
  }
  gcoo__h5_close(&space);
  free(scratch);
}

gcoo_status gcoo__h5_dense_write(const gcoo__h5_comm *c, const char *path, int64_t nrows_global,
                                 int64_t row0, const gcoo_dense *D, gcoo_status local) {
  gcoo_status st = gcoo__h5_agree(c, local);
  gcoo__h5_wlayout lay;
  dense_parts w = {D, row0};
  int64_t before = 0, total = 0;
  if (st < 0) return st;
  int64_t same[3] = {D->ncols, D->dtype, nrows_global};
  GCOO_CALL(gcoo__h5_same_on_all(c, same, 3, NULL, "columns, dtype, global rows"));
  GCOO_CALL(gcoo__h5_exscan_i64(c, D->nrows, &before, &total));
  if (row0 != before)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "rank %d: its rows start at %lld but the ranks before it hold %lld rows (row "
                    "ranges must tile 0..%lld in rank order)",
                    c->rank, (long long)row0, (long long)before, (long long)nrows_global);
  else if (total != nrows_global)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "the ranks hold %lld rows in all, not %lld",
                    (long long)total, (long long)nrows_global);
  GCOO_CALL(gcoo__h5_agree(c, st));
  memset(&lay, 0, sizeof lay);
  lay.nd = 1;
  lay.d[0].name = NULL;
  lay.d[0].kind = gcoo__h5_kind_of_dtype(D->dtype);
  lay.d[0].ndims = 2;
  lay.d[0].dims[0] = nrows_global;
  lay.d[0].dims[1] = D->ncols;
  GCOO_CALL(gcoo__h5_write_object(c, path, &lay, write_rows, &w, GCOO_SUCCESS));
  return GCOO_SUCCESS;
}

/* ---- the serial API ---------------------------------------------------------------------------- */

gcoo_status gcoo_h5_read_dense(const char *path, gcoo_dtype dtype, gcoo_layout layout,
                               gcoo_dense *D) {
  gcoo__h5_comm one;
  gcoo__h5_comm_serial(&one);
  GCOO_H5_RETURN_QUIETLY(
      gcoo__h5_dense_read(&one, path, dtype, 0, NULL, 0, GCOO__H5_ROWS_ALL, layout, D));
}

gcoo_status gcoo__h5_dense_check_host(const gcoo_dense *D) {
  GCOO_CALL(gcoo_dense_check(D));
  GCOO_CHECK(D->mem == GCOO_MEM_HOST, GCOO_ERR_INVALID_ARG,
             "the HDF5 writer needs a host matrix (this one is in device memory)");
  return GCOO_SUCCESS;
}

gcoo_status gcoo_h5_write_dense(const char *path, const gcoo_dense *D, int flags) {
  gcoo__h5_quiet q;
  gcoo__h5_comm one;
  gcoo__h5_comm_serial(&one);
  one.write_flags = flags;
  gcoo__h5_quiet_begin(&q);
  gcoo_status st = gcoo__h5_dense_check_host(D);
  if (st >= 0) st = gcoo__h5_dense_write(&one, path, D->nrows, 0, D, GCOO_SUCCESS);
  gcoo__h5_quiet_end(&q);
  GCOO_CALL(st);
  return st;
}
