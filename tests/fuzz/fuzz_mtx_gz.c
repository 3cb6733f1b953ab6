/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_mtx_gz.c: harness "mtx_gz": how the Matrix Market reader takes its bytes: the
 * gzip path (zlib through gzread), the framing of lines across its 256 KiB read chunks, and the
 * refusal of a .gz name on a file that is not gzip.
 *
 * An input that starts with the gzip magic (1f 8b) is a compressed file as it comes: the reader
 * must fail whenever zlib itself cannot decompress all of it (corrupt data, bad CRC, cut
 * stream), and otherwise read exactly what the decompressed text gives.
 * Any other input is the text of a file, and is read five ways that must agree:
 *   1. plain, as "in.mtx";
 *   2. gzip-compressed here (level from the input's hash), as "in.mtx.gz": same status, same
 *      matrix, bit for bit;
 *   3. the same compressed stream cut short: must fail (GCOO_ERR_FORMAT), never succeed;
 *   4. the compressed stream with one byte changed: fails, or reads the same matrix (the byte was
 *      in a header field such as the time stamp);
 *   5. plain, with a comment line inserted after the first line that puts the next lines across
 *      the reader's first 256 KiB chunk boundary (or, one input in four, a comment longer than
 *      a chunk, so that the read buffer grows): same status, same matrix;
 * and the plain text named "in.mtx.gz" must be refused (GCOO_ERR_FORMAT). */
#include <string.h>
#include <zlib.h>

#include "fuzz_common.h"

enum {
  READ_CHUNK = 1 << 18, /* the reader's gzread size (io/mtx.c, MTX_CHUNK) */
  MAX_ROWS = 1 << 20,   /* larger shapes are read header-only (see fuzz_mtx.c) */
  MAX_TEXT = 1 << 24    /* decompressed size beyond which a raw gzip input is not compared */
};

typedef struct buf {
  unsigned char *p;
  size_t n, cap;
} buf;

static void buf_put(buf *b, const void *src, size_t n) {
  if (n == 0) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n) cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    FUZZ_ASSERT(p != NULL, "harness out of memory (%zu bytes)", cap);
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, src, n);
  b->n += n;
}

/* gzip-compress with zlib (windowBits 15 + 16: gzip wrapper). */
static void gzip_bytes(const uint8_t *data, size_t size, int level, buf *out) {
  z_stream z;
  memset(&z, 0, sizeof z);
  FUZZ_ASSERT(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK,
              "deflateInit2");
  unsigned char chunk[16384];
  z.next_in = (unsigned char *)data;
  z.avail_in = (uInt)size;
  int r;
  do {
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    r = deflate(&z, Z_FINISH);
    FUZZ_ASSERT(r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR, "deflate: %d", r);
    buf_put(out, chunk, sizeof chunk - z.avail_out);
  } while (r != Z_STREAM_END);
  deflateEnd(&z);
}

/* Decompress a gzip file the way zlib's gzread sees it (members, trailing garbage).
 * Returns 0 if every byte decompressed, -1 if zlib reported an error or a cut stream. */
static int gunzip_file(const char *path, buf *out) {
  gzFile g = gzopen(path, "rb");
  FUZZ_ASSERT(g != NULL, "gzopen %s", path);
  unsigned char chunk[16384];
  int n, zerr = Z_OK, result = 0;
  while ((n = gzread(g, chunk, sizeof chunk)) > 0) {
    if (out->n + (size_t)n > MAX_TEXT) {
      result = 1; /* too big to compare: only "no crash" is checked */
      break;
    }
    buf_put(out, chunk, (size_t)n);
  }
  if (n < 0) result = -1;
  if (n == 0) {
    gzerror(g, &zerr);
    if (zerr != Z_OK) result = -1;
  }
  gzclose(g);
  return result;
}

/* The CSR float64 read of a file, unless its header announces a shape too big for the
 * harness (then *skipped = 1 and the status is the header's). */
static gcoo_status read_csr(const char *path, gcoo_sparse *A, int *skipped) {
  gcoo_mtx_header h;
  *A = NULL;
  *skipped = 0;
  gcoo_clear_error();
  gcoo_status st = gcoo_mtx_read_header(path, &h);
  if (st >= 0 && h.nrows > MAX_ROWS) {
    *skipped = 1;
    return st;
  }
  gcoo_clear_error();
  st = gcoo_mtx_read(path, GCOO_FLOAT64, 0, A);
  if (st < 0) fuzz_check_failure(st, "gcoo_mtx_read", NULL);
  return st;
}

static void check_agree(gcoo_status s1, gcoo_sparse A1, gcoo_status s2, gcoo_sparse A2,
                        const char *what) {
  FUZZ_ASSERT(s1 == s2, "%s: status %s, plain read %s", what, gcoo_status_name(s2),
              gcoo_status_name(s1));
  if (s1 >= 0) FUZZ_ASSERT(fuzz_same_sparse(A1, A2), "%s: the matrices differ", what);
}

