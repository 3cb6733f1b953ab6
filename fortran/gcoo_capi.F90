! SPDX-License-Identifier: MIT
! fortran/gcoo_capi.F90: the C functions of libgcoo (and of fortran/gcoo_fortran.c) as Fortran
! interfaces, and the two C structs the module fills itself (gcoo_dense, gcoo_ksp_result). The
! binding's own layer: users see the procedures of module gcoo, never these.
! Handles travel as type(c_ptr): by reference where C writes the handle (gcoo_x *), by value
! where it reads it. Status enums come back as integer(c_int).
module gcoo_fortran_capi
  use, intrinsic :: iso_c_binding
  use gcoo_fortran_types
  implicit none
  public

  !> gcoo_dense (gcoo/dense.h): a descriptor of a Fortran array
  type, bind(c) :: gcoo_dense_c
    integer(c_int) :: dtype, layout, mem
    integer(c_int64_t) :: nrows, ncols, ld
    type(c_ptr) :: data = c_null_ptr
    integer(c_int) :: owned = 0
  end type gcoo_dense_c

  !> gcoo_ksp_result (gcoo/ksp.h), zero until a solve fills it
  type, bind(c) :: gcoo_ksp_result_c
    integer(c_int64_t) :: k = 0, iterations = 0
    integer(c_int) :: converged = 0, reason = 0
    integer(c_int64_t) :: reason_column = -1
    type(c_ptr) :: column_iterations = c_null_ptr, column_reason = c_null_ptr
    type(c_ptr) :: residual = c_null_ptr, true_residual = c_null_ptr, history = c_null_ptr
    integer(c_int64_t) :: min_block_rank = 0
    real(c_double) :: t_setup = 0, t_solve = 0, t_total = 0, t_spmm = 0, t_pc = 0, t_reduce = 0
    integer(c_int64_t) :: spmm_calls = 0, pc_calls = 0
  end type gcoo_ksp_result_c

  interface
    ! ---- gcoo/status.h and C's strlen ------------------------------------------------------
    type(c_ptr) function c_strerror(s) bind(c, name="gcoo_strerror")
      import :: c_ptr, c_int
      integer(c_int), value :: s
    end function c_strerror
    type(c_ptr) function c_status_name(s) bind(c, name="gcoo_status_name")
      import :: c_ptr, c_int
      integer(c_int), value :: s
    end function c_status_name
    type(c_ptr) function c_last_error() bind(c, name="gcoo_last_error")
      import :: c_ptr
    end function c_last_error
    subroutine c_clear_error() bind(c, name="gcoo_clear_error")
    end subroutine c_clear_error
    type(c_ptr) function c_version_string() bind(c, name="gcoo_version_string")
      import :: c_ptr
    end function c_version_string
    integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function c_strlen

    ! ---- gcoo/ctx.h ------------------------------------------------------------------------
    integer(c_int) function c_ctx_create(ctx, resource) bind(c, name="gcoo_ctx_create")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: ctx
      type(c_ptr), value :: resource
    end function c_ctx_create
    integer(c_int) function c_ctx_destroy(ctx) bind(c, name="gcoo_ctx_destroy")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: ctx
    end function c_ctx_destroy
    type(c_ptr) function c_ctx_backend(ctx) bind(c, name="gcoo_ctx_backend")
      import :: c_ptr
      type(c_ptr), value :: ctx
    end function c_ctx_backend
    pure integer(c_int) function c_ctx_device(ctx) bind(c, name="gcoo_ctx_device")
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
    end function c_ctx_device
    integer(c_int) function c_ctx_synchronize(ctx) bind(c, name="gcoo_ctx_synchronize")
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
    end function c_ctx_synchronize

    ! ---- gcoo/sparse.h ---------------------------------------------------------------------
    integer(c_int) function c_sparse_create_csr(A, dtype, nrows, ncols, rowptr, colind, values, &
                                                flags) bind(c, name="gcoo_sparse_create_csr")
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), intent(out) :: A
      integer(c_int), value :: dtype
      integer(c_int64_t), value :: nrows, ncols
      integer(c_int64_t), intent(in) :: rowptr(*)
      integer(c_int32_t), intent(in) :: colind(*)
      type(c_ptr), value :: values
      integer(c_int), value :: flags
    end function c_sparse_create_csr
    integer(c_int) function c_sparse_destroy(A) bind(c, name="gcoo_sparse_destroy")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: A
    end function c_sparse_destroy
    integer(c_int) function c_sparse_get_info(A, info) bind(c, name="gcoo_sparse_get_info")
      import :: c_ptr, c_int, gcoo_sparse_info
      type(c_ptr), value :: A
      type(gcoo_sparse_info), intent(out) :: info
    end function c_sparse_get_info

    ! ---- gcoo/spdm.h -----------------------------------------------------------------------
    type(c_ptr) function c_spdm_alg_name(alg) bind(c, name="gcoo_spdm_alg_name")
      import :: c_ptr, c_int
      integer(c_int), value :: alg
    end function c_spdm_alg_name
    integer(c_int) function c_op_create(op, ctx, A, opts) bind(c, name="gcoo_op_create")
      import :: c_ptr, c_int, gcoo_op_options
      type(c_ptr), intent(out) :: op
      type(c_ptr), value :: ctx, A
      type(gcoo_op_options), intent(in) :: opts
    end function c_op_create
    integer(c_int) function c_op_apply(op, alpha, X, beta, Y) bind(c, name="gcoo_op_apply")
      import :: c_ptr, c_int, c_double, gcoo_dense_c
      type(c_ptr), value :: op
      real(c_double), value :: alpha, beta
      type(gcoo_dense_c), intent(in) :: X, Y
    end function c_op_apply
    integer(c_int) function c_op_get_info(op, info) bind(c, name="gcoo_op_get_info")
      import :: c_ptr, c_int, gcoo_op_info
      type(c_ptr), value :: op
      type(gcoo_op_info), intent(out) :: info
    end function c_op_get_info
    integer(c_int) function c_op_destroy(op) bind(c, name="gcoo_op_destroy")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: op
    end function c_op_destroy

    ! ---- fortran/gcoo_fortran.c: the defaults of the C initialiser macros ------------------
    subroutine c_op_options_init(opts, size) bind(c, name="gcoo_fortran_op_options_init")
      import :: c_size_t, gcoo_op_options
      type(gcoo_op_options), intent(out) :: opts
      integer(c_size_t), value :: size
    end subroutine c_op_options_init
  end interface

