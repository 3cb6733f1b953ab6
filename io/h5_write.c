/* SPDX-License-Identifier: MIT */
/* io/h5_write.c: every HDF5 write of gcoo goes through one engine:
 *   1. agree on the ranks' own argument checks; rank 0 looks at the target: a new file, or an
 *      HDF5 file to update (its other objects are kept; an existing object at the path is
 *      replaced only with GCOO_H5_OVERWRITE), and remembers it as it is (io/publish.c);
 *   2. rank 0 names the temporary file "<file>.tmp.<job>.<random>" (<file>: where the target's
 *      symbolic links lead, so that a link is written through) and broadcasts the name;
 *      every rank registers it for the signal clean-up; an update starts from a copy of <file>;
 *   3. create the group with its attributes and datasets, or the dense dataset, marked
 *      "gcoo-incomplete"; reserve the file's whole size on disk (a full disk fails here, before
 *      any collective data write);
 *   4. let each rank write its parts (collective rounds with MPI-IO; without MPI-IO, the
 *      default, one rank after the other, each opening the temp file in turn);
 *   5. remove the mark, flush and close, checking each status (HDF5 reports a failed metadata
 *      or data flush only there), agree; rank 0 reopens the file and checks the object;
 *   6. rank 0 publishes (fsync, check that nobody changed <file> meanwhile, rename); on any
 *      failure every rank removes the temporary file and <file> is untouched, byte for byte.
 * So a file under the target name is always complete, and a temporary file is never taken for
 * a result. */
#define _POSIX_C_SOURCE 200809L /* strtok_r, stat, access, fsync */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5_impl.h"
#include "publish.h"

/* Create the object's group or dataset and the datasets in the new file. */
static gcoo_status build_object(const gcoo__h5_comm *c, hid_t fid, const gcoo__h5_path *p,
                                const gcoo__h5_wlayout *lay, gcoo__h5_dset *d) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t lcpl = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, grp = H5I_INVALID_HID,
        space = H5I_INVALID_HID;
  char label[GCOO_H5_LABEL];
  int root = !strcmp(p->object, "/");
  gcoo__h5_label(label, sizeof label, p, NULL);
  H5_TRY(lcpl = H5Pcreate(H5P_LINK_CREATE), "link properties");
  H5_TRY(H5Pset_create_intermediate_group(lcpl, 1), "link properties");
  H5_TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "dataset properties");
  /* every element is written: no fill pass over the file */
  H5_TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "dataset properties");
  /* space at creation (MPI-IO needs it; for every driver it makes the file's end known before
   * the data is written, so the disk space can be reserved) */
  H5_TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "dataset properties");
  if (lay->encoding) {
    if (root)
      H5_TRY(grp = H5Gopen2(fid, "/", H5P_DEFAULT), "%s: root group", label);
    else
      H5_TRY(grp = H5Gcreate2(fid, p->object, lcpl, H5P_DEFAULT, H5P_DEFAULT),
             "%s: cannot create the group", label);
    GCOO_GOTO(gcoo__h5_attr_write_string(grp, "encoding-type", lay->encoding));
    GCOO_GOTO(gcoo__h5_attr_write_string(grp, "encoding-version", "0.1.0"));
    GCOO_GOTO(gcoo__h5_attr_write_ints(grp, "shape", lay->shape, 2));
    if (lay->p > 0) GCOO_GOTO(gcoo__h5_attr_write_ints(grp, "p", &lay->p, 0));
    if (c->write_flags & GCOO_H5_NOT_CONVERGED)
      GCOO_GOTO(
          gcoo__h5_attr_write_string(grp, GCOO__H5_NOT_CONVERGED, GCOO__H5_NOT_CONVERGED_TEXT));
    GCOO_GOTO(gcoo__h5_attr_write_string(grp, GCOO__H5_INCOMPLETE, GCOO__H5_INCOMPLETE_TEXT));
  }
  for (int i = 0; i < lay->nd; i++) {
    const gcoo__h5_wdset *w = &lay->d[i];
    hsize_t dims[2] = {(hsize_t)w->dims[0], (hsize_t)w->dims[1]};
    d[i] = (gcoo__h5_dset)GCOO__H5_DSET_INIT;
    gcoo__h5_label(d[i].label, sizeof d[i].label, p, w->name);
    H5_TRY(space = H5Screate_simple(w->ndims, dims, NULL), "%s: dataspace", d[i].label);
    if (w->name)
      H5_TRY(d[i].id = H5Dcreate2(grp, w->name, gcoo__h5_kind_file(w->kind), space, H5P_DEFAULT,
                                  dcpl, H5P_DEFAULT),
             "%s: cannot create the dataset", d[i].label);
    else
      H5_TRY(d[i].id = H5Dcreate2(fid, p->object, gcoo__h5_kind_file(w->kind), space, lcpl, dcpl,
                                  H5P_DEFAULT),
             "%s: cannot create the dataset", d[i].label);
    gcoo__h5_close(&space);
    d[i].kind = w->kind;
    d[i].ndims = w->ndims;
    d[i].dims[0] = w->dims[0];
    d[i].dims[1] = w->ndims == 2 ? w->dims[1] : 1;
    if (!w->name) {
      /* how to read it (gcoo), and what it is (anndata's dense array) */
      GCOO_GOTO(gcoo__h5_attr_write_string(d[i].id, "layout", "row-major"));
      GCOO_GOTO(gcoo__h5_attr_write_string(d[i].id, "encoding-type", "array"));
      GCOO_GOTO(gcoo__h5_attr_write_string(d[i].id, "encoding-version", "0.2.0"));
      if (c->write_flags & GCOO_H5_NOT_CONVERGED)
        GCOO_GOTO(gcoo__h5_attr_write_string(d[i].id, GCOO__H5_NOT_CONVERGED,
                                             GCOO__H5_NOT_CONVERGED_TEXT));
      GCOO_GOTO(gcoo__h5_attr_write_string(d[i].id, GCOO__H5_INCOMPLETE, GCOO__H5_INCOMPLETE_TEXT));
    }
  }
