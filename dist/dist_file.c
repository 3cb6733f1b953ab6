/* SPDX-License-Identifier: MIT */
/* dist/dist_file.c: distributed operators straight from files, each rank holding only its slab.
 *
 * The file holds the sparse operand as the reading names it: A of Y = A X, or S of C = B S.
 * Ranks own contiguous rows of A (= columns of S), so:
 *   - an HDF5 object whose major dimension is rows of A (CSR of A; CSC or GCOO of S) is split by
 *     nnz over its major pointer in whole units (groups of p rows, or the file's GCOO groups) and
 *     each rank reads only its slab (one collective hyperslab per dataset);
 *   - any other HDF5 layout (CSC or GCOO of A, CSR of S) is read in nnz-balanced slabs of its
 *     own major dimension and redistributed by row of A with one all-to-all of entries;
 *   - Matrix Market files are read on rank 0 and scattered in CSR slabs (point-to-point, counts
 *     past INT_MAX in 1 MiB blocks). */
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"
#include "gcoo/mtx.h"
#if GCOO_HAVE_HDF5
#include "gcoo/h5.h"
#endif

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && !strcmp(s + n - t, tail);
}

/* Offsets of units of p major indices from the major pointer (n + 1 offsets). */
static gcoo_status unit_ptr(const int64_t *ptr, int64_t n, int64_t p, int64_t **out,
                            int64_t *nunits) {
  *nunits = (n + p - 1) / p;
  GCOO_CALL(gcoo__malloc_n((void **)out, *nunits + 1, sizeof(int64_t), "unit offsets"));
  for (int64_t u = 0; u <= *nunits; u++) (*out)[u] = ptr[u * p < n ? u * p : n];
  return GCOO_SUCCESS;
}

/* ---- Matrix Market: read on rank 0, scatter CSR slabs ------------------------------------- */

