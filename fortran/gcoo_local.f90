! SPDX-License-Identifier: MIT
! fortran/gcoo_local.f90: contexts (gcoo/ctx.h), sparse matrices (gcoo/sparse.h) and persistent
! operators (gcoo/spdm.h) in one process: the parts that do not depend on the element type
! (fortran/gcoo_real.F90 holds the others).
module gcoo_fortran_local
  use, intrinsic :: iso_c_binding
  use gcoo_fortran_constants
  use gcoo_fortran_types
  use gcoo_fortran_capi
  use gcoo_fortran_errors
  implicit none
  private
  public :: gcoo_ctx_create, gcoo_ctx_destroy, gcoo_ctx_backend, gcoo_ctx_device
  public :: gcoo_ctx_synchronize, gcoo_sparse_destroy, gcoo_sparse_get_info
  public :: gcoo_spdm_alg_name, gcoo_op_options_init, gcoo_op_create, gcoo_op_get_info
  public :: gcoo_op_destroy

contains

  ! ---- contexts -----------------------------------------------------------------------------

  !> Make a context (gcoo_ctx_create): resource "cpu", "cuda", "cuda:N", "auto"; absent: the
  !> environment's GCOO_BACKEND, else "auto". Not collective.
  subroutine gcoo_ctx_create(ctx, ierr, resource)
    type(gcoo_ctx), intent(out) :: ctx
    integer, intent(out), optional :: ierr
    character(len=*), intent(in), optional :: resource
    character(kind=c_char), allocatable, target :: chars(:)
    call finish(c_ctx_create(ctx%ptr, c_chars_or_null(resource, chars)), ierr)
  end subroutine gcoo_ctx_create

  !> Free a context made by gcoo_ctx_create; its objects must be destroyed first.
  subroutine gcoo_ctx_destroy(ctx, ierr)
    type(gcoo_ctx), intent(inout) :: ctx
    integer, intent(out), optional :: ierr
    call finish(c_ctx_destroy(ctx%ptr), ierr)
  end subroutine gcoo_ctx_destroy

  !> "cpu" or "cuda".
  function gcoo_ctx_backend(ctx) result(name)
    type(gcoo_ctx), intent(in) :: ctx
    character(len=:), allocatable :: name
    name = from_c(c_ctx_backend(ctx%ptr))
  end function gcoo_ctx_backend

  !> The context's CUDA device, -1 on the CPU backend.
  pure integer function gcoo_ctx_device(ctx)
    type(gcoo_ctx), intent(in) :: ctx
    gcoo_ctx_device = c_ctx_device(ctx%ptr)
  end function gcoo_ctx_device

  !> Wait for the context's queued work.
  subroutine gcoo_ctx_synchronize(ctx, ierr)
    type(gcoo_ctx), intent(in) :: ctx
    integer, intent(out), optional :: ierr
    call finish(c_ctx_synchronize(ctx%ptr), ierr)
  end subroutine gcoo_ctx_synchronize

  ! ---- sparse matrices ----------------------------------------------------------------------

  !> Free a matrix; the handle becomes null (a null handle is accepted).
  subroutine gcoo_sparse_destroy(A, ierr)
    type(gcoo_sparse), intent(inout) :: A
    integer, intent(out), optional :: ierr
    call finish(c_sparse_destroy(A%ptr), ierr)
  end subroutine gcoo_sparse_destroy

  !> Shape and storage of a matrix.
  subroutine gcoo_sparse_get_info(A, info, ierr)
    type(gcoo_sparse), intent(in) :: A
    type(gcoo_sparse_info), intent(out) :: info
    integer, intent(out), optional :: ierr
    call finish(c_sparse_get_info(A%ptr, info), ierr)
  end subroutine gcoo_sparse_get_info

  ! ---- operators ------------------------------------------------------------------------------

  !> The name of an algorithm ("gcoo", "csr", ...).
  function gcoo_spdm_alg_name(alg) result(name)
    integer, intent(in) :: alg
    character(len=:), allocatable :: name
    name = from_c(c_spdm_alg_name(int(alg, c_int)))
  end function gcoo_spdm_alg_name

  !> GCOO_OP_OPTIONS_INIT: the sparse x dense reading, the library's algorithm, default p.
  function gcoo_op_options_init() result(opts)
    type(gcoo_op_options) :: opts
    call c_op_options_init(opts, c_sizeof(opts))
  end function gcoo_op_options_init

  !> A persistent operator on ctx from A (copied: A may be destroyed afterwards); opts absent:
  !> gcoo_op_options_init().
  subroutine gcoo_op_create(op, ctx, A, ierr, opts)
    type(gcoo_op), intent(out) :: op
    type(gcoo_ctx), intent(in) :: ctx
    type(gcoo_sparse), intent(in) :: A
    integer, intent(out), optional :: ierr
    type(gcoo_op_options), intent(in), optional :: opts
    if (present(opts)) then
      call finish(c_op_create(op%ptr, ctx%ptr, A%ptr, opts), ierr)
    else
      call finish(c_op_create(op%ptr, ctx%ptr, A%ptr, gcoo_op_options_init()), ierr)
    end if
  end subroutine gcoo_op_create

  !> What an operator chose (reading, algorithm, p) and its set-up time.
  subroutine gcoo_op_get_info(op, info, ierr)
    type(gcoo_op), intent(in) :: op
    type(gcoo_op_info), intent(out) :: info
    integer, intent(out), optional :: ierr
    call finish(c_op_get_info(op%ptr, info), ierr)
  end subroutine gcoo_op_get_info

  !> Free an operator; the handle becomes null.
  subroutine gcoo_op_destroy(op, ierr)
    type(gcoo_op), intent(inout) :: op
    integer, intent(out), optional :: ierr
    call finish(c_op_destroy(op%ptr), ierr)
  end subroutine gcoo_op_destroy
end module gcoo_fortran_local
