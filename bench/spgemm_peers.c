/* SPDX-License-Identifier: MIT */
/* bench/spgemm_peers.c: the SpGEMM benchmark's peers (bench/spgemm_bench.h): a peer library loaded
 * with dlopen and run in this process under the timing rule of bench/bench_stat.h, its C checked
 * against the reference like every side's; and OpSparse's own benchmark driver, run as a separate
 * process, as a reference column (never in a target: its timed function creates streams and
 * allocates on every call). */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_stat.h"
#include "spgemm_bench.h"

int bench_peer_load(const char *path, bench_peer *P, char *why, size_t whylen) {
  memset(P, 0, sizeof *P);
  P->path = path;
  P->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!P->dl) {
    snprintf(why, whylen, "%s", dlerror());
    return 0;
  }
#define SPGEMM_PEER_LOAD(f, sym) *(void **)&P->f = dlsym(P->dl, #sym);
  SPGEMM_PEER_SYMBOLS(SPGEMM_PEER_LOAD)
#undef SPGEMM_PEER_LOAD
#define SPGEMM_PEER_HAS(f, sym) &&P->f
  if (!(1 SPGEMM_PEER_SYMBOLS(SPGEMM_PEER_HAS)) || P->abi() != SPGEMM_PEER_ABI) {
    snprintf(why, whylen, "%s: not the bench/spgemm_peer.h interface, version %d", path,
             SPGEMM_PEER_ABI);
    dlclose(P->dl);
    P->dl = NULL;
    return 0;
  }
#undef SPGEMM_PEER_HAS
  if (P->create(&P->handle) != 0) {
    snprintf(why, whylen, "%s: create: %s", path, P->error(P->handle));
    P->destroy(P->handle);
    dlclose(P->dl);
    P->dl = NULL;
    return 0;
  }
  return 1;
}

void bench_peer_unload(bench_peer *P) {
  if (!P->dl) return;
  P->destroy(P->handle);
  dlclose(P->dl);
  memset(P, 0, sizeof *P);
}

/* A's row offsets in 32 bits on the device (made before the peer's clock: its input format). */
static int *narrow_rowptr(const gcoo_cuda_csr *A) {
  const size_t n = (size_t)A->nrows + 1;
  int64_t *h64 = malloc(n * sizeof *h64);
  int *h32 = malloc(n * sizeof *h32), *d = NULL;
  int ok = h64 && h32 &&
           cudaMemcpy(h64, A->ptr, n * sizeof *h64, cudaMemcpyDeviceToHost) == cudaSuccess;
  for (size_t i = 0; ok && i < n; i++) h32[i] = (int)h64[i];
  ok = ok && cudaMalloc((void **)&d, n * sizeof *h32) == cudaSuccess &&
       cudaMemcpy(d, h32, n * sizeof *h32, cudaMemcpyHostToDevice) == cudaSuccess;
  free(h64);
  free(h32);
  if (!ok) {
    cudaFree(d);
    return NULL;
  }
  return d;
}

/* The peer's C as gcoo's device CSR (row offsets widened to 64 bits in a new array; columns and
 * values the peer's), for gcoo__cuda_csr_compare; NULL ptr on failure. */
static gcoo_cuda_csr peer_c_view(const spgemm_peer_result *c, gcoo_dtype dt, int64_t m, int64_t n) {
  gcoo_cuda_csr v;
  memset(&v, 0, sizeof v);
  v.dtype = dt;
  v.nrows = m;
  v.ncols = n;
  v.nnz = c->nnz;
  v.ind = c->colind;
  v.values = c->values;
  const size_t len = (size_t)m + 1;
  int *h32 = malloc(len * sizeof *h32);
  int64_t *h64 = malloc(len * sizeof *h64);
  int ok = h32 && h64 &&
           cudaMemcpy(h32, c->rowptr, len * sizeof *h32, cudaMemcpyDeviceToHost) == cudaSuccess;
  for (size_t i = 0; ok && i < len; i++) h64[i] = h32[i];
  ok = ok && cudaMalloc((void **)&v.ptr, len * sizeof *h64) == cudaSuccess &&
       cudaMemcpy(v.ptr, h64, len * sizeof *h64, cudaMemcpyHostToDevice) == cudaSuccess;
  free(h32);
  free(h64);
  if (!ok) {
    cudaFree(v.ptr);
    v.ptr = NULL;
  }
  return v;
}

/* The peer's error, as one CSV field. */
static void peer_error(bench_peer *P, int rc, result *r) {
  snprintf(r->err, sizeof r->err, "%s: %s",
           rc == SPGEMM_PEER_UNSUPPORTED ? "unsupported" : "failed", P->error(P->handle));
  for (char *c = r->err; *c; c++)
    if (*c == ',' || *c == '\n') *c = ';';
}

