/* SPDX-License-Identifier: MIT */
/* io/h5_common.c: what every HDF5 file of gcoo goes through: "file.h5:/group" paths, HDF5's
 * error stack turned into gcoo messages, the ranks of a call (one process or an MPI
 * communicator) and their agreement, opening files and objects with helpful messages, element
 * kinds, and the attributes scipy/h5py/anndata write. */
#define _POSIX_C_SOURCE 200809L /* strtok_r, stat, access, fsync */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>
#include "h5_impl.h"
#include "params.h"
#include "publish.h"

/* ---- paths ------------------------------------------------------------------------------------ */

/* Extensions after which a ':' starts the object path (checked without case). */
static const char *const h5_extensions[] = {".h5", ".hdf5", ".hdf", ".he5", ".h5ad", ".nc"};

static size_t split_position(const char *s) {
  size_t n = strlen(s);
  for (size_t i = 1; i < n; i++) {
    if (s[i] != ':') continue;
    for (size_t e = 0; e < sizeof h5_extensions / sizeof h5_extensions[0]; e++) {
      size_t len = strlen(h5_extensions[e]);
      if (i >= len + 1 && !strncasecmp(s + i - len, h5_extensions[e], len)) return i;
    }
  }
  const char *last = NULL;
  for (const char *q = strstr(s, ":/"); q; q = strstr(q + 1, ":/")) last = q;
  return last && last != s ? (size_t)(last - s) : n;
}

gcoo_status gcoo__h5_path_parse(const char *path, gcoo__h5_path *p) {
  gcoo_status st = GCOO_SUCCESS;
  p->file = p->object = NULL;
  GCOO_CHECK(path != NULL, GCOO_ERR_NULL, "HDF5 path is NULL");
  GCOO_CHECK(path[0] != '\0', GCOO_ERR_INVALID_ARG, "HDF5 path is empty");
  size_t n = strlen(path), at = split_position(path);
  GCOO_CHECK(at > 0, GCOO_ERR_INVALID_ARG, "HDF5 path \"%s\" has no file name before ':'", path);
  GCOO_GOTO(gcoo__malloc((void **)&p->file, at + 1, "HDF5 file name"));
  memcpy(p->file, path, at);
  p->file[at] = '\0';
  const char *obj = at < n ? path + at + 1 : "";
  GCOO_GOTO(gcoo__malloc((void **)&p->object, strlen(obj) + 2, "HDF5 object name"));
  /* normalise: one leading '/', no empty components, no trailing '/' */
  size_t k = 0;
  p->object[k++] = '/';
  for (const char *c = obj; *c; c++) {
    if (*c == '/' && (p->object[k - 1] == '/')) continue;
    p->object[k++] = *c;
  }
  if (k > 1 && p->object[k - 1] == '/') k--;
  p->object[k] = '\0';
  /* HDF5 resolves neither "." nor ".." in a path: a writer would create a group named "..", a
   * reader fail deep inside HDF5 */
  for (const char *c = p->object; *c; c++) {
    if (c[0] != '/') continue;
    size_t len = strcspn(c + 1, "/");
    GCOO_CHECK_GOTO(!((len == 1 && c[1] == '.') || (len == 2 && c[1] == '.' && c[2] == '.')),
                    GCOO_ERR_INVALID_ARG,
                    "HDF5 path \"%s\": \"%.*s\" is not an object name (HDF5 paths have no \".\" "
                    "or \"..\"): name the object by its path from the root group, e.g. %s:/A",
                    path, (int)len, c + 1, p->file);
  }
done:
  if (st < 0) gcoo__h5_path_free(p);
  return st;
}

void gcoo__h5_path_free(gcoo__h5_path *p) {
  free(p->file);
  free(p->object);
  p->file = p->object = NULL;
}

const char *gcoo__h5_label(char *buf, size_t len, const gcoo__h5_path *p, const char *member) {
  int root = !strcmp(p->object, "/");
  if (member)
    snprintf(buf, len, "%s:%s/%s", p->file, root ? "" : p->object, member);
  else
    snprintf(buf, len, "%s:%s", p->file, p->object);
  return buf;
}

/* ---- HDF5 errors -------------------------------------------------------------------------- */

void gcoo__h5_quiet_begin(gcoo__h5_quiet *q) {
  q->func = NULL;
  q->data = NULL;
  /* an application that installed an H5Eset_auto1 handler cannot have it read back through
   * the v2 call: leave its setting alone then (HDF5 may print) rather than lose it */
  q->saved = H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) >= 0;
  if (q->saved) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void gcoo__h5_quiet_end(const gcoo__h5_quiet *q) {
  H5Eclear2(H5E_DEFAULT);
  if (q->saved) H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

typedef struct stack_walk {
  int n;
  char inner_desc[640];
  char inner_func[96];
  char inner_minor[160];
  char api[96];
} stack_walk;

/* H5E_WALK_UPWARD visits the innermost (most specific) error first and the API call last. */
static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *data) {
  stack_walk *w = data;
  if (n == 0) {
    gcoo__text_elide(w->inner_desc, sizeof w->inner_desc, e->desc); /* errno text at its end */
    snprintf(w->inner_func, sizeof w->inner_func, "%s", e->func_name ? e->func_name : "");
    if (H5Eget_msg(e->min_num, NULL, w->inner_minor, sizeof w->inner_minor) < 0)
      w->inner_minor[0] = '\0';
  }
  snprintf(w->api, sizeof w->api, "%s", e->func_name ? e->func_name : "");
  w->n++;
  return 0;
}

