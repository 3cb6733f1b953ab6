! SPDX-License-Identifier: MIT
! tests/fortran/t700_real.F90: t700-fortran's checks on real arrays, t700_kind.inc made once for
! real32 (float) and once for real64 (double).
module t700_real32
#define T700_KIND real32
#define T700_DTYPE GCOO_FLOAT32
#define T700_LABEL 'float'
#include "t700_kind.inc"
#undef T700_KIND
#undef T700_DTYPE
#undef T700_LABEL
end module t700_real32

module t700_real64
#define T700_KIND real64
#define T700_DTYPE GCOO_FLOAT64
#define T700_LABEL 'double'
#include "t700_kind.inc"
#undef T700_KIND
#undef T700_DTYPE
#undef T700_LABEL
end module t700_real64