gcoo_status gcoo__dist_scatter_csr(gcoo_dist d, gcoo_sparse A /* rank 0 only */, gcoo_dtype dtype,
                                   int64_t p, int64_t dims[2], int64_t *row0, gcoo_sparse *slab) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_partition part = {0};
  int64_t *bounds = NULL; /* size + 1 row offsets, then size + 1 entry offsets */
  int64_t *ptr = NULL, *uptr = NULL;
  int32_t *ind = NULL;
  void *vals = NULL;
  MPI_Request *req = NULL;
  const size_t es = gcoo_dtype_size(dtype);
  const int size = d->size;
  gcoo_csr_view v = {0};

  st = gcoo__malloc_n((void **)&bounds, 2 * (int64_t)(size + 1), sizeof *bounds, "scatter plan");
  if (st >= 0) st = gcoo__malloc_n((void **)&req, 6 * (int64_t)size, sizeof *req, "requests");
  if (st >= 0 && d->rank == 0) {
    int64_t nunits;
    st = gcoo__sparse_csr_view(A, &v);
    if (st >= 0) st = unit_ptr(v.ptr, v.nrows, p, &uptr, &nunits);
    if (st >= 0) st = gcoo_partition_balanced(uptr, nunits, size, &part);
    if (st >= 0) {
      dims[0] = v.nrows;
      dims[1] = v.ncols;
      for (int r = 0; r <= size; r++) {
        int64_t row = part.begin[r] * p < v.nrows ? part.begin[r] * p : v.nrows;
        bounds[r] = row;
        bounds[size + 1 + r] = v.ptr[row];
      }
    }
  }
  GCOO_GOTO(gcoo__dist_agree(d, st));
  GCOO_GOTO(GCOO_MPI(MPI_Bcast(dims, 2, MPI_INT64_T, 0, d->comm)));
  GCOO_GOTO(GCOO_MPI(MPI_Bcast(bounds, 2 * (size + 1), MPI_INT64_T, 0, d->comm)));
  const int64_t *rb = bounds, *eb = bounds + size + 1;
  const int64_t m = rb[d->rank + 1] - rb[d->rank], nnz = eb[d->rank + 1] - eb[d->rank];
  *row0 = rb[d->rank];
  st = gcoo__malloc_n((void **)&ptr, m + 1, sizeof *ptr, "slab row pointer");
  if (st >= 0) st = gcoo__malloc_n((void **)&ind, nnz, sizeof *ind, "slab columns");
  if (st >= 0) st = gcoo__malloc_n(&vals, nnz, es, "slab values");
  GCOO_GOTO(gcoo__dist_agree(d, st));

  int nreq = 0;
  for (int i = 0; i < 6 * size; i++) req[i] = MPI_REQUEST_NULL;
  if (d->rank == 0) {
    for (int r = 1; r < size && st >= 0; r++) {
      int64_t mr = rb[r + 1] - rb[r], nr = eb[r + 1] - eb[r];
      st = gcoo__mpi_isend_big(v.ptr + rb[r], mr + 1, sizeof(int64_t), r, GCOO_TAG_SCATTER, d->comm,
                               req + nreq);
      nreq += 2;
      if (st >= 0)
        st = gcoo__mpi_isend_big(v.ind + eb[r], nr, sizeof(int32_t), r, GCOO_TAG_SCATTER, d->comm,
                                 req + nreq);
      nreq += 2;
      if (st >= 0)
        st = gcoo__mpi_isend_big((const char *)v.values + (size_t)eb[r] * es, nr, es, r,
                                 GCOO_TAG_SCATTER, d->comm, req + nreq);
      nreq += 2;
    }
    if (st >= 0) {
      memcpy(ptr, v.ptr, (size_t)(m + 1) * sizeof *ptr);
      memcpy(ind, v.ind, (size_t)nnz * sizeof *ind);
      memcpy(vals, v.values, (size_t)nnz * es);
    }
  } else {
    st = gcoo__mpi_irecv_big(ptr, m + 1, sizeof(int64_t), 0, GCOO_TAG_SCATTER, d->comm, req);
    if (st >= 0)
      st = gcoo__mpi_irecv_big(ind, nnz, sizeof(int32_t), 0, GCOO_TAG_SCATTER, d->comm, req + 2);
    if (st >= 0) st = gcoo__mpi_irecv_big(vals, nnz, es, 0, GCOO_TAG_SCATTER, d->comm, req + 4);
    nreq = 6;
  }
  if (st >= 0) st = GCOO_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  if (st >= 0) {
    const int64_t base = ptr[0];
    for (int64_t i = 0; i <= m; i++) ptr[i] -= base;
    st = gcoo__sparse_adopt(slab, GCOO_FORMAT_CSR, dtype, m, dims[1], nnz, 0, ptr, ind, NULL, NULL,
                            NULL, vals);
    ptr = NULL, ind = NULL, vals = NULL;
  }
  GCOO_GOTO(gcoo__dist_agree(d, st));
done:
  gcoo_partition_free(&part);
  free(bounds);
  free(uptr);
  free(ptr);
  free(ind);
  free(vals);
  free(req);
  return st;
}

static gcoo_status read_mtx(gcoo_dist d, const char *path, gcoo_dtype dtype, gcoo_reading reading,
                            int64_t p, int64_t dims[2], int64_t *row0, gcoo_sparse *slab) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse M = NULL, A = NULL;
  if (d->rank == 0) {
    st = gcoo_mtx_read(path, dtype, 0, &M);
    /* the file holds S in the paper's reading: rows of A = S^T are its columns */
    if (st >= 0 && reading == GCOO_DENSE_SPARSE) {
      gcoo_sparse T = NULL;
      st = gcoo_sparse_transpose(&T, M);
      if (st >= 0) st = gcoo_sparse_convert(&A, T, GCOO_FORMAT_CSR, 0);
      gcoo_sparse_destroy(&T);
    } else if (st >= 0) {
      st = gcoo_sparse_convert(&A, M, GCOO_FORMAT_CSR, 0);
    }
    gcoo_sparse_destroy(&M);
  }
  /* agree first: a reading failure on rank 0 must reach every rank with its own message */
  st = gcoo__dist_agree(d, st);
  if (st >= 0) st = gcoo__dist_scatter_csr(d, A, dtype, p, dims, row0, slab);
  gcoo_sparse_destroy(&A);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* ---- entries to the owners of their rows ---------------------------------------------- */

/* Post the n entries at rows, cols and vals (es bytes each) to or from rank peer: three
 * messages of any size, six requests (gcoo__mpi_isend_big / irecv_big). */
