#!/usr/bin/env python3
# bench/spdm_peer_wins.py SPDM_PEER_CSV [--margin 1.1]: from spdm_peer_bench's CSV, the cases where
# a peer's fastest checked variant beats gcoo AUTO by more than the margin (what AUTO and the
# kernels could learn from), and the geometric mean of AUTO over the fastest peer of each case
# (an oracle over every peer and variant), per N. Reads the CSV only; prints a table.
import argparse
import csv
import math
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--margin", type=float, default=1.1)
    a = ap.parse_args()
    best = {}  # (dtype, case, N, peer) -> (ms, variant, row)
    for r in csv.DictReader(open(a.csv)):
        if r["state"] != "ok" or float(r["auto_ms"]) <= 0:
            continue
        key = (r["dtype"], r["case"], int(r["N"]), r["peer"])
        ms = float(r["peer_ms"])
        if key not in best or ms < best[key][0]:
            best[key] = (ms, r["variant"], r)
    wins = [(k, v) for k, v in best.items() if float(v[2]["auto_ms"]) / v[0] > a.margin]
    print(f"peer faster than gcoo AUTO by more than {a.margin:.2f}x: {len(wins)} of {len(best)} "
          "(case, peer) pairs")
    for (dt, case, n, peer), (ms, var, r) in sorted(wins, key=lambda w: (w[0][2], w[0][1])):
        au = float(r["auto_ms"])
        print(f"  {dt} {case:30.30s} N={n:<4d} peer{peer} {var:10s} {ms:8.4f} ms  AUTO {r['auto_alg']:6s}"
              f" {au:8.4f} ms  peer {au / ms:4.2f}x faster  (best cuSPARSE {r['best_csp']}"
              f" {float(r['best_csp_ms']):.4f})")
    fastest = defaultdict(lambda: math.inf)
    auto, work = {}, {}
    for (dt, case, n, peer), (ms, var, r) in best.items():
        fastest[(dt, case, n)] = min(fastest[(dt, case, n)], ms)
        auto[(dt, case, n)] = float(r["auto_ms"])
        work[(dt, case, n)] = int(r["nnz"]) * n
    for dt in sorted({k[0] for k in fastest}):
        for n in sorted({k[2] for k in fastest if k[0] == dt}) + [None]:
            ks = [k for k in fastest if k[0] == dt and (n is None or k[2] == n)]
            g = math.exp(sum(math.log(fastest[k] / auto[k]) for k in ks) / len(ks))
            big = [k for k in ks if work[k] >= 1e7]
            gb = math.exp(sum(math.log(fastest[k] / auto[k]) for k in big) / len(big)) if big else float("nan")
            print(f"gcoo AUTO over the fastest peer of each case, {dt} {'all N' if n is None else 'N=%d' % n}: "
                  f"{g:.2f}x ({len(ks)} cases); nnz x N >= 1e7: {gb:.2f}x ({len(big)} cases)")


if __name__ == "__main__":
    main()
