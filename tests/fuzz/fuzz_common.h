/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_common.h: what the fuzz harnesses share. Each harness is one file defining
 * LLVMFuzzerTestOneInput; it is linked either with libFuzzer (-fsanitize=fuzzer, the fuzzer
 * build of GCOO_BUILD_FUZZERS) or with replay_main.c (any compiler: ctest replays the committed
 * corpus and every input that ever broke something, tests/fuzz/regressions/<harness>/).
 *
 * A harness fails by abort(): a sanitizer report, a crash, or a broken invariant
 * (FUZZ_ASSERT: a failed call without a message, a status the call must never return, a
 * round trip that changes the matrix, ...). */
#ifndef GCOO_FUZZ_COMMON_H
#define GCOO_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcoo/gcoo.h"

#ifdef __cplusplus
extern "C" {
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** An invariant of the code under test: print what broke (on file descriptor 2, whatever the
 *  harness did to stderr) and abort, so that libFuzzer saves the input. */
#define FUZZ_ASSERT(cond, ...)                                      \
  do {                                                              \
    if (!(cond)) fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

/** A private directory for this process's files (in /dev/shm when there is one), made on first
 *  use and removed with its files at exit. */
const char *fuzz_tmpdir(void);

/** "<tmpdir>/<name>" in buf. */
const char *fuzz_path(char *buf, size_t len, const char *name);

/** Write size bytes to path (created or truncated); aborts if that fails (not a finding). */
void fuzz_write_file(const char *path, const void *data, size_t size);

/** Every failed gcoo call must say why: st is a documented error status other than
 *  GCOO_ERR_INTERNAL, and gcoo_last_error() is a non-empty message. `allowed` (optional) lists
 *  the statuses this call may return, terminated by GCOO_SUCCESS. */
void fuzz_check_failure(gcoo_status st, const char *call, const gcoo_status *allowed);

/** Bit-for-bit equality of two sparse matrices (shape, format, dtype, arrays). */
int fuzz_same_sparse(gcoo_sparse A, gcoo_sparse B);

/** Bit-for-bit equality of two host dense matrices (shape, dtype; any layouts). */
int fuzz_same_dense(const gcoo_dense *A, const gcoo_dense *B);

/** A 64-bit hash of the input (FNV-1a), to derive variants (cut points, levels) reproducibly. */
uint64_t fuzz_hash(const uint8_t *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
