/* SPDX-License-Identifier: MIT */
/* bench/spdm_peer.h: the C interface through which bench/spdm_peer.c times a published SpMM
 * kernel that is not part of gcoo (a "peer": GE-SpMM, Sputnik, ...). The peer's code is never in
 * this repository: whoever runs the benchmark builds a shared library of the peer together with
 * a small adapter that exports the functions below, and names it with --peer PATH or
 * GCOO_SPDM_PEER (docs/kernels.md, "Peers"). The benchmark loads it with dlopen.
 *
 * Contract: A is CSR with 32-bit offsets and column indices (rowptr m + 1, colind and val nnz),
 * X is k x n and Y is m x n, both row-major with leading dimension n, every pointer on the
 * current CUDA device; Y = A X (alpha = 1, beta = 0: Y is written, never read). run queues the
 * product on `stream` (a cudaStream_t; the benchmark passes the legacy default stream, so a peer
 * that launches on stream 0 is timed correctly) and does not synchronize. Every function returns
 * 0 on success; SPDM_PEER_UNSUPPORTED where the peer has no kernel for the case (the element
 * type, say), any other value on an error. */
#ifndef GCOO_SPDM_PEER_H
#define GCOO_SPDM_PEER_H

#define SPDM_PEER_ABI 1
#define SPDM_PEER_UNSUPPORTED 1

#ifdef __cplusplus
extern "C" {
#endif

/** SPDM_PEER_ABI: the version of this interface the library was built against. */
typedef int (*spdm_peer_abi_fn)(void);
/** The peer and where it came from, e.g. "GE-SpMM (dgSPARSE-Lib 973a972)". */
typedef const char *(*spdm_peer_name_fn)(void);
/** How many variants (the peer's algorithms; 0 = the peer's own default choice). */
typedef int (*spdm_peer_variants_fn)(void);
typedef const char *(*spdm_peer_variant_name_fn)(int variant);
/** Set up variant v for A and width n (elem_size 4: float, 8: double); *plan is the peer's.
 *  The benchmark times this apart from the product. */
typedef int (*spdm_peer_plan_fn)(int variant, int elem_size, int m, int k, int nnz,
                                 const int *rowptr, const int *colind, const void *val, int n,
                                 void **plan);
typedef int (*spdm_peer_run_fn)(void *plan, const void *X, void *Y, void *stream);
typedef void (*spdm_peer_free_fn)(void *plan);

/* The exported symbols (dlsym names). */
#define SPDM_PEER_SYMBOLS(X)              \
  X(abi, spdm_peer_abi)                   \
  X(name, spdm_peer_name)                 \
  X(variants, spdm_peer_variants)         \
  X(variant_name, spdm_peer_variant_name) \
  X(plan, spdm_peer_plan)                 \
  X(run, spdm_peer_run)                   \
  X(free, spdm_peer_free)

#ifdef __cplusplus
}
#endif
#endif
