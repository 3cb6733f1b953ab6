/* SPDX-License-Identifier: MIT */
/* gcoo/files.h: what gcoo's file readers and writers share with the application: reading a file
 * ahead of its reader, and the writers' temporary files.
 *
 * Every writer (HDF5 and Matrix Market) builds its result under a temporary name in the target's
 * directory, "<target>.tmp.<job>.<random>" (<job>: $SLURM_JOB_ID, else the pid of rank 0; the same
 * name on every rank), and renames it onto the target only once the whole file is written, closed
 * and verified. A temporary file is never a result: its name says so, and an HDF5 object being
 * written carries the attribute "gcoo-incomplete" until its last byte is in, which the readers of
 * gcoo refuse. docs/reliability.md §5 has the details. */
#ifndef GCOO_FILES_H
#define GCOO_FILES_H

#include <stddef.h>

#include "gcoo/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Remove the temporary files this process is writing right now (unlink), so that a program
 *  killed by a signal leaves none behind. Async-signal-safe: meant to be called from a SIGINT /
 *  SIGTERM handler (gcoo_dist installs one on every rank); after it, the interrupted write fails
 *  or its file is gone, so the handler should end the process (_exit). Returns the number of
 *  files removed. Not collective. */
int gcoo_remove_temporaries(void);

/** Start reading part `part` of `parts` equal byte ranges of the file at path (the whole file:
 *  0 of 1) into the operating system's page cache, in the background, and return at once, so
 *  that the disk works while the caller does other start-up (MPI_Init, a GPU's context) and its
 *  read later finds the bytes in memory. Processes on one host share that cache: local rank l of
 *  L asking for part l of L reads the file once between them. "file.h5:/object" names file.h5.
 *  A hint: a detached thread reads the part in
 *  order, 1 MiB at a time into a scratch buffer it frees (the bytes stay in the page cache;
 *  the kernel's sequential readahead keeps a few windows in flight, so other readers' page
 *  faults do not queue behind the whole part). GCOO_ERR_NULL, GCOO_ERR_INVALID_ARG (part outside
 *  [0, parts)), GCOO_ERR_IO (the file cannot be opened; the read will report it again). No MPI
 *  needed: it may be called before MPI_Init. Not collective. For a rank's share of a sparse
 *  HDF5 group, gcoo_h5_prefetch (gcoo/h5.h) asks for the bytes that rank will read. */
gcoo_status gcoo_file_prefetch(const char *path, int part, int parts);

/** Whether a write to path ("file.h5[:/object]", "file.mtx[.gz]") can go ahead, checked before
 *  any work so that a long job is not run only to be refused at its end. The checks the
 *  writers themselves make, without writing: a name whose format is known (GCOO_ERR_INVALID_ARG
 *  otherwise); a target directory that exists and takes new files (GCOO_ERR_IO naming a missing
 *  directory, a read-only file system, no permission) and a target that is not a directory; an
 *  existing Matrix Market file, HDF5 object, or non-HDF5 file in an HDF5 output's place only
 *  with overwrite (GCOO_ERR_EXISTS); an HDF5 object path without "." or ".." components, not
 *  through a dataset or an external link; a temporary name that fits beside the target. A
 *  symbolic link is checked where it leads, as the writers write there. Not collective. */
gcoo_status gcoo_output_check(const char *path, int overwrite);

/** Whether writing out would change what the input `in` reads, however the two are named: the
 *  same file under another name (a relative path, a symbolic or hard link), and for HDF5 the
 *  same objects by identity (the file they are stored in and their address there, every link
 *  followed: soft links, external links, other hard links, linked parent groups). *overlap = 1
 *  when the output replaces an object the input reads (or a group holding one), would be
 *  created inside the input's object, or replaces the whole file that holds it (an HDF5 output
 *  naming the root group, or a file that is not HDF5); then why (len bytes, may be NULL) says
 *  "<out> would overwrite the input <in> (...)". An input that cannot be opened overlaps
 *  nothing (its own read reports it), nor does an output path the writers refuse
 *  (gcoo_output_check says why). Not collective. */
gcoo_status gcoo_output_overlaps(const char *out, const char *in, int *overlap, char *why,
                                 size_t len);

#ifdef __cplusplus
}
#endif
#endif
