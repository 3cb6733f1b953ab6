/* SPDX-License-Identifier: MIT */
/* cli/cmd_spdm.c: gcoo_dist spdm: Y = A X (or the paper's C = B S) distributed over the
 * ranks, timed per phase, checked against the CPU reference on sampled rows, written in
 * parallel; and the embedded default job (gcoo_dist with no arguments).
 *
 * Everything below is in the A frame of gcoo/dist.h (rows of A = columns of S, X = B^T): a rank
 * owns rows [row0, row0 + nrows) of Y, which in the paper's reading are columns of C, stored as
 * the same bytes (a column slab of a column-major C is a row slab of C^T). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_spdm.h"

static cli_option options[] =
    {{"a", "PATH", NULL,
      "sparse matrix A: .mtx, .mtx.gz or file.h5[:/object] (the paper's S with "
      "--reading dense-sparse)",
      NULL, false},
     CLI_OPT_STENCIL,
     CLI_OPT_GRID("48"),
     {"rows", "R", NULL, "instead of --a: random matrix with R rows (with --cols, --sparsity)",
      NULL, false},
     {"cols", "C", NULL, "columns of the random matrix", NULL, false},
     {"sparsity", "S", "0.99", "fraction of zeros of the random matrix", NULL, false},
     {"seed-a", "N", "1", "seed of the random matrix", NULL, false},
     {"b", "PATH", NULL,
      "dense operand: file.h5:/dataset or a Matrix Market array file.mtx[.gz]; "
      "X (k x N) or, with --reading dense-sparse, B (N x k), each as numpy "
      "writes it (row-major)",
      NULL, false},
     {"ncols", "N", "32", "instead of --b: generated dense operand with N columns (N rows of B)",
      NULL, false},
     {"seed", "S", "7", "seed of the generated dense operand", NULL, false},
     CLI_OPT_OUT("write the product: file.h5[:/dataset] (parallel; dataset /Y when not named; "
                 "dense-sparse: C^T, m x N row-major = C's column-major bytes) or file.mtx[.gz] "
                 "(gathered on rank 0; Y, or C itself)"),
     CLI_OPT_OVERWRITE,
     {"reading", "R", "sparse-dense",
      "sparse-dense (Y = A X, row-major) or dense-sparse (C = B S, "
      "column-major, the paper's)",
      NULL, false},
     CLI_OPT_BACKEND,
     CLI_OPT_SPDM_ALG,
     {"math", "M", "exact",
      "exact (the element type's own arithmetic) or tf32: float on the CUDA backend, auto and "
      "gcoo run the tensor-core mode (TF32 inputs, FP32 sums; about 1e-3 of |A||X| per element, "
      "docs/kernels.md)",
      NULL, false},
     CLI_OPT_P("0", " (0: the backend's default, or the file's groups)"),
     CLI_OPT_DTYPE(NULL, " [default: as --a's file stores it (float64 for Matrix Market); float32 "
                         "for generated matrices]"),
     {"xmode", "M", "auto", "auto, replicated or partitioned (halo exchange; square A)", NULL,
      false},
     {"repeat", "R", "10", "products to time (the median is reported)", NULL, false},
     {"gather", "G", "none",
      "gather the product on rank 0 (root) or every rank (all); none: no gather. Only --gather "
      "root/all and a Matrix Market --out gather; an HDF5 --out writes each rank's rows in "
      "parallel (the same rule for solve's and spgemm's --out; solve iterates on distributed "
      "blocks)",
      NULL, false},
     {"overlap", "B", "0",
      "with --gather root: also time the product and the gather overlapped, the slab in B row "
      "blocks sent as they are computed (replicated sparse-dense; 0: not timed)",
      NULL, false},
     {"check", NULL, NULL, "check 64 sampled rows against the CPU reference (exit 1 on FAIL)", NULL,
      false},
     CLI_OPT_JSON,
     CLI_OPT_END};

/* ---- options ------------------------------------------------------------------------------ */