gcoo_status gcoo__h5_raise(gcoo_status st, const char *file, int line, const char *func,
                           const char *fmt, ...) {
  char full[8192], context[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(full, sizeof full, fmt, ap);
  va_end(ap);
  gcoo__text_elide(context, sizeof context, full);
  stack_walk w;
  memset(&w, 0, sizeof w);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &w);
  H5Eclear2(H5E_DEFAULT);
  if (w.n == 0)
    return gcoo__error(st, file, line, func, "%s: HDF5 call failed (its error stack is empty)",
                       context);
  return gcoo__error(st, file, line, func, "%s: HDF5 %s: %s (%s in %s)", context, w.api,
                     w.inner_desc, w.inner_minor[0] ? w.inner_minor : "error", w.inner_func);
}

void gcoo__h5_close(hid_t *id) {
  if (!id || *id < 0) return;
  switch (H5Iget_type(*id)) {
    case H5I_FILE: H5Fclose(*id); break;
    case H5I_GROUP: H5Gclose(*id); break;
    case H5I_DATASET: H5Dclose(*id); break;
    case H5I_ATTR: H5Aclose(*id); break;
    case H5I_DATASPACE: H5Sclose(*id); break;
    case H5I_DATATYPE: H5Tclose(*id); break;
    case H5I_GENPROP_LST: H5Pclose(*id); break;
    default: break;
  }
  *id = H5I_INVALID_HID;
}

/* ---- ranks ------------------------------------------------------------------------------------ */

void gcoo__h5_comm_serial(gcoo__h5_comm *c) {
  memset(c, 0, sizeof *c);
  c->rank = 0;
  c->size = 1;
#if GCOO_HAVE_MPI
  c->comm = MPI_COMM_NULL;
#endif
}

#if GCOO_HAVE_MPI
/* an MPI call checked by the library's one MPI checker (src/mpi_check.h) */
#define MPI_TRY(call) GCOO_CALL(GCOO_MPI(call))

gcoo_status gcoo__h5_comm_dup(gcoo__h5_comm *c, MPI_Comm comm, int for_writing) {
  int init = 0, fin = 0;
  gcoo__h5_comm_serial(c);
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  GCOO_CHECK(init && !fin, GCOO_ERR_MPI,
             "MPI is %s: call the HDF5 functions between MPI_Init "
             "and MPI_Finalize",
             fin ? "already finalized" : "not initialized");
  GCOO_CHECK(comm != MPI_COMM_NULL, GCOO_ERR_INVALID_ARG, "communicator is MPI_COMM_NULL");
  MPI_TRY(MPI_Comm_dup(comm, &c->comm));
  c->mpi = 1;
  MPI_TRY(MPI_Comm_rank(c->comm, &c->rank));
  MPI_TRY(MPI_Comm_size(c->comm, &c->size));
  /* Reads and writes go through each rank's own POSIX handle (every rank still reads only its
   * hyperslab; writers take turns) unless GCOO_H5_MPIO=1. With Open MPI 4.1.4 + HDF5 1.10, an
   * I/O error on one rank inside collective MPI-IO left the other ranks waiting forever (reads:
   * OMPIO and ROMIO alike; writes: inside H5Fclose, whose error path is not collective), OMPIO
   * turned a failed read into zeros and reported a failed write (ENOSPC) as success
   * (tests/faults, docs/reliability.md §5). Every rank takes the same path. */
  int mpio = 0;
#ifdef H5_HAVE_PARALLEL
  mpio = gcoo__param_bool(GCOO__P_H5_MPIO);
#endif
  (void)for_writing;
  MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &mpio, 1, MPI_INT, MPI_MIN, c->comm));
  c->mpio = mpio;
  return GCOO_SUCCESS;
}
#endif

void gcoo__h5_comm_free(gcoo__h5_comm *c) {
#if GCOO_HAVE_MPI
  if (c->mpi && c->comm != MPI_COMM_NULL) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free(&c->comm);
  }
#endif
  gcoo__h5_comm_serial(c);
}

gcoo_status gcoo__h5_guard_open(gcoo__h5_guard *g, const char *file) {
  struct stat sb;
  g->fd = open(file, O_RDONLY | O_CLOEXEC);
  GCOO_CHECK(g->fd >= 0, GCOO_ERR_IO, "cannot open \"%s\": %s", file, strerror(errno));
  if (fstat(g->fd, &sb) != 0) {
    int e = errno;
    gcoo__h5_guard_close(g);
    return GCOO_ERROR(GCOO_ERR_IO, "cannot stat \"%s\": %s", file, strerror(e));
  }
  g->size = (int64_t)sb.st_size;
  return GCOO_SUCCESS;
}

