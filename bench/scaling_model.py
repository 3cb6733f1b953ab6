#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/scaling_model.py: the scaling model of docs/scaling.md.

Time per phase = compute + communication + per-call costs:
  compute        per-GPU times measured on ONE GPU (the 1-GPU rows of bench/results/h200x2-dist*,
                 and one-GPU results of the same commit), scaled with what a rank's slab holds (entries, rows of Y,
                 rows of X it touches);
  communication  latency + bytes / bandwidth: NCCL's latencies from NCCL's own tuning model,
                 NVLink and InfiniBand from cited figures (docs/scaling.md);
  per-call costs the synchronisations, agreements and polled NCCL waits each distributed call
                 makes, counted from the code that was measured (5d7b607), priced from one-GPU
                 measurements (c_sync), the code (50 us naps) and the OS's documented timer slack.
Nothing is fitted to a 2-GPU number: the model is CHECKED against every 2-GPU measurement
committed (bench/results/h200x2-dist*.jsonl), the errors are printed, never used to adjust
anything. Everything past 2 GPUs is a PREDICTION.

Usage: python3 bench/scaling_model.py [--results DIR] [--matrices DIR] [--measured DIR]
                                      [--plot out.png] [--targets-only]
  --measured DIR   check against spdm.jsonl / solve.jsonl of a new run (the benchmark's output
                   directory: its 1-GPU rows fit, its 2-GPU rows check) instead of the committed
                   h200x2-dist files.
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
    # one H200, bench/results/h200-spdm-full.txt header: device-to-device copy, bytes read + written
    "hbm": 4249.1e9,
    # smallest product time measured on one H200 (Pd, N = 32, cuSPARSE ALG3, h200-spdm-full.txt):
    # the floor of one launch + synchronisation, used as every kernel's fixed cost
    "t_launch": 6.5e-6,
    # NVLink 4 between two H200s, a direction: 18 links, 900 GB/s both ways = 450 a way [1]; what a
    # peer copy reaches of it, 380 GB/s, is the published H100 SXM p2pBandwidthLatencyTest of
    # NVIDIA/nccl issue #1264 [3] (same NVLink 4, same 18 links). Not the peer copy measured on
    # the x2 machine (386.7 GB/s): that came from the 2-GPU run the model is checked on; it is
    # printed as a sensitivity only.
    "nvl_bw": 380e9,
    "nvl_bw_peak": 450e9,
    # NCCL's own latency model (NVIDIA/nccl src/graph/tuning.cc [4]), in us: base latency of the
    # Ring/LL and Tree/LL protocols (small messages) and the hardware latency per step of a ring
    # (NVLink 0.6, network 2.7) or of a tree (network 5.0); point-to-point transfers of MBs go as
    # Simple (base 8.4, NVLink step 3.4)
    "nccl_base_ring_ll": 6.6e-6, "nccl_base_tree_ll": 6.8e-6, "nccl_base_simple": 8.4e-6,
    "nccl_hw_nvl_ll": 0.6e-6, "nccl_hw_net_ring_ll": 2.7e-6, "nccl_hw_net_tree_ll": 5.0e-6,
    "nccl_hw_nvl_simple": 3.4e-6, "nccl_hw_net_simple": 14.0e-6,
    # gcoo's own host costs per distributed call, from the code at the measured commit (5d7b607):
    # dist/dist_nccl.c waits for an NCCL operation by polling with nanosleep(50 us); Linux lets a
    # nanosleep end up to the thread's timer slack late, 50 us by default (prctl(2),
    # PR_SET_TIMERSLACK [5]), so one nap is taken as 100 us. A wait for an operation that takes
    # t ends at the first poll after t: t + half a nap on average, one whole nap when t is
    # shorter than a nap (the first poll right after the launch never finds it done). Two ranks
    # leave a wait at independent points of their naps: the one that leaves first waits for the
    # other in the next collective, a third of a nap on average (E|U1 - U2| for uniform U).
    "nap": 100e-6,
    # one small MPI collective on the node (an agreement: MPI_Allreduce of 3 ints; the table
    # exchange of a gather): 2 us, an assumption (Open MPI shared memory; a few us change nothing)
    "mpi_small": 2e-6,
    # InfiniBand between nodes (vendor: NDR 400 Gb/s per ConnectX-7 port, one per GPU, 8 per
    # DGX H100/H200 node [2]). Effective rate: the fraction of the NVLink peak the cited peer copy
    # reaches (380 / 450), applied to 50 GB/s.
    "ib_bw_peak": 50e9,
    "gpus_per_node": 8,
}
MEASURED_1GPU = {
    # block CG at k = 1 on one H200 (h200-solver-block-vs-separate.txt: 0.484 s, 281 iterations, BLAS
    # 31.6 %): BLAS time per iteration at k = 1, where the vectors are too small to matter, is
    # its per-call floor (six synchronised windows of one or two cuBLAS calls)
    "bcg_blas_floor_per_iter": 0.484 * 0.316 / 281,
    # the GPU-side floor of one more sparse product call: 8.2 us, an assumption a little above the
    # smallest cuSPARSE SpMM measured on one H200 (CSR ALG3, N = 32, Pd: 6.5 us with its launch and
    # synchronisation, h200-spdm-full.txt)
    "spmm_call_floor": 8.2e-6,
}


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
        eff = nvl_bw / hw["nvl_bw_peak"]
        self.ib_bw = hw["ib_bw_peak"] * min(eff, 1.0)
        self.g = hw["gpus_per_node"]

    def same_node(self, a, b):
        return a // self.g == b // self.g

    def nodes(self, P):
        return (P + self.g - 1) // self.g

    def allreduce_lat(self, P):
        """A small NCCL all-reduce over P ranks, as NCCL's tuning model prices it (LL protocol):
        ring = base + 2 (P - 1) steps, the inter-node ones at the network's step latency; tree =
        base + 2 (intra-node depth x NVLink step + log2(nodes) x network step); NCCL takes the
        cheaper."""
        h, n = self.hw, self.nodes(P)
        if P <= 1:
            return 0.0
        inter = 2 * (n - 1) if n > 1 else 0
        ring = h["nccl_base_ring_ll"] + (2 * (P - 1) - inter) * h["nccl_hw_nvl_ll"] + inter * h["nccl_hw_net_ring_ll"]
        ppn = min(P, self.g)
        tree = h["nccl_base_tree_ll"] + 2 * ((ppn - 1) * h["nccl_hw_nvl_ll"]
                                             + math.log2(n) * h["nccl_hw_net_tree_ll"])
        return min(ring, tree)

    def p2p_lat(self, P):
        """One NCCL send/receive of MBs (Simple protocol): base + one step on the link it crosses."""
        h = self.hw
        return h["nccl_base_simple"] + (h["nccl_hw_net_simple"] if P > self.g else h["nccl_hw_nvl_simple"])

    def wait(self, t):
        """Host time of dist_nccl.c's polled wait for device work of t seconds: the first poll
        right after the launch finds it running, then one poll a nap."""
        nap = self.hw["nap"]
        return nap if t <= nap else t + nap / 2

    def skew(self, P):
        """Time a rank waits, in a collective, for the rank that left the previous polled wait
        last: E[max of P uniform nap phases] - E[its own] = (P / (P + 1) - 1/2) naps."""
        return self.hw["nap"] * (P / (P + 1.0) - 0.5) if P > 1 else 0.0

    def agreements(self, n):
        return n * self.hw["mpi_small"]


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
    copy (the one-GPU gather: a copy of all of Y, scaled); at the measured commit it ran after
    the receives on the same stream; dist/gather.c now runs it on a side stream during them.
    Per-call costs (dist/gather.c): two agreements and the table exchange (three small MPI
    collectives), the group's NCCL latency, the polled wait for the stream, the skew between
    the ranks' polls."""
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
    wire = M.p2p_lat(P) + max(nvl / M.nvl_bw, ib / M.ib_bw)
    own = t_copy1 * slabs[0][0] / A.m
    device = max(wire, own) if overlap_own else wire + own
    return M.agreements(3) + M.wait(device) + M.skew(P)


