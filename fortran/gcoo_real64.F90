! SPDX-License-Identifier: MIT
! fortran/gcoo_real64.F90: the procedures of module gcoo on real(c_double) arrays (double,
! GCOO_FLOAT64): fortran/gcoo_kind.inc with wp = c_double.
module gcoo_fortran_real64
  use, intrinsic :: iso_c_binding
  use gcoo_fortran_constants
  use gcoo_fortran_types
  use gcoo_fortran_capi
  use gcoo_fortran_errors
  use gcoo_fortran_arrays, only: csr_create, dense_describe, vector_describe
#ifdef GCOO_FORTRAN_MPI
  use gcoo_fortran_mpi, only: ksp_solve_described
#endif
  implicit none
  private
  integer, parameter :: wp = c_double
  integer(c_int), parameter :: dtype = GCOO_FLOAT64

#include "gcoo_kind.inc"
end module gcoo_fortran_real64