static bool parse(cli_command *cmd, job *j) {
  long long v;
  double r;
  memset(j, 0, sizeof *j);
  cli_job_files(cmd, &j->a_path, &j->b_path, &j->out, &j->write_flags);
  j->check = cli_flag(cmd, "check");
  j->json = cli_flag(cmd, "json");
  int sources = (j->a_path != NULL) + cli_flag(cmd, "stencil") + cli_flag(cmd, "rows");
  if (sources != 1) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist spdm: give the sparse matrix as exactly one of --a PATH, "
                "--stencil 7|27 (with --grid) or --rows R --cols C (see --help)\n");
    return false;
  }
  if (!cli_stencil(cmd, &j->stencil, &j->grid)) return false;
  if (cli_flag(cmd, "rows")) {
    if (!cli_flag(cmd, "cols")) {
      if (cli_rank() == 0) cli_error("gcoo_dist spdm: --rows needs --cols\n");
      return false;
    }
    if (!cli_int(cmd, "rows", 0, INT32_MAX, &v)) return false;
    j->rows = v;
    if (!cli_int(cmd, "cols", 0, INT32_MAX, &v)) return false;
    j->cols = v;
    if (!cli_real(cmd, "sparsity", 0.0, 1.0, &r)) return false;
    j->sparsity = r;
    if (!cli_int(cmd, "seed-a", 0, INT64_MAX, &v)) return false;
    j->seed_a = (uint64_t)v;
  }
  if (j->b_path && cli_flag(cmd, "ncols")) {
    if (cli_rank() == 0) cli_error("gcoo_dist spdm: give --b PATH or --ncols N, not both\n");
    return false;
  }
  if (!cli_int(cmd, "ncols", 0, INT32_MAX, &v)) return false;
  j->ncols = v;
  if (!cli_int(cmd, "seed", 0, INT64_MAX, &v)) return false;
  j->seed_b = (uint64_t)v;
  static const char *const readings[] = {"sparse-dense", "dense-sparse"};
  int rd;
  if (!cli_choice(cmd, "reading", readings, 2, &rd)) return false;
  j->reading = rd == 0 ? GCOO_SPARSE_DENSE : GCOO_DENSE_SPARSE;
  if (!cli_operator_options(cmd, &j->backend, &j->alg, &j->p)) return false;
  static const char *const maths[] = {"exact", "tf32"};
  int mt;
  if (!cli_choice(cmd, "math", maths, 2, &mt)) return false;
  j->math = mt == 0 ? GCOO_MATH_EXACT : GCOO_MATH_TF32;
  if (!cli_job_dtype(cmd, j->a_path, GCOO_FLOAT32, &j->dtype, j->dtype_source,
                     sizeof j->dtype_source))
    return false;
  if (cli_job_output_check(cmd, j->out, j->a_path, j->b_path) != 0) return false;
  const char *xm = cli_get(cmd, "xmode");
  j->xmode = !strcmp(xm, "auto")          ? -1
             : !strcmp(xm, "replicated")  ? 0
             : !strcmp(xm, "partitioned") ? 1
                                          : -2;
  if (j->xmode == -2) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist spdm: --xmode %s: expected auto, replicated or partitioned\n", xm);
    return false;
  }
  if (!cli_int(cmd, "repeat", 1, 1000000, &v)) return false;
  j->repeat = (int)v;
  if (!cli_int(cmd, "overlap", 0, 4096, &v)) return false;
  j->overlap = (int)v;
  const char *g = cli_get(cmd, "gather");
  j->gather = !strcmp(g, "none")   ? GATHER_NONE
              : !strcmp(g, "root") ? GATHER_ROOT
              : !strcmp(g, "all")  ? GATHER_ALL
                                   : -3;
  if (j->gather == -3) {
    if (cli_rank() == 0) cli_error("gcoo_dist spdm: --gather %s: expected root, all or none\n", g);
    return false;
  }
  return true;
}

/* ---- the sparse operator ------------------------------------------------------------------ */

static bool is_square_file(job *j, gcoo_status *st) {
  /* the shape, from rank 0, to choose the X mode before the operator exists */
  int64_t dims[2] = {-1, -1};
  *st = GCOO_SUCCESS;
  if (cli_rank() == 0) {
    if (gcoo_file_kind_of(j->a_path) == GCOO_FILE_MTX) {
      gcoo_mtx_header h;
      *st = gcoo_mtx_read_header(j->a_path, &h);
      if (*st >= 0) dims[0] = h.nrows, dims[1] = h.ncols;
    } else {
#if GCOO_HAVE_HDF5
      gcoo_h5_info info;
      *st = gcoo_h5_inspect(j->a_path, &info);
      if (*st >= 0) dims[0] = info.nrows, dims[1] = info.ncols;
#endif
    }
  }
  *st = gcoo_dist_agree(j->d, *st);
  MPI_Bcast(dims, 2, MPI_INT64_T, 0, gcoo_dist_comm(j->d));
  return dims[0] >= 0 && dims[0] == dims[1];
}

/* Whole units of p rows (or columns of S) split evenly: generated rows cost about the same. */
static void even_rows(job *j, int64_t m, int64_t *r0, int64_t *r1) {
  const int64_t p = j->p > 0 ? j->p : GCOO_DEFAULT_P, nu = (m + p - 1) / p;
  gcoo_partition part;
  if (gcoo_partition_balanced(NULL, nu, cli_size(), &part) < 0) {
    *r0 = *r1 = 0;
    return;
  }
  *r0 = part.begin[cli_rank()] * p < m ? part.begin[cli_rank()] * p : m;
  *r1 = part.begin[cli_rank() + 1] * p < m ? part.begin[cli_rank() + 1] * p : m;
  gcoo_partition_free(&part);
}

