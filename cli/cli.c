/* SPDX-License-Identifier: MIT */
/* cli/cli.c: option parsing, rank-aware output and JSON for the subcommands. */
#define _XOPEN_SOURCE 700 /* readlink */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_rank(void) {
  int r = 0, init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int cli_size(void) {
  int s = 1, init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void cli_out(const char *fmt, ...) {
  if (cli_rank() != 0) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

/* Whether the job was started from a terminal (see cli.h). Rank 0 asks once; the answer is
 * cached. Under mpirun the rank's stderr is a pipe to mpirun, so the terminal is looked for on
 * the launcher's side: the stderr of the parent (Open MPI starts the ranks of its own node as
 * children of mpirun, and rank 0 runs there by default), or of the process above a launcher
 * daemon (orted, prted, hydra) when the parent is one. Slurm's srun does not pass its terminal on; a step of an interactive allocation
 * (salloc, srun from a shell) counts as interactive, one of a batch script (sbatch sets
 * ENVIRONMENT=BATCH, PBS sets PBS_ENVIRONMENT=PBS_BATCH) does not. */
static bool fd_is_terminal_of(pid_t pid) {
  char link[64], target[256];
  snprintf(link, sizeof link, "/proc/%ld/fd/2", (long)pid);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = '\0';
  return !strncmp(target, "/dev/pts/", 9) || !strncmp(target, "/dev/tty", 8) ||
         !strcmp(target, "/dev/console");
}

static pid_t parent_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
  long pp = 0;
  if (!p || sscanf(p + 1, " %*c %ld", &pp) != 1) return 0;
  return (pid_t)pp;
}

/* Launcher daemons between a rank and mpirun (Open MPI 4: orted, 5: prted; MPICH: hydra). */
static bool is_daemon(pid_t pid) {
  char path[64], name[64] = "";
  snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  if (!fgets(name, sizeof name, f)) name[0] = '\0';
  fclose(f);
  name[strcspn(name, "\n")] = '\0';
  return !strcmp(name, "orted") || !strcmp(name, "prted") || !strcmp(name, "hydra_pmi_proxy");
}

static int interactive_detect(void) {
  const char *env = getenv("ENVIRONMENT"), *pbs = getenv("PBS_ENVIRONMENT");
  if ((env && !strcmp(env, "BATCH")) || (pbs && !strcmp(pbs, "PBS_BATCH"))) return 0;
  if (isatty(STDERR_FILENO)) return 1;
  const bool mpi_launched = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_RANK") ||
                            getenv("PMIX_RANK") || getenv("SLURM_STEP_ID");
  if (!mpi_launched) return 0;            /* a plain run whose stderr is a file or a pipe */
  if (getenv("SLURM_PTY_PORT")) return 1; /* srun --pty */
  /* the launcher's stderr: mpirun's own, or past one daemon; not further up, where a wrapper's
   * terminal may be one the user redirected mpirun's output away from */
  pid_t p = getppid();
  if (p > 1 && is_daemon(p)) p = parent_of(p);
  if (p > 1 && fd_is_terminal_of(p)) return 1;
  /* srun's tasks are children of slurmstepd, whose descriptors are not ours to read: a step
   * outside a batch script was started from a shell (salloc, srun) */
  if (getenv("SLURM_STEP_ID") && getenv("SLURM_JOB_ID")) return 1;
  return 0;
}

bool cli_interactive(void) {
  static int cached = -1;
  if (cached < 0) {
    int64_t force = -1; /* GCOO_PROGRESS (gcoo/params.h): 1, 0, or -1 to detect */
    (void)gcoo_param_get_int("GCOO_PROGRESS", &force);
    cached = force == 1 ? 1 : force == 0 ? 0 : interactive_detect();
  }
  return cached == 1;
}

void cli_progress(const char *fmt, ...) {
  if (cli_rank() != 0 || !cli_interactive()) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "gcoo_dist: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  fflush(stderr);
  va_end(ap);
}

void cli_progress_rate(const char *what, const char *path, double mbytes, double seconds) {
  if (!(mbytes > 0 && seconds > 0)) {
    cli_progress("%s %s in %.3f s", what, path, seconds);
    return;
  }
  const double rate = mbytes / seconds;
  const char *unit = mbytes >= 1e3 ? "GB" : mbytes >= 1.0 ? "MB" : "kB";
  const double scale = mbytes >= 1e3 ? 1e-3 : mbytes >= 1.0 ? 1.0 : 1e3;
  cli_progress("%s %s: %.1f %s in %.3f s (%.1f MB/s)", what, path, mbytes * scale, unit, seconds,
               rate);
}

void cli_print_version(void) {
  int len = 0;
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Get_library_version(mpi, &len);
  char *nl = strchr(mpi, '\n');
  if (nl) *nl = '\0';
  cli_out("gcoo_dist %s\n%s\nMPI: %s\n", GCOO_VERSION_STRING, gcoo_version_string(), mpi);
}

void cli_error(const char *fmt, ...) {
  char line[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fputs(line, stderr);
  fflush(stderr);
  cli_json_note(cli_rank(), GCOO_ERR_INVALID_ARG, line);
}

int cli_fail(const char *what, gcoo_status st) {
  char line[8192];
  snprintf(line, sizeof line, "%s: %s (%s): %s", what, gcoo_strerror(st), gcoo_status_name(st),
           gcoo_last_error());
  fprintf(stderr, "gcoo_dist: rank %d: %s\n", cli_rank(), line);
  fflush(stderr);
  cli_json_note(cli_rank(), st, line);
  return 1;
}

enum { REPORT_LINE = 2048 };

/* The start and the end of a line too long for REPORT_LINE: its reason comes last, after the
 * paths it names (a path may be 4 kB). */
static void elide(char *dst, size_t len, const char *src) {
  static const char gap[] = " [...] ";
  const size_t n = strlen(src), g = sizeof gap - 1;
  if (n < len) {
    memcpy(dst, src, n + 1);
    return;
  }
  const size_t head = (len - 1 - g) / 3, tail = len - 1 - g - head;
  memcpy(dst, src, head);
  memcpy(dst + head, gap, g);
  memcpy(dst + head + g, src + n - tail, tail + 1);
}

int cli_report(const char *what, gcoo_status st) {
  /* rank 0 prints the message of every rank that failed itself, in rank order, skipping those
   * that say the same as one printed already: a failure every rank met alike (a bad file read
   * collectively, a directory that does not exist) is one line, while ranks that failed
   * differently (rank 2 sees no GPU on its host) each keep their own */
  int init = 0, size = cli_size(), rank = cli_rank();
  MPI_Initialized(&init);
  char mine[REPORT_LINE] = "";
  if (st < 0 && st != GCOO_ERR_REMOTE) {
    static char line[4 * REPORT_LINE + 8192]; /* what may be a path of PATH_MAX bytes */
    snprintf(line, sizeof line, "%s: %s (%s): %s", what, gcoo_strerror(st), gcoo_status_name(st),
             gcoo_last_error());
    elide(mine, sizeof mine, line);
  }
  if (!init || size == 1) {
    if (st < 0) cli_fail(what, st);
    return 1;
  }
  char *all = rank == 0 ? malloc((size_t)size * REPORT_LINE) : NULL;
  int have = rank != 0 || all != NULL;
  MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!have) { /* no room to gather: the failing ranks speak for themselves */
    if (mine[0]) cli_fail(what, st);
    return 1;
  }
  MPI_Gather(mine, REPORT_LINE, MPI_CHAR, all, REPORT_LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
  int code = (int)st, *codes = rank == 0 ? malloc((size_t)size * sizeof *codes) : NULL;
  MPI_Gather(&code, 1, MPI_INT, codes ? codes : &code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int printed = 0;
    for (int r = 0; r < size; r++) {
      const char *line = all + (size_t)r * REPORT_LINE;
      int seen = !line[0];
      for (int q = 0; q < r && !seen; q++) seen = !strcmp(line, all + (size_t)q * REPORT_LINE);
      if (seen) continue;
      fprintf(stderr, "gcoo_dist: rank %d: %.*s\n", r, REPORT_LINE - 1, line);
      cli_json_note(r, codes ? (gcoo_status)codes[r] : GCOO_ERR_REMOTE, line);
      printed++;
    }
    /* every rank holds GCOO_ERR_REMOTE (the cause was agreed inside the library) */
    if (!printed && st < 0) cli_fail(what, st);
    fflush(stderr);
    free(all);
    free(codes);
  }
  return 1;
}

bool cli_require(bool ok, const char *fmt, ...) {
  int mine = ok ? 1 : 0, all = mine, init = 0;
  if (!ok) {
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gcoo_dist: rank %d: %s\n", cli_rank(), line);
    fflush(stderr);
    cli_json_note(cli_rank(), GCOO_ERR_INVALID_ARG, line);
  }
  MPI_Initialized(&init);
  if (init) MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

gcoo_status cli_agree(gcoo_status local) {
  int v = (int)local, worst = v, init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Allreduce(&v, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  /* ranks that did not fail say so, and cli_report keeps them quiet */
  if (worst < 0 && local >= 0) return GCOO_ERR_REMOTE;
  return local < 0 ? local : (gcoo_status)worst;
}

/* ---- options ------------------------------------------------------------------------------ */
static cli_option *find(cli_command *cmd, const char *name, size_t len) {
  for (cli_option *o = cmd->options; o && o->name; o++)
    if (strlen(o->name) == len && !strncmp(o->name, name, len)) return o;
  return NULL;
}

void cli_print_help(const cli_command *cmd, FILE *f) {
  fprintf(f, "usage: gcoo_dist %s %s\n\n%s\n", cmd->name, cmd->usage ? cmd->usage : "[options]",
          cmd->summary);
  if (cmd->description) fprintf(f, "\n%s\n", cmd->description);
  fprintf(f, "\noptions:\n");
  for (const cli_option *o = cmd->options; o && o->name; o++) {
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(f, "  %-26s %s", left, o->help);
    if (o->def) fprintf(f, " [default: %s]", o->def);
    fputc('\n', f);
  }
  fprintf(f, "  %-26s %s\n", "--help, -h", "this help");
  fprintf(f, "  %-26s %s\n", "--version, -V", "gcoo's version, build and MPI library");
}

int cli_parse(cli_command *cmd, int argc, char **argv) {
  for (cli_option *o = cmd->options; o && o->name; o++) {
    o->value = o->def;
    o->given = false;
  }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (cli_rank() == 0) cli_print_help(cmd, stdout);
      return 1;
    }
    if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
      cli_print_version();
      return 1;
    }
    if (strncmp(a, "--", 2) != 0) {
      if (cli_rank() == 0)
        cli_error("gcoo_dist %s: unexpected argument \"%s\" (see --help)\n", cmd->name, a);
      return -1;
    }
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    cli_option *o = find(cmd, name, len);
    if (!o) {
      if (cli_rank() == 0)
        cli_error("gcoo_dist %s: unknown option \"%.*s\" (see --help)\n", cmd->name, (int)(len + 2),
                  a);
      return -1;
    }
    if (o->arg) {
      if (eq) {
        o->value = eq + 1;
      } else if (i + 1 < argc) {
        o->value = argv[++i];
      } else {
        if (cli_rank() == 0)
          cli_error("gcoo_dist %s: option --%s needs a value (%s)\n", cmd->name, o->name, o->arg);
        return -1;
      }
    } else {
      if (eq) {
        if (cli_rank() == 0)
          cli_error("gcoo_dist %s: option --%s takes no value\n", cmd->name, o->name);
        return -1;
      }
      o->value = "1";
    }
    o->given = true;
  }
  return 0;
}

const char *cli_get(cli_command *cmd, const char *name) {
  cli_option *o = find(cmd, name, strlen(name));
  return o ? o->value : NULL;
}

bool cli_flag(cli_command *cmd, const char *name) {
  cli_option *o = find(cmd, name, strlen(name));
  return o && o->given;
}

bool cli_int(cli_command *cmd, const char *name, long long lo, long long hi, long long *out) {
  const char *v = cli_get(cmd, name);
  char *end = NULL;
  if (!v) return false;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  /* accept 1e6-style integers too: exact ones inside long long only (converting a double at or
   * past 2^63, or -1e19, to long long is undefined behaviour, not an error) */
  if (end && (*end == 'e' || *end == 'E')) {
    errno = 0;
    double d = strtod(v, &end);
    if (d >= -0x1p63 && d < 0x1p63 && d == (double)(long long)d)
      x = (long long)d;
    else
      end = (char *)v;
  }
  if (errno || !end || end == v || *end || x < lo || x > hi) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist %s: --%s %s: expected an integer in [%lld, %lld]\n", cmd->name, name, v,
                lo, hi);
    return false;
  }
  *out = x;
  return true;
}

