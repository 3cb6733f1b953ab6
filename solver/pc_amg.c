/* SPDX-License-Identifier: MIT */
/* solver/pc_amg.c: smoothed aggregation AMG as a preconditioner (Vanek, Mandel, Brezina 1996;
 * DESIGN.md §5): the hierarchy's set-up and the table of gcoo_pc_ops. The steps live in
 * solver/amg/ (amg_impl.h lists them). Per level of the set-up:
 *
 *   diagonal, rho(D^-1 A) (Lanczos)              smoother and damping
 *   strength, aggregates (rank-local)            amg_aggregate.c
 *   P_t from the near-null space (QR)            amg_prolong.c
 *   P = (I - w D^-1 A) P_t, w = damping / rho    A P_t by SpGEMM
 *   R = P^T, formed once                         amg_galerkin.c
 *   A_c = R (A P)                                two SpGEMMs with the predictor
 *   coarse rows on fewer ranks when few          the coarse partition
 *
 * until the level has at most coarse_size rows (or max_levels, or coarsening stalls); the
 * coarsest is factored densely. A numeric re-setup (gcoo_ksp_set_operator with same_pattern)
 * keeps the aggregates, the tentative prolongators and the partitions, and recomputes the
 * values: the operators' diagonals and spectra, the smoothed prolongators and the Galerkin
 * products (the library's SpGEMM has no separate symbolic pass to keep). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg/amg_impl.h"

/* Lanczos steps of the spectral estimate (PETSc's Chebyshev estimate runs 10 as well). */
#define AMG_RHO_STEPS 10

static void level_release(amg_level *L, int keep_pattern) {
  gcoo_sparse_destroy(&L->A);
  if (L->own_op) gcoo_dist_op_destroy(&L->Aop);
  L->Aop = NULL;
  L->own_op = 0;
  free(L->diag);
  L->diag = NULL;
  gcoo_dense_destroy(&L->dinv);
  gcoo_sparse_destroy(&L->P);
  gcoo_dist_op_destroy(&L->Pop);
  gcoo_dist_op_destroy(&L->Rop);
  gcoo_sparse_destroy(&L->Bc);
  if (!keep_pattern) {
    free(L->agg);
    L->agg = NULL;
    gcoo_sparse_destroy(&L->Pt);
    free(L->row_begin);
    L->row_begin = NULL;
  }
}

static void amg_free(amg *H) {
  if (!H) return;
  gcoo__amg_workspace_free(H);
  for (int l = 0; l < H->nlevels; l++) level_release(&H->level[l], 0);
  gcoo__amg_coarse_free(&H->coarse);
  free(H);
}

static int64_t sum_i64(amg *H, int64_t v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_SUM, gcoo_dist_comm(H->d));
  return v;
}

/* The diagonal of the level's rows and the smoother's inverse: 1 / a_ii (Chebyshev) or
 * 1 / sum_j |a_ij| (l1-Jacobi); a zero row is left alone (0). */
static gcoo_status level_diagonal(amg *H, amg_level *L, const gcoo_amg_options *o) {
  gcoo_csr_view v;
  GCOO_CALL(gcoo__amg_view(L->A, &v));
  const double *av = v.values;
  free(L->diag);
  L->diag = NULL;
  gcoo_dense_destroy(&L->dinv);
  GCOO_CALL(gcoo__calloc((void **)&L->diag, (size_t)L->n + 1, sizeof *L->diag, "AMG diagonal"));
  GCOO_CALL(gcoo_dense_create(&L->dinv, H->dtype, GCOO_ROW_MAJOR, L->n, 1));
  double *inv = NULL;
  GCOO_CALL(gcoo__malloc_n((void **)&inv, L->n + 1, sizeof *inv, "AMG diagonal"));
  for (int64_t i = 0; i < L->n; i++) {
    double l1 = 0.0;
    for (int64_t e = v.ptr[i]; e < v.ptr[i + 1]; e++) {
      if (v.ind[e] == L->row0 + i) L->diag[i] += av[e];
      l1 += fabs(av[e]);
    }
    const double dd = o->smoother == GCOO_AMG_L1_JACOBI ? l1 : L->diag[i];
    inv[i] = dd != 0.0 && isfinite(dd) ? 1.0 / dd : 0.0;
  }
  amg_put(inv, &L->dinv);
  free(inv);
  return GCOO_SUCCESS;
}