/* This rank's slab of a generated matrix, in the reading's frame. */
static gcoo_status generate_slab(job *j, gcoo_sparse *slab, int64_t *row0, int64_t *m_global) {
  int64_t r0, r1;
  if (j->stencil) {
    /* symmetric: a column slab of S is the same as a row slab of A */
    const int64_t n3 = j->grid * j->grid * j->grid;
    even_rows(j, n3, &r0, &r1);
    gcoo_sparse A = NULL;
    CALL(gcoo_sparse_poisson3d_rows(&A, j->dtype, GCOO_FORMAT_CSR, j->stencil, j->grid, r0, r1, 0));
    if (j->reading == GCOO_DENSE_SPARSE) {
      gcoo_status st = gcoo_sparse_transpose(slab, A);
      gcoo_sparse_destroy(&A);
      CALL(st);
    } else {
      *slab = A;
    }
    *row0 = r0;
    *m_global = n3;
    return GCOO_SUCCESS;
  }
  if (j->reading == GCOO_SPARSE_DENSE) {
    even_rows(j, j->rows, &r0, &r1);
    CALL(gcoo_sparse_random_rows(slab, j->dtype, GCOO_FORMAT_CSR, j->rows, j->cols, j->sparsity,
                                 j->seed_a, 0, r0, r1));
    *row0 = r0;
    *m_global = j->rows;
    return GCOO_SUCCESS;
  }
  /* the paper's reading: S = the random matrix, ranks own column slabs; columns of a row-wise
   * generated matrix need every row, so each rank makes the whole matrix and keeps its slab */
  even_rows(j, j->cols, &r0, &r1);
  gcoo_sparse S = NULL;
  gcoo_sparse_arrays a;
  CALL(gcoo_sparse_random(&S, j->dtype, GCOO_FORMAT_CSC, j->rows, j->cols, j->sparsity, j->seed_a,
                          0));
  gcoo_status st = gcoo_sparse_get_arrays(S, &a);
  int64_t *ptr = malloc(sizeof(int64_t) * (size_t)(r1 - r0 + 1));
  if (!ptr && st >= 0) st = GCOO_ERR_NO_MEMORY;
  if (st >= 0) {
    for (int64_t c = r0; c <= r1; c++) ptr[c - r0] = a.ptr[c] - a.ptr[r0];
    st = gcoo_sparse_create_csc(slab, j->dtype, j->rows, r1 - r0, ptr, a.ind + a.ptr[r0],
                                (const char *)a.values +
                                    (size_t)a.ptr[r0] * gcoo_dtype_size(j->dtype),
                                0);
  }
  free(ptr);
  gcoo_sparse_destroy(&S);
  CALL(st);
  *row0 = r0;
  *m_global = j->cols;
  return GCOO_SUCCESS;
}

static gcoo_status build_operator(job *j) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  o.local.reading = j->reading;
  o.local.alg = (gcoo_spdm_alg)j->alg;
  o.local.math = j->math;
  o.local.p = j->p;
  o.local.ncols_hint = j->ncols;
  double t0 = MPI_Wtime();
  if (j->a_path) {
    int square = is_square_file(j, &st);
    CALL(st);
    /* a file B in the paper's reading is read whole (its column slabs are strided in the file) */
    o.xmode = j->xmode >= 0 ? (gcoo_dist_xmode)j->xmode
              : square && !(j->b_path && j->reading == GCOO_DENSE_SPARSE) ? GCOO_DIST_X_PARTITIONED
                                                                          : GCOO_DIST_X_REPLICATED;
    cli_progress("reading %s", j->a_path);
    CALL(gcoo_dist_op_create_from_file(j->d, j->a_path, j->dtype, &o, &j->op));
    snprintf(j->a_desc, sizeof j->a_desc, "%s", j->a_path);
  } else {
    gcoo_sparse slab = NULL;
    int64_t row0 = 0, m = 0;
    int square = j->stencil || j->rows == j->cols;
    o.xmode = j->xmode >= 0 ? (gcoo_dist_xmode)j->xmode
              : square      ? GCOO_DIST_X_PARTITIONED
                            : GCOO_DIST_X_REPLICATED;
    cli_progress("generating the sparse matrix");
    st = gcoo_dist_agree(j->d, generate_slab(j, &slab, &row0, &m));
    if (st < 0) return st;
    st = gcoo_dist_op_create(j->d, slab, row0, m, &o, &j->op);
    gcoo_sparse_destroy(&slab);
    CALL(st);
    if (j->stencil)
      snprintf(j->a_desc, sizeof j->a_desc, "3-D Poisson %d-point, %lld^3 grid", j->stencil,
               (long long)j->grid);
    else
      snprintf(j->a_desc, sizeof j->a_desc, "random %lld x %lld, sparsity %g, seed %llu",
               (long long)j->rows, (long long)j->cols, j->sparsity, (unsigned long long)j->seed_a);
  }
  gcoo_dist_op_info info;
  CALL(gcoo_dist_op_get_info(j->op, &info));
  j->m = info.m_global;
  j->k = info.k;
  j->nnz = info.nnz_global;
  j->row0 = info.row0;
  j->nrows = info.nrows_local;
  /* read = everything before the local operator's setup (file I/O and scatter, or generation)
   * but the device's binding after it (the wait for the GPU's start-up, reported apart) */
  gcoo_dist_info di;
  CALL(gcoo_dist_get_info(j->d, &di));
  double total = MPI_Wtime() - t0, setup = info.setup_seconds;
  const double bind = j->bound_at_create || gcoo_ctx_device(gcoo_dist_ctx(j->d)) < 0
                          ? 0.0
                          : di.bind_seconds;
  double mine[3] = {total - setup - bind, setup, bind}, worst[3];
  MPI_Allreduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(j->d));
  j->t_read = worst[0];
  j->t_setup = worst[1];
  j->t_bind = worst[2];
  if (j->a_path) cli_progress_rate("read", j->a_path, cli_file_mbytes(j->a_path), j->t_read);
  return GCOO_SUCCESS;
}

