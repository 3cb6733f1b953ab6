/* SPDX-License-Identifier: MIT */
/* io/mtx.c: Matrix Market reader (.mtx and .mtx.gz, through zlib); writers are in mtx_write.c.
 *
 * The reader is strict and says where: every problem is reported with the file name and the
 * 1-based line number, and indices are quoted 1-based as in the file. Statuses:
 *   GCOO_ERR_IO           the file cannot be opened or read;
 *   GCOO_ERR_FORMAT       anything malformed: banner, unknown words, size line, non-numeric or
 *                         out-of-range tokens, entry counts (truncated / trailing data), corrupt
 *                         or truncated gzip, a .gz name on a file that is not gzip, empty file;
 *   GCOO_ERR_TOO_LARGE    a dimension past int32 (gcoo/types.h: refused, never wrapped);
 *   GCOO_ERR_NOT_FINITE   NaN or infinity, or a value that overflows the element type;
 *   GCOO_ERR_UNSUPPORTED  complex / hermitian files, symmetric array files, or a coordinate file
 *                         handed to the dense reader (and the reverse);
 *   GCOO_ERR_DUPLICATE    a repeated entry under GCOO_DUPLICATES_ERROR (else summed).
 *
 * Symmetric and skew-symmetric files are expanded to both triangles. The format stores one
 * triangle; this reader accepts either one (some tools write the upper), mirrors it, and refuses
 * a file that mixes both (it would otherwise double every entry stored twice). Skew-symmetric
 * files must have a zero diagonal; the mirrored value is negated.
 *
 * Speed: zlib's gzread (which reads plain files too) into a large buffer, lines cut in place,
 * a hand-written number scanner: exact decimal-to-double in one multiply or divide when the
 * digits fit 2^53 and the power of ten is at most 22 (Clinger's fast path, the common case of
 * files written with up to 16 digits); strtod, in the C locale, for the rest. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "backend_impl.h"
#include "gcoo/mtx.h"
#include "mtx_impl.h"

enum {
  MTX_CHUNK = 1 << 18,    /* bytes asked of gzread at a time */
  MTX_MAX_LINE = 1 << 26, /* longer lines are refused: not a Matrix Market text */
  MTX_TOKEN_SHOWN = 40    /* characters of a bad token quoted in a message */
};

/* ---- buffered line reader ------------------------------------------------------------------ */

typedef struct mtx_reader {
  const char *path;
  gzFile gz;
  char *buf;
  size_t cap, beg, end; /* unread bytes are buf[beg, end); buf[end] is always writable */
  int eof;
  int64_t line;       /* number of the line last returned */
  int64_t file_bytes; /* size of a regular file, -1 for pipes and the like */
  int gzip;           /* compressed */
} mtx_reader;

static const char *errno_text(int e, char *buf, size_t len) {
  if (strerror_r(e, buf, len) != 0) snprintf(buf, len, "errno %d", e);
  return buf;
}

static void reader_close(mtx_reader *r) {
  if (r->gz) gzclose(r->gz);
  free(r->buf);
  r->gz = NULL;
  r->buf = NULL;
}

/* Open path; compression is detected from the gzip magic (1f 8b). A file whose name ends in .gz
 * but is not gzip is refused: it is a mislabelled or damaged download, and parsing it as text
 * would only give a confusing message about line 1. */
static gcoo_status reader_open(mtx_reader *r, const char *path) {
  char eb[128];
  unsigned char magic[2] = {0, 0};
  memset(r, 0, sizeof *r);
  r->path = path;
  GCOO_CHECK(path != NULL, GCOO_ERR_NULL, "path is NULL");
  int fd = open(path, O_RDONLY);
  GCOO_CHECK(fd >= 0, GCOO_ERR_IO, "cannot open %s: %s", path, errno_text(errno, eb, sizeof eb));
  ssize_t n = read(fd, magic, 2);
  if (n == 1) n += read(fd, magic + 1, 1) > 0;
  if (n < 0) {
    int e = errno;
    close(fd);
    return GCOO_ERROR(GCOO_ERR_IO, "cannot read %s: %s", path, errno_text(e, eb, sizeof eb));
  }
  if (n == 0) {
    close(fd);
    return GCOO_ERROR(GCOO_ERR_FORMAT, "%s: empty file (no Matrix Market banner)", path);
  }
  int gzip = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  struct stat sb;
  r->file_bytes = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? (int64_t)sb.st_size : -1;
  r->gzip = gzip;
  if (gcoo__mtx_gzip_name(path) && !gzip) {
    close(fd);
    return GCOO_ERROR(GCOO_ERR_FORMAT,
                      "%s: named .gz but not gzip-compressed (starts with bytes %02x %02x, gzip "
                      "starts with 1f 8b): rename or recompress it",
                      path, magic[0], n == 2 ? magic[1] : 0);
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    int e = errno;
    close(fd);
    return GCOO_ERROR(GCOO_ERR_IO, "cannot rewind %s: %s", path, errno_text(e, eb, sizeof eb));
  }
  r->gz = gzdopen(fd, "rb");
  if (!r->gz) {
    close(fd);
    return GCOO_ERROR(GCOO_ERR_NO_MEMORY, "cannot start zlib on %s", path);
  }
  gzbuffer(r->gz, MTX_CHUNK);
  r->cap = 2 * (size_t)MTX_CHUNK;
  GCOO_CALL(gcoo__malloc((void **)&r->buf, r->cap, "Matrix Market read buffer"));
  return GCOO_SUCCESS;
}

