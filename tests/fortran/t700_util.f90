! SPDX-License-Identifier: MIT
! tests/fortran/t700_util.f90: what the parts of t700-fortran share: counting checks and
! failures (each failure printed with the rank and what failed), looking into messages, and a
! seeded generator that gives every rank the same numbers.
module t700_util
  use, intrinsic :: iso_fortran_env, only: error_unit, real64
  implicit none
  private
  public :: check, check_status, contains_text, seed, failures, checks, rank, nranks

  integer :: failures = 0, checks = 0, rank = 0, nranks = 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
      failures = failures + 1
      write (error_unit, '(a,i0,2a)') 't700-fortran: rank ', rank, ': FAILED: ', what
    end if
  end subroutine check

  !> ierr is want, and (when piece is given) the message names piece.
  subroutine check_status(ierr, want, message, piece, what)
    integer, intent(in) :: ierr, want
    character(len=*), intent(in) :: message, piece, what
    character(len=24) :: got
    write (got, '(i0)') ierr
    call check(ierr == want, what // ': status ' // trim(got))
    if (len(piece) > 0) &
      call check(contains_text(message, piece), what // ": message '" // message // &
                 "' does not say '" // piece // "'")
  end subroutine check_status

  logical function contains_text(text, piece)
    character(len=*), intent(in) :: text, piece
    contains_text = index(text, piece) > 0
  end function contains_text

  !> Seed Fortran's generator alike on every rank.
  subroutine seed(s)
    integer, intent(in) :: s
    integer :: n, i
    integer, allocatable :: v(:)
    call random_seed(size=n)
    allocate (v(n))
    v = [(s * 7919 + 104729 * i, i = 1, n)]
    call random_seed(put=v)
  end subroutine seed
end module t700_util