static gcoo_status post_entries(int send, int32_t *rows, int32_t *cols, char *vals, size_t es,
                                int64_t n, int peer, MPI_Comm comm, MPI_Request req[6]) {
  if (send) {
    GCOO_CALL(gcoo__mpi_isend_big(rows, n, sizeof *rows, peer, GCOO_TAG_REDIST, comm, req));
    GCOO_CALL(gcoo__mpi_isend_big(cols, n, sizeof *cols, peer, GCOO_TAG_REDIST, comm, req + 2));
    GCOO_CALL(gcoo__mpi_isend_big(vals, n, es, peer, GCOO_TAG_REDIST, comm, req + 4));
  } else {
    GCOO_CALL(gcoo__mpi_irecv_big(rows, n, sizeof *rows, peer, GCOO_TAG_REDIST, comm, req));
    GCOO_CALL(gcoo__mpi_irecv_big(cols, n, sizeof *cols, peer, GCOO_TAG_REDIST, comm, req + 2));
    GCOO_CALL(gcoo__mpi_irecv_big(vals, n, es, peer, GCOO_TAG_REDIST, comm, req + 4));
  }
  return GCOO_SUCCESS;
}

/* Entries of this rank (A-frame global coordinates) to the owners of their rows; the result is
 * this rank's CSR slab. row_begin: the size + 1 row offsets. Collective. */
gcoo_status gcoo__dist_redistribute(gcoo_dist d, const int64_t *row_begin, int64_t k,
                                    gcoo_dtype dtype, int64_t n, const int32_t *rows,
                                    const int32_t *cols, const void *vals, gcoo_sparse *slab) {
  gcoo_status st = GCOO_SUCCESS;
  const int size = d->size;
  const size_t es = gcoo_dtype_size(dtype);
  int64_t *cnt_out = NULL, *cnt_in = NULL, *off_out = NULL, *off_in = NULL;
  int32_t *sr = NULL, *sc = NULL, *rr = NULL, *rc = NULL;
  char *sv = NULL, *rv = NULL;
  int *dest = NULL;
  MPI_Request *req = NULL;
  gcoo_sparse coo = NULL;

  st = gcoo__calloc((void **)&cnt_out, (size_t)size, sizeof(int64_t), "redistribution");
  if (st >= 0) st = gcoo__calloc((void **)&cnt_in, (size_t)size, sizeof(int64_t), "redistribution");
  if (st >= 0)
    st = gcoo__calloc((void **)&off_out, (size_t)size + 1, sizeof(int64_t), "redistribution");
  if (st >= 0)
    st = gcoo__calloc((void **)&off_in, (size_t)size + 1, sizeof(int64_t), "redistribution");
  if (st >= 0) st = gcoo__malloc_n((void **)&dest, n, sizeof *dest, "redistribution");
  if (st >= 0) st = gcoo__malloc_n((void **)&req, 12 * (int64_t)size, sizeof *req, "requests");
  if (st >= 0) {
    for (int64_t e = 0; e < n; e++) {
      int lo = 0, hi = size - 1;
      while (lo < hi) { /* last rank whose first row <= row */
        int mid = (lo + hi + 1) / 2;
        if (row_begin[mid] <= rows[e])
          lo = mid;
        else
          hi = mid - 1;
      }
      dest[e] = lo;
      cnt_out[lo]++;
    }
    for (int r = 0; r < size; r++) off_out[r + 1] = off_out[r] + cnt_out[r];
    st = gcoo__malloc_n((void **)&sr, n, sizeof *sr, "redistribution");
  }
  if (st >= 0) st = gcoo__malloc_n((void **)&sc, n, sizeof *sc, "redistribution");
  if (st >= 0) st = gcoo__malloc_n((void **)&sv, n, es, "redistribution");
  if (st >= 0) {
    int64_t *fill = off_in; /* scratch: next free slot per destination */
    memcpy(fill, off_out, (size_t)size * sizeof *fill);
    for (int64_t e = 0; e < n; e++) {
      int64_t w = fill[dest[e]]++;
      sr[w] = rows[e];
      sc[w] = cols[e];
      memcpy(sv + (size_t)w * es, (const char *)vals + (size_t)e * es, es);
    }
  }
  GCOO_GOTO(gcoo__dist_agree(d, st));
  GCOO_GOTO(GCOO_MPI(MPI_Alltoall(cnt_out, 1, MPI_INT64_T, cnt_in, 1, MPI_INT64_T, d->comm)));
  off_in[0] = 0;
  for (int r = 0; r < size; r++) off_in[r + 1] = off_in[r] + cnt_in[r];
  const int64_t nin = off_in[size];
  st = gcoo__malloc_n((void **)&rr, nin, sizeof *rr, "redistribution");
  if (st >= 0) st = gcoo__malloc_n((void **)&rc, nin, sizeof *rc, "redistribution");
  if (st >= 0) st = gcoo__malloc_n((void **)&rv, nin, es, "redistribution");
  GCOO_GOTO(gcoo__dist_agree(d, st));
  int nreq = 0;
  for (int r = 0; r < size && st >= 0; r++) { /* receives first, then sends */
    if (!cnt_in[r]) continue;
    st = post_entries(0, rr + off_in[r], rc + off_in[r], rv + (size_t)off_in[r] * es, es, cnt_in[r],
                      r, d->comm, req + nreq);
    nreq += 6;
  }
  for (int r = 0; r < size && st >= 0; r++) {
    if (!cnt_out[r]) continue;
    st = post_entries(1, sr + off_out[r], sc + off_out[r], sv + (size_t)off_out[r] * es, es,
                      cnt_out[r], r, d->comm, req + nreq);
    nreq += 6;
  }
  if (st >= 0) st = GCOO_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  if (st >= 0) {
    const int64_t row0 = row_begin[d->rank];
    for (int64_t e = 0; e < nin; e++) rr[e] = (int32_t)(rr[e] - row0);
    st = gcoo_sparse_create_coo(&coo, dtype, row_begin[d->rank + 1] - row0, k, nin, rr, rc, rv, 0);
  }
  if (st >= 0) st = gcoo_sparse_convert(slab, coo, GCOO_FORMAT_CSR, 0);
  GCOO_GOTO(gcoo__dist_agree(d, st));
done:
  gcoo_sparse_destroy(&coo);
  free(cnt_out);
  free(cnt_in);
  free(off_out);
  free(off_in);
  free(dest);
  free(req);
  free(sr);
  free(sc);
  free(sv);
  free(rr);
  free(rc);
  free(rv);
  return st;
}