gcoo_status gcoo__h5_guard_check(const gcoo__h5_guard *g, const char *file) {
  struct stat sb;
  if (g->fd < 0) return GCOO_SUCCESS;
  GCOO_CHECK(fstat(g->fd, &sb) == 0, GCOO_ERR_IO, "cannot stat \"%s\": %s", file, strerror(errno));
  GCOO_CHECK((int64_t)sb.st_size >= g->size, GCOO_ERR_IO,
             "\"%s\" shrank from %lld to %lld bytes while it was read (truncated or rewritten "
             "by another process): what was read is not the file that was opened",
             file, (long long)g->size, (long long)sb.st_size);
  return GCOO_SUCCESS;
}

void gcoo__h5_guard_close(gcoo__h5_guard *g) {
  if (g->fd >= 0) close(g->fd);
  g->fd = -1;
}

gcoo_status gcoo__h5_agree(const gcoo__h5_comm *c, gcoo_status st) {
#if GCOO_HAVE_MPI
  if (!c->mpi || c->size == 1) return st;
  /* the same convention as dist/'s agreement: one all-reduce of (status, lowest failing rank) */
  int mine[2] = {(int)st, st < 0 ? c->rank : c->size}, all[2] = {0, 0};
  MPI_TRY(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, c->comm));
  if (all[0] >= 0) return st;
  char msg[2048];
  if (c->rank == all[1]) snprintf(msg, sizeof msg, "%s", gcoo_last_error());
  MPI_TRY(MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, all[1], c->comm));
  msg[sizeof msg - 1] = '\0';
  if (st < 0) return st; /* a failing rank keeps its own status and message */
  char text[2100];
  snprintf(text, sizeof text, "rank %d: %s", all[1], msg);
  gcoo__set_error_text(text);
  return GCOO_ERR_REMOTE;
#else
  (void)c;
  return st;
#endif
}

gcoo_status gcoo__h5_bcast(const gcoo__h5_comm *c, void *buf, int64_t bytes, int root) {
#if GCOO_HAVE_MPI
  if (!c->mpi || c->size == 1) return GCOO_SUCCESS;
  const int64_t piece = (int64_t)1 << 30;
  for (int64_t at = 0; at < bytes; at += piece) {
    int n = (int)(bytes - at < piece ? bytes - at : piece);
    MPI_TRY(MPI_Bcast((char *)buf + at, n, MPI_BYTE, root, c->comm));
  }
#else
  (void)c, (void)buf, (void)bytes, (void)root;
#endif
  return GCOO_SUCCESS;
}

int64_t gcoo__h5_max_i64(const gcoo__h5_comm *c, int64_t v) {
#if GCOO_HAVE_MPI
  if (c->mpi && c->size > 1) {
    int64_t m = v;
    if (MPI_Allreduce(&v, &m, 1, MPI_INT64_T, MPI_MAX, c->comm) == MPI_SUCCESS) return m;
  }
#else
  (void)c;
#endif
  return v;
}

gcoo_status gcoo__h5_exscan_i64(const gcoo__h5_comm *c, int64_t v, int64_t *before,
                                int64_t *total) {
  *before = 0;
  *total = v;
#if GCOO_HAVE_MPI
  if (c->mpi && c->size > 1) {
    int64_t b = 0;
    MPI_TRY(MPI_Exscan(&v, &b, 1, MPI_INT64_T, MPI_SUM, c->comm));
    *before = c->rank == 0 ? 0 : b;
    MPI_TRY(MPI_Allreduce(&v, total, 1, MPI_INT64_T, MPI_SUM, c->comm));
  }
#else
  (void)c;
#endif
  return GCOO_SUCCESS;
}

gcoo_status gcoo__h5_same_on_all(const gcoo__h5_comm *c, const int64_t *v, int n, const char *s,
                                 const char *what) {
#if GCOO_HAVE_MPI
  if (!c->mpi || c->size == 1) return GCOO_SUCCESS;
  enum { MAXV = 8 };
  int64_t lo[MAXV + 1], hi[MAXV + 1];
  GCOO_CHECK(n <= MAXV, GCOO_ERR_INTERNAL, "too many values to compare (%d)", n);
  for (int i = 0; i < n; i++) lo[i] = hi[i] = v[i];
  /* the string: compare with rank 0's, count mismatches */
  int64_t mismatch = 0;
  if (s) {
    int64_t len = c->rank == 0 ? (int64_t)strlen(s) : 0;
    GCOO_CALL(gcoo__h5_bcast(c, &len, sizeof len, 0));
    char *r0 = NULL;
    GCOO_CALL(gcoo__malloc((void **)&r0, (size_t)len + 1, "string comparison"));
    if (c->rank == 0) memcpy(r0, s, (size_t)len + 1);
    gcoo_status bst = gcoo__h5_bcast(c, r0, len + 1, 0);
    mismatch = bst < 0 || strcmp(r0, s) != 0;
    free(r0);
    GCOO_CALL(bst);
  }
  lo[n] = hi[n] = mismatch;
  MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, lo, n + 1, MPI_INT64_T, MPI_MIN, c->comm));
  MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, hi, n + 1, MPI_INT64_T, MPI_MAX, c->comm));
  for (int i = 0; i < n; i++)
    GCOO_CHECK(lo[i] == hi[i], GCOO_ERR_INVALID_ARG,
               "%s differ across ranks: value %d ranges from %lld to %lld (every rank must pass "
               "the same)",
               what, i, (long long)lo[i], (long long)hi[i]);
  GCOO_CHECK(hi[n] == 0, GCOO_ERR_INVALID_ARG,
             "%s: the path differs across ranks (rank %d has \"%s\"; every rank must pass the "
             "same)",
             what, c->rank, s ? s : "");
