/* SPDX-License-Identifier: MIT */
/* bench/bench_list.h: the benchmarks' comma-separated name lists (--sections, --match, --skip,
 * --tuned, ...), looked up one way everywhere. */
#ifndef GCOO_BENCH_LIST_H
#define GCOO_BENCH_LIST_H

/** 1 when the comma-separated list holds name exactly ("real" is not "real-f64"). */
int bench_list_has(const char *list, const char *name);

/** 1 when name contains one of the list's names (an empty list matches nothing). */
int bench_list_match(const char *list, const char *name);

#endif