/* A file whose lines end in CR alone reads as one long line. */
#define CR_ONLY                                                                                   \
  "its lines end in CR alone (\\r, as classic Mac OS wrote text), not LF or CR LF: convert them " \
  "(e.g. tr '\\r' '\\n' < old > new)"

/* Read more bytes after r->end (growing the buffer for a long line); sets eof at the end. */
static gcoo_status reader_fill(mtx_reader *r) {
  char eb[128];
  if (r->beg > 0) {
    memmove(r->buf, r->buf + r->beg, r->end - r->beg);
    r->end -= r->beg;
    r->beg = 0;
  }
  if (r->cap - r->end < (size_t)MTX_CHUNK + 1) {
    GCOO_CHECK(r->cap < (size_t)MTX_MAX_LINE || !memchr(r->buf, '\r', r->end), GCOO_ERR_FORMAT,
               "%s, line %lld: %s", r->path, (long long)r->line + 1, CR_ONLY);
    GCOO_CHECK(r->cap < (size_t)MTX_MAX_LINE, GCOO_ERR_FORMAT,
               "%s, line %lld: line longer than %d bytes: not a Matrix Market file", r->path,
               (long long)r->line + 1, MTX_MAX_LINE);
    char *nb = realloc(r->buf, 2 * r->cap);
    GCOO_CHECK(nb != NULL, GCOO_ERR_NO_MEMORY, "cannot grow the read buffer to %zu bytes",
               2 * r->cap);
    r->buf = nb;
    r->cap *= 2;
  }
  int n = gzread(r->gz, r->buf + r->end, (unsigned)MTX_CHUNK);
  int zerr = Z_OK;
  const char *zmsg = n <= 0 ? gzerror(r->gz, &zerr) : "";
  if (!strncmp(zmsg, "<fd:", 4) && strstr(zmsg, ": ")) zmsg = strstr(zmsg, ": ") + 2;
  if (n < 0) {
    if (zerr == Z_ERRNO)
      return GCOO_ERROR(GCOO_ERR_IO, "cannot read %s: %s", r->path,
                        errno_text(errno, eb, sizeof eb));
    /* the whole chunk is lost: the damage is at or after the first line not yet returned */
    return GCOO_ERROR(GCOO_ERR_FORMAT, "%s, line %lld or later: corrupt gzip data (zlib: %s)",
                      r->path, (long long)r->line + 1, zmsg);
  }
  if (n == 0) {
    /* zlib reports a stream that stops before its end as Z_BUF_ERROR at end of input; every
     * complete line before the cut has been returned, so the cut is in the next line */
    GCOO_CHECK(zerr != Z_BUF_ERROR, GCOO_ERR_FORMAT,
               "%s, line %lld: the gzip stream ends early: the file is truncated (zlib: %s)",
               r->path, (long long)r->line + 1, zmsg);
    r->eof = 1;
  }
  r->end += (size_t)n;
  return GCOO_SUCCESS;
}

/* Next line, NUL-terminated, without its line ending; *line = NULL after the last one. */
static gcoo_status reader_line(mtx_reader *r, char **line) {
  for (;;) {
    char *s = r->buf + r->beg;
    char *nl = memchr(s, '\n', r->end - r->beg);
    if (nl || (r->eof && r->end > r->beg)) {
      size_t len = nl ? (size_t)(nl - s) : r->end - r->beg;
      r->beg += len + (nl != NULL);
      s[len] = '\0';
      if (len && s[len - 1] == '\r') s[--len] = '\0';
      r->line++;
      GCOO_CHECK(memchr(s, '\0', len) == NULL, GCOO_ERR_FORMAT,
                 "%s, line %lld: NUL byte: binary data, not a Matrix Market text", r->path,
                 (long long)r->line);
      *line = s;
      return GCOO_SUCCESS;
    }
    if (r->eof) {
      *line = NULL;
      return GCOO_SUCCESS;
    }
    GCOO_CALL(reader_fill(r));
  }
}

/* ---- tokens and numbers -------------------------------------------------------------------- */

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

/* Next whitespace-separated token of *p (length in *len), or NULL at the end of the line. */
static const char *next_token(char **p, int *len) {
  char *s = *p;
  while (is_blank(*s)) s++;
  if (!*s) {
    *p = s;
    return NULL;
  }
  char *t = s;
  while (*s && !is_blank(*s)) s++;
  *p = s;
  *len = (int)(s - t);
  return t;
}

/* A line with nothing to read: blank, or a comment. */
static int is_skippable(const char *s) {
  while (is_blank(*s)) s++;
  return *s == '\0' || *s == '%';
}

typedef enum { NUM_OK = 0, NUM_BAD, NUM_NOT_FINITE, NUM_OVERFLOW } num_result;

