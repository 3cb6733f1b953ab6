/* SPDX-License-Identifier: MIT */
/* tests/unit/t001-status.c: status names and descriptions, the thread-local last error, its
 * traceback, clearing it, and the version string. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include "gcoo_test.h"

static const gcoo_status all[] = {GCOO_SUCCESS,
                                  GCOO_INFO_NOT_CONVERGED,
                                  GCOO_INFO_SKIPPED,
                                  GCOO_ERR_NULL,
                                  GCOO_ERR_INVALID_OBJECT,
                                  GCOO_ERR_INVALID_ARG,
                                  GCOO_ERR_SHAPE,
                                  GCOO_ERR_DTYPE,
                                  GCOO_ERR_UNSUPPORTED,
                                  GCOO_ERR_TOO_LARGE,
                                  GCOO_ERR_INDEX_RANGE,
                                  GCOO_ERR_UNSORTED,
                                  GCOO_ERR_DUPLICATE,
                                  GCOO_ERR_NOT_FINITE,
                                  GCOO_ERR_FORMAT,
                                  GCOO_ERR_NO_MEMORY,
                                  GCOO_ERR_IO,
                                  GCOO_ERR_CUDA,
                                  GCOO_ERR_CUSPARSE,
                                  GCOO_ERR_CUBLAS,
                                  GCOO_ERR_NO_DEVICE,
                                  GCOO_ERR_MPI,
                                  GCOO_ERR_NCCL,
                                  GCOO_ERR_HDF5,
                                  GCOO_ERR_REMOTE,
                                  GCOO_ERR_BREAKDOWN,
                                  GCOO_ERR_INTERNAL};
static const char *names[] = {"GCOO_SUCCESS",
                              "GCOO_INFO_NOT_CONVERGED",
                              "GCOO_INFO_SKIPPED",
                              "GCOO_ERR_NULL",
                              "GCOO_ERR_INVALID_OBJECT",
                              "GCOO_ERR_INVALID_ARG",
                              "GCOO_ERR_SHAPE",
                              "GCOO_ERR_DTYPE",
                              "GCOO_ERR_UNSUPPORTED",
                              "GCOO_ERR_TOO_LARGE",
                              "GCOO_ERR_INDEX_RANGE",
                              "GCOO_ERR_UNSORTED",
                              "GCOO_ERR_DUPLICATE",
                              "GCOO_ERR_NOT_FINITE",
                              "GCOO_ERR_FORMAT",
                              "GCOO_ERR_NO_MEMORY",
                              "GCOO_ERR_IO",
                              "GCOO_ERR_CUDA",
                              "GCOO_ERR_CUSPARSE",
                              "GCOO_ERR_CUBLAS",
                              "GCOO_ERR_NO_DEVICE",
                              "GCOO_ERR_MPI",
                              "GCOO_ERR_NCCL",
                              "GCOO_ERR_HDF5",
                              "GCOO_ERR_REMOTE",
                              "GCOO_ERR_BREAKDOWN",
                              "GCOO_ERR_INTERNAL"};

static void check_names(void) {
  size_t n = sizeof all / sizeof all[0];
  for (size_t i = 0; i < n; i++) {
    TEST_CHECK(!strcmp(gcoo_status_name(all[i]), names[i]), "status %d named %s", (int)all[i],
               gcoo_status_name(all[i]));
    const char *d = gcoo_strerror(all[i]);
    TEST_CHECK(d && *d && strcmp(d, "unknown status"), "status %d has no description", (int)all[i]);
    for (size_t j = 0; j < i; j++)
      TEST_CHECK(strcmp(d, gcoo_strerror(all[j])), "%s and %s share a description", names[i],
                 names[j]);
  }
  TEST_CHECK(!strcmp(gcoo_strerror((gcoo_status)-77), "unknown status"), "unknown status text");
  TEST_CHECK(!strcmp(gcoo_status_name((gcoo_status)12345), "GCOO_UNKNOWN_STATUS"), "unknown name");
  /* the bands of gcoo/types.h: info > 0, misuse -1..-49, execution <= -100 */
  for (size_t i = 0; i < n; i++) {
    int s = all[i];
    TEST_CHECK(s >= 0 || (s <= -1 && s >= -49) || s <= -100, "%s outside the bands", names[i]);
  }
}

