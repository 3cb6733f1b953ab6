/* SPDX-License-Identifier: MIT */
/* cli/cli_json.c: --json: the writer of the one object rank 0 puts on stdout, the fields every
 * subcommand shares (the same names for the same things: docs/guide.md, "--json"), and the
 * error object a job that fails before its report writes in its place. */
#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --json given on the command line (every rank sees the same), the subcommand's name, whether
 * rank 0 wrote the job's report, and the first failure this rank noted. */
static const char *json_command = NULL;
static bool report_written = false;
enum { NOTE_LEN = 2048 };
static struct {
  int have, rank, code;
  char message[NOTE_LEN];
} note;

/* ---- the writer ------------------------------------------------------------------------- */
static void json_key(cli_json *j, const char *key) {
  if (!j->first[j->depth]) fputc(',', j->f);
  j->first[j->depth] = false;
  if (key) fprintf(j->f, "\"%s\":", key);
}

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

void cli_json_begin(cli_json *j, FILE *f) {
  if (f == stdout) report_written = true; /* the job's report: no error object after it */
  j->f = f;
  j->depth = 0;
  j->first[0] = true;
  j->close[0] = '}';
  fputc('{', f);
}

void cli_json_object(cli_json *j, const char *key) {
  json_key(j, key);
  fputc('{', j->f);
  j->first[++j->depth] = true;
  j->close[j->depth] = '}';
}

void cli_json_array(cli_json *j, const char *key) {
  json_key(j, key);
  fputc('[', j->f);
  j->first[++j->depth] = true;
  j->close[j->depth] = ']';
}

void cli_json_end(cli_json *j) {
  fputc(j->close[j->depth], j->f);
  if (j->depth == 0) {
    fputc('\n', j->f);
    fflush(j->f);
  } else {
    j->depth--;
  }
}

void cli_json_str(cli_json *j, const char *key, const char *v) {
  json_key(j, key);
  json_string(j->f, v);
}

void cli_json_int(cli_json *j, const char *key, long long v) {
  json_key(j, key);
  fprintf(j->f, "%lld", v);
}

void cli_json_real(cli_json *j, const char *key, double v) {
  json_key(j, key);
  if (isfinite(v))
    fprintf(j->f, "%.9g", v);
  else
    fprintf(j->f, "null");
}

void cli_json_bool(cli_json *j, const char *key, bool v) {
  json_key(j, key);
  fprintf(j->f, v ? "true" : "false");
}

void cli_json_reals(cli_json *j, const char *const *keys, const double *v, int n) {
  for (int i = 0; i < n; i++) cli_json_real(j, keys[i], v[i]);
}

/* ---- the fields every subcommand shares ----------------------------------------------------- */
void cli_json_head(cli_json *j, const char *command) {
  cli_json_str(j, "command", command);
  cli_json_str(j, "version", GCOO_VERSION_STRING);
  cli_json_int(j, "ranks", cli_size());
}

void cli_json_matrix(cli_json *j, const char *key, const char *source, int64_t rows, int64_t cols,
                     int64_t nnz) {
  cli_json_object(j, key);
  cli_json_str(j, "source", source);
  cli_json_int(j, "rows", rows);
  cli_json_int(j, "cols", cols);
  if (nnz >= 0) cli_json_int(j, "nnz", nnz);
  cli_json_end(j);
}

enum { DEVICE_DESC = 320 };

char *cli_devices_gather(gcoo_dist d) {
  const int rank = gcoo_dist_rank(d), size = gcoo_dist_size(d);
  char mine[DEVICE_DESC], dev[256] = "";
  gcoo_dist_info di;
  if (gcoo_dist_get_info(d, &di) < 0) snprintf(di.host, sizeof di.host, "?");
  if (gcoo_ctx_describe(gcoo_dist_ctx(d), dev, sizeof dev) < 0) snprintf(dev, sizeof dev, "?");
  snprintf(mine, sizeof mine, "%s: %s", di.host, dev);
  char *all = rank == 0 ? calloc((size_t)size, DEVICE_DESC) : NULL;
  MPI_Gather(mine, DEVICE_DESC, MPI_CHAR, all ? all : mine, DEVICE_DESC, MPI_CHAR, 0,
             gcoo_dist_comm(d));
  return all;
}

const char *cli_devices_at(const char *devices, int r) {
  return devices ? devices + (size_t)r * DEVICE_DESC : "?";
}

void cli_json_run(cli_json *j, gcoo_dist d, const char *devices) {
  gcoo_dist_info di;
  const bool have = gcoo_dist_get_info(d, &di) >= 0;
  cli_json_str(j, "backend", gcoo_ctx_backend(gcoo_dist_ctx(d)));
  cli_json_bool(j, "nccl", have && di.nccl);
  cli_json_array(j, "devices");
  for (int r = 0; devices && r < gcoo_dist_size(d); r++)
    cli_json_str(j, NULL, cli_devices_at(devices, r));
  cli_json_end(j);
}

/* ---- the error object ------------------------------------------------------------------------ */
void cli_json_mode(const char *command) { json_command = command; }

void cli_json_note(int rank, gcoo_status code, const char *message) {
  if (note.have) return; /* the first failure is the cause; what follows is its echo */
  note.have = 1;
  note.rank = rank;
  note.code = (int)code;
  size_t n = strlen(message);
  while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == ' ')) n--;
  if (n >= sizeof note.message) n = sizeof note.message - 1;
  memcpy(note.message, message, n);
  note.message[n] = '\0';
}

void cli_json_finish(int rc) {
  int init = 0;
  MPI_Initialized(&init);
  if (!json_command || !init) return;
  const int rank = cli_rank(), size = cli_size();
  int written = report_written;
  MPI_Bcast(&written, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc == 0 || written) return;
  /* the cause: the note of the lowest rank holding one (rank 0's notes name the rank that
   * failed: cli_report gathers them there) */
  int mine = note.have ? rank : size, holder = size;
  MPI_Allreduce(&mine, &holder, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (holder < size) {
    int meta[2] = {note.rank, note.code};
    MPI_Bcast(meta, 2, MPI_INT, holder, MPI_COMM_WORLD);
    MPI_Bcast(note.message, NOTE_LEN, MPI_CHAR, holder, MPI_COMM_WORLD);
    note.rank = meta[0];
    note.code = meta[1];
  }
  if (rank != 0) return;
  cli_json j;
  cli_json_begin(&j, stdout);
  cli_json_head(&j, json_command);
  if (holder < size) {
    cli_json_str(&j, "status", gcoo_status_name((gcoo_status)note.code));
    cli_json_int(&j, "code", note.code);
    cli_json_str(&j, "message", note.message);
    cli_json_int(&j, "rank", note.rank);
  } else { /* a failure no rank described (it said so on stderr) */
    cli_json_str(&j, "status", "failed");
    cli_json_int(&j, "code", 0);
    cli_json_str(&j, "message", "the job failed; its messages are on stderr");
    cli_json_int(&j, "rank", -1);
  }
  cli_json_int(&j, "exit_code", rc);
  cli_json_end(&j);
}