done:
  gcoo__h5_close(&space);
  gcoo__h5_close(&grp);
  gcoo__h5_close(&dcpl);
  gcoo__h5_close(&lcpl);
  return st;
}

/* Reopen the datasets of the temp file (ranks after the first, without MPI-IO). Not through
 * gcoo__h5_open_object: the object still carries the writer's mark, which readers refuse. */
static gcoo_status reopen_object(hid_t fid, const gcoo__h5_path *p, const gcoo__h5_wlayout *lay,
                                 gcoo__h5_dset *d) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t obj = H5I_INVALID_HID;
  H5_TRY(obj = H5Oopen(fid, p->object, H5P_DEFAULT), "%s: cannot reopen %s", p->file, p->object);
  for (int i = 0; i < lay->nd; i++) {
    char label[GCOO_H5_LABEL];
    gcoo__h5_label(label, sizeof label, p, lay->d[i].name);
    GCOO_GOTO(gcoo__h5_dset_open(obj, lay->d[i].name, label, &d[i]));
  }
done:
  gcoo__h5_close(&obj);
  return st;
}

/* Create tmp, or open it (a copy of the target, for an update). */
static gcoo_status open_file(const gcoo__h5_comm *c, const char *tmp, int update, hid_t *fid) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t fapl = H5I_INVALID_HID;
  H5_TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), "file access properties");
#ifdef H5_HAVE_PARALLEL
  if (c->mpio) {
    H5_TRY(H5Pset_fapl_mpio(fapl, c->comm, MPI_INFO_NULL), "MPI-IO driver");
    /* large datasets start on 1 MiB boundaries (file-system stripes); small ones stay packed */
    H5_TRY(H5Pset_alignment(fapl, (hsize_t)1 << 20, (hsize_t)1 << 20), "alignment");
  }
#else
  (void)c;
#endif
  if (update)
    H5_TRY_AS(GCOO_ERR_IO, *fid = H5Fopen(tmp, H5F_ACC_RDWR, fapl), "cannot open \"%s\"", tmp);
  else
    H5_TRY_AS(GCOO_ERR_IO, *fid = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl),
              "cannot create \"%s\"", tmp);
done:
  gcoo__h5_close(&fapl);
  return st;
}

/* Close the datasets and the file, keeping the first failure: a write is only known to have
 * reached the file once H5Fflush and H5Fclose succeed (data and metadata written by HDF5's
 * caches at flush/close can fail there, e.g. ENOSPC, long after H5Dwrite said yes). With MPI-IO
 * every rank calls, whatever happened. */
