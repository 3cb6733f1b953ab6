#!/usr/bin/env python3
"""bench/ncu_group.py CSV: the SpDM kernels of an `ncu --csv --page raw` log grouped by kernel
and launch shape (name, grid, block), one line each with the count and the medians of time,
L1/L2/DRAM traffic, throughput (% of peak), hit rates, occupancy and registers; the group of the
last launch (the operator's final choice, after its trials) is marked '*'. The set-up kernels
(conversions, sorts, the benchmark's delay kernel) are left out as in ncu_brief.py."""
import statistics
import sys

from ncu_common import SKIP, metric, read_launches  # noqa: E402

launches, col = read_launches(sys.argv[1])
groups, last = {}, None
for r in launches:
    name = r[col["Kernel Name"]].replace("(anonymous namespace)::", "")
    if any(s in name for s in SKIP) and "split_" not in name:  # the row-split reduce stays
        continue
    key = (name[:60], r[col["launch__grid_size"]], r[col["launch__block_size"]])
    groups.setdefault(key, []).append(r)
    last = key
METRICS = [("gpu__time_duration.sum", 1e-3, "us %7.1f"),
           ("l1tex__t_bytes.sum", 1e-6, "L1 MB %7.1f"),
           ("l1tex__t_sector_hit_rate.pct", 1, "hit %4.1f"),
           ("l1tex__throughput.avg.pct_of_peak_sustained_elapsed", 1, "(%4.1f%%)"),
           ("lts__t_bytes.sum", 1e-6, "L2 MB %7.1f"),
           ("lts__throughput.avg.pct_of_peak_sustained_elapsed", 1, "(%4.1f%%)"),
           ("dram__throughput.avg.pct_of_peak_sustained_elapsed", 1, "dram %4.1f%%"),
           ("sm__throughput.avg.pct_of_peak_sustained_elapsed", 1, "sm %4.1f%%"),
           ("smsp__inst_executed.sum", 1e-6, "Minst %6.2f"),
           ("sm__warps_active.avg.pct_of_peak_sustained_active", 1, "occ %4.1f%%"),
           ("launch__registers_per_thread", 1, "regs %3.0f")]
for key, rs in sorted(groups.items(), key=lambda kv: statistics.median(
        metric(r, col, "gpu__time_duration.sum") for r in kv[1])):
    parts = [fmt % (statistics.median(metric(r, col, m) for r in rs) * s) for m, s, fmt in METRICS]
    print("  %s %-60s grid %7s x %4s n %3d  %s" % ("*" if key == last else " ", key[0], key[1],
                                                   key[2], len(rs), "  ".join(parts)))