#else
  (void)c, (void)v, (void)n, (void)s, (void)what;
#endif
  return GCOO_SUCCESS;
}

/* ---- files ------------------------------------------------------------------------------------ */

int64_t gcoo__h5_chunk_bytes(void) {
  const int64_t v = gcoo__param_int(GCOO__P_H5_CHUNK_BYTES);
  return v >= 1 ? v : (int64_t)64 << 20;
}

/* A missing or foreign file gets a precise status before HDF5 is asked to open it. */
static gcoo_status check_readable(const char *file) {
  struct stat sb;
  GCOO_CHECK(stat(file, &sb) == 0, GCOO_ERR_IO, "cannot open \"%s\": %s", file, strerror(errno));
  GCOO_CHECK(!S_ISDIR(sb.st_mode), GCOO_ERR_IO, "cannot open \"%s\": it is a directory", file);
  GCOO_CHECK(!gcoo__is_tmp_name(file), GCOO_ERR_FORMAT,
             "\"%s\" is the temporary file of a gcoo "
             "write that never finished (its name says so): not a result",
             file);
  GCOO_CHECK(access(file, R_OK) == 0, GCOO_ERR_IO, "cannot read \"%s\": %s", file, strerror(errno));
  gcoo_status st = GCOO_SUCCESS;
  htri_t is = -1;
#if H5_VERSION_GE(1, 12, 0)
  H5_TRY(is = H5Fis_accessible(file, H5P_DEFAULT), "cannot check \"%s\"", file);
#else
  H5_TRY(is = H5Fis_hdf5(file), "cannot check \"%s\"", file);
#endif
  GCOO_CHECK(is > 0, GCOO_ERR_FORMAT, "\"%s\" is not an HDF5 file (no HDF5 signature; %lld bytes)",
             file, (long long)sb.st_size);
done:
  return st;
}

/* Open for this process (local status). */
static gcoo_status open_local(const gcoo__h5_comm *c, const char *file, hid_t *fid) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t fapl = H5I_INVALID_HID;
  H5_TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), "file access properties");
#ifdef H5_HAVE_PARALLEL
  if (c->mpio)
    H5_TRY(H5Pset_fapl_mpio(fapl, c->comm, MPI_INFO_NULL), "MPI-IO driver for \"%s\"", file);
#else
  (void)c;
#endif
  H5_TRY(*fid = H5Fopen(file, H5F_ACC_RDONLY, fapl), "cannot open \"%s\"", file);
done:
  gcoo__h5_close(&fapl);
  return st;
}

gcoo_status gcoo__h5_file_open(const gcoo__h5_comm *c, const char *file, hid_t *fid) {
  gcoo_status st = GCOO_SUCCESS;
  *fid = H5I_INVALID_HID;
  if (c->rank == 0) st = check_readable(file);
  st = gcoo__h5_agree(c, st);
  if (st < 0) return st;
  st = open_local(c, file, fid);
  st = gcoo__h5_agree(c, st);
  if (st < 0 && *fid >= 0 && !c->mpio) gcoo__h5_close(fid);
  return st;
}

/* ---- objects ---------------------------------------------------------------------------------- */

typedef struct member_list {
  char *buf;
  size_t len, used;
  int count;
} member_list;

static herr_t member_cb(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  (void)g, (void)info;
  member_list *m = data;
  if (m->count == 12) {
    if (m->used + 6 < m->len)
      m->used += (size_t)snprintf(m->buf + m->used, m->len - m->used, ", ...");
    m->count++;
    return 1; /* stop */
  }
  if (m->used < m->len)
    m->used += (size_t)snprintf(m->buf + m->used, m->len - m->used, "%s%s", m->count ? ", " : "",
                                name);
  if (m->used > m->len) m->used = m->len;
  m->count++;
  return 0;
}

/* "members: a, b" / "it is empty" for messages about a missing member. */
const char *gcoo__h5_members(hid_t grp, char *buf, size_t len) {
  char names[512] = "";
  member_list m = {names, sizeof names, 0, 0};
  if (H5Literate(grp, H5_INDEX_NAME, H5_ITER_INC, NULL, member_cb, &m) < 0) {
    H5Eclear2(H5E_DEFAULT);
    snprintf(buf, len, "its members could not be listed");
  } else if (m.count == 0) {
    snprintf(buf, len, "it is empty");
  } else {
    snprintf(buf, len, "it holds: %s", names);
  }
  return buf;
}

