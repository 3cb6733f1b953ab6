/* SPDX-License-Identifier: MIT */
/* gcoo/types.h: status codes, element types, layouts and the index conventions of gcoo.
 *
 * Index conventions: every count (nnz, FLOP, offsets such as CSR row pointers
 * and GCOO gIdxes) is int64_t; row and column indices are int32_t, so a dimension must fit in
 * [0, 2^31 - 1]. Larger dimensions are refused with GCOO_ERR_TOO_LARGE, never wrapped. */
#ifndef GCOO_TYPES_H
#define GCOO_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "gcoo/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a function kept under an old name for programs and bindings not yet moved to its new
 *  one: the compiler warns where it is called, msg says what to call instead. */
#if defined(__GNUC__) || defined(__clang__)
#define GCOO_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define GCOO_DEPRECATED(msg)
#endif

/** Status of every public call: 0 success, > 0 information, < 0 error.
 *  Errors -1..-49 are misuse of the API or bad data handed to it; -100.. are failures while
 *  executing (memory, devices, communication, files). gcoo_last_error() says where and why. */
typedef enum gcoo_status {
  GCOO_SUCCESS = 0,
  GCOO_INFO_NOT_CONVERGED = 1, /**< an iterative solve stopped at its iteration limit */
  GCOO_INFO_SKIPPED = 2,       /**< nothing to do (for example a GPU test with no GPU) */

  /* misuse and bad data */
  GCOO_ERR_NULL = -1,           /**< a required pointer argument is NULL */
  GCOO_ERR_INVALID_OBJECT = -2, /**< a handle that is uninitialised, freed or of another kind */
  GCOO_ERR_INVALID_ARG = -3,    /**< an argument outside its documented range */
  GCOO_ERR_SHAPE = -4,          /**< dimensions that do not agree */
  GCOO_ERR_DTYPE = -5,          /**< element types that do not agree */
  GCOO_ERR_UNSUPPORTED = -6,    /**< valid request this build or backend cannot serve */
  GCOO_ERR_TOO_LARGE = -7,      /**< a size past what the index types can hold */
  GCOO_ERR_INDEX_RANGE = -8,    /**< an index outside the matrix */
  GCOO_ERR_UNSORTED = -9,       /**< entries not in the order a format requires */
  GCOO_ERR_DUPLICATE = -10,     /**< a repeated (row, column) where duplicates were refused */
  GCOO_ERR_NOT_FINITE = -11,    /**< a NaN or infinity where finite values were required */
  GCOO_ERR_FORMAT = -12,        /**< a malformed file or object (header, counts, encoding) */
  GCOO_ERR_EXISTS = -13,        /**< an output exists and may not be replaced (no overwrite
                                      asked), or changed while this call was writing it */

  /* execution */
  GCOO_ERR_NO_MEMORY = -100, /**< host or device allocation failed, or a budget was exceeded */
  GCOO_ERR_IO = -101,        /**< a file could not be opened, read, written or renamed */
  GCOO_ERR_CUDA = -102,      /**< CUDA runtime failure */
  GCOO_ERR_CUSPARSE = -103,  /**< cuSPARSE failure */
  GCOO_ERR_CUBLAS = -104,    /**< cuBLAS failure */
  GCOO_ERR_NO_DEVICE = -105, /**< the CUDA backend was asked for and no usable GPU exists */
  GCOO_ERR_MPI = -106,       /**< MPI failure */
  GCOO_ERR_NCCL = -107,      /**< NCCL failure */
  GCOO_ERR_HDF5 = -108,      /**< HDF5 failure */
  GCOO_ERR_REMOTE = -109,    /**< another rank failed; its message is in gcoo_last_error() */
  GCOO_ERR_BREAKDOWN = -110, /**< a solver met a breakdown it could not recover from */
  GCOO_ERR_INTERNAL = -199   /**< a bug in gcoo: please report it with the message */
} gcoo_status;

/** Element type of values. Both are supported everywhere. */
typedef enum gcoo_dtype { GCOO_FLOAT32 = 0, GCOO_FLOAT64 = 1 } gcoo_dtype;

/** Storage of a sparse matrix. */
typedef enum gcoo_format {
  GCOO_FORMAT_COO = 0, /**< coordinates, sorted by row then column */
  GCOO_FORMAT_CSR = 1, /**< compressed rows */
  GCOO_FORMAT_CSC = 2, /**< compressed columns */
  GCOO_FORMAT_GCOO = 3 /**< groups of p columns, COO per group ordered by row then column */
} gcoo_format;

/** Element order of a dense matrix. */
typedef enum gcoo_layout { GCOO_ROW_MAJOR = 0, GCOO_COL_MAJOR = 1 } gcoo_layout;

/** Where a buffer lives. */
typedef enum gcoo_memspace { GCOO_MEM_HOST = 0, GCOO_MEM_DEVICE = 1 } gcoo_memspace;

/** Size in bytes of one element of type t. */
static inline size_t gcoo_dtype_size(gcoo_dtype t) { return t == GCOO_FLOAT64 ? 8u : 4u; }

#ifdef __cplusplus
}
#endif
#endif
