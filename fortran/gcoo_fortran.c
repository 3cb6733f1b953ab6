/* SPDX-License-Identifier: MIT */
/* fortran/gcoo_fortran.c: the C side of the Fortran module gcoo, for what ISO_C_BINDING cannot
 * reach alone: a communicator handed over as its Fortran handle (MPI_Comm_f2c: an mpi_f08
 * type(MPI_Comm)'s MPI_VAL or an integer handle of the mpi module), and the defaults of the
 * option structs, which C gives as initialiser macros. */
#include <string.h>

#include "gcoo/gcoo.h"

/* Defaults for a Fortran mirror of size bytes: the C initialiser's fields as far as the mirror
 * has them, zeros past C's (a size C then refuses), and size in the size field, which is where
 * the C library reads how far the caller's struct goes. */
static void options_copy(void *opts, size_t size, const void *init, size_t init_size) {
  memset(opts, 0, size);
  memcpy(opts, init, size < init_size ? size : init_size);
  memcpy(opts, &size, sizeof size);
}

void gcoo_fortran_op_options_init(gcoo_op_options *opts, size_t size) {
  const gcoo_op_options init = GCOO_OP_OPTIONS_INIT;
  options_copy(opts, size, &init, sizeof init);
}

#if GCOO_HAVE_MPI
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "the Fortran module passes MPI_Fint as c_int");

gcoo_status gcoo_fortran_dist_create(gcoo_dist *d, MPI_Fint comm, const char *backend) {
  int initialised = 0;
  MPI_Initialized(&initialised); /* gcoo_dist_create says so when it is not */
  return gcoo_dist_create(d, initialised ? MPI_Comm_f2c(comm) : MPI_COMM_NULL, backend);
}

MPI_Fint gcoo_fortran_dist_comm(gcoo_dist d) { return MPI_Comm_c2f(gcoo_dist_comm(d)); }

void gcoo_fortran_dist_op_options_init(gcoo_dist_op_options *opts, size_t size) {
  const gcoo_dist_op_options init = GCOO_DIST_OP_OPTIONS_INIT;
  options_copy(opts, size, &init, sizeof init);
}

void gcoo_fortran_ksp_options_init(gcoo_ksp_options *opts, size_t size) {
  const gcoo_ksp_options init = GCOO_KSP_OPTIONS_INIT;
  options_copy(opts, size, &init, sizeof init);
}

/* gcoo_ksp_get_options into a mirror of size bytes (the C call writes its whole struct). */
gcoo_status gcoo_fortran_ksp_get_options(gcoo_ksp ksp, gcoo_ksp_options *opts, size_t size) {
  gcoo_ksp_options o;
  const gcoo_status st = gcoo_ksp_get_options(ksp, &o);
  if (st == GCOO_SUCCESS) options_copy(opts, size, &o, sizeof o);
  return st;
}
#endif
