/* SPDX-License-Identifier: MIT */
/* src/backend_impl.h: the private half of gcoo/backend.h, shared by every layer of the library
 * (src/, kernels/, io/, dist/, solver/) and by the tests, never installed. It gathers the
 * library's internal headers, one concern each:
 *   internal.h        messages, the debug-only assertion, limits, threads, log prefix, checks
 *   objects.h         context and operator layouts, magic numbers and handle checks, adopted arrays
 *   frames.h          the operator's two frames and the conversions between them
 *   options.h         size-versioned options structs and enumeration names
 *   dense_internal.h  overlapping operands, transposed views, the dense block sums
 *   rng.h             reproducible random numbers (host and device)
 *   prefix_search.h   the segment of a prefix sum (host and device)
 *   smallmat.h        small dense algebra on the host
 *   backend_list.h    the backends, listed once, and their tables
 * Library files include this header or the ones they need; backend.h alone is the interface a
 * backend author sees. */
#ifndef GCOO_BACKEND_IMPL_H
#define GCOO_BACKEND_IMPL_H

#include "backend_list.h"
#include "dense_internal.h"
#include "frames.h"
#include "internal.h"
#include "objects.h"
#include "options.h"
#include "prefix_search.h"
#include "rng.h"
#include "smallmat.h"

#endif
