#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# bench/amg_petsc.py: the reference side of bench/run_amg.sh: PETSc CG with GAMG (smoothed
# aggregation) and with hypre BoomerAMG, and PyAMG's smoothed_aggregation_solver, on the same
# matrices as bench/amg_bench.c, one JSON line a run. Debian's petsc4py (PETSc 3.18, built with
# hypre): run with /usr/bin/python3 and PETSC_DIR=/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real;
# PyAMG from a venv (--pyamg: the venv's python runs this file with --only-pyamg).
#
#   amg_petsc.py PROBLEM [--solvers gamg,hypre] [--only-pyamg] [--reps R]
#     PROBLEM: poisson7:N | poisson27:N | laplace2d:N | FILE.mtx[.gz] (as amg_bench)
#     R: set-up + solve cycles, each with a fresh solver, the fastest reported (as amg_bench's
#        REPS); default 1
#
# The matrices are assembled with scipy in the same order as gcoo's generator (x fastest), b is
# random (seed 7), x0 = 0, rtol 1e-8 on the unpreconditioned residual; setup = ksp.setUp(),
# solve = ksp.solve(), total = their sum (assembly excluded, as in amg_bench). Operator
# complexity: GAMG's from its levels' operators; hypre's is not exposed (null); PyAMG's own.
import gzip
import json
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp


def model(problem):
    """The problem's matrix as scipy CSR (float64)."""
    kind, _, arg = problem.partition(":")
    if kind in ("poisson7", "poisson27", "laplace2d"):
        n = int(arg)
        I = sp.identity(n, format="csr")
        if kind == "poisson7":
            T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
            A = sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)
        elif kind == "poisson27":
            S = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(n, n), format="csr")
            A = 27.0 * sp.identity(n ** 3, format="csr") - sp.kron(sp.kron(S, S), S)
        else:
            T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
            A = sp.kron(T, I) + sp.kron(I, T)
        return sp.csr_matrix(A)
    opener = gzip.open if problem.endswith(".gz") else open
    with opener(problem, "rb") as f:
        A = scipy.io.mmread(f)
    A = sp.csr_matrix(A, dtype=np.float64)
    if A.nnz and np.all(A.data == 0):  # a pattern file: ones
        A.data[:] = 1.0
    return A


def rhs(n):
    return np.random.default_rng(7).standard_normal(n)


def run_petsc(problem, A, solvers, reps):
    import petsc4py

    petsc4py.init([])
    from petsc4py import PETSc

    comm = PETSc.COMM_WORLD
    N = A.shape[0]
    # this rank's rows, split evenly like amg_bench's model problems
    r0 = N * comm.rank // comm.size
    r1 = N * (comm.rank + 1) // comm.size
    Aloc = A[r0:r1]
    M = PETSc.Mat().createAIJ(size=((r1 - r0, N), (r1 - r0, N)),
                              csr=(Aloc.indptr.astype(PETSc.IntType),
                                   Aloc.indices.astype(PETSc.IntType), Aloc.data), comm=comm)
    M.assemble()
    b = M.createVecLeft()
    b.setArray(rhs(N)[r0:r1])
    for name in solvers:
        runs = [petsc_once(PETSc, comm, M, b, A, problem, name) for _ in range(reps)]
        if comm.rank == 0:
            print(json.dumps(min(runs, key=lambda r: r["total"])), flush=True)


def petsc_once(PETSc, comm, M, b, A, problem, name):
    """One set-up and solve of CG + GAMG or + BoomerAMG with a fresh KSP: its JSON record."""
    N = A.shape[0]
    o = PETSc.Options()
    ksp = PETSc.KSP().create(comm)
    ksp.setOperators(M)
    ksp.setType("cg")
    pc = ksp.getPC()
    if name == "gamg":
        pc.setType("gamg")
    else:
        pc.setType("hypre")
        o.setValue("pc_hypre_type", "boomeramg")
    ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
    ksp.setTolerances(rtol=1e-8, max_it=20000)
    ksp.setFromOptions()
    x = b.duplicate()
    comm.barrier()
    t = time.perf_counter()
    ksp.setUp()
    ts = time.perf_counter() - t
    t = time.perf_counter()
    ksp.solve(b, x)
    tsol = time.perf_counter() - t
    r = b.duplicate()
    M.mult(x, r)
    r.aypx(-1.0, b)
    rel = r.norm() / b.norm()
    oc = None
    if name == "gamg":
        nnz = 0.0
        for lev in range(pc.getMGLevels()):
            Al = pc.getMGSmoother(lev).getOperators()[0]
            nnz += Al.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)["nz_used"]
        oc = nnz / M.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)["nz_used"]
    run = {"problem": problem, "solver": "petsc-" + name, "ranks": comm.size, "k": 1, "rows": N,
           "nnz": int(A.nnz), "iterations": ksp.getIterationNumber(),
           "converged": int(ksp.getConvergedReason() > 0), "relres": rel, "setup": ts,
           "solve": tsol, "total": ts + tsol, "operator_complexity": oc}
    if name != "gamg":
        o.delValue("pc_hypre_type")
    ksp.destroy()
    return run


def run_pyamg(problem, A, reps):
    runs = [pyamg_once(problem, A) for _ in range(reps)]
    print(json.dumps(min(runs, key=lambda r: r["total"])), flush=True)


def pyamg_once(problem, A):
    import pyamg

    b = rhs(A.shape[0])
    t = time.perf_counter()
    ml = pyamg.smoothed_aggregation_solver(A)
    ts = time.perf_counter() - t
    res = []
    t = time.perf_counter()
    x = ml.solve(b, tol=1e-8, accel="cg", residuals=res, maxiter=20000)
    tsol = time.perf_counter() - t
    rel = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    return {"problem": problem, "solver": "pyamg-sa", "ranks": 1, "k": 1, "rows": A.shape[0],
            "nnz": int(A.nnz), "iterations": len(res) - 1, "converged": int(rel <= 1e-7),
            "relres": rel, "setup": ts, "solve": tsol, "total": ts + tsol,
            "operator_complexity": ml.operator_complexity()}


def main():
    args = sys.argv[1:]
    problem = args[0]
    solvers = ["gamg", "hypre"]
    if "--solvers" in args:
        solvers = args[args.index("--solvers") + 1].split(",")
    reps = int(args[args.index("--reps") + 1]) if "--reps" in args else 1
    A = model(problem)
    if "--only-pyamg" in args:
        run_pyamg(problem, A, reps)
    else:
        run_petsc(problem, A, solvers, reps)


if __name__ == "__main__":
    main()
