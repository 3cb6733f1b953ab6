! SPDX-License-Identifier: MIT
! tests/fortran/t700_real64.F90: t700-fortran's checks on real(real64) arrays: t700_kind.inc.
module t700_real64
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
  integer, parameter :: wp = real64
  integer, parameter :: dtype = GCOO_FLOAT64
  character(len=*), parameter :: label = 'double'

#include "t700_kind.inc"
end module t700_real64