/* The level's operator for the cycle (levels > 0): its rows in the element type, PARTITIONED. */
static gcoo_status level_operator(amg *H, amg_level *L) {
  gcoo_sparse Ad = NULL;
  gcoo_dist_op_options oo = GCOO_DIST_OP_OPTIONS_INIT;
  oo.xmode = GCOO_DIST_X_PARTITIONED;
  gcoo_status st = gcoo__amg_as_dtype(L->A, H->dtype, &Ad);
  GCOO_CALL(gcoo_dist_agree(H->d, st));
  GCOO_CALL(gcoo__dist_op_create_rect(H->d, &Ad, L->row0, L->n_global, L->row_begin, &oo, &L->Aop));
  L->own_op = 1;
  return GCOO_SUCCESS;
}

/* A rectangular operator (P or R) of the cycle from a copy of the rows M (double). */
static gcoo_status transfer_operator(amg *H, gcoo_sparse M, int64_t row0, int64_t m_global,
                                     const int64_t *xbegin, gcoo_dist_op *op) {
  gcoo_sparse Md = NULL;
  gcoo_dist_op_options oo = GCOO_DIST_OP_OPTIONS_INIT;
  oo.xmode = GCOO_DIST_X_PARTITIONED;
  gcoo_status st = gcoo__amg_as_dtype(M, H->dtype, &Md);
  GCOO_CALL(gcoo_dist_agree(H->d, st));
  GCOO_CALL(gcoo__dist_op_create_rect(H->d, &Md, row0, m_global, xbegin, &oo, op));
  return GCOO_SUCCESS;
}

/* The coarse partition: rank r's aggregates own coarse rows [c0[r], c0[r + 1]); when the level
 * would have fewer than min_rows_per_rank rows a rank, they move to q < ranks ranks, rank r's
 * rows to rank floor(r q / size) (a contiguous, order-keeping merge). */
static void coarse_partition(const int64_t *c0, int size, int64_t min_rows, int64_t *cb,
                             int *ranks) {
  const int64_t nc = c0[size];
  int active = 0;
  for (int r = 0; r < size; r++) active += c0[r + 1] > c0[r];
  int q = active;
  if (min_rows > 0 && active > 1 && nc < (int64_t)active * min_rows) {
    q = (int)(nc / min_rows);
    if (q < 1) q = 1;
  }
  if (q >= active) {
    memcpy(cb, c0, (size_t)(size + 1) * sizeof *cb);
    *ranks = active;
    return;
  }
  for (int o = 0; o <= size; o++) {
    const int64_t r = o >= q ? size
                             : ((int64_t)o * size + q - 1) / q; /* first r: r q / size >= o */
    cb[o] = c0[r];
  }
  *ranks = q;
}

/* The next level's near-null space (its rows under the coarse partition cb) from this rank's
 * rows under c0 (na x b, row-major). */
static gcoo_status move_nullspace(amg *H, const double *Bc, int b, const int64_t *c0,
                                  const int64_t *cb, double **out) {
  gcoo_status st = GCOO_SUCCESS;
  const int rank = gcoo_dist_rank(H->d), size = gcoo_dist_size(H->d);
  const int64_t na = c0[rank + 1] - c0[rank], nnew = cb[rank + 1] - cb[rank];
  int32_t *rows = NULL, *colm = NULL;
  gcoo_sparse S = NULL;
  *out = NULL;
  GCOO_CALL(
      gcoo__calloc((void **)out, (size_t)(nnew * b) + 1, sizeof **out, "AMG near-null space"));
  if (size == 1 || memcmp(c0, cb, (size_t)(size + 1) * sizeof *cb) == 0) {
    memcpy(*out, Bc, (size_t)(na * b) * sizeof *Bc);
    return GCOO_SUCCESS;
  }
  st = gcoo__malloc_n((void **)&rows, na * b + 1, sizeof *rows, "AMG near-null space");
  if (st >= 0) st = gcoo__malloc_n((void **)&colm, na * b + 1, sizeof *colm, "AMG near-null space");
  GCOO_GOTO(gcoo_dist_agree(H->d, st));
  for (int64_t i = 0; i < na; i++)
    for (int m = 0; m < b; m++) {
      rows[i * b + m] = (int32_t)(c0[rank] + i);
      colm[i * b + m] = m;
    }
  GCOO_GOTO(gcoo__dist_redistribute(H->d, cb, b, GCOO_FLOAT64, na * b, rows, colm, Bc, &S));
  gcoo_csr_view v;
  GCOO_GOTO(gcoo__amg_view(S, &v));
  for (int64_t i = 0; i < v.nrows; i++)
    for (int64_t e = v.ptr[i]; e < v.ptr[i + 1]; e++)
      (*out)[i * b + v.ind[e]] = ((const double *)v.values)[e];
done:
  free(rows);
  free(colm);
  gcoo_sparse_destroy(&S);
  if (st < 0) {
    free(*out);
    *out = NULL;
  }
  return st;
}

