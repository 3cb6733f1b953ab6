/* SPDX-License-Identifier: MIT */
/* kernels/common/gcoo_kernels.h: the gateway to gcoo's CUDA code, for the CUDA backend, bench/ and
 * tests/gpu (not installed, not for applications: they use gcoo/spdm.h).
 *
 * Everything here works in the SPARSE_DENSE frame of src/op.c: Y (m x N) = alpha A X + beta Y,
 * A (m x k) sparse, X (k x N) and Y (m x N) dense ROW-major on the device. The GCOO object is the
 * GCOO of S = A^T, so group q holds rows q*p .. q*p+p-1 of A (columns of S), its entries ordered
 * by (column of A, row of A) = (row of S, column of S): exactly what
 * gcoo_sparse_convert(transpose(A), GCOO, p) gives on the CPU (the tests compare the arrays).
 *
 * Device arrays below are plain cudaMalloc'd pointers; `stream` is a cudaStream_t passed as
 * void * so that C callers need no CUDA header. Work is queued on the stream; functions that
 * must know a size on the host (the nnz of a dense -> GCOO conversion) synchronise it and say so. */
#ifndef GCOO_KERNELS_H
#define GCOO_KERNELS_H

#include "backend_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the launchers size grids and tiles from; read once per context. */
typedef struct gcoo_cuda_devinfo {
  int device;                  /**< CUDA ordinal */
  int sm_count;                /**< multiprocessors */
  int max_threads_per_sm;      /**< resident threads per multiprocessor */
  int regs_per_sm;             /**< 32-bit registers per multiprocessor */
  int cc_major, cc_minor;      /**< compute capability */
  size_t smem_per_sm;          /**< shared memory per multiprocessor, bytes */
  size_t smem_per_block_optin; /**< largest dynamic shared memory a block may opt into */
  size_t l2_bytes;             /**< L2 cache size */
  size_t global_bytes;         /**< device memory */
  char name[256];              /**< "NVIDIA H200" */
} gcoo_cuda_devinfo;

/** CSR of A on the device (canonical: columns ascending in each row, no duplicates). */
typedef struct gcoo_cuda_csr {
  gcoo_dtype dtype;
  int64_t nrows, ncols, nnz;
  int64_t *ptr; /**< nrows + 1 */
  int32_t *ind; /**< nnz */
  void *values; /**< nnz */
} gcoo_cuda_csr;

/** GCOO of S = A^T on the device: S is k x m (nrows = k, ncols = m), groups of p columns of S. */
typedef struct gcoo_cuda_gcoo {
  gcoo_dtype dtype;
  int64_t nrows, ncols, nnz;
  int32_t p;
  int64_t ngroups;
  int64_t *gidx; /**< gIdxes, ngroups + 1 */
  int64_t *gnnz; /**< nnzPerGroup, ngroups */
  int32_t *rows; /**< row of S = column of A, nnz */
  int32_t *cols; /**< column of S = row of A, nnz */
  void *values;  /**< nnz */
} gcoo_cuda_gcoo;

/** The X-resident layout of A (docs/kernels.md, "The X-resident variant"), for the "resident"
 *  variants of the tuned kernel: A's rows sorted by length, longest first (stable), cut into slices
 *  of 32 rows, each slice stored step by step: a step holds one entry of each of the 32 rows (lane
 *  r at off[s] + 32 j + r), so a warp reads 32 consecutive values and columns per step. Within a
 *  row the entries are reordered so that at every step the 8 lanes of each quarter-warp read X rows
 *  with different indices mod 8 (no shared-memory bank conflict); a lane with nothing to add reads
 *  one of 8 zero rows k .. k+7 that the kernel appends to its copy of X (value 0). One more step of
 *  padding follows the last slice (the kernel loads one step ahead). Columns are 16-bit: the layout
 *  exists only for k + 8 <= 65536 (the kernel needs far less: see resident_fits). */
