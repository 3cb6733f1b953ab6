! SPDX-License-Identifier: MIT
! fortran/gcoo_arrays.f90: what the float and double procedures share to hand Fortran arrays to
! the C library: a CSR matrix from rowptr, colind and values of either index base, and the
! gcoo_dense descriptor of a Fortran array.
!
! How a Fortran array is read (fortran/README.md, "Arrays"): F(m, n) is column-major, so by
! default it is the m x n column-major gcoo_dense on the same memory; with transposed = .true.
! it is the n x m row-major gcoo_dense, F^T, on the same memory again. Sections are read in
! place: the first index must run over consecutive elements, the second may stride (a leading
! dimension, as BLAS's lda). Nothing is copied.
module gcoo_fortran_arrays
  use, intrinsic :: iso_c_binding
  use gcoo_fortran_constants
  use gcoo_fortran_types
  use gcoo_fortran_capi
  use gcoo_fortran_errors
  implicit none
  private
  public :: csr_create, dense_describe, vector_describe

contains

  !> gcoo_sparse_create_csr from Fortran arrays of any index base: rowptr (nrows + 1 offsets
  !> from base), colind (column indices from base) and values (address and length). Base 0
  !> arrays go to the C library as they are; base 1 arrays are shifted into 0-based copies
  !> (the library copies the arrays in any case). The lengths are checked here, because C
  !> cannot see them.
  subroutine csr_create(A, dtype, nrows, ncols, rowptr, colind, values, nvalues, base, flags, st)
    type(gcoo_sparse), intent(out) :: A
    integer(c_int), intent(in) :: dtype
    integer, intent(in) :: nrows, ncols
    integer(c_int64_t), intent(in) :: rowptr(:)
    integer(c_int32_t), intent(in) :: colind(:)
    type(c_ptr), intent(in) :: values
    integer, intent(in) :: nvalues
    integer, intent(in), optional :: base, flags
    integer(c_int), intent(out) :: st
    integer :: b
    integer(c_int) :: f
    integer(c_int64_t) :: nnz
    character(len=160) :: msg
    b = 0
    if (present(base)) b = base
    f = 0
    if (present(flags)) f = int(flags, c_int)
    if (b /= 0 .and. b /= 1) then
      write (msg, '(a,i0,a)') 'gcoo_sparse_create_csr (Fortran): base = ', b, ' (0 or 1)'
      st = raise(GCOO_ERR_INVALID_ARG, trim(msg))
      return
    end if
    if (nrows >= 0 .and. size(rowptr) < int(nrows, c_int64_t) + 1) then
      write (msg, '(a,i0,a,i0,a)') 'gcoo_sparse_create_csr (Fortran): rowptr has ', size(rowptr), &
        ' entries; ', nrows, ' rows need nrows + 1'
      st = raise(GCOO_ERR_SHAPE, trim(msg))
      return
    end if
    if (nrows >= 0) then
      nnz = rowptr(nrows + 1) - b
      if (nnz > size(colind) .or. nnz > nvalues) then
        write (msg, '(a,i0,a,i0,a,i0,a)') 'gcoo_sparse_create_csr (Fortran): rowptr counts ', nnz, &
          ' entries; colind has ', size(colind), ' and values ', nvalues
        st = raise(GCOO_ERR_SHAPE, trim(msg))
        return
      end if
    end if
    if (b == 0) then
      st = c_sparse_create_csr(A%ptr, dtype, int(nrows, c_int64_t), int(ncols, c_int64_t), &
                               rowptr, colind, values, f)
    else
      st = c_sparse_create_csr(A%ptr, dtype, int(nrows, c_int64_t), int(ncols, c_int64_t), &
                               rowptr - 1, colind - 1, values, f)
    end if
  end subroutine csr_create

  ! ---- Fortran arrays as gcoo_dense ---------------------------------------------------------

  !> The gcoo_dense of an m x n Fortran array of element size es (bytes) whose elements (1,1),
  !> (2,1) and (1,2) are at p11, p21, p12 (c_null_ptr where the array has no such element):
  !> column-major m x n, or with transposed the row-major n x m F^T. A one-column array is the
  !> same memory in both layouts: it is described row-major (m x 1, ld 1), the layout the
  !> solver and the partitioned operators ask for.
  subroutine dense_describe(name, dtype, m, n, es, p11, p21, p12, transposed, D, st)
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer, intent(in) :: m, n, es
    type(c_ptr), intent(in) :: p11, p21, p12
    logical, intent(in), optional :: transposed
    type(gcoo_dense_c), intent(out) :: D
    integer(c_int), intent(out) :: st
    integer(c_intptr_t) :: step
    integer(c_int64_t) :: ld
    type(c_ptr) :: data
    logical :: t
    character(len=200) :: msg
    t = .false.
    if (present(transposed)) t = transposed
    st = GCOO_SUCCESS
    ld = max(m, 1)
    if (m > 1) then
      step = address(p21) - address(p11)
      if (step /= es) then
        write (msg, '(6a,i0,2a)') 'gcoo (Fortran): the first index of ', name, ' does not run ', &
          'over consecutive elements (', name, '(1,1) to (2,1): ', step, ' bytes); arrays are ', &
          'read in place, never copied'
        st = raise(GCOO_ERR_INVALID_ARG, trim(msg))
        return
      end if
    end if
    if (n > 1 .and. m > 0) then
      step = address(p12) - address(p11)
      ld = step / es
      if (mod(step, int(es, c_intptr_t)) /= 0 .or. ld < m) then
        write (msg, '(3a,i0,a,i0,a)') 'gcoo (Fortran): the columns of ', name, &
          ' overlap or run backwards (a step of ', step, ' bytes for ', m, ' rows)'
        st = raise(GCOO_ERR_INVALID_ARG, trim(msg))
        return
      end if
    end if
    data = c_null_ptr
    if (m > 0 .and. n > 0) data = p11
    if (t) then
      D = gcoo_dense_c(dtype, GCOO_ROW_MAJOR, GCOO_MEM_HOST, n, m, ld, data, 0)
    else if (n == 1) then
      D = gcoo_dense_c(dtype, GCOO_ROW_MAJOR, GCOO_MEM_HOST, m, 1, 1, data, 0)
    else
      D = gcoo_dense_c(dtype, GCOO_COL_MAJOR, GCOO_MEM_HOST, m, n, ld, data, 0)
    end if
  end subroutine dense_describe

  !> The gcoo_dense of a Fortran vector of n elements, the first two at p1, p2 (the second
  !> c_null_ptr when n < 2): the n x 1 row-major column of the sparse x dense reading, or with
  !> row the 1 x n column-major row of the paper's (dense x sparse) reading; its step is the ld.
  subroutine vector_describe(name, dtype, n, es, p1, p2, row, D, st)
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer, intent(in) :: n, es
    type(c_ptr), intent(in) :: p1, p2
    logical, intent(in) :: row
    type(gcoo_dense_c), intent(out) :: D
    integer(c_int), intent(out) :: st
    integer(c_intptr_t) :: step
    type(c_ptr) :: data
    character(len=160) :: msg
    st = GCOO_SUCCESS
    step = es
    if (n > 1) step = address(p2) - address(p1)
    if (step < es .or. mod(step, int(es, c_intptr_t)) /= 0) then
      write (msg, '(3a,i0,a)') 'gcoo (Fortran): the vector ', name, &
        ' runs backwards or overlaps itself (a step of ', step, ' bytes)'
      st = raise(GCOO_ERR_INVALID_ARG, trim(msg))
      return
    end if
    data = c_null_ptr
    if (n > 0) data = p1
    if (row) then
      D = gcoo_dense_c(dtype, GCOO_COL_MAJOR, GCOO_MEM_HOST, 1, n, step / es, data, 0)
    else
      D = gcoo_dense_c(dtype, GCOO_ROW_MAJOR, GCOO_MEM_HOST, n, 1, step / es, data, 0)
    end if
  end subroutine vector_describe

  integer(c_intptr_t) function address(p)
    type(c_ptr), intent(in) :: p
    address = transfer(p, address)
  end function address
end module gcoo_fortran_arrays