def spdm_overlapped(A, N, es, c, M, P, blocks=8):
    """Product and gather in one call, the slab in `blocks` row blocks, each sent as soon as it is
    computed (gcoo_dist_pipeline_apply_gather, bench/gpu_bench_dist.sh's --overlap 8): the
    longer of product and transfer, plus one block of the shorter (the pipeline's fill or
    drain); the root's own rows are computed in place (no copy); per call two agreements, the
    polled wait, the skew."""
    k = spdm_kernel(A, N, es, c, P)
    slabs = A.slabs(P)
    nvl = sum(slabs[r][0] for r in range(1, P) if M.same_node(0, r)) * N * es
    ib = sum(slabs[r][0] for r in range(1, P) if not M.same_node(0, r)) * N * es
    wire = M.p2p_lat(P) + max(nvl / M.nvl_bw, ib / M.ib_bw)
    device = max(k, wire) + min(k, wire) / blocks
    return M.agreements(2) + M.wait(device) + M.skew(P)


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
    comm = M.agreements(3) + M.wait(M.p2p_lat(P) + fetch_bytes_max / link) + M.skew(P)
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


# The host-synchronised block-CG loop of dist/bcg.c at the measured commit (5d7b607), counted from
# the code: per iteration one distributed multiply, six synchronised BLAS windows (P^T Q and
# P^T R; X and R updates; ||R_j||^2 and Q^T Z; W = Z + P beta; W^T W; W T), one Jacobi pass and
# three reductions of k x k values (each an NCCL all-reduce polled to completion, two agreements,
# the copy of the values to the host); the multiply's PARTITIONED apply: two agreements, the halo
# (pack, one grouped send/receive, on a side stream while the own-rows product runs), the
# off-diagonal product, one synchronisation.
BCG_CALLS = {"blas_windows": 6, "precond_windows": 1, "reductions": 3,
             "agreements_per_reduction": 2, "agreements_per_multiply": 2}


