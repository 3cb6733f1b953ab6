/* SPDX-License-Identifier: MIT */
/* bench/spgemm_bench.h: what the SpGEMM benchmark's files share (spgemm_bench.c: the products,
 * gcoo and cuSPARSE, the output and the targets; spgemm_peers.c: the peers, a library loaded in
 * the same process through bench/spgemm_peer.h, and OpSparse's own driver as a reference). */
#ifndef GCOO_SPGEMM_BENCH_H
#define GCOO_SPGEMM_BENCH_H

#include <stddef.h>

#include "backend_impl.h"
#include "gcoo/gcoo.h"
#include "spgemm/spgemm_cuda.h"
#include "spgemm_peer.h"

/** One side's measurement of one product. */
typedef struct result {
  int ok;         /* timed, and (for a peer) its C within the tolerance of the reference */
  int reps;       /* timed runs */
  double ms;      /* the median of the timed runs (cuSPARSE: its memory probes taken out) */
  double ms_raw;  /* the median as its clock read it */
  double peak_mb; /* peak device memory beyond the inputs, C included (-1: not measured) */
  gcoo_spgemm_info info;
  double check;    /* relative value error against the reference result, -1 if not checked */
  int allocations; /* a peer's device allocations in its timed runs (0 when warm) */
  int nphases;     /* a peer's phases, each the median over the timed runs */
  double phase_ms[SPGEMM_PEER_MAX_PHASES];
  const char *phase_name[SPGEMM_PEER_MAX_PHASES];
  char err[160];
} result;

/** A SpGEMM peer loaded in this process (bench/spgemm_peer.h). */
typedef struct bench_peer {
  const char *path;
  void *dl, *handle;
#define SPGEMM_PEER_FIELD(f, sym) sym##_fn f;
  SPGEMM_PEER_SYMBOLS(SPGEMM_PEER_FIELD)
#undef SPGEMM_PEER_FIELD
} bench_peer;

/** Load the peer library at path and create its instance; 0 (why says why) when not available. */
int bench_peer_load(const char *path, bench_peer *P, char *why, size_t whylen);
void bench_peer_unload(bench_peer *P);

/** Time the peer on C = A B (A and B gcoo's device CSR: their 32-bit copies are made before any
 *  clock): BENCH_WARMUP_RUNS, then reps timed runs (host clock around each call, C complete on
 *  the device), the median; then C is poisoned and computed once more, untimed, and that C is
 *  compared with ref (when ref is not NULL; r->check). */
void bench_peer_run(bench_peer *P, const gcoo_cuda_csr *A, const gcoo_cuda_csr *B, int reps,
                    const gcoo_cuda_csr *ref, result *r);

/** OpSparse's own benchmark driver (bench/opsparse/build.sh: reg_opsparse) on name_a * name_b:
 *  the operands written as Matrix Market files under DIR/matrix/suite_sparse/NAME/NAME.mtx, the
 *  driver run in DIR/work; its printed time (the mean of its 10 runs after a warm-up, in its own
 *  clock) in ms, or < 0 (why says why). */
double bench_opsparse_driver(const char *bin, const char *dir, const char *name_a, gcoo_sparse A,
                             const char *name_b, gcoo_sparse B, char *why, size_t whylen);

#endif
