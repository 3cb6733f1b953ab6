/* SPDX-License-Identifier: MIT */
/* bench/spdm_gen.c: structured benchmark inputs that fill a GPU, beside the 3-D stencils of
 * gcoo/generate.h: an R-MAT power-law graph, block-diagonal tilings of a real matrix, and the
 * Kronecker product of a real matrix with a dense b x b block (every node of M becomes b
 * unknowns with identical column patterns, as in FEM with b degrees of freedom per node: the
 * case where a group of rows shares its columns). Values are deterministic and nonzero. Only
 * the benchmark uses them, so they live here rather than in src/. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spdm_bench.h"

/* R-MAT (Chakrabarti, Zhan, Faloutsos 2004): 2^scale nodes, edge_factor * 2^scale edges, each
 * placed by descending the quadrants with probabilities a, b, c, d = 0.57, 0.19, 0.19, 0.05.
 * Repeated edges are summed (gcoo_sparse_create_coo). Edge e draws from its own stream. */
gcoo_status bench_rmat(gcoo_sparse *A, int scale, int edge_factor, uint64_t seed) {
  gcoo_status st = GCOO_SUCCESS;
  const int64_t n = (int64_t)1 << scale, ne = n * edge_factor;
  int32_t *r = NULL, *c = NULL;
  float *v = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&r, ne, sizeof *r, "R-MAT rows"));
  GCOO_GOTO(gcoo__malloc_n((void **)&c, ne, sizeof *c, "R-MAT columns"));
  GCOO_GOTO(gcoo__malloc_n((void **)&v, ne, sizeof *v, "R-MAT values"));
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < ne; e++) {
    gcoo_rng g;
    gcoo__rng_seed(&g, seed, (uint64_t)e);
    int64_t i = 0, j = 0;
    for (int l = 0; l < scale; l++) {
      const double u = gcoo__rng_uniform(&g);
      const int down = u >= 0.57 + 0.19, right = (u >= 0.57 && u < 0.76) || u >= 0.95;
      i = 2 * i + down;
      j = 2 * j + right;
    }
    r[e] = (int32_t)i;
    c[e] = (int32_t)j;
    v[e] = (float)(2.0 * gcoo__rng_uniform(&g) - 1.0);
  }
  GCOO_GOTO(gcoo_sparse_create_coo(A, GCOO_FLOAT32, n, n, ne, r, c, v, 0));
  {
    gcoo_sparse coo = *A;
    *A = NULL;
    st = gcoo_sparse_convert(A, coo, GCOO_FORMAT_CSR, 0);
    gcoo_sparse_destroy(&coo);
    GCOO_GOTO(st);
  }
done:
  free(r);
  free(c);
  free(v);
  return st;
}

/* diag(M, M, ..., M): `copies` tiles of a square or rectangular CSR matrix M. */
gcoo_status bench_block_diagonal(gcoo_sparse *A, gcoo_sparse M, int copies) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse_info mi;
  gcoo_sparse_arrays ma;
  GCOO_CALL(gcoo_sparse_get_info(M, &mi));
  GCOO_CALL(gcoo_sparse_get_arrays(M, &ma));
  GCOO_CHECK(mi.format == GCOO_FORMAT_CSR && mi.dtype == GCOO_FLOAT32, GCOO_ERR_INVALID_ARG,
             "block_diagonal takes a float CSR matrix");
  const int64_t m = mi.nrows * copies, k = mi.ncols * copies, nnz = mi.nnz * copies;
  GCOO_CHECK(m <= GCOO_INDEX_MAX && k <= GCOO_INDEX_MAX, GCOO_ERR_TOO_LARGE, "tiling too large");
  int64_t *ptr = NULL;
  int32_t *ind = NULL;
  float *val = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&ptr, m + 1, sizeof *ptr, "tiling row pointer"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ind, nnz, sizeof *ind, "tiling columns"));
  GCOO_GOTO(gcoo__malloc_n((void **)&val, nnz, sizeof *val, "tiling values"));
  ptr[0] = 0;
#pragma omp parallel for schedule(static)
  for (int t = 0; t < copies; t++)
    for (int64_t i = 0; i < mi.nrows; i++) {
      const int64_t row = t * mi.nrows + i, base = t * mi.nnz;
      ptr[row + 1] = base + ma.ptr[i + 1];
      for (int64_t e = ma.ptr[i]; e < ma.ptr[i + 1]; e++) {
        ind[base + e] = (int32_t)(t * mi.ncols + ma.ind[e]);
        val[base + e] = ((const float *)ma.values)[e];
      }
    }
  st = gcoo__sparse_adopt(A, GCOO_FORMAT_CSR, GCOO_FLOAT32, m, k, nnz, 0, ptr, ind, NULL, NULL,
                          NULL, val);
  ptr = NULL, ind = NULL, val = NULL;
done:
  free(ptr);
  free(ind);
  free(val);
  return st;
}

/* M (x) B with B a dense b x b block of nonzeros: row (i, a) holds (j, c) for every entry
 * (i, j) of M and c < b, value M_ij * (1 + 0.25 * ((a + 2 c) mod 3)). */
gcoo_status bench_kron_dense_block(gcoo_sparse *A, gcoo_sparse M, int b) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo_sparse_info mi;
  gcoo_sparse_arrays ma;
  GCOO_CALL(gcoo_sparse_get_info(M, &mi));
  GCOO_CALL(gcoo_sparse_get_arrays(M, &ma));
  GCOO_CHECK(mi.format == GCOO_FORMAT_CSR && mi.dtype == GCOO_FLOAT32, GCOO_ERR_INVALID_ARG,
             "kron takes a float CSR matrix");
  const int64_t m = mi.nrows * b, k = mi.ncols * b, nnz = mi.nnz * b * b;
  GCOO_CHECK(m <= GCOO_INDEX_MAX && k <= GCOO_INDEX_MAX, GCOO_ERR_TOO_LARGE, "product too large");
  int64_t *ptr = NULL;
  int32_t *ind = NULL;
  float *val = NULL;
  GCOO_GOTO(gcoo__malloc_n((void **)&ptr, m + 1, sizeof *ptr, "kron row pointer"));
  GCOO_GOTO(gcoo__malloc_n((void **)&ind, nnz, sizeof *ind, "kron columns"));
  GCOO_GOTO(gcoo__malloc_n((void **)&val, nnz, sizeof *val, "kron values"));
  ptr[0] = 0;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < mi.nrows; i++)
    for (int a = 0; a < b; a++) {
      const int64_t row = i * b + a, len = (ma.ptr[i + 1] - ma.ptr[i]) * b;
      int64_t o = ma.ptr[i] * b * b + a * len;
      ptr[row + 1] = o + len;
      for (int64_t e = ma.ptr[i]; e < ma.ptr[i + 1]; e++)
        for (int c = 0; c < b; c++) {
          ind[o] = (int32_t)(ma.ind[e] * b + c);
          val[o] = ((const float *)ma.values)[e] * (1.0f + 0.25f * (float)((a + 2 * c) % 3));
          o++;
        }
    }
  st = gcoo__sparse_adopt(A, GCOO_FORMAT_CSR, GCOO_FLOAT32, m, k, nnz, 0, ptr, ind, NULL, NULL,
                          NULL, val);
  ptr = NULL, ind = NULL, val = NULL;
done:
  free(ptr);
  free(ind);
  free(val);
  return st;
}