gcoo_status gcoo__h5_open_object(hid_t fid, const gcoo__h5_path *p, hid_t *obj, int *is_group) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t cur = H5I_INVALID_HID, next = H5I_INVALID_HID;
  char *names = NULL, *save = NULL, where[GCOO_H5_LABEL] = "/", members[640];
  *obj = H5I_INVALID_HID;
  H5_TRY(cur = H5Gopen2(fid, "/", H5P_DEFAULT), "%s: cannot open the root group", p->file);
  GCOO_GOTO(gcoo__malloc((void **)&names, strlen(p->object) + 1, "object path"));
  strcpy(names, p->object);
  for (char *comp = strtok_r(names, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
    htri_t ex = -1;
    H5_TRY(ex = H5Lexists(cur, comp, H5P_DEFAULT), "%s: cannot look up \"%s\" in %s", p->file, comp,
           where);
    GCOO_CHECK_GOTO(ex > 0, GCOO_ERR_FORMAT, "%s:%s: no object \"%s\" in group %s (%s)", p->file,
                    p->object, comp, where, gcoo__h5_members(cur, members, sizeof members));
    H5_TRY(next = H5Oopen(cur, comp, H5P_DEFAULT), "%s: cannot open \"%s\" in %s", p->file, comp,
           where);
    size_t wl = strlen(where);
    snprintf(where + wl, sizeof where - wl, "%s%s", wl > 1 ? "/" : "", comp);
    H5I_type_t t = H5Iget_type(next);
    gcoo__h5_close(&cur);
    cur = next;
    next = H5I_INVALID_HID;
    char *rest = save && *save ? save : NULL;
    GCOO_CHECK_GOTO(!rest || t == H5I_GROUP, GCOO_ERR_FORMAT, "%s:%s: %s is a dataset, not a group",
                    p->file, p->object, where);
  }
  H5I_type_t t = H5Iget_type(cur);
  GCOO_CHECK_GOTO(t == H5I_GROUP || t == H5I_DATASET, GCOO_ERR_FORMAT,
                  "%s:%s is neither a group nor a dataset", p->file, p->object);
  /* the writer's mark (io/h5_write.c): a write that never finished is not data */
  htri_t partial = H5Aexists(cur, GCOO__H5_INCOMPLETE);
  H5_TRY(partial, "%s:%s: cannot look up its attributes", p->file, p->object);
  GCOO_CHECK_GOTO(!partial, GCOO_ERR_FORMAT,
                  "%s:%s was never finished: its writer stopped before the end (a temporary "
                  "file of an interrupted gcoo write, not a result)",
                  p->file, p->object);
  *is_group = t == H5I_GROUP;
  *obj = cur;
  cur = H5I_INVALID_HID;
done:
  gcoo__h5_close(&cur);
  gcoo__h5_close(&next);
  free(names);
  return st;
}

/* ---- kinds -------------------------------------------------------------------------------------- */

