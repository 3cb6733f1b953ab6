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

#ifdef __cplusplus
}
#endif
#endif