static gcoo_status close_all(gcoo__h5_dset *d, int nd, hid_t *fid, const char *tmp, gcoo_status st,
                             int flush_failed) {
  for (int i = 0; i < nd; i++) {
    if (d[i].id < 0) continue;
    if (H5Dclose(d[i].id) < 0 && st >= 0)
      st = gcoo__h5_raise(GCOO_ERR_IO, __FILE__, __LINE__, __func__,
                          "%s: closing the dataset "
                          "in \"%s\" failed",
                          d[i].label, tmp);
    d[i].id = H5I_INVALID_HID;
  }
  if (*fid >= 0) {
    if (!flush_failed && st >= 0 && H5Fflush(*fid, H5F_SCOPE_GLOBAL) < 0)
      st = gcoo__h5_raise(GCOO_ERR_IO, __FILE__, __LINE__, __func__, "cannot flush \"%s\"", tmp);
    /* A flush that failed cannot be undone in HDF5 1.10.8: its metadata cache stays in flush
     * state ("slist already enabled?"), every later close fails, and the library's own
     * clean-up in MPI_Finalize crashes on the file (H5F__close_cb). gcoo still reports the
     * error, removes the temporary file and leaves the target untouched; the crash at exit
     * is HDF5's (docs/reliability.md §5). The reservation keeps a full disk from getting here. */
    if (H5Fclose(*fid) < 0 && st >= 0)
      st = gcoo__h5_raise(GCOO_ERR_IO, __FILE__, __LINE__, __func__, "cannot close \"%s\"", tmp);
    H5Eclear2(H5E_DEFAULT);
    *fid = H5I_INVALID_HID;
  }
  return st;
}

/* What the write will do to the target (decided on rank 0, broadcast). */
enum { TARGET_NEW = 0, TARGET_UPDATE = 1, TARGET_UPDATE_REPLACE = 2, TARGET_REPLACE_FILE = 3 };

/* Does the object path exist in fid? A component that is a dataset where a group is needed is
 * an error (the object cannot be created there). Not collective. */
static gcoo_status object_exists(hid_t fid, const gcoo__h5_path *p, int *exists) {
  gcoo_status st = GCOO_SUCCESS;
  char *part = NULL;
  *exists = 0;
  GCOO_GOTO(gcoo__malloc((void **)&part, strlen(p->object) + 1, "object path"));
  /* each prefix "/a", "/a/b", ... in turn: H5Lexists needs the parents to exist */
  for (size_t i = 1, n = strlen(p->object); i <= n; i++) {
    if (p->object[i] != '/' && p->object[i] != '\0') continue;
    memcpy(part, p->object, i);
    part[i] = '\0';
    htri_t ex = -1;
    H5_TRY(ex = H5Lexists(fid, part, H5P_DEFAULT), "%s: cannot look up %s", p->file, part);
    if (!ex) goto done;
      /* through an external link the write would change the other file in place, outside the
     * temporary copy and its rename: never atomic, and that file may be an input */
#if H5_VERSION_GE(1, 12, 0)
    H5L_info2_t li;
    H5_TRY(H5Lget_info2(fid, part, &li, H5P_DEFAULT), "%s: cannot look up %s", p->file, part);
#else
    H5L_info_t li;
    H5_TRY(H5Lget_info(fid, part, &li, H5P_DEFAULT), "%s: cannot look up %s", p->file, part);
#endif
    GCOO_CHECK_GOTO(li.type != H5L_TYPE_EXTERNAL, GCOO_ERR_INVALID_ARG,
                    "%s:%s cannot be written: %s is an external link to another file, which the "
                    "write would change in place; name the object in the file it links to",
                    p->file, p->object, part);
    if (i < n) {
      H5O_info_t info;
#if H5_VERSION_GE(1, 12, 0)
      H5_TRY(H5Oget_info_by_name3(fid, part, &info, H5O_INFO_BASIC, H5P_DEFAULT), "%s: %s", p->file,
             part);
#else
      H5_TRY(H5Oget_info_by_name2(fid, part, &info, H5O_INFO_BASIC, H5P_DEFAULT), "%s: %s", p->file,
             part);
#endif
      GCOO_CHECK_GOTO(info.type == H5O_TYPE_GROUP, GCOO_ERR_EXISTS,
                      "%s:%s cannot be written: %s is a dataset, not a group", p->file, p->object,
                      part);
    }
  }
  *exists = 1;
done:
  free(part);
  return st;
}

