#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/py_overhead.py: what calling gcoo from Python costs, and how it compares with scipy.

Targets (issue "gcoo from Python and Fortran"):
  py-overhead   Python adds at most 5 % to the library's time for SpMM of a 1M-row matrix (3-D
                7-point Poisson 100^3) by 32 columns and for SpGEMM A*A of a 27-point 64^3
                stencil; on the CPU, and on the GPU with CuPy operands when there is one. The
                library's time is measured inside the extension around each library call
                (gcoo._core.library_seconds(): gcoo_op_apply; gcoo_sparse_create_csr and
                gcoo_spgemm, the calls a C program starting from the same CSR arrays makes),
                plus the wait for the GPU's stream; the overhead is the rest of the Python call.
  py-zero-copy  no operand copied: the addresses the library was handed (gcoo._core.last_operands)
                are the arrays' own, for C-contiguous NumPy (and CuPy) operands of the dtype.
  py-vs-scipy   gcoo.spgemm(A, B) and Operator @ X (N = 32; the operator made once) on the CPU
                backend against scipy's A @ B and A @ X, fastest of --repeat runs each,
                geometric mean of scipy's time over gcoo's across the matrices of --matrices
                (square ones as A*A, others as A*A^T).

Run on a quiet machine, with the threads the comparison names:
    OMP_NUM_THREADS=2 python3 bench/py_overhead.py [--matrices DIR] [--repeat 5] [--quick]
(the gcoo package installed as the README says). Ends with one line per target:
    target NAME: VALUE (goal GOAL) met|missed
