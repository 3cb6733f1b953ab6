/* SPDX-License-Identifier: MIT */
/* src/vec_cpu_impl.h: the block-vector operations of the solver layer on the host, a C template
 * (gcoo/template.h). Blocks are n x k row-major (element (i, j) at data[i * ld + j]) with one
 * scalar per column. Every loop runs over the same static split of the rows into one range per
 * thread (vec_range), so a thread touches the same pages in every pass (vec_fill's first touch
 * places them), and sums are added per thread, then over threads in thread order: the same bits
 * on every run with the same thread count. The kernels take k as a parameter and are inlined
 * into callers that pass a literal 1, so the one-vector case compiles to plain vector loops;
 * raw restrict pointers tell the compiler that the sums do not alias the blocks. */

#define VT GCOO_T

static GCOO_VEC_INLINE void GCOO_FN(vfill_k)(int64_t i0, int64_t i1, int64_t k, VT *restrict y,
                                             int64_t ly, double v) {
  for (int64_t i = i0; i < i1; i++)
    for (int64_t j = 0; j < k; j++) y[i * ly + j] = (VT)v;
}

static gcoo_status GCOO_FN(vec_fill)(gcoo_dense *Y, double v) {
  const int64_t n = Y->nrows, k = Y->ncols, ly = Y->ld;
  VT *y = Y->data;
#pragma omp parallel if (VEC_PAR(n, k))
  {
    int64_t i0, i1;
    vec_range(n, &i0, &i1);
    if (k == 1)
      GCOO_FN(vfill_k)(i0, i1, 1, y, ly, v);
    else
      GCOO_FN(vfill_k)(i0, i1, k, y, ly, v);
  }
  return GCOO_SUCCESS;
}

static GCOO_VEC_INLINE void GCOO_FN(vaxpby_k)(int64_t i0, int64_t i1, int64_t k,
                                              const double *restrict a, const VT *restrict x,
                                              int64_t lx, const double *restrict b, VT *restrict y,
                                              int64_t ly) {
  for (int64_t i = i0; i < i1; i++)
    for (int64_t j = 0; j < k; j++)
      y[i * ly + j] = (VT)(a[j] * (double)x[i * lx + j] + b[j] * (double)y[i * ly + j]);
}

/* Y = a X + b Y; where every b[j] is 0, Y's old values (NaN included) are not read. */
static gcoo_status GCOO_FN(vec_axpby)(const double *a, const gcoo_dense *X, const double *b,
                                      gcoo_dense *Y) {
  const int64_t n = Y->nrows, k = Y->ncols, lx = X->ld, ly = Y->ld;
  const VT *x = X->data;
  VT *y = Y->data;
  int zero_b = 1;
  for (int64_t j = 0; j < k; j++) zero_b &= b[j] == 0.0;
#pragma omp parallel if (VEC_PAR(n, k))
  {
    int64_t i0, i1;
    vec_range(n, &i0, &i1);
    if (zero_b) {
      for (int64_t i = i0; i < i1; i++)
        for (int64_t j = 0; j < k; j++) y[i * ly + j] = (VT)(a[j] * (double)x[i * lx + j]);
    } else if (k == 1 && lx == 1 && ly == 1) {
      GCOO_FN(vaxpby_k)(i0, i1, 1, a, x, 1, b, y, 1);
    } else {
      GCOO_FN(vaxpby_k)(i0, i1, k, a, x, lx, b, y, ly);
    }
  }
  return GCOO_SUCCESS;
}

/* Four dot products of unit-stride vectors over rows [i0, i1): four independent sums (no one
 * addition waits for the last), compiled for each instruction set. */
GCOO_VEC_CLONES static void GCOO_FN(dots4_unit)(int64_t i0, int64_t i1, const VT *x0, const VT *x1,
                                                const VT *x2, const VT *x3, const VT *y0,
                                                const VT *y1, const VT *y2, const VT *y3,
                                                double *out) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
  for (int64_t i = i0; i < i1; i++) {
    s0 += (double)x0[i] * (double)y0[i];
    s1 += (double)x1[i] * (double)y1[i];
    s2 += (double)x2[i] * (double)y2[i];
    s3 += (double)x3[i] * (double)y3[i];
  }
  out[0] += s0;
  out[1] += s1;
  out[2] += s2;
  out[3] += s3;
}

