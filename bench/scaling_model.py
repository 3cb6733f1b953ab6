#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/scaling_model.py: the scaling model of docs/scaling.md.

Time per phase = compute + communication:
  compute        per-GPU times measured on ONE GPU (bench/results/2026-11-30-*), scaled with what
                 a rank's slab holds (entries, rows of Y, rows of X it touches), plus the
                 smallest kernel time ever measured as the floor of a launch;
  communication  latency + bytes / bandwidth, NVLink from the measured peer copy and NCCL
                 all-gather, InfiniBand from vendor documents (docs/scaling.md cites them).
The model is fitted at 1 GPU only (one constant per case: the kernel's time per multiply-add) and
then CHECKED against every 2-GPU measurement committed (2026-11-30-h200x2-dist*.jsonl): the
errors are printed, never used to adjust anything. Everything past 2 GPUs is a PREDICTION.

Usage: python3 bench/scaling_model.py [--results DIR] [--matrices DIR] [--measured DIR]
                                      [--plot out.png] [--targets-only]
  --measured DIR   check against spdm.jsonl / solve.jsonl of a new 2-GPU run (the benchmark's
                   output directory) instead of the committed 2026-11-30 files.
Pure Python 3 (json, gzip, math); matplotlib only for --plot.
"""
import argparse
import bisect
import gzip
import json
import math
import os
import sys

# ---------------------------------------------------------------------------------------------
# Parameters. Measured ones say where they were measured; vendor ones are cited in
# docs/scaling.md (section "Parameters"); the few assumptions say so.
# ---------------------------------------------------------------------------------------------
HW = {
    # one H200, 2026-11-30-h200-spdm.txt header: device-to-device copy, bytes read + written
    "hbm": 4249.1e9,
    # smallest product time measured on one H200 (Pd, N = 32, cuSPARSE ALG3, 2026-11-30-h200-spdm.txt):
    # the floor of one launch + synchronisation, used as every kernel's fixed cost
    "t_launch": 6.5e-6,
    # NVLink between the two H200s of the x2 machine: peer copy measured in the same run as the
    # 2-GPU checks (2026-11-30-h200x2-dist.txt); None: read from that file
    "nvl_bw": None,
    # NCCL latency: intercept of t = a + bytes / b fitted to NCCL all-gathers between two H200s
    # (16 MiB - 1 GiB per rank: 0.094, 0.294, 1.049, 3.818 ms; /work/shared/notes/h200-baselines.md)
    "nccl_allgather_ms": [(16, 0.094), (64, 0.294), (256, 1.049), (1024, 3.818)],
    # gcoo's own host costs per distributed call, from the code (not fitted): dist_nccl.c polls a
    # pending NCCL operation with 50 us naps (on average half a nap lost per wait); each agreement
    # is one small MPI_Allreduce on the node (5 us: assumption, Open MPI shared memory)
    "nap": 50e-6,
    "mpi_small": 5e-6,
    # InfiniBand between nodes (vendor: NDR 400 Gb/s per ConnectX-7 port, one per GPU, 8 per
    # DGX H100/H200 node). Effective rate: the fraction of the NVLink peak (450 GB/s a direction)
    # the measured peer copy reaches, applied to 50 GB/s; latency 5 us (assumption: NIC + switch
    # + NCCL's proxy thread).
    "ib_bw_peak": 50e9,
    "nvl_bw_peak": 450e9,
    "ib_lat": 5e-6,
    "gpus_per_node": 8,
}
MEASURED_1GPU = {
    # block CG, 3-D Poisson 7-point 100^3, float64, k = 32, Jacobi (2026-11-30-h200x2-dist-solve.jsonl,
    # ranks = 1) and the same solver at k = 1 (2026-11-30-h200-solver.txt: 0.484 s, 281 iterations,
    # BLAS 31.6 %): BLAS time per iteration at k = 1 is its launch floor
    "bcg_blas_floor_per_iter": 0.484 * 0.316 / 281,
}


def fit_latency_bandwidth(points):
    """Least squares t = a + s / b over (MiB, ms) points; returns (a seconds, b bytes/s)."""
    xs = [mib * 1048576.0 for mib, _ in points]
    ys = [ms * 1e-3 for _, ms in points]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    return my - slope * mx, 1.0 / slope


# ---------------------------------------------------------------------------------------------
# Partitions: the same rule as dist/partition.c (units of p rows, cost = entries + 1 per unit,
# boundary = unit whose prefix cost is closest to r / P of the total).
# ---------------------------------------------------------------------------------------------
def partition(unit_nnz, P):
    pre = [0]
    for i, c in enumerate(unit_nnz):
        pre.append(pre[-1] + c)
    cost = [pre[b] + b for b in range(len(pre))]
    n = len(unit_nnz)
    begin = [0]
    for r in range(1, P):
        target = cost[n] * r / P
        b = max(bisect.bisect_left(cost, target), begin[-1])
        if b > begin[-1] and target - cost[b - 1] < cost[b] - target:
            b -= 1
        begin.append(b)
    begin.append(n)
    return begin


class Matrix:
    """What the model needs of A: rows, nnz, and per slab of a P-way partition the rows, the
    entries and the distinct columns (rows of X the slab touches)."""

    def __init__(self, name, m, k, nnz):
        self.name, self.m, self.k, self.nnz = name, m, k, nnz

    def slabs(self, P):  # -> list of (rows, nnz, distinct columns, halo rows from other ranks)
        raise NotImplementedError


class RandomMatrix(Matrix):
    """gcoo_sparse_random: uniform entries; generated rows split in equal units of 32 rows."""

    def slabs(self, P, p=32):
        units = (self.m + p - 1) // p
        begin = partition([0] * units, P)
        out = []
        d = self.nnz / self.m
        for r in range(P):
            rows = min(begin[r + 1] * p, self.m) - min(begin[r] * p, self.m)
            e = rows * d
            cols = self.k * (1.0 - (1.0 - 1.0 / self.k) ** e)
            own = rows if self.m == self.k else 0
            out.append((rows, e, cols, max(cols - own * cols / self.k, 0.0)))
        return out


class StencilMatrix(Matrix):
    """3-D Poisson on an n^3 grid, slabs of whole z-planes: a slab touches its own rows and one
    plane on each side (7- and 27-point alike)."""

    def __init__(self, name, n, points):
        m = n ** 3
        nnz = m * points  # (boundary rows have fewer; the exact count does not matter here)
        super().__init__(name, m, m, nnz)
        self.n = n

    def slabs(self, P, p=32):
        units = (self.m + p - 1) // p
        begin = partition([0] * units, P)
        out = []
        for r in range(P):
            rows = min(begin[r + 1] * p, self.m) - min(begin[r] * p, self.m)
            sides = (r > 0) + (r < P - 1)
            halo = min(sides * self.n ** 2, self.m - rows) if rows else 0
            out.append((rows, self.nnz * rows / self.m, rows + halo, halo))
        return out


class FileMatrix(Matrix):
    """A Matrix Market file, partitioned exactly as gcoo_dist partitions it (units of 32 rows
    balanced by entries); distinct columns counted per slab."""

    def __init__(self, path):
        rows, cols = [], []
        with gzip.open(path, "rt") as f:
            header = f.readline().lower()
            symmetric = "symmetric" in header or "hermitian" in header
            line = f.readline()
            while line.startswith("%"):
                line = f.readline()
            m, k, _ = (int(t) for t in line.split())
            for line in f:
                t = line.split()
                if not t:
                    continue
                i, j = int(t[0]) - 1, int(t[1]) - 1
                rows.append(i)
                cols.append(j)
                if symmetric and i != j:
                    rows.append(j)
                    cols.append(i)
        super().__init__(os.path.basename(path).split(".")[0], m, k, len(rows))
        self.rows, self.cols = rows, cols
        self.rownnz = [0] * m
        for i in rows:
            self.rownnz[i] += 1
        self.cache = {}

    def slabs(self, P, p=32):
        if P in self.cache:
            return self.cache[P]
        units = (self.m + p - 1) // p
        unnz = [sum(self.rownnz[u * p:(u + 1) * p]) for u in range(units)]
        begin = [min(b * p, self.m) for b in partition(unnz, P)]
        owner = [0] * self.m
        for r in range(P):
            for i in range(begin[r], begin[r + 1]):
                owner[i] = r
        seen = set()
        for i, j in zip(self.rows, self.cols):
            seen.add(owner[i] * self.k + j)
        ncols = [0] * P
        nhalo = [0] * P
        for key in seen:
            r, j = divmod(key, self.k)
            ncols[r] += 1
            if not (begin[r] <= j < begin[r + 1]):
                nhalo[r] += 1
        out = []
        for r in range(P):
            e = sum(self.rownnz[begin[r]:begin[r + 1]])
            out.append((begin[r + 1] - begin[r], e, ncols[r], nhalo[r]))
        self.cache[P] = out
        return out


# ---------------------------------------------------------------------------------------------
# The machine: P GPUs, 8 a node; which link a transfer between two ranks uses.
# ---------------------------------------------------------------------------------------------
class Machine:
    def __init__(self, hw, nvl_bw):
        self.hw = hw
        self.nvl_bw = nvl_bw
        self.nccl_lat, self.nccl_bw = fit_latency_bandwidth(hw["nccl_allgather_ms"])
        eff = nvl_bw / hw["nvl_bw_peak"]
        self.ib_bw = hw["ib_bw_peak"] * min(eff, 1.0)
        self.g = hw["gpus_per_node"]

    def same_node(self, a, b):
        return a // self.g == b // self.g

    def host_call(self, waits=2, agreements=2):
        """gcoo's per-call host costs: agreements (small MPI all-reduces) and NCCL polls."""
        return agreements * self.hw["mpi_small"] + waits * self.hw["nap"] / 2

    def lat(self, P):
        return self.nccl_lat + (self.hw["ib_lat"] if P > self.g else 0.0)


# ---------------------------------------------------------------------------------------------
# Phases
# ---------------------------------------------------------------------------------------------
def spdm_fit(A, N, es, t1):
    """Per-multiply-add time of the kernel on this case, from the one-GPU time: t1 = launch +
    c nnz N + (X + Y bytes) / HBM."""
    mem = (A.k * N + A.m * N) * es / HW["hbm"]
    return max(t1 - HW["t_launch"] - mem, 0.0) / (A.nnz * N), mem


def spdm_kernel(A, N, es, c, P):
    """Slowest rank's product with X replicated: its entries at the fitted rate, the rows of X
    it touches and its rows of Y through HBM."""
    worst = 0.0
    for rows, e, cols, _ in A.slabs(P):
        t = HW["t_launch"] + c * e * N + (cols * N + rows * N) * es / HW["hbm"]
        worst = max(worst, t)
    return worst


def gather_root(A, N, es, M, P, t_copy1, overlap_own):
    """Y gathered on rank 0: the root receives every other slab; NVLink peers and off-node peers
    come in on different paths (NVLink ports, the GPU's NIC). The root's own slab is a device
    copy (the one-GPU gather: a copy of all of Y, scaled); before the step-1 change it ran after
    the receives, now on a side stream during them."""
    if P == 1:
        return t_copy1
    slabs = A.slabs(P)
    nvl = ib = 0.0
    for r in range(1, P):
        b = slabs[r][0] * N * es
        if M.same_node(0, r):
            nvl += b
        else:
            ib += b
    comm = M.lat(P) + max(nvl / M.nvl_bw, ib / M.ib_bw) + M.host_call(waits=2, agreements=2)
    own = t_copy1 * slabs[0][0] / A.m
    return max(comm, own) if overlap_own else comm + own


def spdm_bytes_to_root(A, N, es, P):
    return sum(s[0] for s in A.slabs(P)[1:]) * N * es


def spgemm_time(t1, t0, flops_frac_max, fetch_bytes_max, M, P):
    """Distributed SpGEMM: each rank multiplies its rows of A by the rows of B they reference,
    fetched once (one all-to-all of rows). Compute scales with the slab's share of the flops
    above the fixed cost of the SpGEMM pipeline (t0: the smallest gcoo SpGEMM measured)."""
    comp = t0 + (t1 - t0) * flops_frac_max
    if P == 1:
        return comp, 0.0
    link = M.nvl_bw if P <= M.g else M.ib_bw
    comm = M.lat(P) + fetch_bytes_max / link + M.host_call(waits=2, agreements=3)
    return comp, comm


def slab_halo_rows(n, P):
    """X rows an interior rank receives with z-plane slabs of an n^3 grid: a plane a side."""
    return 0 if P == 1 else (1 if P == 2 else 2) * n * n


def cube_faces(P, g):
    """Faces of the busiest rank's subdomain when P ranks split the grid into px x py x pz
    boxes (as cube-like as possible), and how many of them face another node when the 8 ranks
    of a node hold a 2 x 2 x 2 block: (faces on NVLink, faces on InfiniBand)."""
    best = None
    for px in range(1, P + 1):
        for py in range(1, P // px + 1):
            if P % (px * py):
                continue
            pz = P // (px * py)
            key = (max(px, py, pz), (px, py, pz))
            best = key if best is None or key < best else best
    dims = best[1]
    faces = sum(0 if d == 1 else 1 if d == 2 else 2 for d in dims)
    if P <= g:
        return faces, 0
    # a 2 x 2 x 2 node block: of an interior rank's two faces along a split dimension, one
    # faces its node's neighbour, the other the next node
    ib = sum(1 for d in dims if d > 2)
    return faces - ib, ib


def bcg_iteration(m, k, P, one, M, halo_rows_per_rank, overlap_halo=False, halo_split=None):
    """One block-CG iteration (k right-hand sides, float64): the SpMM of the rank's rows (the
    one-GPU multiply scaled by rows) + the off-diagonal product over its rows + halo exchange +
    BLAS (launch floor measured at k = 1, the rest scaled by rows) + Jacobi + 3 reductions of
    k x k blocks (one collective each: NCCL latency, gcoo's host costs, the copy to the host) +
    the host work per iteration that does not depend on the rows (measured: solve minus phases)."""
    frac = 1.0 / P
    spmm = one["spmm"] * frac
    halo_b = halo_rows_per_rank * k * 8
    if P > 1:
        offd = HW["t_launch"] + 2 * (m * frac) * k * 8 / HW["hbm"]
        if halo_split:  # (rows over NVLink, rows over InfiniBand), both ways at once
            wire = max(halo_split[0] * k * 8 / M.nvl_bw, halo_split[1] * k * 8 / M.ib_bw)
        else:  # slabs: the busiest rank's planes over one kind of link
            wire = halo_b / (M.nvl_bw if P <= M.g else M.ib_bw)
        halo = M.lat(P) + wire + M.host_call(waits=1, agreements=2)
        mult = spmm + offd + halo if not overlap_halo else max(spmm, halo) + offd
    else:
        mult, halo = spmm, 0.0
    floor = MEASURED_1GPU["bcg_blas_floor_per_iter"]
    blas = floor + (one["blas"] - floor) * frac
    pre = one["precond"] * frac
    red_one = one["reduce"] / 3.0  # 3 reductions an iteration: the host copy of k x k values
    red = 3 * (red_one + (M.lat(P) + M.host_call(waits=2, agreements=2) if P > 1 else 0.0))
    mult_per_iter = mult * one["mult_per_iter"]
    other = one["other"]
    total = mult_per_iter + blas + pre + red + other
    return {"multiply": mult, "halo": halo, "blas": blas, "precond": pre, "reduce": red,
            "other": other, "total": total}


def bcg_one_gpu(solve1):
    s, it = solve1["seconds"], solve1["iterations"]
    per = {
        "spmm": s["spmm"] / solve1["spmm_calls"],
        "mult_per_iter": solve1["spmm_calls"] / it,
        "blas": s["blas"] / it,
        "precond": s["precond"] / it,
        "reduce": s["reduce"] / it,
    }
    phases = s["spmm"] + s["blas"] + s["precond"] + s["reduce"]
    per["other"] = (s["solve"] - phases) / it
    return per


def scale_bcg_one(per, factor):
    """The one-GPU iteration of a problem `factor` times larger (rows): row-proportional phases
    scale, the launch floors and the host work do not."""
    floor = MEASURED_1GPU["bcg_blas_floor_per_iter"]
    q = dict(per)
    q["spmm"] = per["spmm"] * factor
    q["blas"] = floor + (per["blas"] - floor) * factor
    q["precond"] = per["precond"] * factor
    return q


# ---------------------------------------------------------------------------------------------
def load_jsonl(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                d = json.loads(line)
                if "failed" not in d:
                    out.append(d)
    return out


def peer_copy_from(path):
    with open(path) as f:
        for line in f:
            if line.startswith("peer copy") and "GB/s" in line:
                return float(line.split(":")[1].split()[0]) * 1e9
    return None


def matrix_for(source, mats):
    s = source
    if s.startswith("random"):
        # "random 14000 x 14000, sparsity 0.99, seed 1"
        t = s.replace(",", " ").split()
        m, k = int(t[1]), int(t[3])
        sp = float(t[t.index("sparsity") + 1])
        return RandomMatrix(s, m, k, round(m * k * (1 - sp)))
    if s.startswith("3-D Poisson"):
        pts = int(s.split()[2].split("-")[0])
        n = int(s.split(",")[1].split("^")[0])
        return StencilMatrix(s, n, pts)
    path = os.path.join(mats, os.path.basename(s))
    if os.path.exists(path):
        return FileMatrix(path)
    return None


def short(source):
    """A case's name in a plot legend."""
    if source.startswith("random"):
        t = source.replace(",", " ").split()
        return f"random {t[1]} x {t[t.index('sparsity') + 1]}"
    if source.startswith("3-D Poisson"):
        return source.split(",")[0].replace("3-D Poisson ", "") + " " + source.split(",")[1].split()[0]
    return os.path.basename(source).split(".")[0]


def pct(pred, meas):
    return 100.0 * (pred - meas) / meas


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    ap.add_argument("--matrices", default=None,
                    help="SuiteSparse .mtx.gz (default: $GCOO_MATRICES, .mats, /work/shared/matrices)")
    ap.add_argument("--measured", default=None, help="a new 2-GPU run's directory (spdm.jsonl, solve.jsonl, peer.txt)")
    ap.add_argument("--plot", default=None)
    ap.add_argument("--targets-only", action="store_true")
    a = ap.parse_args()
    mats = a.matrices or os.environ.get("GCOO_MATRICES") or next(
        (d for d in (".mats", "/work/shared/matrices") if os.path.isdir(d)), ".mats")
    R = a.results
    if a.measured:
        spdm_rows = load_jsonl(os.path.join(a.measured, "spdm.jsonl"))
        solve_rows = load_jsonl(os.path.join(a.measured, "solve.jsonl"))
        nvl = peer_copy_from(os.path.join(a.measured, "peer.txt"))
        src = a.measured
    else:
        spdm_rows = load_jsonl(os.path.join(R, "2026-11-30-h200x2-dist-spdm.jsonl"))
        solve_rows = load_jsonl(os.path.join(R, "2026-11-30-h200x2-dist-solve.jsonl"))
        nvl = peer_copy_from(os.path.join(R, "2026-11-30-h200x2-dist.txt"))
        src = os.path.join(R, "2026-11-30-h200x2-dist*")
    nvl = HW["nvl_bw"] or nvl or 386.7e9
    M = Machine(HW, nvl)
    out = []
    p = out.append
    p("# Scaling model (bench/scaling_model.py): fitted at 1 GPU, checked at 2, PREDICTED beyond")
    p(f"# measurements checked: {src}")
    p("")
    p("== parameters")
    p(f"HBM (device copy, read + write)        {HW['hbm'] / 1e9:8.1f} GB/s   measured, 1 H200")
    p(f"kernel floor (launch + sync)           {HW['t_launch'] * 1e6:8.1f} us     measured, 1 H200")
    p(f"NVLink peer copy                       {nvl / 1e9:8.1f} GB/s   measured, 2 H200 (same run as the checks)")
    p(f"NCCL latency / rate (all-gather fit)   {M.nccl_lat * 1e6:8.1f} us, {M.nccl_bw / 1e9:.1f} GB/s (rate not used: the peer copy is the link)")
    p(f"gcoo host cost per call                {M.host_call() * 1e6:8.1f} us     from the code: 2 agreements x {HW['mpi_small'] * 1e6:.0f} us + 2 polls x {HW['nap'] * 1e6 / 2:.0f} us")
    p(f"InfiniBand NDR per GPU                 {M.ib_bw / 1e9:8.1f} GB/s   vendor 50 GB/s x measured NVLink efficiency {nvl / HW['nvl_bw_peak']:.2f}; latency {HW['ib_lat'] * 1e6:.0f} us (assumption)")
    p("")

    # ---- SpDM: fit at 1 GPU, check at 2 --------------------------------------------------
    by = {}
    for d in spdm_rows:
        by.setdefault(d["a"]["source"], {})[d["ranks"]] = d
    checks = []  # (what, predicted, measured)
    fits = {}
    p("== SpDM (X replicated, Y gathered on rank 0): fitted at 1 GPU, checked at 2 (ms; err = (model - measured) / measured)")
    p(f"{'case':40s} {'c ps/FMA':>8s} | {'kern 2':>7s} {'model':>7s} {'err':>6s} | {'gath 2':>7s} {'model':>7s} {'err':>6s} | {'k+g x':>6s} {'model':>6s} {'err':>6s}")
    for source, runs in by.items():
        if 1 not in runs or 2 not in runs:
            continue
        d1, d2 = runs[1], runs[2]
        A = matrix_for(source, mats)
        if A is None:
            p(f"{source[:40]:40s} (matrix file not found under {mats}: not checked)")
            continue
        N = d1["b"]["cols"]
        es = 4 if d1["dtype"] == "float32" else 8
        t1, g1 = d1["time_s"]["kernel"], d1["time_s"]["gather"]
        c, _ = spdm_fit(A, N, es, t1)
        fits[source] = (A, N, es, c, t1, g1)
        k2 = spdm_kernel(A, N, es, c, 2)
        gm2 = gather_root(A, N, es, M, 2, g1, overlap_own=False)  # the code that was measured
        K2, G2 = d2["time_s"]["kernel"], d2["time_s"]["gather"]
        sp_meas = (t1 + g1) / (K2 + G2)
        sp_mod = (t1 + g1) / (k2 + gm2)
        checks += [(f"spdm kernel {source[:28]}", k2, K2), (f"spdm gather {source[:28]}", gm2, G2),
                   (f"spdm k+g speedup {source[:28]}", sp_mod, sp_meas)]
        p(f"{source[:40]:40s} {c * 1e12:8.3f} | {K2 * 1e3:7.3f} {k2 * 1e3:7.3f} {pct(k2, K2):+5.0f}% | "
          f"{G2 * 1e3:7.3f} {gm2 * 1e3:7.3f} {pct(gm2, G2):+5.0f}% | {sp_meas:6.2f} {sp_mod:6.2f} {pct(sp_mod, sp_meas):+5.0f}%")
    p("gather rate (GB/s of Y moved to rank 0 / gather time), measured vs model:")
    for source, (A, N, es, c, t1, g1) in fits.items():
        b = spdm_bytes_to_root(A, N, es, 2)
        G2 = by[source][2]["time_s"]["gather"]
        gm2 = gather_root(A, N, es, M, 2, g1, overlap_own=False)
        p(f"  {source[:40]:40s} {b / G2 / 1e9:6.1f} vs {b / gm2 / 1e9:6.1f} GB/s (link {nvl / 1e9:.0f}); "
          f"with the step-1 gather (own slab during the receives): model {gather_root(A, N, es, M, 2, g1, True) * 1e3:.3f} ms "
          f"= {b / gather_root(A, N, es, M, 2, g1, True) / 1e9:.0f} GB/s [PREDICTION]")
    p("the 2-GPU kernel + gather target (>= 1.8x) [PREDICTION]: 'serial' = the step-1 gather (own slab copied during the")
    p("receives) after the product; 'overlapped' = chunks of Y sent as row blocks of the product finish (the max of the two")
    p("plus one 64 MiB chunk); 'link-rate bound' = serial with the gather at exactly the peer-copy rate and no latency")
    for source, (A, N, es, c, t1, g1) in fits.items():
        k2 = spdm_kernel(A, N, es, c, 2)
        g_new = gather_root(A, N, es, M, 2, g1, True)
        b = spdm_bytes_to_root(A, N, es, 2)
        chunk = min(b, 64 * 1048576) / M.nvl_bw
        bound = (t1 + g1) / (k2 + b / M.nvl_bw)
        p(f"  {source[:40]:40s} serial {(t1 + g1) / (k2 + g_new):5.2f}x (link-rate bound {bound:4.2f}x), "
          f"overlapped {(t1 + g1) / (max(k2, g_new) + chunk):5.2f}x")
    p("")

    # ---- block CG: fit at 1 GPU, check at 2 ------------------------------------------------
    sol = {d["ranks"]: d for d in solve_rows}
    bcg_pred = None
    if 1 in sol:
        one = bcg_one_gpu(sol[1])
        m, kk = sol[1]["m"], sol[1]["k"]
        n = round(m ** (1 / 3))
        p(f"== block CG iteration (3-D Poisson 7-point {n}^3, k = {kk}, float64): 1 GPU phases per iteration (ms)")
        p("  " + ", ".join(f"{key} {1e3 * v:.3f}" for key, v in one.items() if key != "mult_per_iter")
          + f" ({one['mult_per_iter']:.3f} multiplies an iteration; 'other' = solve minus phases: host work)")
        if 2 in sol:
            s2 = sol[2]
            it2 = s2["iterations"]
            halo_rows = s2["halo_rows_per_multiply"] / 2  # both ranks together -> per rank
            mod = bcg_iteration(m, kk, 2, one, M, halo_rows)
            meas = {"multiply": s2["seconds"]["spmm"] / s2["spmm_calls"],
                    "blas": s2["seconds"]["blas"] / it2, "precond": s2["seconds"]["precond"] / it2,
                    "reduce": s2["seconds"]["reduce"] / it2, "total": s2["seconds"]["solve"] / it2}
            p(f"{'phase (2 GPUs)':18s} {'measured':>9s} {'model':>9s} {'err':>6s}")
            for key in ("multiply", "blas", "precond", "reduce", "total"):
                p(f"{key:18s} {meas[key] * 1e3:9.3f} {mod[key] * 1e3:9.3f} {pct(mod[key], meas[key]):+5.0f}%")
                checks.append((f"bcg {key}", mod[key], meas[key]))
            bcg_pred = (one, m, kk, n)
        p("")

    # ---- model error (the target) ---------------------------------------------------------
    worst = max(checks, key=lambda t: abs(pct(t[1], t[2]))) if checks else None
    within = [t for t in checks if abs(pct(t[1], t[2])) <= 15.0]
    p(f"== model error over {len(checks)} 2-GPU measurements: {len(within)} within 15 %, largest "
      f"{abs(pct(worst[1], worst[2])):.0f} % ({worst[0]})" if worst else "== no 2-GPU measurement to check")
    spdm_checks = [t for t in checks if t[0].startswith("spdm")]
    if spdm_checks:
        w = max(spdm_checks, key=lambda t: abs(pct(t[1], t[2])))
        p(f"   SpDM alone ({len(spdm_checks)} checks): largest {abs(pct(w[1], w[2])):.0f} % ({w[0]})")
    p("")

    # ---- predictions -----------------------------------------------------------------------
    Ps = [1, 2, 4, 8, 16, 32, 64]
    curves = {}
    if not a.targets_only and fits:
        p("== PREDICTIONS (no measurement behind any number below; 8 GPUs a node on NVSwitch, nodes on NDR InfiniBand)")
        # SpDM strong scaling: random 14000 x 0.99 and the 27-point stencil, as measured at 1 GPU
        for source in list(fits)[:3]:
            A, N, es, c, t1, g1 = fits[source]
            p(f"SpDM strong scaling [PREDICTION], {source}, N = {N}: ms (speedup over 1 GPU)")
            p(f"  {'P':>3s} {'kernel':>14s} {'k+gather(root)':>16s} {'limit at this P':s}")
            sk, sg = [], []
            for P in Ps:
                k = spdm_kernel(A, N, es, c, P)
                g = gather_root(A, N, es, M, P, g1, overlap_own=True)
                rows, e, cols, _ = max(A.slabs(P), key=lambda s: s[1])
                parts = {"multiply-adds": c * e * N, "X rows touched (HBM)": cols * N * es / HW["hbm"],
                         "launch": HW["t_launch"]}
                lim = max(parts, key=parts.get)
                sk.append(t1 / k)
                sg.append((t1 + g1) / (k + g))
                p(f"  {P:3d} {k * 1e3:8.3f} ({t1 / k:5.1f}x) {(k + g) * 1e3:9.3f} ({(t1 + g1) / (k + g):5.2f}x)  kernel: {lim}; gather {g / (k + g) * 100:.0f} % of k+g")
            curves[f"SpDM kernel, {short(source)}"] = sk
            curves[f"SpDM kernel + gather to rank 0, {short(source)}"] = sg
        # SpDM weak scaling: the 27-point stencil grown with P (rows per GPU fixed), output kept
        # distributed (no gather: parallel write) and gathered
        st = [s for s in fits if s.startswith("3-D Poisson")]
        if st:
            A0, N, es, c, t1, g1 = fits[st[0]]
            p(f"SpDM weak scaling [PREDICTION], 27-point stencil, {A0.m} rows a GPU, N = {N}: parallel efficiency")
            wk, wg = [], []
            for P in Ps:
                n = round((A0.m * P) ** (1 / 3))
                A = StencilMatrix(f"27-point {n}^3", n, 27)
                k = spdm_kernel(A, N, es, c, P)
                g = gather_root(A, N, es, M, P, g1 * A.m / A0.m, overlap_own=True)
                wk.append(t1 / k)
                wg.append((t1 + g1) / (k + g))
                p(f"  {P:3d} grid {n}^3: kernel {k * 1e3:.3f} ms, efficiency {t1 / k * 100:5.1f} %; with the gather to rank 0 {(t1 + g1) / (k + g) * 100:5.1f} %")
            curves["weak: SpDM kernel, 27-point, 2.1M rows a GPU"] = wk
            curves["weak: SpDM kernel + gather to rank 0"] = wg

        # SpGEMM: the largest products gcoo measured on one GPU (2026-11-30-h200-spgemm.txt)
        p("SpGEMM A*A strong scaling [PREDICTION] (compute: gcoo on 1 H200, 2026-11-30-h200-spgemm.txt; B rows fetched once)")
        t0 = 0.461e-3  # smallest gcoo SpGEMM measured (bcsstk21): the pipeline's fixed cost
        cases = [("2-D Laplacian 1500^2 (5-point), 130.4 ms", 130.378e-3, "stencil2d", 1500, 5),
                 ("random 400k x 400k, 16 a row, 51.4 ms", 51.413e-3, "random", 400000, 16)]
        for name, t1s, kind, n, d in cases:
            p(f"  {name}")
            sc = []
            for P in Ps:
                m = n * n if kind == "stencil2d" else n
                rows = m / P
                if kind == "stencil2d":
                    fetch = (2 if P > 1 else 0) * n * d * 12  # two grid rows of B, 12 B an entry
                else:
                    cols = m * (1 - (1 - 1 / m) ** (rows * d))
                    fetch = (cols - rows * cols / m) * d * 12 if P > 1 else 0
                comp, comm = spgemm_time(t1s, t0, 1.0 / P, fetch, M, P)
                sc.append(t1s / (comp + comm))
                p(f"    {P:3d}: compute {comp * 1e3:8.3f} ms, fetch of B rows {comm * 1e3:7.3f} ms ({fetch / 1e6:7.1f} MB), speedup {t1s / (comp + comm):5.1f}x")
            curves[f"SpGEMM, {name.split(',')[0].split(' (')[0]}"] = sc

        # block CG: strong (10^6 rows, 8 x 10^6 rows) and weak (8 x 10^6 rows a GPU)
        if bcg_pred:
            one, m, kk, n0 = bcg_pred
            for rows_total, label in ((m, "10^6 rows"), (8 * m, "8 x 10^6 rows (the issue's 2-GPU target)")):
                base = scale_bcg_one(one, rows_total / m)
                n = round(rows_total ** (1 / 3))
                p(f"block CG iteration strong scaling [PREDICTION], {label}, k = {kk}: ms (speedup), z-plane slabs, halo not overlapped / overlapped")
                t1i = bcg_iteration(rows_total, kk, 1, base, M, 0)["total"]
                sc = []
                for P in Ps:
                    halo = slab_halo_rows(n, P)
                    r0 = bcg_iteration(rows_total, kk, P, base, M, halo)
                    r1 = bcg_iteration(rows_total, kk, P, base, M, halo, overlap_halo=True)
                    sc.append(t1i / r1["total"])
                    parts = {k_: r1[k_] for k_ in ("multiply", "blas", "reduce", "other", "precond")}
                    lim = max(parts, key=parts.get)
                    p(f"  {P:3d}: {r0['total'] * 1e3:8.3f} ({t1i / r0['total']:5.2f}x) / {r1['total'] * 1e3:8.3f} ({t1i / r1['total']:5.2f}x); "
                      f"halo {halo * kk * 8 / 1e6:6.1f} MB {r0['halo'] * 1e3:6.3f} ms; largest phase: {lim} {parts[lim] * 1e3:.3f} ms")
                curves[f"block CG, {label.split(' (')[0]}"] = sc
            c = round((8 * m) ** (1 / 3))
            p(f"block CG weak scaling [PREDICTION], 8 x 10^6 rows a GPU, k = {kk}: parallel efficiency, halo overlapped; "
              f"z-plane slabs of the whole grid or cubes of {c}^3 a GPU (8 a node as 2 x 2 x 2)")
            t1i = bcg_iteration(8 * m, kk, 1, scale_bcg_one(one, 8.0), M, 0)["total"]
            wk, wc = [], []
            for P in Ps:
                base = scale_bcg_one(one, 8.0 * P)
                n = round((8 * m * P) ** (1 / 3))
                slab = bcg_iteration(8 * m * P, kk, P, base, M, slab_halo_rows(n, P), overlap_halo=True)
                slab_serial = bcg_iteration(8 * m * P, kk, P, base, M, slab_halo_rows(n, P))
                faces_nvl, faces_ib = cube_faces(P, M.g)
                cube = bcg_iteration(8 * m * P, kk, P, base, M, 0, overlap_halo=True,
                                     halo_split=(faces_nvl * c * c, faces_ib * c * c))
                wk.append(t1i / slab_serial["total"])
                wc.append(t1i / cube["total"])
                p(f"  {P:3d}: slabs {t1i / slab_serial['total'] * 100:5.1f} % not overlapped, {t1i / slab['total'] * 100:5.1f} % overlapped (halo {slab_halo_rows(n, P) * kk * 8 / 1e6:6.1f} MB, {slab['halo'] * 1e3:.3f} ms), "
                  f"cubes {t1i / cube['total'] * 100:5.1f} % ({faces_nvl} faces on NVLink, {faces_ib} on InfiniBand, {(faces_nvl + faces_ib) * c * c * kk * 8 / 1e6:5.1f} MB, {cube['halo'] * 1e3:.3f} ms); "
                  f"largest phase: {max(('multiply', 'blas', 'reduce', 'other'), key=lambda q: cube[q])}")
            curves["weak: block CG 8e6 rows a GPU, cubes, halo overlapped"] = wc
            curves["weak: block CG 8e6 rows a GPU, z-slabs, halo not overlapped"] = wk
        p("")

    # ---- targets ---------------------------------------------------------------------------
    if worst:
        e = abs(pct(worst[1], worst[2]))
        p(f"target model-error: {e:.0f} % (goal <= 15 %) {'met' if e <= 15 else 'missed'}")
    else:
        p("target model-error: not measured (no 2-GPU measurement to check the model against)")
    text = "\n".join(out)
    print(text)

    if a.plot and curves:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(13, 5))
        for name, ys in curves.items():
            ax = axes[1] if name.startswith("weak") else axes[0]
            if name.startswith("weak"):
                ax.plot(Ps, [100 * y for y in ys], marker="o", label=name[6:])
            else:
                ax.plot(Ps, ys, marker="o", label=name)
        axes[0].plot(Ps, Ps, "k:", label="ideal")
        axes[0].set_xscale("log", base=2)
        axes[0].set_yscale("log", base=2)
        axes[0].set_xlabel("GPUs (8 a node; 16-64: nodes on NDR InfiniBand)")
        axes[0].set_ylabel("speedup over 1 GPU")
        axes[0].set_title("strong scaling: PREDICTED (model fitted at 1 GPU)")
        axes[1].set_xscale("log", base=2)
        axes[1].set_xlabel("GPUs")
        axes[1].set_ylabel("parallel efficiency %")
        axes[1].axhline(80, color="k", ls=":", lw=1)
        axes[1].set_title("weak scaling: PREDICTED")
        for ax in axes:
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
            ax.axvline(8, color="grey", lw=0.8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)
        print(f"plot: {a.plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
