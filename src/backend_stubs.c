/* SPDX-License-Identifier: MIT */
/* src/backend_stubs.c: the tables of the backends not compiled into this build, generated from
 * GCOO_BACKEND_LIST (src/backend_list.h), so that asking for one gives a clear error instead of
 * a link failure (libCEED's weak-backend pattern). A stub's only entry is ctx_init: no context
 * is ever made on it, so nothing else of it (operators, SpGEMM, solver iterations) is reached;
 * its device count is 0 and its start-up nothing (the NULL entries). */
#include "backend_impl.h"

/* STUB_0 writes the table of a backend that is not compiled in; STUB_1 nothing. */
#define STUB_1(id, table, label, how)
#define STUB_0(id, table, label, how)                                                        \
  static gcoo_status id##_not_compiled(gcoo_ctx ctx, int device) {                           \
    (void)ctx;                                                                               \
    (void)device;                                                                            \
    return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,                                                  \
                      "the " label " backend is not compiled into this gcoo (" how "), use " \
                      "the cpu backend");                                                    \
  }                                                                                          \
  const gcoo_backend_ops table = {.name = #id, .ctx_init = id##_not_compiled};
#define STUB_(compiled, ...) STUB_##compiled(__VA_ARGS__)
#define STUB(compiled, ...) STUB_(compiled, __VA_ARGS__) /* expands `compiled` to 0 or 1 first */
#define STUB_OF(id, table, compiled, label, how) STUB(compiled, id, table, label, how)
GCOO_BACKEND_LIST(STUB_OF)
