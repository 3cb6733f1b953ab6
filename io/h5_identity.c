/* SPDX-License-Identifier: MIT */
/* io/h5_identity.c: whether an HDF5 output would change an HDF5 input, with objects compared by
 * identity, not by name. One object can be reached under many names: a soft link, an external
 * link from another file, a second hard link, a group reached through a linked parent, and the
 * file itself under a symbolic or hard link. An object is named here by the file it is stored
 * in (device and inode of the descriptor HDF5 reads it through) and its address in that file,
 * found by opening it the way a reader does (every link followed). The output is resolved the
 * way the writer resolves it (the file through its symbolic links, then each component of the
 * object path), and it overlaps the input when the object it replaces is, or holds, an object
 * the input reads (the input's object and its members, as a reader opens them), or when it
 * would be created inside one. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "h5_impl.h"
#include "publish.h"

typedef struct obj_id {
  dev_t dev;
  ino_t ino;
  unsigned char addr[16]; /* haddr_t (HDF5 1.10) or H5O_token_t (1.12) */
} obj_id;

/* A set of objects (those an input reads, or those under an output), in the order found, with
 * a hash index so that a large group costs linear time. */
typedef struct id_set {
  obj_id *v;
  size_t n, cap;
  size_t *index, slots; /* 0: empty, else position in v + 1; slots a power of two */
  int depth, max_depth;
  int truncated;  /* more than MAX_OBJECTS objects: not all of them are in the set */
  gcoo_status st; /* a failure while a group's members are listed */
} id_set;
#define ID_SET_INIT(depth) \
  { NULL, 0, 0, NULL, 0, 0, (depth), 0, GCOO_SUCCESS }

enum { MAX_OBJECTS = 1 << 20, MAX_DEPTH = 32 };

static int same_id(const obj_id *a, const obj_id *b) {
  return a->dev == b->dev && a->ino == b->ino && !memcmp(a->addr, b->addr, sizeof a->addr);
}

static size_t hash_id(const obj_id *id) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)id->dev ^ ((uint64_t)id->ino << 17);
  for (size_t i = 0; i < sizeof id->addr; i++) h = (h ^ id->addr[i]) * 1099511628211ull;
  return (size_t)h;
}

static int in_set(const id_set *s, const obj_id *id) {
  if (!s->slots) return 0;
  for (size_t k = hash_id(id) & (s->slots - 1); s->index[k]; k = (k + 1) & (s->slots - 1))
    if (same_id(&s->v[s->index[k] - 1], id)) return 1;
  return 0;
}

static void set_free(id_set *s) {
  free(s->v);
  free(s->index);
  s->v = NULL;
  s->index = NULL;
}

/* The file an open object is stored in: the descriptor of HDF5's POSIX driver, else its name. */
static int file_of(hid_t obj, struct stat *sb) {
  hid_t fid = H5Iget_file_id(obj), fapl = H5I_INVALID_HID;
  int ok = 0;
  if (fid < 0) goto done;
  fapl = H5Fget_access_plist(fid);
  void *handle = NULL;
  if (fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2 && H5Fget_vfd_handle(fid, fapl, &handle) >= 0 &&
      handle && fstat(*(int *)handle, sb) == 0) {
    ok = 1;
  } else {
    char name[4096];
    ok = H5Fget_name(fid, name, sizeof name) > 0 && stat(name, sb) == 0;
  }
done:
  gcoo__h5_close(&fapl);
  gcoo__h5_close(&fid);
  H5Eclear2(H5E_DEFAULT);
  return ok;
}

static int is_hdf5(const char *file) {
#if H5_VERSION_GE(1, 12, 0)
  htri_t is = H5Fis_accessible(file, H5P_DEFAULT);
#else
  htri_t is = H5Fis_hdf5(file);
#endif
  H5Eclear2(H5E_DEFAULT);
  return is > 0;
}

