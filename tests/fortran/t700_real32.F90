! SPDX-License-Identifier: MIT
! tests/fortran/t700_real32.F90: t700-fortran's checks on real(real32) arrays: t700_kind.inc.
module t700_real32
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_is_nan
#ifdef GCOO_FORTRAN_MPI
  use mpi_f08
#endif
  use gcoo
  use t700_util
  implicit none
  private
  integer, parameter :: wp = real32
  integer, parameter :: dtype = GCOO_FLOAT32
  character(len=*), parameter :: label = 'float'

#include "t700_kind.inc"
end module t700_real32
