#!/usr/bin/env python3
"""bench/ncu_stalls.py CSV: for each SpDM kernel of an `ncu --csv --page raw` log, its last
launch's metrics as `name value` lines (time, bytes, throughputs, hit rates, occupancy, pipe use
and the warp stall reasons), leaving out gcoo's set-up kernels (ncu_common.SKIP)."""
import sys

from ncu_common import SKIP, metric, read_launches  # noqa: E402

launches, col = read_launches(sys.argv[1])
last = {}
for r in launches:
    name = r[col["Kernel Name"]]
    if not any(s in name for s in SKIP):
        last[name.replace("(anonymous namespace)::", "")[:70]] = r
KEEP = ("stalled", "throughput", "hit_rate", "bytes", "duration", "warps_active", "registers",
        "pipe_", "occupancy", "inst_executed")
names = [c for c in col if "__" in c and any(k in c for k in KEEP)]
for name, r in last.items():
    print("  kernel %s  grid %s block %s" % (name, r[col["launch__grid_size"]],
                                             r[col["launch__block_size"]]))
    for c in names:
        v = metric(r, col, c)
        if v == v and not c.startswith("launch__grid") and not c.startswith("launch__block") \
                and ".max" not in c and ".min" not in c:
            print("    %-78s %12.4g" % (c, v))
if not last:
    print("  (no SpDM kernel among the profiled launches)")