/* Decimal integer with optional sign (what index and size tokens must be). */
static num_result parse_int64(const char *t, int n, int64_t *out) {
  int i = 0, neg = 0;
  if (i < n && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  if (i == n) return NUM_BAD;
  uint64_t v = 0;
  for (; i < n; i++) {
    if (t[i] < '0' || t[i] > '9') return NUM_BAD;
    if (v > (UINT64_MAX - 9) / 10) return NUM_OVERFLOW; /* one more digit could wrap */
    v = 10 * v + (uint64_t)(t[i] - '0');
  }
  if (v > (uint64_t)INT64_MAX) return NUM_OVERFLOW;
  *out = neg ? -(int64_t)v : (int64_t)v;
  return NUM_OK;
}

static int is_integer_token(const char *t, int n) {
  int i = (n > 0 && (t[0] == '+' || t[0] == '-'));
  if (i == n) return 0;
  for (; i < n; i++)
    if (t[i] < '0' || t[i] > '9') return 0;
  return 1;
}

static int word_is(const char *t, int n, const char *w) {
  return (int)strlen(w) == n && !strncasecmp(t, w, (size_t)n);
}

/* The position of the word t (n bytes) among words[0..count), or -1. */
static int word_index(const char *t, int n, const char *const *words, int count) {
  for (int i = 0; i < count; i++)
    if (word_is(t, n, words[i])) return i;
  return -1;
}

/* Real number: [+-] (digits [. digits] | . digits) [(e|E) [+-] digits], or nan / inf /
 * infinity (NUM_NOT_FINITE). Anything else, hexadecimal floats included, is NUM_BAD. */
static num_result parse_real(const char *t, int n, double *out) {
  static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  int i = 0, neg = 0;
  if (i < n && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  if (word_is(t + i, n - i, "nan") || word_is(t + i, n - i, "inf") ||
      word_is(t + i, n - i, "infinity")) {
    *out = (t[i] == 'n' || t[i] == 'N') ? NAN : (neg ? -INFINITY : INFINITY);
    return NUM_NOT_FINITE;
  }
  uint64_t m = 0;
  int ndig = 0, nsig = 0, nfrac = 0;
  for (; i < n && t[i] >= '0' && t[i] <= '9'; i++, ndig++) {
    if (nsig || t[i] != '0') nsig++;
    if (nsig <= 19) m = 10 * m + (uint64_t)(t[i] - '0');
  }
  if (i < n && t[i] == '.') {
    for (i++; i < n && t[i] >= '0' && t[i] <= '9'; i++, ndig++, nfrac++) {
      if (nsig || t[i] != '0') nsig++;
      if (nsig <= 19) m = 10 * m + (uint64_t)(t[i] - '0');
    }
  }
  if (ndig == 0) return NUM_BAD;
  long e = 0;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    int eneg = 0, edig = 0;
    i++;
    if (i < n && (t[i] == '+' || t[i] == '-')) eneg = t[i++] == '-';
    for (; i < n && t[i] >= '0' && t[i] <= '9'; i++, edig++)
      if (e < 100000) e = 10 * e + (t[i] - '0');
    if (edig == 0) return NUM_BAD;
    if (eneg) e = -e;
  }
  if (i != n) return NUM_BAD;
  long e10 = e - nfrac;
  double v;
  if (m == 0) {
    v = 0.0;
  } else if (nsig <= 19 && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
    /* both m and 10^|e10| are exact doubles: one correctly rounded operation */
    v = e10 < 0 ? (double)m / p10[-e10] : (double)m * p10[e10];
  } else {
    char *end = NULL;
    v = fabs(strtod(t, &end)); /* the token ends at a blank or NUL: strtod stops there */
    if (end != t + n) return NUM_BAD;
  }
  *out = neg ? -v : v;
  return isfinite(v) ? NUM_OK : NUM_OVERFLOW;
}

/* ---- banner and size line ------------------------------------------------------------------ */

typedef enum { FIELD_REAL, FIELD_INTEGER, FIELD_PATTERN } mtx_field;
typedef enum { SYM_GENERAL, SYM_SYMMETRIC, SYM_SKEW } mtx_symmetry;

typedef struct mtx_banner {
  int coordinate; /* 0: array */
  mtx_field field;
  mtx_symmetry symmetry;
  int64_t nrows, ncols, nstored;
} mtx_banner;

#define SHOWN(n) ((n) < MTX_TOKEN_SHOWN ? (n) : MTX_TOKEN_SHOWN)

static gcoo_status parse_banner(mtx_reader *r, char *s, mtx_banner *b) {
  const char *w[6];
  int len[6], nw = 0;
  const char *t;
  int tl;
  /* two ways a text editor breaks a good file, named as such */
  GCOO_CHECK(strncmp(s, "\xef\xbb\xbf", 3) != 0, GCOO_ERR_FORMAT,
             "%s, line 1: the file starts with a UTF-8 byte-order mark (bytes ef bb bf) before "
             "%%%%MatrixMarket: remove it (e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' on the file)",
             r->path);
  GCOO_CHECK(strchr(s, '\r') == NULL, GCOO_ERR_FORMAT, "%s, line 1: %s", r->path, CR_ONLY);
  while (nw < 6 && (t = next_token(&s, &tl)) != NULL) w[nw] = t, len[nw++] = tl;
  GCOO_CHECK(nw > 0 && word_is(w[0], len[0], "%%MatrixMarket"), GCOO_ERR_FORMAT,
             "%s, line 1: no Matrix Market banner (the file must start with \"%%%%MatrixMarket "
             "matrix coordinate|array real|integer|pattern general|symmetric|skew-symmetric\")",
             r->path);
  GCOO_CHECK(nw == 5, GCOO_ERR_FORMAT,
             "%s, line 1: the banner has %s%d words, expected 5 (%%%%MatrixMarket matrix <format> "
             "<field> <symmetry>)",
             r->path, nw == 6 ? "more than " : "", nw == 6 ? 5 : nw);
  GCOO_CHECK(word_is(w[1], len[1], "matrix"), GCOO_ERR_FORMAT,
             "%s, line 1: unknown object \"%.*s\" (expected matrix)", r->path, SHOWN(len[1]), w[1]);
  if (word_is(w[2], len[2], "coordinate"))
    b->coordinate = 1;
  else if (word_is(w[2], len[2], "array"))
    b->coordinate = 0;
  else
    return GCOO_ERROR(GCOO_ERR_FORMAT,
                      "%s, line 1: unknown format \"%.*s\" (expected coordinate or array)", r->path,
                      SHOWN(len[2]), w[2]);
  /* the banner's words in the order of mtx_field and mtx_symmetry */
  static const char *const fields[] = {"real", "integer", "pattern"};
  static const char *const symmetries[] = {"general", "symmetric", "skew-symmetric"};
  const int field = word_index(w[3], len[3], fields, 3);
  const int symmetry = word_index(w[4], len[4], symmetries, 3);
  if (field >= 0)
    b->field = (mtx_field)field;
  else if (word_is(w[3], len[3], "complex"))
    return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                      "%s, line 1: complex matrices are not supported (gcoo is real: float32 and "
                      "float64)",
                      r->path);
  else
    return GCOO_ERROR(GCOO_ERR_FORMAT,
                      "%s, line 1: unknown field \"%.*s\" (expected real, integer or pattern)",
                      r->path, SHOWN(len[3]), w[3]);
  if (symmetry >= 0)
    b->symmetry = (mtx_symmetry)symmetry;
  else if (word_is(w[4], len[4], "hermitian"))
    return GCOO_ERROR(GCOO_ERR_UNSUPPORTED,
                      "%s, line 1: hermitian matrices are not supported (gcoo is real)", r->path);
  else
    return GCOO_ERROR(GCOO_ERR_FORMAT,
                      "%s, line 1: unknown symmetry \"%.*s\" (expected general, symmetric or "
                      "skew-symmetric)",
                      r->path, SHOWN(len[4]), w[4]);
  GCOO_CHECK(b->field != FIELD_PATTERN || b->coordinate, GCOO_ERR_FORMAT,
             "%s, line 1: an array file cannot be pattern", r->path);
  GCOO_CHECK(b->field != FIELD_PATTERN || b->symmetry != SYM_SKEW, GCOO_ERR_FORMAT,
             "%s, line 1: a pattern file cannot be skew-symmetric", r->path);
  GCOO_CHECK(b->coordinate || b->symmetry == SYM_GENERAL, GCOO_ERR_UNSUPPORTED,
             "%s, line 1: %s array files are not supported (only general)", r->path,
             b->symmetry == SYM_SYMMETRIC ? "symmetric" : "skew-symmetric");
  return GCOO_SUCCESS;
}

