# SPDX-License-Identifier: MIT
"""Shared helpers of the gcoo package's tests: matrices (random, and real ones from the source
tree's tests/data), and the tolerance a result is held to against scipy."""
from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

DATA = Path(os.environ.get("GCOO_TEST_DATA", Path(__file__).resolve().parents[2] / "tests" / "data"))
DTYPES = [np.float32, np.float64]


def tolerance(dtype, A, X) -> np.ndarray:
    """Bound on |gcoo - scipy| elementwise for Y = A X: both sum the same products in some
    order, so each differs from the exact value by at most n_i u (|A| |X|)_ij (n_i the entries
    of row i, u the unit roundoff of dtype); twice that bounds their difference."""
    u = np.finfo(dtype).eps / 2
    absA = abs(A).astype(np.float64)
    n_i = np.diff(sp.csr_matrix(A).indptr).astype(np.float64)
    bound = absA @ np.abs(np.asarray(X, dtype=np.float64))
    scale = (n_i + 1) * u * 2
    return (scale[:, None] if bound.ndim == 2 else scale) * bound + np.finfo(dtype).tiny


def random_matrix(m, n, density, dtype, seed, fmt="csr"):
    rng = np.random.default_rng(seed)
    A = sp.random(m, n, density=density, format=fmt, dtype=np.float64, random_state=rng,
                  data_rvs=lambda k: rng.uniform(-1, 1, k))
    return A.astype(dtype)


def real_matrix(name, dtype=np.float64):
    """A matrix of tests/data as CSR of dtype (pattern matrices get ones)."""
    path = DATA / f"{name}.mtx.gz"
    if not path.exists():
        pytest.skip(f"{path} not found (GCOO_TEST_DATA)")
    with gzip.open(path) as f:
        A = scipy.io.mmread(f)
    return sp.csr_matrix(A).astype(dtype)


REAL = ["west0479", "bcsstk21", "lp_ship04l", "dwt_2680"]


@pytest.fixture(params=DTYPES, ids=["float32", "float64"])
def dtype(request):
    return request.param
