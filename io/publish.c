/* SPDX-License-Identifier: MIT */
/* io/publish.c: temporary files and their publication, shared by the HDF5 and Matrix Market
 * writers (io/publish.h says what each function promises).
 *
 * Why each step:
 *  - unique names: two jobs writing the same target once shared "<file>.tmp" and one renamed the
 *    other's half-written file; the name now carries the job and 32 random bits, and it is
 *    shortened where it would pass the file system's name limit.
 *  - symbolic links: the target is where the links lead, so that a link is written through,
 *    as a shell's redirection writes, and not replaced by a regular file.
 *  - the registry: a SIGTERM (Slurm's time limit) in the middle of a write left hundreds of MB
 *    behind; gcoo_remove_temporaries() is async-signal-safe (unlink of fixed buffers only).
 *  - the reservation: with Open MPI 4.1.4 + HDF5 1.10, ENOSPC inside a collective write was
 *    swallowed (OMPIO) or left the ranks waiting for each other inside H5Fclose (both MPI-IO
 *    components): the disk space is claimed before the first byte of data, where a failure is
 *    an ordinary error every rank can agree on.
 *  - the check before the rename: a target that another writer changed since this write started
 *    is not replaced (that writer's result, and with updates the objects it added, would be
 *    lost silently). */
#define _GNU_SOURCE /* fallocate, FALLOC_FL_KEEP_SIZE */
#include "publish.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- names and the registry ----------------------------------------------------------------- */

static void job_id(char *out, size_t len) {
  const char *slurm = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID"),
             *pbs = getenv("PBS_JOBID");
  if (slurm && *slurm)
    snprintf(out, len, "%s%s%s", slurm, step && *step ? "." : "", step && *step ? step : "");
  else if (pbs && *pbs)
    snprintf(out, len, "%s", pbs);
  else
    snprintf(out, len, "p%ld", (long)getpid());
  for (char *c = out; *c; c++) /* only characters that are safe in a file name */
    if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
          *c == '.' || *c == '-' || *c == '_'))
      *c = '_';
}

/* The longest name a file may have in the directory of path (NAME_MAX where it cannot be
 * asked). */
static size_t name_max_of(const char *path) {
  char dir[GCOO__TMP_NAME];
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  long m = pathconf(dir, _PC_NAME_MAX);
  return m > 0 ? (size_t)m : 255;
}

gcoo_status gcoo__tmp_name(const char *file, char *out, size_t len) {
  char job[40], suffix[64];
  uint32_t r = 0;
  job_id(job, sizeof job);
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, &r, sizeof r) != (ssize_t)sizeof r) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^ (uint32_t)getpid();
  }
  if (fd >= 0) close(fd);
  snprintf(suffix, sizeof suffix, ".tmp.%s.%08x", job, (unsigned)r);
  /* the target's own name shortened where the suffix would take the whole name past the file
   * system's limit (a name of 236-255 bytes) or the path past len: the temporary name only has
   * to be unique in the directory, which the job and the random part make it */
  const char *slash = strrchr(file, '/');
  const size_t dir = slash ? (size_t)(slash - file) + 1 : 0, base = strlen(file) - dir,
               sl = strlen(suffix), nmax = name_max_of(file);
  size_t keep = base;
  if (keep + sl > nmax) keep = nmax > sl ? nmax - sl : 0;
  if (dir + keep + sl >= len) keep = len > dir + sl + 1 ? len - dir - sl - 1 : 0;
  while (keep > 0 && keep < base && ((unsigned char)file[dir + keep] & 0xc0) == 0x80)
    keep--; /* not inside a UTF-8 character */
  GCOO_CHECK(keep > 0 || base == 0, GCOO_ERR_INVALID_ARG,
             "no temporary name fits beside \"%s\" (its directory's path is %zu bytes): use a "
             "shorter path",
             file, dir);
  snprintf(out, len, "%.*s%s", (int)(dir + keep), file, suffix);
  return GCOO_SUCCESS;
}