typedef struct gcoo_cuda_xres {
  int64_t nslices;  /**< ceil(m / 32) */
  int64_t nentries; /**< off[nslices]: entries with padding */
  int64_t *off;     /**< nslices + 1 offsets, in entries */
  int32_t *perm;    /**< 32 nslices: row of A of each slice lane, -1 past m */
  void *values;     /**< nentries + 32 values (float or double) */
  uint16_t *cols;   /**< nentries + 32 columns (k .. k+7: a zero row) */
  int64_t *splits;  /**< for R = 1, 2, 4, .., GCOO_XRES_MAX_SPLITS: R + 1 slice indices
                                  that cut the entries into R near-equal parts, at
                                  gcoo_cuda_xres_split_base(R) */
} gcoo_cuda_xres;

/** Zero rows the X-resident tile appends to X: padding entries read row k + b to take a free
 *  residue b mod 8 (one per shared-memory bank group). */
#define GCOO_XRES_ZERO_ROWS 8

/** Shared memory of an X-resident tile: k + GCOO_XRES_ZERO_ROWS rows of `packs` 16-byte packs. */
static inline int64_t gcoo_cuda_resident_smem(int64_t k, int packs) {
  return (k + GCOO_XRES_ZERO_ROWS) * 16 * (int64_t)packs;
}

/** Largest number of parts a resident launch cuts the slices into (a power of two). */
#define GCOO_XRES_MAX_SPLITS 64

/** The tuned kernel's row-split layout (docs/kernels.md, "The row-split variant"), for rows of very
 *  unequal length (power-law graphs, circuit matrices): A's rows cut into work items of at most
 *  `piece` entries, in row order; a row of at most `piece` entries is one item (an empty row too,
 *  so that its row of Y is written), a longer one is cut into ceil(length / piece) items. An item
 *  of a short row writes its row of Y (alpha, beta applied); the items of a long row write their
 *  partial sums to rows of a workspace, and a second, short kernel adds each long row's partials
 *  and applies alpha and beta (no atomics: the result does not depend on timing). The workspace
 *  holds `work_cols` columns; wider products run in passes of that many columns. */
typedef struct gcoo_cuda_split {
  int32_t piece;       /**< most entries an item holds */
  int64_t nitems;      /**< work items */
  int64_t *item_begin; /**< nitems: first entry (CSR index) of each item */
  int64_t *item_row;   /**< nitems: its row of A */
  int64_t *item_slot;  /**< nitems: its workspace row, -1 for an item that is a whole row */
  int64_t nlong;       /**< rows longer than piece */
  int64_t *long_row;   /**< nlong: those rows */
  int64_t *long_ptr;   /**< nlong + 1: each one's first workspace row */
  int64_t nwork;       /**< workspace rows: long_ptr[nlong] */
  int64_t work_cols;   /**< workspace columns (a multiple of 128) */
  void *work;          /**< nwork x work_cols values (float or double) */
  int64_t max_row;     /**< longest row of A */
  int64_t *item_order; /**< nitems: the items longest first (stable), built on demand
                            (gcoo_cuda_tuned_build_split_order); NULL until then */
  int ordered;         /**< the kernel takes the items in item_order (needs it) */
} gcoo_cuda_split;

/** Bounds of the row-split layout: pieces of 32 .. 1024 entries, a workspace of at most
 *  GCOO_SPLIT_MAX_WORK_BYTES (its width shrinks to fit, down to 128 columns). */
#define GCOO_SPLIT_MIN_PIECE 32
#define GCOO_SPLIT_MAX_PIECE 1024
#define GCOO_SPLIT_MAX_WORK_BYTES ((int64_t)256 << 20)

/** The piece length for a matrix: the power of two >= 2 x the mean row, within
 *  [GCOO_SPLIT_MIN_PIECE, GCOO_SPLIT_MAX_PIECE], so that short rows stay whole and long rows
 *  become items about as long as a typical row. */
