# SPDX-License-Identifier: MIT
"""CuPy operands on the CUDA backend: device arrays read and written in place through DLPack,
CuPy sparse matrices in and out. Skipped where CuPy or a GPU is missing (everywhere but the GPU
machine)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gcoo

cupy = pytest.importorskip("cupy")
csp = pytest.importorskip("cupyx.scipy.sparse")
if gcoo._core.cuda_device_count() == 0:
    pytest.skip("no usable GPU", allow_module_level=True)

from conftest import random_matrix, tolerance  # noqa: E402


def test_operator_on_device_arrays(dtype):
    A = random_matrix(3000, 2000, 0.01, dtype, seed=1)
    op = gcoo.Operator(csp.csr_matrix(A))  # a CuPy matrix goes to the GPU
    assert op.backend == "cuda"
    X = cupy.asarray(np.random.default_rng(0).uniform(-1, 1, (2000, 32)).astype(dtype))
    Y = cupy.full((3000, 32), cupy.nan, dtype=dtype)
    assert op.apply(X, out=Y) is Y
    assert gcoo._core.last_operands() == (X.data.ptr, Y.data.ptr)  # no copy
    err = np.abs(cupy.asnumpy(Y).astype(np.float64) - A.astype(np.float64) @ cupy.asnumpy(X))
    assert np.all(err <= tolerance(dtype, A, cupy.asnumpy(X)))
    Z = op @ X  # a new CuPy array
    assert isinstance(Z, cupy.ndarray) and bool(cupy.all(Z == Y))


def test_operator_on_a_cupy_stream():
    A = random_matrix(1000, 1000, 0.01, np.float64, seed=2)
    op = gcoo.Operator(A, backend="cuda")
    X = cupy.ones((1000, 8))
    with cupy.cuda.Stream(non_blocking=True) as s:
        Y = op @ X
        s.synchronize()
    assert np.allclose(cupy.asnumpy(Y), A @ np.ones((1000, 8)))


def test_spgemm_cupy_in_cupy_out():
    A = random_matrix(2000, 2000, 0.002, np.float64, seed=3)
    C = gcoo.spgemm(csp.csr_matrix(A), csp.csr_matrix(A))
    assert isinstance(C, csp.csr_matrix)
    assert abs(sp.csr_matrix(C.get()) - A @ A).max() <= 1e-12


def test_operands_in_two_memories_are_refused():
    op = gcoo.Operator(sp.identity(10, format="csr"), backend="cuda")
    with pytest.raises(gcoo.Error):
        op.apply(cupy.ones(10), out=np.empty(10))  # operands in different memory spaces
