# SPDX-License-Identifier: MIT
# bench/bench_stat.py: the benchmarks' timing rule for the Python anchors, the twin of
# bench/bench_stat.h (docs/benchmarks.md): WARMUP_RUNS untimed runs, then at least MIN_RUNS timed
# runs in the same process, and the median of those is the side's time.
import statistics

WARMUP_RUNS = 1
MIN_RUNS = 5


def runs(first_s, target_s, max_runs=60):
    """Timed runs for a run that took first_s once: about target_s in all, within
    [MIN_RUNS, max_runs]."""
    max_runs = max(max_runs, MIN_RUNS)
    want = target_s / max(first_s, 2e-6)
    return int(min(max(want, MIN_RUNS), max_runs))


def median(values):
    """The median of a non-empty sequence."""
    return statistics.median(values)