def bcg_iteration(m, k, P, one, M, halo_rows_per_rank, overlap_halo=True, halo_split=None):
    """One block-CG iteration (k right-hand sides, float64) on P GPUs, phase by phase, from the
    one-GPU phase times (bcg_one_gpu) and the per-call costs:
      multiply  one synchronisation (c_sync) + the own-rows product (one-GPU GPU time x rows) or
                the halo if longer (overlapped, as the code does) + the off-diagonal product
                (one more sparse call: its floor and a pass over the slab's Y, beta = 1) + two
                agreements; the halo = pack launch + NCCL send/recv latency + bytes / link;
      BLAS      six windows x c_sync + the one-GPU GPU time x rows;
      Jacobi    one window x c_sync + the one-GPU GPU time x rows;
      reduce    3 x (the one-GPU reduction: the copy to the host) + on P > 1 each an all-reduce
                (NCCL latency, polled: a whole nap), two agreements, the ranks' skew;
      other     host work outside the phase timers, constant (one-GPU: solve minus phases)."""
    frac = 1.0 / P
    cs = one["c_sync"]
    n_local = m * frac
    own = one["spmm_gpu"] * frac
    halo_b = halo_rows_per_rank * k * 8
    if P > 1:
        offd = MEASURED_1GPU["spmm_call_floor"] + 2 * n_local * k * 8 / HW["hbm"]
        if halo_split:  # (rows over NVLink, rows over InfiniBand), both ways at once
            wire = max(halo_split[0] * k * 8 / M.nvl_bw, halo_split[1] * k * 8 / M.ib_bw)
        else:  # slabs: the busiest rank's planes over one kind of link
            wire = halo_b / (M.nvl_bw if P <= M.g else M.ib_bw)
        halo = HW["t_launch"] + M.p2p_lat(P) + wire
        body = max(own, halo) if overlap_halo else own + halo
        mult = cs + body + offd + M.agreements(BCG_CALLS["agreements_per_multiply"])
    else:
        mult, halo = cs + own, 0.0
    blas = BCG_CALLS["blas_windows"] * cs + one["blas_gpu"] * frac
    pre = BCG_CALLS["precond_windows"] * cs + one["precond_gpu"] * frac
    coll = 0.0
    if P > 1:
        coll = (M.agreements(BCG_CALLS["agreements_per_reduction"]) + M.wait(M.allreduce_lat(P))
                + M.skew(P))
    red = BCG_CALLS["reductions"] * (one["reduce_one"] + coll)
    mult_per_iter = mult * one["mult_per_iter"]
    other = one["other"]
    total = mult_per_iter + blas + pre + red + other
    return {"multiply": mult, "halo": halo, "blas": blas, "precond": pre, "reduce": red,
            "other": other, "total": total, "collective": coll}


