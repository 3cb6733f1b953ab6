/* SPDX-License-Identifier: MIT */
/* io/h5_impl.h: what the io/h5*.c files share: object paths, HDF5 error capture, the rank group
 * a call runs on (one process, or an MPI communicator), element kinds and their conversions,
 * attribute and dataset helpers, range transfers in rounds, and the temp-file write engine.
 *
 * One code path serves the serial and the parallel API: a serial call runs on a "comm" of one
 * process without MPI, so every check, conversion and message is written once.
 *
 * Collective discipline: inside a collective section no rank may leave early. Local failures are
 * kept in a sticky status (helpers taking `gcoo_status *st` do nothing but take part in the
 * collective transfers once *st < 0) and gcoo__h5_agree() makes every rank leave together. */
#ifndef GCOO_IO_H5_IMPL_H
#define GCOO_IO_H5_IMPL_H

#include <hdf5.h>

#include "backend_impl.h"
#include "gcoo/h5.h"

#if GCOO_HAVE_MPI
#include "mpi_check.h" /* <mpi.h> and GCOO_MPI */
#endif

#ifndef H5I_INVALID_HID
#define H5I_INVALID_HID (-1)
#endif

/* ---- object paths "file.h5:/group" ------------------------------------------------------- */
typedef struct gcoo__h5_path {
  char *file;   /* file name */
  char *object; /* "/" or "/a/b" (normalised: leading '/', no trailing or double '/') */
} gcoo__h5_path;

gcoo_status gcoo__h5_path_parse(const char *path, gcoo__h5_path *p);
void gcoo__h5_path_free(gcoo__h5_path *p);
/** "file:/object[/member]" for messages, into buf. */
const char *gcoo__h5_label(char *buf, size_t len, const gcoo__h5_path *p, const char *member);
enum { GCOO_H5_LABEL = 1024 };

/* ---- HDF5 errors ------------------------------------------------------------------------------
 * Public entry points switch HDF5's automatic error printing off and restore it on the way out,
 * so the library never prints; a failed HDF5 call becomes a gcoo error whose message quotes the
 * innermost description of HDF5's error stack and the API function that failed. */
typedef struct gcoo__h5_quiet {
  H5E_auto2_t func;
  void *data;
  int saved;
} gcoo__h5_quiet;
void gcoo__h5_quiet_begin(gcoo__h5_quiet *q);
void gcoo__h5_quiet_end(const gcoo__h5_quiet *q);
/** A public entry point's body: return the status of expr (a gcoo_status expression, the
 *  traceback kept) evaluated with HDF5's error printing off. */
#define GCOO_H5_RETURN_QUIETLY(expr) \
  do {                               \
    gcoo__h5_quiet q_;               \
    gcoo__h5_quiet_begin(&q_);       \
    gcoo_status s_ = (expr);         \
    gcoo__h5_quiet_end(&q_);         \
    GCOO_CALL(s_);                   \
    return s_;                       \
  } while (0)

gcoo_status gcoo__h5_raise(gcoo_status st, const char *file, int line, const char *func,
                           const char *fmt, ...) GCOO_PRINTF(5, 6);

/** Run an HDF5 call (an expression, may be an assignment); on a negative result raise `code`
 *  with the context message and HDF5's own, and go to done. */
#define H5_TRY_AS(code, expr, ...)                                            \
  do {                                                                        \
    if ((int64_t)(expr) < 0) {                                                \
      st = gcoo__h5_raise((code), __FILE__, __LINE__, __func__, __VA_ARGS__); \
      goto done;                                                              \
    }                                                                         \
  } while (0)
#define H5_TRY(expr, ...) H5_TRY_AS(GCOO_ERR_HDF5, expr, __VA_ARGS__)

/** Close any HDF5 identifier (file, group, dataset, attribute, space, type, property list) and
 *  set it to H5I_INVALID_HID; no-op for invalid ones. */
void gcoo__h5_close(hid_t *id);

/* ---- the ranks a call runs on ------------------------------------------------------------- */
typedef struct gcoo__h5_comm {
  int rank, size;
  int mpi;         /* comm holds a duplicate owned by this struct */
  int mpio;        /* files opened through MPI-IO by every rank together (collective transfers) */
  int write_flags; /* a write's GCOO_H5_* flags (gcoo/h5.h); 0 for reads */
#if GCOO_HAVE_MPI
  MPI_Comm comm;
#endif
} gcoo__h5_comm;