static int object_id(hid_t obj, obj_id *id, H5O_type_t *type) {
  struct stat sb;
  memset(id, 0, sizeof *id);
  if (!file_of(obj, &sb)) return 0;
  id->dev = sb.st_dev;
  id->ino = sb.st_ino;
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  if (H5Oget_info3(obj, &info, H5O_INFO_BASIC) < 0) return 0;
  memcpy(id->addr, &info.token, sizeof info.token < sizeof id->addr ? sizeof info.token : 16);
#else
  H5O_info_t info;
  if (H5Oget_info2(obj, &info, H5O_INFO_BASIC) < 0) return 0;
  memcpy(id->addr, &info.addr, sizeof info.addr);
#endif
  if (type) *type = info.type;
  return 1;
}

static gcoo_status add(id_set *s, const obj_id *id) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    obj_id *v = realloc(s->v, cap * sizeof *v);
    GCOO_CHECK(v != NULL, GCOO_ERR_NO_MEMORY, "cannot grow a set of %zu HDF5 objects", cap);
    s->v = v;
    s->cap = cap;
  }
  if (2 * (s->n + 1) > s->slots) { /* at most half full: rebuild twice as large */
    size_t slots = s->slots ? 2 * s->slots : 32, *index = calloc(slots, sizeof *index);
    GCOO_CHECK(index != NULL, GCOO_ERR_NO_MEMORY, "cannot index %zu HDF5 objects", s->n);
    free(s->index);
    s->index = index;
    s->slots = slots;
    for (size_t i = 0; i < s->n; i++) {
      size_t k = hash_id(&s->v[i]) & (slots - 1);
      while (index[k]) k = (k + 1) & (slots - 1);
      index[k] = i + 1;
    }
  }
  size_t k = hash_id(id) & (s->slots - 1);
  while (s->index[k]) k = (k + 1) & (s->slots - 1);
  s->v[s->n] = *id;
  s->index[k] = ++s->n;
  return GCOO_SUCCESS;
}

static gcoo_status collect(hid_t obj, id_set *s);

/* Each member of a group, opened as a reader opens it (soft and external links followed). */
static herr_t member(hid_t grp, const char *name, const H5L_info_t *info, void *data) {
  (void)info;
  id_set *s = data;
  hid_t obj = H5Oopen(grp, name, H5P_DEFAULT); /* a dangling link reaches nothing */
  H5Eclear2(H5E_DEFAULT);
  if (obj < 0) return 0;
  s->st = collect(obj, s);
  gcoo__h5_close(&obj);
  return s->st < 0 ? -1 : 0;
}

/* obj and everything it reaches, once each. */
static gcoo_status collect(hid_t obj, id_set *s) {
  obj_id id;
  H5O_type_t type = H5O_TYPE_UNKNOWN;
  if (!object_id(obj, &id, &type) || in_set(s, &id)) return GCOO_SUCCESS;
  GCOO_CALL(add(s, &id));
  if (type != H5O_TYPE_GROUP || s->depth >= s->max_depth) return GCOO_SUCCESS;
  if (s->n >= MAX_OBJECTS) {
    s->truncated = 1;
    return GCOO_SUCCESS;
  }
  s->depth++;
  (void)H5Literate(obj, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, member, s);
  s->depth--;
  H5Eclear2(H5E_DEFAULT);
  return s->st;
}

/* The objects the input p reads; none when it cannot be opened (its read will say why). */
static gcoo_status input_objects(const gcoo__h5_path *p, id_set *s, struct stat *file) {
  hid_t fid = H5I_INVALID_HID, obj = H5I_INVALID_HID;
  gcoo_status st = GCOO_SUCCESS;
  if (stat(p->file, file) != 0 || !is_hdf5(p->file)) goto done;
  fid = H5Fopen(p->file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid >= 0) obj = H5Oopen(fid, p->object, H5P_DEFAULT);
  if (obj >= 0) st = collect(obj, s);
done:
  gcoo__h5_close(&obj);
  gcoo__h5_close(&fid);
  H5Eclear2(H5E_DEFAULT);
  return st;
}

