! SPDX-License-Identifier: MIT
! fortran/gcoo_constants.f90: the enumerations of the C API (gcoo/types.h, gcoo/sparse.h,
! gcoo/spdm.h, gcoo/dist.h, gcoo/ksp.h, gcoo/pc.h) as interoperable Fortran enumerators, with
! the C names and values. tests/fortran checks each against the library's own name of it.
module gcoo_fortran_constants
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  public

  ! gcoo_status: 0 success, > 0 information, -1 .. -49 misuse or bad data, -100 .. execution
  enum, bind(c)
    enumerator :: GCOO_SUCCESS = 0
    enumerator :: GCOO_INFO_NOT_CONVERGED = 1, GCOO_INFO_SKIPPED = 2
    enumerator :: GCOO_ERR_NULL = -1, GCOO_ERR_INVALID_OBJECT = -2, GCOO_ERR_INVALID_ARG = -3
    enumerator :: GCOO_ERR_SHAPE = -4, GCOO_ERR_DTYPE = -5, GCOO_ERR_UNSUPPORTED = -6
    enumerator :: GCOO_ERR_TOO_LARGE = -7, GCOO_ERR_INDEX_RANGE = -8, GCOO_ERR_UNSORTED = -9
    enumerator :: GCOO_ERR_DUPLICATE = -10, GCOO_ERR_NOT_FINITE = -11, GCOO_ERR_FORMAT = -12
    enumerator :: GCOO_ERR_EXISTS = -13
    enumerator :: GCOO_ERR_NO_MEMORY = -100, GCOO_ERR_IO = -101, GCOO_ERR_CUDA = -102
    enumerator :: GCOO_ERR_CUSPARSE = -103, GCOO_ERR_CUBLAS = -104, GCOO_ERR_NO_DEVICE = -105
    enumerator :: GCOO_ERR_MPI = -106, GCOO_ERR_NCCL = -107, GCOO_ERR_HDF5 = -108
    enumerator :: GCOO_ERR_REMOTE = -109, GCOO_ERR_BREAKDOWN = -110, GCOO_ERR_INTERNAL = -199
  end enum

  ! gcoo_dtype, gcoo_format, gcoo_layout, gcoo_memspace
  enum, bind(c)
    enumerator :: GCOO_FLOAT32 = 0, GCOO_FLOAT64 = 1
  end enum
  enum, bind(c)
    enumerator :: GCOO_FORMAT_COO = 0, GCOO_FORMAT_CSR = 1, GCOO_FORMAT_CSC = 2
    enumerator :: GCOO_FORMAT_GCOO = 3
  end enum
  enum, bind(c)
    enumerator :: GCOO_ROW_MAJOR = 0, GCOO_COL_MAJOR = 1
  end enum
  enum, bind(c)
    enumerator :: GCOO_MEM_HOST = 0, GCOO_MEM_DEVICE = 1
  end enum

  ! gcoo_sparse_flags (combine with ior)
  enum, bind(c)
    enumerator :: GCOO_DUPLICATES_SUM = 0, GCOO_DUPLICATES_ERROR = 1
    enumerator :: GCOO_REQUIRE_FINITE = 2, GCOO_KEEP_ZEROS = 4
  end enum
  integer(c_int), parameter :: GCOO_DEFAULT_P = 32

  ! gcoo_reading, gcoo_spdm_alg, gcoo_math
  enum, bind(c)
    enumerator :: GCOO_SPARSE_DENSE = 0, GCOO_DENSE_SPARSE = 1
  end enum
  enum, bind(c)
    enumerator :: GCOO_ALG_AUTO = 0, GCOO_ALG_GCOO = 1, GCOO_ALG_GCOO_FAITHFUL = 2
    enumerator :: GCOO_ALG_CUSPARSE = 3, GCOO_ALG_CUSPARSE_DEFAULT = 4
    enumerator :: GCOO_ALG_CUSPARSE_CSR_ALG2 = 5, GCOO_ALG_CUSPARSE_CSR_ALG3 = 6
    enumerator :: GCOO_ALG_DENSE = 7, GCOO_ALG_DENSE_TF32 = 8, GCOO_ALG_REFERENCE = 9
    enumerator :: GCOO_ALG_CSR = 10
  end enum
  enum, bind(c)
    enumerator :: GCOO_MATH_EXACT = 0, GCOO_MATH_TF32 = 1
  end enum

  ! gcoo_dist_xmode
  enum, bind(c)
    enumerator :: GCOO_DIST_X_REPLICATED = 0, GCOO_DIST_X_PARTITIONED = 1
  end enum

  ! gcoo_ksp_type, gcoo_ksp_reason, gcoo_pc_type
  enum, bind(c)
    enumerator :: GCOO_KSP_CG = 0, GCOO_KSP_PIPECG = 1, GCOO_KSP_GMRES = 2
    enumerator :: GCOO_KSP_FGMRES = 3, GCOO_KSP_BICGSTAB = 4, GCOO_KSP_PREONLY = 5
  end enum
  enum, bind(c)
    enumerator :: GCOO_KSP_ITERATING = 0, GCOO_KSP_CONVERGED_RTOL = 1
    enumerator :: GCOO_KSP_CONVERGED_ATOL = 2, GCOO_KSP_CONVERGED_PREONLY = 3
    enumerator :: GCOO_KSP_DIVERGED_ITS = -1, GCOO_KSP_DIVERGED_DTOL = -2
    enumerator :: GCOO_KSP_DIVERGED_BREAKDOWN = -3, GCOO_KSP_DIVERGED_INDEFINITE = -4
    enumerator :: GCOO_KSP_DIVERGED_NANORINF = -5, GCOO_KSP_DIVERGED_STAGNATION = -6
  end enum
  enum, bind(c)
    enumerator :: GCOO_PC_NONE = 0, GCOO_PC_JACOBI = 1, GCOO_PC_AMG = 2, GCOO_PC_LU = 3
  end enum
end module gcoo_fortran_constants