bool cli_real(cli_command *cmd, const char *name, double lo, double hi, double *out) {
  const char *v = cli_get(cmd, name);
  char *end = NULL;
  if (!v) return false;
  errno = 0;
  double x = strtod(v, &end);
  if (errno || !end || end == v || *end || !isfinite(x) || x < lo || x > hi) {
    if (cli_rank() == 0)
      cli_error("gcoo_dist %s: --%s %s: expected a number in [%g, %g]\n", cmd->name, name, v, lo,
                hi);
    return false;
  }
  *out = x;
  return true;
}

bool cli_dtype(cli_command *cmd, const char *name, gcoo_dtype *out) {
  const char *v = cli_get(cmd, name);
  if (v && (!strcmp(v, "float32") || !strcmp(v, "f32") || !strcmp(v, "float"))) {
    *out = GCOO_FLOAT32;
    return true;
  }
  if (v && (!strcmp(v, "float64") || !strcmp(v, "f64") || !strcmp(v, "double"))) {
    *out = GCOO_FLOAT64;
    return true;
  }
  if (cli_rank() == 0)
    cli_error("gcoo_dist %s: --%s %s: expected float32 or float64\n", cmd->name, name,
              v ? v : "(none)");
  return false;
}

bool cli_p(cli_command *cmd, int32_t *p) {
  const cli_option *o = find(cmd, "p", 1);
  long long v = 0;
  *p = 0;
  if (!o || !o->value) return true;
  if (!cli_int(cmd, "p", o->def && !strcmp(o->def, "0") ? 0 : 1, CLI_P_MAX, &v)) return false;
  *p = (int32_t)v;
  return true;
}