static inline int32_t gcoo_cuda_split_piece(int64_t m, int64_t nnz) {
  const double target = m > 0 ? 2.0 * (double)nnz / (double)m : 0.0;
  int32_t piece = GCOO_SPLIT_MIN_PIECE;
  while (piece < GCOO_SPLIT_MAX_PIECE && (double)piece < target) piece *= 2;
  return piece;
}

/** The tuned kernel's layout, derived from the GCOO of S (docs/kernels.md, "The tuned kernel"): for
 *  each group of p rows of A, the list of distinct columns its entries touch (the X rows it stages
 *  once per column tile), and every entry of A, in CSR order, as {value, index into its group's
 *  list}. */
typedef struct gcoo_cuda_tuned {
  gcoo_dtype dtype;
  int64_t m, k, nnz;
  int32_t p;
  int64_t ngroups;
  const int64_t *rowptr;  /**< A's row pointer (borrowed from the CSR; m + 1) */
  const int32_t *colind;  /**< A's column indices (borrowed; the "direct" variants read them) */
  const void *csr_values; /**< A's values (borrowed) */
  int64_t *uptr;          /**< ngroups + 1 offsets into ucols */
  int32_t *ucols;         /**< distinct columns of each group, ascending */
  void *entries;          /**< packed {value, local index} (8 B float, 16 B double), row i's
                                   at rowptr[i] + i, closed by a sentinel {0, INT32_MAX}:
                                   nnz + m in all */
  int64_t ndistinct;      /**< uptr[ngroups]: sum of the groups' distinct columns */
  int64_t max_distinct;   /**< longest list */
  int64_t max_group_nnz;  /**< most entries in one group */
  int prefer_direct;      /**< variant 0 resolves to the direct (unstaged) kernel: set by the
                                   backend from gcoo__dispatch_tuned_direct (kernels/spdm/dispatch.c) */
  int prefer_resident;    /**< variant 0 resolves to the X-resident kernel (needs xres) */
  gcoo_cuda_xres xres;    /**< the X-resident layout: built on demand
                                   (gcoo_cuda_tuned_build_resident), zeroed until then */
  int prefer_split;       /**< variant 0 resolves to the row-split kernel (needs split) */
  gcoo_cuda_split split;  /**< the row-split layout: built on demand
                                   (gcoo_cuda_tuned_build_split), zeroed until then */
  /* The shape trial's choice (kernels/spdm/op_trial.c, docs/dispatch.md): at N = shape_n,
   * variant 0 runs the direct kernel in blocks of shape_rows rows (1..32) with shape_vpt
   * 16-byte vectors a thread (1, 2 or 4); shape_n = 0 (or another N): the rules above. */
  int64_t shape_n;
  int32_t shape_rows, shape_vpt;
  /* ... and with shape_batch > 0 the batched kernel (kernels/spdm/spdm_batched.cu) instead, batches
   * of shape_batch entries, rows longest first when shape_ordered */
  int32_t shape_batch, shape_ordered;
  int64_t *row_order; /**< A's rows, longest first (stable): built on demand
                                   (gcoo_cuda_tuned_build_order), NULL until then */
} gcoo_cuda_tuned;

/* ---- conversions (kernels/convert/) --------------------------------------------------------- */

/** GCOO of S = A^T from the device CSR of A, groups of p rows of A (CUB radix sort by
 *  (group, column), stable, so rows stay ascending inside a column). Allocates S's arrays. */
gcoo_status gcoo_cuda_csr_to_gcoo(const gcoo_cuda_csr *A, int32_t p, gcoo_cuda_gcoo *S,
                                  void *stream);

/** GCOO of S = A^T from a dense row-major A (m x k, leading dimension lda) on the device, the
 *  paper's way: count per group, CUB scan, fill. Exact zeros are dropped (as on the CPU).
 *  Synchronises the stream once (to size the arrays). A column-major S (k x m, ld) is the same
 *  buffer as this A. */