const char *gcoo__h5_kind_name(gcoo__h5_kind k) {
  static const char *names[] = {"none",   "int8",  "uint8",  "int16",   "uint16", "int32",
                                "uint32", "int64", "uint64", "float32", "float64"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

size_t gcoo__h5_kind_size(gcoo__h5_kind k) {
  static const size_t sizes[] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return (unsigned)k < sizeof sizes / sizeof sizes[0] ? sizes[k] : 0;
}

int gcoo__h5_kind_is_int(gcoo__h5_kind k) { return k >= H5K_I8 && k <= H5K_U64; }

hid_t gcoo__h5_kind_native(gcoo__h5_kind k) {
  switch (k) {
    case H5K_I8: return H5T_NATIVE_INT8;
    case H5K_U8: return H5T_NATIVE_UINT8;
    case H5K_I16: return H5T_NATIVE_INT16;
    case H5K_U16: return H5T_NATIVE_UINT16;
    case H5K_I32: return H5T_NATIVE_INT32;
    case H5K_U32: return H5T_NATIVE_UINT32;
    case H5K_I64: return H5T_NATIVE_INT64;
    case H5K_U64: return H5T_NATIVE_UINT64;
    case H5K_F32: return H5T_NATIVE_FLOAT;
    case H5K_F64: return H5T_NATIVE_DOUBLE;
    default: return H5I_INVALID_HID;
  }
}

hid_t gcoo__h5_kind_file(gcoo__h5_kind k) {
  switch (k) {
    case H5K_I8: return H5T_STD_I8LE;
    case H5K_U8: return H5T_STD_U8LE;
    case H5K_I16: return H5T_STD_I16LE;
    case H5K_U16: return H5T_STD_U16LE;
    case H5K_I32: return H5T_STD_I32LE;
    case H5K_U32: return H5T_STD_U32LE;
    case H5K_I64: return H5T_STD_I64LE;
    case H5K_U64: return H5T_STD_U64LE;
    case H5K_F32: return H5T_IEEE_F32LE;
    case H5K_F64: return H5T_IEEE_F64LE;
    default: return H5I_INVALID_HID;
  }
}

gcoo__h5_kind gcoo__h5_kind_of_dtype(gcoo_dtype t) { return t == GCOO_FLOAT64 ? H5K_F64 : H5K_F32; }

static const char *class_name(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_STRING: return "string";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum (numpy bool?)";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    default: return "unknown";
  }
}

/* Element kind of a dataset type: integers of 1..8 bytes and IEEE floats of 4 or 8 bytes. */
static gcoo_status kind_of_type(hid_t t, const char *label, gcoo__h5_kind *k) {
  H5T_class_t cl = H5Tget_class(t);
  size_t size = H5Tget_size(t);
  *k = H5K_NONE;
  if (cl == H5T_INTEGER) {
    int uns = H5Tget_sign(t) == H5T_SGN_NONE;
    switch (size) {
      case 1: *k = uns ? H5K_U8 : H5K_I8; break;
      case 2: *k = uns ? H5K_U16 : H5K_I16; break;
      case 4: *k = uns ? H5K_U32 : H5K_I32; break;
      case 8: *k = uns ? H5K_U64 : H5K_I64; break;
      default: break;
    }
  } else if (cl == H5T_FLOAT) {
    if (size == 4) *k = H5K_F32;
    if (size == 8) *k = H5K_F64;
  }
  GCOO_CHECK(*k != H5K_NONE, GCOO_ERR_FORMAT,
             "%s: elements are %s of %zu bytes; gcoo reads integers (1-8 bytes) and float32/64",
             label, class_name(cl), size);
  return GCOO_SUCCESS;
}

/* "dir1:dir2" of HDF5's plugin search path, for messages about a missing filter. */
static const char *plugin_path(char *buf, size_t len) {
  unsigned n = 0;
  size_t used = 0;
  buf[0] = '\0';
  if (H5PLsize(&n) < 0) n = 0;
  for (unsigned i = 0; i < n && used + 2 < len; i++) {
    if (i) buf[used++] = ':';
    ssize_t k = H5PLget(i, buf + used, len - used);
    if (k < 0) break;
    used += (size_t)k < len - used ? (size_t)k : len - used - 1;
    buf[used] = '\0';
  }
  H5Eclear2(H5E_DEFAULT);
  return buf[0] ? buf : "(none)";
}

/* Where the elements of d come from, refused when HDF5 would make them up: a read of a virtual
 * dataset whose source file is missing or short, of an external raw-data file that is missing
 * or truncated, or of storage that was never written returns fill values (zeros) without an
 * error, and a compressed dataset whose filter HDF5 cannot load fails deep inside a read with
 * a message about a plugin directory. Data in the file itself (contiguous, chunked, compact),
 * allocated, with filters this HDF5 has, is read. */
static gcoo_status check_storage(const gcoo__h5_dset *d) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t dcpl = H5I_INVALID_HID, space = H5I_INVALID_HID;
  char names[512] = "", plugins[512];
  H5_TRY(dcpl = H5Dget_create_plist(d->id), "%s: cannot get its creation properties", d->label);
  const H5D_layout_t layout = H5Pget_layout(dcpl);
  GCOO_CHECK_GOTO(layout != H5D_VIRTUAL, GCOO_ERR_FORMAT,
                  "%s is a virtual dataset: its data lives in other files, and HDF5 reads a "
                  "missing or short source as zeros without an error; gcoo reads only data "
                  "stored in the file (copy it in, e.g. h5repack -l CONTI)",
                  d->label);
  const int next = H5Pget_external_count(dcpl);
  for (int i = 0; i < next; i++) {
    char fname[160] = "";
    off_t off = 0;
    hsize_t size = 0;
    if (H5Pget_external(dcpl, (unsigned)i, sizeof fname, fname, &off, &size) >= 0) {
      size_t u = strlen(names);
      snprintf(names + u, sizeof names - u, "%s%s", u ? ", " : "", fname);
    }
  }
  GCOO_CHECK_GOTO(next <= 0, GCOO_ERR_FORMAT,
                  "%s keeps its data in external raw-data file%s (%s), which HDF5 reads as zeros "
                  "where missing or truncated, without an error; gcoo reads only data stored in "
                  "the file (copy it in, e.g. h5repack -l CONTI)",
                  d->label, next == 1 ? "" : "s", names);
  const int nf = H5Pget_nfilters(dcpl);
  for (int i = 0; i < nf; i++) {
    unsigned flags = 0, conf = 0;
    size_t nelem = 0;
    char fname[80] = "";
    H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nelem, NULL, sizeof fname, fname,
                                     &conf);
    if (id < 0) continue;
    htri_t have = H5Zfilter_avail(id);
    H5Eclear2(H5E_DEFAULT);
    GCOO_CHECK_GOTO(have > 0, GCOO_ERR_UNSUPPORTED,
                    "%s is compressed with HDF5 filter %d%s%s%s, which this HDF5 cannot load (no "
                    "plugin for it in HDF5_PLUGIN_PATH: %s): install the filter's plugin (e.g. "
                    "the hdf5plugin package's, with HDF5_PLUGIN_PATH set to its directory), or "
                    "rewrite the file without it (h5repack -f NONE)",
                    d->label, (int)id, fname[0] ? " (\"" : "", fname, fname[0] ? "\")" : "",
                    plugin_path(plugins, sizeof plugins));
  }
  if (d->dims[0] > 0 && d->dims[1] > 0) {
    /* chunked: every chunk must be there (H5Dget_space_status compares compressed bytes with
     * the full size, so it calls a compressed dataset partly allocated) */
    int whole = 1, none = 0;
    if (layout == H5D_CHUNKED) {
      hsize_t cdims[2] = {1, 1}, nchunks = 0, want = 1;
      const int64_t ext[2] = {d->dims[0], d->dims[1]};
      H5_TRY(H5Pget_chunk(dcpl, d->ndims, cdims), "%s: cannot get its chunks", d->label);
      H5_TRY(space = H5Dget_space(d->id), "%s: cannot get its dataspace", d->label);
      H5_TRY(H5Dget_num_chunks(d->id, space, &nchunks), "%s: cannot count its chunks", d->label);
      for (int k = 0; k < d->ndims; k++) want *= ((hsize_t)ext[k] + cdims[k] - 1) / cdims[k];
      whole = nchunks >= want;
      none = nchunks == 0;
    } else {
      H5D_space_status_t ss = H5D_SPACE_STATUS_ERROR;
      H5_TRY(H5Dget_space_status(d->id, &ss), "%s: cannot get its storage status", d->label);
      whole = ss == H5D_SPACE_STATUS_ALLOCATED;
      none = ss == H5D_SPACE_STATUS_NOT_ALLOCATED;
    }
    GCOO_CHECK_GOTO(whole, GCOO_ERR_FORMAT,
                    "%s holds %lld elements, but %s of its storage was ever written: HDF5 reads "
                    "what was not as the fill value, not as data",
                    d->label, (long long)(d->dims[0] * d->dims[1]), none ? "none" : "only part");
  }
