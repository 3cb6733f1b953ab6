! SPDX-License-Identifier: MIT
! fortran/gcoo_real.F90: the procedures of module gcoo on real arrays, fortran/gcoo_kind.inc made
! once for real(c_float) (GCOO_FLOAT32) and once for real(c_double) (GCOO_FLOAT64).
module gcoo_fortran_real32
#define GCOO_KIND c_float
#define GCOO_DTYPE GCOO_FLOAT32
#include "gcoo_kind.inc"
#undef GCOO_KIND
#undef GCOO_DTYPE
end module gcoo_fortran_real32

module gcoo_fortran_real64
#define GCOO_KIND c_double
#define GCOO_DTYPE GCOO_FLOAT64
#include "gcoo_kind.inc"
#undef GCOO_KIND
#undef GCOO_DTYPE
end module gcoo_fortran_real64