#ifdef GCOO_FORTRAN_MPI
  interface
    ! ---- gcoo/dist.h (gcoo_dist_create through fortran/gcoo_fortran.c) ---------------------
    integer(c_int) function c_dist_create(d, comm, backend) bind(c, name="gcoo_fortran_dist_create")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: d
      integer(c_int), value :: comm
      type(c_ptr), value :: backend
    end function c_dist_create
    integer(c_int) function c_dist_comm(d) bind(c, name="gcoo_fortran_dist_comm")
      import :: c_ptr, c_int
      type(c_ptr), value :: d
    end function c_dist_comm
    integer(c_int) function c_dist_destroy(d) bind(c, name="gcoo_dist_destroy")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: d
    end function c_dist_destroy
    pure integer(c_int) function c_dist_rank(d) bind(c, name="gcoo_dist_rank")
      import :: c_ptr, c_int
      type(c_ptr), value :: d
    end function c_dist_rank
    pure integer(c_int) function c_dist_size(d) bind(c, name="gcoo_dist_size")
      import :: c_ptr, c_int
      type(c_ptr), value :: d
    end function c_dist_size
    subroutine c_dist_op_options_init(opts, size) bind(c, name="gcoo_fortran_dist_op_options_init")
      import :: c_size_t, gcoo_dist_op_options
      type(gcoo_dist_op_options), intent(out) :: opts
      integer(c_size_t), value :: size
    end subroutine c_dist_op_options_init
    integer(c_int) function c_dist_op_create(d, A, row0, m_global, opts, op) &
        bind(c, name="gcoo_dist_op_create")
      import :: c_ptr, c_int, c_int64_t, gcoo_dist_op_options
      type(c_ptr), value :: d, A
      integer(c_int64_t), value :: row0, m_global
      type(gcoo_dist_op_options), intent(in) :: opts
      type(c_ptr), intent(out) :: op
    end function c_dist_op_create
    integer(c_int) function c_dist_op_apply(op, alpha, X, beta, Y) bind(c, name="gcoo_dist_op_apply")
      import :: c_ptr, c_int, c_double, gcoo_dense_c
      type(c_ptr), value :: op
      real(c_double), value :: alpha, beta
      type(gcoo_dense_c), intent(in) :: X, Y
    end function c_dist_op_apply
    integer(c_int) function c_dist_op_get_row_range(op, row0, nrows) &
        bind(c, name="gcoo_dist_op_get_row_range")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: op
      integer(c_int64_t), intent(out) :: row0, nrows
    end function c_dist_op_get_row_range
    integer(c_int) function c_dist_op_get_info(op, info) bind(c, name="gcoo_dist_op_get_info")
      import :: c_ptr, c_int, gcoo_dist_op_info
      type(c_ptr), value :: op
      type(gcoo_dist_op_info), intent(out) :: info
    end function c_dist_op_get_info
    integer(c_int) function c_dist_op_destroy(op) bind(c, name="gcoo_dist_op_destroy")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: op
    end function c_dist_op_destroy

    ! ---- gcoo/ksp.h and gcoo/pc.h ----------------------------------------------------------
    type(c_ptr) function c_ksp_type_name(t) bind(c, name="gcoo_ksp_type_name")
      import :: c_ptr, c_int
      integer(c_int), value :: t
    end function c_ksp_type_name
    type(c_ptr) function c_ksp_reason_name(r) bind(c, name="gcoo_ksp_reason_name")
      import :: c_ptr, c_int
      integer(c_int), value :: r
    end function c_ksp_reason_name
    type(c_ptr) function c_pc_type_name(t) bind(c, name="gcoo_pc_type_name")
      import :: c_ptr, c_int
      integer(c_int), value :: t
    end function c_pc_type_name
    integer(c_int) function c_ksp_create(ksp, A) bind(c, name="gcoo_ksp_create")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: ksp
      type(c_ptr), value :: A
    end function c_ksp_create
    integer(c_int) function c_ksp_destroy(ksp) bind(c, name="gcoo_ksp_destroy")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: ksp
    end function c_ksp_destroy
    subroutine c_ksp_options_init(opts, size) bind(c, name="gcoo_fortran_ksp_options_init")
      import :: c_size_t, gcoo_ksp_options
      type(gcoo_ksp_options), intent(out) :: opts
      integer(c_size_t), value :: size
    end subroutine c_ksp_options_init
    integer(c_int) function c_ksp_get_options(ksp, opts, size) &
        bind(c, name="gcoo_fortran_ksp_get_options")
      import :: c_ptr, c_int, c_size_t, gcoo_ksp_options
      type(c_ptr), value :: ksp
      type(gcoo_ksp_options), intent(out) :: opts
      integer(c_size_t), value :: size
    end function c_ksp_get_options
    integer(c_int) function c_ksp_set_options(ksp, opts) bind(c, name="gcoo_ksp_set_options")
      import :: c_ptr, c_int, gcoo_ksp_options
      type(c_ptr), value :: ksp
      type(gcoo_ksp_options), intent(in) :: opts
    end function c_ksp_set_options
    integer(c_int) function c_ksp_set_type(ksp, t) bind(c, name="gcoo_ksp_set_type")
      import :: c_ptr, c_int
      type(c_ptr), value :: ksp
      integer(c_int), value :: t
    end function c_ksp_set_type
    integer(c_int) function c_ksp_set_from_string(ksp, options) &
        bind(c, name="gcoo_ksp_set_from_string")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: ksp
      character(kind=c_char), intent(in) :: options(*)
    end function c_ksp_set_from_string
    integer(c_int) function c_ksp_get_pc(ksp, pc) bind(c, name="gcoo_ksp_get_pc")
      import :: c_ptr, c_int
      type(c_ptr), value :: ksp
      type(c_ptr), intent(out) :: pc
    end function c_ksp_get_pc
    integer(c_int) function c_pc_set_type(pc, t) bind(c, name="gcoo_pc_set_type")
      import :: c_ptr, c_int
      type(c_ptr), value :: pc
      integer(c_int), value :: t
    end function c_pc_set_type
    integer(c_int) function c_pc_get_type(pc, t) bind(c, name="gcoo_pc_get_type")
      import :: c_ptr, c_int
      type(c_ptr), value :: pc
      integer(c_int), intent(out) :: t
    end function c_pc_get_type
    integer(c_int) function c_ksp_setup(ksp) bind(c, name="gcoo_ksp_setup")
      import :: c_ptr, c_int
      type(c_ptr), value :: ksp
    end function c_ksp_setup
    integer(c_int) function c_ksp_solve(ksp, B, X, result) bind(c, name="gcoo_ksp_solve")
      import :: c_ptr, c_int, gcoo_dense_c, gcoo_ksp_result_c
      type(c_ptr), value :: ksp
      type(gcoo_dense_c), intent(in) :: B, X
      type(gcoo_ksp_result_c), intent(inout) :: result
    end function c_ksp_solve
    integer(c_int) function c_ksp_describe(ksp, buf, len) bind(c, name="gcoo_ksp_describe")
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: ksp
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_size_t), value :: len
    end function c_ksp_describe
    subroutine c_ksp_result_free(result) bind(c, name="gcoo_ksp_result_free")
      import :: gcoo_ksp_result_c
      type(gcoo_ksp_result_c), intent(inout) :: result
    end subroutine c_ksp_result_free
  end interface
#endif
end module gcoo_fortran_capi