done:
  gcoo__h5_close(&space);
  gcoo__h5_close(&dcpl);
  return st;
}

gcoo_status gcoo__h5_dset_open(hid_t loc, const char *name, const char *label, gcoo__h5_dset *d) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID;
  char members[640];
  *d = (gcoo__h5_dset)GCOO__H5_DSET_INIT;
  snprintf(d->label, sizeof d->label, "%s", label);
  if (name) {
    htri_t ex = -1;
    H5_TRY(ex = H5Lexists(loc, name, H5P_DEFAULT), "%s: cannot look up the dataset", label);
    GCOO_CHECK_GOTO(ex > 0, GCOO_ERR_FORMAT, "%s: no such dataset (the group %s)", label,
                    gcoo__h5_members(loc, members, sizeof members));
    H5_TRY(d->id = H5Oopen(loc, name, H5P_DEFAULT), "%s: cannot open", label);
  } else {
    H5_TRY(d->id = H5Oopen(loc, ".", H5P_DEFAULT), "%s: cannot open", label);
  }
  GCOO_CHECK_GOTO(H5Iget_type(d->id) == H5I_DATASET, GCOO_ERR_FORMAT,
                  "%s is a group, not a dataset", label);
  H5_TRY(type = H5Dget_type(d->id), "%s: cannot get its type", label);
  GCOO_GOTO(kind_of_type(type, label, &d->kind));
  H5_TRY(space = H5Dget_space(d->id), "%s: cannot get its dataspace", label);
  int nd = H5Sget_simple_extent_ndims(space);
  H5_TRY(nd, "%s: cannot get its rank", label);
  GCOO_CHECK_GOTO(nd >= 1 && nd <= 2, GCOO_ERR_FORMAT,
                  "%s has %d dimension%s; gcoo reads 1-D and 2-D datasets", label, nd,
                  nd == 1 ? "" : "s");
  hsize_t dims[2] = {0, 1};
  H5_TRY(H5Sget_simple_extent_dims(space, dims, NULL), "%s: cannot get its dimensions", label);
  d->ndims = nd;
  d->dims[0] = (int64_t)dims[0];
  d->dims[1] = nd == 2 ? (int64_t)dims[1] : 1;
  GCOO_GOTO(check_storage(d));
done:
  gcoo__h5_close(&type);
  gcoo__h5_close(&space);
  if (st < 0) gcoo__h5_dset_close(d);
  return st;
}

void gcoo__h5_dset_close(gcoo__h5_dset *d) { gcoo__h5_close(&d->id); }

/* ---- attributes ----------------------------------------------------------------------------- */

/* An attribute being read: its identifiers (closed by attr_close) and number of values. */
typedef struct attr_read {
  hid_t a, t, s;
  hssize_t np;
} attr_read;

/* The first steps every attribute reader takes: *found = whether obj has the attribute; if it
 * does, open it, its type and its space in *r and require the type class cls (what names the
 * class in the message: "a string", "integer"). */
static gcoo_status attr_open(hid_t obj, const char *name, const char *label, H5T_class_t cls,
                             const char *what, attr_read *r, int *found) {
  gcoo_status st = GCOO_SUCCESS;
  htri_t ex = -1;
  *found = 0;
  H5_TRY(ex = H5Aexists(obj, name), "%s: cannot look up attribute %s", label, name);
  if (!ex) goto done;
  *found = 1;
  H5_TRY(r->a = H5Aopen(obj, name, H5P_DEFAULT), "%s: cannot open attribute %s", label, name);
  H5_TRY(r->t = H5Aget_type(r->a), "%s: attribute %s", label, name);
  H5T_class_t cl = H5Tget_class(r->t);
  GCOO_CHECK_GOTO(cl == cls, GCOO_ERR_FORMAT, "%s: attribute %s is %s, not %s", label, name,
                  class_name(cl), what);
  H5_TRY(r->s = H5Aget_space(r->a), "%s: attribute %s", label, name);
  r->np = H5Sget_simple_extent_npoints(r->s);
done:
  return st;
}

static void attr_close(attr_read *r) {
  gcoo__h5_close(&r->s);
  gcoo__h5_close(&r->t);
  gcoo__h5_close(&r->a);
}

