/* SPDX-License-Identifier: MIT */
/* tests/fortran/t700_layout.c: what the C compiler says about the structs and enumerations the
 * Fortran module mirrors, for t700-fortran.F90 to compare with what gfortran made of its own
 * declarations: each struct's size and the offset of each of its fields in declaration order,
 * and the values of the enumerators that have no name function in the library. */
#include <stddef.h>

#include "gcoo/gcoo.h"

#define FIELD(s, f) offsetof(s, f)

/* Fills out with: size, then the field offsets, of struct number which (the order of t700's
 * list); returns the number of values written, 0 for an unknown which. */
int t700_c_layout(int which, size_t *out) {
  size_t n = 0;
#define PUT(x) out[n++] = (x)
  switch (which) {
    case 0:
      PUT(sizeof(gcoo_sparse_info));
      PUT(FIELD(gcoo_sparse_info, format)), PUT(FIELD(gcoo_sparse_info, dtype));
      PUT(FIELD(gcoo_sparse_info, nrows)), PUT(FIELD(gcoo_sparse_info, ncols));
      PUT(FIELD(gcoo_sparse_info, nnz)), PUT(FIELD(gcoo_sparse_info, p));
      PUT(FIELD(gcoo_sparse_info, ngroups));
      break;
    case 1:
      PUT(sizeof(gcoo_op_options));
      PUT(FIELD(gcoo_op_options, size)), PUT(FIELD(gcoo_op_options, reading));
      PUT(FIELD(gcoo_op_options, alg)), PUT(FIELD(gcoo_op_options, p));
      PUT(FIELD(gcoo_op_options, ncols_hint)), PUT(FIELD(gcoo_op_options, math));
      break;
    case 2:
      PUT(sizeof(gcoo_op_info));
      PUT(FIELD(gcoo_op_info, reading)), PUT(FIELD(gcoo_op_info, dtype));
      PUT(FIELD(gcoo_op_info, alg)), PUT(FIELD(gcoo_op_info, p)), PUT(FIELD(gcoo_op_info, nrows));
      PUT(FIELD(gcoo_op_info, ncols)), PUT(FIELD(gcoo_op_info, nnz));
      PUT(FIELD(gcoo_op_info, setup_seconds)), PUT(FIELD(gcoo_op_info, device_bytes));
      break;
    case 3:
      PUT(sizeof(gcoo_dense));
      PUT(FIELD(gcoo_dense, dtype)), PUT(FIELD(gcoo_dense, layout)), PUT(FIELD(gcoo_dense, mem));
      PUT(FIELD(gcoo_dense, nrows)), PUT(FIELD(gcoo_dense, ncols)), PUT(FIELD(gcoo_dense, ld));
      PUT(FIELD(gcoo_dense, data)), PUT(FIELD(gcoo_dense, owned));
      break;
#if GCOO_HAVE_MPI
    case 4:
      PUT(sizeof(gcoo_dist_op_options));
      PUT(FIELD(gcoo_dist_op_options, size)), PUT(FIELD(gcoo_dist_op_options, local));
      PUT(FIELD(gcoo_dist_op_options, xmode)), PUT(FIELD(gcoo_dist_op_options, shift));
      break;
    case 5:
      PUT(sizeof(gcoo_dist_op_info));
      PUT(FIELD(gcoo_dist_op_info, m_global)), PUT(FIELD(gcoo_dist_op_info, k));
      PUT(FIELD(gcoo_dist_op_info, nnz_global)), PUT(FIELD(gcoo_dist_op_info, nnz_local));
      PUT(FIELD(gcoo_dist_op_info, row0)), PUT(FIELD(gcoo_dist_op_info, nrows_local));
      PUT(FIELD(gcoo_dist_op_info, imbalance)), PUT(FIELD(gcoo_dist_op_info, xmode));
      PUT(FIELD(gcoo_dist_op_info, halo_rows_recv)), PUT(FIELD(gcoo_dist_op_info, halo_rows_send));
      PUT(FIELD(gcoo_dist_op_info, halo_peers)), PUT(FIELD(gcoo_dist_op_info, read_seconds));
      PUT(FIELD(gcoo_dist_op_info, setup_seconds)), PUT(FIELD(gcoo_dist_op_info, local));
      break;
    case 6:
      PUT(sizeof(gcoo_ksp_options));
      PUT(FIELD(gcoo_ksp_options, size)), PUT(FIELD(gcoo_ksp_options, type));
      PUT(FIELD(gcoo_ksp_options, rtol)), PUT(FIELD(gcoo_ksp_options, atol));
      PUT(FIELD(gcoo_ksp_options, dtol)), PUT(FIELD(gcoo_ksp_options, maxit));
      PUT(FIELD(gcoo_ksp_options, restart)), PUT(FIELD(gcoo_ksp_options, cgs_refinement));
      PUT(FIELD(gcoo_ksp_options, block)), PUT(FIELD(gcoo_ksp_options, initial_guess_nonzero));
      PUT(FIELD(gcoo_ksp_options, record_history)), PUT(FIELD(gcoo_ksp_options, monitor));
      PUT(FIELD(gcoo_ksp_options, monitor_ctx));
      break;
    case 7:
      PUT(sizeof(gcoo_ksp_result));
      PUT(FIELD(gcoo_ksp_result, k)), PUT(FIELD(gcoo_ksp_result, iterations));
      PUT(FIELD(gcoo_ksp_result, converged)), PUT(FIELD(gcoo_ksp_result, reason));
      PUT(FIELD(gcoo_ksp_result, reason_column)), PUT(FIELD(gcoo_ksp_result, column_iterations));
      PUT(FIELD(gcoo_ksp_result, column_reason)), PUT(FIELD(gcoo_ksp_result, residual));
      PUT(FIELD(gcoo_ksp_result, true_residual)), PUT(FIELD(gcoo_ksp_result, history));
      PUT(FIELD(gcoo_ksp_result, min_block_rank)), PUT(FIELD(gcoo_ksp_result, t_setup));
      PUT(FIELD(gcoo_ksp_result, t_solve)), PUT(FIELD(gcoo_ksp_result, t_total));
      PUT(FIELD(gcoo_ksp_result, t_spmm)), PUT(FIELD(gcoo_ksp_result, t_pc));
      PUT(FIELD(gcoo_ksp_result, t_reduce)), PUT(FIELD(gcoo_ksp_result, spmm_calls));
      PUT(FIELD(gcoo_ksp_result, pc_calls));
      break;
#endif
    default: return 0;
  }
#undef PUT
  return (int)n;
}

