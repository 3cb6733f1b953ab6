! SPDX-License-Identifier: MIT
! fortran/gcoo_real32.F90: the procedures of module gcoo on real(c_float) arrays (float,
! GCOO_FLOAT32): fortran/gcoo_kind.inc with wp = c_float.
module gcoo_fortran_real32
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
  integer, parameter :: wp = c_float
  integer(c_int), parameter :: dtype = GCOO_FLOAT32

#include "gcoo_kind.inc"
end module gcoo_fortran_real32