"""
from __future__ import annotations

import argparse
import gzip
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

import gcoo
from gcoo import _core

TOP = Path(__file__).resolve().parents[1]


def stencil(n: int, points: int) -> sp.csr_matrix:
    """3-D Poisson-like stencil on an n^3 grid: 7 points (faces) or 27 (the whole cube)."""
    I = sp.identity(n, format="csr")
    if points == 7:
        T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
        A = sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)
    else:
        T = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(n, n), format="csr")
        A = sp.kron(sp.kron(T, T), T).tocsr()
        A.data[:] = -1.0
        A = A + 27.0 * sp.identity(n**3)
    A = A.tocsr()
    A.sort_indices()
    return A


def sync_device() -> float:
    """Wait for CuPy's current stream; the seconds waited (the device's work)."""
    import cupy

    t0 = time.perf_counter()
    cupy.cuda.get_current_stream().synchronize()
    return time.perf_counter() - t0


def overhead(fn, repeat: int, device: bool = False) -> tuple[float, float, float]:
    """(median wall seconds of one call, median library seconds, overhead as a fraction of the
    library's time, from the sums over the runs) for fn() run `repeat` times after a warm-up."""
    fn()
    if device:
        sync_device()
    walls, libs = [], []
    for _ in range(repeat):
        lib0 = _core.library_seconds()
        t0 = time.perf_counter()
        fn()
        waited = sync_device() if device else 0.0
        walls.append(time.perf_counter() - t0)
        libs.append(_core.library_seconds() - lib0 + waited)
    frac = (sum(walls) - sum(libs)) / sum(libs)
    return float(np.median(walls)), float(np.median(libs)), frac


def bench_overhead(repeat: int, quick: bool) -> list[float]:
    results = []
    n7, n27 = (40, 24) if quick else (100, 64)
    print(f"== py-overhead, CPU backend, {os.environ.get('OMP_NUM_THREADS', 'all')} threads")
    A = stencil(n7, 7)
    X = np.random.default_rng(0).uniform(-1, 1, (A.shape[1], 32))
    Y = np.empty((A.shape[0], 32))
    op = gcoo.Operator(A, backend="cpu", ncols_hint=32)
    for name, fn in (("op.apply(X, out=Y)", lambda: op.apply(X, out=Y)), ("op @ X", lambda: op @ X)):
        wall, lib, frac = overhead(fn, repeat)
        print(f"  SpMM 7-point {n7}^3 ({A.shape[0]} rows, {A.nnz} entries) x 32, {name}: "
              f"{wall * 1e3:.2f} ms, library {lib * 1e3:.2f} ms, Python +{100 * frac:.2f} %")
        if name.startswith("op.apply"):
            results.append(frac)
    B = stencil(n27, 27)
    wall, lib, frac = overhead(lambda: gcoo.spgemm(B, B, backend="cpu"), max(2, repeat // 2))
    C = gcoo.spgemm(B, B, backend="cpu")
    print(f"  SpGEMM 27-point {n27}^3 A*A ({B.shape[0]} rows, {B.nnz} -> {C.nnz} entries): "
          f"{wall * 1e3:.1f} ms, library {lib * 1e3:.1f} ms, Python +{100 * frac:.2f} %")
    results.append(frac)
    del C

    try:
        import cupy
        import cupyx.scipy.sparse as csp
    except ImportError:
        print("  GPU: skipped (CuPy is not installed)")
        return results
    if _core.cuda_device_count() == 0:
        print("  GPU: skipped (no usable GPU)")
        return results
    print("== py-overhead, CUDA backend, CuPy operands")
    Ad = csp.csr_matrix(A)
    opd = gcoo.Operator(Ad, backend="cuda", ncols_hint=32)
    Xd, Yd = cupy.asarray(X), cupy.empty((A.shape[0], 32))
    wall, lib, frac = overhead(lambda: opd.apply(Xd, out=Yd), repeat, device=True)
    print(f"  SpMM 7-point {n7}^3 x 32, op.apply(X, out=Y): {wall * 1e3:.3f} ms, library and "
          f"device {lib * 1e3:.3f} ms, Python +{100 * frac:.2f} %")
    results.append(frac)
    Bd = csp.csr_matrix(B)
    wall, lib, frac = overhead(lambda: gcoo.spgemm(Bd, Bd, backend="cuda"), max(2, repeat // 2),
                               device=True)
    print(f"  SpGEMM 27-point {n27}^3 A*A (CuPy in and out): {wall * 1e3:.1f} ms, library "
          f"{lib * 1e3:.1f} ms, Python +{100 * frac:.2f} % (gcoo's matrices are built on the "
          "host: the operands are copied there and the result back)")
    results.append(frac)
    return results


def bench_zero_copy() -> tuple[int, int]:
    """(operands copied, operands checked)."""
    print("== py-zero-copy")
    checked = copied = 0

    def addr(a):
        if hasattr(a, "__cuda_array_interface__"):
            return a.__cuda_array_interface__["data"][0]
        return a.__array_interface__["data"][0]

    def expect(what, *arrays):
        nonlocal checked, copied
        got = _core.last_operands()
        for a, g in zip(arrays, got):
            checked += 1
            if addr(a) != g:
                copied += 1
                print(f"  COPIED: {what}")
        print(f"  {what}: in place")

    for dtype in (np.float32, np.float64):
        A = sp.random(2000, 1500, density=0.01, format="csr", random_state=1).astype(dtype)
        op = gcoo.Operator(A, backend="cpu")
        X = np.ones((1500, 16), dtype=dtype)
        Y = np.empty((2000, 16), dtype=dtype)
        op.apply(X, out=Y)
        expect(f"Operator.apply {np.dtype(dtype).name} C order", X, Y)
        Z = op @ X
        expect(f"Operator @ {np.dtype(dtype).name}", X, Z)
        x = np.ones(1500, dtype=dtype)
        z = op @ x
        expect(f"Operator @ vector {np.dtype(dtype).name}", x, z)
        gcoo.spmm(A, X, out=Y)
        expect(f"spmm {np.dtype(dtype).name}", X, Y)
        Xf, Yf = np.asfortranarray(X), np.empty((2000, 16), dtype=dtype, order="F")
        op.apply(Xf, out=Yf)
        expect(f"Operator.apply {np.dtype(dtype).name} Fortran order", Xf, Yf)
    L = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(500, 500), format="csr")
    s = gcoo.Solver(L, backend="cpu")
    Bs = np.ones((500, 4))
    Xs, _ = s.solve(Bs)
    expect("Solver.solve", Bs, Xs)
    s.close()
    try:
        import cupy

        if _core.cuda_device_count() > 0:
            import cupyx.scipy.sparse as csp

            opd = gcoo.Operator(csp.csr_matrix(sp.random(2000, 1500, density=0.01, format="csr")))
            Xd = cupy.ones((1500, 16))
            Yd = opd @ Xd
            expect("Operator @ CuPy", Xd, Yd)
    except ImportError:
        pass
    return copied, checked


def read(path: Path) -> sp.csr_matrix:
    with gzip.open(path) as f:
        A = scipy.io.mmread(f)
    A = sp.csr_matrix(A, dtype=np.float64)  # pattern matrices: ones
    A.sort_indices()
    return A


def best(fn, repeat: int) -> float:
    fn()
    t = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def bench_vs_scipy(folder: Path, repeat: int, quick: bool) -> tuple[float, float]:
    files = sorted(folder.glob("*.mtx.gz"))
    if quick:
        files = files[:4]
    print(f"== py-vs-scipy on {len(files)} matrices of {folder}, CPU backend, fastest of {repeat}")
    print(f"  {'matrix':28s} {'rows':>8s} {'nnz':>9s}  {'SpMM scipy':>10s} {'gcoo':>8s} {'x':>6s}"
          f"  {'SpGEMM scipy':>12s} {'gcoo':>8s} {'x':>6s}")
    r_mm, r_gemm = [], []
    for path in files:
        A = read(path)
        X = np.random.default_rng(0).uniform(-1, 1, (A.shape[1], 32))
        op = gcoo.Operator(A, backend="cpu", ncols_hint=32)
        Yg, Ys = op @ X, A @ X
        assert np.allclose(Yg, Ys, rtol=1e-10, atol=1e-10 * np.abs(Ys).max()), path.name
        ts_mm, tg_mm = best(lambda: A @ X, repeat), best(lambda: op @ X, repeat)
        B = A if A.shape[0] == A.shape[1] else A.T.tocsr()
        ts_g = best(lambda: A @ B, max(1, repeat // 2))
        tg_g = best(lambda: gcoo.spgemm(A, B, backend="cpu"), max(1, repeat // 2))
        r_mm.append(ts_mm / tg_mm)
        r_gemm.append(ts_g / tg_g)
        name = path.name[: -len(".mtx.gz")]
        print(f"  {name:28s} {A.shape[0]:8d} {A.nnz:9d}  {ts_mm * 1e3:8.2f}ms {tg_mm * 1e3:6.2f}ms "
              f"{r_mm[-1]:5.2f}x  {ts_g * 1e3:10.2f}ms {tg_g * 1e3:6.2f}ms {r_gemm[-1]:5.2f}x")
    g_mm = math.exp(sum(map(math.log, r_mm)) / len(r_mm))
    g_gemm = math.exp(sum(map(math.log, r_gemm)) / len(r_gemm))
    print(f"  geometric mean: Operator @ X {g_mm:.2f}x scipy's speed, spgemm {g_gemm:.2f}x")
    return g_mm, g_gemm


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = next((p for p in (TOP / "shared/matrices", TOP.parent / "shared/matrices",
                                Path("/work/shared/matrices")) if p.is_dir()), TOP / "tests/data")
    ap.add_argument("--matrices", type=Path, default=default)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small problems: checks the script runs")
    args = ap.parse_args()
    print(f"py_overhead: {gcoo.version()}; Python {sys.version.split()[0]}, numpy "
          f"{np.__version__}, scipy {scipy.__version__}; OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', 'unset')}, {os.cpu_count()} CPUs; load "
          f"{os.getloadavg()[0]:.2f}")
    fracs = bench_overhead(args.repeat, args.quick)
    copied, checked = bench_zero_copy()
    g_mm, g_gemm = bench_vs_scipy(args.matrices, args.repeat, args.quick)
    worst = max(fracs)
    print(f"target py-overhead: {100 * worst:.2f} % (goal <= 5 %) {'met' if worst <= 0.05 else 'missed'}")
    print(f"target py-zero-copy: {copied} of {checked} operands copied (goal 0) "
          f"{'met' if copied == 0 else 'missed'}")
    g = min(g_mm, g_gemm)
    print(f"target py-vs-scipy: {g:.2f}x (Operator @ {g_mm:.2f}x, spgemm {g_gemm:.2f}x; goal >= 1.0x) "
          f"{'met' if g >= 1.0 else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
