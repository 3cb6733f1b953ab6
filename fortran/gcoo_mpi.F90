! SPDX-License-Identifier: MIT
! fortran/gcoo_mpi.F90: the distributed context and operator (gcoo/dist.h) on an MPI
! communicator, mpi_f08's type(MPI_Comm) or an integer handle of the mpi module (both reach
! gcoo_dist_create through MPI_Comm_f2c, fortran/gcoo_fortran.c), and the solver (gcoo/ksp.h,
! gcoo/pc.h): the parts that do not depend on the element type.
module gcoo_fortran_mpi
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Comm
  use gcoo_fortran_constants
  use gcoo_fortran_types
  use gcoo_fortran_capi
  use gcoo_fortran_errors
  implicit none
  private
  public :: gcoo_dist_create, gcoo_dist_destroy, gcoo_dist_rank, gcoo_dist_size, gcoo_dist_comm
  public :: gcoo_dist_op_options_init, gcoo_dist_op_create, gcoo_dist_op_get_row_range
  public :: gcoo_dist_op_get_info, gcoo_dist_op_destroy
  public :: gcoo_ksp_type_name, gcoo_ksp_reason_name, gcoo_pc_type_name
  public :: gcoo_ksp_create, gcoo_ksp_destroy, gcoo_ksp_options_init, gcoo_ksp_get_options
  public :: gcoo_ksp_set_options, gcoo_ksp_set_type, gcoo_ksp_set_from_string, gcoo_ksp_get_pc
  public :: gcoo_pc_set_type, gcoo_pc_get_type, gcoo_ksp_setup, gcoo_ksp_describe
  public :: ksp_solve_described

  !> gcoo_dist_create(d, comm [, ierr, backend]): comm a type(MPI_Comm) or an integer handle
  interface gcoo_dist_create
    module procedure dist_create_f08, dist_create_handle
  end interface gcoo_dist_create

