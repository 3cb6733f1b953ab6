! SPDX-License-Identifier: MIT
! fortran/gcoo.F90: module gcoo, the Fortran interface to gcoo (fortran/README.md). One use
! statement gives the constants, handles and records, and every procedure, generic over
! real(c_float) and real(c_double) arrays:
!
!   status   gcoo_last_error, gcoo_status_name, gcoo_strerror, gcoo_clear_error,
!            gcoo_version_string                                        (gcoo/status.h)
!   context  gcoo_ctx_create, _destroy, _backend, _device, _synchronize  (gcoo/ctx.h)
!   sparse   gcoo_sparse_create_csr (0- or 1-based), _destroy, _get_info (gcoo/sparse.h)
!   operator gcoo_op_options_init, gcoo_op_create, gcoo_op_apply, gcoo_op_get_info,
!            gcoo_op_destroy, gcoo_spdm_alg_name                         (gcoo/spdm.h)
! and, when gcoo was built with MPI (the module then uses mpi_f08):
!   dist     gcoo_dist_create (type(MPI_Comm) or integer handle), _destroy, _rank, _size,
!            _comm; gcoo_dist_op_options_init, gcoo_dist_op_create, gcoo_dist_op_apply,
!            gcoo_dist_op_get_row_range, _get_info, _destroy                 (gcoo/dist.h)
!   solver   gcoo_ksp_create, _destroy, gcoo_ksp_options_init, _get_options, _set_options,
!            _set_type, _set_from_string, _get_pc, gcoo_pc_set_type, _get_type, gcoo_ksp_setup,
!            gcoo_ksp_solve, gcoo_ksp_describe, gcoo_ksp_type_name, gcoo_ksp_reason_name,
!            gcoo_pc_type_name                                           (gcoo/ksp.h, pc.h)
! Every procedure that can fail ends with the optional status argument ierr; the arguments the
! binding adds, and those the C library lets one leave out, come after it, by keyword.
module gcoo
  use gcoo_fortran_constants
  use gcoo_fortran_types
  use gcoo_fortran_errors, only: gcoo_last_error, gcoo_clear_error, gcoo_status_name, &
                                 gcoo_strerror, gcoo_version_string
  use gcoo_fortran_local
  use gcoo_fortran_real32
  use gcoo_fortran_real64
#ifdef GCOO_FORTRAN_MPI
  use gcoo_fortran_mpi, only: gcoo_dist_create, gcoo_dist_destroy, gcoo_dist_rank, &
    gcoo_dist_size, gcoo_dist_comm, gcoo_dist_op_options_init, gcoo_dist_op_create, &
    gcoo_dist_op_get_row_range, gcoo_dist_op_get_info, gcoo_dist_op_destroy, gcoo_ksp_type_name, &
    gcoo_ksp_reason_name, gcoo_pc_type_name, gcoo_ksp_create, gcoo_ksp_destroy, &
    gcoo_ksp_options_init, gcoo_ksp_get_options, gcoo_ksp_set_options, gcoo_ksp_set_type, &
    gcoo_ksp_set_from_string, gcoo_ksp_get_pc, gcoo_pc_set_type, gcoo_pc_get_type, &
    gcoo_ksp_setup, gcoo_ksp_describe
#endif
  implicit none
  public
end module gcoo