/* One size of the size line: a non-negative integer. Dimensions must fit int32. */
static gcoo_status parse_size(mtx_reader *r, const char *t, int n, const char *what, int dim,
                              int64_t *out) {
  num_result nr = parse_int64(t, n, out);
  GCOO_CHECK(nr != NUM_BAD, GCOO_ERR_FORMAT,
             "%s, line %lld: bad size line: %s \"%.*s\" is not an integer", r->path,
             (long long)r->line, what, SHOWN(n), t);
  GCOO_CHECK(nr != NUM_OVERFLOW && *out >= 0, GCOO_ERR_FORMAT,
             "%s, line %lld: bad size line: %s = %.*s is %s", r->path, (long long)r->line, what,
             SHOWN(n), t, nr == NUM_OVERFLOW ? "past 64 bits" : "negative");
  GCOO_CHECK(!dim || *out <= GCOO_INDEX_MAX, GCOO_ERR_TOO_LARGE,
             "%s, line %lld: %s = %lld does not fit a 32-bit index (max %d)", r->path,
             (long long)r->line, what, (long long)*out, GCOO_INDEX_MAX);
  return GCOO_SUCCESS;
}

/* Banner, comments, size line: leaves r at the first data line. */
static gcoo_status read_preamble(mtx_reader *r, mtx_banner *b) {
  char *s;
  GCOO_CALL(reader_line(r, &s));
  GCOO_CHECK(s != NULL, GCOO_ERR_FORMAT, "%s: empty file (no Matrix Market banner)", r->path);
  GCOO_CALL(parse_banner(r, s, b));
  do {
    GCOO_CALL(reader_line(r, &s));
    GCOO_CHECK(s != NULL, GCOO_ERR_FORMAT, "%s, line %lld: the file ends before its size line",
               r->path, (long long)r->line);
  } while (is_skippable(s));
  const char *t[4];
  int len[4], nt = 0, tl;
  const char *tok;
  while (nt < 4 && (tok = next_token(&s, &tl)) != NULL) t[nt] = tok, len[nt++] = tl;
  int want = b->coordinate ? 3 : 2;
  GCOO_CHECK(nt == want, GCOO_ERR_FORMAT,
             "%s, line %lld: bad size line: %s%d numbers, expected %d (%s)", r->path,
             (long long)r->line, nt == 4 ? "more than " : "", nt == 4 ? 3 : nt, want,
             b->coordinate ? "rows columns entries" : "rows columns");
  GCOO_CALL(parse_size(r, t[0], len[0], "rows", 1, &b->nrows));
  GCOO_CALL(parse_size(r, t[1], len[1], "columns", 1, &b->ncols));
  if (b->coordinate) {
    GCOO_CALL(parse_size(r, t[2], len[2], "entries", 0, &b->nstored));
  } else {
    b->nstored = b->nrows * b->ncols; /* both < 2^31: no overflow */
  }
  GCOO_CHECK(b->symmetry == SYM_GENERAL || b->nrows == b->ncols, GCOO_ERR_FORMAT,
             "%s, line %lld: a %s matrix must be square, this one is %lld x %lld", r->path,
             (long long)r->line, b->symmetry == SYM_SKEW ? "skew-symmetric" : "symmetric",
             (long long)b->nrows, (long long)b->ncols);
  return GCOO_SUCCESS;
}