/* ---- the dense operand ------------------------------------------------------------------- */

/* Rows of X this rank holds: all k (REPLICATED) or its own (PARTITIONED). */
static void x_rows(job *j, int64_t *x0, int64_t *nx) {
  gcoo_dist_op_info info;
  gcoo_dist_op_get_info(j->op, &info);
  if (info.xmode == GCOO_DIST_X_PARTITIONED)
    *x0 = j->row0, *nx = j->nrows;
  else
    *x0 = 0, *nx = j->k;
}

static int is_partitioned(job *j) {
  gcoo_dist_op_info info;
  gcoo_dist_op_get_info(j->op, &info);
  return info.xmode == GCOO_DIST_X_PARTITIONED;
}

/* Whether the dense operands of the ranks on each host fit its memory, checked before any of
 * them is allocated (as spgemm refuses a product predicted past the job's memory): X (all k
 * rows, or this rank's), this rank's rows of Y, a Matrix Market --b (read whole on every rank),
 * a gathered product (--gather, a Matrix Market --out on rank 0). An operand that fails this
 * bound cannot be made on that host (a GPU run keeps host copies of Y and the file's X); one
 * that passes it may still fail at allocation, as before. 0, or an exit code (reported). */
static int dense_fits(job *j, int64_t N, int64_t b_rows_read) {
  const double es = (double)gcoo_dtype_size(j->dtype), n = (double)N, m = (double)j->m;
  int64_t x0, nx;
  x_rows(j, &x0, &nx);
  const int rank = cli_rank();
  double mine = es * n * ((double)nx + (double)j->nrows + (double)b_rows_read);
  if (j->gather == GATHER_ALL || (j->gather == GATHER_ROOT && rank == 0)) mine += es * m * n;
  if (j->out && cli_file_kind_of(j->out) == CLI_FILE_MTX && rank == 0) mine += es * m * n;
  MPI_Comm host;
  double need = mine;
  int nhost = 1;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) ==
      MPI_SUCCESS) {
    MPI_Allreduce(&mine, &need, 1, MPI_DOUBLE, MPI_SUM, host);
    MPI_Comm_size(host, &nhost);
    MPI_Comm_free(&host);
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
  int first = have > 0.0 && need > have ? rank : INT32_MAX;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT32_MAX) return 0;
  if (rank == first)
    cli_error("gcoo_dist: rank %d: the dense operands of %lld columns need %.3g bytes of memory on "
              "this host (its %d rank%s: X %lld x %lld %s, rows of Y%s), more than its %.3g bytes: "
              "refused before allocating them (use fewer columns%s, or ranks on more hosts)\n",
              rank, (long long)N, need, nhost, nhost == 1 ? "" : "s", (long long)j->k, (long long)N,
              nx == j->k ? "replicated on each" : "partitioned",
              j->gather == GATHER_NONE ? "" : ", the gathered Y", have,
              nx == j->k && j->k > j->nrows ? ", --xmode partitioned" : "");
  return 1;
}

/* X (k x N) row-major, which is B (N x k) column-major: generated (one random stream per row of
 * X, so every rank makes exactly the rows it holds) or read from the file. Returns 0 or an exit
 * code (the failure is reported). */