bool cli_backend(cli_command *cmd, const char **backend) {
  /* not given: NULL, so that the library reads GCOO_BACKEND (or takes auto) */
  const char *b = cli_flag(cmd, "backend") ? cli_get(cmd, "backend") : NULL;
  *backend = b;
  if (!b || !strcmp(b, "auto") || !strcmp(b, "gpu") || !strcmp(b, "cpu") || !strcmp(b, "cuda"))
    return true;
  if (cli_rank() == 0)
    cli_error("gcoo_dist %s: --backend %s: expected auto, gpu or cpu\n", cmd->name, b);
  return false;
}

bool cli_spdm_alg(cli_command *cmd, int *alg) {
  *alg = gcoo_spdm_alg_from_name(cli_get(cmd, "alg"));
  if (*alg >= 0) return true;
  if (cli_rank() == 0)
    cli_error("gcoo_dist %s: --alg %s: unknown algorithm (see --help)\n", cmd->name,
              cli_get(cmd, "alg"));
  return false;
}

bool cli_operator_options(cli_command *cmd, const char **backend, int *alg, int32_t *p) {
  return cli_backend(cmd, backend) && cli_spdm_alg(cmd, alg) && cli_p(cmd, p);
}

bool cli_choice(cli_command *cmd, const char *name, const char *const *names, int n, int *index) {
  const char *v = cli_get(cmd, name);
  for (*index = 0; *index < n; ++*index)
    if (v && !strcmp(v, names[*index])) return true;
  if (cli_rank() == 0) {
    char line[1024];
    int len = snprintf(line, sizeof line, "gcoo_dist %s: --%s %s: expected ", cmd->name, name,
                       v ? v : "(none)");
    for (int i = 0; i < n && len < (int)sizeof line; i++)
      len += snprintf(line + len, sizeof line - (size_t)len, "%s%s", names[i],
                      i + 2 < n    ? ", "
                      : i + 2 == n ? " or "
                                   : "\n");
    cli_error("%s", line);
  }
  return false;
}