/* The next data line (skipping comments and blank lines), NULL at the end of the file. */
static gcoo_status next_data_line(mtx_reader *r, char **s) {
  do GCOO_CALL(reader_line(r, s));
  while (*s && is_skippable(*s));
  return GCOO_SUCCESS;
}

/* A value token of a real or integer file, checked finite in the target element type. */
static gcoo_status parse_value(mtx_reader *r, const mtx_banner *b, gcoo_dtype dtype, const char *t,
                               int n, double *v) {
  GCOO_CHECK(b->field != FIELD_INTEGER || is_integer_token(t, n), GCOO_ERR_FORMAT,
             "%s, line %lld: value \"%.*s\" is not an integer (the file's field is integer)",
             r->path, (long long)r->line, SHOWN(n), t);
  num_result nr = parse_real(t, n, v);
  GCOO_CHECK(nr != NUM_BAD, GCOO_ERR_FORMAT, "%s, line %lld: value \"%.*s\" is not a number",
             r->path, (long long)r->line, SHOWN(n), t);
  GCOO_CHECK(nr != NUM_NOT_FINITE, GCOO_ERR_NOT_FINITE,
             "%s, line %lld: value \"%.*s\" is not finite (NaN and infinities are refused)",
             r->path, (long long)r->line, SHOWN(n), t);
  GCOO_CHECK(nr != NUM_OVERFLOW, GCOO_ERR_NOT_FINITE,
             "%s, line %lld: value \"%.*s\" overflows float64", r->path, (long long)r->line,
             SHOWN(n), t);
  /* Not fabs(v) <= FLT_MAX: "3.40282347e+38" (FLT_MAX written with %.9g) is a little above
   * FLT_MAX as a double and rounds to it. Below FLT_MAX + half an ulp (0x1.ffffffp127) a
   * double rounds to a finite float; at or above it, to infinity. */
  GCOO_CHECK(dtype == GCOO_FLOAT64 || fabs(*v) < 0x1.ffffffp127, GCOO_ERR_NOT_FINITE,
             "%s, line %lld: value \"%.*s\" overflows float32 (read it as float64)", r->path,
             (long long)r->line, SHOWN(n), t);
  return GCOO_SUCCESS;
}

/* ---- coordinate data ----------------------------------------------------------------------- */

/* Stored entries as read (0-based), before symmetric expansion. lines[] only with
 * GCOO_DUPLICATES_ERROR, to say where a repeated entry was. */
typedef struct mtx_entries {
  int64_t n, cap;
  int32_t *rows, *cols;
  double *vals;
  int64_t *lines;
} mtx_entries;

static void entries_free(mtx_entries *e) {
  free(e->rows);
  free(e->cols);
  free(e->vals);
  free(e->lines);
  memset(e, 0, sizeof *e);
}

/* Grow geometrically up to the announced count: a size line announcing 10^12 entries over a
 * three-line file costs nothing and ends as "truncated", not as an allocation failure. */
static gcoo_status entries_reserve(mtx_entries *e, int64_t want, int with_lines) {
  if (e->n < e->cap) return GCOO_SUCCESS;
  int64_t cap = e->cap ? 2 * e->cap : 4096;
  if (cap > want) cap = want > e->n ? want : e->n + 1;
  size_t nb;
  GCOO_CALL(gcoo__array_bytes(cap, sizeof(double), &nb));
  int32_t *r = realloc(e->rows, (size_t)cap * sizeof *r);
  if (r) e->rows = r;
  int32_t *c = realloc(e->cols, (size_t)cap * sizeof *c);
  if (c) e->cols = c;
  double *v = realloc(e->vals, (size_t)cap * sizeof *v);
  if (v) e->vals = v;
  int64_t *l = with_lines ? realloc(e->lines, (size_t)cap * sizeof *l) : NULL;
  if (l) e->lines = l;
  GCOO_CHECK(r && c && v && (l || !with_lines), GCOO_ERR_NO_MEMORY,
             "cannot allocate %lld Matrix Market entries", (long long)cap);
  e->cap = cap;
  return GCOO_SUCCESS;
}

static gcoo_status parse_index(mtx_reader *r, const char *t, int n, const char *what, int64_t dim,
                               int32_t *out) {
  int64_t v = 0;
  num_result nr = parse_int64(t, n, &v);
  GCOO_CHECK(nr != NUM_BAD, GCOO_ERR_FORMAT, "%s, line %lld: %s index \"%.*s\" is not an integer",
             r->path, (long long)r->line, what, SHOWN(n), t);
  GCOO_CHECK(nr == NUM_OK && v >= 1 && v <= dim, GCOO_ERR_FORMAT,
             "%s, line %lld: %s index %.*s outside 1..%lld", r->path, (long long)r->line, what,
             SHOWN(n), t, (long long)dim);
  *out = (int32_t)(v - 1);
  return GCOO_SUCCESS;
}