/* y += c0 x0 + c1 x1 + c2 x2 + c3 x3 over rows [i0, i1), unit stride: y read and written once. */
GCOO_VEC_CLONES static void GCOO_FN(maxpy4_unit)(int64_t i0, int64_t i1, const double *c,
                                                 const VT *x0, const VT *x1, const VT *x2,
                                                 const VT *x3, VT *y) {
  const double c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
#pragma omp simd
  for (int64_t i = i0; i < i1; i++)
    y[i] = (VT)((double)y[i] + c0 * x0[i] + c1 * x1[i] + c2 * x2[i] + c3 * x3[i]);
}

/* out[p * k + j] = sum_i X_p(i, j) Y_p(i, j) for the m pairs, in one pass over the rows: the rows
 * go in chunks small enough for L1, and every pair takes its turn on a chunk, so a block that
 * several pairs share (GMRES's w against each basis vector) is read from memory once. Single
 * unit-stride vectors go four pairs at a time. */
static gcoo_status GCOO_FN(vec_dots)(int m, const gcoo_dense *const *X, const gcoo_dense *const *Y,
                                     double *out) {
  const int64_t n = X[0]->nrows, k = X[0]->ncols, mk = (int64_t)m * k;
  int unit = k == 1;
  for (int p = 0; p < m && unit; p++) unit = X[p]->ld == 1 && Y[p]->ld == 1;
  vec_partials part;
  GCOO_CALL(vec_partials_make(&part, mk));
#pragma omp parallel if (VEC_PAR(n, k * m))
  {
    int64_t i0, i1;
    const int t = vec_range(n, &i0, &i1);
    double *restrict acc = vec_partials_slot(&part, t);
    const int64_t chunk = k == 1 ? 512 : (512 + k - 1) / k;
    for (int64_t c0 = i0; c0 < i1; c0 += chunk) {
      const int64_t c1 = c0 + chunk < i1 ? c0 + chunk : i1;
      int p = 0;
      if (unit) /* four at a time; a short last group repeats its first pair, its sums dropped */
        for (; p < m; p += 4) {
          const int q1 = p + 1 < m ? p + 1 : p, q2 = p + 2 < m ? p + 2 : p,
                    q3 = p + 3 < m ? p + 3 : p;
          double o[4] = {0.0, 0.0, 0.0, 0.0};
          GCOO_FN(dots4_unit)
          (c0, c1, X[p]->data, X[q1]->data, X[q2]->data, X[q3]->data, Y[p]->data, Y[q1]->data,
           Y[q2]->data, Y[q3]->data, o);
          acc[p] += o[0];
          if (p + 1 < m) acc[p + 1] += o[1];
          if (p + 2 < m) acc[p + 2] += o[2];
          if (p + 3 < m) acc[p + 3] += o[3];
        }
      for (; p < m; p++) {
        const VT *restrict x = X[p]->data, *restrict y = Y[p]->data;
        const int64_t lx = X[p]->ld, ly = Y[p]->ld;
        if (k == 1) {
          double s = 0.0;
          for (int64_t i = c0; i < c1; i++) s += (double)x[i * lx] * (double)y[i * ly];
          acc[p] += s;
        } else {
          for (int64_t i = c0; i < c1; i++)
            for (int64_t j = 0; j < k; j++)
              acc[p * k + j] += (double)x[i * lx + j] * (double)y[i * ly + j];
        }
      }
    }
  }
  vec_partials_sum(&part, out);
  return GCOO_SUCCESS;
}

/* Y(:, j) += sum_p c[p * k + j] X_p(:, j): chunks of rows of Y stay in L1 while every X_p adds
 * its part; single unit-stride vectors go four at a time, so Y is read and written m / 4 times
 * from L1. */
