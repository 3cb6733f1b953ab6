/* SPDX-License-Identifier: MIT */
/* bench/spgemm_peer.h: the C interface through which bench/spgemm_bench.c times a published
 * SpGEMM that is not part of gcoo (a "peer": OpSparse, bench/opsparse/), in its own process,
 * beside gcoo and cuSPARSE, under the same timing rule (bench/bench_stat.h). As for the SpMM peers
 * (bench/spdm_peer.h), the peer's code is never in this repository: an adapter of ours is compiled
 * against a fetched copy of it into a shared library, which the benchmark loads with dlopen
 * (--peer-lib PATH).
 *
 * Contract: A (m x k) and B (k x n) are CSR with 32-bit row offsets and column indices, the
 * columns of each row sorted, every array on the current CUDA device; elem_size 8 (double) or 4
 * (float). create makes what the peer needs once (streams, function attributes), outside every
 * clock. multiply computes C = A B and returns when C is complete on the device, like gcoo's and
 * cuSPARSE's calls; C's arrays (row offsets, sorted columns, values) belong to the peer and stay
 * valid until its next multiply or destroy. The memory a multiply needs comes from buffers the
 * peer keeps between calls and grows when they are too small, as gcoo's and cuSPARSE's come from a
 * warm pool: a warm call allocates nothing, and result.allocations says how many device
 * allocations the call made. Every function returns 0 on success, SPGEMM_PEER_UNSUPPORTED where
 * the peer cannot run the case (its element type, its index range), any other value on an error
 * (error() then says what). */
#ifndef GCOO_SPGEMM_PEER_H
#define GCOO_SPGEMM_PEER_H

#include <stdint.h>

#define SPGEMM_PEER_ABI 1
#define SPGEMM_PEER_UNSUPPORTED 1
#define SPGEMM_PEER_MAX_PHASES 8

#ifdef __cplusplus
extern "C" {
#endif

/** What one multiply made and measured. */
typedef struct spgemm_peer_result {
  int64_t nnz;                                    /**< nnz(C) */
  int *rowptr;                                    /**< C's m + 1 row offsets, on the device */
  int *colind;                                    /**< C's nnz columns, sorted in each row */
  void *values;                                   /**< C's nnz values */
  int64_t peak_bytes;                             /**< most device memory the call used at once
                                                     beyond its inputs (C included) */
  int allocations;                                /**< device allocations the call made */
  int nphases;                                    /**< phases timed (host clock between the
                                                     peer's own device synchronisations) */
  double phase_ms[SPGEMM_PEER_MAX_PHASES];        /**< each phase's time */
  const char *phase_name[SPGEMM_PEER_MAX_PHASES]; /**< static names */
} spgemm_peer_result;

typedef int (*spgemm_peer_abi_fn)(void);
/** The peer and where it came from, e.g. "OpSparse (lorentzbf/OpSparse 0134b0c)". */
typedef const char *(*spgemm_peer_name_fn)(void);
typedef int (*spgemm_peer_create_fn)(void **peer);
typedef int (*spgemm_peer_multiply_fn)(void *peer, int elem_size, int m, int k, int n,
                                       const int *arowptr, const int *acolind, const void *avalues,
                                       int annz, const int *browptr, const int *bcolind,
                                       const void *bvalues, int bnnz, spgemm_peer_result *C);
/** The last error's message (a static or peer-owned string). */
typedef const char *(*spgemm_peer_error_fn)(void *peer);
typedef void (*spgemm_peer_destroy_fn)(void *peer);

/* The exported symbols (dlsym names). */
#define SPGEMM_PEER_SYMBOLS(X)      \
  X(abi, spgemm_peer_abi)           \
  X(name, spgemm_peer_name)         \
  X(create, spgemm_peer_create)     \
  X(multiply, spgemm_peer_multiply) \
  X(error, spgemm_peer_error)       \
  X(destroy, spgemm_peer_destroy)

#ifdef __cplusplus
}
#endif
#endif
