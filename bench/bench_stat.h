/* SPDX-License-Identifier: MIT */
/* bench/bench_stat.h: the one timing rule of gcoo's benchmarks, applied to every side of every
 * comparison (gcoo, cuSPARSE, cuBLAS, OpSparse, the SpMM peers; bench/bench_stat.py is the same
 * rule for the Python anchors, docs/benchmarks.md states it for readers):
 *
 *   - each side's operands are in its own input format on the device before its clock starts,
 *     and everything a side makes once per operator or per process (handles, descriptors,
 *     streams, plans, function attributes) is made before it too;
 *   - BENCH_WARMUP_RUNS untimed runs first (module loading, first touches of a memory pool,
 *     caches), then at least BENCH_MIN_RUNS timed runs in the same process, and the median of
 *     those is the side's time;
 *   - memory a run needs comes from memory the side keeps between runs (gcoo's and cuSPARSE's
 *     stream-ordered pool, the buffers a peer adapter keeps): no side pays a device allocation,
 *     a stream creation, a memory probe or a synchronisation inside its clock that the others
 *     do not; where a library cannot be made to leave one out, the benchmark measures its cost
 *     and takes it out of that side's time (in that side's favour), and says so.
 *
 * The helpers below size the timed runs and take the median; each benchmark keeps its own
 * clock (CUDA events around each launch for the SpMM products, the host clock around a whole
 * call with its result complete on the device for SpGEMM and the solvers). */
#ifndef GCOO_BENCH_STAT_H
#define GCOO_BENCH_STAT_H

#define BENCH_WARMUP_RUNS 1
#define BENCH_MIN_RUNS 5

/** Timed runs for a product whose first run took first_ms: about target_ms of timing in all,
 *  never fewer than BENCH_MIN_RUNS, never more than max_runs (>= BENCH_MIN_RUNS). */
int bench_runs(double first_ms, double target_ms, int max_runs);

/** The median of v[0 .. n) (v is sorted in place); NaN when n < 1. */
double bench_median(double *v, int n);

#endif