static gcoo_status GCOO_FN(vec_maxpy)(int m, const double *c, const gcoo_dense *const *X,
                                      gcoo_dense *Y) {
  const int64_t n = Y->nrows, k = Y->ncols, ly = Y->ld;
  VT *y = Y->data;
  int unit = k == 1 && ly == 1;
  for (int p = 0; p < m && unit; p++) unit = X[p]->ld == 1;
#pragma omp parallel if (VEC_PAR(n, k * m))
  {
    int64_t i0, i1;
    vec_range(n, &i0, &i1);
    const int64_t chunk = k == 1 ? 512 : (512 + k - 1) / k;
    for (int64_t c0 = i0; c0 < i1; c0 += chunk) {
      const int64_t c1 = c0 + chunk < i1 ? c0 + chunk : i1;
      int p = 0;
      if (unit)
        for (; p + 4 <= m; p += 4) GCOO_FN(maxpy4_unit)
      (c0, c1, c + p, X[p]->data, X[p + 1]->data, X[p + 2]->data, X[p + 3]->data, y);
      for (; p < m; p++) {
        const VT *restrict x = X[p]->data;
        const int64_t lx = X[p]->ld;
        VT *restrict yy = y;
        if (k == 1) {
          const double cp = c[p];
          if (cp == 0.0) continue;
          for (int64_t i = c0; i < c1; i++) yy[i * ly] = (VT)(yy[i * ly] + cp * x[i * lx]);
        } else {
          for (int64_t i = c0; i < c1; i++)
            for (int64_t j = 0; j < k; j++)
              yy[i * ly + j] = (VT)(yy[i * ly + j] + c[p * k + j] * x[i * lx + j]);
        }
      }
    }
  }
  return GCOO_SUCCESS;
}

/* Blue's three accumulators of column j: out[3j] small values (scaled up), out[3j+1] the
 * mid-range, out[3j+2] big values (scaled down). They are sums, so they add over threads and
 * ranks; gcoo__blue_norm combines them. */
static gcoo_status GCOO_FN(vec_norm_acc)(const gcoo_dense *X, double *out) {
  const int64_t n = X->nrows, k = X->ncols, lx = X->ld;
  const VT *x = X->data;
  vec_partials part;
  GCOO_CALL(vec_partials_make(&part, 3 * k));
#pragma omp parallel if (VEC_PAR(n, k))
  {
    int64_t i0, i1;
    const int t = vec_range(n, &i0, &i1);
    double *restrict acc = vec_partials_slot(&part, t);
    for (int64_t i = i0; i < i1; i++)
      for (int64_t j = 0; j < k; j++) {
        const double ax = fabs((double)x[i * lx + j]);
        if (ax > GCOO_BLUE_TBIG) {
          const double s = ax * GCOO_BLUE_SBIG;
          acc[3 * j + 2] += s * s;
        } else if (ax < GCOO_BLUE_TSML) {
          const double s = ax * GCOO_BLUE_SSML;
          acc[3 * j] += s * s;
        } else {
          acc[3 * j + 1] += ax * ax; /* NaN lands here and stays NaN */
        }
      }
  }
  vec_partials_sum(&part, out);
  return GCOO_SUCCESS;
}

/* Y = d .* X row by row (d: n x 1); Y may be X. */
static gcoo_status GCOO_FN(vec_diag_scale)(const gcoo_dense *d, const gcoo_dense *X,
                                           gcoo_dense *Y) {
  const int64_t n = Y->nrows, k = Y->ncols, lx = X->ld, ly = Y->ld, dl = d->ld;
  const VT *dv = d->data, *x = X->data;
  VT *y = Y->data;
#pragma omp parallel if (VEC_PAR(n, k))
  {
    int64_t i0, i1;
    vec_range(n, &i0, &i1);
    for (int64_t i = i0; i < i1; i++)
      for (int64_t j = 0; j < k; j++) y[i * ly + j] = dv[i * dl] * x[i * lx + j];
  }
  return GCOO_SUCCESS;
}

static GCOO_VEC_INLINE void GCOO_FN(vcg_update_k)(int64_t i0, int64_t i1, int64_t k,
                                                  const double *restrict alpha,
                                                  const VT *restrict p, const VT *restrict q,
                                                  VT *restrict x, VT *restrict r,
                                                  const VT *restrict dv, int64_t dl, int64_t ld,
                                                  double *restrict acc) {
  for (int64_t i = i0; i < i1; i++) {
    const double di = dv ? (double)dv[i * dl] : 0.0;
    for (int64_t j = 0; j < k; j++) {
      const int64_t e = i * ld + j;
      x[e] = (VT)(x[e] + alpha[j] * p[e]);
      const VT ri = (VT)(r[e] - alpha[j] * q[e]);
      r[e] = ri;
      acc[j] += di * (double)ri * (double)ri;
      acc[k + j] += (double)ri * (double)ri;
    }
  }
}

/* CG's update in one pass: X += alpha P, R -= alpha Q, and the local sums out[j] = r^T D^-1 r
 * (dinv given; 0 otherwise) and out[k + j] = r^T r. P, Q, X, R share one leading dimension. */
