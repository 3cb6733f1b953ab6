/* SPDX-License-Identifier: MIT */
/* io/h5_transfer.c: moving ranges of datasets between files and memory, in rounds.
 *
 * A rank's range is moved in rounds of at most GCOO_H5_CHUNK_BYTES bytes. With MPI-IO every
 * transfer is collective, so every rank makes the same number of rounds (the maximum over the
 * ranks) and a rank that has nothing left, or has failed, takes part with an empty selection.
 * Rounds bound the conversion buffers to one chunk and keep each MPI-IO request far below the
 * 2^31-byte limit of MPI counts, whatever the size of a rank's slab.
 *
 * A transfer is collective only when the ranks' selections cover disjoint parts of the dataset
 * (slab reads and every write); ranks reading the same elements (halo row sets, a rank reading
 * all while another reads a part) transfer independently. Open MPI 4.1.4's default MPI-IO
 * (OMPIO, fcoll vulcan/dynamic) returns wrong data for some overlapping collective reads: with
 * 4 ranks reading 2541 ints, rank 0 elements [3, 2538) and the others [0, 2541), the others get
 * zeros for the last elements (a plain MPI_File_read_at_all shows it; ROMIO and fcoll two_phase
 * are right). GCOO_H5_COLLECTIVE=0 makes every transfer independent.
 *
 * Reads at the disk's rate: a range of a contiguous, unfiltered dataset that the file stores in
 * the target type and the machine's byte order, opened with the POSIX driver (the default), is
 * read with pread straight from the file's own descriptor into its final place, in pieces spread
 * over the OpenMP threads, each piece checked as it lands (io/h5_direct.c). That keeps several
 * requests in flight for the disk, spreads the first touch of the destination's pages over the
 * cores, and leaves no copy; every other dataset goes through H5Dread in rounds. */
#include <stdlib.h>
#include <string.h>

#include "h5_impl.h"
#include "params.h"

int64_t gcoo__h5_rounds(const gcoo__h5_comm *c, int64_t mine) {
  return c->mpio ? gcoo__h5_max_i64(c, mine) : mine;
}

#if GCOO_HAVE_MPI && defined(H5_HAVE_PARALLEL)
typedef struct extent {
  int64_t lo, hi; /* element offsets [lo, hi) in the dataset, row-major; lo == hi: nothing */
  int64_t allow;  /* 0 when this rank was told GCOO_H5_COLLECTIVE=0 */
} extent;