static gcoo_status read_entries(mtx_reader *r, const mtx_banner *b, gcoo_dtype dtype,
                                unsigned flags, mtx_entries *e) {
  const int with_value = b->field != FIELD_PATTERN;
  const int with_lines = (flags & GCOO_DUPLICATES_ERROR) != 0;
  int triangle = 0; /* symmetric: -1 lower, +1 upper, 0 not seen yet */
  int64_t triangle_line = 0;
  char *s;
  for (;;) {
    GCOO_CALL(next_data_line(r, &s));
    if (!s || e->n == b->nstored) break;
    const char *t[4];
    int len[4], nt = 0, tl;
    const char *tok;
    while (nt < 4 && (tok = next_token(&s, &tl)) != NULL) t[nt] = tok, len[nt++] = tl;
    int want = 2 + with_value;
    GCOO_CHECK(nt == want, GCOO_ERR_FORMAT, "%s, line %lld: %s%d tokens, expected %d (%s)", r->path,
               (long long)r->line, nt == 4 ? "more than " : "", nt == 4 ? 3 : nt, want,
               with_value ? "row column value" : "row column, the file is pattern");
    GCOO_CALL(entries_reserve(e, b->nstored, with_lines));
    int32_t i, j;
    double v = 1.0;
    GCOO_CALL(parse_index(r, t[0], len[0], "row", b->nrows, &i));
    GCOO_CALL(parse_index(r, t[1], len[1], "column", b->ncols, &j));
    if (with_value) GCOO_CALL(parse_value(r, b, dtype, t[2], len[2], &v));
    if (b->symmetry != SYM_GENERAL && i != j) {
      int side = i > j ? -1 : 1;
      if (!triangle) triangle = side, triangle_line = r->line;
      GCOO_CHECK(side == triangle, GCOO_ERR_FORMAT,
                 "%s, line %lld: entry (%d, %d) is %s the diagonal, but line %lld has one %s: "
                 "a %s file stores one triangle only",
                 r->path, (long long)r->line, i + 1, j + 1, side < 0 ? "below" : "above",
                 (long long)triangle_line, side < 0 ? "above" : "below",
                 b->symmetry == SYM_SKEW ? "skew-symmetric" : "symmetric");
    }
    GCOO_CHECK(b->symmetry != SYM_SKEW || i != j || v == 0.0, GCOO_ERR_FORMAT,
               "%s, line %lld: diagonal entry (%d, %d) = %.*s in a skew-symmetric file (must be 0)",
               r->path, (long long)r->line, i + 1, j + 1, SHOWN(len[2]), t[2]);
    e->rows[e->n] = i;
    e->cols[e->n] = j;
    e->vals[e->n] = v;
    if (with_lines) e->lines[e->n] = r->line;
    e->n++;
  }
  GCOO_CHECK(e->n == b->nstored, GCOO_ERR_FORMAT,
             "%s, line %lld: truncated: expected %lld entries, found %lld", r->path,
             (long long)r->line, (long long)b->nstored, (long long)e->n);
  GCOO_CHECK(s == NULL, GCOO_ERR_FORMAT,
             "%s, line %lld: trailing data after the %lld entries the size line announced", r->path,
             (long long)r->line, (long long)b->nstored);
  return GCOO_SUCCESS;
}

typedef struct col_at {
  int32_t col;
  int64_t k;
} col_at;

