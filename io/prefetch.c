/* SPDX-License-Identifier: MIT */
/* io/prefetch.c: reading a file ahead of its reader, so that the disk works while the process
 * does other start-up (MPI_Init, the GPU's context) and the read later finds the bytes in memory.
 *
 * posix_fadvise(WILLNEED) queues reads into the page cache and returns; it blocks while it
 * queues them, so the calls run on a detached thread. Linux starts at most one readahead window
 * (the device's read_ahead_kb, at least 128 KiB) per call, whatever the length asked for: one
 * call over a 900 MB range read its first 8 MiB on the H200 VM. So a range is asked for in
 * pieces no larger than the smallest window, from a thread whose reads yield to the others'. */
#define _GNU_SOURCE /* posix_fadvise, O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend_impl.h"
#include "gcoo/files.h"
#include "gcoo/mtx.h"
#include "prefetch.h"

enum { PIECE = 128 << 10 };

typedef struct prefetch_job {
  int fd, count;
  int64_t offset[GCOO__PREFETCH_MAX_RANGES], n[GCOO__PREFETCH_MAX_RANGES];
} prefetch_job;

static void *prefetch_main(void *arg) {
  prefetch_job *j = arg;
  for (int i = 0; i < j->count; i++)
    for (int64_t o = 0; o < j->n[i]; o += PIECE) {
      const int64_t len = j->n[i] - o < PIECE ? j->n[i] - o : PIECE;
      (void)posix_fadvise(j->fd, (off_t)(j->offset[i] + o), (off_t)len, POSIX_FADV_WILLNEED);
    }
  close(j->fd);
  free(j);
  return NULL;
}

/* The reads it queues yield to everybody else's: this thread's I/O class becomes "idle", which
 * the kernel's mq-deadline and BFQ schedulers serve only when no other request waits (other
 * schedulers ignore it). The process's start-up that runs meanwhile (MPI_Init's plugins, the
 * CUDA driver) reads its files a page fault at a time; behind the whole input's queued reads
 * each fault waited: on the CPU machine (mq-deadline), a cold 221 MB spdm job's MPI_Init + read
 * took 0.57-0.70 s (median 0.63) with the prefetch idle, 0.65-0.86 s (0.76) without, and its wall
 * time 1.34-1.64 s against 1.68-1.83 s (five runs each, alternated). On its own thread only. */
static void yield_io(void) {
#ifdef SYS_ioprio_set
  enum { WHO_THREAD = 1 /* IOPRIO_WHO_PROCESS, who 0: the calling thread */, CLASS_IDLE = 3 };
  (void)syscall(SYS_ioprio_set, WHO_THREAD, 0, CLASS_IDLE << 13 /* IOPRIO_CLASS_SHIFT */);
#endif
}

static void *prefetch_thread(void *arg) {
  yield_io();
  return prefetch_main(arg);
}

void gcoo__prefetch_ranges(int fd, const int64_t *offset, const int64_t *n, int count) {
  prefetch_job *j = count >= 0 && count <= GCOO__PREFETCH_MAX_RANGES ? calloc(1, sizeof *j) : NULL;
  if (!j) {
    close(fd);
    return;
  }
  j->fd = fd;
  j->count = count;
  if (count > 0) {
    memcpy(j->offset, offset, sizeof *offset * (size_t)count);
    memcpy(j->n, n, sizeof *n * (size_t)count);
  }
  pthread_t t;
  pthread_attr_t a;
  if (pthread_attr_init(&a) != 0) {
    prefetch_main(j);
    return;
  }
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &a, prefetch_thread, j) != 0) prefetch_main(j); /* then synchronously */
  pthread_attr_destroy(&a);
}

gcoo_status gcoo_file_prefetch(const char *path, int part, int parts) {
  GCOO_CHECK(path != NULL, GCOO_ERR_NULL, "path is NULL");
  GCOO_CHECK(parts >= 1 && part >= 0 && part < parts, GCOO_ERR_INVALID_ARG, "part %d of %d parts",
             part, parts);
  /* "file.h5:/group" names file.h5: the first prefix before a ':' that names an HDF5 file, the
   * split gcoo_file_kind_of makes */
  char file[4096];
  GCOO_CHECK(strlen(path) < sizeof file, GCOO_ERR_INVALID_ARG, "%.64s...: path too long", path);
  snprintf(file, sizeof file, "%s", path);
  if (gcoo_file_kind_of(path) == GCOO_FILE_H5)
    for (char *c = strchr(file, ':'); c; c = strchr(c + 1, ':')) {
      *c = '\0';
      if (gcoo_file_kind_of(file) == GCOO_FILE_H5) break;
      *c = ':';
    }
  const int fd = open(file, O_RDONLY | O_CLOEXEC), err = errno;
  GCOO_CHECK(fd >= 0, GCOO_ERR_IO, "%s: cannot open it to read ahead: %s", file, strerror(err));
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0) {
    close(fd); /* nothing to read ahead: the reader says what is wrong with it */
    return GCOO_SUCCESS;
  }
  const int64_t size = (int64_t)sb.st_size, lo = size / parts * part,
                hi = part + 1 == parts ? size : size / parts * (part + 1);
  const int64_t n = hi - lo;
  gcoo__prefetch_ranges(fd, &lo, &n, 1); /* closes fd */
  return GCOO_SUCCESS;
}
