! SPDX-License-Identifier: MIT
! fortran/gcoo_types.f90: the handles and records of the Fortran module gcoo. A handle wraps the
! C library's opaque pointer (component ptr, c_null_ptr until made and after it is destroyed).
! The option and information records are interoperable mirrors of the C structs of the same
! names (tests/fortran checks their sizes and offsets against the C compiler's); the solver's
! result is a Fortran record of allocatable arrays, copied from the C one.
module gcoo_fortran_types
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use gcoo_fortran_constants
  implicit none
  public

  ! ---- handles (gcoo/ctx.h, sparse.h, spdm.h, dist.h, ksp.h, pc.h) ------------------------
  !> what every handle holds; each kind of handle is a type of its own
  type :: gcoo_handle
    type(c_ptr) :: ptr = c_null_ptr
  end type gcoo_handle
  type, extends(gcoo_handle) :: gcoo_ctx
  end type gcoo_ctx
  type, extends(gcoo_handle) :: gcoo_sparse
  end type gcoo_sparse
  type, extends(gcoo_handle) :: gcoo_op
  end type gcoo_op
  type, extends(gcoo_handle) :: gcoo_dist
  end type gcoo_dist
  type, extends(gcoo_handle) :: gcoo_dist_op
  end type gcoo_dist_op
  type, extends(gcoo_handle) :: gcoo_ksp
  end type gcoo_ksp
  !> owned by its solver (gcoo_ksp_get_pc): never destroyed on its own
  type, extends(gcoo_handle) :: gcoo_pc
  end type gcoo_pc

  ! ---- records mirrored from C -----------------------------------------------------------
  !> gcoo_sparse_info (gcoo/sparse.h)
  type, bind(c) :: gcoo_sparse_info
    integer(c_int) :: format, dtype
    integer(c_int64_t) :: nrows, ncols, nnz
    integer(c_int32_t) :: p
    integer(c_int64_t) :: ngroups
  end type gcoo_sparse_info

  !> gcoo_op_options (gcoo/spdm.h): start from gcoo_op_options_init()
  type, bind(c) :: gcoo_op_options
    integer(c_size_t) :: size
    integer(c_int) :: reading, alg
    integer(c_int32_t) :: p
    integer(c_int64_t) :: ncols_hint
    integer(c_int) :: math
  end type gcoo_op_options

  !> gcoo_op_info (gcoo/spdm.h)
  type, bind(c) :: gcoo_op_info
    integer(c_int) :: reading, dtype, alg
    integer(c_int32_t) :: p
    integer(c_int64_t) :: nrows, ncols, nnz
    real(c_double) :: setup_seconds
    integer(c_size_t) :: device_bytes
  end type gcoo_op_info

  !> gcoo_dist_op_options (gcoo/dist.h): start from gcoo_dist_op_options_init()
  type, bind(c) :: gcoo_dist_op_options
    integer(c_size_t) :: size
    type(gcoo_op_options) :: local
    integer(c_int) :: xmode
    real(c_double) :: shift
  end type gcoo_dist_op_options

  !> gcoo_dist_op_info (gcoo/dist.h): row0 counts the rows of the ranks before this one
  type, bind(c) :: gcoo_dist_op_info
    integer(c_int64_t) :: m_global, k, nnz_global, nnz_local, row0, nrows_local
    real(c_double) :: imbalance
    integer(c_int) :: xmode
    integer(c_int64_t) :: halo_rows_recv, halo_rows_send
    integer(c_int) :: halo_peers
    real(c_double) :: read_seconds, setup_seconds
    type(gcoo_op_info) :: local
  end type gcoo_dist_op_info

  !> gcoo_ksp_options (gcoo/ksp.h): start from gcoo_ksp_options_init() or gcoo_ksp_get_options;
  !> monitor is a bind(c) subroutine's c_funloc (gcoo_ksp_monitor's arguments), or c_null_funptr
  type, bind(c) :: gcoo_ksp_options
    integer(c_size_t) :: size
    integer(c_int) :: type
    real(c_double) :: rtol, atol, dtol
    integer(c_int64_t) :: maxit
    integer(c_int) :: restart, cgs_refinement, block, initial_guess_nonzero, record_history
    type(c_funptr) :: monitor
    type(c_ptr) :: monitor_ctx
  end type gcoo_ksp_options

  !> What a solve did (gcoo_ksp_result, in Fortran terms): columns numbered from 1,
  !> reason_column 0 when every column converged, history(it, j) the relative residual of
  !> column j after iteration it (0: the initial one) when options%record_history was set.
  type :: gcoo_ksp_result
    integer :: k = 0
    integer(int64) :: iterations = 0
    logical :: converged = .false.
    integer :: reason = GCOO_KSP_ITERATING
    integer :: reason_column = 0
    integer(int64), allocatable :: column_iterations(:)
    integer, allocatable :: column_reason(:)
    real(real64), allocatable :: residual(:), true_residual(:)
    real(real64), allocatable :: history(:, :)
    integer(int64) :: min_block_rank = 0
    real(real64) :: t_setup = 0, t_solve = 0, t_total = 0, t_spmm = 0, t_pc = 0, t_reduce = 0
    integer(int64) :: spmm_calls = 0, pc_calls = 0
  end type gcoo_ksp_result
end module gcoo_fortran_types