gcoo_status gcoo_cuda_dense_to_gcoo(gcoo_dtype dtype, int64_t m, int64_t k, const void *A,
                                    int64_t lda, int32_t p, gcoo_cuda_gcoo *S, void *stream);

/** Free the arrays of S (accepts a zeroed struct). */
void gcoo_cuda_gcoo_free(gcoo_cuda_gcoo *S);

/** The tuned layout for group width p (builds the GCOO of S on the way; keeps it in *S_keep when
 *  S_keep is not NULL, frees it otherwise). L borrows A's rowptr, colind and values. */
gcoo_status gcoo_cuda_tuned_build(const gcoo_cuda_csr *A, int32_t p, gcoo_cuda_tuned *L,
                                  gcoo_cuda_gcoo *S_keep, void *stream);
void gcoo_cuda_tuned_free(gcoo_cuda_tuned *L);

/** Build L->xres, the X-resident layout (a stable sort of A's rows by length, a scan and a fill;
 *  synchronises the stream once to size it). Needs L built by gcoo_cuda_tuned_build from the
 *  same CSR; a no-op when L->xres is already built. gcoo_cuda_tuned_free frees it too. */
gcoo_status gcoo_cuda_tuned_build_resident(const gcoo_cuda_csr *A, gcoo_cuda_tuned *L,
                                           void *stream);

/** Build L->row_order, A's rows longest first (a stable CUB radix sort of their lengths), for
 *  the batched kernel's ordered variants; a no-op when already built. gcoo_cuda_tuned_free frees
 *  it too. */
gcoo_status gcoo_cuda_tuned_build_order(const gcoo_cuda_csr *A, gcoo_cuda_tuned *L, void *stream);

/** Build L->split, the row-split layout, with pieces of `piece` entries (0: from
 *  gcoo_cuda_split_piece) and a workspace `ncols_hint` columns wide (rounded up to 128, at most
 *  512, narrower when GCOO_SPLIT_MAX_WORK_BYTES requires). A count, three scans and a fill on the
 *  GPU; synchronises the stream once to size it. Needs L built by gcoo_cuda_tuned_build from the
 *  same CSR; a no-op when L->split is already built. gcoo_cuda_tuned_free frees it too. */
gcoo_status gcoo_cuda_tuned_build_split(const gcoo_cuda_csr *A, int32_t piece, int64_t ncols_hint,
                                        gcoo_cuda_tuned *L, void *stream);

/** Build L->split.item_order, the row-split items longest first (a stable CUB radix sort of
 *  their lengths), so that a warp's slots and the grid's first blocks take items of one length
 *  and the longest start first; L->split.ordered then makes the kernel use it. Needs L->split
 *  built; a no-op when the order is already built. */
gcoo_status gcoo_cuda_tuned_build_split_order(const gcoo_cuda_csr *A, gcoo_cuda_tuned *L,
                                              void *stream);

/** 1 when the X-resident kernel can hold a tile of X (k + 8 rows, at least 16 bytes wide) in one
 *  block's shared memory on this device: k + 8 <= smem_per_block_optin / 16 (k <= 14 520 on an
 *  H200). */
int gcoo_cuda_resident_fits(int64_t k, const gcoo_cuda_devinfo *dev);

/** Offset of the R + 1 split points for R parts in gcoo_cuda_xres.splits (R a power of two). */
int gcoo_cuda_xres_split_base(int R);

/** Reuse statistics for dispatch: distinct[i] = number of distinct (row / 2^i, column) pairs of A
 *  for i = 0 .. nlog - 1, i.e. the summed length of the groups' column lists at p = 2^i. The
 *  reuse a group width offers is nnz / distinct[i]. One sort of A's entries by column.
 *  Synchronises the stream (the counts come back to the host). nlog <= 16. */
gcoo_status gcoo_cuda_reuse_stats(const gcoo_cuda_csr *A, int nlog, int64_t *distinct,
                                  void *stream);

