"""bench/ncu_brief_skip.py: the set-up kernels (conversions, sorts, fills, the benchmark's delay
kernel) that the ncu briefs leave out."""
SKIP = ("convert", "_keys", "scan", "sort", "Sort", "adix", "fill", "random", "delay", "spin",
        "head_flags", "offsets", "lists", "maxima", "sentinel", "expand", "gather_gcoo", "count",
        "scatter", "relerr", "check", "column_", "nit", "histogram", "Histogram", "copy", "reuse",
        "poison", "scale_kernel", "Reduce", "reduce", "quarter", "slice", "row_length")
