/* SPDX-License-Identifier: MIT */
/* cli/cmd_spdm.h: what the files of gcoo_dist spdm share: the job (its options and state) and the
 * steps kept in files of their own (cmd_spdm_check.c: the check against the CPU reference;
 * cmd_spdm_report.c: the report, text or --json). */
#ifndef GCOO_CLI_CMD_SPDM_H
#define GCOO_CLI_CMD_SPDM_H

#include "cmd_files.h"

/* Return a failed gcoo call's status (the CLI sees the public API only). */
#define CALL(x)            \
  do {                     \
    gcoo_status s_ = (x);  \
    if (s_ < 0) return s_; \
  } while (0)

enum { GATHER_NONE = -2, GATHER_ALL = -1, GATHER_ROOT = 0 };
enum { N_SAMPLE = 64 };

typedef struct job {
  /* options */
  const char *a_path, *b_path, *out, *backend;
  int write_flags; /* GCOO_H5_OVERWRITE with --overwrite */
  int stencil;
  int64_t grid, rows, cols, ncols;
  double sparsity;
  uint64_t seed_a, seed_b;
  gcoo_reading reading;
  int alg, repeat, gather, xmode; /* xmode -1: auto */
  gcoo_math math;                 /* --math */
  int overlap;                    /* row blocks of the overlapped product + gather; 0: none */
  int32_t p;
  gcoo_dtype dtype;
  char dtype_source[300]; /* why this dtype: "--dtype", "as stored in A.h5", "default" */
  bool check, json;
  /* state */
  gcoo_dist d;
  gcoo_dist_op op;
  char a_desc[256], b_desc[256];
  int64_t m, k, N, nnz, row0, nrows;
  gcoo_dense Xh, Yh; /* host: X (all rows or own rows), Y slab (row-major nrows x N) */
  gcoo_dense Xd, Yd; /* device copies on the CUDA backend (gcoo_ctx_dense_create) */
  int on_device, bound_at_create;
  double t_bind; /* the device's binding after the read (gcoo_dist_create_unbound) */
  double t_create, t_read, t_setup, t_x, t_h2d, t_kernel, t_kernel_min, t_gather, t_gather_first,
      t_write, t_check, t_total, t_overlap, t_overlap_first;
  double check_err, check_tol;
  int64_t check_rows;
  bool check_pass;
  bool check_failed; /* --check ran and failed: --out is not written */
} job;

/** Check N_SAMPLE rows of Y against the CPU reference (--check); 0 or the exit status. */
int spdm_check(job *j);
/** The report on rank 0's stdout: text, or one JSON object with --json. */
void spdm_report(job *j);

#endif