/* The enumerators without a name function, in the order of t700's list; returns their count. */
int t700_c_constants(int *out) {
  int n = 0;
#define PUT(x) out[n++] = (int)(x)
  PUT(GCOO_FLOAT32), PUT(GCOO_FLOAT64);
  PUT(GCOO_FORMAT_COO), PUT(GCOO_FORMAT_CSR), PUT(GCOO_FORMAT_CSC), PUT(GCOO_FORMAT_GCOO);
  PUT(GCOO_ROW_MAJOR), PUT(GCOO_COL_MAJOR), PUT(GCOO_MEM_HOST), PUT(GCOO_MEM_DEVICE);
  PUT(GCOO_DUPLICATES_SUM), PUT(GCOO_DUPLICATES_ERROR), PUT(GCOO_REQUIRE_FINITE);
  PUT(GCOO_KEEP_ZEROS), PUT(GCOO_DEFAULT_P), PUT(GCOO_SPARSE_DENSE), PUT(GCOO_DENSE_SPARSE);
  PUT(GCOO_MATH_EXACT), PUT(GCOO_MATH_TF32);
#if GCOO_HAVE_MPI
  PUT(GCOO_DIST_X_REPLICATED), PUT(GCOO_DIST_X_PARTITIONED);
#endif
#undef PUT
  return n;
}