contains

  ! ---- the distributed context --------------------------------------------------------------

  !> Make the distributed context on comm (duplicated by the library); backend "cpu", "cuda",
  !> "auto", absent: $GCOO_BACKEND, else "auto". MPI must be initialised. Collective.
  subroutine dist_create_f08(d, comm, ierr, backend)
    type(gcoo_dist), intent(out) :: d
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out), optional :: ierr
    character(len=*), intent(in), optional :: backend
    call dist_create_handle(d, comm%MPI_VAL, ierr, backend)
  end subroutine dist_create_f08

  subroutine dist_create_handle(d, comm, ierr, backend)
    type(gcoo_dist), intent(out) :: d
    integer, intent(in) :: comm
    integer, intent(out), optional :: ierr
    character(len=*), intent(in), optional :: backend
    character(kind=c_char), allocatable, target :: chars(:)
    call finish(c_dist_create(d%ptr, int(comm, c_int), c_chars_or_null(backend, chars)), ierr)
  end subroutine dist_create_handle

  !> Free the context; the handle becomes null. Collective.
  subroutine gcoo_dist_destroy(d, ierr)
    type(gcoo_dist), intent(inout) :: d
    integer, intent(out), optional :: ierr
    call finish(c_dist_destroy(d%ptr), ierr)
  end subroutine gcoo_dist_destroy

  !> This rank in the context's communicator (from 0, as MPI counts); -1 for a null handle.
  pure integer function gcoo_dist_rank(d)
    type(gcoo_dist), intent(in) :: d
    gcoo_dist_rank = c_dist_rank(d%ptr)
  end function gcoo_dist_rank

  !> The number of ranks; 0 for a null handle.
  pure integer function gcoo_dist_size(d)
    type(gcoo_dist), intent(in) :: d
    gcoo_dist_size = c_dist_size(d%ptr)
  end function gcoo_dist_size

  !> The context's own communicator (its duplicate of the caller's; owned by d, not to be freed).
  function gcoo_dist_comm(d) result(comm)
    type(gcoo_dist), intent(in) :: d
    type(MPI_Comm) :: comm
    comm%MPI_VAL = c_dist_comm(d%ptr)
  end function gcoo_dist_comm

  ! ---- the distributed operator -------------------------------------------------------------

  !> GCOO_DIST_OP_OPTIONS_INIT: the local defaults, X replicated, no shift.
  function gcoo_dist_op_options_init() result(opts)
    type(gcoo_dist_op_options) :: opts
    call c_dist_op_options_init(opts, c_sizeof(opts))
  end function gcoo_dist_op_options_init

  !> A persistent distributed operator from this rank's slab of rows, A_slab (copied), which
  !> follows the row0 rows of the ranks before it (row0 is a count, the same in any index
  !> base) of the m_global rows of A; opts absent: gcoo_dist_op_options_init(). A solver needs
  !> opts%xmode = GCOO_DIST_X_PARTITIONED. Collective.
  subroutine gcoo_dist_op_create(d, A_slab, row0, m_global, op, ierr, opts)
    type(gcoo_dist), intent(in) :: d
    type(gcoo_sparse), intent(in) :: A_slab
    integer, intent(in) :: row0, m_global
    type(gcoo_dist_op), intent(out) :: op
    integer, intent(out), optional :: ierr
    type(gcoo_dist_op_options), intent(in), optional :: opts
    integer(c_int64_t) :: r0, m
    r0 = row0
    m = m_global
    if (present(opts)) then
      call finish(c_dist_op_create(d%ptr, A_slab%ptr, r0, m, opts, op%ptr), ierr)
    else
      call finish(c_dist_op_create(d%ptr, A_slab%ptr, r0, m, gcoo_dist_op_options_init(), &
                                   op%ptr), ierr)
    end if
  end subroutine gcoo_dist_op_create

  !> This rank's rows of Y: the row0 rows before them, and nrows of them. Not collective.
  subroutine gcoo_dist_op_get_row_range(op, row0, nrows, ierr)
    type(gcoo_dist_op), intent(in) :: op
    integer, intent(out) :: row0, nrows
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: r0, n
    integer(c_int) :: st
    r0 = 0
    n = 0
    st = c_dist_op_get_row_range(op%ptr, r0, n)
    row0 = int(r0)
    nrows = int(n)
    call finish(st, ierr)
  end subroutine gcoo_dist_op_get_row_range

  !> Sizes, partition, halo and set-up time of this rank's part. Not collective.
  subroutine gcoo_dist_op_get_info(op, info, ierr)
    type(gcoo_dist_op), intent(in) :: op
    type(gcoo_dist_op_info), intent(out) :: info
    integer, intent(out), optional :: ierr
    call finish(c_dist_op_get_info(op%ptr, info), ierr)
  end subroutine gcoo_dist_op_get_info

  !> Free the operator; the handle becomes null. Not collective.
  subroutine gcoo_dist_op_destroy(op, ierr)
    type(gcoo_dist_op), intent(inout) :: op
    integer, intent(out), optional :: ierr
    call finish(c_dist_op_destroy(op%ptr), ierr)
  end subroutine gcoo_dist_op_destroy

  ! ---- the solver ---------------------------------------------------------------------------

  !> "cg", "gmres", ... for GCOO_KSP_CG, GCOO_KSP_GMRES, ...
  function gcoo_ksp_type_name(type) result(name)
    integer, intent(in) :: type
    character(len=:), allocatable :: name
    name = from_c(c_ksp_type_name(int(type, c_int)))
  end function gcoo_ksp_type_name

  !> "converged_rtol", "diverged_its", ... for GCOO_KSP_CONVERGED_RTOL, ...
  function gcoo_ksp_reason_name(reason) result(name)
    integer, intent(in) :: reason
    character(len=:), allocatable :: name
    name = from_c(c_ksp_reason_name(int(reason, c_int)))
  end function gcoo_ksp_reason_name

  !> "none", "jacobi", "amg", "lu" for GCOO_PC_NONE, ...
  function gcoo_pc_type_name(type) result(name)
    integer, intent(in) :: type
    character(len=:), allocatable :: name
    name = from_c(c_pc_type_name(int(type, c_int)))
  end function gcoo_pc_type_name

  !> A solver on the square partitioned operator A (which must outlive it): CG and Jacobi
  !> until told otherwise. Collective.
  subroutine gcoo_ksp_create(ksp, A, ierr)
    type(gcoo_ksp), intent(out) :: ksp
    type(gcoo_dist_op), intent(in) :: A
    integer, intent(out), optional :: ierr
    call finish(c_ksp_create(ksp%ptr, A%ptr), ierr)
  end subroutine gcoo_ksp_create

  !> Free the solver; the handle becomes null. Collective.
  subroutine gcoo_ksp_destroy(ksp, ierr)
    type(gcoo_ksp), intent(inout) :: ksp
    integer, intent(out), optional :: ierr
    call finish(c_ksp_destroy(ksp%ptr), ierr)
  end subroutine gcoo_ksp_destroy

  !> GCOO_KSP_OPTIONS_INIT: CG, rtol 1e-8, at most 10000 iterations, restart 30, ...
  function gcoo_ksp_options_init() result(opts)
    type(gcoo_ksp_options) :: opts
    call c_ksp_options_init(opts, c_sizeof(opts))
  end function gcoo_ksp_options_init

  !> The options in force. Not collective.
  subroutine gcoo_ksp_get_options(ksp, opts, ierr)
    type(gcoo_ksp), intent(in) :: ksp
    type(gcoo_ksp_options), intent(out) :: opts
    integer, intent(out), optional :: ierr
    call finish(c_ksp_get_options(ksp%ptr, opts, c_sizeof(opts)), ierr)
  end subroutine gcoo_ksp_get_options

  !> Set the options (checked: GCOO_ERR_INVALID_ARG names a bad field). Every rank passes the
  !> same.
  subroutine gcoo_ksp_set_options(ksp, opts, ierr)
    type(gcoo_ksp), intent(in) :: ksp
    type(gcoo_ksp_options), intent(in) :: opts
    integer, intent(out), optional :: ierr
    call finish(c_ksp_set_options(ksp%ptr, opts), ierr)
  end subroutine gcoo_ksp_set_options

  !> Set the method alone (GCOO_KSP_CG, GCOO_KSP_GMRES, ...).
  subroutine gcoo_ksp_set_type(ksp, type, ierr)
    type(gcoo_ksp), intent(in) :: ksp
    integer, intent(in) :: type
    integer, intent(out), optional :: ierr
    call finish(c_ksp_set_type(ksp%ptr, int(type, c_int)), ierr)
  end subroutine gcoo_ksp_set_type

  !> Options by PETSc-like names, e.g. "-ksp_type gmres -pc_type jacobi" (gcoo/ksp.h lists
  !> them); an unknown name or bad value changes nothing and is GCOO_ERR_INVALID_ARG.
  subroutine gcoo_ksp_set_from_string(ksp, options, ierr)
    type(gcoo_ksp), intent(in) :: ksp
    character(len=*), intent(in) :: options
    integer, intent(out), optional :: ierr
    call finish(c_ksp_set_from_string(ksp%ptr, c_chars(options)), ierr)
  end subroutine gcoo_ksp_set_from_string

  !> The solver's preconditioner (owned by the solver).
  subroutine gcoo_ksp_get_pc(ksp, pc, ierr)
    type(gcoo_ksp), intent(in) :: ksp
    type(gcoo_pc), intent(out) :: pc
    integer, intent(out), optional :: ierr
    call finish(c_ksp_get_pc(ksp%ptr, pc%ptr), ierr)
  end subroutine gcoo_ksp_get_pc

  !> Choose the preconditioner (GCOO_PC_NONE, GCOO_PC_JACOBI, GCOO_PC_AMG, GCOO_PC_LU).
  subroutine gcoo_pc_set_type(pc, type, ierr)
    type(gcoo_pc), intent(in) :: pc
    integer, intent(in) :: type
    integer, intent(out), optional :: ierr
    call finish(c_pc_set_type(pc%ptr, int(type, c_int)), ierr)
  end subroutine gcoo_pc_set_type

  !> The preconditioner's type.
  subroutine gcoo_pc_get_type(pc, type, ierr)
    type(gcoo_pc), intent(in) :: pc
    integer, intent(out) :: type
    integer, intent(out), optional :: ierr
    integer(c_int) :: t
    t = -1
    call finish(c_pc_get_type(pc%ptr, t), ierr)
    type = t
  end subroutine gcoo_pc_get_type

  !> Build the preconditioner and the method's workspace now (gcoo_ksp_solve does it when
  !> needed). Collective.
  subroutine gcoo_ksp_setup(ksp, ierr)
    type(gcoo_ksp), intent(in) :: ksp
    integer, intent(out), optional :: ierr
    call finish(c_ksp_setup(ksp%ptr), ierr)
  end subroutine gcoo_ksp_setup

  !> One line describing the solver ("gmres(30) + jacobi").
  subroutine gcoo_ksp_describe(ksp, text, ierr)
    type(gcoo_ksp), intent(in) :: ksp
    character(len=:), allocatable, intent(out) :: text
    integer, intent(out), optional :: ierr
    character(kind=c_char) :: buf(256)
    integer(c_int) :: st
    integer :: i
    buf = c_null_char
    st = c_ksp_describe(ksp%ptr, buf, int(size(buf), c_size_t))
    text = ''
    do i = 1, size(buf)
      if (buf(i) == c_null_char) exit
      text = text // buf(i)
    end do
    call finish(st, ierr)
  end subroutine gcoo_ksp_describe

  !> gcoo_ksp_solve on described arrays (the float and double procedures end here): the
  !> result copied into Fortran's record and the C one freed; local as in kept().
  subroutine ksp_solve_described(ksp, B, X, local, ierr, result)
    type(gcoo_ksp), intent(in) :: ksp
    type(gcoo_dense_c), intent(in) :: B, X
    integer(c_int), intent(in) :: local
    integer, intent(out), optional :: ierr
    type(gcoo_ksp_result), intent(out), optional :: result
    type(gcoo_ksp_result_c) :: r
    integer(c_int) :: st
    st = c_ksp_solve(ksp%ptr, B, X, r)
    if (present(result) .and. st >= 0) call result_from_c(r, result)
    call c_ksp_result_free(r)
    call finish(kept(local, st), ierr)
  end subroutine ksp_solve_described

  subroutine result_from_c(r, result)
    type(gcoo_ksp_result_c), intent(in) :: r
    type(gcoo_ksp_result), intent(out) :: result
    integer(c_int64_t), pointer :: i64(:)
    integer(c_int), pointer :: i32(:)
    real(c_double), pointer :: f64(:), hist(:, :)
    integer :: k
    k = int(r%k)
    result%k = k
    result%iterations = r%iterations
    result%converged = r%converged /= 0
    result%reason = r%reason
    result%reason_column = int(r%reason_column) + 1
    result%min_block_rank = r%min_block_rank
    result%t_setup = r%t_setup
    result%t_solve = r%t_solve
    result%t_total = r%t_total
    result%t_spmm = r%t_spmm
    result%t_pc = r%t_pc
    result%t_reduce = r%t_reduce
    result%spmm_calls = r%spmm_calls
    result%pc_calls = r%pc_calls
    allocate (result%column_iterations(k), result%column_reason(k), result%residual(k), &
              result%true_residual(k))
    if (k == 0) return
    call c_f_pointer(r%column_iterations, i64, [k])
    result%column_iterations = i64
    call c_f_pointer(r%column_reason, i32, [k])
    result%column_reason = i32
    call c_f_pointer(r%residual, f64, [k])
    result%residual = f64
    call c_f_pointer(r%true_residual, f64, [k])
    result%true_residual = f64
    if (c_associated(r%history)) then
      ! C's (iterations + 1) x k row-major block is Fortran's k x (iterations + 1)
      call c_f_pointer(r%history, hist, [k, int(r%iterations) + 1])
      allocate (result%history(0:r%iterations, k))
      result%history = transpose(hist)
    end if
  end subroutine result_from_c
end module gcoo_fortran_mpi
