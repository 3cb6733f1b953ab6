/* SPDX-License-Identifier: MIT */
/* io/h5_write.c: every write of gcoo goes through one engine:
 *   1. agree on the ranks' own argument checks;
 *   2. create "<file>.tmp" (a new file) and in it the group with its attributes and datasets,
 *      or the dense dataset (collectively with MPI-IO);
 *   3. let each rank write its parts (collective rounds with MPI-IO; without MPI-IO one rank
 *      after the other, each opening the temp file in turn);
 *   4. close, agree that every rank succeeded, then rank 0 makes the file durable (fsync) and
 *      renames it over <file>; on any failure rank 0 removes the temp file, <file> is untouched.
 * So a file under the target name is always complete. */
#define _POSIX_C_SOURCE 200809L /* strtok_r, stat, access, fsync */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5_impl.h"

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
#ifdef H5_HAVE_PARALLEL
  if (c->mpio) H5_TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "dataset properties");
#else
  (void)c;
#endif
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
    }
  }
done:
  gcoo__h5_close(&space);
  gcoo__h5_close(&grp);
  gcoo__h5_close(&dcpl);
  gcoo__h5_close(&lcpl);
  return st;
}

/* Reopen the datasets of the temp file (ranks after the first, without MPI-IO). */
static gcoo_status reopen_object(hid_t fid, const gcoo__h5_path *p, const gcoo__h5_wlayout *lay,
                                 gcoo__h5_dset *d) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t obj = H5I_INVALID_HID;
  int is_group = 0;
  GCOO_GOTO(gcoo__h5_open_object(fid, p, &obj, &is_group));
  for (int i = 0; i < lay->nd; i++) {
    char label[GCOO_H5_LABEL];
    gcoo__h5_label(label, sizeof label, p, lay->d[i].name);
    GCOO_GOTO(gcoo__h5_dset_open(obj, lay->d[i].name, label, &d[i]));
  }
done:
  gcoo__h5_close(&obj);
  return st;
}

static gcoo_status create_file(const gcoo__h5_comm *c, const char *tmp, hid_t *fid) {
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
  H5_TRY_AS(GCOO_ERR_IO, *fid = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl),
            "cannot create \"%s\"", tmp);
done:
  gcoo__h5_close(&fapl);
  return st;
}

static void close_all(gcoo__h5_dset *d, int nd, hid_t *fid) {
  for (int i = 0; i < nd; i++) gcoo__h5_dset_close(&d[i]);
  gcoo__h5_close(fid);
}

/* Rank 0 only: make the temp file durable, rename it over the target, sync the directory. */
static gcoo_status commit(const char *tmp, const char *file) {
  int fd = open(tmp, O_RDONLY);
  if (fd >= 0) {
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0 && e != EINVAL && e != EROFS) {
      remove(tmp);
      return GCOO_ERROR(GCOO_ERR_IO, "cannot sync \"%s\": %s", tmp, strerror(e));
    }
  }
  if (rename(tmp, file) != 0) {
    int e = errno;
    remove(tmp);
    return GCOO_ERROR(GCOO_ERR_IO, "cannot rename \"%s\" to \"%s\": %s", tmp, file, strerror(e));
  }
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", file);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  else snprintf(dir, sizeof dir, ".");
  int dfd = open(dir, O_RDONLY);
  if (dfd >= 0) {
    (void)fsync(dfd); /* best effort: not every file system syncs directories */
    close(dfd);
  }
  return GCOO_SUCCESS;
}

static gcoo_status check_target(const char *file) {
  struct stat sb;
  GCOO_CHECK(!(stat(file, &sb) == 0 && S_ISDIR(sb.st_mode)), GCOO_ERR_IO,
             "cannot write \"%s\": it is a directory", file);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__h5_write_object(const gcoo__h5_comm *c, const char *path,
                                  const gcoo__h5_wlayout *lay, gcoo__h5_write_fn fn, void *ctx,
                                  gcoo_status local) {
  gcoo_status st = gcoo__h5_agree(c, local);
  gcoo__h5_path p = {NULL, NULL};
  gcoo__h5_dset d[5];
  hid_t fid = H5I_INVALID_HID;
  char *tmp = NULL;
  for (int i = 0; i < 5; i++) d[i] = (gcoo__h5_dset)GCOO__H5_DSET_INIT;
  if (st < 0) return st;
  /* the same target on every rank; the checks that need no file first */
  st = gcoo__h5_path_parse(path, &p);
  if (st >= 0) st = gcoo__malloc((void **)&tmp, strlen(p.file) + 5, "temp file name");
  if (st >= 0) sprintf(tmp, "%s.tmp", p.file);
  if (st >= 0 && !lay->encoding && !strcmp(p.object, "/"))
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG, "%s: a dense matrix is a dataset and needs a name in "
                    "the file (for example %s:/X)", path, p.file);
  if (st >= 0 && c->rank == 0) st = check_target(p.file);
  st = gcoo__h5_agree(c, st);
  if (st >= 0) st = gcoo__h5_same_on_all(c, NULL, 0, path, "HDF5 output");
  if (st < 0) goto done;

  if (c->mpio || c->size == 1) {
    st = create_file(c, tmp, &fid);
    st = gcoo__h5_agree(c, st);
    if (st >= 0) st = build_object(c, fid, &p, lay, d);
    st = gcoo__h5_agree(c, st);
    if (st >= 0) fn(c, d, ctx, &st);
    close_all(d, lay->nd, &fid); /* collective with MPI-IO: every rank, whatever happened */
    st = gcoo__h5_agree(c, st);
  } else {
    /* no MPI-IO: ranks write one after the other through their own file handles */
    for (int r = 0; r < c->size && st >= 0; r++) {
      if (c->rank == r) {
        if (r == 0) {
          st = create_file(c, tmp, &fid);
          if (st >= 0) st = build_object(c, fid, &p, lay, d);
        } else {
          fid = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
          if (fid < 0)
            st = gcoo__h5_raise(GCOO_ERR_IO, __FILE__, __LINE__, __func__,
                                "cannot reopen \"%s\" for rank %d", tmp, r);
          else
            st = reopen_object(fid, &p, lay, d);
        }
        if (st >= 0) fn(c, d, ctx, &st);
        close_all(d, lay->nd, &fid);
      }
      st = gcoo__h5_agree(c, st);
    }
  }

  /* commit or clean up, on rank 0, and tell everyone */
  if (c->rank == 0) {
    if (st >= 0)
      st = commit(tmp, p.file);
    else
      remove(tmp);
  }
  st = gcoo__h5_agree(c, st);
done:
  free(tmp);
  gcoo__h5_path_free(&p);
  return st;
}
