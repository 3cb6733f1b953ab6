/* SPDX-License-Identifier: MIT */
/* src/objects.h: the layouts of the context and operator objects, the magic numbers and handle
 * checks of every object, and matrices made from arrays their builder hands over. */
#ifndef GCOO_SRC_OBJECTS_H
#define GCOO_SRC_OBJECTS_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- objects ------------------------------------------------------------------------------ */
#define GCOO_MAGIC_CTX 0x67636f6f63747821ull    /* "gcooctx!" */
#define GCOO_MAGIC_SPARSE 0x67636f6f73707221ull /* "gcoospr!" */
#define GCOO_MAGIC_OP 0x67636f6f6f702121ull     /* "gcooop!!" */
#define GCOO_MAGIC_FREED 0xdeadbeefdeadbeefull

/** Raise GCOO_ERR_NULL / GCOO_ERR_INVALID_OBJECT for a bad handle (GraphBLAS's pattern). */
#define GCOO_VALID_OBJECT(obj, magic_value, what)                                         \
  do {                                                                                    \
    GCOO_CHECK((obj) != NULL, GCOO_ERR_NULL, "%s is NULL", (what));                       \
    GCOO_CHECK((obj)->magic == (magic_value), GCOO_ERR_INVALID_OBJECT,                    \
               "%s is not a valid object (%s)", (what),                                   \
               (obj)->magic == GCOO_MAGIC_FREED ? "already destroyed" : "uninitialised"); \
  } while (0)

/** Make an object that takes ownership of malloc'd arrays (freed with it, or on failure).
 *  No copy, no checks beyond sizes: for callers that built the arrays correctly themselves.
 *  For COO/GCOO ptr is NULL; for CSR/CSC rows/cols are NULL; gidx is only for GCOO. */
gcoo_status gcoo__sparse_adopt(gcoo_sparse *A, gcoo_format format, gcoo_dtype dtype, int64_t nrows,
                               int64_t ncols, int64_t nnz, int32_t p, int64_t *ptr, int32_t *ind,
                               int32_t *rows, int32_t *cols, int64_t *gidx, void *values);

/** The three arrays of a CSR matrix being built, malloc'd by the builder (NULL until then). The
 *  builder ends with gcoo__csr_arrays_adopt on success and gcoo__csr_arrays_free after its
 *  `done:` label, so one cleanup line serves every path. */
typedef struct gcoo__csr_arrays {
  int64_t *ptr; /* nrows + 1 row offsets */
  int32_t *ind; /* nnz column indices */
  void *values; /* nnz values of the matrix's dtype */
} gcoo__csr_arrays;
/** gcoo__sparse_adopt of a's arrays as an nrows x ncols CSR matrix with nnz entries: the
 *  matrix owns them on success, they are freed on failure; a is emptied either way. */
gcoo_status gcoo__csr_arrays_adopt(gcoo__csr_arrays *a, gcoo_sparse *out, gcoo_dtype dtype,
                                   int64_t nrows, int64_t ncols, int64_t nnz);
/** Free what a still holds (nothing after gcoo__csr_arrays_adopt) and empty it. */
void gcoo__csr_arrays_free(gcoo__csr_arrays *a);

struct gcoo_ctx_s {
  uint64_t magic;
  const gcoo_backend_ops *ops;
  int device;    /* CUDA ordinal, -1 on the CPU */
  void *stream;  /* cudaStream_t in use */
  void *backend; /* backend-private state (handles, own stream) */
};

struct gcoo_op_s {
  uint64_t magic;
  gcoo_ctx ctx;
  gcoo_op_options opts;
  gcoo_sparse S;     /* host GCOO of S = A^T (groups of p rows of A), or NULL */
  gcoo_sparse A_csr; /* host CSR of A (the SPARSE_DENSE frame), or NULL; at least one is set */
  gcoo_op_info info;
  void *backend; /* backend-private state (device arrays, descriptors) */
};

#ifdef __cplusplus
}
#endif
#endif