gcoo_status gcoo__target_path(const char *file, char *out, size_t len) {
  char link[GCOO__TMP_NAME];
  struct stat sb;
  GCOO_CHECK(strlen(file) < len, GCOO_ERR_INVALID_ARG, "the path \"%s\" is too long (%zu bytes)",
             file, strlen(file));
  snprintf(out, len, "%s", file);
  for (int hops = 0; lstat(out, &sb) == 0 && S_ISLNK(sb.st_mode); hops++) {
    GCOO_CHECK(hops < 40, GCOO_ERR_IO, "cannot write \"%s\": too many levels of symbolic links",
               file);
    ssize_t n = readlink(out, link, sizeof link - 1);
    GCOO_CHECK(n >= 0, GCOO_ERR_IO, "cannot read the symbolic link \"%s\": %s", out,
               strerror(errno));
    link[n] = '\0';
    /* a relative target is relative to the link's directory */
    const char *slash = strrchr(out, '/');
    const size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
    GCOO_CHECK(dir + (size_t)n < len, GCOO_ERR_INVALID_ARG,
               "cannot write \"%s\": the path its symbolic links lead to is too long", file);
    memmove(out + dir, link, (size_t)n + 1);
  }
  return GCOO_SUCCESS;
}

int gcoo__is_tmp_name(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n < 14 || base[n - 9] != '.') return 0;
  for (size_t i = n - 8; i < n; i++)
    if (!((base[i] >= '0' && base[i] <= '9') || (base[i] >= 'a' && base[i] <= 'f'))) return 0;
  /* ".tmp." then a job name without '/', before the random part */
  for (const char *t = strstr(base, ".tmp."); t; t = strstr(t + 1, ".tmp."))
    if ((size_t)(t - base) + 5 < n - 9) return 1;
  return 0;
}

enum { TMP_SLOTS = 8 };
static char tmp_paths[TMP_SLOTS][GCOO__TMP_NAME];
static volatile sig_atomic_t tmp_used[TMP_SLOTS];

int gcoo__tmp_register(const char *path) {
  size_t n = strlen(path);
  if (n >= GCOO__TMP_NAME) return -1;
  for (int i = 0; i < TMP_SLOTS; i++) {
    if (tmp_used[i]) continue;
    memcpy(tmp_paths[i], path, n + 1);
    tmp_used[i] = 1; /* set after the name is complete: a handler never sees half a name */
    return i;
  }
  return -1;
}

void gcoo__tmp_unregister(int slot) {
  if (slot >= 0 && slot < TMP_SLOTS) tmp_used[slot] = 0;
}

int gcoo_remove_temporaries(void) {
  int removed = 0;
  for (int i = 0; i < TMP_SLOTS; i++) {
    if (!tmp_used[i]) continue;
    tmp_used[i] = 0;
    if (unlink(tmp_paths[i]) == 0) removed++;
  }
  return removed;
}

/* ---- the target --------------------------------------------------------------------------- */

static void fill(gcoo__target *t, const struct stat *sb) {
  t->dev = sb->st_dev;
  t->ino = sb->st_ino;
  t->size = (int64_t)sb->st_size;
  t->mtime = sb->st_mtim;
  t->ctime = sb->st_ctim;
}

gcoo_status gcoo__target_snapshot(const char *file, gcoo__target *t) {
  struct stat sb;
  *t = (gcoo__target)GCOO__TARGET_INIT;
  t->fd = open(file, O_RDONLY | O_CLOEXEC);
  if (t->fd < 0) {
    GCOO_CHECK(errno == ENOENT, GCOO_ERR_IO, "cannot open \"%s\": %s", file, strerror(errno));
    return GCOO_SUCCESS; /* a new file */
  }
  if (fstat(t->fd, &sb) != 0) {
    int e = errno;
    close(t->fd);
    t->fd = -1;
    return GCOO_ERROR(GCOO_ERR_IO, "cannot stat \"%s\": %s", file, strerror(e));
  }
  t->existed = 1;
  fill(t, &sb);
  return GCOO_SUCCESS;
}

void gcoo__target_release(gcoo__target *t) {
  /* only a descriptor snapshot opened: a zeroed struct (fd 0) is not one */
  if (t->existed && t->fd >= 0) close(t->fd);
  t->fd = -1;
  t->existed = 0;
}

