/* SPDX-License-Identifier: MIT */
/* src/backend_list.h: the backends, listed once, their tables' declarations, and how the library
 * finds a backend's table by name and a context's solver operations. */
#ifndef GCOO_SRC_BACKEND_LIST_H
#define GCOO_SRC_BACKEND_LIST_H

#include "gcoo/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backends, written once: X(id, table, compiled, label, how to get it). A backend whose
 * `compiled` is 0 gets its table from src/backend_stubs.c, generated from this list: creating a
 * context on it fails with "the <label> backend is not compiled into this gcoo (<how>)". */
#define GCOO_BACKEND_LIST(X)                          \
  X(cpu, gcoo__backend_cpu, 1, "CPU", "")             \
  X(cuda, gcoo__backend_cuda, GCOO_HAVE_CUDA, "CUDA", \
    "rebuild with a CUDA compiler and -DGCOO_ENABLE_CUDA=ON")
#define GCOO_BACKEND_DECLARE_(id, table, compiled, label, how) extern const gcoo_backend_ops table;
GCOO_BACKEND_LIST(GCOO_BACKEND_DECLARE_)
#undef GCOO_BACKEND_DECLARE_

/** The backend whose id is name ("cpu", "cuda"): its table, compiled in or the stub of
 *  src/backend_stubs.c; NULL for a name not in the list (src/ctx.c). */
const gcoo_backend_ops *gcoo__backend_named(const char *name);
/** ctx's device-resident solver iterations (gcoo_backend_ops.solver), or GCOO_ERR_UNSUPPORTED
 *  naming the backend that has none (src/ctx.c). */
gcoo_status gcoo__ctx_solver(gcoo_ctx ctx, const gcoo_solver_ops **sv);

#ifdef __cplusplus
}
#endif
#endif