/** Dense row-major copy of A (m x k, leading dimension ld >= k), zeros included. */
gcoo_status gcoo_cuda_csr_to_dense(const gcoo_cuda_csr *A, void *D, int64_t ld, void *stream);

/** Y = beta Y on a row-major m x n block (beta = 0 writes zeros without reading Y). */
gcoo_status gcoo_cuda_scale(gcoo_dtype dtype, int64_t m, int64_t n, double beta, void *Y,
                            int64_t ldy, void *stream);

/* ---- GCOOSpDM kernels (kernels/spdm/spdm_faithful.cu, kernels/spdm/spdm_tuned.cu) -------------------- */

/** The published kernel (docs/kernels.md, "The paper's kernel"): b = 128 threads, one output column
 *  per thread, the group's COO staged through shared memory in chunks of b, X value kept while the
 *  row repeats, p accumulators in registers. Needs S->p <= 32 (GCOO_ERR_UNSUPPORTED otherwise). */
gcoo_status gcoo_cuda_spdm_faithful(const gcoo_cuda_gcoo *S, double alpha, const void *X,
                                    int64_t ldx, double beta, void *Y, int64_t ldy, int64_t N,
                                    void *stream);

/** How one tuned launch was shaped (what a variant resolved to). */
typedef struct gcoo_cuda_tuned_launch {
  int variant;       /**< the resolved variant id (1 ..) */
  int staged;        /**< 1: X rows staged through shared memory; 0: read directly */
  int vpt;           /**< 16-byte vectors per thread along N */
  int rpt;           /**< rows of A per thread */
  int threads;       /**< threads per block */
  int chunk;         /**< X rows staged per chunk */
  int passes;        /**< row passes per group (1 unless p > threads/8 * rpt) */
  int tile_cols;     /**< columns of Y per block */
  size_t smem;       /**< dynamic shared memory per block, bytes */
  int resident;      /**< 1: the X-resident kernel (tile of X in shared memory, A streamed) */
  int splits;        /**< resident: parts the slices of A are cut into (blocks per tile) */
  int rowsplit;      /**< 1: the row-split kernel (long rows cut into pieces) */
  int piece;         /**< row-split: most entries of a work item */
  int blocks_per_sm; /**< occupancy the launcher computed */
  int tensor_core;   /**< 1: the tensor-core (TF32) kernel of kernels/spdm/spdm_tc.cu */
  int tc_ksplit;     /**< tensor-core kernel: warps a window (1, 2 or 4: its k-tiles split) */
  int block_rows;    /**< rows of A a block (tuned kernel: p, or the shape trial's for direct) */
  int batch;         /**< the batched kernel: entries of a row a lane's X loads cover (0: not it) */
  int ordered;       /**< the batched kernel ran the rows longest first */
} gcoo_cuda_tuned_launch;

/** Number of tuned variants (ids 1 .. count); id 0 lets the launcher choose: the shape trial's
 *  direct kernel at N = L->shape_n, else the direct kernel when L->prefer_direct, else the staged
 *  one, with the vectors per thread from N and the grid. */
int gcoo_cuda_tuned_variant_count(void);
/** 1 when the variant is an X-resident one (it needs L->xres). */
int gcoo_cuda_tuned_variant_resident(int variant);
/** 1 when the variant is a row-split one (it needs L->split). */
int gcoo_cuda_tuned_variant_split(int variant);
/** 1 when the variant is a batched one with the rows longest first (it needs L->row_order). */
int gcoo_cuda_tuned_variant_ordered(int variant);
/** Short name of a variant ("staged-v4", "direct-v2", ...); "auto" for 0. */
const char *gcoo_cuda_tuned_variant_name(int variant);

/** The tuned GCOOSpDM (docs/kernels.md). variant 0: chosen from p and N. Any N >= 0; 16-byte
 *  loads and stores when X, Y and their leading dimensions allow, element-wise otherwise.
 *  *chosen (optional) receives the launch shape. */