static int same_time(struct timespec a, struct timespec b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

gcoo_status gcoo__target_dir_check(const char *file) {
  char dir[GCOO__TMP_NAME];
  struct stat sb;
  const char *slash = strrchr(file, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", slash == file ? 1 : (int)(slash - file), file);
  GCOO_CHECK(stat(dir, &sb) == 0, GCOO_ERR_IO, "cannot write \"%s\": the directory \"%s\" %s", file,
             dir, errno == ENOENT ? "does not exist" : strerror(errno));
  GCOO_CHECK(S_ISDIR(sb.st_mode), GCOO_ERR_IO, "cannot write \"%s\": \"%s\" is not a directory",
             file, dir);
  if (access(dir, W_OK | X_OK) != 0) {
    int e = errno;
    return GCOO_ERROR(GCOO_ERR_IO, "cannot write \"%s\": %s", file,
                      e == EROFS    ? "its directory is on a read-only file system"
                      : e == EACCES ? "no permission to create files in its directory"
                                    : strerror(e));
  }
  if (stat(file, &sb) == 0) /* an existing target the result would replace */
    GCOO_CHECK(!S_ISDIR(sb.st_mode), GCOO_ERR_IO, "cannot write \"%s\": it is a directory", file);
  return GCOO_SUCCESS;
}

/* ---- space and copies ------------------------------------------------------------------------ */

gcoo_status gcoo__reserve(const char *tmp, int64_t bytes, const char *what) {
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
  if (bytes <= 0) return GCOO_SUCCESS;
  int fd = open(tmp, O_WRONLY | O_CLOEXEC);
  GCOO_CHECK(fd >= 0, GCOO_ERR_IO, "cannot open \"%s\": %s", tmp, strerror(errno));
  int rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes);
  int e = errno;
  close(fd);
  if (rc != 0 && (e == EOPNOTSUPP || e == ENOSYS || e == EINVAL || e == EPERM)) {
    GCOO_LOG(GCOO_LOG_INFO, "IO",
             "%s: the file system cannot reserve space (%s): writing "
             "without a reservation",
             tmp, strerror(e));
    return GCOO_SUCCESS;
  }
  GCOO_CHECK(rc == 0, GCOO_ERR_IO,
             "cannot reserve %lld bytes for %s in \"%s\": %s (nothing was "
             "written; the target is unchanged)",
             (long long)bytes, what, tmp, strerror(e));
#else
  (void)tmp, (void)bytes, (void)what;
#endif
  return GCOO_SUCCESS;
}

gcoo_status gcoo__copy_file(const char *file, const char *tmp) {
  gcoo_status st = GCOO_SUCCESS;
  struct stat sb;
  char *buf = NULL;
  int in = open(file, O_RDONLY | O_CLOEXEC), out = -1;
  GCOO_CHECK(in >= 0, GCOO_ERR_IO, "cannot open \"%s\": %s", file, strerror(errno));
  if (fstat(in, &sb) != 0) {
    st = GCOO_ERROR(GCOO_ERR_IO, "cannot stat \"%s\": %s", file, strerror(errno));
    goto done;
  }
  out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, sb.st_mode & 07777);
  GCOO_CHECK_GOTO(out >= 0, GCOO_ERR_IO, "cannot create \"%s\": %s", tmp, strerror(errno));
  /* the whole file's space first: a full disk fails here, not half-way */
  st = gcoo__reserve(tmp, (int64_t)sb.st_size, "the copy of the file");
  if (st < 0) goto done;
  const size_t chunk = (size_t)4 << 20;
  GCOO_GOTO(gcoo__malloc((void **)&buf, chunk, "file copy buffer"));
  unsigned char head[8];
  int64_t done_bytes = 0, head_n = 0;
  for (;;) {
    ssize_t n = read(in, buf, chunk);
    if (n < 0 && errno == EINTR) continue;
    GCOO_CHECK_GOTO(n >= 0, GCOO_ERR_IO, "cannot read \"%s\": %s", file, strerror(errno));
    if (n == 0) break;
    if (done_bytes == 0) { /* keep the signature back until the copy is whole */
      head_n = n < 8 ? n : 8;
      memcpy(head, buf, (size_t)head_n);
      memset(buf, 0, (size_t)head_n);
    }
    done_bytes += n;
    for (ssize_t at = 0; at < n;) {
      ssize_t w = write(out, buf + at, (size_t)(n - at));
      if (w < 0 && errno == EINTR) continue;
      GCOO_CHECK_GOTO(w > 0, GCOO_ERR_IO, "cannot write \"%s\" (copying \"%s\" to update it): %s",
                      tmp, file, w < 0 ? strerror(errno) : "no progress");
      at += w;
    }
  }
  GCOO_CHECK_GOTO(head_n == 0 || pwrite(out, head, (size_t)head_n, 0) == (ssize_t)head_n,
                  GCOO_ERR_IO, "cannot write \"%s\": %s", tmp, strerror(errno));
  GCOO_CHECK_GOTO(close(out) == 0, GCOO_ERR_IO, "cannot close \"%s\": %s", tmp, strerror(errno));
  out = -1;
done:
  free(buf);
  if (out >= 0) close(out);
  close(in);
  if (st < 0) unlink(tmp);
  return st;
}