/** One process, no MPI. */
void gcoo__h5_comm_serial(gcoo__h5_comm *c);
#if GCOO_HAVE_MPI
/** Duplicate comm and decide (on every rank alike) whether MPI-IO is used. Collective. */
gcoo_status gcoo__h5_comm_dup(gcoo__h5_comm *c, MPI_Comm comm, int for_writing);
#endif
void gcoo__h5_comm_free(gcoo__h5_comm *c);

/** A file watched across a read: a descriptor opened before the reads and its size then. HDF5's
 *  POSIX driver returns zeros for bytes past the end of a file, so a file truncated between
 *  open and read would be read as zeros without an error; after the reads, guard_check fails
 *  with GCOO_ERR_IO when the file shrank. The descriptor (not the path) is checked, so a file
 *  that is unlinked but intact still reads correctly. Not collective. */
typedef struct gcoo__h5_guard {
  int fd;
  int64_t size;
} gcoo__h5_guard;
#define GCOO__H5_GUARD_INIT \
  { -1, 0 }
gcoo_status gcoo__h5_guard_open(gcoo__h5_guard *g, const char *file);
gcoo_status gcoo__h5_guard_check(const gcoo__h5_guard *g, const char *file);
void gcoo__h5_guard_close(gcoo__h5_guard *g);
/** When any rank failed, every rank leaves with an error: a failing rank keeps its own status
 *  and message, the others return GCOO_ERR_REMOTE with the lowest failing rank's message
 *  ("rank R: ...") as theirs (the convention of gcoo_dist_agree). Collective (a no-op for one
 *  process). */
gcoo_status gcoo__h5_agree(const gcoo__h5_comm *c, gcoo_status st);
/** Broadcast bytes from root (any size: sent in pieces below 2^30 bytes). Collective. */
gcoo_status gcoo__h5_bcast(const gcoo__h5_comm *c, void *buf, int64_t bytes, int root);
/** Maximum / sum of v over ranks. Collective. */
int64_t gcoo__h5_max_i64(const gcoo__h5_comm *c, int64_t v);
/** Exclusive prefix sum of v over ranks (0 on rank 0) and total. Collective. */
gcoo_status gcoo__h5_exscan_i64(const gcoo__h5_comm *c, int64_t v, int64_t *before, int64_t *total);
/** Raise GCOO_ERR_INVALID_ARG unless every rank passed the same values (and the same string s,
 *  compared with rank 0's). Collective. */
gcoo_status gcoo__h5_same_on_all(const gcoo__h5_comm *c, const int64_t *v, int n, const char *s,
                                 const char *what);

/* ---- files --------------------------------------------------------------------------------- */
/** Open an existing file for reading (rank 0 checks it exists and is HDF5 first, so a missing
 *  file is GCOO_ERR_IO and a foreign one GCOO_ERR_FORMAT on every rank). Collective. */
gcoo_status gcoo__h5_file_open(const gcoo__h5_comm *c, const char *file, hid_t *fid);
/** Bytes per rank moved in one round: $GCOO_H5_CHUNK_BYTES or 64 MiB. */
int64_t gcoo__h5_chunk_bytes(void);

/** Open the object named by p.object: a group or a dataset. A missing component is
 *  GCOO_ERR_FORMAT naming it and listing what the parent holds. Not collective. */
gcoo_status gcoo__h5_open_object(hid_t fid, const gcoo__h5_path *p, hid_t *obj, int *is_group);

/** "it holds: a, b, c" / "it is empty": the members of a group, for messages. */
const char *gcoo__h5_members(hid_t grp, char *buf, size_t len);

/* ---- element kinds of datasets ---------------------------------------------------------------- */
typedef enum gcoo__h5_kind {
  H5K_NONE = 0,
  H5K_I8,
  H5K_U8,
  H5K_I16,
  H5K_U16,
  H5K_I32,
  H5K_U32,
  H5K_I64,
  H5K_U64,
  H5K_F32,
  H5K_F64
} gcoo__h5_kind;

const char *gcoo__h5_kind_name(gcoo__h5_kind k);
size_t gcoo__h5_kind_size(gcoo__h5_kind k);
int gcoo__h5_kind_is_int(gcoo__h5_kind k);
/** Native memory type of a kind (H5T_NATIVE_INT32, ...). */
hid_t gcoo__h5_kind_native(gcoo__h5_kind k);
/** Little-endian file type written for a kind (what numpy writes on x86 and ARM). */
hid_t gcoo__h5_kind_file(gcoo__h5_kind k);
gcoo__h5_kind gcoo__h5_kind_of_dtype(gcoo_dtype t);