gcoo_status gcoo_cuda_spdm_tuned(const gcoo_cuda_tuned *L, int variant,
                                 const gcoo_cuda_devinfo *dev, double alpha, const void *X,
                                 int64_t ldx, double beta, void *Y, int64_t ldy, int64_t N,
                                 void *stream, gcoo_cuda_tuned_launch *chosen);

/** The row-split variant (kernels/spdm/spdm_split.cu): 8 lanes per work item of L->split, tiles of
 *  vpt 16-byte packs a lane (vpt 0: the widest that keeps the grid full), partial sums of long
 *  rows through the workspace and a second kernel. Needs L->split (GCOO_ERR_UNSUPPORTED
 *  without it). gcoo_cuda_spdm_tuned reaches it through the "split" variants. */
gcoo_status gcoo_cuda_spdm_split(const gcoo_cuda_tuned *L, int vpt, const gcoo_cuda_devinfo *dev,
                                 double alpha, const void *X, int64_t ldx, double beta, void *Y,
                                 int64_t ldy, int64_t N, void *stream,
                                 gcoo_cuda_tuned_launch *chosen);

/** The batched kernel (kernels/spdm/spdm_batched.cu): the direct kernel's slots of 8 lanes a row,
 *  but each lane issues the X loads of `batch` entries (16 or 32 at vpt 1, 16 at vpt 2, 8 at
 *  vpt 4) before their FMAs; block_rows rows a block (1..16); rows longest first when `ordered`
 *  (needs L->row_order). Only the 16-byte path: X aligned, ldx and N multiples of the pack
 *  (GCOO_ERR_INVALID_ARG otherwise). gcoo_cuda_spdm_tuned reaches it through the "batch"
 *  variants and the shape trial. */
gcoo_status gcoo_cuda_spdm_batched(const gcoo_cuda_tuned *L, int batch, int vpt, int ordered,
                                   int block_rows, const gcoo_cuda_devinfo *dev, double alpha,
                                   const void *X, int64_t ldx, double beta, void *Y, int64_t ldy,
                                   int64_t N, void *stream, gcoo_cuda_tuned_launch *chosen);
/** 1 when the batched kernel has an instance for batches of `batch` at `vpt` vectors a lane. */
int gcoo_cuda_batched_supported(int batch, int vpt);
/** 1 when X (k rows, leading dimension ldx, elements of elem_size bytes) is small enough for the
 *  batched kernel's 32-bit offsets (k x ldx / elements a 16-byte pack < 2^31). */
int gcoo_cuda_batched_fits(int64_t k, int64_t ldx, int elem_size);

/** The X-resident variant (kernels/spdm/spdm_resident.cu): a block holds a column tile of X (k + 8
 *  rows, tnp 16-byte packs wide) in shared memory and streams its part of A's slices past it.
 *  tnp 0: the widest tile that fits and N needs. Needs L->xres (GCOO_ERR_UNSUPPORTED without it,
 *  or when the tile does not fit: gcoo_cuda_resident_fits). gcoo_cuda_spdm_tuned reaches it
 *  through the "resident" variants. */
gcoo_status gcoo_cuda_spdm_resident(const gcoo_cuda_tuned *L, int tnp, const gcoo_cuda_devinfo *dev,
                                    double alpha, const void *X, int64_t ldx, double beta, void *Y,
                                    int64_t ldy, int64_t N, void *stream,
                                    gcoo_cuda_tuned_launch *chosen);

/* ---- the tensor-core mode (kernels/spdm/spdm_tc.cu; GCOO_MATH_TF32, float only) ------------------ */

/** Rows of a window (a GCOO group at p = 16) and columns of a k-tile: the A operand of the
 *  TF32 mma m16n8k8. */
