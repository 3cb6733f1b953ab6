! SPDX-License-Identifier: MIT
! examples/fortran_poisson/fortran_poisson.f90: gcoo from Fortran (module gcoo). Each rank builds
! its rows of the 2-D Poisson matrix (5-point stencil on a g x g grid) in 1-based CSR, hands them
! to a distributed operator, and solves A x = b with conjugate gradients and Jacobi, b = A 1, so
! that the answer is known: x = 1. No ierr arguments: a failure stops the program with its
! message.
!   mpirun -np 2 ./fortran_poisson [g]        backend: $GCOO_BACKEND (cpu, cuda, auto; unset: auto)
program fortran_poisson
  use mpi_f08
  use gcoo
  implicit none
  integer, parameter :: dx(5) = [0, -1, 0, 1, 0], dy(5) = [-1, 0, 0, 0, 1]
  integer :: g, n, lo, hi, i, j, k, rank, nranks
  character(len=16) :: arg
  integer, allocatable :: rowptr(:), colind(:)
  real(8), allocatable :: values(:), b(:), x(:)
  real(8) :: error
  type(gcoo_dist) :: d
  type(gcoo_sparse) :: A
  type(gcoo_dist_op) :: op
  type(gcoo_dist_op_options) :: opts
  type(gcoo_ksp) :: ksp
  type(gcoo_ksp_result) :: res

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  g = 32
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) g
  end if
  n = g * g
  lo = rank * n / nranks ! this rank's rows: lo + 1 .. hi
  hi = (rank + 1) * n / nranks
  allocate (rowptr(hi - lo + 1), colind(5 * (hi - lo)), values(5 * (hi - lo)), b(hi - lo), x(hi - lo))
  k = 0
  rowptr(1) = 1
  do i = lo + 1, hi ! grid point (mod(i - 1, g), (i - 1) / g)
    do j = 1, 5
      if (inside(mod(i - 1, g) + dx(j)) .and. inside((i - 1) / g + dy(j))) then
        k = k + 1
        colind(k) = i + dx(j) + g * dy(j)
        values(k) = merge(4, -1, j == 3)
      end if
    end do
    rowptr(i - lo + 1) = k + 1
    b(i - lo) = sum(values(rowptr(i - lo):k)) ! (A 1)_i
  end do

  call gcoo_dist_create(d, MPI_COMM_WORLD)
  call gcoo_sparse_create_csr(A, hi - lo, n, rowptr, colind(1:k), values(1:k), base=1)
  opts = gcoo_dist_op_options_init()
  opts%xmode = GCOO_DIST_X_PARTITIONED ! x and b held in rows like A's: what a solver needs
  call gcoo_dist_op_create(d, A, lo, n, op, opts=opts)
  call gcoo_sparse_destroy(A) ! the operator has its own copy
  call gcoo_ksp_create(ksp, op)
  call gcoo_ksp_set_from_string(ksp, '-ksp_type cg -pc_type jacobi -ksp_rtol 1e-10')
  call gcoo_ksp_solve(ksp, b, x, result=res)

  error = maxval(abs(x - 1))
  call MPI_Allreduce(MPI_IN_PLACE, error, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
  if (rank == 0) then
    print '(a,i0,a,i0,a,i0,a,es8.2,a,es8.2)', 'fortran_poisson: ', n, ' unknowns on ', nranks, &
      ' rank(s): ', res%iterations, ' CG iterations, residual ', res%true_residual(1), &
      ', max |x - 1| ', error
    print '(a)', trim(merge('fortran_poisson: OK    ', 'fortran_poisson: FAILED', &
                            res%converged .and. error < 1d-6))
  end if
  call gcoo_ksp_destroy(ksp)
  call gcoo_dist_op_destroy(op)
  call gcoo_dist_destroy(d)
  call MPI_Finalize()
  if (.not. (res%converged .and. error < 1d-6)) error stop 1

contains

  logical function inside(c) ! a grid coordinate inside 0 .. g - 1
    integer, intent(in) :: c
    inside = c >= 0 .and. c < g
  end function inside
end program fortran_poisson