/* Level l + 1 from level l (*stalled: none, level l is the coarsest). With reuse, the aggregates, P_t and the partitions of an earlier
 * set-up on the same pattern are kept. *B (this level's near-null space, n x *b) becomes the
 * next level's. */
static gcoo_status coarsen(amg *H, const gcoo_amg_options *o, int l, int reuse, double **B, int *b,
                           int *stalled) {
  gcoo_status st = GCOO_SUCCESS;
  amg_level *L = &H->level[l], *C = &H->level[l + 1];
  gcoo_amg_info *I = &H->info;
  const int rank = gcoo_dist_rank(H->d), size = gcoo_dist_size(H->d);
  int64_t *c0 = NULL;
  double *Bc = NULL;
  gcoo_sparse APt = NULL, R = NULL, AP = NULL, Ac = NULL;
  int64_t pred_apt = 0, pred_ap = 0, pred_rap = 0;
  double t = gcoo__wtime();
  if (!reuse) {
    /* aggregates and the coarse partition */
    double ts = 0.0;
    st = gcoo__malloc_n((void **)&L->agg, L->n / L->bs + 1, sizeof *L->agg, "AMG aggregates");
    if (st >= 0) st = gcoo__amg_aggregate(L, o->theta, L->agg, &L->nagg, &ts);
    if (st >= 0) st = gcoo__malloc_n((void **)&c0, size + 1, sizeof *c0, "AMG partition");
    if (st >= 0) st = gcoo__malloc_n((void **)&C->row_begin, size + 1, sizeof *c0, "partition");
    GCOO_GOTO(gcoo_dist_agree(H->d, st));
    int64_t nc = L->nagg * *b;
    GCOO_GOTO(
        GCOO_MPI(MPI_Allgather(&nc, 1, MPI_INT64_T, c0 + 1, 1, MPI_INT64_T, gcoo_dist_comm(H->d))));
    c0[0] = 0;
    for (int r = 0; r < size; r++) c0[r + 1] += c0[r];
    if (c0[size] == 0 || c0[size] * 10 > L->n_global * 9) {
      /* coarsening stalled (no strong connections left, or under 10 % fewer rows): this level
       * is the coarsest */
      *stalled = 1;
      free(L->agg);
      L->agg = NULL;
      free(C->row_begin);
      memset(C, 0, sizeof *C);
      goto done;
    }
    coarse_partition(c0, size, o->min_rows_per_rank, C->row_begin, &C->ranks);
    C->n_global = c0[size];
    C->row0 = C->row_begin[rank];
    C->n = C->row_begin[rank + 1] - C->row0;
    C->bs = *b;
    I->t_strength += ts;
    I->t_aggregate += gcoo__wtime() - t - ts;
    /* the tentative prolongator and the coarse near-null space */
    t = gcoo__wtime();
    st = gcoo__malloc_n((void **)&Bc, L->nagg * *b * *b + 1, sizeof *Bc, "AMG coarse modes");
    if (st >= 0) st = gcoo__amg_tentative(L, *B, *b, c0[rank], C->n_global, &L->Pt, Bc);
    GCOO_GOTO(gcoo_dist_agree(H->d, st));
    double *Bnext = NULL;
    GCOO_GOTO(move_nullspace(H, Bc, *b, c0, C->row_begin, &Bnext));
    free(*B);
    *B = Bnext;
  }
  /* the smoothed prolongator, its operator and its transpose */
  t = gcoo__wtime();
  double tp[8];
  const double w = L->rho > 0.0 ? o->prolongator_damping / L->rho : 0.0;
  GCOO_GOTO(gcoo__amg_dist_product(H, L->Aop, L->A, L->row0, L->n, L->Pt, &APt, &pred_apt));
  tp[0] = gcoo__wtime();
  st = gcoo__amg_smooth_prolongator(APt, L->Pt, L->diag, w, &L->P);
  GCOO_GOTO(gcoo_dist_agree(H->d, st));
  gcoo_sparse_destroy(&APt);
  tp[1] = gcoo__wtime();
  GCOO_GOTO(gcoo__amg_restriction(H, L->P, L->row0, L->n_global, C->row_begin, &R));
  tp[2] = gcoo__wtime();
  GCOO_GOTO(transfer_operator(H, L->P, L->row0, L->n_global, C->row_begin, &L->Pop));
  GCOO_GOTO(transfer_operator(H, R, C->row0, C->n_global, L->row_begin, &L->Rop));
  tp[3] = gcoo__wtime();
  I->t_prolongator += tp[3] - t;
  /* the Galerkin product A_c = R (A P) */
  GCOO_GOTO(gcoo__amg_dist_product(H, L->Aop, L->A, L->row0, L->n, L->P, &AP, &pred_ap));
  tp[4] = gcoo__wtime();
  GCOO_GOTO(gcoo__amg_dist_product(H, L->Rop, R, L->row0, L->n, AP, &Ac, &pred_rap));
  tp[5] = gcoo__wtime();
  gcoo_sparse_destroy(&C->A);
  C->A = Ac;
  Ac = NULL;
  GCOO_GOTO(level_operator(H, C));
  tp[6] = gcoo__wtime();
  I->t_galerkin += tp[6] - tp[3];
  GCOO_LOG(GCOO_LOG_INFO, "AMG",
           "level %d -> %d: A P_t %.4f s, smoothing %.4f, transpose %.4f, P and R operators "
           "%.4f, A P %.4f, R (A P) %.4f, A_c operator %.4f",
           l, l + 1, tp[0] - t, tp[1] - tp[0], tp[2] - tp[1], tp[3] - tp[2], tp[4] - tp[3],
           tp[5] - tp[4], tp[6] - tp[5]);
  {
    gcoo_sparse_info pi, ai;
    st = gcoo_sparse_get_info(L->P, &pi);
    if (st >= 0) st = gcoo_sparse_get_info(AP, &ai);
    GCOO_GOTO(gcoo_dist_agree(H->d, st));
    if (l + 1 < 32) {
      gcoo_amg_level_info *li = &I->level[l + 1];
      li->nnz_p = sum_i64(H, pi.nnz);
      li->nnz_ap = sum_i64(H, ai.nnz);
      li->nnz_predicted_ap = sum_i64(H, pred_ap);
      li->nnz_predicted_rap = sum_i64(H, pred_rap);
    }
  }
  /* the fine level keeps only what the cycle and a numeric re-setup need: its host rows and
   * P live on in their operators */
  gcoo_sparse_destroy(&L->P);
  gcoo_sparse_destroy(&L->A);
done:
  free(c0);
  free(Bc);
  gcoo_sparse_destroy(&APt);
  gcoo_sparse_destroy(&R);
  gcoo_sparse_destroy(&AP);
  gcoo_sparse_destroy(&Ac);
  return st;
}