static int raw_gzip_input(const uint8_t *data, size_t size) {
  char gzpath[512], txtpath[512];
  buf text = {0};
  gcoo_sparse A = NULL, B = NULL;
  int skip_a = 0, skip_b = 0;
  fuzz_path(gzpath, sizeof gzpath, "raw.mtx.gz");
  fuzz_write_file(gzpath, data, size);
  int z = gunzip_file(gzpath, &text);
  gcoo_status sa = read_csr(gzpath, &A, &skip_a);
  if (z < 0 && !skip_a)
    FUZZ_ASSERT(sa < 0, "zlib cannot decompress this file, yet the reader read it");
  if (z == 0) {
    fuzz_path(txtpath, sizeof txtpath, "raw.mtx");
    fuzz_write_file(txtpath, text.p ? (const void *)text.p : "", text.n);
    gcoo_status sb = read_csr(txtpath, &B, &skip_b);
    if (!skip_a && !skip_b && text.n > 0) check_agree(sb, B, sa, A, "raw gzip vs its text");
  }
  gcoo_sparse_destroy(&A);
  gcoo_sparse_destroy(&B);
  free(text.p);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return raw_gzip_input(data, size);
  char plain[512], gz[512], path[512];
  buf z = {0}, padded = {0};
  gcoo_sparse A = NULL, B = NULL;
  int skipped = 0, skip2 = 0;
  const uint64_t h = fuzz_hash(data, size);

  /* 1. plain */
  fuzz_path(plain, sizeof plain, "in.mtx");
  fuzz_write_file(plain, data, size);
  gcoo_status s1 = read_csr(plain, &A, &skipped);
  if (skipped) return 0;

  /* 2. gzip */
  gzip_bytes(data, size, (int)(h % 10), &z);
  fuzz_path(gz, sizeof gz, "in.mtx.gz");
  fuzz_write_file(gz, z.p, z.n);
  gcoo_status s2 = read_csr(gz, &B, &skip2);
  if (size > 0) check_agree(s1, A, s2, B, "gzip-compressed");
  gcoo_sparse_destroy(&B);

  /* 3. cut short: anything from the bare magic to one byte less than the whole stream */
  size_t cut = 2 + (size_t)((h >> 8) % (z.n - 2));
  fuzz_write_file(gz, z.p, cut);
  gcoo_clear_error();
  gcoo_status s3 = gcoo_mtx_read(gz, GCOO_FLOAT64, 0, &B);
  FUZZ_ASSERT(s3 < 0, "a gzip stream cut at %zu of %zu bytes was read as complete", cut, z.n);
  fuzz_check_failure(s3, "gcoo_mtx_read (cut gzip)", NULL);

  /* 4. one byte changed */
  size_t at = (size_t)((h >> 24) % z.n);
  unsigned char flip = (unsigned char)(1u << ((h >> 40) & 7));
  z.p[at] ^= flip;
  fuzz_write_file(gz, z.p, z.n);
  gcoo_status s4 = read_csr(gz, &B, &skip2);
  if (!skip2 && s4 >= 0)
    FUZZ_ASSERT(s1 >= 0 && fuzz_same_sparse(A, B),
                "byte %zu of the gzip stream changed (^0x%02x), the reader read a different "
                "matrix",
                at, flip);
  gcoo_sparse_destroy(&B);

  /* 5. lines across the first read chunk: a comment line after line 1, long enough that the
   * chunk ends within the next few lines */
  const uint8_t *nl = memchr(data, '\n', size);
  size_t first = nl ? (size_t)(nl - data) + 1 : size;
  size_t back = 1 + (size_t)((h >> 48) % 64);
  if (first + 2 + back < READ_CHUNK) {
    /* one input in four gets a comment longer than a chunk: the read buffer must grow */
    size_t pad = (h >> 56) % 4 == 0 ? 2 * READ_CHUNK + back : READ_CHUNK - first - back;
    buf_put(&padded, data, first);
    if (!nl) buf_put(&padded, "\n", 1);
    buf_put(&padded, "%", 1);
    unsigned char dots[1024];
    memset(dots, '.', sizeof dots);
    for (size_t left = pad - 2; left > 0;) {
      size_t n = left < sizeof dots ? left : sizeof dots;
      buf_put(&padded, dots, n);
      left -= n;
    }
    buf_put(&padded, "\n", 1);
    buf_put(&padded, data + first, size - first);
    fuzz_path(path, sizeof path, "padded.mtx");
    fuzz_write_file(path, padded.p, padded.n);
    gcoo_status s5 = read_csr(path, &B, &skip2);
    /* without a line ending, the padding turns the last line into a line of its own: only
     * compare inputs that end their first line */
    if (nl) check_agree(s1, A, s5, B, "padded across the read chunk");
    gcoo_sparse_destroy(&B);
  }

  /* plain text named .gz */
  if (size >= 2) {
    fuzz_write_file(gz, data, size);
    gcoo_clear_error();
    gcoo_status s6 = gcoo_mtx_read(gz, GCOO_FLOAT64, 0, &B);
    FUZZ_ASSERT(s6 == GCOO_ERR_FORMAT && B == NULL, "plain text named .gz: %s",
                gcoo_status_name(s6));
  }
  gcoo_sparse_destroy(&A);
  free(z.p);
  free(padded.p);
  return 0;
}