#define GCOO_TC_ROWS 16
#define GCOO_TC_K 8
/** Where entry (row r, column c) of a 16 x 8 tile is stored: in the mma's A-fragment order, lane
 *  (r % 8) * 4 + c % 4 holding 4 consecutive values (registers a0..a3: rows r, r + 8 at columns
 *  c, c + 4), so that a lane loads its fragment with one 16-byte load. */
#define GCOO_TC_SLOT(r, c) (((((r) % 8) * 4 + (c) % 4) * 4) + (r) / 8 + 2 * ((c) / 4))

/** The tensor-core layout (docs/kernels.md, "The tensor-core mode"): for each window of 16 rows of
 *  A, its distinct columns (borrowed from the tuned layout at p = 16) cut into k-tiles of 8, each
 *  stored as a dense 16 x 8 tile of A's values rounded to TF32 (in fragment order, GCOO_TC_SLOT),
 *  zeros where a row has no entry. */
typedef struct gcoo_cuda_tc {
  int64_t m, k;
  int64_t nwin;         /**< windows: ceil(m / 16) */
  int64_t ntiles;       /**< tiles in all: sum over windows of ceil(distinct / 8) */
  const int64_t *uptr;  /**< borrowed: nwin + 1 offsets into ucols */
  const int32_t *ucols; /**< borrowed: distinct columns of each window, ascending */
  int64_t *tile_off;    /**< nwin + 1: window w's tiles are tile_off[w] .. tile_off[w + 1] */
  float *tiles;         /**< ntiles x 16 x 8 values */
  /** for 1, 2, 4 warps a window (its k-tiles split between them): block iterations summed over
   *  the grid, and the longest block's; the launcher picks the warps a window from them */
  int64_t ks_iters[3], ks_longest[3];
  int force_ksplit; /**< 0: the launcher's estimate; 1, 2 or 4 warps a window (AUTO's TF32
                         trial times the three and keeps the fastest; tests, GCOO_TC_KSPLIT) */
  int force_cols;   /**< 0: the launcher picks; tiles of 32, 64 or 128 columns of Y, no wider
                         than N needs (AUTO's TF32 trial times them; tests, GCOO_TC_COLS) */
  int32_t *rowmap;  /**< m: row r of the layout is row rowmap[r] of A and Y; NULL: row r.
                           Device memory, owned (gcoo_cuda_tc_free frees it) */
} gcoo_cuda_tc;

/** A row order for the tensor-core windows (kernels/spdm/tc_order.c, on the host): order[r] is the
 *  row of A (CSR ptr/ind, m x k) placed r-th, rows sharing columns put into the same window of
 *  `rows` rows; *tiles_natural / *tiles_ordered: the tiles (ceil(distinct columns / kcols) a
 *  window) of the natural order and of this one, for the caller to choose. */
gcoo_status gcoo__tc_row_order(const int64_t *ptr, const int32_t *ind, int64_t m, int64_t k,
                               int rows, int kcols, int32_t *order, int64_t *tiles_natural,
                               int64_t *tiles_ordered);

/** *tiles: ceil(distinct columns / kcols) summed over the windows of `rows` rows of A taken in
 *  `order` (NULL: A's own), the count gcoo__tc_row_order compares; kcols = 1 gives the distinct
 *  columns themselves (the benchmark's reuse of a block of rows, bench/spdm_order.c). */
gcoo_status gcoo__tc_window_tiles(const int64_t *ptr, const int32_t *ind, int64_t m, int64_t k,
                                  const int32_t *order, int rows, int kcols, int64_t *tiles);

/** Build T from L (the tuned layout of a float A at p = GCOO_TC_ROWS; T borrows its column
 *  lists, so L must outlive T). Synchronises the stream (the tile count comes to the host).
 *  L may be the layout of A's rows in another order (gcoo__tc_row_order): T->rowmap then maps
 *  each of L's rows to its row of Y (set by the caller after the build; NULL: the same row). */