static gcoo_status GCOO_FN(vec_cg_update)(const double *alpha, const gcoo_dense *P,
                                          const gcoo_dense *Q, gcoo_dense *X, gcoo_dense *R,
                                          const gcoo_dense *dinv, double *out) {
  const int64_t n = R->nrows, k = R->ncols, ld = R->ld;
  const VT *dv = dinv ? dinv->data : NULL;
  const int64_t dl = dinv ? dinv->ld : 0;
  vec_partials part;
  GCOO_CALL(vec_partials_make(&part, 2 * k));
#pragma omp parallel if (VEC_PAR(n, k))
  {
    int64_t i0, i1;
    const int t = vec_range(n, &i0, &i1);
    double *acc = vec_partials_slot(&part, t);
    if (k == 1 && ld == 1 && (!dv || dl == 1)) { /* vectors: sums in registers */
      const VT *restrict p = P->data, *restrict q = Q->data, *restrict d = dv;
      VT *restrict x = X->data, *restrict r = R->data;
      const double a = alpha[0];
      double rz = 0.0, rr = 0.0;
      if (d) {
#pragma omp simd reduction(+ : rz, rr)
        for (int64_t i = i0; i < i1; i++) {
          x[i] = (VT)(x[i] + a * p[i]);
          const VT ri = (VT)(r[i] - a * q[i]);
          r[i] = ri;
          rz += (double)d[i] * (double)ri * (double)ri;
          rr += (double)ri * (double)ri;
        }
      } else {
#pragma omp simd reduction(+ : rr)
        for (int64_t i = i0; i < i1; i++) {
          x[i] = (VT)(x[i] + a * p[i]);
          const VT ri = (VT)(r[i] - a * q[i]);
          r[i] = ri;
          rr += (double)ri * (double)ri;
        }
      }
      acc[0] = rz;
      acc[1] = rr;
    } else if (k == 1)
      GCOO_FN(vcg_update_k)(i0, i1, 1, alpha, P->data, Q->data, X->data, R->data, dv, dl, ld, acc);
    else
      GCOO_FN(vcg_update_k)(i0, i1, k, alpha, P->data, Q->data, X->data, R->data, dv, dl, ld, acc);
  }
  vec_partials_sum(&part, out);
  return GCOO_SUCCESS;
}

static GCOO_VEC_INLINE void GCOO_FN(vcg_direction_k)(int64_t i0, int64_t i1, int64_t k,
                                                     const double *restrict beta,
                                                     const VT *restrict dv, int64_t dl,
                                                     const VT *restrict z, VT *restrict p,
                                                     int64_t ld) {
  for (int64_t i = i0; i < i1; i++) {
    const double di = dv ? (double)dv[i * dl] : 1.0;
    for (int64_t j = 0; j < k; j++)
      p[i * ld + j] = (VT)(di * (double)z[i * ld + j] + beta[j] * (double)p[i * ld + j]);
  }
}

/* CG's next direction: P = D^-1 Z + beta P (dinv given: Z is the residual, the preconditioned
 * one never stored) or P = Z + beta P. */
static gcoo_status GCOO_FN(vec_cg_direction)(const double *beta, const gcoo_dense *dinv,
                                             const gcoo_dense *Z, gcoo_dense *P) {
  const int64_t n = P->nrows, k = P->ncols, ld = P->ld;
  const VT *dv = dinv ? dinv->data : NULL;
  const int64_t dl = dinv ? dinv->ld : 0;
#pragma omp parallel if (VEC_PAR(n, k))
  {
    int64_t i0, i1;
    vec_range(n, &i0, &i1);
    if (k == 1 && ld == 1 && (!dv || dl == 1)) {
      const VT *restrict z = Z->data, *restrict d = dv;
      VT *restrict p = P->data;
      const double b = beta[0];
      if (d) {
#pragma omp simd
        for (int64_t i = i0; i < i1; i++) p[i] = (VT)((double)d[i] * z[i] + b * p[i]);
      } else {
#pragma omp simd
        for (int64_t i = i0; i < i1; i++) p[i] = (VT)(z[i] + b * p[i]);
      }
    } else if (k == 1)
      GCOO_FN(vcg_direction_k)(i0, i1, 1, beta, dv, dl, Z->data, P->data, ld);
    else
      GCOO_FN(vcg_direction_k)(i0, i1, k, beta, dv, dl, Z->data, P->data, ld);
  }
  return GCOO_SUCCESS;
}