/* ---- HDF5 ---------------------------------------------------------------------------------- */
#if GCOO_HAVE_HDF5

/* A layout whose major dimension is not rows of A: balanced slab of the file's own major
 * dimension, entries to A-frame coordinates, partition of the rows of A by a histogram of
 * entries per unit (all-reduced), then redistribution. */
static gcoo_status read_h5_transposed(gcoo_dist d, gcoo_h5_sparse_file f, const gcoo_h5_info *fi,
                                      gcoo_dtype dtype, gcoo_reading reading, int64_t p, int64_t m,
                                      int64_t k, int64_t *row0, gcoo_sparse *slab) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_partition fpart = {0}, rpart = {0};
  gcoo_sparse fs = NULL, coo = NULL;
  gcoo_sparse_arrays a = {0};
  gcoo_sparse_info si = {0};
  int64_t *hist = NULL, *row_begin = NULL;
  int32_t *ar = NULL, *ac = NULL;
  const int64_t *mptr = gcoo_h5_sparse_major_ptr(f);
  int64_t unit = p;
  while ((m + unit - 1) / unit > ((int64_t)1 << 22)) unit *= 2;
  const int64_t nunits = (m + unit - 1) / unit;

  /* 1. this rank's slab of the file's own major dimension, balanced by entries */
  st = gcoo_partition_balanced(mptr, fi->nmajor, d->size, &fpart);
  GCOO_GOTO(gcoo__dist_agree(d, st));
  const int64_t b = fpart.begin[d->rank], e = fpart.begin[d->rank + 1];
  GCOO_GOTO(gcoo_h5_sparse_read_slab(f, dtype, b, e, &fs));
  /* 2. its entries in A-frame coordinates */
  st = gcoo_sparse_convert(&coo, fs, GCOO_FORMAT_COO, 0);
  if (st >= 0) st = gcoo_sparse_get_info(coo, &si);
  if (st >= 0) st = gcoo_sparse_get_arrays(coo, &a);
  if (st >= 0) st = gcoo__malloc_n((void **)&ar, si.nnz, sizeof *ar, "entry rows");
  if (st >= 0) st = gcoo__malloc_n((void **)&ac, si.nnz, sizeof *ac, "entry columns");
  if (st >= 0) {
    /* major offset of the slab: rows (CSR), columns (CSC) or groups * p (GCOO) */
    const int64_t off = fi->format == GCOO_FORMAT_GCOO ? b * fi->p : b;
    for (int64_t t = 0; t < si.nnz; t++) {
      if (reading == GCOO_SPARSE_DENSE) { /* CSC or GCOO of A: columns are the major */
        ar[t] = a.rows[t];
        ac[t] = (int32_t)(a.cols[t] + off);
      } else { /* CSR of S: rows of S are columns of A */
        ar[t] = a.cols[t];
        ac[t] = (int32_t)(a.rows[t] + off);
      }
    }
  }
  /* 3. rows of A split by an all-reduced histogram of entries per unit of p rows (units grow
   *    past 4 Mi so the histogram stays small) */
  if (st >= 0) st = gcoo__calloc((void **)&hist, (size_t)nunits + 1, sizeof *hist, "histogram");
  if (st >= 0) st = gcoo__malloc_n((void **)&row_begin, d->size + 1, sizeof *row_begin, "rows");
  if (st >= 0)
    for (int64_t t = 0; t < si.nnz; t++) hist[ar[t] / unit + 1]++;
  GCOO_GOTO(gcoo__dist_agree(d, st));
  GCOO_GOTO(GCOO_MPI(
      MPI_Allreduce(MPI_IN_PLACE, hist, (int)(nunits + 1), MPI_INT64_T, MPI_SUM, d->comm)));
  for (int64_t u = 0; u < nunits; u++) hist[u + 1] += hist[u];
  st = gcoo_partition_balanced(hist, nunits, d->size, &rpart);
  if (st >= 0)
    for (int r = 0; r <= d->size; r++)
      row_begin[r] = rpart.begin[r] * unit < m ? rpart.begin[r] * unit : m;
  GCOO_GOTO(gcoo__dist_agree(d, st));
  *row0 = row_begin[d->rank];
  /* 4. one all-to-all of entries */
  GCOO_GOTO(gcoo__dist_redistribute(d, row_begin, k, dtype, si.nnz, ar, ac, a.values, slab));
  GCOO_LOG(GCOO_LOG_INFO, "READ", "%s layout redistributed by rows of A (one all-to-all)",
           fi->format == GCOO_FORMAT_CSR   ? "CSR"
           : fi->format == GCOO_FORMAT_CSC ? "CSC"
                                           : "GCOO");