/* Rows, entries, ranks, diagonal and spectrum of level l (its A set). */
static gcoo_status level_facts(amg *H, const gcoo_amg_options *o, int l, int coarsest) {
  amg_level *L = &H->level[l];
  gcoo_sparse_info ai;
  gcoo_status st = gcoo_sparse_get_info(L->A, &ai);
  if (st >= 0) st = level_diagonal(H, L, o);
  GCOO_CALL(gcoo_dist_agree(H->d, st));
  L->nnz_global = sum_i64(H, ai.nnz);
  int has = L->n > 0;
  GCOO_CALL(GCOO_MPI(MPI_Allreduce(MPI_IN_PLACE, &has, 1, MPI_INT, MPI_SUM, gcoo_dist_comm(H->d))));
  L->ranks = has;
  L->rho = 0.0;
  if (!coarsest) {
    const double t = gcoo__wtime();
    GCOO_CALL(gcoo__amg_rho(H, L, AMG_RHO_STEPS, &L->rho));
    H->info.t_smoother += gcoo__wtime() - t;
  }
  return GCOO_SUCCESS;
}

/* Level 0 from the solver's operator: its rows (double), partition and block size. */
static gcoo_status finest_level(amg *H, gcoo_pc pc) {
  amg_level *L = &H->level[0];
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse slab = NULL;
  const int size = gcoo_dist_size(H->d);
  L->Aop = pc->A;
  L->own_op = 0;
  L->bs = pc->coords.data ? pc->block_size : 1;
  st = gcoo_dist_op_get_row_range(pc->A, &L->row0, &L->n);
  if (st >= 0) st = gcoo_dist_op_get_local_matrix(pc->A, &slab);
  gcoo_sparse_destroy(&L->A);
  if (st >= 0) {
    if (H->dtype == GCOO_FLOAT64)
      L->A = slab, slab = NULL;
    else
      st = gcoo_sparse_astype(&L->A, slab, GCOO_FLOAT64);
  }
  if (st >= 0 && L->n % L->bs != 0)
    st = GCOO_ERROR(GCOO_ERR_SHAPE,
                    "rank %d holds %lld rows, not whole nodes of %d unknowns (block size)",
                    gcoo_dist_rank(H->d), (long long)L->n, L->bs);
  if (st >= 0 && !L->row_begin)
    st = gcoo__malloc_n((void **)&L->row_begin, size + 1, sizeof *L->row_begin, "partition");
  gcoo_sparse_destroy(&slab);
  GCOO_CALL(gcoo_dist_agree(H->d, st));
  GCOO_CALL(GCOO_MPI(MPI_Allgather(&L->n, 1, MPI_INT64_T, L->row_begin + 1, 1, MPI_INT64_T,
                                   gcoo_dist_comm(H->d))));
  L->row_begin[0] = 0;
  for (int r = 0; r < size; r++) L->row_begin[r + 1] += L->row_begin[r];
  L->n_global = L->row_begin[size];
  return GCOO_SUCCESS;
}