static int col_at_cmp(const void *a, const void *b) {
  const col_at *x = a, *y = b;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

/* GCOO_DUPLICATES_ERROR: find a repeated stored (row, column) and name both lines. Mirrored
 * entries cannot repeat stored ones (one triangle only), so stored entries are enough. */
static gcoo_status refuse_duplicates(mtx_reader *r, const mtx_banner *b, const mtx_entries *e) {
  gcoo_status st = GCOO_SUCCESS;
  int64_t *start = NULL;
  col_at *byrow = NULL;
  GCOO_GOTO(gcoo__calloc((void **)&start, (size_t)b->nrows + 2, sizeof *start, "row counts"));
  GCOO_GOTO(gcoo__malloc_n((void **)&byrow, e->n, sizeof *byrow, "entries by row"));
  /* (int64_t): row 2^31 - 2 (the last of a 2^31 - 1 row matrix) + 2 overflows int */
  for (int64_t k = 0; k < e->n; k++) start[(int64_t)e->rows[k] + 2]++;
  for (int64_t i = 0; i < b->nrows; i++) start[i + 2] += start[i + 1];
  for (int64_t k = 0; k < e->n; k++)
    byrow[start[(int64_t)e->rows[k] + 1]++] = (col_at){e->cols[k], k};
  for (int64_t i = 0; i < b->nrows; i++) {
    col_at *seg = byrow + start[i];
    int64_t len = start[i + 1] - start[i];
    qsort(seg, (size_t)len, sizeof *seg, col_at_cmp);
    for (int64_t q = 1; q < len; q++)
      GCOO_CHECK_GOTO(seg[q].col != seg[q - 1].col, GCOO_ERR_DUPLICATE,
                      "%s, line %lld: entry (%lld, %d) repeats line %lld (duplicates refused by "
                      "GCOO_DUPLICATES_ERROR)",
                      r->path, (long long)e->lines[seg[q].k], (long long)i + 1, seg[q].col + 1,
                      (long long)e->lines[seg[q - 1].k]);
  }
done:
  free(start);
  free(byrow);
  return st;
}

/* Expand symmetry and build the CSR (rows bucketed in file order, so a column-sorted file gives
 * sorted rows and creation copies without sorting); duplicates are summed by creation. */
static gcoo_status build_csr(const char *path, const mtx_banner *b, const mtx_entries *e,
                             gcoo_dtype dtype, unsigned flags, gcoo_sparse *A) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__csr_arrays a = {NULL, NULL, NULL}; /* copied by creation, freed here */
  const int sym = b->symmetry != SYM_GENERAL;
  const double mirror = b->symmetry == SYM_SKEW ? -1.0 : 1.0;
  int64_t nnz = e->n;
  for (int64_t k = 0; sym && k < e->n; k++) nnz += e->rows[k] != e->cols[k];
  GCOO_GOTO(gcoo__calloc((void **)&a.ptr, (size_t)b->nrows + 2, sizeof *a.ptr, "row pointers"));
  GCOO_GOTO(gcoo__malloc_n((void **)&a.ind, nnz, sizeof *a.ind, "column indices"));
  GCOO_GOTO(gcoo__malloc_n(&a.values, nnz, gcoo_dtype_size(dtype), "values"));
  int64_t *const ptr = a.ptr;
  int32_t *const ind = a.ind;
  void *const vals = a.values;
  for (int64_t k = 0; k < e->n; k++) {
    ptr[(int64_t)e->rows[k] + 2]++; /* int64: index 2^31 - 2 + 2 overflows int */
    if (sym && e->rows[k] != e->cols[k]) ptr[(int64_t)e->cols[k] + 2]++;
  }
  for (int64_t i = 0; i < b->nrows; i++) ptr[i + 2] += ptr[i + 1];
  for (int64_t k = 0; k < e->n; k++) {
    int32_t i = e->rows[k], j = e->cols[k];
    for (int pass = 0; pass < 1 + (sym && i != j); pass++) {
      int32_t r = pass ? j : i, c = pass ? i : j;
      double v = pass ? mirror * e->vals[k] : e->vals[k];
      int64_t at = ptr[(int64_t)r + 1]++;
      ind[at] = c;
      if (dtype == GCOO_FLOAT64)
        ((double *)vals)[at] = v;
      else
        ((float *)vals)[at] = (float)v;
    }
  }
  /* GCOO_REQUIRE_FINITE always: every value was checked finite, but repeated entries are
   * summed here, and finite values can sum to infinity (1e308 twice) */
  st = gcoo_sparse_create_csr(A, dtype, b->nrows, b->ncols, ptr, ind, vals,
                              (flags & ~(unsigned)GCOO_DUPLICATES_ERROR) | GCOO_REQUIRE_FINITE);
  if (st == GCOO_ERR_NOT_FINITE) /* indices of the message are 0-based, the file's 1-based */
    st = GCOO_ERROR(st, "%s: repeated entries sum past the %s range (0-based: %s)", path,
                    dtype == GCOO_FLOAT64 ? "float64" : "float32", gcoo_last_error());
  GCOO_GOTO(st);
done:
  gcoo__csr_arrays_free(&a);
  return st;
}

static gcoo_status check_flags(unsigned flags) {
  const unsigned known = GCOO_DUPLICATES_ERROR | GCOO_REQUIRE_FINITE | GCOO_KEEP_ZEROS;
  GCOO_CHECK((flags & ~known) == 0, GCOO_ERR_INVALID_ARG, "unknown flags 0x%x", flags & ~known);
  return GCOO_SUCCESS;
}