static int make_x(job *j) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t x0, nx;
  double t0 = MPI_Wtime();
  x_rows(j, &x0, &nx);
  if (!j->b_path) {
    if (dense_fits(j, j->ncols, 0)) return 1;
    j->N = j->ncols;
    snprintf(j->b_desc, sizeof j->b_desc, "random, %lld columns, seed %llu", (long long)j->N,
             (unsigned long long)j->seed_b);
    gcoo_ctx ctx = gcoo_dist_ctx(j->d);
    if (gcoo_ctx_device(ctx) >= 0) {
      /* made on the GPU, the same values (one stream per row): no host copy, no upload; Xh
       * keeps only the shape (the check regenerates the rows it needs) */
      st = gcoo_ctx_dense_create(ctx, &j->Xd, j->dtype, GCOO_ROW_MAJOR, nx, j->N, GCOO_MEM_DEVICE);
      if (st >= 0) st = gcoo_ctx_dense_fill_random_rows(ctx, &j->Xd, j->seed_b, x0);
      if (st >= 0) st = gcoo_ctx_synchronize(ctx);
      j->Xh = gcoo_dense_wrap(NULL, j->dtype, GCOO_ROW_MAJOR, nx, j->N, j->N > 0 ? j->N : 1);
    } else {
      st = gcoo_dense_create(&j->Xh, j->dtype, GCOO_ROW_MAJOR, nx, j->N);
      if (st >= 0) st = gcoo_dense_fill_random_rows(&j->Xh, j->seed_b, x0);
    }
    st = gcoo_dist_agree(j->d, st);
    if (st < 0) return cli_report("generating the dense operand", st);
  } else {
    /* the file's shape first, so that disagreeing inner dimensions get a clear message */
    int64_t dims[3] = {-1, -1, 0};
    if (cli_rank() == 0) {
      int sparse = 0;
      st = cli_dense_shape(j->b_path, &dims[0], &dims[1], &sparse);
      dims[2] = sparse;
      if (st < 0 && !cli_explain_whole_file("spdm", "b", j->b_path, true, st))
        cli_fail(j->b_path, st);
    }
    if (cli_agree(st) < 0) return 1; /* rank 0 said why */
    MPI_Bcast(dims, 3, MPI_INT64_T, 0, gcoo_dist_comm(j->d));
    if (!cli_require(cli_rank() != 0 || !dims[2],
                     "--b %s holds a sparse matrix; the dense operand must be a 2-D dataset or a "
                     "Matrix Market array file",
                     j->b_path))
      return 1;
    const int ds = j->reading == GCOO_DENSE_SPARSE;
    const int64_t inner = ds ? dims[1] : dims[0];
    if (!cli_require(cli_rank() != 0 || inner == j->k,
                     "inner dimensions disagree: %s %lld x %lld needs %s with %lld %s, but %s is "
                     "%lld x %lld",
                     ds ? "S" : "A", (long long)(ds ? j->k : j->m), (long long)(ds ? j->m : j->k),
                     ds ? "B" : "X", (long long)j->k, ds ? "columns" : "rows", j->b_path,
                     (long long)dims[0], (long long)dims[1]))
      return 1;
    if (!cli_require(cli_rank() != 0 || !(ds && is_partitioned(j)),
                     "--xmode partitioned with --reading dense-sparse needs a generated B "
                     "(--ncols): column slabs of a file's B are not contiguous; use --xmode "
                     "replicated"))
      return 1;
    j->N = ds ? dims[0] : dims[1];
    if (dense_fits(j, j->N, cli_file_kind_of(j->b_path) == CLI_FILE_MTX || ds ? j->k : 0)) return 1;
    snprintf(j->b_desc, sizeof j->b_desc, "%s", j->b_path);
    cli_progress("reading %s", j->b_path);
    if (ds) {
      /* B (N x k), row-major in the file, read column-major: the bytes of X (k x N) row-major */
      gcoo_dense B;
      st = cli_dense_read_rows(gcoo_dist_comm(j->d), j->b_path, j->dtype, 0, dims[0],
                               GCOO_COL_MAJOR, &B);
      if (st >= 0) {
        j->Xh = gcoo_dense_wrap(B.data, j->dtype, GCOO_ROW_MAJOR, B.ncols, B.nrows, B.ld);
        j->Xh.owned = B.owned;
      }
    } else {
      st = cli_dense_read_rows(gcoo_dist_comm(j->d), j->b_path, j->dtype, x0, nx, GCOO_ROW_MAJOR,
                               &j->Xh);
    }
    st = cli_agree(st);
    if (st < 0) return cli_report(j->b_path, st);
  }
  double mine = MPI_Wtime() - t0;
  MPI_Allreduce(&mine, &j->t_x, 1, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(j->d));
  return 0;
}

/* ---- device buffers (CUDA backend) -------------------------------------------------------- */

static int to_device(job *j) {
  j->on_device = gcoo_ctx_device(gcoo_dist_ctx(j->d)) >= 0;
  if (!j->on_device) return 0;
  gcoo_ctx ctx = gcoo_dist_ctx(j->d);
  const size_t es = gcoo_dtype_size(j->dtype);
  size_t xb = (size_t)(j->Xh.nrows * j->Xh.ld) * es, yb = (size_t)(j->nrows * j->N) * es;
  double t0 = MPI_Wtime();
  const int x_there = j->Xd.data != NULL; /* generated on the device (make_x) */
  gcoo_status st = x_there ? GCOO_SUCCESS
                           : gcoo_ctx_dense_create(ctx, &j->Xd, j->dtype, GCOO_ROW_MAJOR,
                                                   j->Xh.nrows, j->Xh.ncols, GCOO_MEM_DEVICE);
  if (st >= 0)
    st = gcoo_ctx_dense_create(ctx, &j->Yd, j->dtype, GCOO_ROW_MAJOR, j->nrows, j->N,
                               GCOO_MEM_DEVICE);
  if (st >= 0 && !x_there) st = gcoo_ctx_dense_copy(ctx, &j->Xd, &j->Xh);
  if (st >= 0) st = gcoo_ctx_synchronize(ctx);
  if (!cli_require(st >= 0, "moving %zu + %zu bytes to GPU %d: %s", xb, yb, gcoo_ctx_device(ctx),
                   gcoo_last_error()))
    return 1;
  double mine = MPI_Wtime() - t0;
  MPI_Allreduce(&mine, &j->t_h2d, 1, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(j->d));
  return 0;
}

