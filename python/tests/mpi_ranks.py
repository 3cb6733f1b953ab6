# SPDX-License-Identifier: MIT
"""Run by test_mpi.py under mpirun (not collected by pytest itself):

    mpirun -np 2 python3 mpi_ranks.py mpi4py|plain FILE.h5

Every rank checks its own part against scipy and prints "mpi_ranks: rank R of N: OK". In mode
"mpi4py" the communicator is mpi4py's; in mode "plain" mpi4py is never imported and gcoo
initialises MPI itself. FILE.h5 holds /A, the random matrix below, in scipy's CSR layout.
"""
from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp

mode, h5 = sys.argv[1], sys.argv[2]
if mode == "mpi4py":
    from mpi4py import MPI

    comm = MPI.COMM_WORLD.Dup()  # any communicator, not only the world
else:
    comm = None

import gcoo  # noqa: E402

assert ("mpi4py" in sys.modules) == (mode == "mpi4py")
d = gcoo.Dist(comm, backend="cpu")
rank, size = d.rank, d.size


def close(a, b, scale):
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.all(np.abs(a - b) <= 1e-12 * scale), np.abs(a - b).max()


def matrix():
    """The matrix of FILE.h5 (test_mpi.py writes it from the same seed)."""
    return sp.random(1000, 700, density=0.01, format="csr", random_state=42)


# ---- an operator from each rank's rows (uneven slabs), X replicated ----------------------------
A = matrix()
cuts = [0] + [int(1000 * (r + 1) ** 2 / size**2) for r in range(size)]
r0, r1 = cuts[rank], cuts[rank + 1]
op = d.operator(A[r0:r1])
assert op.shape == (1000, 700) and op.row0 == r0 and op.nrows_local == r1 - r0
X = np.random.default_rng(0).uniform(-1, 1, (700, 8))
Y_local = op @ X
close(Y_local, A[r0:r1] @ X, 10)
Y = d.gather(Y_local, root=0)
if rank == 0:
    close(Y, A @ X, 10)
else:
    assert Y is None
close(d.gather(Y_local, root=None), A @ X, 10)
close(op.local_matrix().toarray(), A[r0:r1].toarray(), 0)

# ---- the same matrix read in parallel from HDF5 (each rank its nnz-balanced slab) ------------
opf = d.operator_from_file(h5 + ":/A", dtype="float64")
f0, n = opf.row0, opf.nrows_local
close(opf @ X, A[f0:f0 + n] @ X, 10)
opf32 = d.operator_from_file(h5 + ":/A", dtype=np.float32)
Y32 = opf32 @ X.astype(np.float32)
assert Y32.dtype == np.float32
assert np.all(np.abs(Y32 - A[f0:f0 + n] @ X) <= 1e-5 * (abs(A[f0:f0 + n]) @ abs(X)) + 1e-30)

# ---- a partitioned SPD operator and the solver, each rank its rows of B and X ------------------
m = 40
T = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(m, m))
L = (sp.kron(sp.identity(m), T) + sp.kron(sp.diags([-1.0, -1.0], [-1, 1], shape=(m, m)), sp.identity(m))).tocsr()
N = m * m
lo, hi = rank * N // size, (rank + 1) * N // size
opp = d.operator(L[lo:hi], x="partitioned")
xs = np.random.default_rng(1).uniform(-1, 1, (N, 3))
close(opp @ xs[lo:hi], (L @ xs)[lo:hi], 10)  # X partitioned: this rank's rows only
s = gcoo.Solver(opp, rtol=1e-10)
B = np.random.default_rng(2).uniform(-1, 1, (N, 3))
X_local, info = s.solve(np.ascontiguousarray(B[lo:hi]))
assert info.converged, info
Xs = d.gather(X_local, root=None)
res = np.linalg.norm(B - L @ Xs, axis=0) / np.linalg.norm(B, axis=0)
assert np.all(res <= 1e-8), res
with gcoo.Solver(opp, "gmres", options="-ksp_gmres_restart 20", rtol=1e-10) as g:
    assert g.description == "gmres(20) + jacobi"
    X_local, info = g.solve(np.ascontiguousarray(B[lo:hi, 0]))
    assert info.converged and info.reason == "converged_rtol", info
    x = d.gather(X_local, root=None)
    assert np.linalg.norm(B[:, 0] - L @ x) <= 2e-10 * np.linalg.norm(B[:, 0])

# ---- errors are agreed: a slab that does not tile the rows fails on every rank ----------------
try:
    d.operator(A[r0:r1], row0=r0 + (1 if rank == size - 1 else 0), nrows=1000)
except gcoo.Error as e:
    assert isinstance(e, (gcoo.InvalidArgError, gcoo.ShapeError, gcoo.RemoteError)), repr(e)
    assert e.message
else:
    raise AssertionError("a bad tiling was accepted")

s.close()
for o in (op, opf, opf32, opp):
    o.close()
d.close()
print(f"mpi_ranks: rank {rank} of {size}: OK", flush=True)