/** An open numeric dataset. */
typedef struct gcoo__h5_dset {
  hid_t id;
  gcoo__h5_kind kind;
  int ndims;
  int64_t dims[2];
  char label[GCOO_H5_LABEL];
} gcoo__h5_dset;

#define GCOO__H5_DSET_INIT \
  { H5I_INVALID_HID, H5K_NONE, 0, {0, 0}, "" }

/** Open a numeric dataset: name relative to loc (NULL: loc itself is the dataset). Integer or
 *  float elements only (GCOO_ERR_FORMAT otherwise, naming the type), stored in the file itself:
 *  virtual and external-storage datasets and non-empty ones whose storage was never (or only
 *  partly) written are GCOO_ERR_FORMAT (HDF5 would read zeros for what is missing), a filter
 *  this HDF5 cannot load GCOO_ERR_UNSUPPORTED naming it. Not collective. */
gcoo_status gcoo__h5_dset_open(hid_t loc, const char *name, const char *label, gcoo__h5_dset *d);
void gcoo__h5_dset_close(gcoo__h5_dset *d);

/* ---- attributes -------------------------------------------------------------------------------- */
/** *found = 0 and buf "" when absent; string attributes of every flavour h5py writes. */
gcoo_status gcoo__h5_attr_string(hid_t obj, const char *name, const char *label, char *buf,
                                 size_t len, int *found);
/** n integers (any integer type; scalar allowed for n = 1). *found = 0 when absent. */
gcoo_status gcoo__h5_attr_ints(hid_t obj, const char *name, const char *label, int64_t *v, int n,
                               int *found);
/** Variable-length UTF-8 scalar string attribute, as h5py writes str. Collective with MPI-IO. */
gcoo_status gcoo__h5_attr_write_string(hid_t obj, const char *name, const char *v);
/** int64 attribute: a scalar (n = 0) or an array of n. Collective with MPI-IO. */
gcoo_status gcoo__h5_attr_write_ints(hid_t obj, const char *name, const int64_t *v, int n);

/* ---- conversions (io/h5_convert.c) ---------------------------------------------------------- */
/** Convert n elements of kind k to int64 / to non-negative int32 / to values of dtype. Returns
 *  the position of the first element that does not fit (negative or too large for the target;
 *  for values: NaN or infinite after conversion), or -1. */
int64_t gcoo__h5_to_i64(gcoo__h5_kind k, const void *src, int64_t n, int64_t *dst);
int64_t gcoo__h5_to_index(gcoo__h5_kind k, const void *src, int64_t n, int32_t *dst);
int64_t gcoo__h5_to_values(gcoo__h5_kind k, const void *src, int64_t n, gcoo_dtype t, void *dst);
/** Position of the first NaN/infinite value of dtype t in v[0..n), or -1. */
int64_t gcoo__h5_first_nonfinite(gcoo_dtype t, const void *v, int64_t n);
/** Value i of kind k as a double (for messages). */
double gcoo__h5_value_at(gcoo__h5_kind k, const void *src, int64_t i);
/** Strided 2-D copy with conversion: dst[i*dsi + j*dsj] = src[i*ssi + j*ssj] for i < m, j < n,
 *  src of kind k, dst of dtype t. Returns the first (i * n + j) that is not finite, or -1. */
int64_t gcoo__h5_copy2d(gcoo__h5_kind k, const void *src, int64_t ssi, int64_t ssj, gcoo_dtype t,
                        void *dst, int64_t dsi, int64_t dsj, int64_t m, int64_t n);

/* ---- transfers ---------------------------------------------------------------------------------- */
/** Number of rounds every rank makes: the maximum over ranks of `mine` with collective I/O,
 *  `mine` otherwise. Collective with MPI-IO. */
int64_t gcoo__h5_rounds(const gcoo__h5_comm *c, int64_t mine);
/** One read (write = 0) or write of the elements selected in fspace, to/from a contiguous buffer
 *  of n elements of kind k. With MPI-IO every rank calls, with n = 0 and an empty selection when
 *  it has nothing; the transfer is collective when the ranks' selections are disjoint, else
 *  independent (see io/h5_transfer.c). */