static GCOO_VEC_INLINE void GCOO_FN(vpipecg_k)(int64_t i0, int64_t i1, int64_t k, int64_t ld,
                                               const double *restrict alpha,
                                               const double *restrict beta, VT *restrict zv,
                                               VT *restrict qv, VT *restrict sv, VT *restrict pv,
                                               VT *restrict xv, VT *restrict rv, VT *restrict uv,
                                               VT *restrict wv, const VT *restrict nv,
                                               const VT *restrict mv, double *restrict acc) {
  for (int64_t i = i0; i < i1; i++)
    for (int64_t j = 0; j < k; j++) {
      const int64_t e = i * ld + j;
      const double a = alpha[j], b = beta[j];
      const VT z = (VT)(nv[e] + b * zv[e]);
      const VT q = (VT)(mv[e] + b * qv[e]);
      const VT s = (VT)(wv[e] + b * sv[e]);
      const VT p = (VT)(uv[e] + b * pv[e]);
      zv[e] = z;
      qv[e] = q;
      sv[e] = s;
      pv[e] = p;
      xv[e] = (VT)(xv[e] + a * p);
      const VT r = (VT)(rv[e] - a * s);
      const VT u = (VT)(uv[e] - a * q);
      const VT w = (VT)(wv[e] - a * z);
      rv[e] = r;
      uv[e] = u;
      wv[e] = w;
      acc[j] += (double)r * (double)u;         /* gamma = r^T u */
      acc[k + j] += (double)w * (double)u;     /* delta = w^T u */
      acc[2 * k + j] += (double)r * (double)r; /* ||r||^2 */
    }
}

/* Pipelined CG's recurrences and its next sums in one pass (gcoo_vec_ops.pipecg_update). */
static gcoo_status GCOO_FN(vec_pipecg_update)(const double *alpha, const double *beta,
                                              gcoo_dense *const *v, double *out) {
  const int64_t n = v[0]->nrows, k = v[0]->ncols, ld = v[0]->ld;
  vec_partials part;
  GCOO_CALL(vec_partials_make(&part, 3 * k));
#pragma omp parallel if (VEC_PAR(n, k))
  {
    int64_t i0, i1;
    const int t = vec_range(n, &i0, &i1);
    double *acc = vec_partials_slot(&part, t);
    if (k == 1 && ld == 1) { /* vectors: sums in registers */
      VT *restrict zv = v[0]->data, *restrict qv = v[1]->data, *restrict sv = v[2]->data,
                   *restrict pv = v[3]->data, *restrict xv = v[4]->data, *restrict rv = v[5]->data,
                   *restrict uv = v[6]->data, *restrict wv = v[7]->data;
      const VT *restrict nv = v[8]->data, *restrict mv = v[9]->data;
      const double a = alpha[0], b = beta[0];
      double g = 0.0, dl = 0.0, rr = 0.0;
#pragma omp simd reduction(+ : g, dl, rr)
      for (int64_t i = i0; i < i1; i++) {
        const VT z = (VT)(nv[i] + b * zv[i]), q = (VT)(mv[i] + b * qv[i]);
        const VT s = (VT)(wv[i] + b * sv[i]), p = (VT)(uv[i] + b * pv[i]);
        zv[i] = z;
        qv[i] = q;
        sv[i] = s;
        pv[i] = p;
        xv[i] = (VT)(xv[i] + a * p);
        const VT r = (VT)(rv[i] - a * s), u = (VT)(uv[i] - a * q), w = (VT)(wv[i] - a * z);
        rv[i] = r;
        uv[i] = u;
        wv[i] = w;
        g += (double)r * (double)u;
        dl += (double)w * (double)u;
        rr += (double)r * (double)r;
      }
      acc[0] = g;
      acc[1] = dl;
      acc[2] = rr;
    } else {
      GCOO_FN(vpipecg_k)
      (i0, i1, k, ld, alpha, beta, v[0]->data, v[1]->data, v[2]->data, v[3]->data, v[4]->data,
       v[5]->data, v[6]->data, v[7]->data, v[8]->data, v[9]->data, acc);
    }
  }
  vec_partials_sum(&part, out);
  return GCOO_SUCCESS;
}

/* ---- block CG's fused passes (s directions, k columns: P and Q are n x s views of n x k
 * blocks, alpha and beta s x k row-major, one leading dimension ld for every block) ---------- */