void bench_peer_run(bench_peer *P, const gcoo_cuda_csr *A, const gcoo_cuda_csr *B, int reps,
                    const gcoo_cuda_csr *ref, result *r) {
  memset(r, 0, sizeof *r);
  r->check = -1.0;
  r->peak_mb = -1.0;
  if (reps < BENCH_MIN_RUNS) reps = BENCH_MIN_RUNS;
  const size_t es = gcoo_dtype_size(A->dtype);
  if (A->nnz > INT_MAX || B->nnz > INT_MAX || A->nrows >= INT_MAX || B->nrows >= INT_MAX ||
      B->ncols >= INT_MAX) {
    snprintf(r->err, sizeof r->err, "unsupported: 32-bit indices");
    return;
  }
  int *arpt = narrow_rowptr(A), *brpt = A == B ? arpt : narrow_rowptr(B);
  double *t = calloc((size_t)reps, sizeof *t),
         *ph = calloc((size_t)reps * SPGEMM_PEER_MAX_PHASES, sizeof *ph);
  spgemm_peer_result c;
  memset(&c, 0, sizeof c);
  if (!arpt || !brpt || !t || !ph) {
    snprintf(r->err, sizeof r->err, "failed: 32-bit operands");
    goto done;
  }
  for (int run = 0; run < BENCH_WARMUP_RUNS + reps; run++) {
    const double t0 = gcoo__wtime();
    const int rc = P->multiply(P->handle, (int)es, (int)A->nrows, (int)A->ncols, (int)B->ncols,
                               arpt, A->ind, A->values, (int)A->nnz, brpt, B->ind, B->values,
                               (int)B->nnz, &c);
    const double dt = gcoo__wtime() - t0;
    if (rc != 0) {
      peer_error(P, rc, r);
      goto done;
    }
    const int k = run - BENCH_WARMUP_RUNS;
    if (k < 0) continue;
    t[k] = 1e3 * dt;
    r->allocations += c.allocations;
    r->nphases = c.nphases;
    for (int p = 0; p < c.nphases && p < SPGEMM_PEER_MAX_PHASES; p++) {
      ph[p * reps + k] = c.phase_ms[p];
      r->phase_name[p] = c.phase_name[p];
    }
    r->peak_mb = (double)c.peak_bytes / 1048576.0;
  }
  r->ms = r->ms_raw = bench_median(t, reps);
  for (int p = 0; p < r->nphases && p < SPGEMM_PEER_MAX_PHASES; p++)
    r->phase_ms[p] = bench_median(ph + (size_t)p * reps, reps);
  r->reps = reps;
  r->info.nnz = c.nnz;
  /* the output checked: C's arrays poisoned, computed once more (untimed), compared */
  if (c.nnz > 0) {
    cudaMemset(c.colind, 0xff, (size_t)c.nnz * sizeof(int));
    cudaMemset(c.values, 0xff, (size_t)c.nnz * es);
  }
  cudaMemset(c.rowptr, 0xff, ((size_t)A->nrows + 1) * sizeof(int));
  const int rc = P->multiply(P->handle, (int)es, (int)A->nrows, (int)A->ncols, (int)B->ncols, arpt,
                             A->ind, A->values, (int)A->nnz, brpt, B->ind, B->values, (int)B->nnz,
                             &c);
  if (rc != 0) {
    peer_error(P, rc, r);
    goto done;
  }
  r->ok = 1;
  if (ref) {
    gcoo_cuda_csr v = peer_c_view(&c, A->dtype, A->nrows, B->ncols);
    r->check = v.ptr ? gcoo__cuda_csr_compare(&v, ref) : INFINITY;
    cudaFree(v.ptr);
  }
done:
  if (brpt != arpt) cudaFree(brpt);
  cudaFree(arpt);
  free(t);
  free(ph);
}

double bench_opsparse_driver(const char *bin, const char *dir, const char *name_a, gcoo_sparse A,
                             const char *name_b, gcoo_sparse B, char *why, size_t whylen) {
  char path[4096], cmd[8192], line[512];
  const char *names[2] = {name_a, name_b};
  gcoo_sparse mats[2] = {A, B};
  snprintf(path, sizeof path, "%s/matrix", dir);
  mkdir(dir, 0755);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/matrix/suite_sparse", dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/work", dir);
  mkdir(path, 0755);
  for (int k = 0; k < 2; k++) {
    if (k == 1 && !strcmp(name_a, name_b)) break;
    snprintf(path, sizeof path, "%s/matrix/suite_sparse/%s", dir, names[k]);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/matrix/suite_sparse/%s/%s.mtx", dir, names[k], names[k]);
    struct stat sb;
    if (stat(path, &sb) != 0 && gcoo_mtx_write(path, mats[k]) < 0) {
      snprintf(why, whylen, "cannot write %s", path);
      return -1.0;
    }
  }
  snprintf(cmd, sizeof cmd, "cd '%s/work' && timeout 300 '%s' '%s' '%s' 2>&1", dir, bin, name_a,
           name_b);
  FILE *p = popen(cmd, "r");
  double ms = -1.0;
  if (!p) {
    snprintf(why, whylen, "cannot run %s", bin);
    return -1.0;
  }
  while (fgets(line, sizeof line, p)) {
    char *g = strstr(line, "GFLOPS");
    double x;
    if (g && sscanf(g, "GFLOPS %lf ms", &x) == 1) ms = x;
  }
  const int rc = pclose(p);
  if (!(ms > 0)) {
    snprintf(why, whylen, "its driver failed (status %d)", rc);
    return -1.0;
  }
  return ms;
}