/* ---- publication ---------------------------------------------------------------------------- */

static void sync_dir(const char *file) {
  char dir[GCOO__TMP_NAME];
  snprintf(dir, sizeof dir, "%s", file);
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    slash[1] = '\0';
  else if (slash)
    *slash = '\0';
  else
    snprintf(dir, sizeof dir, ".");
  int dfd = open(dir, O_RDONLY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd); /* best effort: not every file system syncs directories */
    close(dfd);
  }
}

static gcoo_status changed(const char *file, const char *how) {
  return GCOO_ERROR(GCOO_ERR_EXISTS,
                    "\"%s\" %s since this write started (another job or program "
                    "wrote it meanwhile): this result was not published, and what the other "
                    "writer left is untouched; run again to write it",
                    file, how);
}

gcoo_status gcoo__publish(const char *tmp, const char *file, const gcoo__target *t) {
  gcoo_status st = GCOO_SUCCESS;
  struct stat sb;
  int fd = open(tmp, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    int rc = fsync(fd), e = errno;
    close(fd);
    GCOO_CHECK_GOTO(rc == 0 || e == EINVAL || e == EROFS, GCOO_ERR_IO, "cannot sync \"%s\": %s",
                    tmp, strerror(e));
  }
  if (t->existed) {
    /* the lock orders two gcoo writers of one file: the second sees the first's new file */
    while (flock(t->fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    if (stat(file, &sb) != 0) {
      st = changed(file, "was removed");
      goto done;
    }
    if (sb.st_dev != t->dev || sb.st_ino != t->ino) {
      st = changed(file, "was replaced");
      goto done;
    }
    if ((int64_t)sb.st_size != t->size || !same_time(sb.st_mtim, t->mtime) ||
        !same_time(sb.st_ctim, t->ctime)) {
      st = changed(file, "was modified");
      goto done;
    }
    GCOO_CHECK_GOTO(rename(tmp, file) == 0, GCOO_ERR_IO, "cannot rename \"%s\" to \"%s\": %s", tmp,
                    file, strerror(errno));
  } else if (link(tmp, file) == 0) {
    unlink(tmp); /* the result now has both names; drop the temporary one */
  } else {
    int e = errno;
    if (e == EEXIST) {
      st = changed(file, "was created");
      goto done;
    }
    /* no hard links here (some network and FUSE file systems): check, then rename */
    if (stat(file, &sb) == 0) {
      st = changed(file, "was created");
      goto done;
    }
    GCOO_CHECK_GOTO(rename(tmp, file) == 0, GCOO_ERR_IO, "cannot rename \"%s\" to \"%s\": %s", tmp,
                    file, strerror(errno));
  }
  sync_dir(file);
done:
  if (t->existed && t->fd >= 0) flock(t->fd, LOCK_UN);
  if (st < 0) unlink(tmp);
  return st;
}