done:
  gcoo_partition_free(&fpart);
  gcoo_partition_free(&rpart);
  gcoo_sparse_destroy(&fs);
  gcoo_sparse_destroy(&coo);
  free(hist);
  free(row_begin);
  free(ar);
  free(ac);
  return st;
}

static gcoo_status read_h5(gcoo_dist d, const char *path, gcoo_dtype dtype, gcoo_dist_op_options *o,
                           int64_t dims[2], int64_t *row0, gcoo_sparse *slab) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_h5_sparse_file f = NULL;
  gcoo_h5_info fi;
  gcoo_partition part = {0};
  gcoo_sparse fs = NULL;
  int64_t *uptr = NULL, nunits = 0;
  const gcoo_reading reading = o->local.reading;
  GCOO_CALL(gcoo_h5_sparse_open(d->comm, path, &f));
  st = gcoo_h5_sparse_get_info(f, &fi);
  if (st >= 0 && !fi.is_sparse)
    st = GCOO_ERROR(GCOO_ERR_FORMAT, "%s holds a dense dataset, not a sparse matrix", path);
  GCOO_GOTO(gcoo__dist_agree(d, st));
  /* A frame: m rows of A (Y rows), k columns */
  const int64_t m = reading == GCOO_SPARSE_DENSE ? fi.nrows : fi.ncols;
  const int64_t k = reading == GCOO_SPARSE_DENSE ? fi.ncols : fi.nrows;
  dims[0] = m;
  dims[1] = k;
  if (fi.format == GCOO_FORMAT_GCOO && o->local.p == 0) o->local.p = fi.p; /* the file's groups */
  const int64_t p = o->local.p > 0 ? o->local.p : GCOO_DEFAULT_P;
  const int matched = reading == GCOO_SPARSE_DENSE ? fi.format == GCOO_FORMAT_CSR
                                                   : fi.format != GCOO_FORMAT_CSR;
  if (!matched) {
    GCOO_GOTO(read_h5_transposed(d, f, &fi, dtype, reading, p, m, k, row0, slab));
    goto done;
  }
  /* the file's major dimension is rows of A: units of p rows, or the file's GCOO groups */
  const int64_t *mptr = gcoo_h5_sparse_major_ptr(f);
  const int64_t up = fi.format == GCOO_FORMAT_GCOO ? 1 : p;
  st = unit_ptr(mptr, fi.nmajor, up, &uptr, &nunits);
  if (st >= 0) st = gcoo_partition_balanced(uptr, nunits, d->size, &part);
  GCOO_GOTO(gcoo__dist_agree(d, st));
  int64_t b = part.begin[d->rank] * up, e = part.begin[d->rank + 1] * up;
  if (b > fi.nmajor) b = fi.nmajor;
  if (e > fi.nmajor) e = fi.nmajor;
  GCOO_GOTO(gcoo_h5_sparse_read_slab(f, dtype, b, e, &fs));
  /* the slab as read is already in one of the operator's frames (docs/datapath.md): CSR of A;
   * CSC of S, which is the CSR of A bit for bit (flipped in place); GCOO of S, the CPU kernel's
   * own layout, its groups rows of A */
  *row0 = fi.format == GCOO_FORMAT_GCOO ? b * fi.p : b;
  if (fi.format == GCOO_FORMAT_CSC) st = gcoo__sparse_flip_compressed(fs);
  GCOO_GOTO(gcoo__dist_agree(d, st));
  *slab = fs;
  fs = NULL;
