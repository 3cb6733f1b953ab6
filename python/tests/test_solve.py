# SPDX-License-Identifier: MIT
"""gcoo.solve and gcoo.Solver on one process: every method of the library on SPD systems (a 2-D
Laplacian, a real structural matrix) and the nonsymmetric ones on a convection-diffusion matrix,
one and several right-hand sides, float32 and float64, checked by the true residual; reasons for
stopping as the library gives them."""
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


def convection_diffusion_2d(n, dtype=np.float64):
    """Upwinded convection-diffusion on an n x n grid: nonsymmetric, diagonally dominant."""
    T = sp.diags([-1.6, 4.0, -0.4], [-1, 0, 1], shape=(n, n))
    S = sp.diags([-1.3, -0.7], [-1, 1], shape=(n, n))
    return (sp.kron(sp.identity(n), T) + sp.kron(S, sp.identity(n))).tocsr().astype(dtype)


def true_residual(A, X, B):
    A64 = A.astype(np.float64)
    R = B.astype(np.float64) - A64 @ X.astype(np.float64)
    return np.linalg.norm(R, axis=0) / np.linalg.norm(B.astype(np.float64), axis=0)


SPD_METHODS = ["cg", "pipecg", "gmres", "fgmres", "bicgstab"]


@pytest.mark.parametrize("ksp", SPD_METHODS)
@pytest.mark.parametrize("pc", ["jacobi", "none"])
def test_laplacian(ksp, pc, dtype):
    A = laplacian_2d(30, dtype)
    # float32 vectors carry the recurrences to about eps32 cond(A) = 6e-8 x 400 = 2.4e-5 (CG
    # stops at 9e-6, pipelined CG's longer recurrences level off at 1.2e-5): 1e-4 is reachable
    rtol = 1e-10 if dtype == np.float64 else 1e-4
    B = np.random.default_rng(0).uniform(-1, 1, 900).astype(dtype)
    X, info = gcoo.solve(A, B, ksp=ksp, pc=pc, rtol=rtol)
    assert X.shape == B.shape and X.dtype == dtype
    assert info.converged and info.reason == "converged_rtol" and info.iterations > 0, info
    assert info.solver.startswith(ksp) and pc in info.solver
    assert true_residual(A, X[:, None], B[:, None])[0] <= 2 * rtol
    assert np.allclose(info.residuals, true_residual(A, X[:, None], B[:, None]), rtol=1e-2)


@pytest.mark.parametrize("ksp", ["gmres", "fgmres", "bicgstab"])
def test_nonsymmetric(ksp, dtype):
    A = convection_diffusion_2d(25, dtype)
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    B = np.random.default_rng(4).uniform(-1, 1, (625, 3)).astype(dtype)
    X, info = gcoo.solve(A, B, ksp=ksp, rtol=rtol, restart=20)
    assert info.converged, info
    assert np.all(true_residual(A, X, B) <= 2 * rtol)
    assert info.column_reasons == ["converged_rtol"] * 3


def test_block_and_reuse():
    A = real_matrix("bcsstk21")  # SPD, 3600 rows
    rng = np.random.default_rng(1)
    s = gcoo.Solver(A, rtol=1e-8, history=True)
    assert s.setup_seconds >= 0 and s.description == "cg + jacobi"
    for k in (1, 4):
        B = rng.uniform(-1, 1, (A.shape[0], k))
        X, info = s.solve(B)
        assert info.converged, info
        assert info.setup_seconds == 0  # set up once, when the solver was made
        assert np.all(true_residual(A, X, B) <= 2e-8)
        assert info.residual_history.shape == (info.iterations + 1, k)
        assert np.all(info.column_iterations >= 0) and np.all(info.column_iterations <= info.iterations)
    # an initial guess equal to the solution converges at once
    X2, info2 = s.solve(B, x0=X)
    assert info2.iterations <= 1
    s.close()


def test_options_string_wins():
    A = convection_diffusion_2d(20)
    with gcoo.Solver(A, ksp="cg", options="-ksp_type gmres -ksp_gmres_restart 7 -pc_type none") as s:
        assert s.description == "gmres(7) + none"
        X, info = s.solve(np.ones(400))
        assert info.converged and true_residual(A, X[:, None], np.ones((400, 1)))[0] <= 2e-8


def test_reasons_for_stopping():
    A = laplacian_2d(40)
    B = np.ones(1600)
    X, info = gcoo.solve(A, B, rtol=1e-12, maxiter=3)
    assert not info.converged and info.reason == "diverged_its" and info.iterations == 3
    assert np.all(np.isfinite(X))
    # CG on a symmetric indefinite matrix
    D = sp.diags(np.r_[np.ones(50), -np.ones(50)], format="csr")
    X, info = gcoo.solve(D + laplacian_2d(10) * 0.01, np.ones(100), ksp="cg", pc="none")
    assert not info.converged and info.reason == "diverged_indefinite", info
    # the atol criterion, and a zero right-hand side
    X, info = gcoo.solve(A, np.zeros(1600))
    assert info.converged and info.reason == "converged_atol" and not X.any()


def test_methods_listed():
    assert set(gcoo.Solver.methods["ksp"]) >= {"cg", "pipecg", "gmres", "fgmres", "bicgstab", "preonly"}
    assert set(gcoo.Solver.methods["pc"]) >= {"none", "jacobi", "amg", "lu"}