/* A failing call leaves "file:line function: message" and its traceback. */
static void check_message(void) {
  gcoo_clear_error();
  TEST_CHECK(gcoo_last_error()[0] == '\0', "message not empty after clear: %s", gcoo_last_error());
  gcoo_sparse A = NULL;
  int32_t r[1] = {5}, c[1] = {0};
  double v[1] = {1.0};
  TEST_FAILS(gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 3, 3, 1, r, c, v, 0), GCOO_ERR_INDEX_RANGE,
             "row 5 outside 0..2");
  TEST_CHECK(A == NULL, "handle set on failure");
  const char *m = gcoo_last_error();
  TEST_CHECK(!strncmp(m, "src/sparse.c:", 13), "message does not start with the file: %s", m);
  TEST_CHECK(strstr(m, "gcoo_sparse_create_coo") != NULL, "message lacks the function: %s", m);
  /* an error travelling through GCOO_CALL gains " <- file:line" frames */
  gcoo_sparse B = NULL;
  TEST_FAILS(gcoo_sparse_create_csr(&B, GCOO_FLOAT64, 1, 1, (int64_t[]){0, 1}, (int32_t[]){3}, v,
                                    0),
             GCOO_ERR_INDEX_RANGE, "column index 3 outside 0..0");
  TEST_CHECK(strstr(gcoo_last_error(), " <- src/sparse.c:") != NULL, "no traceback in: %s",
             gcoo_last_error());
  /* a successful call does not clear the previous message (like errno) */
  gcoo_sparse C = NULL;
  TEST_CALL(gcoo_sparse_create_coo(&C, GCOO_FLOAT64, 3, 3, 0, NULL, NULL, NULL, 0));
  TEST_CHECK(strstr(gcoo_last_error(), "column index 3") != NULL, "message lost: %s",
             gcoo_last_error());
  gcoo_sparse_destroy(&C);
  gcoo_clear_error();
  TEST_CHECK(gcoo_last_error()[0] == '\0', "clear did not clear");
}

/* Two threads fail with different messages; each sees only its own. */
typedef struct {
  pthread_barrier_t *barrier;
  int rows;         /* makes the message unique to the thread */
  char seen[512];   /* the thread's message after the other thread failed too */
  char before[512]; /* the thread's message before it failed itself */
} thread_arg;

static void *thread_main(void *p) {
  thread_arg *a = p;
  gcoo_sparse A = NULL;
  int32_t r[1] = {a->rows}, c[1] = {0};
  snprintf(a->before, sizeof a->before, "%s", gcoo_last_error());
  gcoo_sparse_create_coo(&A, GCOO_FLOAT64, 2, 2, 1, r, c, NULL, 0);
  pthread_barrier_wait(a->barrier); /* both have failed */
  pthread_barrier_wait(a->barrier);
  snprintf(a->seen, sizeof a->seen, "%s", gcoo_last_error());
  return NULL;
}

static void check_threads(void) {
  pthread_barrier_t b;
  pthread_barrier_init(&b, NULL, 2);
  thread_arg a1 = {&b, 7, "", ""}, a2 = {&b, 9, "", ""};
  TEST_FAILS(gcoo_sparse_create_coo(NULL, GCOO_FLOAT64, 1, 1, 0, NULL, NULL, NULL, 0),
             GCOO_ERR_NULL, "output handle is NULL");
  pthread_t t1, t2;
  pthread_create(&t1, NULL, thread_main, &a1);
  pthread_create(&t2, NULL, thread_main, &a2);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  pthread_barrier_destroy(&b);
  TEST_CHECK(a1.before[0] == '\0' && a2.before[0] == '\0',
             "a new thread saw another thread's message: \"%s\" / \"%s\"", a1.before, a2.before);
  TEST_CHECK(strstr(a1.seen, "row 7 outside") && !strstr(a1.seen, "row 9"), "thread 1 saw: %s",
             a1.seen);
  TEST_CHECK(strstr(a2.seen, "row 9 outside") && !strstr(a2.seen, "row 7"), "thread 2 saw: %s",
             a2.seen);
  TEST_CHECK(strstr(gcoo_last_error(), "output handle is NULL") != NULL,
             "main thread's message replaced: %s", gcoo_last_error());
}

/* Messages longer than the buffer are cut, never overflow; tracebacks stop before the end. */
static void check_long_message(void) {
  char path[3000];
  memset(path, 'x', sizeof path - 1);
  path[sizeof path - 1] = '\0';
  gcoo_sparse A = NULL;
  TEST_FAILS(gcoo_mtx_read(path, GCOO_FLOAT64, 0, &A), GCOO_ERR_IO, "cannot open xxxx");
  TEST_CHECK(strlen(gcoo_last_error()) < 2048, "message of %zu bytes", strlen(gcoo_last_error()));
}

static void check_version(void) {
  const char *v = gcoo_version_string();
  char want[64];
  snprintf(want, sizeof want, "gcoo %s (", GCOO_VERSION_STRING);
  TEST_CHECK(!strncmp(v, want, strlen(want)), "version string \"%s\"", v);
  TEST_CHECK(strstr(v, GCOO_HAVE_CUDA ? "CUDA" : "no CUDA") != NULL, "CUDA missing in \"%s\"", v);
}

int main(void) {
  check_names();
  check_message();
  check_threads();
  check_long_message();
  check_version();
  return gcoo_test_finish("t001-status");
}