gcoo_status gcoo__h5_xfer(const gcoo__h5_comm *c, hid_t dset, int write, gcoo__h5_kind k,
                          hid_t fspace, int64_t n, void *buf, const char *label);
/** Elements [start, start + count) of a 1-D dataset into dst converted to tkind (H5K_I64,
 *  H5K_I32 as non-negative indices, H5K_F32/H5K_F64 as finite values), in rounds. Sticky *st.
 *  Collective with MPI-IO. */
/** Convert (or, direct: check in place) n elements now in buf, elements [start + first, ...)
 *  of d, into dst + first; names the first element that does not fit. */
gcoo_status gcoo__h5_convert_round(const gcoo__h5_dset *d, int64_t start, int64_t first, int64_t n,
                                   gcoo__h5_kind tkind, const void *buf, int direct, void *dst);

/* ---- direct reads (io/h5_direct.c) ---------------------------------------------------------- */
/** Where a dataset's elements lie in the file, for reading them without HDF5. */
typedef struct gcoo__h5_direct {
  int fd;         /* the file's own descriptor (HDF5's POSIX driver) */
  int64_t offset; /* byte offset of element 0 */
  int64_t nbytes; /* the dataset's bytes */
} gcoo__h5_direct;
/** 1 when d can be read directly as tkind (contiguous, allocated, no filters or external
 *  storage, the file type equal to the native tkind, a POSIX-driver file without user block);
 *  0 otherwise (HDF5's error stack cleared). */
int gcoo__h5_direct_find(const gcoo__h5_dset *d, gcoo__h5_kind tkind, gcoo__h5_direct *w);
/** Elements [start, start + count) of d into dst with parallel preads, checked as
 *  gcoo__h5_read_1d checks them (int32 indices >= 0, finite values); the first bad element or
 *  failed read is reported. Sticky *st. Local (no MPI). */
void gcoo__h5_direct_read(const gcoo__h5_dset *d, const gcoo__h5_direct *w, int64_t start,
                          int64_t count, gcoo__h5_kind tkind, void *dst, gcoo_status *st);

void gcoo__h5_read_1d(const gcoo__h5_comm *c, const gcoo__h5_dset *d, int64_t start, int64_t count,
                      gcoo__h5_kind tkind, void *dst, gcoo_status *st);
/** src[0..count) of kind k into elements [start, start + count) of a 1-D dataset, in rounds;
 *  `add` is added to each element (H5K_I64 only: a rank's indptr offset); float values must be
 *  finite. Sticky *st. Collective with MPI-IO. */
void gcoo__h5_write_1d(const gcoo__h5_comm *c, const gcoo__h5_dset *d, int64_t start, int64_t count,
                       gcoo__h5_kind k, const void *src, int64_t add, gcoo_status *st);

/* ---- the write engine (io/h5_write.c) ------------------------------------------------------------ */
/** The attribute an object carries while it is being written (removed as the last step before
 *  the file is closed): the readers refuse an object that has it, so a temporary file left by a
 *  killed job is never read as a result. */
#define GCOO__H5_INCOMPLETE "gcoo-incomplete"
#define GCOO__H5_INCOMPLETE_TEXT \
  "gcoo was writing this object and did not finish: it is not a result"
/** The attribute of an object written with GCOO_H5_NOT_CONVERGED (it stays: readers may look). */
#define GCOO__H5_NOT_CONVERGED "gcoo-not-converged"
#define GCOO__H5_NOT_CONVERGED_TEXT                                                            \
  "the solve that wrote this did not converge: it is its last iterate, not a solution within " \
  "the tolerance asked"

typedef struct gcoo__h5_wdset {
  const char *name; /* inside the group; NULL: the object itself is this dataset (dense) */
  gcoo__h5_kind kind;
  int ndims;
  int64_t dims[2];
} gcoo__h5_wdset;

typedef struct gcoo__h5_wlayout {
  const char *encoding; /* sparse: encoding-type of the group; NULL: one dense dataset */
  int64_t shape[2];
  int64_t p; /* > 0: the GCOO "p" attribute */
  int nd;
  gcoo__h5_wdset d[5];
} gcoo__h5_wlayout;

/** Writes this rank's parts into the open datasets d[0..nd) (labels set); sticky *st.
 *  Called collectively with MPI-IO, else by one rank at a time. */
