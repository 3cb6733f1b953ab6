#!/usr/bin/env python3
"""bench/ncu_brief.py CSV: the SpDM kernels of an `ncu --csv --page raw` log, one line each
(time, DRAM and L2 bytes, L1/L2/DRAM throughput as % of peak, hit rates, occupancy, registers),
leaving out gcoo's set-up kernels (conversions, sorts, fills, the benchmark's delay kernel)."""
import sys

from ncu_common import SKIP, metric, read_launches  # noqa: E402

launches, col = read_launches(sys.argv[1])
out = []
for r in launches:
    name = r[col["Kernel Name"]]
    if any(s in name for s in SKIP):
        continue
    t = metric(r, col, "gpu__time_duration.sum")
    dram = metric(r, col, "dram__bytes_read.sum") + metric(r, col, "dram__bytes_write.sum")
    out.append("  %-46.46s %9.1f us  dram %8.1f MB (%4.1f%%)  L2 %9.1f MB (%4.1f%%, hit %4.1f%%)  "
               "L1 %9.1f MB (%4.1f%%, hit %4.1f%%)  occ %4.1f%%  regs %3.0f  grid %s"
               % (name.replace("(anonymous namespace)::", ""), t / 1e3, dram / 1e6,
                  metric(r, col, "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
                  metric(r, col, "lts__t_bytes.sum") / 1e6,
                  metric(r, col, "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
                  metric(r, col, "lts__t_sector_hit_rate.pct"),
                  metric(r, col, "l1tex__t_bytes.sum") / 1e6,
                  metric(r, col, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"),
                  metric(r, col, "l1tex__t_sector_hit_rate.pct"),
                  metric(r, col, "sm__warps_active.avg.pct_of_peak_sustained_active"),
                  metric(r, col, "launch__registers_per_thread"), r[col["launch__grid_size"]]
                  if "launch__grid_size" in col else "-"))
print("\n".join(out[-3:]) if out else "  (no SpDM kernel among the profiled launches)")
