! SPDX-License-Identifier: MIT
! fortran/gcoo_errors.f90: statuses and strings. Every procedure of module gcoo returns the C
! library's status in an optional integer argument ierr (PETSc's convention): 0 success, > 0
! information (GCOO_INFO_NOT_CONVERGED), < 0 an error, whose message gcoo_last_error() returns.
! Without ierr, an error prints its status and message on the error unit and stops the program
! (error stop); information is not an error. The few failures the binding finds itself (an
! array too short for the CSR it should hold, a section whose first index does not run over
! consecutive elements) carry the status the C library gives such input and their own message.
module gcoo_fortran_errors
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use gcoo_fortran_constants
  use gcoo_fortran_capi, only: c_strerror, c_status_name, c_last_error, c_clear_error, &
                               c_version_string, c_strlen
  implicit none
  private
  public :: gcoo_last_error, gcoo_clear_error, gcoo_status_name, gcoo_strerror, gcoo_version_string
  public :: finish, raise, kept, from_c, c_chars, c_chars_or_null

  !> the message of the last failure the binding found itself (not thread-local: one thread
  !> at a time should call module gcoo when it relies on messages)
  character(len=:), allocatable, save :: binding_message

contains

  !> The message of the last error: the C library's (gcoo_last_error()) or, when the binding
  !> found the last error itself, the binding's. Empty when nothing failed.
  function gcoo_last_error() result(message)
    character(len=:), allocatable :: message
    message = from_c(c_last_error())
    if (len(message) == 0 .and. allocated(binding_message)) message = binding_message
  end function gcoo_last_error

  !> Forget the last error (the C library's and the binding's).
  subroutine gcoo_clear_error()
    call c_clear_error()
    if (allocated(binding_message)) deallocate (binding_message)
  end subroutine gcoo_clear_error

  !> "GCOO_ERR_SHAPE" for GCOO_ERR_SHAPE (gcoo_status_name).
  function gcoo_status_name(status) result(name)
    integer, intent(in) :: status
    character(len=:), allocatable :: name
    name = from_c(c_status_name(int(status, c_int)))
  end function gcoo_status_name

  !> A short fixed description of a status (gcoo_strerror).
  function gcoo_strerror(status) result(text)
    integer, intent(in) :: status
    character(len=:), allocatable :: text
    text = from_c(c_strerror(int(status, c_int)))
  end function gcoo_strerror

  !> The library's version and what it was built with (gcoo_version_string).
  function gcoo_version_string() result(text)
    character(len=:), allocatable :: text
    text = from_c(c_version_string())
  end function gcoo_version_string

  !> Hand a status to the caller: into ierr when given, else stop the program on an error.
  subroutine finish(status, ierr)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: ierr
    if (present(ierr)) then
      ierr = status
    else if (status < 0) then
      write (error_unit, '(4a)') 'gcoo: ', gcoo_status_name(status), ': ', gcoo_last_error()
      error stop 1
    end if
  end subroutine finish

  !> A failure the binding found: its message becomes the last error; returns status.
  function raise(status, message) result(st)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: message
    integer(c_int) :: st
    call c_clear_error()
    binding_message = message
    st = status
  end function raise

  !> The status of a collective call that went into the C library after the binding had
  !> found a failure on this rank (local < 0, given to C as a descriptor it refuses, so that
  !> every rank fails together): the binding's status and message here, C's on the others.
  function kept(local, st) result(status)
    integer(c_int), intent(in) :: local, st
    integer(c_int) :: status
    status = st
    if (local /= GCOO_SUCCESS) then
      call c_clear_error() ! the binding's message is the last error again
      status = local
    end if
  end function kept

  !> A NUL-terminated C string as a Fortran string ("" for NULL).
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function from_c

  !> s without trailing blanks, NUL-terminated, as the C library reads strings.
  function c_chars(s) result(chars)
    character(len=*), intent(in) :: s
    character(kind=c_char), allocatable :: chars(:)
    integer :: i, n
    n = len_trim(s)
    allocate (chars(n + 1))
    do i = 1, n
      chars(i) = s(i:i)
    end do
    chars(n + 1) = c_null_char
  end function c_chars

  !> The address of chars, made from s when it is present; c_null_ptr when it is not (the C
  !> library's NULL: the default of an optional string).
  function c_chars_or_null(s, chars) result(p)
    character(len=*), intent(in), optional :: s
    character(kind=c_char), allocatable, target, intent(out) :: chars(:)
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(s)) then
      chars = c_chars(s)
      p = c_loc(chars)
    end if
  end function c_chars_or_null
end module gcoo_fortran_errors