static int from_device(job *j) {
  if (!j->on_device || !j->Yh.data) return 0;
  gcoo_status st = gcoo_ctx_dense_copy(gcoo_dist_ctx(j->d), &j->Yh, &j->Yd);
  if (!cli_require(st >= 0, "copying the product from the GPU: %s", gcoo_last_error())) return 1;
  return 0;
}

static void free_device(job *j) {
  if (j->Xd.data) (void)gcoo_ctx_dense_destroy(gcoo_dist_ctx(j->d), &j->Xd);
  if (j->Yd.data) (void)gcoo_ctx_dense_destroy(gcoo_dist_ctx(j->d), &j->Yd);
  memset(&j->Xd, 0, sizeof j->Xd);
  memset(&j->Yd, 0, sizeof j->Yd);
}

/* Operand descriptors in the reading's terms, on the host or the device. */
static void operands(job *j, int device, gcoo_dense *X, gcoo_dense *Y) {
  void *xd = device ? j->Xd.data : j->Xh.data, *yd = device ? j->Yd.data : j->Yh.data;
  const int64_t nx = j->Xh.nrows, N = j->N, ld = N > 0 ? N : 1;
  if (j->reading == GCOO_SPARSE_DENSE) {
    *X = gcoo_dense_wrap(xd, j->dtype, GCOO_ROW_MAJOR, nx, N, ld);
    *Y = gcoo_dense_wrap(yd, j->dtype, GCOO_ROW_MAJOR, j->nrows, N, ld);
  } else { /* B = X^T (N x nx), C_slab = Y^T (N x nrows), column-major */
    *X = gcoo_dense_wrap(xd, j->dtype, GCOO_COL_MAJOR, N, nx, ld);
    *Y = gcoo_dense_wrap(yd, j->dtype, GCOO_COL_MAJOR, N, j->nrows, ld);
  }
  X->mem = Y->mem = device ? GCOO_MEM_DEVICE : GCOO_MEM_HOST;
}

/* ---- the products ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int run_products(job *j) {
  if (to_device(j)) return 1;
  /* a host Y only where something reads it there: the CPU backend's product, or --out. The
   * gather sends the device slab; the report's sums and the check's rows come from the device
   * (gcoo_ctx_dense_sums, sampled rows): no copy-back of 4.1M x 32 (0.15 s on an H200 node) */
  gcoo_status st = GCOO_SUCCESS;
  if (!j->on_device || j->out)
    st = gcoo_dense_create(&j->Yh, j->dtype, GCOO_ROW_MAJOR, j->nrows, j->N);
  st = gcoo_dist_agree(j->d, st);
  if (st < 0) return cli_report("allocating the product", st);
  gcoo_dense X, Y;
  operands(j, j->on_device, &X, &Y);
  double *times = calloc((size_t)j->repeat, sizeof *times);
  MPI_Comm comm = gcoo_dist_comm(j->d);
  cli_progress("%d product%s of %lld x %lld (nnz %lld) with %lld columns", j->repeat,
               j->repeat > 1 ? "s" : "", (long long)j->m, (long long)j->k, (long long)j->nnz,
               (long long)j->N);
  for (int r = 0; r < j->repeat && st >= 0; r++) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    st = gcoo_dist_op_apply(j->op, 1.0, &X, 0.0, &Y);
    if (st >= 0) st = gcoo_dist_agree(j->d, gcoo_ctx_synchronize(gcoo_dist_ctx(j->d)));
    double mine = MPI_Wtime() - t0;
    /* a distributed product takes as long as its slowest rank */
    MPI_Allreduce(&mine, &times[r], 1, MPI_DOUBLE, MPI_MAX, comm);
  }
  if (st < 0) {
    free(times);
    return cli_report("multiplying", st);
  }
  qsort(times, (size_t)j->repeat, sizeof *times, cmp_double);
  j->t_kernel = j->repeat % 2 ? times[j->repeat / 2]
                              : 0.5 * (times[j->repeat / 2 - 1] + times[j->repeat / 2]);
  j->t_kernel_min = times[0];
  free(times);
  return from_device(j);
}