static int same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Does the file out (resolved) hold an object the input reads, or is it the input's file? */
static int touches_input_file(const struct stat *out, const struct stat *in_file, const id_set *s) {
  if (same_file(out, in_file)) return 1;
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i].dev == out->st_dev && s->v[i].ino == out->st_ino) return 1;
  return 0;
}

/* Walk the output object's path in its file, from the root group: 2 when the object there
 * reaches an input object (it would be replaced), 1 when a group on the way is an input object
 * (the output would be created inside it), 0 otherwise. */
static gcoo_status output_hits(const char *file, const char *object, const id_set *in, int *hit) {
  gcoo_status st = GCOO_SUCCESS;
  hid_t fid = H5I_INVALID_HID, obj = H5I_INVALID_HID;
  char *part = NULL;
  id_set below = ID_SET_INIT(MAX_DEPTH);
  *hit = 0;
  fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0) goto done; /* not HDF5: handled by the caller */
  const size_t n = strlen(object);
  GCOO_GOTO(gcoo__malloc((void **)&part, n + 2, "object path"));
  for (size_t i = 1; i <= n; i++) { /* "/" (as "/" with i = 1), "/a", "/a/b", ... */
    if (i > 1 && i < n && object[i] != '/') continue;
    if (i == 1 && n > 1 && object[1] != '/') {
      snprintf(part, n + 2, "/"); /* the root group first */
    } else {
      memcpy(part, object, i);
      part[i] = '\0';
    }
    const int last = !strcmp(part, object);
    if (strcmp(part, "/") && H5Lexists(fid, part, H5P_DEFAULT) <= 0) break;
    obj = H5Oopen(fid, part, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    if (obj < 0) break;
    obj_id id;
    if (!last) {
      if (object_id(obj, &id, NULL) && in_set(in, &id)) *hit = 1;
    } else {
      GCOO_GOTO(collect(obj, &below));
      for (size_t k = 0; k < below.n && *hit < 2; k++)
        if (in_set(in, &below.v[k])) *hit = 2;
      if (below.truncated) *hit = 2; /* too many objects to tell: the input is kept */
    }
    gcoo__h5_close(&obj);
    if (*hit || last) break;
  }
done:
  gcoo__h5_close(&obj);
  gcoo__h5_close(&fid);
  set_free(&below);
  free(part);
  H5Eclear2(H5E_DEFAULT);
  return st;
}

static gcoo_status overlap(const char *out_file, const char *out_object, const char *in, int *hit,
                           char *why, size_t len) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__h5_path ip = {NULL, NULL};
  id_set objs = ID_SET_INIT(1); /* the object and its members: what a reader opens */
  struct stat in_file, out;
  memset(&in_file, 0, sizeof in_file);
  *hit = 0;
  GCOO_GOTO(gcoo__h5_path_parse(in, &ip));
  GCOO_GOTO(input_objects(&ip, &objs, &in_file));
  if (stat(out_file, &out) != 0 || !touches_input_file(&out, &in_file, &objs))
    goto done; /* a new file, or one the input does not read */
  const int whole = !out_object || !strcmp(out_object, "/") || !is_hdf5(out_file);
  if (whole) {
    *hit = 1;
    snprintf(why, len, "the output replaces the whole file that holds the input");
    goto done;
  }
  int where = 0;
  GCOO_GOTO(output_hits(out_file, out_object, &objs, &where));
  *hit = where > 0;
  if (where == 2)
    snprintf(why, len, "%s:%s is (or holds) an object the input reads, under this or another name",
             out_file, out_object);
  else if (where == 1)
    snprintf(why, len,
             "%s:%s would be created inside the input (reached under this or another "
             "name)",
             out_file, out_object);
done:
  set_free(&objs);
  gcoo__h5_path_free(&ip);
  return st;
}

gcoo_status gcoo__h5_overlap(const char *out_file, const char *out_object, const char *in, int *hit,
                             char *why, size_t len) {
  GCOO_H5_RETURN_QUIETLY(overlap(out_file, out_object, in, hit, why, len));
}
