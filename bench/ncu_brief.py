#!/usr/bin/env python3
"""bench/ncu_brief.py CSV: the SpDM kernels of an `ncu --csv --page raw` log, one line each
(time, DRAM and L2 bytes, L1/L2/DRAM throughput as % of peak, hit rates, occupancy, registers),
leaving out gcoo's set-up kernels (conversions, sorts, fills, the benchmark's delay kernel)."""
import csv
import sys

from ncu_brief_skip import SKIP  # noqa: E402  (the one list of set-up kernel names)
rows = list(csv.reader(open(sys.argv[1])))
if not rows:
    print("  (no ncu rows)")
    sys.exit(0)
head = rows[0]
col = {n: i for i, n in enumerate(head)}


def g(r, name):
    i = col.get(name)
    if i is None or i >= len(r):
        return float("nan")
    try:
        return float(r[i].replace(",", ""))
    except ValueError:
        return float("nan")


out = []
for r in rows[1:]:
    if len(r) < len(head) or not r[0].isdigit():
        continue
    name = r[col["Kernel Name"]]
    if any(s in name for s in SKIP):
        continue
    t = g(r, "gpu__time_duration.sum")
    dram = g(r, "dram__bytes_read.sum") + g(r, "dram__bytes_write.sum")
    out.append("  %-46.46s %9.1f us  dram %8.1f MB (%4.1f%%)  L2 %9.1f MB (%4.1f%%, hit %4.1f%%)  "
               "L1 %9.1f MB (%4.1f%%, hit %4.1f%%)  occ %4.1f%%  regs %3.0f  grid %s"
               % (name.replace("(anonymous namespace)::", ""), t / 1e3, dram / 1e6,
                  g(r, "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
                  g(r, "lts__t_bytes.sum") / 1e6,
                  g(r, "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
                  g(r, "lts__t_sector_hit_rate.pct"), g(r, "l1tex__t_bytes.sum") / 1e6,
                  g(r, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"),
                  g(r, "l1tex__t_sector_hit_rate.pct"),
                  g(r, "sm__warps_active.avg.pct_of_peak_sustained_active"),
                  g(r, "launch__registers_per_thread"), r[col["launch__grid_size"]]
                  if "launch__grid_size" in col else "-"))
print("\n".join(out[-3:]) if out else "  (no SpDM kernel among the profiled launches)")