static gcoo_status mtx_read(const char *path, gcoo_dtype dtype, unsigned flags, gcoo_sparse *A) {
  gcoo_status st = GCOO_SUCCESS;
  mtx_reader r;
  mtx_banner b;
  mtx_entries e = {0};
  GCOO_CHECK(A != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *A = NULL;
  GCOO_CHECK_DTYPE(dtype);
  GCOO_CALL(check_flags(flags));
  GCOO_GOTO(reader_open(&r, path));
  GCOO_GOTO(read_preamble(&r, &b));
  GCOO_CHECK_GOTO(b.coordinate, GCOO_ERR_UNSUPPORTED,
                  "%s is an array (dense) file: read it with gcoo_mtx_read_dense", path);
  GCOO_GOTO(read_entries(&r, &b, dtype, flags, &e));
  if (flags & GCOO_DUPLICATES_ERROR) GCOO_GOTO(refuse_duplicates(&r, &b, &e));
  GCOO_GOTO(build_csr(path, &b, &e, dtype, flags, A));
done:
  entries_free(&e);
  reader_close(&r);
  return st;
}

gcoo_status gcoo_mtx_read(const char *path, gcoo_dtype dtype, unsigned flags, gcoo_sparse *A) {
  locale_t old = gcoo__mtx_locale_begin();
  gcoo_status st = mtx_read(path, dtype, flags, A);
  gcoo__mtx_locale_end(old);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

/* ---- header only --------------------------------------------------------------------------- */

gcoo_status gcoo_mtx_read_header(const char *path, gcoo_mtx_header *h) {
  gcoo_status st = GCOO_SUCCESS;
  mtx_reader r;
  mtx_banner b;
  static const char *fields[] = {"real", "integer", "pattern"};
  static const char *syms[] = {"general", "symmetric", "skew-symmetric"};
  GCOO_CHECK(h != NULL, GCOO_ERR_NULL, "header is NULL");
  memset(h, 0, sizeof *h);
  GCOO_GOTO(reader_open(&r, path));
  GCOO_GOTO(read_preamble(&r, &b));
  h->nrows = b.nrows;
  h->ncols = b.ncols;
  h->nstored = b.nstored;
  snprintf(h->format, sizeof h->format, "%s", b.coordinate ? "coordinate" : "array");
  snprintf(h->field, sizeof h->field, "%s", fields[b.field]);
  snprintf(h->symmetry, sizeof h->symmetry, "%s", syms[b.symmetry]);
done:
  reader_close(&r);
  return st;
}

/* ---- array (dense) files ------------------------------------------------------------------- */

/* The dense matrix is allocated before its values are read, so a size line must not be taken
 * on trust: a 60-byte file announcing 100000 x 100000 would ask for 80 GB and fail with
 * NO_MEMORY (or, with overcommit, take the memory) before finding that it is truncated. An array
 * file has one value a line, at least 2 bytes ("0\n") each but the last; deflate expands at most
 * 1032:1. Files of unknown size (pipes) are trusted. */
static gcoo_status check_array_room(const mtx_reader *r, const mtx_banner *b) {
  if (r->file_bytes < 0) return GCOO_SUCCESS;
  const int64_t ratio = r->gzip ? 1032 : 1;
  const int64_t text = r->file_bytes <= INT64_MAX / ratio ? r->file_bytes * ratio : INT64_MAX;
  const int64_t room = text / 2 + 1;
  GCOO_CHECK(b->nstored <= room, GCOO_ERR_FORMAT,
             "%s, line %lld: truncated: the size line announces %lld x %lld = %lld values, but "
             "the file (%lld bytes%s) can hold at most %lld",
             r->path, (long long)r->line, (long long)b->nrows, (long long)b->ncols,
             (long long)b->nstored, (long long)r->file_bytes, r->gzip ? ", gzip" : "",
             (long long)room);
  return GCOO_SUCCESS;
}

static gcoo_status mtx_read_dense(const char *path, gcoo_dtype dtype, gcoo_layout layout,
                                  gcoo_dense *D) {
  gcoo_status st = GCOO_SUCCESS;
  mtx_reader r;
  mtx_banner b;
  gcoo_dense out = {0};
  GCOO_CHECK(D != NULL, GCOO_ERR_NULL, "output matrix is NULL");
  GCOO_CHECK_DTYPE(dtype);
  GCOO_CHECK(layout == GCOO_ROW_MAJOR || layout == GCOO_COL_MAJOR, GCOO_ERR_INVALID_ARG,
             "unknown layout %d", (int)layout);
  GCOO_GOTO(reader_open(&r, path));
  GCOO_GOTO(read_preamble(&r, &b));
  GCOO_CHECK_GOTO(!b.coordinate, GCOO_ERR_UNSUPPORTED,
                  "%s is a coordinate (sparse) file: read it with gcoo_mtx_read", path);
  GCOO_GOTO(check_array_room(&r, &b));
  GCOO_GOTO(gcoo_dense_create(&out, dtype, layout, b.nrows, b.ncols));
  int64_t k = 0;
  char *s;
  for (;;) {
    GCOO_GOTO(next_data_line(&r, &s));
    if (!s || k == b.nstored) break;
    const char *t[2];
    int len[2], nt = 0, tl;
    const char *tok;
    while (nt < 2 && (tok = next_token(&s, &tl)) != NULL) t[nt] = tok, len[nt++] = tl;
    GCOO_CHECK_GOTO(nt == 1, GCOO_ERR_FORMAT, "%s, line %lld: %s, expected one value a line", path,
                    (long long)r.line, nt == 2 ? "more than one token" : "no token");
    double v;
    GCOO_GOTO(parse_value(&r, &b, dtype, t[0], len[0], &v));
    gcoo_dense_set(&out, k % b.nrows, k / b.nrows, v); /* the format is column-major */
    k++;
  }
  GCOO_CHECK_GOTO(k == b.nstored, GCOO_ERR_FORMAT,
                  "%s, line %lld: truncated: expected %lld entries, found %lld", path,
                  (long long)r.line, (long long)b.nstored, (long long)k);
  GCOO_CHECK_GOTO(s == NULL, GCOO_ERR_FORMAT,
                  "%s, line %lld: trailing data after the %lld entries the size line announced",
                  path, (long long)r.line, (long long)b.nstored);
  *D = out;
  out.data = NULL;
  out.owned = 0;
done:
  gcoo_dense_destroy(&out);
  reader_close(&r);
  return st;
}

gcoo_status gcoo_mtx_read_dense(const char *path, gcoo_dtype dtype, gcoo_layout layout,
                                gcoo_dense *D) {
  locale_t old = gcoo__mtx_locale_begin();
  gcoo_status st = mtx_read_dense(path, dtype, layout, D);
  gcoo__mtx_locale_end(old);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}
