#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# bench/lu_petsc.py: PETSc's direct solve (KSP preonly + PC lu through MUMPS or SuperLU_DIST),
# PETSc's half of bench/run_lu.sh (bench/lu_bench.c is gcoo's half). Debian's petsc4py: run with
# /usr/bin/python3 and PETSC_DIR=/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real, under mpirun
# for several ranks. Each rank reads the file and keeps PETSc's default contiguous block of rows
# (reading not timed); then REPEATS times a KSP is made, set up (the factorisation: KSPSetUp) and
# applied to one right-hand side (KSPSolve); the fastest set-up + solve is reported with the true
# relative residual ||b - A x|| / ||b|| of its answer (MatMult). b is lu_bench.c's:
# b_i = 2 u(i) - 1, u(i) the top 53 bits of splitmix64(i) / 2^53. One solver a process: a
# solver that calls exit() (SuperLU_DIST on a zero diagonal) takes only its own line with it,
# and so does the abort of PETSc 3.18's communicator clean-up at exit after several SuperLU_DIST
# factorisations on two ranks ("corrupted double-linked list"), which comes after the line.
# Output: one JSON line on rank 0, the fields of lu_bench.c's ("solver": "petsc-mumps" or
# "petsc-superlu_dist").
# With --x-dir DIR the answer goes to DIR/NAME.npR.petsc-SOLVER.x (n float64 in row order), for
# lu_summary.py to recompute every solver's residual the same way.
# Usage: [mpirun -np R] /usr/bin/python3 lu_petsc.py --solver mumps|superlu_dist [--repeats N]
#        [--x-dir DIR] FILE.mtx[.gz]
import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.io as sio
import scipy.sparse as sp

import petsc4py

petsc4py.init([])
from petsc4py import PETSc  # noqa: E402


def rhs(rows):
    """lu_bench.c's right-hand side at the given global rows (uint64 arithmetic wraps)."""
    with np.errstate(over="ignore"):
        z = rows.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return 2.0 * ((z >> np.uint64(11)).astype(np.float64) * 2.0**-53) - 1.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True, choices=["mumps", "superlu_dist"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--x-dir")
    ap.add_argument("file")
    a = ap.parse_args()
    comm = PETSc.COMM_WORLD
    name = os.path.basename(a.file).split(".mtx")[0]
    out = {"solver": "petsc-" + a.solver, "matrix": name, "ranks": comm.getSize()}
    A = sp.csr_matrix(sio.mmread(a.file)).astype(np.float64)
    A.sort_indices()
    n = A.shape[0]
    out.update(n=n, nnz=int(A.nnz))
    if A.shape[0] != A.shape[1]:
        out.update(status="not square")
        if comm.getRank() == 0:
            print(json.dumps(out), flush=True)
        return
    layout = PETSc.Vec().createMPI((PETSc.DECIDE, n), comm=comm)
    r0, r1 = layout.getOwnershipRange()
    local = A[r0:r1]
    M = PETSc.Mat().createAIJ(
        size=((r1 - r0, n), (r1 - r0, n)),
        csr=(local.indptr.astype(PETSc.IntType), local.indices.astype(PETSc.IntType), local.data),
        comm=comm)
    M.assemble()
    b = M.createVecLeft()
    b.setArray(rhs(np.arange(r0, r1)))
    best = None
    for _ in range(a.repeats):
        ksp = PETSc.KSP().create(comm=comm)
        ksp.setOperators(M)
        ksp.setType("preonly")
        pc = ksp.getPC()
        pc.setType("lu")
        pc.setFactorSolverType(a.solver)
        x = b.duplicate()
        comm.barrier()
        t0 = time.perf_counter()
        try:
            ksp.setUp()
            comm.barrier()
            t1 = time.perf_counter()
            ksp.solve(b, x)
            comm.barrier()
            t2 = time.perf_counter()
        except PETSc.Error as e:
            out.update(status="error", error=str(e).splitlines()[0][:200])
            break
        reason = ksp.getConvergedReason()
        if reason < 0:  # PETSc does not raise a failed factorisation: it reports it here
            why = {v: k for k, v in PETSc.KSP.ConvergedReason.__dict__.items()
                   if k.startswith("DIVERGED")}.get(reason, str(reason))
            if a.solver == "mumps":
                F = pc.getFactorMatrix()
                why += " (MUMPS INFOG(1) = %d, INFOG(2) = %d)" % (F.getMumpsInfog(1),
                                                                 F.getMumpsInfog(2))
            out.update(status="failed", error=why)
            break
        # the residual and the answer's file every repeat, on every rank alike (collective);
        # rank 0's times after the barriers are the ones kept
        r = b.duplicate()
        M.mult(x, r)
        r.aypx(-1.0, b)
        rel = r.norm() / b.norm()
        if a.x_dir:
            scatter, x0 = PETSc.Scatter.toZero(x)
            scatter.scatter(x, x0)
            if comm.getRank() == 0:
                x0.getArray().astype("<f8").tofile(os.path.join(
                    a.x_dir, "%s.np%d.%s.x" % (name, comm.getSize(), out["solver"])))
        if best is None or t2 - t0 < best[2]:
            best = [t1 - t0, t2 - t1, t2 - t0]
            relres = rel
        ksp.destroy()
    if best is not None and "error" not in out:
        out.update(setup_s=best[0], solve_s=best[1], total_s=best[2],
                   relres=float(relres) if np.isfinite(relres) else str(relres), status="ok")
    if comm.getRank() == 0:
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