static int gather(job *j) {
  if (j->gather == GATHER_NONE) return 0;
  const int recv = j->gather == GATHER_ALL || cli_rank() == 0;
  gcoo_dense full = {0}, fdev = {0}, Xs, Ys, F;
  gcoo_status st = GCOO_SUCCESS;
  if (recv) st = gcoo_dense_create(&full, j->dtype, GCOO_ROW_MAJOR, j->m, j->N);
  if (recv && st >= 0 && j->on_device)
    st = gcoo_ctx_dense_create(gcoo_dist_ctx(j->d), &fdev, j->dtype, GCOO_ROW_MAJOR, j->m, j->N,
                               GCOO_MEM_DEVICE);
  st = gcoo_dist_agree(j->d, st);
  if (st < 0) {
    gcoo_dense_destroy(&full);
    return cli_report("allocating the gathered product", st);
  }
  operands(j, j->on_device, &Xs, &Ys);
  const int64_t ld = j->N > 0 ? j->N : 1;
  void *fdata = j->on_device ? fdev.data : full.data;
  F = j->reading == GCOO_SPARSE_DENSE
          ? gcoo_dense_wrap(fdata, j->dtype, GCOO_ROW_MAJOR, j->m, j->N, ld)
          : gcoo_dense_wrap(fdata, j->dtype, GCOO_COL_MAJOR, j->N, j->m, ld);
  F.mem = Ys.mem;
  cli_progress("gathering the product %s", j->gather == GATHER_ALL ? "on every rank" : "on rank 0");
  /* The first gather also sets up the transport (NCCL opens its peer connections at the first
   * send/receive: ~130 ms on two H200s); like the product, the gather is then timed on repeats
   * and the median reported, the first one separately (gather_first). */
  const int reps = 1 + (j->repeat < 5 ? j->repeat : 5);
  double times[6];
  for (int r = 0; r < reps && st >= 0; r++) {
    MPI_Barrier(gcoo_dist_comm(j->d));
    double t0 = MPI_Wtime();
    st = gcoo_dist_gather_rows(j->d, &Ys, j->gather == GATHER_ALL ? -1 : 0, recv ? &F : NULL);
    double mine = MPI_Wtime() - t0;
    MPI_Allreduce(&mine, &times[r], 1, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(j->d));
  }
  if (st >= 0) {
    j->t_gather_first = times[0];
    if (reps > 1) {
      qsort(times + 1, (size_t)(reps - 1), sizeof times[0], cmp_double);
      j->t_gather = times[1 + (reps - 1) / 2];
    } else {
      j->t_gather = times[0];
    }
  }
  /* the product and the gather overlapped (gcoo_dist_pipeline, dist/gather_overlap.c): timed
   * like the gather, against kernel + gather above */
  if (st >= 0 && j->overlap > 0 && j->gather == GATHER_ROOT) {
    gcoo_dist_pipeline pl = NULL;
    st = gcoo_dist_pipeline_create(j->op, j->overlap, &pl);
    for (int r = 0; r < reps && st >= 0; r++) {
      MPI_Barrier(gcoo_dist_comm(j->d));
      double t0 = MPI_Wtime();
      st = gcoo_dist_pipeline_apply_gather(pl, 1.0, &Xs, &Ys, 0, recv ? &F : NULL);
      double mine = MPI_Wtime() - t0;
      MPI_Allreduce(&mine, &times[r], 1, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(j->d));
    }
    gcoo_dist_pipeline_destroy(&pl);
    if (st >= 0) {
      j->t_overlap_first = times[0];
      qsort(times + 1, (size_t)(reps - 1), sizeof times[0], cmp_double);
      j->t_overlap = reps > 1 ? times[1 + (reps - 1) / 2] : times[0];
    }
    /* the root's Y slab is not written by the overlapped path: the product again, for --check */
    if (st >= 0) st = gcoo_dist_op_apply(j->op, 1.0, &Xs, 0.0, &Ys);
    if (st >= 0 && j->on_device) st = gcoo_ctx_synchronize(gcoo_dist_ctx(j->d));
    st = gcoo_dist_agree(j->d, st);
    if (st < 0) {
      if (fdev.data) (void)gcoo_ctx_dense_destroy(gcoo_dist_ctx(j->d), &fdev);
      gcoo_dense_destroy(&full);
      return cli_report("product and gather overlapped", st);
    }
  }
  if (fdev.data) (void)gcoo_ctx_dense_destroy(gcoo_dist_ctx(j->d), &fdev);
  gcoo_dense_destroy(&full);
  if (st < 0) return cli_report("gathering", st);
  return 0;
}

static int write_out(job *j) {
  if (!j->out) return 0;
  const int ds = j->reading == GCOO_DENSE_SPARSE;
  cli_progress("writing %s", j->out);
  MPI_Barrier(gcoo_dist_comm(j->d));
  double t0 = MPI_Wtime();
  gcoo_status st;
  if (cli_file_kind_of(j->out) == CLI_FILE_MTX) {
    /* the product as the reading names it: Y (m x N), or C = B S (N x m) */
    st = cli_write_mtx_dense_rows(gcoo_dist_comm(j->d), j->out, j->m, &j->Yh, ds);
  } else {
#if GCOO_HAVE_HDF5
    /* rows of Y; in the paper's reading the same bytes are rows of C^T (an n x M dataset) */
    char target[4096];
    const char *path = cli_h5_dataset(j->out, cli_dense_output_object(&cmd_spdm, j->out), target,
                                      sizeof target);
    st = gcoo_h5_write_dense_rows(gcoo_dist_comm(j->d), path, j->m, j->row0, &j->Yh,
                                  j->write_flags);
#else
    st = cli_agree(GCOO_ERR_UNSUPPORTED);
#endif
  }
  double mine = MPI_Wtime() - t0;
  MPI_Allreduce(&mine, &j->t_write, 1, MPI_DOUBLE, MPI_MAX, gcoo_dist_comm(j->d));
  if (st < 0) return cli_report(j->out, st);
  cli_progress_rate("wrote", j->out, cli_file_mbytes(j->out), j->t_write);
  return 0;
}