typedef void (*gcoo__h5_write_fn)(const gcoo__h5_comm *c, const gcoo__h5_dset *d, void *ctx,
                                  gcoo_status *st);

/** Write an object to path through a temporary file and a rename, as gcoo/h5.h says (an update
 *  of an existing HDF5 file keeps its other objects; c->write_flags may allow overwriting). `local` is the
 *  rank's status after its own argument checks (agreed first). Collective. */
gcoo_status gcoo__h5_write_object(const gcoo__h5_comm *c, const char *path,
                                  const gcoo__h5_wlayout *lay, gcoo__h5_write_fn fn, void *ctx,
                                  gcoo_status local);

/** What gcoo__h5_write_object checks before it writes, without writing: the path, the target's
 *  directory, an existing object or file (GCOO_ERR_EXISTS without GCOO_H5_OVERWRITE), a path
 *  through a dataset or an external link, a temporary name that fits. Not collective. */
gcoo_status gcoo__h5_write_check(const char *path, int flags);

/** gcoo_output_overlaps for an HDF5 input (io/h5_identity.c): out_file the output's file as the
 *  writer resolves it, out_object its object (NULL: Matrix Market, the whole file). *hit and the
 *  reason in why. Not collective. */
gcoo_status gcoo__h5_overlap(const char *out_file, const char *out_object, const char *in, int *hit,
                             char *why, size_t len);

/* ---- sparse objects (io/h5_sparse.c) ---------------------------------------------------------- */
struct gcoo_h5_sparse_file_s {
  uint64_t magic;
  gcoo__h5_comm c;
  gcoo__h5_path path;
  hid_t fid;
  gcoo__h5_dset d[3]; /* CSR/CSC: indices, data; GCOO: rows, cols, values */
  gcoo_h5_info info;
  int64_t *ptr;         /* nmajor + 1 (indptr or gIdxes) */
  gcoo__h5_guard guard; /* the file, watched across the slab reads */
};
#define GCOO_MAGIC_H5_SPARSE 0x67636f6f68357370ull /* "gcooh5sp" */

/** Open (c is taken over: freed by close). with_ptr = 0 skips reading the pointer array
 *  (inspect). Collective. */
gcoo_status gcoo__h5_sparse_open(gcoo__h5_comm *c, const char *path, int with_ptr,
                                 struct gcoo_h5_sparse_file_s **f);
gcoo_status gcoo__h5_sparse_read_slab(struct gcoo_h5_sparse_file_s *f, gcoo_dtype dtype,
                                      int64_t begin, int64_t end, gcoo_sparse *slab);
gcoo_status gcoo__h5_sparse_close(struct gcoo_h5_sparse_file_s **f);
/** Write the rows [row0, row0 + rows of slab) of a CSR matrix (slab in CSR), or with one process
 *  a whole matrix in its own format. Collective. */
gcoo_status gcoo__h5_sparse_write(const gcoo__h5_comm *c, const char *path, int64_t nmajor_global,
                                  int64_t major0, gcoo_sparse slab, gcoo_status local);

/* ---- dense datasets (io/h5_dense.c) ------------------------------------------------------------ */
/** Describe a dense dataset (info) without reading it. Not collective. */
gcoo_status gcoo__h5_dense_describe(const gcoo__h5_dset *d, const char *layout_attr,
                                    gcoo_h5_info *info);
/** Which rows a dense read takes. */
enum { GCOO__H5_ROWS_RANGE = 0, GCOO__H5_ROWS_SET = 1, GCOO__H5_ROWS_ALL = 2 };
/** Read rows of a dense dataset: the range [row0, row0 + n) (RANGE), the strictly increasing
 *  rows[0..n) (SET) or all rows (ALL). D is allocated. Collective. */
gcoo_status gcoo__h5_dense_read(const gcoo__h5_comm *c, const char *path, gcoo_dtype dtype,
                                int64_t row0, const int64_t *rows, int64_t n, int mode,
                                gcoo_layout layout, gcoo_dense *D);
/** The checks a writer makes on its own matrix before any file is touched. Not collective. */
gcoo_status gcoo__h5_dense_check_host(const gcoo_dense *D);
/** Write rows [row0, row0 + D->nrows) of an nrows_global x D->ncols dataset. Collective. */
gcoo_status gcoo__h5_dense_write(const gcoo__h5_comm *c, const char *path, int64_t nrows_global,
                                 int64_t row0, const gcoo_dense *D, gcoo_status local);

#endif