def bcg_one_gpu(solve1):
    """The one-GPU run's phases per call and per iteration, split into per-call cost and GPU
    work. c_sync, the cost of one synchronised call, is fitted on the Jacobi pass (one dgmm
    kernel between two synchronisations): its time minus its bytes (R read, Z written, the
    diagonal) at the HBM rate."""
    s, it = solve1["time_s"], solve1["iterations"]
    m, k = solve1["a"]["rows"], solve1["k"]
    per = {
        "spmm": s["spmm"] / solve1["spmm_calls"],
        "mult_per_iter": solve1["spmm_calls"] / it,
        "blas": s["blas"] / it,
        "precond": s["precond"] / it,
        "reduce": s["reduce"] / it,
    }
    phases = s["spmm"] + s["blas"] + s["precond"] + s["reduce"]
    per["other"] = (s["solve"] - phases) / it
    jacobi_bytes = (2 * m * k + m) * 8
    per["precond_gpu"] = jacobi_bytes / HW["hbm"]
    per["c_sync"] = max(per["precond"] - per["precond_gpu"], 0.0)
    per["spmm_gpu"] = max(per["spmm"] - per["c_sync"], 0.0)
    per["blas_gpu"] = max(per["blas"] - BCG_CALLS["blas_windows"] * per["c_sync"], 0.0)
    per["reduce_one"] = per["reduce"] / BCG_CALLS["reductions"]
    return per


def scale_bcg_one(per, factor):
    """The one-GPU iteration of a problem `factor` times larger (rows): the GPU work scales, the
    per-call costs and the host work do not."""
    q = dict(per)
    for key in ("spmm_gpu", "blas_gpu", "precond_gpu"):
        q[key] = per[key] * factor
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