const char *cli_dtype_name(gcoo_dtype t) { return t == GCOO_FLOAT64 ? "float64" : "float32"; }

const char *cli_h5_dataset(const char *path, const char *object, char *buf, size_t len) {
  if (!path || strstr(path, ":/")) return path;
  snprintf(buf, len, "%s:%s", path, object);
  return buf;
}

bool cli_stencil(cli_command *cmd, int *stencil, int64_t *grid) {
  long long v;
  *stencil = 0;
  if (!cli_flag(cmd, "stencil")) return true;
  const char *sv = cli_get(cmd, "stencil");
  if (strcmp(sv, "7") && strcmp(sv, "27")) {
    if (cli_rank() == 0) cli_error("gcoo_dist %s: --stencil %s: expected 7 or 27\n", cmd->name, sv);
    return false;
  }
  if (!cli_int(cmd, "grid", 1, 1290, &v)) return false;
  *stencil = atoi(sv);
  *grid = v;
  return true;
}

/* ---- writes ------------------------------------------------------------------------------- */
int cli_write_flags(cli_command *cmd) { return cli_flag(cmd, "overwrite") ? GCOO_H5_OVERWRITE : 0; }

/* Every signal that ends the process by default and can be caught: the job's temporary files
 * go with it, whatever stopped it (SIGTERM at a time limit; SIGUSR1/SIGUSR2 from Slurm's
 * --signal, which mpirun forwards; SIGHUP when the terminal goes; SIGXCPU past a CPU limit; a
 * crash). After the clean-up a signal goes on to the handler that was there before (Open MPI's
 * backtrace on a fault); a fault without one to its default action (a core dump); the others
 * end the process with 128 + the signal. A signal the job was started with ignored (nohup's
 * SIGHUP) stays ignored. */