/* Rank 0: what is at the target, and whether this write may go ahead. */
static gcoo_status inspect_target(const gcoo__h5_path *p, int flags, int *mode) {
  gcoo_status st = GCOO_SUCCESS;
  struct stat sb;
  const int overwrite = (flags & GCOO_H5_OVERWRITE) != 0;
  *mode = TARGET_NEW;
  GCOO_CALL(gcoo__target_dir_check(p->file));
  if (stat(p->file, &sb) != 0) {
    GCOO_CHECK(errno == ENOENT, GCOO_ERR_IO, "cannot write \"%s\": %s", p->file, strerror(errno));
    return GCOO_SUCCESS;
  }
  GCOO_CHECK(!S_ISDIR(sb.st_mode), GCOO_ERR_IO, "cannot write \"%s\": it is a directory", p->file);
  GCOO_CHECK(S_ISREG(sb.st_mode), GCOO_ERR_IO, "cannot write \"%s\": not a regular file", p->file);
  htri_t is = -1;
#if H5_VERSION_GE(1, 12, 0)
  is = H5Fis_accessible(p->file, H5P_DEFAULT);
#else
  is = H5Fis_hdf5(p->file);
#endif
  H5Eclear2(H5E_DEFAULT);
  if (is <= 0 || !strcmp(p->object, "/")) {
    GCOO_CHECK(overwrite, GCOO_ERR_EXISTS,
               "\"%s\" exists and %s: it would be replaced as a whole; nothing was written "
               "(allow it with overwrite: gcoo_dist --overwrite, GCOO_H5_OVERWRITE)",
               p->file, is <= 0 ? "is not an HDF5 file" : "the object to write is its root group");
    *mode = TARGET_REPLACE_FILE;
    return GCOO_SUCCESS;
  }
  hid_t fid = H5I_INVALID_HID;
  int exists = 0;
  H5_TRY_AS(GCOO_ERR_IO, fid = H5Fopen(p->file, H5F_ACC_RDONLY, H5P_DEFAULT),
            "cannot open \"%s\" to add %s to it", p->file, p->object);
  GCOO_GOTO(object_exists(fid, p, &exists));
  GCOO_CHECK_GOTO(!exists || overwrite, GCOO_ERR_EXISTS,
                  "%s:%s exists; nothing was written (replace it with overwrite: gcoo_dist "
                  "--overwrite, GCOO_H5_OVERWRITE; the file's other objects are kept either way)",
                  p->file, p->object);
  *mode = exists ? TARGET_UPDATE_REPLACE : TARGET_UPDATE;
done:
  gcoo__h5_close(&fid);
  return st;
}

/* The file's end (every dataset is allocated at creation), for the reservation. */
static int64_t file_end(hid_t fid) {
  haddr_t eoa = 0;
  if (H5Fget_eoa(fid, &eoa) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  return (int64_t)eoa;
}

/* Rank 0, after every rank closed: the file opens, holds the object and the object is not
 * marked incomplete (HDF5 refuses a file shorter than its recorded end). */
static gcoo_status verify(const char *tmp, const gcoo__h5_path *p) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t fid = H5I_INVALID_HID, obj = H5I_INVALID_HID;
  int is_group = 0;
  gcoo__h5_path tp = {(char *)tmp, p->object};
  H5_TRY_AS(GCOO_ERR_IO, fid = H5Fopen(tmp, H5F_ACC_RDONLY, H5P_DEFAULT),
            "the file written (\"%s\") does not open again", tmp);
  GCOO_GOTO(gcoo__h5_open_object(fid, &tp, &obj, &is_group));
done:
  gcoo__h5_close(&obj);
  gcoo__h5_close(&fid);
  return st;
}

/* Rank 0 only: what to reserve for the temp file, then the reservation. HDF5's end of the file
 * (every dataset is allocated at creation) when the driver reports it; H5Fget_eoa fails with the
 * MPI-IO driver of HDF5 1.10, so also what the layout needs on top of the file as it is now
 * (data, 1 MiB alignment per dataset with MPI-IO), whichever is larger, plus 64 KiB for the
 * metadata written at close. */
static gcoo_status reserve(const gcoo__h5_comm *c, hid_t fid, const char *tmp,
                           const gcoo__h5_wlayout *lay, const char *label) {
  struct stat sb;
  int64_t need = stat(tmp, &sb) == 0 ? (int64_t)sb.st_size : 0;
  for (int i = 0; i < lay->nd; i++) {
    const gcoo__h5_wdset *w = &lay->d[i];
    need += w->dims[0] * (w->ndims == 2 ? w->dims[1] : 1) * (int64_t)gcoo__h5_kind_size(w->kind);
    if (c->mpio) need += (int64_t)1 << 20;
  }
  int64_t end = file_end(fid);
  if (end < need) end = need;
  end += (int64_t)64 << 10;
  GCOO_LOG(GCOO_LOG_INFO, "H5", "%s: reserving %lld bytes for %s", tmp, (long long)end, label);
  return gcoo__reserve(tmp, end, label);
}