static GCOO_VEC_INLINE void GCOO_FN(vbcg_gram2_k)(int64_t i0, int64_t i1, int64_t s, int64_t k,
                                                  int64_t ld, const VT *restrict p,
                                                  const VT *restrict q, const VT *restrict r,
                                                  double *restrict acc) {
  double *restrict pq = acc, *restrict pr = acc + s * s;
  for (int64_t i = i0; i < i1; i++) {
    const VT *restrict pi = p + i * ld, *restrict qi = q + i * ld, *restrict ri = r + i * ld;
    for (int64_t a = 0; a < s; a++) {
      const double pa = pi[a];
      for (int64_t b = 0; b < s; b++) pq[a * s + b] += pa * (double)qi[b];
      for (int64_t b = 0; b < k; b++) pr[a * k + b] += pa * (double)ri[b];
    }
  }
}

/* The kernel on rows [i0, i1), compiled for the common widths and for each instruction set. */
GCOO_VEC_CLONES static void GCOO_FN(vbcg_gram2_rows)(int64_t i0, int64_t i1, int64_t s, int64_t k,
                                                     int64_t ld, const VT *p, const VT *q,
                                                     const VT *r, double *acc) {
  if (s == 8 && k == 8)
    GCOO_FN(vbcg_gram2_k)(i0, i1, 8, 8, ld, p, q, r, acc);
  else if (s == 16 && k == 16)
    GCOO_FN(vbcg_gram2_k)(i0, i1, 16, 16, ld, p, q, r, acc);
  else if (s == 4 && k == 4)
    GCOO_FN(vbcg_gram2_k)(i0, i1, 4, 4, ld, p, q, r, acc);
  else
    GCOO_FN(vbcg_gram2_k)(i0, i1, s, k, ld, p, q, r, acc);
}

/* out = [P^T Q (s x s) | P^T R (s x k)]: one pass over P, Q and R. */
static gcoo_status GCOO_FN(vec_bcg_gram2)(int64_t s, const gcoo_dense *P, const gcoo_dense *Q,
                                          const gcoo_dense *R, double *out) {
  const int64_t n = R->nrows, k = R->ncols, ld = R->ld, cnt = s * s + s * k;
  vec_partials part;
  GCOO_CALL(vec_partials_make(&part, cnt));
#pragma omp parallel if (VEC_PAR(n, k * s))
  {
    int64_t i0, i1;
    const int t = vec_range(n, &i0, &i1);
    double *acc = vec_partials_slot(&part, t);
    GCOO_FN(vbcg_gram2_rows)(i0, i1, s, k, ld, P->data, Q->data, R->data, acc);
  }
  vec_partials_sum(&part, out);
  return GCOO_SUCCESS;
}

static GCOO_VEC_INLINE void GCOO_FN(vbcg_update_k)(int64_t i0, int64_t i1, int64_t s, int64_t k,
                                                   int64_t ld, const double *restrict alpha,
                                                   const VT *restrict p, const VT *restrict q,
                                                   VT *restrict x, VT *restrict r,
                                                   const VT *restrict dv, int64_t dl,
                                                   VT *restrict z, double *restrict acc) {
  double *restrict nr = acc, *restrict qz = acc + k;
  double dx[64], dr[64], zz[64];
  for (int64_t i = i0; i < i1; i++) {
    const VT *restrict pi = p + i * ld, *restrict qi = q + i * ld;
    VT *restrict xi = x + i * ld, *restrict ri = r + i * ld;
    for (int64_t b = 0; b < k; b++) dx[b] = dr[b] = 0.0;
    for (int64_t a = 0; a < s; a++) {
      const double pa = pi[a], qa = qi[a];
      for (int64_t b = 0; b < k; b++) {
        dx[b] += pa * alpha[a * k + b];
        dr[b] += qa * alpha[a * k + b];
      }
    }
    const double di = dv ? (double)dv[i * dl] : 1.0;
    for (int64_t b = 0; b < k; b++) {
      xi[b] = (VT)(xi[b] + dx[b]);
      const VT rb = (VT)(ri[b] - dr[b]);
      ri[b] = rb;
      nr[b] += (double)rb * (double)rb;
      zz[b] = (double)(VT)(di * (double)rb);
      if (z) z[i * ld + b] = (VT)zz[b];
    }
    for (int64_t a = 0; a < s; a++) {
      const double qa = qi[a];
      for (int64_t b = 0; b < k; b++) qz[a * k + b] += qa * zz[b];
    }
  }
}