gcoo_status gcoo__h5_attr_string(hid_t obj, const char *name, const char *label, char *buf,
                                 size_t len, int *found) {
  gcoo_status st = GCOO_SUCCESS;
  attr_read r = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, 0};
  hid_t mt = H5I_INVALID_HID;
  char *fixed = NULL, *vl = NULL;
  htri_t var = -1;
  buf[0] = '\0';
  GCOO_GOTO(attr_open(obj, name, label, H5T_STRING, "a string", &r, found));
  if (!*found) goto done;
  const hid_t a = r.a, t = r.t;
  const hssize_t np = r.np;
  GCOO_CHECK_GOTO(np == 1, GCOO_ERR_FORMAT, "%s: attribute %s holds %lld strings, expected one",
                  label, name, (long long)np);
  H5_TRY(var = H5Tis_variable_str(t), "%s: attribute %s", label, name);
  if (var) {
    /* h5py's str: variable length; read with the file's character set (HDF5 does not
     * convert between ASCII and UTF-8) */
    H5_TRY(mt = H5Tcopy(H5T_C_S1), "string type");
    H5_TRY(H5Tset_size(mt, H5T_VARIABLE), "string type");
    H5_TRY(H5Tset_cset(mt, H5Tget_cset(t)), "string type");
    H5_TRY(H5Aread(a, mt, &vl), "%s: cannot read attribute %s", label, name);
    snprintf(buf, len, "%s", vl ? vl : "");
  } else {
    /* numpy bytes / fixed-length: NUL- or space-padded, maybe without a terminator */
    size_t size = H5Tget_size(t);
    GCOO_GOTO(gcoo__malloc((void **)&fixed, size + 1, "string attribute"));
    H5_TRY(mt = H5Tcopy(t), "string type");
    H5_TRY(H5Aread(a, mt, fixed), "%s: cannot read attribute %s", label, name);
    fixed[size] = '\0';
    size_t n = strlen(fixed);
    while (n > 0 && fixed[n - 1] == ' ') fixed[--n] = '\0';
    snprintf(buf, len, "%s", fixed);
  }
done:
  if (vl) H5free_memory(vl);
  free(fixed);
  gcoo__h5_close(&mt);
  attr_close(&r);
  return st;
}

gcoo_status gcoo__h5_attr_ints(hid_t obj, const char *name, const char *label, int64_t *v, int n,
                               int *found) {
  gcoo_status st = GCOO_SUCCESS;
  attr_read r = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, 0};
  uint64_t u[8];
  *found = 0;
  GCOO_CHECK(n >= 1 && n <= 8, GCOO_ERR_INTERNAL, "attribute of %d integers", n);
  GCOO_GOTO(attr_open(obj, name, label, H5T_INTEGER, "integer", &r, found));
  if (!*found) goto done;
  const hid_t a = r.a, t = r.t;
  const hssize_t np = r.np;
  GCOO_CHECK_GOTO(np == n, GCOO_ERR_FORMAT, "%s: attribute %s has %lld value%s, expected %d", label,
                  name, (long long)np, np == 1 ? "" : "s", n);
  if (H5Tget_sign(t) == H5T_SGN_NONE) {
    H5_TRY(H5Aread(a, H5T_NATIVE_UINT64, u), "%s: cannot read attribute %s", label, name);
    for (int i = 0; i < n; i++) {
      GCOO_CHECK_GOTO(u[i] <= (uint64_t)INT64_MAX, GCOO_ERR_FORMAT,
                      "%s: attribute %s value %llu is too large", label, name,
                      (unsigned long long)u[i]);
      v[i] = (int64_t)u[i];
    }
  } else {
    H5_TRY(H5Aread(a, H5T_NATIVE_INT64, v), "%s: cannot read attribute %s", label, name);
  }
done:
  attr_close(&r);
  return st;
}

gcoo_status gcoo__h5_attr_write_string(hid_t obj, const char *name, const char *v) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t t = H5I_INVALID_HID, s = H5I_INVALID_HID, a = H5I_INVALID_HID;
  H5_TRY(t = H5Tcopy(H5T_C_S1), "string type");
  H5_TRY(H5Tset_size(t, H5T_VARIABLE), "string type");
  H5_TRY(H5Tset_cset(t, H5T_CSET_UTF8), "string type");
  H5_TRY(s = H5Screate(H5S_SCALAR), "scalar dataspace");
  H5_TRY(a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT), "cannot create attribute %s",
         name);
  H5_TRY(H5Awrite(a, t, &v), "cannot write attribute %s", name);
done:
  gcoo__h5_close(&a);
  gcoo__h5_close(&s);
  gcoo__h5_close(&t);
  return st;
}

gcoo_status gcoo__h5_attr_write_ints(hid_t obj, const char *name, const int64_t *v, int n) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t s = H5I_INVALID_HID, a = H5I_INVALID_HID;
  hsize_t dim = (hsize_t)n;
  H5_TRY(s = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL), "dataspace");
  H5_TRY(a = H5Acreate2(obj, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT),
         "cannot create attribute %s", name);
  H5_TRY(H5Awrite(a, H5T_NATIVE_INT64, v), "cannot write attribute %s", name);
done:
  gcoo__h5_close(&a);
  gcoo__h5_close(&s);
  return st;
}
