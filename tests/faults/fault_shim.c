/* SPDX-License-Identifier: MIT */
/* tests/faults/fault_shim.c: faults injected from outside the library, through LD_PRELOAD, into
 * one rank of an MPI job (tests/faults/rank_wrap.sh preloads it on the chosen rank only). The
 * library has no fault-injection hook: what it meets here is what it would meet in production.
 * Environment (read once, at load):
 *   GCOO_FAULT_MODE   count     count the reads of matching files; write the count at exit to
 *                               $GCOO_FAULT_OUT (a file)
 *                     eio       reads of matching files fail with EIO from the
 *                               $GCOO_FAULT_AFTER-th on (1 = the first)
 *                     truncate  when the $GCOO_FAULT_AFTER-th read of a matching file starts,
 *                               truncate that file to $GCOO_FAULT_KEEP bytes (default 0) on disk:
 *                               the data disappears under every rank that has it open
 *                     weio      writes to matching files fail with EIO from the
 *                               $GCOO_FAULT_AFTER-th on (a disk failing under a write)
 *                     memory    right after MPI_Init / MPI_Init_thread returns, limit the
 *                               address space (RLIMIT_AS) to what the process uses then plus
 *                               $GCOO_FAULT_MARGIN_MB MiB: later large allocations fail, as on a
 *                               node whose memory is exhausted, while MPI starts normally
 *   GCOO_FAULT_PATH   substring of the path of the files concerned (count, eio, truncate)
 * Reads are read, pread, pread64, readv, preadv, preadv64 on file descriptors opened (open,
 * open64, openat, openat64) on a matching path: what zlib, HDF5's sec2 driver and MPI-IO use;
 * writes likewise write, pwrite, pwrite64, writev, pwritev, pwritev64. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { MAX_FD = 4096 };

static enum { M_NONE, M_COUNT, M_EIO, M_TRUNCATE, M_MEMORY, M_WEIO } mode;
static const char *pattern;
static long after = 1, keep = 0, margin_mb = 64;
static long nreads, nwrites;
static char watched[MAX_FD]; /* fd opened on a matching path */
static char *paths[MAX_FD];  /* that path, for truncate */
static int truncated;

static void shim_init(void) __attribute__((constructor));
static void shim_fini(void) __attribute__((destructor));

static void shim_init(void) {
  const char *m = getenv("GCOO_FAULT_MODE");
  pattern = getenv("GCOO_FAULT_PATH");
  if (getenv("GCOO_FAULT_AFTER")) after = atol(getenv("GCOO_FAULT_AFTER"));
  if (getenv("GCOO_FAULT_KEEP")) keep = atol(getenv("GCOO_FAULT_KEEP"));
  if (getenv("GCOO_FAULT_MARGIN_MB")) margin_mb = atol(getenv("GCOO_FAULT_MARGIN_MB"));
  if (!m) return;
  if (!strcmp(m, "count"))
    mode = M_COUNT;
  else if (!strcmp(m, "eio"))
    mode = M_EIO;
  else if (!strcmp(m, "truncate"))
    mode = M_TRUNCATE;
  else if (!strcmp(m, "memory"))
    mode = M_MEMORY;
  else if (!strcmp(m, "weio"))
    mode = M_WEIO;
  else
    fprintf(stderr, "fault_shim: unknown GCOO_FAULT_MODE \"%s\"\n", m);
}

static void shim_fini(void) {
  const char *out = getenv("GCOO_FAULT_OUT");
  if (mode != M_COUNT || !out) return;
  FILE *f = fopen(out, "w");
  if (f) {
    fprintf(f, "%ld\n", nreads);
    fclose(f);
  }
}

#define REAL(name) real_##name = real_##name ? real_##name : dlsym(RTLD_NEXT, #name)

static void watch(int fd, const char *path) {
  if (fd < 0 || fd >= MAX_FD) return;
  free(paths[fd]);
  paths[fd] = NULL;
  watched[fd] = pattern && path && strstr(path, pattern) != NULL;
  if (watched[fd]) paths[fd] = strdup(path);
}

/* Called before each read of fd; returns -1 (errno set) when the read must fail. */
static int before_read(int fd) {
  if (mode == M_NONE || mode == M_MEMORY || mode == M_WEIO || fd < 0 || fd >= MAX_FD ||
      !watched[fd])
    return 0;
  long k = __atomic_add_fetch(&nreads, 1, __ATOMIC_SEQ_CST);
  if (mode == M_EIO && k >= after) {
    if (k == after)
      fprintf(stderr, "fault_shim: pid %ld: read %ld of %s fails with EIO (and every later one)\n",
              (long)getpid(), k, paths[fd] ? paths[fd] : "?");
    errno = EIO;
    return -1;
  }
  if (mode == M_TRUNCATE && k >= after && !truncated && paths[fd]) {
    truncated = 1;
    fprintf(stderr, "fault_shim: pid %ld: read %ld of %s: the file is truncated to %ld bytes\n",
            (long)getpid(), k, paths[fd], keep);
    if (truncate(paths[fd], keep) != 0) perror("fault_shim: truncate");
  }
  return 0;
}

static int mode_arg(int flags) { return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE; }

