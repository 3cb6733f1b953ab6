/* SPDX-License-Identifier: MIT */
/* cli/cli.h: what the subcommands of gcoo_dist share: option parsing with --help, a JSON
 * writer, rank-aware messages and status agreement. The command talks; the library does not. */
#ifndef GCOO_CLI_H
#define GCOO_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <mpi.h>

#include "gcoo/gcoo.h"
#include "gcoo/dist.h"

/* ---- options ------------------------------------------------------------------------------ */
typedef struct cli_option {
  const char *name; /* long name without "--" */
  const char *arg;  /* NULL for a flag, else the argument's name in the help ("N") */
  const char *def;  /* default value shown in help and returned when absent (may be NULL) */
  const char *help;
  /* filled by cli_parse */
  const char *value; /* argument (or def), or "1" for a set flag, NULL if absent */
  bool given;
} cli_option;

/* ---- the options several subcommands share: one definition each ---------------------------
 * A subcommand lists CLI_OPT_X in its table and reads it with the matching reader below, so the
 * name, argument, help, range and error message are the same in every subcommand. Where the
 * default differs between subcommands it is the macro's argument and means the same thing. */
#define CLI_P_MAX (1 << 20) /* the largest --p */
/** --p P: the GCOO group width, in [1, CLI_P_MAX]; DEF the subcommand's default ("32"), or
 *  "0" (then also accepted: the input's groups or the backend's default), or NULL (absent:
 *  the input decides); NOTE (a string literal, "" for none) says what the width is for. */
#define CLI_OPT_P(def, note) \
  { "p", "P", def, "GCOO group width, up to 2^20" note, NULL, false }
/** --dtype T: the element type; DEF "float32" or "float64", or NULL when the input decides and
 *  NOTE (a string literal, "" for none) says so in --help. */
#define CLI_OPT_DTYPE(def, note)                                                              \
  {                                                                                           \
    "dtype", "T", def, "element type: float32 or float64 (f32/f64, float/double)" note, NULL, \
        false                                                                                 \
  }
/** --backend B: auto, gpu or cpu (cuda is gpu); absent: $GCOO_BACKEND, else auto. */
#define CLI_OPT_BACKEND \
  { "backend", "B", NULL, "auto, gpu or cpu [default: $GCOO_BACKEND, else auto]", NULL, false }
/** --json: one JSON object on stdout (rank 0) instead of the text. */
#define CLI_OPT_JSON \
  { "json", NULL, NULL, "print one JSON object on stdout (rank 0) instead of text", NULL, false }
/** --out PATH: where the result is written; HELP says what and how. */
#define CLI_OPT_OUT(help) \
  { "out", "PATH", NULL, help, NULL, false }
/** --overwrite: replace what --out names when it exists; every subcommand with --out has it. */
#define CLI_OPT_OVERWRITE                                                                        \
  {                                                                                              \
    "overwrite", NULL, NULL,                                                                     \
        "replace what --out names when it exists (an HDF5 object: the file's other objects are " \
        "kept either way; a Matrix Market file); without it an existing one is an error",        \
        NULL, false                                                                              \
  }
/** --stencil 7|27 and --grid n: the 3-D Poisson matrix (read with cli_stencil); GRID the
 *  default grid points per side. */
#define CLI_OPT_STENCIL                                                                           \
  {                                                                                               \
    "stencil", "7|27", NULL,                                                                      \
        "instead of a matrix file: 3-D Poisson matrix, 7 or 27 points (with --grid)", NULL, false \
  }
#define CLI_OPT_GRID(def) \
  { "grid", "n", def, "grid points per side of the Poisson matrix (n^3 rows)", NULL, false }
/** --alg NAME: the SpDM algorithm of the operator (gcoo_spdm_alg_from_name). */
#define CLI_OPT_SPDM_ALG                                                             \
  {                                                                                  \
    "alg", "NAME", "auto",                                                           \
        "auto, gcoo, gcoo_faithful, cusparse, cusparse_default, cusparse_csr_alg2, " \
        "cusparse_csr_alg3, dense, dense_tf32, reference",                           \
        NULL, false                                                                  \
  }
/** --method M: the SpGEMM size predictor (gcoo_predict_method_from_name). */
#define CLI_OPT_PREDICT_METHOD                                                                     \
  {                                                                                                \
    "method", "M", "adaptive", "predictor: adaptive, paper, reference, pps, upper or exact", NULL, \
        false                                                                                      \
  }
#define CLI_OPT_END \
  { NULL, NULL, NULL, NULL, NULL, false }

typedef struct cli_command {
  const char *name;
  const char *summary;
  const char *usage;       /* one line after "gcoo_dist <name> " */
  const char *description; /* paragraph(s) for --help */
  cli_option *options;     /* terminated by {NULL} */
  int (*run)(int argc, char **argv, struct cli_command *cmd);
} cli_command;

/** Parse argv (after the subcommand name). Returns 0 to go on, 1 when --help or --version
 *  was printed (exit 0), -1 on a bad option (message printed on rank 0; exit 2). Positional arguments are
 *  refused. */