static int by_lo(const void *a, const void *b) {
  const extent *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The bounding extent of this rank's selection (row-major element offsets). */
static extent selection_extent(hid_t fspace, int64_t n) {
  extent e = {0, 0, 1};
  e.allow = gcoo__param_bool(GCOO__P_H5_COLLECTIVE);
  hsize_t s[2] = {0, 0}, t[2] = {0, 0}, dims[2] = {1, 1};
  int nd = H5Sget_simple_extent_ndims(fspace);
  if (n <= 0 || nd < 1 || nd > 2 || H5Sget_simple_extent_dims(fspace, dims, NULL) < 0 ||
      H5Sget_select_bounds(fspace, s, t) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return e;
  }
  int64_t w = nd == 2 ? (int64_t)dims[1] : 1;
  e.lo = (int64_t)s[0] * w + (nd == 2 ? (int64_t)s[1] : 0);
  e.hi = (int64_t)t[0] * w + (nd == 2 ? (int64_t)t[1] : 0) + 1;
  return e;
}

/* Collective when every rank allows it and no two ranks' extents overlap. Collective call. */
static int disjoint_everywhere(const gcoo__h5_comm *c, hid_t fspace, int64_t n) {
  extent mine = selection_extent(fspace, n);
  extent *all = malloc(sizeof *all * (size_t)c->size);
  int ok = all != NULL;
  int rc = MPI_Allgather(&mine, 3, MPI_INT64_T, all ? all : &mine, all ? 3 : 0, MPI_INT64_T,
                         c->comm);
  if (!ok || rc != MPI_SUCCESS) {
    free(all);
    return 0; /* every rank fails the same way or allocates the same: independent is safe */
  }
  int m = 0;
  for (int r = 0; r < c->size; r++) {
    ok &= all[r].allow != 0;
    if (all[r].hi > all[r].lo) all[m++] = all[r];
  }
  qsort(all, (size_t)m, sizeof *all, by_lo);
  for (int i = 1; i < m && ok; i++) ok = all[i - 1].hi <= all[i].lo;
  free(all);
  return ok;
}
#endif

gcoo_status gcoo__h5_xfer(const gcoo__h5_comm *c, hid_t dset, int write, gcoo__h5_kind k,
                          hid_t fspace, int64_t n, void *buf, const char *label) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t mspace = H5I_INVALID_HID, dxpl = H5I_INVALID_HID;
  hsize_t m = (hsize_t)(n > 0 ? n : 1);
  char dummy[16];
  H5_TRY(mspace = H5Screate_simple(1, &m, NULL), "%s: memory dataspace of %lld elements", label,
         (long long)n);
  if (n == 0) {
    H5_TRY(H5Sselect_none(mspace), "%s: empty selection", label);
    buf = dummy; /* HDF5 refuses a NULL buffer even when nothing is selected */
  }
  H5_TRY(dxpl = H5Pcreate(H5P_DATASET_XFER), "transfer properties");
#if GCOO_HAVE_MPI && defined(H5_HAVE_PARALLEL)
  int collective = c->mpio && disjoint_everywhere(c, fspace, n);
  if (collective) H5_TRY(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "collective transfer");
#else
  (void)c;
#endif
  if (write)
    H5_TRY(H5Dwrite(dset, gcoo__h5_kind_native(k), mspace, fspace, dxpl, buf),
           "%s: cannot write %lld elements", label, (long long)n);
  else
    H5_TRY(H5Dread(dset, gcoo__h5_kind_native(k), mspace, fspace, dxpl, buf),
           "%s: cannot read %lld elements", label, (long long)n);
#if GCOO_HAVE_MPI && defined(H5_HAVE_PARALLEL)
  if (c->mpio && gcoo__log_level() >= GCOO_LOG_TRACE) {
    H5D_mpio_actual_io_mode_t mode = H5D_MPIO_NO_COLLECTIVE;
    uint32_t local = 0, global = 0;
    H5Pget_mpio_actual_io_mode(dxpl, &mode);
    H5Pget_mpio_no_collective_cause(dxpl, &local, &global);
    GCOO_LOG(GCOO_LOG_TRACE, "H5",
             "%s %s %lld elements %s: io mode %d, no-collective cause "
             "0x%x/0x%x",
             label, write ? "wrote" : "read", (long long)n,
             collective ? "collectively" : "independently (selections overlap)", (int)mode, local,
             global);
  }
#endif
done:
  gcoo__h5_close(&dxpl);
  gcoo__h5_close(&mspace);
  return st;
}

/* Select elements [start, start + n) of a 1-D dataspace (none when n == 0). */
static gcoo_status select_range(hid_t space, int64_t start, int64_t n, const char *label) {
  gcoo_status st = GCOO_SUCCESS;
  if (n == 0) {
    H5_TRY(H5Sselect_none(space), "%s: empty selection", label);
  } else {
    hsize_t s = (hsize_t)start, cnt = (hsize_t)n;
    H5_TRY(H5Sselect_hyperslab(space, H5S_SELECT_SET, &s, NULL, &cnt, NULL),
           "%s: selecting elements %lld..%lld", label, (long long)start,
           (long long)(start + n - 1));
  }
done:
  return st;
}

/* The dataspace of d for a transfer, or H5I_INVALID_HID with the error in *st (unless *st holds
 * an earlier one): every rank still takes part in the collective rounds that follow. */
