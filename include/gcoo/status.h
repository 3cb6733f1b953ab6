/* SPDX-License-Identifier: MIT */
/* gcoo/status.h: reading what went wrong, and the library's version. */
#ifndef GCOO_STATUS_H
#define GCOO_STATUS_H

#include "gcoo/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Short fixed description of a status ("index out of range").  Not collective; thread-safe. */
const char *gcoo_strerror(gcoo_status s);

/** Name of a status as written in this header ("GCOO_ERR_INDEX_RANGE"). */
const char *gcoo_status_name(gcoo_status s);

/** Message of the last error raised on the calling thread: what went wrong, the file and line
 *  where it was detected and the call chain that carried it back, for example
 *  "io/mtx.c:212 gcoo_mtx_read: line 14: row index 9001 outside 1..8000 <- cli/cmd_spdm.c:80".
 *  The string stays valid until the thread's next failing gcoo call. Empty if none failed.
 *  Not collective; thread-safe (the message is thread-local). */
const char *gcoo_last_error(void);

/** Forget the calling thread's last error. */
void gcoo_clear_error(void);

/** Version string of the library, with the dependencies it was built with
 *  ("gcoo 0.1.0 (CUDA 13.0, NCCL 2.28.9, MPI, HDF5 1.10.8 parallel, OpenMP)"). */
const char *gcoo_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
