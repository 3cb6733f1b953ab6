/* SPDX-License-Identifier: MIT */
/* bench/bench_stat.c: the timing rule's helpers (bench/bench_stat.h). */
#include "bench_stat.h"

#include <math.h>
#include <stdlib.h>

int bench_runs(double first_ms, double target_ms, int max_runs) {
  if (max_runs < BENCH_MIN_RUNS) max_runs = BENCH_MIN_RUNS;
  const double per = first_ms > 0.002 ? first_ms : 0.002;
  const double want = target_ms / per;
  if (!(want > BENCH_MIN_RUNS)) return BENCH_MIN_RUNS;
  return want < max_runs ? (int)want : max_runs;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
  if (n < 1) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
