/* SPDX-License-Identifier: MIT */
/* io/publish.h: how every writer of gcoo turns a temporary file into its result (io/publish.c):
 * unique temporary names, the registry that lets a signal handler remove them, space reserved
 * before the data is written, and the publication (sync, check that nobody else changed the
 * target meanwhile, rename, sync the directory). Not collective: the HDF5 engine calls these on
 * rank 0 and agrees on the outcome (io/h5_write.c). */
#ifndef GCOO_IO_PUBLISH_H
#define GCOO_IO_PUBLISH_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "gcoo/backend.h"
#include "gcoo/files.h"

enum { GCOO__TMP_NAME = 4096 };

/** "<file>.tmp.<job>.<random>" into out (GCOO__TMP_NAME bytes): <job> is $SLURM_JOB_ID
 *  (".<step>" with $SLURM_STEP_ID), else $PBS_JOBID, else "p<pid>"; <random> 8 hex digits from
 *  /dev/urandom. Two jobs, or two writes of one job, never share a name. <file>'s own name is
 *  cut short where the whole name would pass the directory's name limit (NAME_MAX) or the path
 *  len bytes. */
gcoo_status gcoo__tmp_name(const char *file, char *out, size_t len);

/** Where a write to file lands: file itself, or, when it is a symbolic link, the file its chain
 *  of links leads to (which need not exist yet), so that the result replaces the linked file and
 *  the link stays. Not collective. */
gcoo_status gcoo__target_path(const char *file, char *out, size_t len);

/** 1 when the file name has the form gcoo__tmp_name makes ("<x>.tmp.<job>.<8 hex digits>"):
 *  the readers refuse such a file (it is never a result). */
int gcoo__is_tmp_name(const char *path);

/** Record path as a temporary file of this process (gcoo_remove_temporaries() unlinks it);
 *  returns a slot for gcoo__tmp_unregister, or -1 when the registry is full (the write still
 *  works; only the signal clean-up misses it). */
int gcoo__tmp_register(const char *path);
void gcoo__tmp_unregister(int slot);

/** A write to file can be made: its directory exists and takes new files (not read-only, not
 *  denied), and file, when it exists, is not a directory. GCOO_ERR_IO naming the cause
 *  otherwise. Not collective. */
gcoo_status gcoo__target_dir_check(const char *file);

/** The target of a write as it was when the write started. */
typedef struct gcoo__target {
  int fd; /* open on the target (its lock), -1 when it did not exist */
  int existed;
  dev_t dev;
  ino_t ino;
  int64_t size;
  struct timespec mtime, ctime;
} gcoo__target;
#define GCOO__TARGET_INIT     \
  {                           \
    -1, 0, 0, 0, 0, {0, 0}, { \
      0, 0                    \
    }                         \
  }

/** Remember what file is now (or that it does not exist). */
gcoo_status gcoo__target_snapshot(const char *file, gcoo__target *t);
void gcoo__target_release(gcoo__target *t);

/** Reserve `bytes` of disk for tmp (fallocate, size kept), so that a full disk or quota fails
 *  here, before any data is written, instead of inside a collective write. File systems without
 *  fallocate: nothing reserved, success. `what` names the result for the message. */
gcoo_status gcoo__reserve(const char *tmp, int64_t bytes, const char *what);

/** Copy file to tmp (a new file, file's permissions): the start of an update that keeps the
 *  file's other objects. The first 8 bytes (the HDF5 signature) are written last, so a copy
 *  cut short is not an HDF5 file at all. */
gcoo_status gcoo__copy_file(const char *file, const char *tmp);

/** Make tmp durable (fsync) and put it in place of file, unless file changed since t was taken
 *  (GCOO_ERR_EXISTS: the other writer's file stays; first to publish wins). Replacing takes an
 *  flock on the old file so two gcoo writers cannot both pass the check; creating uses link(),
 *  which fails when the name appeared meanwhile. tmp is removed on any failure. */
gcoo_status gcoo__publish(const char *tmp, const char *file, const gcoo__target *t);

#endif