/* The new object and its mark on disk before any data: a file cut short at any later point
 * shows the object marked unfinished (not an old copy, not a half-filled object). */
static gcoo_status flush_mark(hid_t fid, const char *tmp, int *failed) {
  gcoo_status st = GCOO_SUCCESS;
  *failed = 1;
  H5_TRY_AS(GCOO_ERR_IO, H5Fflush(fid, H5F_SCOPE_GLOBAL), "cannot flush \"%s\"", tmp);
  *failed = 0;
done:
  return st;
}

static gcoo_status remove_mark(hid_t fid, const gcoo__h5_path *p) {
  gcoo_status st = GCOO_SUCCESS;
  H5_TRY(H5Adelete_by_name(fid, p->object, GCOO__H5_INCOMPLETE, H5P_DEFAULT),
         "%s:%s: cannot remove the mark of an incomplete write", p->file, p->object);
done:
  return st;
}

/* Replace an existing object (overwrite): unlink it in the copy. */
static gcoo_status unlink_old(hid_t fid, const gcoo__h5_path *p) {
  gcoo_status st = GCOO_SUCCESS;
  H5_TRY(H5Ldelete(fid, p->object, H5P_DEFAULT), "%s:%s: cannot remove the old object", p->file,
         p->object);
done:
  return st;
}