done:
  gcoo_partition_free(&part);
  free(uptr);
  gcoo_sparse_destroy(&fs);
  gcoo_status st2 = gcoo_h5_sparse_close(&f);
  if (st >= 0 && st2 < 0) st = st2;
  return st;
}
#endif /* GCOO_HAVE_HDF5 */

gcoo_status gcoo_dist_op_create_from_file(gcoo_dist d, const char *path, gcoo_dtype dtype,
                                          const gcoo_dist_op_options *opts, gcoo_dist_op *op) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse slab = NULL;
  int64_t dims[2] = {0, 0}, row0 = 0;
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  GCOO_VALID_OBJECT(d, GCOO_MAGIC_DIST, "distributed context");
  GCOO_CHECK(op != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *op = NULL;
  if (!path)
    st = GCOO_ERROR(GCOO_ERR_NULL, "file path is NULL");
  else if (dtype != GCOO_FLOAT32 && dtype != GCOO_FLOAT64)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "unknown element type %d", (int)dtype);
  else if (opts) {
    if (opts->size < sizeof(size_t) || opts->size > sizeof o)
      st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                      "options.size = %zu: initialise options with GCOO_DIST_OP_OPTIONS_INIT",
                      opts->size);
    else
      memcpy(&o, opts, opts->size);
    o.size = sizeof o;
  }
  if (st >= 0 && o.local.p < 0)
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "group width p = %d must be >= 0", o.local.p);
  GCOO_CALL(gcoo__dist_agree(d, st));

  double t0 = gcoo__wtime();
  const int64_t p = o.local.p > 0 ? o.local.p : GCOO_DEFAULT_P;
  if (ends_with(path, ".mtx") || ends_with(path, ".mtx.gz")) {
    GCOO_GOTO(read_mtx(d, path, dtype, o.local.reading, p, dims, &row0, &slab));
  } else {
#if GCOO_HAVE_HDF5
    GCOO_GOTO(read_h5(d, path, dtype, &o, dims, &row0, &slab));
#else
    GCOO_GOTO(gcoo__dist_agree(d, GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                                             "%s: HDF5 is not compiled into this gcoo (use a "
                                             ".mtx file)",
                                             path)));
#endif
  }
  double t_read = gcoo__wtime() - t0;
  GCOO_GOTO(gcoo__dist_op_create_aframe(d, &slab, row0, dims[0], dims[1], &o, op));
  (*op)->read_seconds = t_read;
done:
  gcoo_sparse_destroy(&slab);
  return st;
}