static gcoo_status amg_build(gcoo_pc pc, amg *H, int reuse) {
  gcoo_status st = GCOO_SUCCESS;
  const gcoo_amg_options *o = &pc->amg;
  double *B = NULL;
  int b = 1;
  const double t0 = gcoo__wtime();
  memset(&H->info, 0, sizeof H->info);
  gcoo__amg_workspace_free(H);
  gcoo__amg_coarse_free(&H->coarse);
  for (int l = 0; l < H->nlevels; l++) level_release(&H->level[l], reuse);
  GCOO_CALL(finest_level(H, pc));
  if (!reuse) {
    st = gcoo__amg_nullspace(pc, H->level[0].n, &B, &b);
    GCOO_CALL(gcoo_dist_agree(H->d, st));
    int bmax = b;
    MPI_Allreduce(MPI_IN_PLACE, &bmax, 1, MPI_INT, MPI_MAX, gcoo_dist_comm(H->d));
    GCOO_CHECK(bmax == b, GCOO_ERR_INVALID_ARG, "ranks gave near-null spaces of %d and %d vectors",
               b, bmax);
    H->nullspace_dim = b;
  }
  int l = 0;
  for (;; l++) {
    amg_level *L = &H->level[l];
    int coarsest;
    if (reuse) {
      coarsest = l == H->nlevels - 1;
    } else {
      coarsest = L->n_global <= o->coarse_size || l + 1 >= o->max_levels || l + 1 >= 32;
    }
    GCOO_GOTO(level_facts(H, o, l, coarsest));
    if (coarsest) break;
    if (!reuse) H->nlevels = l + 2; /* so that a failure frees the level being made */
    int stalled = 0;
    GCOO_GOTO(coarsen(H, o, l, reuse, &B, &b, &stalled));
    if (stalled) break;
  }
  H->nlevels = l + 1;
  {
    const double t = gcoo__wtime();
    GCOO_GOTO(gcoo__amg_coarse_setup(H, &H->level[l]));
    H->info.t_coarse = gcoo__wtime() - t;
  }
  GCOO_GOTO(gcoo__amg_reserve(H, 1));
  /* the levels' host rows served the set-up only (their operators hold their own copies; a
   * numeric re-setup makes them again): their memory goes back now */
  for (int j = 0; j < H->nlevels; j++) gcoo_sparse_destroy(&H->level[j].A);
  /* the report */
  gcoo_amg_info *I = &H->info;
  I->levels = H->nlevels;
  double rows = 0.0, nnz = 0.0;
  for (int j = 0; j < H->nlevels; j++) {
    const amg_level *L = &H->level[j];
    if (j < 32) {
      I->level[j].rows = L->n_global;
      I->level[j].nnz = L->nnz_global;
      I->level[j].ranks = L->ranks;
      I->level[j].rho = L->rho;
    }
    rows += (double)L->n_global;
    nnz += (double)L->nnz_global;
  }
  I->grid_complexity = rows / (double)(H->level[0].n_global ? H->level[0].n_global : 1);
  I->operator_complexity = nnz / (double)(H->level[0].nnz_global ? H->level[0].nnz_global : 1);
  I->t_total = gcoo__wtime() - t0;
done:
  free(B);
  return st;
}

