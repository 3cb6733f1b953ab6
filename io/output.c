/* SPDX-License-Identifier: MIT */
/* io/output.c: an output seen before it is written (gcoo/files.h): whether the writers would
 * accept it (the same checks they make, so a long job is not run only to be refused at its end)
 * and whether writing it would change one of the job's inputs, however either is named. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend_impl.h"
#include "gcoo/files.h"
#include "gcoo/mtx.h"
#include "publish.h"
#if GCOO_HAVE_HDF5
#include "h5_impl.h"
#endif

/* The file of path ("file.h5:/object" -> "file.h5"; Matrix Market: path) into buf, and the
 * object (NULL for Matrix Market). */
static gcoo_status split(const char *path, char *buf, size_t len, const char **object, char *obj,
                         size_t olen) {
  *object = NULL;
  if (gcoo_file_kind_of(path) != GCOO_FILE_H5) {
    GCOO_CHECK(strlen(path) < len, GCOO_ERR_INVALID_ARG, "the path \"%s\" is too long", path);
    snprintf(buf, len, "%s", path);
    return GCOO_SUCCESS;
  }
#if GCOO_HAVE_HDF5
  gcoo__h5_path p = {NULL, NULL};
  GCOO_CALL(gcoo__h5_path_parse(path, &p));
  snprintf(buf, len, "%s", p.file);
  snprintf(obj, olen, "%s", p.object);
  *object = obj;
  gcoo__h5_path_free(&p);
  return GCOO_SUCCESS;
#else
  (void)obj, (void)olen;
  return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "%s: gcoo was built without HDF5", path);
#endif
}

gcoo_status gcoo_output_check(const char *path, int overwrite) {
  GCOO_CHECK(path != NULL && *path, GCOO_ERR_NULL, "the output path is NULL or empty");
  const gcoo_file_kind kind = gcoo_file_kind_of(path);
  GCOO_CHECK(kind != GCOO_FILE_UNKNOWN, GCOO_ERR_INVALID_ARG,
             "%s: cannot tell the format from the name (.h5/.hdf5[:/object] for HDF5, .mtx or "
             ".mtx.gz for Matrix Market)",
             path);
  if (kind == GCOO_FILE_H5) {
#if GCOO_HAVE_HDF5
    GCOO_CALL(gcoo__h5_write_check(path, overwrite ? GCOO_H5_OVERWRITE : 0));
    return GCOO_SUCCESS;
#else
    return GCOO_ERROR(GCOO_ERR_UNSUPPORTED, "%s: gcoo was built without HDF5", path);
#endif
  }
  char target[GCOO__TMP_NAME], tmp[GCOO__TMP_NAME];
  struct stat sb;
  GCOO_CALL(gcoo__target_path(path, target, sizeof target));
  GCOO_CALL(gcoo__target_dir_check(target));
  GCOO_CHECK(overwrite || stat(target, &sb) != 0, GCOO_ERR_EXISTS,
             "%s exists; nothing was written (it is replaced only when asked: gcoo_dist "
             "--overwrite)",
             path);
  GCOO_CALL(gcoo__tmp_name(target, tmp, sizeof tmp));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_output_overlaps(const char *out, const char *in, int *overlap, char *why,
                                 size_t len) {
  char of[GCOO__TMP_NAME], target[GCOO__TMP_NAME], inf[GCOO__TMP_NAME], oo[GCOO__TMP_NAME],
      io_[GCOO__TMP_NAME], detail[GCOO__TMP_NAME + 200] = "";
  const char *oobj = NULL, *iobj = NULL;
  struct stat so, si;
  GCOO_CHECK(out && in && overlap, GCOO_ERR_NULL, "out, in or overlap is NULL");
  *overlap = 0;
  if (why && len) why[0] = '\0';
  /* a path the writer would refuse writes nothing (gcoo_output_check says why), and an input
   * that cannot be named is read by nothing (its read says why) */
  if (split(out, of, sizeof of, &oobj, oo, sizeof oo) < 0 ||
      split(in, inf, sizeof inf, &iobj, io_, sizeof io_) < 0 ||
      gcoo__target_path(of, target, sizeof target) < 0) /* where the write lands */
    return GCOO_SUCCESS;
#if GCOO_HAVE_HDF5
  if (iobj) { /* an HDF5 input: its objects, wherever they are stored */
    GCOO_CALL(gcoo__h5_overlap(target, oobj, in, overlap, detail, sizeof detail));
    if (!*overlap) return GCOO_SUCCESS;
  }
#endif
  if (!*overlap) {
    /* a Matrix Market input: the same file under any name */
    if (stat(target, &so) != 0 || stat(inf, &si) != 0) return GCOO_SUCCESS;
    if (so.st_dev != si.st_dev || so.st_ino != si.st_ino) return GCOO_SUCCESS;
    *overlap = 1;
    snprintf(detail, sizeof detail, "the same file");
  }
  if (why && len) snprintf(why, len, "%s would overwrite the input %s (%s)", out, in, detail);
  return GCOO_SUCCESS;
}
