# SPDX-License-Identifier: MIT
"""gcoo.Operator and gcoo.spmm against scipy: random and real matrices, float32 and float64,
every layout gcoo reads in place, outputs poisoned before each product."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import gcoo
from conftest import REAL, random_matrix, real_matrix, tolerance


def check(Y, A, X, dtype):
    ref = A.astype(np.float64) @ np.asarray(X, dtype=np.float64)
    assert Y.dtype == dtype
    assert np.all(np.isfinite(Y))
    err = np.abs(Y.astype(np.float64) - ref)
    assert np.all(err <= tolerance(dtype, A, X)), f"max error {err.max():g}"


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("shape", [(300, 200), (64, 900), (1, 50), (50, 1)])
def test_random_matches_scipy(fmt, shape, dtype):
    rng = np.random.default_rng(7)
    A = random_matrix(*shape, 0.05, dtype, seed=shape[0] + shape[1], fmt=fmt)
    op = gcoo.Operator(A)
    assert isinstance(op, sla.LinearOperator)
    assert op.shape == A.shape and op.dtype == dtype and op.nnz == A.nnz
    for N in (1, 5, 32):
        X = rng.uniform(-1, 1, (shape[1], N)).astype(dtype)
        out = np.full((shape[0], N), np.nan, dtype=dtype)  # poisoned
        assert op.apply(X, out=out) is out
        check(out, A, X, dtype)
        check(op @ X, A, X, dtype)
    x = rng.uniform(-1, 1, shape[1]).astype(dtype)
    y = op @ x
    assert y.shape == (shape[0],)
    check(y, A, x, dtype)
    check(op.matvec(x), A, x, dtype)


@pytest.mark.parametrize("name", REAL)
def test_real_matches_scipy(name, dtype):
    A = real_matrix(name, dtype)
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (A.shape[1], 16)).astype(dtype)
    op = gcoo.Operator(A)
    check(op @ X, A, X, dtype)
    Y = np.full((A.shape[0], 16), np.nan, dtype=dtype, order="F")  # column-major, read in place
    op.apply(np.asfortranarray(X), out=Y)
    check(Y, A, X, dtype)
    # the transpose, for rmatvec and scipy's solvers that need it
    z = rng.uniform(-1, 1, A.shape[0]).astype(dtype)
    check(op.rmatvec(z), A.T.tocsr(), z, dtype)
    check(op.T @ z, A.T.tocsr(), z, dtype)


def test_alpha_beta(dtype):
    A = random_matrix(120, 80, 0.1, dtype, seed=11)
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (80, 4)).astype(dtype)
    Y0 = rng.uniform(-1, 1, (120, 4)).astype(dtype)
    Y = Y0.copy()
    gcoo.Operator(A).apply(X, out=Y, alpha=2.0, beta=-0.5)
    ref = 2.0 * (A.astype(np.float64) @ X.astype(np.float64)) - 0.5 * Y0
    assert np.allclose(Y, ref, rtol=0, atol=4 * tolerance(dtype, A, X).max() + 4 * np.finfo(dtype).eps)


def test_strided_operands_in_place(dtype):
    """Views with a unit stride and a leading dimension larger than the row are read in place."""
    A = random_matrix(90, 70, 0.1, dtype, seed=5)
    rng = np.random.default_rng(2)
    big = rng.uniform(-1, 1, (70, 12)).astype(dtype)
    X = big[:, 2:8]  # rows 12 apart: row-major with ld 12
    out_big = np.full((90, 10), np.nan, dtype=dtype)
    Y = out_big[:, 1:7]
    gcoo.Operator(A).apply(X, out=Y)
    check(Y, A, X, dtype)
    assert np.all(np.isnan(out_big[:, 0])) and np.all(np.isnan(out_big[:, 7:]))  # untouched
    x = big[:, 3]  # a column: stride 12, read as a 70 x 1 matrix with ld 12
    check(gcoo.Operator(A) @ x, A, x, dtype)


def test_scipy_solvers_accept_operator():
    n = 400
    A = sp.diags([-1.0, 2.2, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    b = np.ones(n)
    op = gcoo.Operator(A)
    for solver in (sla.cg, sla.gmres, sla.bicgstab):
        x, info = solver(op, b, atol=0.0, **_tol(1e-10))
        assert info == 0
        assert np.linalg.norm(A @ x - b) <= 1e-8 * np.linalg.norm(b)
    x, istop = sla.lsqr(op, b, atol=1e-12, btol=1e-12)[:2]
    assert np.linalg.norm(A @ x - b) <= 1e-8 * np.linalg.norm(b)
    w = sla.eigsh(op, k=2, which="LM", return_eigenvectors=False)
    assert np.allclose(np.sort(w), np.sort(sla.eigsh(A, k=2, which="LM", return_eigenvectors=False)))


def _tol(t):
    import inspect

    return {"rtol": t} if "rtol" in inspect.signature(sla.cg).parameters else {"tol": t}


def test_spmm_one_shot(dtype):
    A = random_matrix(200, 150, 0.05, dtype, seed=21, fmt="coo")
    X = np.random.default_rng(0).uniform(-1, 1, (150, 8)).astype(dtype)
    check(gcoo.spmm(A, X), A, X, dtype)
    op = gcoo.Operator(A)
    out = np.empty((200, 8), dtype=dtype)
    assert gcoo.spmm(op, X, out) is out
    check(out, A, X, dtype)


def test_dtype_conversion_on_request():
    A = sp.random(50, 40, density=0.2, format="csr", dtype=np.float64, random_state=4)
    op = gcoo.Operator(A, dtype=np.float32)
    assert op.dtype == np.float32
    Ai = sp.csr_matrix((np.arange(1, 5), ([0, 1, 2, 3], [0, 1, 2, 3])), shape=(4, 4))
    assert Ai.dtype.kind == "i"
    op = gcoo.Operator(Ai, dtype="float64")
    assert np.array_equal(op @ np.ones(4), [1.0, 2.0, 3.0, 4.0])


def test_backend_names():
    A = sp.identity(10, format="csr")
    assert gcoo.Operator(A, backend="cpu").backend == "cpu"
    op = gcoo.Operator(A, backend=None)  # $GCOO_BACKEND, else auto
    assert op.backend in ("cpu", "cuda")
    assert "gcoo.Operator 10x10" in repr(op)