typedef struct caught_signal {
  int sig;
  const char *name;
  bool fault;
} caught_signal;

static const caught_signal caught[] = {
    {SIGHUP, "SIGHUP", false},       {SIGINT, "SIGINT", false},   {SIGQUIT, "SIGQUIT", false},
    {SIGTERM, "SIGTERM", false},     {SIGUSR1, "SIGUSR1", false}, {SIGUSR2, "SIGUSR2", false},
    {SIGPIPE, "SIGPIPE", false},     {SIGALRM, "SIGALRM", false}, {SIGVTALRM, "SIGVTALRM", false},
    {SIGPROF, "SIGPROF", false},     {SIGXCPU, "SIGXCPU", false}, {SIGXFSZ, "SIGXFSZ", false},
#ifdef SIGPOLL
    {SIGPOLL, "SIGPOLL", false},
#endif
#ifdef SIGPWR
    {SIGPWR, "SIGPWR", false},
#endif
#ifdef SIGSTKFLT
    {SIGSTKFLT, "SIGSTKFLT", false},
#endif
    {SIGSEGV, "SIGSEGV", true},      {SIGBUS, "SIGBUS", true},    {SIGILL, "SIGILL", true},
    {SIGFPE, "SIGFPE", true},        {SIGABRT, "SIGABRT", true},  {SIGSYS, "SIGSYS", true},
    {SIGTRAP, "SIGTRAP", true},
};
enum { N_NAMED = sizeof caught / sizeof caught[0], SIGNAL_MAX = 128 };

/* The handler may only use async-signal-safe calls: its messages are made before, whole, so
 * that one write(2) each keeps the ranks' lines apart. */
static char signal_text[SIGNAL_MAX][2][200]; /* [signal][removed a file?] */
static bool signal_fault[SIGNAL_MAX];
static struct sigaction signal_before[SIGNAL_MAX];

static volatile sig_atomic_t signal_finishing = -1; /* the job's exit code once it is decided */

void cli_signals_finishing(int rc) { signal_finishing = rc; }

static void on_signal(int sig) {
  int removed = gcoo_remove_temporaries();
  /* the job is over (mpirun ends the ranks still in MPI_Finalize when one leaves non-zero):
   * nothing was stopped, and the status is the job's */
  if (signal_finishing >= 0 && !signal_fault[sig]) _exit(signal_finishing);
  const char *m = signal_text[sig][removed > 0];
  if (write(STDERR_FILENO, m, strlen(m)) < 0) {
    /* nothing else can be done in a handler */
  }
  const struct sigaction *before = &signal_before[sig];
  const bool was_default = !(before->sa_flags & SA_SIGINFO) && before->sa_handler == SIG_DFL;
  if (was_default && !signal_fault[sig]) _exit(128 + sig);
  /* a fault, or a signal someone else handled too, goes on to what was there before, once this
   * handler returns */
  sigaction(sig, before, NULL);
  raise(sig);
}

static void catch_signal(int sig, const char *name, bool fault) {
  struct sigaction sa, before;
  if (sig <= 0 || sig >= SIGNAL_MAX || sigaction(sig, NULL, &before) != 0) return;
  if (before.sa_handler == SIG_IGN) return;
  for (int r = 0; r < 2; r++)
    snprintf(signal_text[sig][r], sizeof signal_text[sig][r],
             "gcoo_dist: rank %d: stopped by %s%s\n", cli_rank(), name,
             r ? "; removed the temporary file of the unfinished output (the target file is "
                 "unchanged)"
               : "");
  signal_fault[sig] = fault;
  signal_before[sig] = before;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigfillset(&sa.sa_mask); /* one clean-up at a time */
  sigaction(sig, &sa, NULL);
}

void cli_install_signal_handlers(void) {
  for (int i = 0; i < N_NAMED; i++) catch_signal(caught[i].sig, caught[i].name, caught[i].fault);
#if defined(SIGRTMIN) && defined(SIGRTMAX)
  /* real-time signals end the process by default too (Slurm's --signal takes any number) */
  for (int sig = SIGRTMIN; sig <= SIGRTMAX && sig < SIGNAL_MAX; sig++) {
    char name[24];
    snprintf(name, sizeof name, "SIGRTMIN+%d", sig - SIGRTMIN);
    struct sigaction now;
    if (sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL)
      catch_signal(sig, name, false);
  }
#endif
}