int open(const char *path, int flags, ...) {
  static int (*real_open)(const char *, int, ...);
  REAL(open);
  mode_t m = 0;
  if (mode_arg(flags)) {
    va_list ap;
    va_start(ap, flags);
    m = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  int fd = real_open(path, flags, m);
  watch(fd, path);
  return fd;
}

int open64(const char *path, int flags, ...) {
  static int (*real_open64)(const char *, int, ...);
  REAL(open64);
  mode_t m = 0;
  if (mode_arg(flags)) {
    va_list ap;
    va_start(ap, flags);
    m = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  int fd = real_open64(path, flags, m);
  watch(fd, path);
  return fd;
}

int openat(int dir, const char *path, int flags, ...) {
  static int (*real_openat)(int, const char *, int, ...);
  REAL(openat);
  mode_t m = 0;
  if (mode_arg(flags)) {
    va_list ap;
    va_start(ap, flags);
    m = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  int fd = real_openat(dir, path, flags, m);
  watch(fd, path);
  return fd;
}

int openat64(int dir, const char *path, int flags, ...) {
  static int (*real_openat64)(int, const char *, int, ...);
  REAL(openat64);
  mode_t m = 0;
  if (mode_arg(flags)) {
    va_list ap;
    va_start(ap, flags);
    m = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  int fd = real_openat64(dir, path, flags, m);
  watch(fd, path);
  return fd;
}

int close(int fd) {
  static int (*real_close)(int);
  REAL(close);
  if (fd >= 0 && fd < MAX_FD) watch(fd, NULL);
  return real_close(fd);
}

ssize_t read(int fd, void *buf, size_t n) {
  static ssize_t (*real_read)(int, void *, size_t);
  REAL(read);
  if (before_read(fd)) return -1;
  return real_read(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off) {
  static ssize_t (*real_pread)(int, void *, size_t, off_t);
  REAL(pread);
  if (before_read(fd)) return -1;
  return real_pread(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off) {
  static ssize_t (*real_pread64)(int, void *, size_t, off64_t);
  REAL(pread64);
  if (before_read(fd)) return -1;
  return real_pread64(fd, buf, n, off);
}

ssize_t readv(int fd, const struct iovec *iov, int cnt) {
  static ssize_t (*real_readv)(int, const struct iovec *, int);
  REAL(readv);
  if (before_read(fd)) return -1;
  return real_readv(fd, iov, cnt);
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off) {
  static ssize_t (*real_preadv)(int, const struct iovec *, int, off_t);
  REAL(preadv);
  if (before_read(fd)) return -1;
  return real_preadv(fd, iov, cnt, off);
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off) {
  static ssize_t (*real_preadv64)(int, const struct iovec *, int, off64_t);
  REAL(preadv64);
  if (before_read(fd)) return -1;
  return real_preadv64(fd, iov, cnt, off);
}

/* a descriptor duplicated onto another one is that file (or no longer a watched one) */
int dup2(int oldfd, int newfd) {
  static int (*real_dup2)(int, int);
  REAL(dup2);
  int r = real_dup2(oldfd, newfd);
  if (r >= 0 && newfd >= 0 && newfd < MAX_FD)
    watch(newfd, oldfd >= 0 && oldfd < MAX_FD && watched[oldfd] ? paths[oldfd] : NULL);
  return r;
}

/* ---- writes -------------------------------------------------------------------------------- */
/* Called before each write to fd; returns -1 (errno EIO) when the write must fail. */
static int before_write(int fd) {
  if (mode != M_WEIO || fd < 0 || fd >= MAX_FD || !watched[fd]) return 0;
  long k = __atomic_add_fetch(&nwrites, 1, __ATOMIC_SEQ_CST);
  if (k < after) return 0;
  if (k == after) {
    static const char msg[] = "fault_shim: a write fails with EIO (and every later one)\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
  }
  errno = EIO;
  return -1;
}

ssize_t write(int fd, const void *buf, size_t n) {
  static ssize_t (*real_write)(int, const void *, size_t);
  REAL(write);
  if (before_write(fd)) return -1;
  return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
  REAL(pwrite);
  if (before_write(fd)) return -1;
  return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off) {
  static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
  REAL(pwrite64);
  if (before_write(fd)) return -1;
  return real_pwrite64(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  static ssize_t (*real_writev)(int, const struct iovec *, int);
  REAL(writev);
  if (before_write(fd)) return -1;
  return real_writev(fd, iov, cnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
  static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
  REAL(pwritev);
  if (before_write(fd)) return -1;
  return real_pwritev(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off) {
  static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off64_t);
  REAL(pwritev64);
  if (before_write(fd)) return -1;
  return real_pwritev64(fd, iov, cnt, off);
}

/* ---- memory: a limit set once MPI has started ------------------------------------------------ */
static long vm_size_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %ld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}

static void limit_memory(void) {
  if (mode != M_MEMORY) return;
  long kib = vm_size_kib();
  if (kib < 0) return;
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = (rlim_t)(kib + margin_mb * 1024) * 1024;
  if (setrlimit(RLIMIT_AS, &rl) != 0)
    perror("fault_shim: setrlimit");
  else
    fprintf(stderr,
            "fault_shim: pid %ld: address space limited to %ld MiB (%ld MiB in use + %ld)\n",
            (long)getpid(), kib / 1024 + margin_mb, kib / 1024, margin_mb);
}

int MPI_Init(int *argc, char ***argv) {
  static int (*real_MPI_Init)(int *, char ***);
  REAL(MPI_Init);
  int r = real_MPI_Init(argc, argv);
  limit_memory();
  return r;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  static int (*real_MPI_Init_thread)(int *, char ***, int, int *);
  REAL(MPI_Init_thread);
  int r = real_MPI_Init_thread(argc, argv, required, provided);
  limit_memory();
  return r;
}