def limits_at_64(p, fits, bcg_pred, M, P=64):
    """The phase that limits each case on 8 nodes x 8 GPUs, and what the alternatives would give
    (all PREDICTIONS, same parameters)."""
    p(f"== at {P} GPUs ({P // M.g} nodes x {M.g}) [PREDICTION]: the limiting phase and what would change it")
    for source in [s for s in fits if s.startswith("random 14000 x 14000, sparsity 0.99,")]:
        A, N, es, c, t1, g1 = fits[source]
        rows, e, cols, _ = max(A.slabs(P), key=lambda t: t[1])
        fma, xr = c * e * N, cols * N * es / HW["hbm"]
        k = spdm_kernel(A, N, es, c, P)
        # 2-D: P = r x cb ranks, A in r row blocks x cb column blocks (cb GPUs of one node share a
        # row block): X rows touched / cb, partial Y summed over the cb GPUs (reduce-scatter on NVLink)
        cb = M.g
        r = P // cb
        y_part = (A.m / r) * N * es
        two_d = (HW["t_launch"] + fma + (xr / cb) + (A.m / r) * N * es / HW["hbm"]
                 + M.p2p_lat(cb) + (cb - 1) / cb * y_part / M.nvl_bw)
        p(f"  SpDM {short(source)}: kernel {k * 1e3:.3f} ms ({t1 / k:.1f}x); limit: reading X ({xr * 1e3:.3f} ms, every slab touches"
          f" {cols / A.k * 100:.0f} % of X) next to {fma * 1e3:.3f} ms of multiply-adds. 2-D ({r} x {cb}, Y partials reduced on NVLink):"
          f" {two_d * 1e3:.3f} ms ({t1 / two_d:.1f}x): the partial Ys to reduce are as large as the X saved, so 2-D or 1.5-D does not pay"
          f" at this size; a larger problem a GPU (weak scaling) does")
        g = gather_root(A, N, es, M, P, g1, overlap_own=True)
        p(f"  SpDM gather to rank 0: {g * 1e3:.3f} ms ({g / (k + g) * 100:.0f} % of kernel + gather): the root's one NIC takes 7/8 of Y;"
          f" through the root node's {M.g} NICs (PXN) {(g - M.wait(0)) / M.g * 1e3 + M.wait(0) * 1e3:.3f} ms; no gather (parallel write,"
          f" distributed consumer): 0; overlapped with the product: max(kernel, gather)")
    st = [s for s in fits if s.startswith("3-D Poisson")]
    if st:
        A, N, es, c, t1, g1 = fits[st[0]]
        k = spdm_kernel(A, N, es, c, P)
        p(f"  SpDM {short(st[0])}: kernel {k * 1e3:.3f} ms ({t1 / k:.1f}x); limit: the multiply-adds themselves (a slab touches its"
          f" rows and a plane a side); the launch floor ({HW['t_launch'] * 1e6:.1f} us) is {HW['t_launch'] / k * 100:.0f} % of it")
    if bcg_pred:
        one, m, kk, _ = bcg_pred
        for label, rows_total in (("10^6 rows", m), ("8 x 10^6 rows", 8 * m)):
            base = scale_bcg_one(one, rows_total / m)
            n = round(rows_total ** (1 / 3))
            t1i = bcg_iteration(rows_total, kk, 1, base, M, 0)["total"]
            r = bcg_iteration(rows_total, kk, P, base, M, slab_halo_rows(n, P))
            parts = {q: r[q] for q in ("multiply", "blas", "reduce", "other", "precond")}
            lim = max(parts, key=parts.get)
            dev = dict(base, other=0.0, c_sync=0.0, reduce_one=0.0)
            t1d = bcg_iteration(rows_total, kk, 1, dev, M, 0)["total"]
            rd = bcg_iteration(rows_total, kk, P, dev, M, slab_halo_rows(n, P))
            p(f"  block CG strong, {label}: {r['total'] * 1e3:.3f} ms ({t1i / r['total']:.1f}x); limit: {lim} {parts[lim] * 1e3:.3f} ms"
              f" (host work outside the phases, per-call synchronisations: Amdahl); queued on the device with no host"
              f" round trip (the device-resident iteration of dist/bcg.c): {rd['total'] * 1e3:.3f} ms"
              f" ({t1d / rd['total']:.1f}x over the same on 1 GPU)")
        c = round((8 * m) ** (1 / 3))
        nw = round((8 * m * P) ** (1 / 3))
        base = scale_bcg_one(one, 8.0 * P)
        t1i = bcg_iteration(8 * m, kk, 1, scale_bcg_one(one, 8.0), M, 0)["total"]
        ser = bcg_iteration(8 * m * P, kk, P, base, M, slab_halo_rows(nw, P), overlap_halo=False)
        ovl = bcg_iteration(8 * m * P, kk, P, base, M, slab_halo_rows(nw, P), overlap_halo=True)
        fn, fi = cube_faces(P, M.g)
        cube = bcg_iteration(8 * m * P, kk, P, base, M, 0, overlap_halo=False, halo_split=(fn * c * c, fi * c * c))
        p(f"  block CG weak, 8 x 10^6 rows a GPU, z-slabs: {t1i / ser['total'] * 100:.0f} % without overlap; limit: the halo over"
          f" InfiniBand ({ser['halo'] * 1e3:.3f} ms, two {nw}^2-row planes); overlapped with the own-rows product (as the code does):"
          f" {t1i / ovl['total'] * 100:.0f} %; 3-D partitions (cubes of {c}^3, halo not overlapped): {t1i / cube['total'] * 100:.0f} %")
    p("")


