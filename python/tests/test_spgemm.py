# SPDX-License-Identifier: MIT
"""gcoo.spgemm and gcoo.predict_nnz against scipy: random and real matrices, float32 and
float64, every input kind (matrix/array, CSR/CSC/COO) giving back its own kind."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gcoo
from conftest import random_matrix, real_matrix

METHODS = ["adaptive", "paper", "reference", "pps", "upper", "exact", "classes"]


def pattern(A):
    """A's stored entries (explicit zeros included) as ones."""
    A = sp.csr_matrix(A)
    return sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)


def structural_nnz(A, B):
    return (pattern(A) @ pattern(B)).nnz


def check(C, A, B, dtype):
    """gcoo's C is structural: every product of stored entries gives an entry, also where they
    cancel to 0.0 (scipy drops those). Its pattern must be the product of the patterns, and
    each value within 2 n u (|A||B|)_ij of scipy's (0 where scipy dropped it), n the entry's
    number of products, u the unit roundoff."""
    Cr = sp.csr_matrix(C)
    assert Cr.dtype == dtype
    nprod = (pattern(A) @ pattern(B)).tocsr()
    nprod.sort_indices()
    assert Cr.nnz == nprod.nnz
    assert np.array_equal(Cr.indptr, nprod.indptr) and np.array_equal(Cr.indices, nprod.indices)
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    bound = abs(A64) @ abs(B64)
    tol = nprod.multiply(bound) * (2 * np.finfo(dtype).eps)
    diff = abs(Cr.astype(np.float64) - A64 @ B64)
    assert (diff > tol).nnz == 0, f"max error {diff.max():g}"


@pytest.mark.parametrize("shape", [(200, 150, 100), (500, 40, 500), (1, 30, 1)])
def test_random_matches_scipy(shape, dtype):
    m, k, n = shape
    A = random_matrix(m, k, 0.05, dtype, seed=m)
    B = random_matrix(k, n, 0.05, dtype, seed=n + 1)
    C, info = gcoo.spgemm(A, B, return_info=True)
    check(C, A, B, dtype)
    assert info["nnz"] == C.nnz and info["rows_overflowed"] >= 0


@pytest.mark.parametrize("name", ["west0479", "bcsstk21", "dwt_2680"])
def test_real_square_matches_scipy(name, dtype):
    A = real_matrix(name, dtype)
    check(gcoo.spgemm(A, A), A, A, dtype)
    check(gcoo.spgemm(A, A.T.tocsr()), A, A.T.tocsr(), dtype)


def test_rectangular_real():
    A = real_matrix("lp_ship04l")  # 402 x 2166
    check(gcoo.spgemm(A, A.T.tocsr()), A, A.T.tocsr(), np.float64)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("kind", ["matrix", "array"])
def test_returns_the_kind_it_was_given(fmt, kind):
    A = random_matrix(80, 60, 0.1, np.float64, seed=1, fmt=fmt)
    B = random_matrix(60, 70, 0.1, np.float64, seed=2, fmt=fmt)
    if kind == "array":
        A, B = sp.csr_array(A).asformat(fmt), sp.csr_array(B).asformat(fmt)
    C = gcoo.spgemm(A, B)
    assert C.format == fmt
    assert type(C).__name__.endswith("_array") == (kind == "array")
    check(C, sp.csr_matrix(A), sp.csr_matrix(B), np.float64)


def test_mixed_dtypes_need_a_choice():
    A = random_matrix(30, 30, 0.2, np.float32, seed=1)
    B = random_matrix(30, 30, 0.2, np.float64, seed=2)
    with pytest.raises(gcoo.DTypeError):
        gcoo.spgemm(A, B)
    C = gcoo.spgemm(A, B, dtype=np.float64)
    assert C.dtype == np.float64


@pytest.mark.parametrize("method", METHODS)
def test_predict_within_bounds(method):
    A = real_matrix("bcsstk21")
    exact = structural_nnz(A, A)  # 93072: scipy's A @ A drops 4400 cancelled entries
    p = gcoo.predict_nnz(A, A, method)
    assert p.method == method and int(p) == p.nnz
    assert p.nnz_lower <= exact <= p.nnz_upper
    assert p.nnz_lower <= p.nnz <= p.nnz_upper
    assert p.flop == int(np.diff(A.indptr)[A.indices].sum())
    if method == "exact":
        assert p.nnz == exact and p.exact
    if method == "adaptive":
        assert abs(p.nnz - exact) <= 0.05 * exact  # docs/predictor.md: worst 5.1 % on 900 pairs


def test_predict_rows_and_seed():
    A = random_matrix(2000, 2000, 0.002, np.float64, seed=9)
    p1 = gcoo.predict_nnz(A, A, "paper", seed=5, row_nnz=True)
    p2 = gcoo.predict_nnz(A, A, "paper", seed=5)
    assert p1.nnz == p2.nnz  # the same seed, the same answer
    assert p1.row_nnz.shape == (2000,) and p1.row_nnz.dtype == np.int64
    e = gcoo.predict_nnz(A, A, "exact", row_nnz=True)
    assert np.array_equal(e.row_nnz, np.diff((pattern(A) @ pattern(A)).indptr))
