# SPDX-License-Identifier: MIT
"""gcoo: sparse x dense products in the GCOO format, predicted sparse x sparse products and
Krylov solvers, on CPUs (OpenMP) and GPUs (CUDA), over MPI ranks.

The package follows scipy's conventions and works on scipy.sparse matrices and NumPy arrays
(CuPy arrays on the GPU):

- :class:`Operator` (a ``scipy.sparse.linalg.LinearOperator``): ``op @ X``, ``op.apply(X, out)``;
- :func:`spmm`, :func:`spgemm`, :func:`predict_nnz`;
- :func:`solve` and :class:`Solver`;
- :class:`Dist` and :class:`DistOperator` for MPI programs (with or without mpi4py).

Dense operands are read and written in place, never copied or converted behind the caller's
back: a wrong shape, element type or layout raises. Every failure of the library raises
:class:`Error` (a subclass per status) with the library's message.
"""
from __future__ import annotations

from . import _core
from ._dist import Dist, DistOperator
from ._errors import (  # Error and one subclass per status of gcoo/types.h
    Error,
    NullError,
    InvalidObjectError,
    InvalidArgError,
    ShapeError,
    DTypeError,
    UnsupportedError,
    TooLargeError,
    IndexRangeError,
    UnsortedError,
    DuplicateError,
    NotFiniteError,
    FormatError,
    ExistsError,
    NoMemoryError,
    FileError,
    CudaError,
    CusparseError,
    CublasError,
    NoDeviceError,
    MPIError,
    NCCLError,
    HDF5Error,
    RemoteError,
    BreakdownError,
    InternalError,
)
from ._operator import Operator, spmm
from ._solve import Solver, SolveInfo, solve
from ._spgemm import Prediction, predict_nnz, spgemm

__version__: str = _core.version().split()[1]


def version() -> str:
    """The library's version and what it was built with (gcoo_version_string())."""
    return _core.version()


__all__ = [
    "Operator",
    "spmm",
    "spgemm",
    "predict_nnz",
    "Prediction",
    "solve",
    "Solver",
    "SolveInfo",
    "Dist",
    "DistOperator",
    "version",
    "Error",
    "NullError",
    "InvalidObjectError",
    "InvalidArgError",
    "ShapeError",
    "DTypeError",
    "UnsupportedError",
    "TooLargeError",
    "IndexRangeError",
    "UnsortedError",
    "DuplicateError",
    "NotFiniteError",
    "FormatError",
    "ExistsError",
    "NoMemoryError",
    "FileError",
    "CudaError",
    "CusparseError",
    "CublasError",
    "NoDeviceError",
    "MPIError",
    "NCCLError",
    "HDF5Error",
    "RemoteError",
    "BreakdownError",
    "InternalError",
]