int cli_parse(cli_command *cmd, int argc, char **argv);
const char *cli_get(cli_command *cmd, const char *name);
bool cli_flag(cli_command *cmd, const char *name);
/** Integer / real option values with range checks; print the reason and return false if bad. */
bool cli_int(cli_command *cmd, const char *name, long long lo, long long hi, long long *out);
bool cli_real(cli_command *cmd, const char *name, double lo, double hi, double *out);
/** Element type option: float32 | float64 (also f32/f64, float/double). */
bool cli_dtype(cli_command *cmd, const char *name, gcoo_dtype *out);
/** The job's element type: --dtype when given, else the type path stores (HDF5: as stored;
 *  Matrix Market: float64), else fallback (generated inputs). source says which ("from
 *  --dtype", "as stored in A.h5", "for Matrix Market A.mtx", "for generated input"). Collective (rank 0 looks at the file). */
bool cli_job_dtype(cli_command *cmd, const char *path, gcoo_dtype fallback, gcoo_dtype *out,
                   char *source, size_t len);
/** --p (CLI_OPT_P) into *p, 0 when absent; 0 itself only where it is the default. */
bool cli_p(cli_command *cmd, int32_t *p);
/** --backend (CLI_OPT_BACKEND): the name for gcoo_dist_create, NULL when not given (the library
 *  then reads $GCOO_BACKEND, else auto); false with the message on a name not in the list. */
bool cli_backend(cli_command *cmd, const char **backend);
/** --alg (CLI_OPT_SPDM_ALG) as a gcoo_spdm_alg. */
bool cli_spdm_alg(cli_command *cmd, int *alg);
/** The distributed operator's options of spdm and solve: cli_backend, cli_spdm_alg, cli_p. */
bool cli_operator_options(cli_command *cmd, const char **backend, int *alg, int32_t *p);
/** A keyword option: *index = the position of its value among names[0..n); false with
 *  "gcoo_dist CMD: --NAME VALUE: expected A or B" (A, B or C for three) on rank 0 otherwise. */
bool cli_choice(cli_command *cmd, const char *name, const char *const *names, int n, int *index);
const char *cli_dtype_name(gcoo_dtype t);
/** An HDF5 output path with its dataset: path itself when it names one ("f.h5:/Y"), else
 *  "path:object" in buf (a dense matrix is a dataset and needs a name in the file). */
const char *cli_h5_dataset(const char *path, const char *object, char *buf, size_t len);
/** --stencil 7|27 with --grid n (1..1290): *stencil = 0 when --stencil is absent. */
bool cli_stencil(cli_command *cmd, int *stencil, int64_t *grid);
void cli_print_help(const cli_command *cmd, FILE *f);
/** The flags of the gcoo_h5_write_* calls the options ask for (GCOO_H5_OVERWRITE with --overwrite). */
int cli_write_flags(cli_command *cmd);
/** Any signal that would end this rank (SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP, SIGXCPU, the
 *  real-time signals, faults, ...): remove the temporary file of a write in progress
 *  (gcoo_remove_temporaries), say so on stderr and exit 128 + signal (a fault goes on to the
 *  handler that was there before, or its default action). Signals ignored at start stay
 *  ignored. Call after MPI_Init. */
void cli_install_signal_handlers(void);
/** The job's work is over and rc its exit code: a signal from now on (mpirun ending the ranks
 *  still in MPI_Finalize when another left non-zero) ends the rank with rc, without a message. */
void cli_signals_finishing(int rc);

