/* SPDX-License-Identifier: MIT */
/* io/h5_direct.c: reading a dataset's range at the disk's rate, without HDF5 in the way.
 *
 * HDF5 reads a contiguous dataset with one pread per call on one thread: the disk sees one
 * request at a time (the kernel's readahead window ahead of it), and the destination's pages are
 * first touched, one fault each, by that thread. Here a range of a contiguous, unfiltered dataset
 * stored in the target type and byte order is cut into pieces of 8 MiB, read by the OpenMP
 * threads with pread from the descriptor HDF5's POSIX driver holds (so an unlinked but open file
 * still reads), each piece landing in its final place and checked there as the round-by-round
 * path checks it: the first bad element, the first failed read, or the first piece past the end
 * of the file (a file that shrank after it was opened) is the one reported. (Reading ahead of
 * these reads, gcoo_h5_prefetch, goes through io/prefetch.c.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5_impl.h"
#include "params.h"

enum { PIECE_BYTES = 8 << 20 };

int gcoo__h5_direct_find(const gcoo__h5_dset *d, gcoo__h5_kind tkind, gcoo__h5_direct *w) {
  if (!gcoo__param_bool(GCOO__P_H5_DIRECT)) return 0;
  if (d->kind != tkind) return 0;
  int ok = 0;
  hid_t type = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, fid = H5I_INVALID_HID,
        fapl = H5I_INVALID_HID, fcpl = H5I_INVALID_HID;
  haddr_t addr = H5Dget_offset(d->id);
  if (addr == HADDR_UNDEF) goto done; /* chunked, compact, or not yet written */
  type = H5Dget_type(d->id);
  if (type < 0 || H5Tequal(type, gcoo__h5_kind_native(tkind)) <= 0) goto done;
  dcpl = H5Dget_create_plist(d->id);
  if (dcpl < 0 || H5Pget_layout(dcpl) != H5D_CONTIGUOUS || H5Pget_nfilters(dcpl) != 0 ||
      H5Pget_external_count(dcpl) != 0)
    goto done;
  fid = H5Iget_file_id(d->id);
  if (fid < 0) goto done;
  fapl = H5Fget_access_plist(fid);
  fcpl = H5Fget_create_plist(fid);
  hsize_t ub = 1;
  if (fapl < 0 || fcpl < 0 || H5Pget_driver(fapl) != H5FD_SEC2 || H5Pget_userblock(fcpl, &ub) < 0 ||
      ub != 0)
    goto done;
  void *handle = NULL;
  if (H5Fget_vfd_handle(fid, fapl, &handle) < 0 || !handle) goto done;
  w->fd = *(int *)handle;
  w->offset = (int64_t)addr;
  w->nbytes = (int64_t)H5Dget_storage_size(d->id);
  ok = w->fd >= 0 && w->nbytes > 0;
done:
  gcoo__h5_close(&type);
  gcoo__h5_close(&dcpl);
  gcoo__h5_close(&fapl);
  gcoo__h5_close(&fcpl);
  gcoo__h5_close(&fid); /* a reference of the open file: the file stays open */
  H5Eclear2(H5E_DEFAULT);
  return ok;
}

/* One piece: its bytes from the file (0), or the errno of the failed read, or -1 at the end of
 * the file. */
static int read_piece(int fd, char *p, size_t want, int64_t off) {
  while (want > 0) {
    ssize_t r = pread(fd, p, want, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno ? errno : EIO;
    if (r == 0) return -1;
    p += r;
    off += r;
    want -= (size_t)r;
  }
  return 0;
}

void gcoo__h5_direct_read(const gcoo__h5_dset *d, const gcoo__h5_direct *w, int64_t start,
                          int64_t count, gcoo__h5_kind tkind, void *dst, gcoo_status *st) {
  if (*st < 0 || count <= 0) return;
  const size_t es = gcoo__h5_kind_size(tkind);
  const int64_t per = PIECE_BYTES / (int64_t)es, npieces = (count + per - 1) / per;
  if ((start + count) * (int64_t)es > w->nbytes) {
    *st = GCOO_ERROR(GCOO_ERR_INTERNAL, "%s: elements %lld..%lld past its %lld bytes", d->label,
                     (long long)start, (long long)(start + count - 1), (long long)w->nbytes);
    return;
  }
  int64_t bad_io = INT64_MAX, bad_val = INT64_MAX; /* first failed piece, first bad piece */
  int io_err = 0;
#pragma omp parallel for schedule(dynamic, 1) if (npieces > 1)
  for (int64_t q = 0; q < npieces; q++) {
    const int64_t first = q * per, n = count - first < per ? count - first : per;
    char *p = (char *)dst + (size_t)first * es;
    int e = read_piece(w->fd, p, (size_t)n * es, w->offset + (start + first) * (int64_t)es);
    int64_t bad = -1;
    if (!e) {
      switch (tkind) {
        case H5K_I32: bad = gcoo__h5_to_index(d->kind, p, n, (int32_t *)p); break;
        case H5K_F32: bad = gcoo__h5_first_nonfinite(GCOO_FLOAT32, p, n); break;
        case H5K_F64: bad = gcoo__h5_first_nonfinite(GCOO_FLOAT64, p, n); break;
        default: break; /* int64 offsets: checked by their readers */
      }
    }
    if (e || bad >= 0) {
#pragma omp critical(gcoo_h5_direct)
      {
        if (e && q < bad_io) bad_io = q, io_err = e;
        if (!e && q < bad_val) bad_val = q;
      }
    }
  }
  if (bad_io != INT64_MAX && bad_io < bad_val) {
    const int64_t first = bad_io * per, off = w->offset + (start + first) * (int64_t)es;
    if (io_err < 0)
      *st = GCOO_ERROR(GCOO_ERR_IO,
                       "%s: the file ends before byte %lld of this dataset's %lld bytes "
                       "(truncated, or it shrank after it was opened)",
                       d->label, (long long)(off - w->offset), (long long)w->nbytes);
    else
      *st = GCOO_ERROR(GCOO_ERR_IO, "%s: cannot read %lld bytes at file offset %lld: %s", d->label,
                       (long long)((count - first < per ? count - first : per) * es),
                       (long long)off, strerror(io_err));
  } else if (bad_val != INT64_MAX) {
    /* the same message as the round-by-round path: recheck that piece, which names the element */
    const int64_t first = bad_val * per, n = count - first < per ? count - first : per;
    gcoo_status s = gcoo__h5_convert_round(d, start, first, n, tkind,
                                           (const char *)dst + (size_t)first * es, 1, dst);
    *st = s < 0 ? s
                : GCOO_ERROR(GCOO_ERR_INTERNAL, "%s: a bad element in piece %lld not found again",
                             d->label, (long long)bad_val);
  }
}
