# SPDX-License-Identifier: MIT
"""No operand is copied: the addresses the library was handed are the arrays' own, results
land in the caller's out, and a product's sparse result holds the library's own arrays."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import gcoo
from gcoo import _core


def address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def test_dense_operands_are_not_copied(dtype):
    A = sp.random(500, 300, density=0.02, format="csr", random_state=1).astype(dtype)
    op = gcoo.Operator(A)
    for order in ("C", "F"):
        X = np.asarray(np.random.default_rng(0).uniform(-1, 1, (300, 16)), dtype=dtype, order=order)
        out = np.empty((500, 16), dtype=dtype, order=order)
        assert op.apply(X, out=out) is out
        assert _core.last_operands() == (address(X), address(out))
    # a read-only X is read in place too
    X = np.ones((300, 4), dtype=dtype)
    X.setflags(write=False)
    Y = op @ X
    assert _core.last_operands() == (address(X), address(Y))
    # a view with a leading dimension (every other column block of a wider array)
    big = np.ones((300, 10), dtype=dtype)
    op @ big[:, 3:7]
    assert _core.last_operands()[0] == address(big[:, 3:7])


def test_solver_operands_are_not_copied():
    n = 100
    A = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    B = np.ones((n, 3))
    out = np.empty((n, 3))
    s = gcoo.Solver(A)
    X, info = s.solve(B, out=out)
    assert X is out and info.converged
    assert _core.last_operands() == (address(B), address(out))
    s.close()


def test_spgemm_result_holds_library_arrays():
    from gcoo._context import context
    from gcoo._convert import like, to_gcoo

    A = sp.random(300, 300, density=0.02, format="csr", random_state=2)
    a = to_gcoo(A)
    Cg, info = _core.spgemm(context("cpu"), a, a)
    indptr, indices, data = Cg.csr_arrays()  # the library's arrays, viewed
    C = like(A, Cg)
    del Cg, a
    assert address(C.data) == address(data) and address(C.indices) == address(indices)
    assert not C.data.flags.owndata and not C.indices.flags.owndata
    assert info["nnz"] == C.nnz == (A @ A).nnz
    del data, indices, indptr, A
    # the matrix lives as long as its arrays do
    ref = sp.csr_matrix(C.toarray())
    assert abs(C - ref).max() == 0 and C.has_canonical_format
    # and gcoo.spgemm returns such a matrix
    A = sp.random(200, 200, density=0.02, format="csr", random_state=3)
    C = gcoo.spgemm(A, A)
    assert not C.data.flags.owndata and abs(C - A @ A).max() <= 1e-15


def test_layouts_read_in_place():
    big = np.zeros((70, 12))
    assert _core.describe_array(big) == ("row", 70, 12, 12, "host")
    assert _core.describe_array(big[:, 2:8]) == ("row", 70, 6, 12, "host")  # ld 12
    assert _core.describe_array(np.asfortranarray(big)) == ("col", 70, 12, 70, "host")
    assert _core.describe_array(np.asfortranarray(big)[5:40, :]) == ("col", 35, 12, 70, "host")
    assert _core.describe_array(big[:, 3]) == ("row", 70, 1, 12, "host")  # a column: n x 1
    assert _core.describe_array(np.zeros(5)) == ("row", 5, 1, 1, "host")