gcoo_status gcoo_cuda_tc_build(const gcoo_cuda_tuned *L, gcoo_cuda_tc *T, void *stream);
void gcoo_cuda_tc_free(gcoo_cuda_tc *T);

/** Y = alpha A X + beta Y with TF32 tensor cores (FP32 accumulate), float only. Per element
 *  |y - exact| <= (2^-10 + (n_i + 4) 2^-23) |alpha| (|A||X|)_ij, n_i the entries of
 *  row i (docs/kernels.md, "The tensor-core mode"). beta = 0 does not read Y. */
gcoo_status gcoo_cuda_spdm_tc(const gcoo_cuda_tc *T, const gcoo_cuda_devinfo *dev, double alpha,
                              const void *X, int64_t ldx, double beta, void *Y, int64_t ldy,
                              int64_t N, void *stream, gcoo_cuda_tuned_launch *chosen);

/** Queue a kernel that spins for about `us` microseconds on the stream (kernels/backend/cuda_spin.cu):
 *  launches queued behind it run back to back, so per-launch events time the GPU alone. */
void gcoo_cuda_spin(void *stream, double us);

/* ---- the backend's extras (kernels/backend/, kernels/spdm/op_cuda.c, kernels/convert/transfer.c), for bench/ and tests/gpu --------------- */

/** Upload a host CSR object; free with gcoo_cuda_csr_free. */
gcoo_status gcoo_cuda_csr_upload(gcoo_sparse A, gcoo_cuda_csr *d, void *stream);
void gcoo_cuda_csr_free(gcoo_cuda_csr *d);
/** Host GCOO object with the arrays of S (synchronises the stream). */
gcoo_status gcoo_cuda_gcoo_download(const gcoo_cuda_gcoo *S, gcoo_sparse *out, void *stream);

/** The device properties a CUDA context read at creation. */
gcoo_status gcoo_cuda_ctx_devinfo(gcoo_ctx ctx, gcoo_cuda_devinfo *info);

/** Developer options of a CUDA operator (the benchmark's sweep uses them). */
typedef enum gcoo_cuda_op_option {
  GCOO_CUDA_OPT_TUNED_VARIANT = 1,    /**< force a tuned variant id (0 = choose) */
  GCOO_CUDA_OPT_CUSPARSE_NO_CLEAR = 2 /**< 1 (default): with beta = 0, cuSPARSE overwrites Y
                                          without reading it; 0: zero Y first. cuSPARSE does not
                                          document it, but in the SpDM benchmark on an H200
                                          (bench/results/h200-spdm-full.txt) every cuSPARSE
                                          apply (146 cases x 3 algorithms) overwrote a
                                          NaN-poisoned Y; tests/gpu/t302 checks it on each run.
                                          The clear cost AUTO 10-28 % on small products. */
} gcoo_cuda_op_option;
gcoo_status gcoo_cuda_op_set_option(gcoo_op op, gcoo_cuda_op_option key, int64_t value);

/** What a CUDA operator decided and why (for reports and the dispatch refit). */
typedef struct gcoo_cuda_op_details {
  gcoo_spdm_alg alg; /**< resolved algorithm */
  int32_t p;         /**< group width (GCOO algorithms), 0 otherwise */
  int variant;       /**< forced tuned variant, 0 = chosen per apply */
  double reuse;      /**< nnz / distinct columns of the groups at p (0 when not built) */
  int nstats;        /**< entries of distinct_by_log2p (0: statistics not computed) */
  int64_t distinct_by_log2p[16];
  int tensor_cores;            /**< the tensor-core kernel (GCOO_MATH_TF32) serves the applies */
  gcoo_cuda_tuned_launch last; /**< shape of the last tuned launch */
  char why[1024];              /**< the dispatch rule's reason (and the trials'), or "forced" */
} gcoo_cuda_op_details;
gcoo_status gcoo_cuda_op_get_details(gcoo_op op, gcoo_cuda_op_details *d);

#ifdef __cplusplus
}
#endif
#endif