GCOO_VEC_CLONES static void GCOO_FN(vbcg_update_rows)(int64_t i0, int64_t i1, int64_t s, int64_t k,
                                                      int64_t ld, const double *alpha, const VT *p,
                                                      const VT *q, VT *x, VT *r, const VT *dv,
                                                      int64_t dl, VT *z, double *acc) {
  if (s == 8 && k == 8)
    GCOO_FN(vbcg_update_k)(i0, i1, 8, 8, ld, alpha, p, q, x, r, dv, dl, z, acc);
  else if (s == 16 && k == 16)
    GCOO_FN(vbcg_update_k)(i0, i1, 16, 16, ld, alpha, p, q, x, r, dv, dl, z, acc);
  else
    GCOO_FN(vbcg_update_k)(i0, i1, s, k, ld, alpha, p, q, x, r, dv, dl, z, acc);
}

/* X += P alpha, R -= Q alpha, Z = D^-1 R (dinv NULL: Z = R; Z NULL: not stored), and
 * out = [||R_j||^2 (k) | Q^T Z (s x k)]: one pass. k <= 64. */
static gcoo_status GCOO_FN(vec_bcg_update)(int64_t s, const double *alpha, const gcoo_dense *P,
                                           const gcoo_dense *Q, gcoo_dense *X, gcoo_dense *R,
                                           const gcoo_dense *dinv, gcoo_dense *Z, double *out) {
  const int64_t n = R->nrows, k = R->ncols, ld = R->ld, cnt = k + s * k;
  const VT *dv = dinv ? dinv->data : NULL;
  const int64_t dl = dinv ? dinv->ld : 0;
  VT *z = Z ? Z->data : NULL;
  vec_partials part;
  GCOO_CALL(vec_partials_make(&part, cnt));
#pragma omp parallel if (VEC_PAR(n, k * s))
  {
    int64_t i0, i1;
    const int t = vec_range(n, &i0, &i1);
    double *acc = vec_partials_slot(&part, t);
    GCOO_FN(vbcg_update_rows)
    (i0, i1, s, k, ld, alpha, P->data, Q->data, X->data, R->data, dv, dl, z, acc);
  }
  vec_partials_sum(&part, out);
  return GCOO_SUCCESS;
}

static GCOO_VEC_INLINE void GCOO_FN(vbcg_direction_k)(int64_t i0, int64_t i1, int64_t s, int64_t k,
                                                      int64_t ld, const double *restrict beta,
                                                      const VT *restrict p, const VT *restrict zr,
                                                      const VT *restrict dv, int64_t dl,
                                                      VT *restrict w, double *restrict acc) {
  double ww[64];
  for (int64_t i = i0; i < i1; i++) {
    const VT *restrict pi = p + i * ld, *restrict zi = zr + i * ld;
    VT *restrict wi = w + i * ld;
    const double di = dv ? (double)dv[i * dl] : 1.0;
    for (int64_t b = 0; b < k; b++) ww[b] = di * (double)zi[b];
    for (int64_t a = 0; a < s; a++) {
      const double pa = pi[a];
      for (int64_t b = 0; b < k; b++) ww[b] += pa * beta[a * k + b];
    }
    for (int64_t b = 0; b < k; b++) {
      wi[b] = (VT)ww[b];
      ww[b] = (double)wi[b];
    }
    for (int64_t a = 0; a < k; a++) {
      const double wa = ww[a];
      for (int64_t b = 0; b < k; b++) acc[a * k + b] += wa * ww[b];
    }
  }
}

GCOO_VEC_CLONES static void GCOO_FN(vbcg_direction_rows)(int64_t i0, int64_t i1, int64_t s,
                                                         int64_t k, int64_t ld, const double *beta,
                                                         const VT *p, const VT *zr, const VT *dv,
                                                         int64_t dl, VT *w, double *acc) {
  if (s == 8 && k == 8)
    GCOO_FN(vbcg_direction_k)(i0, i1, 8, 8, ld, beta, p, zr, dv, dl, w, acc);
  else if (s == 16 && k == 16)
    GCOO_FN(vbcg_direction_k)(i0, i1, 16, 16, ld, beta, p, zr, dv, dl, w, acc);
  else
    GCOO_FN(vbcg_direction_k)(i0, i1, s, k, ld, beta, p, zr, dv, dl, w, acc);
}

