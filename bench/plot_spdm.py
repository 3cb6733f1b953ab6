#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# bench/plot_spdm.py: plots of bench/spdm_bench's CSV, like the paper's figures.
#
#   python3 bench/plot_spdm.py OUT_DIR
#
# Reads OUT_DIR/spdm.csv, writes into OUT_DIR:
#   spdm_speedup_random.png  speedup over the best cuSPARSE vs sparsity, one panel per n
#                            (tuned, AUTO, faithful; 1 = cuSPARSE)
#   spdm_time_random.png     time vs sparsity against cuBLAS SGEMM / TF32, one panel per n
#   spdm_speedup_real.png    speedup over the best cuSPARSE per matrix (real and structured),
#                            one panel per N
# and OUT_DIR/sweep.png from sweep.csv when present (time per p and variant).
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def num(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v if v > 0 else math.nan


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def random_plots(rows, out):
    rnd = [r for r in rows if r["section"] == "random"]
    if not rnd:
        return
    ns = sorted({int(r["m"]) for r in rnd})
    fig, axes = plt.subplots(1, len(ns), figsize=(4 * len(ns), 3.6), squeeze=False)
    fig2, axes2 = plt.subplots(1, len(ns), figsize=(4 * len(ns), 3.6), squeeze=False)
    for ax, ax2, n in zip(axes[0], axes2[0], ns):
        rs = sorted([r for r in rnd if int(r["m"]) == n], key=lambda r: float(r["sparsity"]))
        xs = list(range(len(rs)))
        labels = [r["sparsity"] for r in rs]
        for key, lab, mk in (("speedup_tuned", "tuned", "o"), ("speedup_auto", "auto", "s"),
                             ("speedup_faithful", "faithful", "^")):
            ax.plot(xs, [num(r[key]) for r in rs], marker=mk, label=lab)
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_title(f"n = {n}")
        ax.set_xticks(xs, labels, rotation=45, fontsize=7)
        ax.set_xlabel("sparsity")
        ax.set_ylabel("speedup over best cuSPARSE")
        for key, lab in (("tuned_ms", "tuned"), ("best_csp_ms", "best cuSPARSE"),
                         ("sgemm_ms", "cuBLAS SGEMM"), ("tf32_ms", "cuBLAS TF32"),
                         ("faithful_ms", "faithful")):
            ax2.semilogy(xs, [num(r[key]) for r in rs], marker=".", label=lab)
        ax2.set_title(f"n = {n}")
        ax2.set_xticks(xs, labels, rotation=45, fontsize=7)
        ax2.set_xlabel("sparsity")
        ax2.set_ylabel("ms")
    axes[0][0].legend(fontsize=7)
    axes2[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "spdm_speedup_random.png"), dpi=120)
    fig2.tight_layout()
    fig2.savefig(os.path.join(out, "spdm_time_random.png"), dpi=120)


def real_plots(rows, out):
    rs = [r for r in rows if r["section"] in ("real", "structured")]
    if not rs:
        return
    Ns = sorted({int(r["N"]) for r in rs})
    fig, axes = plt.subplots(len(Ns), 1, figsize=(14, 3.2 * len(Ns)), squeeze=False)
    for ax, N in zip(axes[:, 0], Ns):
        sub = [r for r in rs if int(r["N"]) == N]
        xs = list(range(len(sub)))
        w = 0.4
        ax.bar([x - w / 2 for x in xs], [num(r["speedup_tuned"]) for r in sub], w, label="tuned")
        ax.bar([x + w / 2 for x in xs], [num(r["speedup_auto"]) for r in sub], w, label="auto")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xticks(xs, [r["case"] for r in sub], rotation=70, fontsize=6)
        ax.set_ylabel(f"N = {N}: x best cuSPARSE")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "spdm_speedup_real.png"), dpi=120)


def sweep_plot(out):
    path = os.path.join(out, "sweep.csv")
    if not os.path.exists(path):
        return
    rows = load(path)
    cases = sorted({r["case"] for r in rows})
    if not cases:
        return
    fig, axes = plt.subplots(len(cases), 1, figsize=(10, 2.8 * len(cases)), squeeze=False)
    for ax, c in zip(axes[:, 0], cases):
        sub = [r for r in rows if r["case"] == c]
        for v in sorted({r["variant"] for r in sub}):
            pts = sorted((int(r["p"]), num(r["ms"])) for r in sub if r["variant"] == v)
            ax.semilogy([p for p, _ in pts], [t for _, t in pts], marker=".", label=v)
        ax.set_xscale("log", base=2)
        ax.set_title(c, fontsize=8)
        ax.set_ylabel("ms")
    axes[0][0].legend(fontsize=6, ncol=5)
    axes[-1][0].set_xlabel("p")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep.png"), dpi=110)


def main():
    if len(sys.argv) != 2:
        print("usage: plot_spdm.py OUT_DIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    path = os.path.join(out, "spdm.csv")
    if os.path.exists(path):
        rows = load(path)
        random_plots(rows, out)
        real_plots(rows, out)
    sweep_plot(out)
    print(f"plot_spdm.py: plots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
