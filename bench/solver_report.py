#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/solver_report.py SOLVER.JSONL: the table and the target lines of bench/run_solver.sh.

Every row is a time to solution (seconds: the median warm solve, set-up included: gcoo's
bench/solve_bench, PyTorch's bench/torch_cg.py), with its set-up and its iterations beside it.
The headline comparisons are times to solution; the iteration times are printed beside them.
Targets: cg1-ms-per-iteration (gcoo's iterations alone, k = 1), bcg32-seconds (gcoo's time to
solution at k = 32, set-up included: <= 0.30 s); both on the 3-D Poisson 100^3 on a GPU."""
import json
import sys

BW = 4.8e12  # H200 HBM3e peak, bytes/s


def floor_s(d):
    # bytes one iteration must move at least: A once (CSR: values, 32-bit columns, 64-bit row
    # pointers) and the block vectors. k = 1 (fused PCG): p, q in the multiply, x, p, r, q, D^-1
    # read and x, r, z written in the update, z, p read and p written: 13 n values. Block CG:
    # the SpMM's P and Q, and the updates' 17 passes over n x k blocks.
    es = 8 if d.get("dtype", "float64") == "float64" else 4
    # gcoo's rows (solve_bench: gcoo_dist solve's names) and torch_cg.py's rows (m, nnz)
    m, nnz, k = (d["a"]["rows"], d["a"]["nnz"], d["k"]) if "a" in d else (d["m"], d["nnz"], d["k"])
    a = nnz * (es + 4) + (m + 1) * 8
    v = 13 * m * es if k == 1 else 17 * m * k * es
    return (a + v) / BW


def label(d):
    if d["solver"] != "gcoo":
        return f"torch {d.get('variant', 'plain')}" + (" graph" if d.get("graph") else "")
    used = d["algorithm"]
    lab = "gcoo pcg-graph" if d["k"] == 1 and d.get("ranks", 1) == 1 else \
        f"gcoo {d.get('alg_asked', 'auto')}->{used}"
    if d.get("variant"):
        lab += " " + d["variant"]
    return lab


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    print(f"{'problem':10s} {'k':>4s} {'solver':28s} {'iters':>6s} {'to sol s':>9s} {'setup s':>8s} "
          f"{'iter s':>8s} {'ms/iter':>8s} {'x floor':>7s} {'true res':>9s} {'cold s':>8s}")
    best, torch = {}, {}
    for d in rows:
        if "failed" in d:
            print(f"{d['problem']:10s} {d.get('k', '?'):>4} FAILED {d['failed']} "
                  f"{d.get('solver', '')} {d.get('variant', '')}")
            continue
        key = (d["problem"], d["k"])
        it = max(d["iterations"], 1)
        if d["solver"] == "gcoo":
            s = d["time_s"]
            tts, setup, iterate, cold = s["solve"], s["setup"], s["iterate"], d["first"]["solve"]
            ok = d["converged"] and d["true_residual_max"] <= 1e-7
            # the targets: the default settings' rows (a variant's row counts once it is the
            # default), the fastest in time to solution where several SpDM algorithms ran
            if d.get("variant", "") == "" and ok and (key not in best or tts < best[key][0]):
                best[key] = (tts, iterate, d)
        else:
            tts, setup, iterate, cold = (d["seconds"], d["seconds_setup"], d["seconds_iterate"],
                                         d["first_seconds"])
            torch.setdefault(key, []).append(d)
        per = iterate / it
        print(f"{d['problem']:10s} {d['k']:4d} {label(d):28s} {d['iterations']:6d} {tts:9.4f} "
              f"{setup:8.4f} {iterate:8.4f} {1e3 * per:8.4f} {per / floor_s(d):7.2f} "
              f"{d['true_residual_max']:9.2e} {cold:8.4f}")
    print()
    for key in sorted(best):
        tts, iterate, d = best[key]
        for t in torch.get(key, []):
            if not t["converged"]:
                print(f"{key[0]} k = {key[1]}: torch {t['variant']} did not reach the tolerance "
                      f"(true residual {t['true_residual_max']:.1e})")
                continue
            print(f"{key[0]} k = {key[1]}: time to solution gcoo {tts:.4f} s, torch {t['variant']} "
                  f"{t['seconds']:.4f} s: {t['seconds'] / tts:.2f}x (iterations {iterate:.4f} s "
                  f"against {t['seconds_iterate']:.4f} s: {t['seconds_iterate'] / iterate:.2f}x)")
    g1, g32 = best.get(("poisson", 1)), best.get(("poisson", 32))
    # the issue's problem is Poisson 100^3 (10^6 rows) on the GPU: a dry run's smaller grid (or
    # the CPU backend) measures no target
    issue = [d for d in (g1, g32) if d]
    if any(d[2]["a"]["rows"] != 1000000 or d[2].get("backend", "cuda") not in ("gpu", "cuda")
           for d in issue):
        m = issue[0][2]["a"]["rows"]
        print(f"target cg1-ms-per-iteration: not measured (not the issue's problem: {m} rows)")
        print(f"target bcg32-seconds: not measured (not the issue's problem: {m} rows)")
        return
    asked = {r.get("k") for r in rows if r.get("problem") == "poisson"}
    if g1:
        v = 1e3 * g1[1] / max(g1[2]["iterations"], 1)
        print(f"target cg1-ms-per-iteration: {v:.3f} ms, the iterations alone; time to solution "
              f"{g1[0]:.4f} s (goal <= 0.10 ms) {'met' if v <= 0.10 else 'missed'}")
    else:
        why = "the k = 1 Poisson run failed" if 1 in asked else "k = 1 not in this run's KS"
        print(f"target cg1-ms-per-iteration: not measured ({why})")
    if g32:
        print(f"target bcg32-seconds: {g32[0]:.3f} s time to solution, set-up included "
              f"({g32[2]['time_s']['setup']:.3f} s set-up, {g32[1]:.3f} s iterations) "
              f"(goal <= 0.30 s) {'met' if g32[0] <= 0.30 else 'missed'}")
    else:
        why = "the k = 32 Poisson run failed" if 32 in asked else "k = 32 not in this run's KS"
        print(f"target bcg32-seconds: not measured ({why})")
    print("target bcg-iter-2gpu: not measured (a one-GPU run)")


if __name__ == "__main__":
    main(sys.argv[1])