static hid_t dataset_space(const gcoo__h5_dset *d, gcoo_status *st) {
  hid_t space = H5Dget_space(d->id);
  if (space < 0 && *st >= 0)
    *st = gcoo__h5_raise(GCOO_ERR_HDF5, __FILE__, __LINE__, __func__,
                         "%s: cannot get its dataspace", d->label);
  return space;
}

static int64_t per_round(size_t elem_bytes) {
  int64_t per = gcoo__h5_chunk_bytes() / (int64_t)(elem_bytes ? elem_bytes : 1);
  return per > 0 ? per : 1;
}

/* Convert (or check in place) one round of n elements, now in buf, into dst + first. */
gcoo_status gcoo__h5_convert_round(const gcoo__h5_dset *d, int64_t start, int64_t first, int64_t n,
                                   gcoo__h5_kind tkind, const void *buf, int direct, void *dst) {
  int64_t bad = -1;
  size_t ts = gcoo__h5_kind_size(tkind);
  void *out = (char *)dst + (size_t)first * ts;
  switch (tkind) {
    case H5K_I64:
      if (!direct) bad = gcoo__h5_to_i64(d->kind, buf, n, out);
      GCOO_CHECK(bad < 0, GCOO_ERR_FORMAT,
                 "%s: element %lld = %.17g does not fit a signed 64-bit "
                 "offset",
                 d->label, (long long)(start + first + bad), gcoo__h5_value_at(d->kind, buf, bad));
      break;
    case H5K_I32:
      bad = gcoo__h5_to_index(d->kind, buf, n, out);
      GCOO_CHECK(bad < 0, GCOO_ERR_INDEX_RANGE,
                 "%s: element %lld = %.17g is not an index (negative or past 2^31 - 1)", d->label,
                 (long long)(start + first + bad), gcoo__h5_value_at(d->kind, buf, bad));
      break;
    case H5K_F32:
    case H5K_F64: {
      gcoo_dtype t = tkind == H5K_F64 ? GCOO_FLOAT64 : GCOO_FLOAT32;
      bad = direct ? gcoo__h5_first_nonfinite(t, out, n)
                   : gcoo__h5_to_values(d->kind, buf, n, t, out);
      GCOO_CHECK(bad < 0, GCOO_ERR_NOT_FINITE,
                 "%s: element %lld is %.17g%s; gcoo refuses NaN and "
                 "infinite values",
                 d->label, (long long)(start + first + bad), gcoo__h5_value_at(d->kind, buf, bad),
                 direct || gcoo__h5_kind_is_int(d->kind) ? "" : " (after conversion)");
      break;
    }
    default:
      return GCOO_ERROR(GCOO_ERR_INTERNAL, "%s: no conversion to %s", d->label,
                        gcoo__h5_kind_name(tkind));
  }
  return GCOO_SUCCESS;
}