gcoo_status gcoo__h5_write_object(const gcoo__h5_comm *c, const char *path,
                                  const gcoo__h5_wlayout *lay, gcoo__h5_write_fn fn, void *ctx,
                                  gcoo_status local) {
  gcoo_status st = gcoo__h5_agree(c, local);
  gcoo__h5_path p = {NULL, NULL};
  gcoo__h5_dset d[5];
  gcoo__target target = GCOO__TARGET_INIT;
  hid_t fid = H5I_INVALID_HID;
  char tmp[GCOO__TMP_NAME] = "", label[GCOO_H5_LABEL] = "";
  int mode = TARGET_NEW, slot = -1, made = 0, flush_failed = 0;
  for (int i = 0; i < 5; i++) d[i] = (gcoo__h5_dset)GCOO__H5_DSET_INIT;
  if (st < 0) return st;
  /* the same target on every rank; the checks that need no file first */
  st = gcoo__h5_path_parse(path, &p);
  if (st >= 0) gcoo__h5_label(label, sizeof label, &p, NULL);
  if (st >= 0 && !lay->encoding && !strcmp(p.object, "/"))
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "%s: a dense matrix is a dataset and needs a name in "
                    "the file (for example %s:/X)",
                    path, p.file);
  st = gcoo__h5_agree(c, st);
  if (st >= 0) st = gcoo__h5_same_on_all(c, NULL, 0, path, "HDF5 output");
  if (st < 0) goto done;

  /* the file the write lands in: where the target's symbolic links lead (rank 0 decides) */
  if (c->rank == 0) st = gcoo__target_path(p.file, tmp, sizeof tmp);
  st = gcoo__h5_agree(c, st);
  if (st >= 0) st = gcoo__h5_bcast(c, tmp, sizeof tmp, 0);
  if (st >= 0 && strcmp(tmp, p.file)) {
    free(p.file);
    p.file = NULL;
    st = gcoo__malloc((void **)&p.file, strlen(tmp) + 1, "HDF5 file name");
    if (st >= 0) memcpy(p.file, tmp, strlen(tmp) + 1);
  }
  st = gcoo__h5_agree(c, st);
  if (st < 0) goto done;
  tmp[0] = '\0';

  /* rank 0 decides, names the temporary file and (for an update) copies the target */
  if (c->rank == 0) {
    st = inspect_target(&p, c->write_flags, &mode);
    if (st >= 0) st = gcoo__target_snapshot(p.file, &target);
    if (st >= 0) st = gcoo__tmp_name(p.file, tmp, sizeof tmp);
  }
  st = gcoo__h5_agree(c, st);
  if (st >= 0) st = gcoo__h5_bcast(c, tmp, sizeof tmp, 0);
  if (st >= 0) st = gcoo__h5_bcast(c, &mode, sizeof mode, 0);
  if (st < 0) goto done;
  slot = gcoo__tmp_register(tmp);
  made = 1;
  const int update = mode == TARGET_UPDATE || mode == TARGET_UPDATE_REPLACE;
  if (c->rank == 0 && update) st = gcoo__copy_file(p.file, tmp);
  st = gcoo__h5_agree(c, st);
  if (st < 0) goto done;

  if (c->mpio || c->size == 1) {
    st = open_file(c, tmp, update, &fid);
    st = gcoo__h5_agree(c, st);
    if (st >= 0 && mode == TARGET_UPDATE_REPLACE) st = unlink_old(fid, &p);
    if (st >= 0) st = build_object(c, fid, &p, lay, d);
    st = gcoo__h5_agree(c, st);
    if (st >= 0) st = flush_mark(fid, tmp, &flush_failed);
    st = gcoo__h5_agree(c, st);
    if (st >= 0 && c->rank == 0) st = reserve(c, fid, tmp, lay, label);
    st = gcoo__h5_agree(c, st);
    if (st >= 0) fn(c, d, ctx, &st);
    st = gcoo__h5_agree(c, st);
    if (st >= 0) st = remove_mark(fid, &p);
    st = close_all(d, lay->nd, &fid, tmp, st, flush_failed); /* collective with MPI-IO */
    st = gcoo__h5_agree(c, st);
  } else {
    /* no MPI-IO: ranks write one after the other through their own file handles */
    for (int r = 0; r < c->size && st >= 0; r++) {
      if (c->rank == r) {
        if (r == 0) {
          st = open_file(c, tmp, update, &fid);
          if (st >= 0 && mode == TARGET_UPDATE_REPLACE) st = unlink_old(fid, &p);
          if (st >= 0) st = build_object(c, fid, &p, lay, d);
          if (st >= 0) st = flush_mark(fid, tmp, &flush_failed);
          if (st >= 0) st = reserve(c, fid, tmp, lay, label);
        } else {
          fid = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
          if (fid < 0)
            st = gcoo__h5_raise(GCOO_ERR_IO, __FILE__, __LINE__, __func__,
                                "cannot reopen \"%s\" for rank %d", tmp, r);
          else
            st = reopen_object(fid, &p, lay, d);
        }
        if (st >= 0) fn(c, d, ctx, &st);
        if (st >= 0 && r == c->size - 1) st = remove_mark(fid, &p);
        st = close_all(d, lay->nd, &fid, tmp, st, flush_failed);
      }
      st = gcoo__h5_agree(c, st);
    }
  }
  if (st >= 0 && c->rank == 0) st = verify(tmp, &p);
  st = gcoo__h5_agree(c, st);
  /* publish on rank 0, and tell everyone */
  if (st >= 0 && c->rank == 0) st = gcoo__publish(tmp, p.file, &target);
  st = gcoo__h5_agree(c, st);
done:
  if (made) {
    if (st < 0) unlink(tmp); /* every rank: the first removes it, ENOENT for the others */
    gcoo__tmp_unregister(slot);
  }
  gcoo__target_release(&target);
  gcoo__h5_path_free(&p);
  return st;
}

/* The checks of gcoo__h5_write_object that need no data, on the caller's process. */
static gcoo_status write_check(const char *path, int flags) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_path p = {NULL, NULL};
  char *file = NULL, *tmp = NULL;
  int mode = TARGET_NEW;
  GCOO_GOTO(gcoo__h5_path_parse(path, &p));
  GCOO_GOTO(gcoo__malloc((void **)&file, GCOO__TMP_NAME, "file name"));
  GCOO_GOTO(gcoo__malloc((void **)&tmp, GCOO__TMP_NAME, "temporary file name"));
  GCOO_GOTO(gcoo__target_path(p.file, file, GCOO__TMP_NAME));
  free(p.file);
  p.file = file; /* where the write lands */
  file = NULL;
  GCOO_GOTO(inspect_target(&p, flags, &mode));
  GCOO_GOTO(gcoo__tmp_name(p.file, tmp, GCOO__TMP_NAME));
done:
  free(file);
  free(tmp);
  gcoo__h5_path_free(&p);
  return st;
}

gcoo_status gcoo__h5_write_check(const char *path, int flags) {
  GCOO_H5_RETURN_QUIETLY(write_check(path, flags));
}