/* ---- ranks and messages ------------------------------------------------------------------- */
int cli_rank(void);
int cli_size(void);
/** printf on rank 0 only (stdout). */
void cli_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Whether progress is shown: GCOO_PROGRESS=1 / 0 decide; otherwise when the job was started
 *  from a terminal: stderr is one, or (under mpirun / srun, where rank 0's stderr is a pipe) the
 *  launcher's stderr is one, or the job step belongs to an interactive Slurm allocation; never in
 *  a batch job (sbatch's ENVIRONMENT=BATCH, PBS_ENVIRONMENT=PBS_BATCH). Details in cli.c. */
bool cli_interactive(void);
/** Progress and notes on rank 0 only (stderr), shown when cli_interactive(), so logs and JSON
 *  of batch jobs stay clean. */
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** "<what> <path>: 12.3 MB in 0.456 s (27.0 MB/s)" as progress (mbytes 0: the time only). */
void cli_progress_rate(const char *what, const char *path, double mbytes, double seconds);
/** gcoo_dist --version (rank 0): gcoo's version, its build line and the MPI library. */
void cli_print_version(void);
/** A message about the command line or the job's inputs, printed on stderr as given (a
 *  "gcoo_dist ...: " line, newline included) and noted for --json's error object (as
 *  GCOO_ERR_INVALID_ARG). Not collective. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Report a failed gcoo call: every rank that failed prints "gcoo_dist: rank R: <what>: <status>:
 *  <last error>" on stderr. Returns the exit code to use (1). */
int cli_fail(const char *what, gcoo_status st);
/** cli_fail for a status that went through gcoo_dist_agree, printed by rank 0 for all: the
 *  message of each rank that failed itself, in rank order, once per distinct message (ranks
 *  holding GCOO_ERR_REMOTE say nothing). Collective over MPI_COMM_WORLD: every rank calls it
 *  with its agreed status. Returns 1. */
int cli_report(const char *what, gcoo_status st);
/** A condition every rank evaluates (collective): true when it holds on every rank; the ranks
 *  where it does not print "gcoo_dist: rank R: <message>" on stderr. */
bool cli_require(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Agree over MPI_COMM_WORLD (so all stop together): a failing rank gets its own status, the
 *  others GCOO_ERR_REMOTE when any rank failed (cli_report prints nothing for it: the failing
 *  rank's message is enough), else the minimum status. */
gcoo_status cli_agree(gcoo_status local);

/* ---- start-up (cli/startup.c) ------------------------------------------------------------- */
/** First thing in main(): note the time, set the MPI environment defaults and start the
 *  input's read-ahead (gcoo_file_prefetch). */
void cli_startup_begin(int argc, char **argv);
/** Right after MPI_Init: start the CUDA start-up on a thread (gcoo_cuda_prestart) when the
 *  command may run on a GPU (not beside MPI_Init: cli/startup.c says why). */
void cli_startup_mpi_done(void);
/** After MPI_Finalize: returns rc, or leaves the process at once (_exit(rc), all streams
 *  flushed) when a GPU was used, skipping the CUDA runtime's exit-time teardown. */
int cli_startup_end(int rc);
/** Whether cli_startup_end will leave with _exit (a GPU was used, GCOO_FAST_STARTUP not 0): a
 *  command may then skip freeing what the process's end takes back anyway. */
bool cli_quick_exit(void);
/** Whether the start-up is made short: a singleton's MPI defaults (cli/startup.c), the GPU's
 *  context on a thread, the input prefetched while the distributed context is made; yes unless
 *  GCOO_FAST_STARTUP=0 (for measuring it). */
bool cli_fast_startup(void);
/** Whether this process asked for its whole share of the input before MPI_Init (a singleton,
 *  or ranks all on one host): the share's prefetch after MPI_Init is then not needed. */
bool cli_input_prefetched(void);

/* ---- JSON (rank 0 writes one object to stdout) -------------------------------------------- */
typedef struct cli_json {
  FILE *f;
  int depth;
  bool first[16];
  char close[16]; /* '}' or ']' for each open level */
} cli_json;
void cli_json_begin(cli_json *j, FILE *f);
void cli_json_object(cli_json *j, const char *key); /* nested object; key NULL in arrays */
void cli_json_array(cli_json *j, const char *key);
void cli_json_end(cli_json *j); /* closes the innermost object/array; at depth 0 the whole
                                    object, followed by a newline */
void cli_json_str(cli_json *j, const char *key, const char *v);
void cli_json_int(cli_json *j, const char *key, long long v);
void cli_json_real(cli_json *j, const char *key, double v);
void cli_json_bool(cli_json *j, const char *key, bool v);
/** n reals under their keys (a table of timings, say), in order. */
void cli_json_reals(cli_json *j, const char *const *keys, const double *v, int n);
/** "startup_s": {exec_to_main, mpi_init, report_epoch_us} (cli/startup.c). */
void cli_json_startup(cli_json *j);

/* ---- --json's shared fields and its error object (cli/cli_json.c; docs/guide.md, "--json") -- */
/** "command", "version" and "ranks": the head of every subcommand's object. */
void cli_json_head(cli_json *j, const char *command);
/** key: {"source", "rows", "cols", "nnz"} of a matrix of the job (nnz < 0: left out). */
void cli_json_matrix(cli_json *j, const char *key, const char *source, int64_t rows, int64_t cols,
                     int64_t nnz);
/** Every rank's "host: device" (gcoo_ctx_describe), for cli_json_run: an array on rank 0 (free
 *  it), NULL elsewhere. Collective over d. */
char *cli_devices_gather(gcoo_dist d);
/** Rank r's entry of cli_devices_gather's array. */
const char *cli_devices_at(const char *devices, int r);
/** "backend", "nccl" and "devices" (devices from cli_devices_gather) of a job on d. */
void cli_json_run(cli_json *j, gcoo_dist d, const char *devices);
/** --json is on the command line of `command` (main, on every rank). */
void cli_json_mode(const char *command);
/** Note this process's first failure for the error object: the rank it concerns, its status and
 *  its message (cli_fail, cli_report, cli_require and cli_error note theirs). Not collective. */
void cli_json_note(int rank, gcoo_status code, const char *message);
/** At the end of a --json job (main, every rank, collective): when it failed before rank 0 wrote
 *  its report, rank 0 writes the error object instead, {"command", "version", "ranks", "status",
 *  "code", "message", "rank", "exit_code"}, from the lowest rank's note. */
void cli_json_finish(int rc);

/* ---- the subcommands (one file each) ------------------------------------------------------ */
extern cli_command cmd_spdm, cmd_convert, cmd_gen, cmd_info, cmd_predict, cmd_spgemm, cmd_solve;
/** The main job on its embedded default (gcoo_dist with no arguments). */
int cli_default_job(void);

#endif
