! SPDX-License-Identifier: MIT
! tests/fortran/t700-fortran.F90: the Fortran module gcoo against the C library, float and
! double, at any rank count (ctest: 1 and 2 ranks), CPU backend:
!   - the enumerators (by the library's own names of them, or by the C compiler's values) and
!     the mirrored structs (size and every field's offset, from t700_layout.c);
!   - contexts, CSR matrices from 0- and 1-based arrays, products in both readings on Fortran
!     arrays as they are, transposed, as sections with a leading dimension and as (strided)
!     vectors, each against a naive loop (t700_kind.inc);
!   - the distributed context from an mpi_f08 communicator and from an integer handle, the
!     distributed operator (X replicated and partitioned), the solver with options by the struct
!     and by the string, its result record and true residuals;
!   - errors: statuses and messages of the C library and of the binding, agreed over ranks.
! With the argument "abort" it makes one failing call without ierr, which must stop the program
! with the status and the message on the error unit (ctest: t700-fortran-abort).
program t700_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: output_unit
#ifdef GCOO_FORTRAN_MPI
  use mpi_f08
#endif
  use gcoo
  use gcoo_fortran_capi, only: gcoo_dense_c, gcoo_ksp_result_c
  use t700_util
  use t700_real32, only: test_local_float => test_local
  use t700_real64, only: test_local_double => test_local
#ifdef GCOO_FORTRAN_MPI
  use t700_real32, only: test_dist_float => test_dist
  use t700_real64, only: test_dist_double => test_dist
#endif
  implicit none

  interface
    integer(c_int) function t700_c_layout(which, out) bind(c, name="t700_c_layout")
      import :: c_int, c_size_t
      integer(c_int), value :: which
      integer(c_size_t), intent(out) :: out(*)
    end function t700_c_layout
    integer(c_int) function t700_c_constants(out) bind(c, name="t700_c_constants")
      import :: c_int
      integer(c_int), intent(out) :: out(*)
    end function t700_c_constants
  end interface

  type(gcoo_ctx) :: ctx, bad_ctx
  character(len=16) :: mode
  integer :: ierr
#ifdef GCOO_FORTRAN_MPI
  type(gcoo_dist) :: d, d2, bad_d
  integer :: cmp, total(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
#endif
  mode = ''
  if (command_argument_count() > 0) call get_command_argument(1, mode)

  call gcoo_ctx_create(ctx, ierr, resource='cpu')
  call check(ierr == GCOO_SUCCESS .and. gcoo_ctx_device(ctx) == -1, 'gcoo_ctx_create cpu')
  call named(gcoo_ctx_backend(ctx), 'cpu')
  if (mode == 'abort') call abort_without_ierr()

  call check_constants()
  call check_layouts()
  call check(index(gcoo_version_string(), 'gcoo ') == 1, 'gcoo_version_string')
  call gcoo_ctx_create(bad_ctx, ierr, resource='nonsense')
  call check_status(ierr, GCOO_ERR_INVALID_ARG, gcoo_last_error(), 'nonsense', &
                    'gcoo_ctx_create nonsense')
  call check(.not. c_associated(bad_ctx%ptr), 'no context from a failed create')
  call gcoo_clear_error()
  call check(len(gcoo_last_error()) == 0, 'gcoo_clear_error')
  call gcoo_ctx_synchronize(ctx, ierr)
  call check(ierr == 0, 'gcoo_ctx_synchronize')

  call test_local_float(ctx)
  call test_local_double(ctx)

#ifdef GCOO_FORTRAN_MPI
  ! the distributed context from an integer handle and from mpi_f08's type(MPI_Comm)
  call gcoo_dist_create(d2, MPI_COMM_WORLD%MPI_VAL, ierr, backend='cpu')
  call check(ierr == 0 .and. gcoo_dist_rank(d2) == rank .and. gcoo_dist_size(d2) == nranks, &
             'gcoo_dist_create from an integer handle')
  call gcoo_dist_destroy(d2, ierr)
  call check(ierr == 0 .and. .not. c_associated(d2%ptr), 'gcoo_dist_destroy')
  call gcoo_dist_create(d, MPI_COMM_WORLD, ierr, backend='cpu')
  call check(ierr == 0 .and. gcoo_dist_rank(d) == rank .and. gcoo_dist_size(d) == nranks, &
             'gcoo_dist_create from type(MPI_Comm)')
  call MPI_Comm_compare(gcoo_dist_comm(d), MPI_COMM_WORLD, cmp)
  call check(cmp == MPI_CONGRUENT, 'gcoo_dist_comm: a duplicate of the communicator')
  call gcoo_dist_create(bad_d, MPI_COMM_WORLD, ierr, backend='nonsense')
  call check_status(ierr, GCOO_ERR_INVALID_ARG, gcoo_last_error(), 'nonsense', &
                    'gcoo_dist_create with an unknown backend')

  call test_dist_float(d)
  call test_dist_double(d)
  call gcoo_dist_destroy(d, ierr)
#endif
  call gcoo_ctx_destroy(ctx, ierr)
  call check(ierr == 0 .and. .not. c_associated(ctx%ptr), 'gcoo_ctx_destroy')

#ifdef GCOO_FORTRAN_MPI
  total = [failures, checks]
  call MPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  failures = total(1)
  checks = total(2)
  call MPI_Finalize()
#endif
  if (rank == 0) then
    if (failures == 0) then
      write (output_unit, '(a,i0,a,i0,a)') 't700-fortran: ', checks, ' checks on ', nranks, &
        ' rank(s): OK'
    else
      write (output_unit, '(a,i0,a,i0,a)') 't700-fortran: ', failures, ' of ', checks, &
        ' checks FAILED'
    end if
  end if
  if (failures > 0) error stop 1

contains

  !> A failing call without ierr: the binding prints the status and message and stops.
  subroutine abort_without_ierr()
    type(gcoo_op) :: never
    real(c_double) :: X(3, 2), Y(4, 2)
    X = 0
    Y = 0
    call gcoo_op_apply(never, 1.0_c_double, X, 0.0_c_double, Y)
    write (output_unit, '(a)') 't700-fortran: not stopped by a failure without ierr'
    stop 0
  end subroutine abort_without_ierr

  subroutine check_constants()
    integer, parameter :: ns = 27
    integer :: statuses(ns), values(32), n, i
    character(len=24) :: names(ns)
    statuses = [GCOO_SUCCESS, GCOO_INFO_NOT_CONVERGED, GCOO_INFO_SKIPPED, GCOO_ERR_NULL, &
                GCOO_ERR_INVALID_OBJECT, GCOO_ERR_INVALID_ARG, GCOO_ERR_SHAPE, GCOO_ERR_DTYPE, &
                GCOO_ERR_UNSUPPORTED, GCOO_ERR_TOO_LARGE, GCOO_ERR_INDEX_RANGE, &
                GCOO_ERR_UNSORTED, GCOO_ERR_DUPLICATE, GCOO_ERR_NOT_FINITE, GCOO_ERR_FORMAT, &
                GCOO_ERR_EXISTS, GCOO_ERR_NO_MEMORY, GCOO_ERR_IO, GCOO_ERR_CUDA, &
                GCOO_ERR_CUSPARSE, GCOO_ERR_CUBLAS, GCOO_ERR_NO_DEVICE, GCOO_ERR_MPI, &
                GCOO_ERR_NCCL, GCOO_ERR_HDF5, GCOO_ERR_REMOTE, GCOO_ERR_BREAKDOWN]
    names = [character(len=24) :: 'GCOO_SUCCESS', 'GCOO_INFO_NOT_CONVERGED', &
             'GCOO_INFO_SKIPPED', 'GCOO_ERR_NULL', 'GCOO_ERR_INVALID_OBJECT', &
             'GCOO_ERR_INVALID_ARG', 'GCOO_ERR_SHAPE', 'GCOO_ERR_DTYPE', 'GCOO_ERR_UNSUPPORTED', &
             'GCOO_ERR_TOO_LARGE', 'GCOO_ERR_INDEX_RANGE', 'GCOO_ERR_UNSORTED', &
             'GCOO_ERR_DUPLICATE', 'GCOO_ERR_NOT_FINITE', 'GCOO_ERR_FORMAT', 'GCOO_ERR_EXISTS', &
             'GCOO_ERR_NO_MEMORY', 'GCOO_ERR_IO', 'GCOO_ERR_CUDA', 'GCOO_ERR_CUSPARSE', &
             'GCOO_ERR_CUBLAS', 'GCOO_ERR_NO_DEVICE', 'GCOO_ERR_MPI', 'GCOO_ERR_NCCL', &
             'GCOO_ERR_HDF5', 'GCOO_ERR_REMOTE', 'GCOO_ERR_BREAKDOWN']
    do i = 1, ns
      call check(gcoo_status_name(statuses(i)) == trim(names(i)), 'status ' // trim(names(i)))
    end do
    call check(gcoo_status_name(GCOO_ERR_INTERNAL) == 'GCOO_ERR_INTERNAL', 'GCOO_ERR_INTERNAL')
    call check(len(gcoo_strerror(GCOO_ERR_SHAPE)) > 0, 'gcoo_strerror')
    call named(gcoo_spdm_alg_name(GCOO_ALG_AUTO), 'auto')
    call named(gcoo_spdm_alg_name(GCOO_ALG_GCOO_FAITHFUL), 'gcoo_faithful')
    call named(gcoo_spdm_alg_name(GCOO_ALG_CUSPARSE_CSR_ALG3), 'cusparse_csr_alg3')
    call named(gcoo_spdm_alg_name(GCOO_ALG_DENSE_TF32), 'dense_tf32')
    call named(gcoo_spdm_alg_name(GCOO_ALG_CSR), 'csr')
    values = -999
    n = t700_c_constants(values)
    call check(all(values(1:19) == [GCOO_FLOAT32, GCOO_FLOAT64, GCOO_FORMAT_COO, &
                                    GCOO_FORMAT_CSR, GCOO_FORMAT_CSC, GCOO_FORMAT_GCOO, &
                                    GCOO_ROW_MAJOR, GCOO_COL_MAJOR, GCOO_MEM_HOST, &
                                    GCOO_MEM_DEVICE, GCOO_DUPLICATES_SUM, &
                                    GCOO_DUPLICATES_ERROR, GCOO_REQUIRE_FINITE, &
                                    GCOO_KEEP_ZEROS, GCOO_DEFAULT_P, GCOO_SPARSE_DENSE, &
                                    GCOO_DENSE_SPARSE, GCOO_MATH_EXACT, GCOO_MATH_TF32]), &
               'enumerators with the C compiler''s values')
#ifdef GCOO_FORTRAN_MPI
    call check(n == 21 .and. values(20) == GCOO_DIST_X_REPLICATED .and. &
               values(21) == GCOO_DIST_X_PARTITIONED, 'gcoo_dist_xmode')
    call named(gcoo_ksp_type_name(GCOO_KSP_CG), 'cg')
    call named(gcoo_ksp_type_name(GCOO_KSP_PIPECG), 'pipecg')
    call named(gcoo_ksp_type_name(GCOO_KSP_GMRES), 'gmres')
    call named(gcoo_ksp_type_name(GCOO_KSP_FGMRES), 'fgmres')
    call named(gcoo_ksp_type_name(GCOO_KSP_BICGSTAB), 'bicgstab')
    call named(gcoo_ksp_type_name(GCOO_KSP_PREONLY), 'preonly')
    call named(gcoo_ksp_reason_name(GCOO_KSP_ITERATING), 'iterating')
    call named(gcoo_ksp_reason_name(GCOO_KSP_CONVERGED_RTOL), 'converged_rtol')
    call named(gcoo_ksp_reason_name(GCOO_KSP_CONVERGED_ATOL), 'converged_atol')
    call named(gcoo_ksp_reason_name(GCOO_KSP_CONVERGED_PREONLY), 'converged_preonly')
    call named(gcoo_ksp_reason_name(GCOO_KSP_DIVERGED_ITS), 'diverged_its')
    call named(gcoo_ksp_reason_name(GCOO_KSP_DIVERGED_DTOL), 'diverged_dtol')
    call named(gcoo_ksp_reason_name(GCOO_KSP_DIVERGED_BREAKDOWN), 'diverged_breakdown')
    call named(gcoo_ksp_reason_name(GCOO_KSP_DIVERGED_INDEFINITE), 'diverged_indefinite')
    call named(gcoo_ksp_reason_name(GCOO_KSP_DIVERGED_NANORINF), 'diverged_nanorinf')
    call named(gcoo_ksp_reason_name(GCOO_KSP_DIVERGED_STAGNATION), 'diverged_stagnation')
    call named(gcoo_pc_type_name(GCOO_PC_NONE), 'none')
    call named(gcoo_pc_type_name(GCOO_PC_JACOBI), 'jacobi')
    call named(gcoo_pc_type_name(GCOO_PC_AMG), 'amg')
    call named(gcoo_pc_type_name(GCOO_PC_LU), 'lu')
#endif
  end subroutine check_constants

  subroutine named(got, want)
    character(len=*), intent(in) :: got, want
    call check(got == want, "the library's name '" // got // "' for '" // want // "'")
  end subroutine named

  !> Each mirrored struct: its size and its fields' offsets as gfortran laid them out, against
  !> the C compiler's.
  subroutine check_layouts()
    type(gcoo_sparse_info), target :: si
    type(gcoo_op_options), target :: oo
    type(gcoo_op_info), target :: oi
    type(gcoo_dense_c), target :: de
#ifdef GCOO_FORTRAN_MPI
    type(gcoo_dist_op_options), target :: dop
    type(gcoo_dist_op_info), target :: doi
    type(gcoo_ksp_options), target :: ko
    type(gcoo_ksp_result_c), target :: kr
#endif
    call compare(0, 'gcoo_sparse_info', [c_sizeof(si), at(c_loc(si%format), c_loc(si)), &
      at(c_loc(si%dtype), c_loc(si)), at(c_loc(si%nrows), c_loc(si)), &
      at(c_loc(si%ncols), c_loc(si)), at(c_loc(si%nnz), c_loc(si)), at(c_loc(si%p), c_loc(si)), &
      at(c_loc(si%ngroups), c_loc(si))])
    call compare(1, 'gcoo_op_options', [c_sizeof(oo), at(c_loc(oo%size), c_loc(oo)), &
      at(c_loc(oo%reading), c_loc(oo)), at(c_loc(oo%alg), c_loc(oo)), at(c_loc(oo%p), c_loc(oo)), &
      at(c_loc(oo%ncols_hint), c_loc(oo)), at(c_loc(oo%math), c_loc(oo))])
    call compare(2, 'gcoo_op_info', [c_sizeof(oi), at(c_loc(oi%reading), c_loc(oi)), &
      at(c_loc(oi%dtype), c_loc(oi)), at(c_loc(oi%alg), c_loc(oi)), at(c_loc(oi%p), c_loc(oi)), &
      at(c_loc(oi%nrows), c_loc(oi)), at(c_loc(oi%ncols), c_loc(oi)), &
      at(c_loc(oi%nnz), c_loc(oi)), at(c_loc(oi%setup_seconds), c_loc(oi)), &
      at(c_loc(oi%device_bytes), c_loc(oi))])
    call compare(3, 'gcoo_dense', [c_sizeof(de), at(c_loc(de%dtype), c_loc(de)), &
      at(c_loc(de%layout), c_loc(de)), at(c_loc(de%mem), c_loc(de)), &
      at(c_loc(de%nrows), c_loc(de)), at(c_loc(de%ncols), c_loc(de)), at(c_loc(de%ld), c_loc(de)), &
      at(c_loc(de%data), c_loc(de)), at(c_loc(de%owned), c_loc(de))])
#ifdef GCOO_FORTRAN_MPI
    call compare(4, 'gcoo_dist_op_options', [c_sizeof(dop), at(c_loc(dop%size), c_loc(dop)), &
      at(c_loc(dop%local), c_loc(dop)), at(c_loc(dop%xmode), c_loc(dop)), &
      at(c_loc(dop%shift), c_loc(dop))])
    call compare(5, 'gcoo_dist_op_info', [c_sizeof(doi), at(c_loc(doi%m_global), c_loc(doi)), &
      at(c_loc(doi%k), c_loc(doi)), at(c_loc(doi%nnz_global), c_loc(doi)), &
      at(c_loc(doi%nnz_local), c_loc(doi)), at(c_loc(doi%row0), c_loc(doi)), &
      at(c_loc(doi%nrows_local), c_loc(doi)), at(c_loc(doi%imbalance), c_loc(doi)), &
      at(c_loc(doi%xmode), c_loc(doi)), at(c_loc(doi%halo_rows_recv), c_loc(doi)), &
      at(c_loc(doi%halo_rows_send), c_loc(doi)), at(c_loc(doi%halo_peers), c_loc(doi)), &
      at(c_loc(doi%read_seconds), c_loc(doi)), at(c_loc(doi%setup_seconds), c_loc(doi)), &
      at(c_loc(doi%local), c_loc(doi))])
    call compare(6, 'gcoo_ksp_options', [c_sizeof(ko), at(c_loc(ko%size), c_loc(ko)), &
      at(c_loc(ko%type), c_loc(ko)), at(c_loc(ko%rtol), c_loc(ko)), at(c_loc(ko%atol), c_loc(ko)), &
      at(c_loc(ko%dtol), c_loc(ko)), at(c_loc(ko%maxit), c_loc(ko)), &
      at(c_loc(ko%restart), c_loc(ko)), at(c_loc(ko%cgs_refinement), c_loc(ko)), &
      at(c_loc(ko%block), c_loc(ko)), at(c_loc(ko%initial_guess_nonzero), c_loc(ko)), &
      at(c_loc(ko%record_history), c_loc(ko)), at(c_loc(ko%monitor), c_loc(ko)), &
      at(c_loc(ko%monitor_ctx), c_loc(ko))])
    call compare(7, 'gcoo_ksp_result', [c_sizeof(kr), at(c_loc(kr%k), c_loc(kr)), &
      at(c_loc(kr%iterations), c_loc(kr)), at(c_loc(kr%converged), c_loc(kr)), &
      at(c_loc(kr%reason), c_loc(kr)), at(c_loc(kr%reason_column), c_loc(kr)), &
      at(c_loc(kr%column_iterations), c_loc(kr)), at(c_loc(kr%column_reason), c_loc(kr)), &
      at(c_loc(kr%residual), c_loc(kr)), at(c_loc(kr%true_residual), c_loc(kr)), &
      at(c_loc(kr%history), c_loc(kr)), at(c_loc(kr%min_block_rank), c_loc(kr)), &
      at(c_loc(kr%t_setup), c_loc(kr)), at(c_loc(kr%t_solve), c_loc(kr)), &
      at(c_loc(kr%t_total), c_loc(kr)), at(c_loc(kr%t_spmm), c_loc(kr)), &
      at(c_loc(kr%t_pc), c_loc(kr)), at(c_loc(kr%t_reduce), c_loc(kr)), &
      at(c_loc(kr%spmm_calls), c_loc(kr)), at(c_loc(kr%pc_calls), c_loc(kr))])
#endif
  end subroutine check_layouts

  integer(c_size_t) function at(field, base)
    type(c_ptr), intent(in) :: field, base
    at = int(transfer(field, 0_c_intptr_t) - transfer(base, 0_c_intptr_t), c_size_t)
  end function at

  subroutine compare(which, name, fortran)
    integer, intent(in) :: which
    character(len=*), intent(in) :: name
    integer(c_size_t), intent(in) :: fortran(:)
    integer(c_size_t) :: c(64)
    integer :: n
    n = t700_c_layout(int(which, c_int), c)
    call check(n == size(fortran), name // ': as many fields in C and Fortran')
    if (n == size(fortran)) call check(all(c(1:n) == fortran), name // ': size and offsets')
  end subroutine compare
end program t700_fortran