/* W = D^-1 Z + P beta (dinv NULL: Z + P beta; with dinv, Z is the residual R) and
 * out = W^T W (k x k): one pass. k <= 64. */
static gcoo_status GCOO_FN(vec_bcg_direction)(int64_t s, const double *beta, const gcoo_dense *P,
                                              const gcoo_dense *Z, const gcoo_dense *dinv,
                                              gcoo_dense *W, double *out) {
  const int64_t n = W->nrows, k = W->ncols, ld = W->ld;
  const VT *dv = dinv ? dinv->data : NULL;
  const int64_t dl = dinv ? dinv->ld : 0;
  vec_partials part;
  GCOO_CALL(vec_partials_make(&part, k * k));
#pragma omp parallel if (VEC_PAR(n, k * s))
  {
    int64_t i0, i1;
    const int t = vec_range(n, &i0, &i1);
    double *acc = vec_partials_slot(&part, t);
    GCOO_FN(vbcg_direction_rows)(i0, i1, s, k, ld, beta, P->data, Z->data, dv, dl, W->data, acc);
  }
  vec_partials_sum(&part, out);
  return GCOO_SUCCESS;
}

static GCOO_VEC_INLINE void GCOO_FN(vsmooth_k)(int64_t i0, int64_t i1, int64_t k, double a,
                                               double b, const VT *restrict dv, int64_t dl,
                                               const VT *s, int64_t ls, const VT *restrict w,
                                               int64_t lw, VT *r, int64_t lr, VT *restrict d,
                                               int64_t ld, VT *restrict x, int64_t lx, int x_zero) {
  /* the branches are the same for every row: each is a loop of its own over the k columns */
  for (int64_t i = i0; i < i1; i++) {
    const VT *src = s + i * ls;
    if (w) {
      VT *ri = r + i * lr;
      for (int64_t j = 0; j < k; j++) ri[j] = (VT)((double)src[j] - (double)w[i * lw + j]);
      src = ri; /* the stored residual, as the next step reads it */
    }
    if (!d) continue;
    const double di = b * (double)dv[i * dl];
    VT *restrict dd = d + i * ld, *restrict xx = x + i * lx;
    if (a == 0.0)
      for (int64_t j = 0; j < k; j++) dd[j] = (VT)(di * (double)src[j]);
    else
      for (int64_t j = 0; j < k; j++) dd[j] = (VT)(a * (double)dd[j] + di * (double)src[j]);
    if (x_zero)
      for (int64_t j = 0; j < k; j++) xx[j] = dd[j];
    else
      for (int64_t j = 0; j < k; j++) xx[j] = (VT)((double)xx[j] + (double)dd[j]);
  }
}

/* A polynomial smoother's step (gcoo_vec_ops.smooth_step): R = S - W, D = a D + b dinv R,
 * X += D, one pass over the rows. */
static gcoo_status GCOO_FN(vec_smooth_step)(double a, double b, const gcoo_dense *dinv,
                                            const gcoo_dense *S, const gcoo_dense *W, gcoo_dense *R,
                                            gcoo_dense *D, gcoo_dense *X, int x_zero) {
  const gcoo_dense *shape = D ? D : R;
  const int64_t n = shape->nrows, k = shape->ncols;
  const VT *dv = dinv->data, *s = S->data, *w = W ? W->data : NULL;
  VT *r = R ? R->data : NULL, *dd = D ? D->data : NULL, *x = X ? X->data : NULL;
  const int64_t dl = dinv->ld, ls = S->ld, lw = W ? W->ld : 0, lr = R ? R->ld : 0;
  const int64_t ld = D ? D->ld : 0, lx = X ? X->ld : 0;
#pragma omp parallel if (VEC_PAR(n, k))
  {
    int64_t i0, i1;
    vec_range(n, &i0, &i1);
    if (k == 1)
      GCOO_FN(vsmooth_k)(i0, i1, 1, a, b, dv, dl, s, ls, w, lw, r, lr, dd, ld, x, lx, x_zero);
    else
      GCOO_FN(vsmooth_k)(i0, i1, k, a, b, dv, dl, s, ls, w, lw, r, lr, dd, ld, x, lx, x_zero);
  }
  return GCOO_SUCCESS;
}

#undef VT
