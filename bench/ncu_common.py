"""bench/ncu_common.py: what the ncu briefs (ncu_brief.py, ncu_group.py) share: the set-up kernels
they leave out (conversions, sorts, fills, the benchmark's delay kernel) and the reading of an
`ncu --csv --page raw` log."""
import csv
import sys

SKIP = ("convert", "_keys", "scan", "sort", "Sort", "adix", "fill", "random", "delay", "spin",
        "head_flags", "offsets", "lists", "maxima", "sentinel", "expand", "gather_gcoo", "count",
        "scatter", "relerr", "check", "column_", "nit", "histogram", "Histogram", "copy", "reuse",
        "poison", "scale_kernel", "Reduce", "reduce", "quarter", "slice", "row_length")


def read_launches(path):
    """(launch rows, column index by metric name); exits with a note when the log has none."""
    rows = list(csv.reader(open(path)))
    if not rows:
        print("  (no ncu rows)")
        sys.exit(0)
    head = rows[0]
    col = {n: i for i, n in enumerate(head)}
    return [r for r in rows[1:] if len(r) >= len(head) and r[0].isdigit()], col


def metric(r, col, name):
    """A launch's metric as a float (NaN where absent or not a number)."""
    i = col.get(name)
    if i is None or i >= len(r):
        return float("nan")
    try:
        return float(r[i].replace(",", ""))
    except ValueError:
        return float("nan")
