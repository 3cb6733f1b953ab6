/* SPDX-License-Identifier: MIT */
/* io/prefetch.h: the one way gcoo asks the operating system to read a file ahead of its reader
 * (io/prefetch.c): byte ranges handed to a detached thread. gcoo_file_prefetch (gcoo/files.h,
 * whole files or equal parts of them, before MPI_Init in gcoo_dist) and gcoo_h5_prefetch (a
 * rank's share of a sparse group's datasets) both end here. */
#ifndef GCOO_IO_PREFETCH_H
#define GCOO_IO_PREFETCH_H

#include <stdint.h>

enum { GCOO__PREFETCH_MAX_RANGES = 8 };

/** Ask the operating system to read bytes [offset[i], offset[i] + n[i]) of fd, i < count (at
 *  most GCOO__PREFETCH_MAX_RANGES), into its page cache, on a detached thread (synchronously if
 *  no thread can be started), and return. The call owns fd: it is closed once the reads are
 *  queued (also when count is out of range). A hint: nothing is reported. */
void gcoo__prefetch_ranges(int fd, const int64_t *offset, const int64_t *n, int count);

#endif