/* ---- the command -------------------------------------------------------------------------- */

static int run_job(job *j) {
  int rc = 0;
  double t0 = MPI_Wtime();
  /* the disk starts on this rank's share of an HDF5 input now (unless the whole file was asked
   * for before MPI_Init); the read then finds it in memory, while the GPU's context (begun on a
   * thread in main) is still being made. A hint: a file it cannot use is reported by the read
   * itself. */
#if GCOO_HAVE_HDF5
  if (j->a_path && cli_fast_startup() && !cli_input_prefetched() &&
      cli_file_kind_of(j->a_path) == CLI_FILE_H5)
    (void)gcoo_h5_prefetch(j->a_path, cli_rank(), cli_size());
#endif
  /* unbound: the GPU whose context the thread of main() is making is bound when the operator
   * is set up, after the file is read (gcoo_dist_create_unbound); GCOO_FAST_STARTUP=0 binds
   * here, as a plain gcoo_dist_create does */
  const char *backend = j->backend && !strcmp(j->backend, "gpu") ? "cuda" : j->backend;
  j->bound_at_create = !cli_fast_startup();
  gcoo_status st = j->bound_at_create ? gcoo_dist_create(&j->d, MPI_COMM_WORLD, backend)
                                      : gcoo_dist_create_unbound(&j->d, MPI_COMM_WORLD, backend);
  if (st < 0) return cli_report("starting", st);
  j->t_create = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &j->t_create, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  st = build_operator(j);
  if (st < 0) {
    const char *opt[] = {"a"}, *path[] = {j->a_path};
    rc = cli_report_file("spdm", opt, path, j->a_path ? 1 : 0,
                         j->a_path ? j->a_path : "building the matrix", st);
  }
  if (!rc) rc = make_x(j);
  if (!rc) rc = run_products(j);
  if (!rc) rc = gather(j);
  /* checked before it is written: a result that fails its check is never published */
  if (!rc) rc = spdm_check(j);
  j->check_failed = !rc && j->check && !j->check_pass;
  if (!rc && !j->check_failed) rc = write_out(j);
  j->t_total = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &j->t_total, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (!rc) spdm_report(j);
  if (!rc && j->check_failed) {
    if (j->out && cli_rank() == 0)
      cli_error("gcoo_dist spdm: the check failed: %s was not written\n", j->out);
    rc = 1;
  }
  /* a process that leaves with _exit (a GPU was used) has the driver and the kernel take back
   * its device and host memory in one go: the frees one by one, the context's stream
   * synchronisation and its handles' destruction are skipped (the report is out, every output
   * renamed into place) */
  if (cli_quick_exit()) return rc;
  free_device(j);
  gcoo_dense_destroy(&j->Xh);
  gcoo_dense_destroy(&j->Yh);
  gcoo_dist_op_destroy(&j->op);
  gcoo_dist_destroy(&j->d);
  return rc;
}

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  job j;
  if (!parse(cmd, &j)) return 2;
  return run_job(&j);
}

cli_command cmd_spdm = {
    "spdm",
    "Y = A X, sparse A times dense X, distributed (GCOO kernel)",
    "(--a PATH | --stencil 7|27 [--grid n] | --rows R --cols C) (--b PATH | --ncols N) [options]",
    "Each rank owns a contiguous block of rows of A (whole GCOO groups; columns of S in the\n"
    "paper's reading C = B S) balanced by nnz, reads or generates only that block, and multiplies\n"
    "it on its GPU (or CPU). X is replicated on every rank, or partitioned like the rows of A\n"
    "when A is square (each product then exchanges only the rows other ranks need). Times are\n"
    "the slowest rank's; the product time is the median of --repeat runs.\n"
    "Example: mpirun -np 4 gcoo_dist spdm --a A.h5 --ncols 64 --check --json",
    options,
    run};

/* gcoo_dist with no arguments: the same command on an embedded problem that runs anywhere in
 * seconds: 3-D Poisson (7-point, 48^3 = 110,592 rows), 32 random columns, checked. */
int cli_default_job(void) {
  static char *args[] = {"--stencil", "7",        "--grid", "48",     "--ncols",
                         "32",        "--repeat", "5",      "--check"};
  cli_out("%s\ndefault job: gcoo_dist spdm --stencil 7 --grid 48 --ncols 32 --repeat 5 --check\n"
          "(gcoo_dist --help lists the commands)\n\n",
          gcoo_version_string());
  if (cli_parse(&cmd_spdm, (int)(sizeof args / sizeof args[0]), args) != 0) return 2;
  job j;
  if (!parse(&cmd_spdm, &j)) return 2;
  return run_job(&j);
}
