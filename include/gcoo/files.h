/* SPDX-License-Identifier: MIT */
/* gcoo/files.h: what every file writer of gcoo shares with the application: its temporary files.
 *
 * Every writer (HDF5 and Matrix Market) builds its result under a temporary name in the target's
 * directory, "<target>.tmp.<job>.<random>" (<job>: $SLURM_JOB_ID, else the pid of rank 0; the same
 * name on every rank), and renames it onto the target only once the whole file is written, closed
 * and verified. A temporary file is never a result: its name says so, and an HDF5 object being
 * written carries the attribute "gcoo-incomplete" until its last byte is in, which the readers of
 * gcoo refuse. docs/reliability.md §5 has the details. */
#ifndef GCOO_FILES_H
#define GCOO_FILES_H

#ifdef __cplusplus
extern "C" {
#endif

/** Remove the temporary files this process is writing right now (unlink), so that a program
 *  killed by a signal leaves none behind. Async-signal-safe: meant to be called from a SIGINT /
 *  SIGTERM handler (gcoo_dist installs one on every rank); after it, the interrupted write fails
 *  or its file is gone, so the handler should end the process (_exit). Returns the number of
 *  files removed. Not collective. */
int gcoo_remove_temporaries(void);

#ifdef __cplusplus
}
#endif
#endif
