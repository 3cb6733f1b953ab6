# SPDX-License-Identifier: MIT
"""gcoo.solve and gcoo.Solver on one process: SPD systems (a 2-D Laplacian, a real structural
matrix), one and several right-hand sides, float32 and float64, checked by the true residual."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gcoo
from conftest import real_matrix


def laplacian_2d(n, dtype=np.float64):
    T = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(n, n))
    I = sp.identity(n)
    S = sp.diags([-1.0, -1.0], [-1, 1], shape=(n, n))
    return (sp.kron(I, T) + sp.kron(S, I)).tocsr().astype(dtype)


def true_residual(A, X, B):
    A64 = A.astype(np.float64)
    R = B.astype(np.float64) - A64 @ X.astype(np.float64)
    return np.linalg.norm(R, axis=0) / np.linalg.norm(B.astype(np.float64), axis=0)


@pytest.mark.parametrize("pc", ["jacobi", "none"])
def test_laplacian(pc, dtype):
    A = laplacian_2d(30, dtype)
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    B = np.random.default_rng(0).uniform(-1, 1, 900).astype(dtype)
    X, info = gcoo.solve(A, B, pc=pc, rtol=rtol)
    assert X.shape == B.shape and X.dtype == dtype
    assert info.converged and info.reason == "converged" and info.iterations > 0
    assert info.ksp == "cg" and info.pc == pc
    # the recursive residual met rtol; the true one may differ by rounding
    slack = 10 if dtype == np.float64 else 100
    assert true_residual(A, X[:, None], B[:, None])[0] <= slack * rtol
    assert np.allclose(info.residuals, true_residual(A, X[:, None], B[:, None]), rtol=1e-2, atol=rtol)


def test_block_and_reuse():
    A = real_matrix("bcsstk21")  # SPD, 3600 rows
    rng = np.random.default_rng(1)
    s = gcoo.Solver(A, rtol=1e-8, history=True)
    for k in (1, 4):
        B = rng.uniform(-1, 1, (A.shape[0], k))
        X, info = s.solve(B)
        assert info.converged, info
        assert np.all(true_residual(A, X, B) <= 1e-6)
        assert info.residual_history.shape == (info.iterations + 1, k)
        assert np.all(info.column_iterations >= 0) and np.all(info.column_iterations <= info.iterations)
    # an initial guess equal to the solution converges at once
    X2, info2 = s.solve(B, x0=X)
    assert info2.iterations <= 1
    s.close()


def test_not_converged_is_reported_not_raised():
    A = laplacian_2d(40)
    B = np.ones(1600)
    X, info = gcoo.solve(A, B, rtol=1e-12, maxiter=3)
    assert not info.converged and info.reason == "max_iterations" and info.iterations == 3
    assert np.all(np.isfinite(X))


def test_methods_listed():
    assert gcoo.Solver.methods["ksp"] == ["cg"]
    assert set(gcoo.Solver.methods["pc"]) == {"none", "jacobi"}
