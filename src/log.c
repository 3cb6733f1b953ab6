/* SPDX-License-Identifier: MIT */
/* src/log.c: opt-in logging (GCOO_DEBUG, GCOO_DEBUG_SUBSYS, GCOO_DEBUG_FILE: src/params.h), read
 * once, and a monotonic clock. The library prints nothing unless GCOO_DEBUG asks for it, and
 * appends to no file but a new one or its own log (open_log). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend_impl.h"
#include "params.h"

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static gcoo_log_level log_level = GCOO_LOG_NONE;
static char log_subsys[256]; /* comma-separated subsystems to show; empty: all */
static FILE *log_file;
static char log_prefix[128] = "";
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Expand %h (host name) and %p (pid) in GCOO_DEBUG_FILE, as NCCL_DEBUG_FILE does. */
static void expand_path(const char *pattern, char *out, size_t len) {
  size_t o = 0;
  for (const char *c = pattern; *c && o + 1 < len; c++) {
    if (c[0] == '%' && (c[1] == 'h' || c[1] == 'p')) {
      char tmp[256];
      if (c[1] == 'h') {
        if (gethostname(tmp, sizeof tmp) != 0) snprintf(tmp, sizeof tmp, "host");
        tmp[sizeof tmp - 1] = '\0';
      } else {
        snprintf(tmp, sizeof tmp, "%ld", (long)getpid());
      }
      int n = snprintf(out + o, len - o, "%s", tmp);
      if (n > 0) o += (size_t)n < len - o ? (size_t)n : len - o - 1;
      c++;
    } else {
      out[o++] = *c;
    }
  }
  out[o] = '\0';
}

/* The log file, opened for appending, only where appending cannot damage anything: a new or
 * empty file, a file that already holds gcoo's log, or not a regular file (a terminal, a pipe,
 * /dev/null). GCOO_DEBUG_FILE naming an input (A.h5, A.mtx) or any other file would otherwise
 * get log lines appended to it. NULL with the reason in why. */
static FILE *open_log(const char *path, char *why, size_t len) {
  int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EISDIR) {
    snprintf(why, len, "it is a directory");
    return NULL;
  }
  if (fd < 0) fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(why, len, "cannot open it: %s", strerror(errno));
    return NULL;
  }
  struct stat sb;
  char head[256];
  ssize_t n = 0;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
    n = pread(fd, head, sizeof head - 1, 0);
    head[n > 0 ? n : 0] = '\0';
    head[strcspn(head, "\n")] = '\0';
    if (n <= 0 || !(strstr(head, " gcoo WARN ") || strstr(head, " gcoo INFO ") ||
                    strstr(head, " gcoo TRACE "))) {
      close(fd);
      snprintf(why, len,
               "it exists and does not hold gcoo's log (it may be an input or a result; gcoo "
               "appends only to a new file or its own log)");
      return NULL;
    }
  }
  FILE *f = fdopen(fd, "a");
  if (!f) {
    snprintf(why, len, "cannot open it: %s", strerror(errno));
    close(fd);
  }
  return f;
}

static void log_init(void) {
  const char *lv = gcoo__param_str(GCOO__P_DEBUG);
  static const char *const levels[] = {"NONE", "WARN", "INFO", "TRACE"}; /* gcoo_log_level */
  for (int l = GCOO_LOG_WARN; lv && l <= GCOO_LOG_TRACE; l++)
    if (!strcasecmp(lv, levels[l])) log_level = (gcoo_log_level)l;
  snprintf(log_subsys, sizeof log_subsys, "%s", gcoo__param_str(GCOO__P_DEBUG_SUBSYS));
  log_file = stderr;
  const char *lf = gcoo__param_str(GCOO__P_DEBUG_FILE);
  if (*lf && log_level > GCOO_LOG_NONE) {
    char path[1024], why[160] = "";
    expand_path(lf, path, sizeof path);
    FILE *f = open_log(path, why, sizeof why);
    if (f)
      log_file = f;
    else
      fprintf(stderr, "gcoo: GCOO_DEBUG_FILE=%s: not used: %s; logging to stderr\n", path, why);
  }
}

gcoo_log_level gcoo__log_level(void) {
  pthread_once(&log_once, log_init);
  return log_level;
}

void gcoo__log_set_prefix(const char *prefix) {
  pthread_mutex_lock(&log_mutex);
  snprintf(log_prefix, sizeof log_prefix, "%s", prefix ? prefix : "");
  pthread_mutex_unlock(&log_mutex);
}

static int subsys_enabled(const char *subsys) {
  if (!log_subsys[0] || !subsys) return 1;
  size_t n = strlen(subsys);
  for (const char *p = log_subsys; (p = strstr(p, subsys)) != NULL; p += n)
    if ((p == log_subsys || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
  return 0;
}

void gcoo__log(gcoo_log_level level, const char *subsys, const char *fmt, ...) {
  if (gcoo__log_level() < level || !subsys_enabled(subsys)) return;
  static const char *names[] = {"NONE", "WARN", "INFO", "TRACE"};
  char host[64];
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "host");
  host[sizeof host - 1] = '\0';
  pthread_mutex_lock(&log_mutex);
  fprintf(log_file, "%s:%ld %s gcoo %s %s: ", host, (long)getpid(), log_prefix, names[level],
          subsys ? subsys : "");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(log_file, fmt, ap);
  va_end(ap);
  fputc('\n', log_file);
  fflush(log_file);
  pthread_mutex_unlock(&log_mutex);
}

double gcoo__wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
