# SPDX-License-Identifier: MIT
"""Sparse matrices between scipy (or CuPy) and gcoo, and what a dense operand is (its element
type, its memory, the stream its framework works on).

gcoo's matrices are its own: making one copies the caller's index and value arrays once (the
library converts them to its formats anyway). The conversions here add nothing larger than
one row pointer array (scipy's int32 ``indptr`` widened to gcoo's int64 offsets), except where
scipy holds int64 column indices, which are narrowed to gcoo's int32 once (checked to fit).
Values are never converted implicitly: a matrix of another element type is refused unless a
``dtype`` is asked for.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _core
from ._errors import DTypeError, ShapeError, TooLargeError

DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_INT32_MAX = np.iinfo(np.int32).max


def dtype_name(dtype: Any) -> str:
    """'float32' or 'float64' for a dtype gcoo computes in; DTypeError otherwise."""
    dt = np.dtype(dtype)
    if dt not in DTYPES:
        raise DTypeError(f"element type {dt}: gcoo computes in float32 or float64 only")
    return dt.name


def is_cupy(obj: Any) -> bool:
    """True for CuPy arrays and cupyx.scipy.sparse matrices (without importing CuPy)."""
    return type(obj).__module__.split(".")[0] in ("cupy", "cupyx")


def is_torch(obj: Any) -> bool:
    """True for PyTorch tensors (without importing PyTorch)."""
    return type(obj).__module__.split(".")[0] == "torch"


def on_device(arr: Any) -> bool:
    """True for arrays in GPU memory (CuPy, PyTorch CUDA tensors, anything DLPack on CUDA)."""
    dev = getattr(arr, "__dlpack_device__", None)
    if dev is not None:
        return dev()[0] in (2, 13)  # kDLCUDA, kDLCUDAManaged
    return hasattr(arr, "__cuda_array_interface__")


def element_type(arr: Any) -> np.dtype:
    """An array's element type as NumPy names it (PyTorch's torch.float32 -> float32)."""
    try:
        return np.dtype(arr.dtype)
    except TypeError:
        return np.dtype(str(arr.dtype).rsplit(".", 1)[-1])


def importable(arr: Any) -> Any:
    """arr as the extension reads it (the buffer protocol or DLPack): arrays that offer only
    __cuda_array_interface__ (Numba's, say) are viewed through CuPy, without a copy."""
    if hasattr(arr, "__cuda_array_interface__") and not hasattr(arr, "__dlpack__"):
        import cupy

        return cupy.asarray(arr)  # a view of the same device memory
    return arr


def cuda_stream(arr: Any) -> int:
    """The stream the caller's framework queues its work on (0: CUDA's default stream), on which
    gcoo queues its own work on arr."""
    if is_torch(arr):
        import torch

        return int(torch.cuda.current_stream(arr.device).cuda_stream)
    import cupy

    return int(cupy.cuda.get_current_stream().ptr)


def _index32(a: np.ndarray, what: str) -> np.ndarray:
    if a.dtype == np.int32:
        return np.ascontiguousarray(a)
    if a.size and (a.max() > _INT32_MAX or a.min() < 0):
        raise TooLargeError(f"{what}: an index past 2^31 - 1, beyond gcoo's int32 indices")
    return a.astype(np.int32)


def _values(data: np.ndarray, dtype: str | None) -> tuple[np.ndarray, str]:
    if dtype is None:
        return np.ascontiguousarray(data), dtype_name(data.dtype)
    name = dtype_name(dtype)
    return np.ascontiguousarray(data, dtype=name), name


def to_gcoo(A: Any, dtype: Any = None) -> _core.Sparse:
    """gcoo's copy of a scipy.sparse (or cupyx.scipy.sparse) CSR, CSC or COO matrix.

    ``dtype`` None keeps A's element type (float32 or float64, else DTypeError); otherwise the
    values are converted to ``dtype`` on the way.
    """
    if is_cupy(A):
        A = A.get()  # gcoo's matrices are built on the host; an operator moves them once
    if not sp.issparse(A):
        raise TypeError(f"a scipy.sparse matrix or array is needed, not {type(A).__name__}")
    if len(A.shape) != 2:
        raise ShapeError(f"a 2-D sparse matrix is needed, not shape {A.shape}")
    m, n = (int(d) for d in A.shape)
    fmt = A.format
    if fmt in ("csr", "csc"):
        data, name = _values(A.data, dtype)
        indptr = A.indptr.astype(np.int64, copy=False)
        indices = _index32(A.indices, "indices")
        make = _core.Sparse.from_csr if fmt == "csr" else _core.Sparse.from_csc
        return make(name, m, n, np.ascontiguousarray(indptr), indices, data)
    if fmt == "coo":
        data, name = _values(A.data, dtype)
        return _core.Sparse.from_coo(name, m, n, _index32(A.row, "row"), _index32(A.col, "col"), data)
    raise TypeError(
        f"sparse format '{fmt}': gcoo reads CSR, CSC and COO (convert explicitly, e.g. A.tocsr())"
    )


def like(A: Any, C: _core.Sparse, transposed: bool = False) -> Any:
    """A scipy object of A's kind (matrix or array; CSR, CSC or COO) holding gcoo's CSR matrix C,
    or C^T read as CSC when ``transposed``; the data and indices arrays are gcoo's own (no
    copy), the row pointers become scipy's index type."""
    indptr, indices, data = C.csr_arrays()
    m, n = C.shape
    if indptr[-1] <= _INT32_MAX and max(m, n) <= _INT32_MAX:
        indptr = indptr.astype(np.int32)  # rows + 1 entries
    else:
        indices = indices.astype(np.int64)  # scipy keeps both index arrays of one type
    is_array = type(A).__name__.endswith("_array")  # scipy's sparse arrays, not matrices
    if transposed:
        cls = sp.csc_array if is_array else sp.csc_matrix
        out = cls((data, indices, indptr), shape=(n, m), copy=False)
    else:
        cls = sp.csr_array if is_array else sp.csr_matrix
        out = cls((data, indices, indptr), shape=(m, n), copy=False)
    out.has_sorted_indices = True  # gcoo's rows are sorted and free of duplicates
    out.has_canonical_format = True
    fmt = getattr(A, "format", "csr")
    if fmt != out.format:
        out = out.asformat(fmt)
    if is_cupy(A):  # a CuPy matrix in, a CuPy matrix out
        import cupyx.scipy.sparse as csp

        out = {"csr": csp.csr_matrix, "csc": csp.csc_matrix, "coo": csp.coo_matrix}[fmt](out)
    return out
