/* SPDX-License-Identifier: MIT */
/* src/mpi_check.h: the one checked MPI call of the library, for the layers that talk MPI (io/
 * and dist/): GCOO_MPI(x) turns an MPI return code into a gcoo status whose message names the
 * call, MPI's own error text and code, and the file and line (through gcoo__error):
 *     GCOO_CALL(GCOO_MPI(MPI_Bcast(...)));     GCOO_GOTO(GCOO_MPI(MPI_Allreduce(...)));
 * Include only where MPI is compiled in (GCOO_HAVE_MPI). */
#ifndef GCOO_MPI_CHECK_H
#define GCOO_MPI_CHECK_H

#include <mpi.h>

#include "backend_impl.h"

static inline gcoo_status gcoo__mpi_check(int code, const char *file, int line, const char *func,
                                          const char *expr) {
  if (code == MPI_SUCCESS) return GCOO_SUCCESS;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) len = 0;
  msg[len] = '\0';
  return gcoo__error(GCOO_ERR_MPI, file, line, func, "%s failed: %s (MPI error %d)", expr,
                     len ? msg : "unknown error", code);
}
#define GCOO_MPI(x) gcoo__mpi_check((x), __FILE__, __LINE__, __func__, #x)

#endif