def target_predictions(fits, bcg_pred, M, bcg_err=None):
    """`prediction NAME: VALUE ...` for each target of issue 17 the model can price: what the
    benchmark prints next to a target it could not measure. PREDICTIONS, never measurements."""
    out = []
    two = [s for s in fits if s.startswith("random 14000 x 14000, sparsity 0.99,") or s.startswith("3-D Poisson 27")]
    if two:
        ser, ovl, rate = [], [], []
        for source in two:
            A, N, es, c, t1, g1 = fits[source]
            k2 = spdm_kernel(A, N, es, c, 2)
            g = gather_root(A, N, es, M, 2, g1, True)
            b = spdm_bytes_to_root(A, N, es, 2)
            ser.append((t1 + g1) / (k2 + g))
            ovl.append((t1 + g1) / spdm_overlapped(A, N, es, c, M, 2))
            rate.append(b / g / M.nvl_bw)
        out.append(f"prediction dist-spdm-2gpu: {min(ser):.2f}x with the gather after the product, {min(ovl):.2f}x "
                   f"overlapped with it (goal >= 1.8x; model, not a measurement)")
        out.append(f"prediction gather-link: {100 * min(rate):.0f} % of the link (goal >= 80 %; model, not a measurement)")
    t1s, t0 = 130.378e-3, 0.461e-3
    comp, comm = spgemm_time(t1s, t0, 0.5, 2 * 1500 * 5 * 12, M, 2)
    out.append(f"prediction dist-spgemm-2gpu: {t1s / (comp + comm):.2f}x (2-D Laplacian 1500^2 squared; goal >= 1.8x; "
               f"model, not a measurement; no 2-GPU SpGEMM was ever measured to check it)")
    if bcg_pred:
        one, m, kk, _ = bcg_pred
        base = scale_bcg_one(one, 8.0)
        n = round((8 * m) ** (1 / 3))
        t1i = bcg_iteration(8 * m, kk, 1, base, M, 0)["total"]
        t2i = bcg_iteration(8 * m, kk, 2, base, M, slab_halo_rows(n, 2))["total"]
        miss = (f"; optimistic: the model misses the 2-GPU block-CG iteration by {abs(bcg_err):.0f} %"
                if bcg_err is not None else "")
        out.append(f"prediction bcg-iter-2gpu: {t1i / t2i:.2f}x (goal >= 1.7x; model, not a measurement{miss})")
        nw = round((8 * m * 8) ** (1 / 3))
        w = bcg_iteration(8 * m * 8, kk, 8, scale_bcg_one(one, 64.0), M, slab_halo_rows(nw, 8))["total"]
        out.append(f"prediction weak-8gpu-bcg: {100 * t1i / w:.0f} % (goal >= 80 %; model, not a measurement)")
    st = [s for s in fits if s.startswith("3-D Poisson")]
    if st:
        A0, N, es, c, t1, g1 = fits[st[0]]
        nw = round((A0.m * 8) ** (1 / 3))
        k8 = spdm_kernel(StencilMatrix("27-point", nw, 27), N, es, c, 8)
        out.append(f"prediction weak-8gpu-spdm: {100 * t1 / k8:.0f} % (kernel, output kept distributed; goal >= 80 %; "
                   f"model, not a measurement)")
    return out