void gcoo__h5_read_1d(const gcoo__h5_comm *c, const gcoo__h5_dset *d, int64_t start, int64_t count,
                      gcoo__h5_kind tkind, void *dst, gcoo_status *st) {
  size_t fs = gcoo__h5_kind_size(d->kind), ts = gcoo__h5_kind_size(tkind);
  /* straight into dst when the file holds the target type (int32 indices still get checked) */
  int direct = d->kind == tkind;
  if (!c->mpio && *st >= 0 && count > 0) {
    gcoo__h5_direct where;
    if (gcoo__h5_direct_find(d, tkind, &where)) {
      gcoo__h5_direct_read(d, &where, start, count, tkind, dst, st);
      return;
    }
  }
  int64_t per = per_round(fs > ts ? fs : ts);
  int64_t mine = *st < 0 || count <= 0 ? 0 : (count + per - 1) / per;
  int64_t rounds = gcoo__h5_rounds(c, mine);
  void *scratch = NULL;
  hid_t space = H5I_INVALID_HID;
  if (*st >= 0 && !direct && mine > 0) {
    gcoo_status s = gcoo__malloc_n(&scratch, count < per ? count : per, fs, "conversion buffer");
    if (s < 0) *st = s;
  }
  space = dataset_space(d, st);
  for (int64_t r = 0; r < rounds; r++) {
    int64_t first = r * per;
    int64_t n = *st >= 0 && first < count ? (count - first < per ? count - first : per) : 0;
    void *buf = direct ? (char *)dst + (size_t)first * ts : scratch;
    gcoo_status s = space >= 0 ? select_range(space, start + first, n, d->label) : *st;
    if (s < 0 && space >= 0) {
      n = 0;
      H5Sselect_none(space);
    }
    gcoo_status x = gcoo__h5_xfer(c, d->id, 0, d->kind, space, n, buf, d->label);
    if (*st >= 0 && s < 0) *st = s;
    if (*st >= 0 && x < 0) *st = x;
    if (*st >= 0 && n > 0) {
      gcoo_status cv = gcoo__h5_convert_round(d, start, first, n, tkind, buf, direct, dst);
      if (cv < 0) *st = cv;
    }
  }
  gcoo__h5_close(&space);
  free(scratch);
}

void gcoo__h5_write_1d(const gcoo__h5_comm *c, const gcoo__h5_dset *d, int64_t start, int64_t count,
                       gcoo__h5_kind k, const void *src, int64_t add, gcoo_status *st) {
  size_t es = gcoo__h5_kind_size(k);
  int direct = add == 0;
  int64_t per = per_round(es);
  int64_t mine = *st < 0 || count <= 0 ? 0 : (count + per - 1) / per;
  int64_t rounds = gcoo__h5_rounds(c, mine);
  int64_t *scratch = NULL;
  hid_t space = H5I_INVALID_HID;
  if (*st >= 0 && (k != d->kind || (add != 0 && k != H5K_I64)))
    *st = GCOO_ERROR(GCOO_ERR_INTERNAL, "%s: writing %s into a %s dataset", d->label,
                     gcoo__h5_kind_name(k), gcoo__h5_kind_name(d->kind));
  if (*st >= 0 && !direct && mine > 0) {
    gcoo_status s = gcoo__malloc_n((void **)&scratch, count < per ? count : per, es,
                                   "write buffer");
    if (s < 0) *st = s;
  }
  space = dataset_space(d, st);
  for (int64_t r = 0; r < rounds; r++) {
    int64_t first = r * per;
    int64_t n = *st >= 0 && first < count ? (count - first < per ? count - first : per) : 0;
    const void *buf = (const char *)src + (size_t)first * es;
    if (n > 0 && (k == H5K_F32 || k == H5K_F64)) {
      int64_t bad = gcoo__h5_first_nonfinite(k == H5K_F64 ? GCOO_FLOAT64 : GCOO_FLOAT32, buf, n);
      if (bad >= 0) {
        *st = GCOO_ERROR(GCOO_ERR_NOT_FINITE,
                         "%s: element %lld is %g: refusing to write a "
                         "non-finite value",
                         d->label, (long long)(start + first + bad),
                         gcoo__h5_value_at(k, buf, bad));
        n = 0;
      }
    }
    if (n > 0 && !direct) {
      const int64_t *s64 = buf;
      for (int64_t i = 0; i < n; i++) scratch[i] = s64[i] + add;
      buf = scratch;
    }
    gcoo_status s = space >= 0 ? select_range(space, start + first, n, d->label) : *st;
    if (s < 0 && space >= 0) {
      n = 0;
      H5Sselect_none(space);
    }
    gcoo_status x = gcoo__h5_xfer(c, d->id, 1, k, space, n, (void *)buf, d->label);
    if (*st >= 0 && s < 0) *st = s;
    if (*st >= 0 && x < 0) *st = x;
  }
  gcoo__h5_close(&space);
  free(scratch);
}