static gcoo_status amg_setup(gcoo_pc pc) {
  amg *H = pc->data;
  gcoo_dist d = gcoo_dist_op_get_dist(pc->A);
  gcoo_ctx ctx = gcoo_dist_ctx(d);
  gcoo_dist_op_info oi;
  GCOO_CALL(gcoo_dist_op_get_info(pc->A, &oi));
  GCOO_CHECK(GCOO_HAVE_LAPACK, GCOO_ERR_UNSUPPORTED,
             "the AMG preconditioner needs LAPACK (QR per aggregate, the coarsest level's "
             "factorisation): rebuild with BLAS/LAPACK found (liblapack-dev, libopenblas-dev)");
  GCOO_CHECK(ctx->ops->device == NULL, GCOO_ERR_UNSUPPORTED,
             "the AMG preconditioner runs on the CPU backend (its device kernels are not written "
             "yet): make the operator on a CPU context");
  GCOO_CHECK(oi.xmode == GCOO_DIST_X_PARTITIONED, GCOO_ERR_INVALID_ARG,
             "AMG needs a PARTITIONED operator (X rows split like Y rows)");
  /* a numeric re-setup needs the hierarchy of an operator of the same rows on every rank */
  int reuse = H && pc->same_pattern && H->nlevels > 0 && H->dtype == oi.local.dtype &&
              H->level[0].row0 == oi.row0 && H->level[0].n == oi.nrows_local &&
              H->level[0].n_global == oi.m_global;
  int all = reuse;
  GCOO_CALL(GCOO_MPI(MPI_Allreduce(&reuse, &all, 1, MPI_INT, MPI_MIN, gcoo_dist_comm(d))));
  reuse = all;
  if (H && !reuse) {
    amg_free(H);
    pc->data = H = NULL;
  }
  if (!H) {
    GCOO_CALL(gcoo__calloc((void **)&H, 1, sizeof *H, "AMG hierarchy"));
    pc->data = H;
  }
  H->d = d;
  H->ctx = ctx;
  H->dtype = oi.local.dtype;
  GCOO_CALL(amg_build(pc, H, reuse));
  GCOO_LOG(GCOO_LOG_INFO, "AMG",
           "%s set-up: %d levels, %lld -> %lld rows, operator complexity %.3f, %.3f s",
           reuse ? "numeric" : "full", H->info.levels, (long long)H->level[0].n_global,
           (long long)H->level[H->nlevels - 1].n_global, H->info.operator_complexity,
           H->info.t_total);
  return GCOO_SUCCESS;
}

static gcoo_status amg_apply(gcoo_pc pc, const gcoo_dense *R, gcoo_dense *Z) {
  amg *H = pc->data;
  GCOO_CHECK(H != NULL, GCOO_ERR_INTERNAL, "AMG applied without a hierarchy");
  GCOO_CHECK(R->mem == GCOO_MEM_HOST && Z->mem == GCOO_MEM_HOST, GCOO_ERR_UNSUPPORTED,
             "the AMG preconditioner takes host blocks (device blocks wait for its GPU kernels)");
  GCOO_CALL(gcoo__amg_cycle_apply(H, &pc->amg, R, Z));
  return GCOO_SUCCESS;
}

static void amg_destroy(gcoo_pc pc) {
  amg_free(pc->data);
  pc->data = NULL;
}

static void amg_describe(gcoo_pc pc, char *buf, size_t len) {
  const amg *H = pc->data;
  if (H && H->nlevels > 0)
    snprintf(buf, len, "amg (%d levels, operator complexity %.2f)", H->info.levels,
             H->info.operator_complexity);
  else
    snprintf(buf, len, "amg");
}

const gcoo_pc_ops gcoo__pc_amg_ops = {"amg", amg_setup, amg_apply, amg_destroy, amg_describe};

gcoo_status gcoo__amg_info(gcoo_pc pc, gcoo_amg_info *info) {
  const amg *H = pc->data;
  GCOO_CHECK(H != NULL, GCOO_ERR_INVALID_ARG, "no AMG hierarchy");
  *info = H->info;
  return GCOO_SUCCESS;
}