def check_two_gpus(M, spdm_rows, solve_rows, mats, p):
    """Fit every case at 1 GPU, predict its 2-GPU phases, compare with the 2-GPU measurement.
    Returns (checks, fits, bcg_pred); checks = [(what, predicted, measured)]."""
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
        p(f"  {source[:40]:40s} {b / G2 / 1e9:6.1f} vs {b / gm2 / 1e9:6.1f} GB/s (link {M.nvl_bw / 1e9:.0f}); "
          f"with the step-1 gather (own slab during the receives): model {gather_root(A, N, es, M, 2, g1, True) * 1e3:.3f} ms "
          f"= {b / gather_root(A, N, es, M, 2, g1, True) / 1e9:.0f} GB/s [PREDICTION]")
    p("the 2-GPU kernel + gather target (>= 1.8x) [PREDICTION]: 'serial' = the step-1 gather (own slab copied during the")
    p("receives) after the product; 'overlapped' = gcoo_dist_pipeline_apply_gather in 8 row blocks (the longer of product")
    p("and transfer + a block of the shorter); 'link-rate bound' = serial with the gather at exactly the link's rate, no latency")
    for source, (A, N, es, c, t1, g1) in fits.items():
        k2 = spdm_kernel(A, N, es, c, 2)
        g_new = gather_root(A, N, es, M, 2, g1, True)
        b = spdm_bytes_to_root(A, N, es, 2)
        bound = (t1 + g1) / (k2 + b / M.nvl_bw)
        p(f"  {source[:40]:40s} serial {(t1 + g1) / (k2 + g_new):5.2f}x (link-rate bound {bound:4.2f}x), "
          f"overlapped {(t1 + g1) / spdm_overlapped(A, N, es, c, M, 2):5.2f}x")
    p("")

    # ---- block CG: fit at 1 GPU, check at 2 ------------------------------------------------
    sol = {d["ranks"]: d for d in solve_rows}
    bcg_pred = None
    if 1 in sol:
        one = bcg_one_gpu(sol[1])
        m, kk = sol[1]["a"]["rows"], sol[1]["k"]
        n = round(m ** (1 / 3))
        p(f"== block CG iteration (3-D Poisson 7-point {n}^3, k = {kk}, float64): 1 GPU phases per iteration (ms)")
        p("  " + ", ".join(f"{key} {1e3 * v:.3f}" for key, v in one.items() if key != "mult_per_iter")
          + f" ({one['mult_per_iter']:.3f} multiplies an iteration; 'other' = solve minus phases: host work)")
        if 2 in sol:
            s2 = sol[2]
            it2 = s2["iterations"]
            halo_rows = s2["halo_rows_per_multiply"] / 2  # both ranks together -> per rank
            mod = bcg_iteration(m, kk, 2, one, M, halo_rows)
            meas = {"multiply": s2["time_s"]["spmm"] / s2["spmm_calls"],
                    "blas": s2["time_s"]["blas"] / it2, "precond": s2["time_s"]["precond"] / it2,
                    "reduce": s2["time_s"]["reduce"] / it2, "total": s2["time_s"]["solve"] / it2}
            p(f"{'phase (2 GPUs)':18s} {'measured':>9s} {'model':>9s} {'err':>6s}")
            for key in ("multiply", "blas", "precond", "reduce", "total"):
                p(f"{key:18s} {meas[key] * 1e3:9.3f} {mod[key] * 1e3:9.3f} {pct(mod[key], meas[key]):+5.0f}%")
                checks.append((f"bcg {key}", mod[key], meas[key]))
            # diagnostic only (never used above or in a prediction): what the model cannot explain,
            # per call that touches NCCL (the phases without NCCL, BLAS and Jacobi, are near)
            ex_h = meas["multiply"] - mod["multiply"]
            ex_r = (meas["reduce"] - mod["reduce"]) / BCG_CALLS["reductions"]
            p(f"unexplained on 2 GPUs (diagnostic, not fitted): {ex_h * 1e3:.3f} ms per multiply (one grouped NCCL "
              f"send/recv of {halo_rows * kk * 8 / 1e6:.1f} MB), {ex_r * 1e3:.3f} ms per all-reduce of <= {2 * kk * kk + kk} values; "
              f"model per all-reduce {mod['collective'] * 1e3:.3f} ms (NCCL {M.allreduce_lat(2) * 1e6:.1f} us, one nap, skew, agreements)")
            bcg_pred = (one, m, kk, n)
        p("")

    return checks, fits, bcg_pred


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
        peer = peer_copy_from(os.path.join(a.measured, "peer.txt"))
        src = a.measured
    else:
        spdm_rows = load_jsonl(os.path.join(R, "h200x2-dist-spdm.jsonl"))
        solve_rows = load_jsonl(os.path.join(R, "h200x2-dist-solve.jsonl"))
        peer = peer_copy_from(os.path.join(R, "h200x2-dist.txt"))
        src = os.path.join(os.path.relpath(R), "h200x2-dist*")
    M = Machine(HW, HW["nvl_bw"])
    out = []
    p = out.append
    p("# Scaling model (bench/scaling_model.py): fitted at 1 GPU, checked at 2, PREDICTED beyond")
    p(f"# measurements checked: {src}")
    p("")
    p("== parameters (every one from a one-GPU measurement, a vendor document or the code; none from a 2-GPU run)")
    p(f"HBM (device copy, read + write)        {HW['hbm'] / 1e9:8.1f} GB/s   measured, 1 H200 (h200-spdm-full.txt)")
    p(f"kernel floor (launch + sync)           {HW['t_launch'] * 1e6:8.1f} us     measured, 1 H200 (smallest product, Pd N = 32)")
    p(f"sparse call floor (GPU side)           {MEASURED_1GPU['spmm_call_floor'] * 1e6:8.1f} us     assumed, above the smallest cuSPARSE call measured (ALG3 Pd N = 32: 6.5 us)")
    p(f"NVLink GPU to GPU, a direction         {M.nvl_bw / 1e9:8.1f} GB/s   cited: H100 SXM peer copy of NVIDIA/nccl#1264 (NVLink 4, 18 links; peak 450 a direction)")
    p(f"NCCL small all-reduce, 2 GPUs          {M.allreduce_lat(2) * 1e6:8.1f} us     NCCL's tuning model (src/graph/tuning.cc): Ring/LL base {HW['nccl_base_ring_ll'] * 1e6:.1f} + 2 x {HW['nccl_hw_nvl_ll'] * 1e6:.1f} us a step")
    p(f"NCCL small all-reduce, 8 / 64 GPUs     {M.allreduce_lat(8) * 1e6:5.1f} / {M.allreduce_lat(64) * 1e6:5.1f} us  same model (tree across nodes: network step {HW['nccl_hw_net_tree_ll'] * 1e6:.1f} us)")
    p(f"NCCL send/recv latency, node / IB      {M.p2p_lat(2) * 1e6:5.1f} / {M.p2p_lat(16) * 1e6:5.1f} us  same model, Simple protocol, one step")
    p(f"poll nap of dist_nccl.c                {HW['nap'] * 1e6:8.1f} us     from the code (nanosleep 50 us) + Linux's default timer slack 50 us (prctl(2))")
    p(f"small MPI collective (agreement)       {HW['mpi_small'] * 1e6:8.1f} us     assumption (Open MPI shared memory)")
    p(f"InfiniBand NDR per GPU                 {M.ib_bw / 1e9:8.1f} GB/s   vendor 50 GB/s (DGX H200 reference architecture) x the cited NVLink efficiency {M.nvl_bw / HW['nvl_bw_peak']:.2f}")
    p("fitted per case at 1 GPU: SpDM ps per multiply-add; block CG c_sync (Jacobi pass minus its bytes) and the GPU time of each phase")
    p("")

    checks, fits, bcg_pred = check_two_gpus(M, spdm_rows, solve_rows, mats, p)
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

    p("== every 2-GPU measurement and its prediction (nothing above was fitted to any of them)")
    for what, pred, meas in checks:
        p(f"check {what:48s} measured {meas * (1e3 if 'speedup' not in what else 1):9.3f} "
          f"model {pred * (1e3 if 'speedup' not in what else 1):9.3f} {'x ' if 'speedup' in what else 'ms'} "
          f"err {pct(pred, meas):+5.0f} %")
    if peer and checks:
        alt, _, _ = check_two_gpus(Machine(HW, peer), spdm_rows, solve_rows, mats, lambda *x: None)
        w2 = max(alt, key=lambda t: abs(pct(t[1], t[2])))
        sp2 = [t for t in alt if t[0].startswith("spdm")]
        w3 = max(sp2, key=lambda t: abs(pct(t[1], t[2]))) if sp2 else w2
        p(f"sensitivity (not used): with the peer copy measured in the checked run ({peer / 1e9:.1f} GB/s) as the link, "
          f"largest error {abs(pct(w2[1], w2[2])):.0f} %, SpDM alone {abs(pct(w3[1], w3[2])):.0f} %")
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

        # SpGEMM: the largest products gcoo measured on one GPU at the model's commit (5d7b607; its
        # SpGEMM has been made much faster since: bench/results/h200-spgemm.txt)
        p("SpGEMM A*A strong scaling [PREDICTION] (compute: gcoo on 1 H200 at 5d7b607; B rows fetched once)")
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
                    r0 = bcg_iteration(rows_total, kk, P, base, M, halo, overlap_halo=False)
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
                slab_serial = bcg_iteration(8 * m * P, kk, P, base, M, slab_halo_rows(n, P), overlap_halo=False)
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
        limits_at_64(p, fits, bcg_pred, M)

    # ---- the targets as the model predicts them (for rows no machine could measure) ----
    tot = [pct(t[1], t[2]) for t in checks if t[0] == "bcg total"]
    for line in target_predictions(fits, bcg_pred, M, tot[0] if tot else None):
        p(line)
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
        # the 2-GPU measurements the model is checked on, as measured (crosses)
        meas_sp = [t[2] for t in checks if "k+g speedup" in t[0]]
        if meas_sp:
            axes[0].scatter([2] * len(meas_sp), meas_sp, marker="x", color="k", zorder=5,
                            label="MEASURED 2 GPUs: SpDM kernel + gather (5 cases)")
        tot = [t for t in checks if t[0] == "bcg total"]
        if tot and bcg_pred:
            one1 = bcg_iteration(bcg_pred[1], bcg_pred[2], 1, bcg_pred[0], M, 0)["total"]
            axes[0].scatter([2], [one1 / tot[0][2]], marker="X", color="r", zorder=5,
                            label="MEASURED 2 GPUs: block CG iteration, 10^6 rows")
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
        for ax, where in zip(axes, ("upper left", "lower left")):
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6, loc=where)
            ax.axvline(8, color="grey", lw=0.8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)
        print(f"plot: {a.plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
