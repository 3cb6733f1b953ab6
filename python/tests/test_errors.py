# SPDX-License-Identifier: MIT
"""Bad arguments raise, with the class of their status and a message; failures inside the
library raise gcoo.Error subclasses carrying the library's own message."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gcoo


@pytest.fixture
def op():
    return gcoo.Operator(sp.random(40, 30, density=0.2, format="csr", random_state=3))


def test_status_classes_follow_the_library():
    assert issubclass(gcoo.ShapeError, gcoo.Error) and issubclass(gcoo.ShapeError, ValueError)
    assert issubclass(gcoo.DTypeError, TypeError)
    assert issubclass(gcoo.NoMemoryError, MemoryError)
    assert issubclass(gcoo.FileError, OSError)
    assert gcoo.ShapeError.status == -4 and gcoo.ShapeError.status_name == "GCOO_ERR_SHAPE"
    from gcoo import _core, _errors

    # every error status the library names has its class, exported by the package
    for name, (value, _) in _core.statuses.items():
        if value < 0:
            cls = _errors.error_class(value)
            assert cls.status_name == name and getattr(gcoo, cls.__name__) is cls
    assert set(_errors.__all__) <= set(gcoo.__all__)


def test_wrong_shapes(op):
    with pytest.raises(gcoo.ShapeError, match="29 rows, the operator 30 columns"):
        op @ np.ones((29, 2))
    with pytest.raises(gcoo.ShapeError, match="out has shape"):
        op.apply(np.ones((30, 2)), out=np.empty((40, 3)))
    with pytest.raises(gcoo.ShapeError):
        op.apply(np.ones((30, 2, 2)))
    with pytest.raises(gcoo.ShapeError):
        gcoo.spgemm(sp.identity(3, format="csr"), sp.identity(4, format="csr"))


def test_wrong_dtypes(op):
    with pytest.raises(gcoo.DTypeError, match="float32, the operator float64"):
        op @ np.ones(30, dtype=np.float32)
    with pytest.raises(gcoo.DTypeError):
        op.apply(np.ones(30), out=np.empty(40, dtype=np.float32))
    with pytest.raises(gcoo.DTypeError, match="float32 or float64"):
        gcoo.Operator(sp.identity(3, format="csr", dtype=np.int64))
    with pytest.raises(gcoo.DTypeError):
        gcoo.Operator(sp.identity(3, format="csr", dtype=np.complex128))
    with pytest.raises(TypeError):  # also a TypeError, as scipy users catch it
        op @ np.ones(30, dtype=np.int32)


def test_layouts_not_read_in_place_are_refused(op):
    X = np.ones((30, 8))
    with pytest.raises(gcoo.InvalidArgError, match="strides"):
        op @ X[:, ::2]
    with pytest.raises(gcoo.InvalidArgError, match="strides"):
        op @ np.ones((60, 8))[::2, ::2]
    with pytest.raises(gcoo.InvalidArgError, match="overlaps"):
        Z = np.ones((40, 2))
        gcoo.Operator(sp.identity(40, format="csr")).apply(Z, out=Z)
    with pytest.raises(TypeError, match="NumPy or device array"):
        op.apply([1.0] * 30)
    with pytest.raises(TypeError, match="spgemm"):
        op.apply(sp.identity(30, format="csr"))
    with pytest.raises(TypeError, match="format 'dia'"):
        gcoo.Operator(sp.identity(5, format="dia"))
    with pytest.raises(gcoo.InvalidArgError, match="beta"):
        op.apply(np.ones(30), beta=1.0)


def test_library_messages_reach_python():
    # an index outside the matrix, in arrays scipy was told not to check
    bad = sp.csr_matrix((np.ones(2), np.array([0, 7], dtype=np.int32), np.array([0, 1, 2])),
                        shape=(2, 5))
    with pytest.raises(gcoo.IndexRangeError) as e:
        gcoo.Operator(bad)
    msg = str(e.value)
    assert e.value.status == -8 and "GCOO_ERR_INDEX_RANGE" in msg
    assert ".c:" in e.value.message  # gcoo's message names where it was detected
    assert e.value.message == gcoo._core.last_error()
    with pytest.raises(gcoo.InvalidArgError, match="unknown product algorithm"):
        gcoo.Operator(sp.identity(4, format="csr"), alg="nonsense")
    with pytest.raises(gcoo.InvalidArgError, match="unknown prediction method"):
        gcoo.predict_nnz(sp.identity(4, format="csr"), sp.identity(4, format="csr"), "guess")


def test_backend_that_is_not_there():
    A = sp.identity(4, format="csr")
    if gcoo._core.cuda_device_count() > 0:
        pytest.skip("a GPU is usable here")
    with pytest.raises((gcoo.UnsupportedError, gcoo.NoDeviceError)) as e:
        gcoo.Operator(A, backend="cuda")
    assert "cuda" in e.value.message.lower()
    with pytest.raises(gcoo.Error):
        gcoo.Operator(A, backend="tpu")


def test_solver_arguments():
    A = sp.identity(10, format="csr")
    with pytest.raises(gcoo.InvalidArgError, match="unknown Krylov method 'minres'"):
        gcoo.Solver(A, ksp="minres")
    with pytest.raises(gcoo.InvalidArgError, match="unknown preconditioner 'ilu'"):
        gcoo.Solver(A, pc="ilu")
    with pytest.raises(gcoo.InvalidArgError, match="-ksp_gmres_restart"):  # the library's message
        gcoo.Solver(A, options="-ksp_type gmres -ksp_gmres_restart many")
    with pytest.raises(gcoo.InvalidArgError, match="-pc_typo"):
        gcoo.Solver(A, options="-pc_typo amg")
    with pytest.raises(gcoo.InvalidArgError):
        gcoo.Solver(A, rtol=-1.0)
    with pytest.raises(gcoo.ShapeError, match="square"):
        gcoo.Solver(sp.random(4, 5, density=0.5, format="csr"))
    for pc in ("amg", "lu"):  # known names; this build may lack them: then said at set-up
        try:
            gcoo.Solver(A, pc=pc).close()
        except gcoo.UnsupportedError as e:
            assert "not available" in e.message or "build" in e.message
    s = gcoo.Solver(A)
    with pytest.raises(gcoo.ShapeError):
        s.solve(np.ones(11))
    with pytest.raises(gcoo.DTypeError):
        s.solve(np.ones(10, dtype=np.float32))
    with pytest.raises(gcoo.InvalidArgError, match="row-major"):
        s.solve(np.asfortranarray(np.ones((10, 3))))
    s.close()
    with pytest.raises(gcoo.InvalidObjectError, match="closed"):
        s.solve(np.ones(10))
