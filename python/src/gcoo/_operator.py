# SPDX-License-Identifier: MIT
"""Persistent sparse x dense operators: :class:`Operator` and :func:`spmm`."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from scipy.sparse.linalg import LinearOperator

from . import _core
from ._context import context
from ._convert import cuda_stream, element_type, importable, is_cupy, is_torch, on_device, to_gcoo
from ._errors import DTypeError, InvalidArgError, ShapeError


def is_dense(x: Any) -> bool:
    """True for NumPy arrays and device arrays gcoo reads in place (CuPy, PyTorch, DLPack)."""
    return isinstance(x, np.ndarray) or hasattr(x, "__cuda_array_interface__") or (
        hasattr(x, "__dlpack__") and hasattr(x, "shape") and hasattr(x, "dtype")
    )


def _empty(like: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """A new C-order array of like's kind and memory: NumPy, CuPy, or a PyTorch tensor."""
    if is_torch(like):
        import torch

        return torch.empty(shape, dtype=getattr(torch, dtype.name), device=like.device)
    if on_device(like):
        import cupy

        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=dtype)
    return np.empty(shape, dtype=dtype)


def check_operands(
    what: str, nrows: int, ncols: int, dtype: np.dtype, X: Any, out: Any, beta: float
) -> Any:
    """Check X (ncols x N, or ncols) and out (nrows x N, or nrows) against an operator of shape
    (nrows, ncols) and element type dtype; return out, made when None (C order, dtype)."""
    if not is_dense(X):
        raise TypeError(
            f"{what}: X must be a NumPy or device array, not {type(X).__name__}"
            + (" (for sparse x sparse use gcoo.spgemm)" if hasattr(X, "tocsr") else "")
        )
    if X.ndim not in (1, 2):
        raise ShapeError(f"{what}: X must be 1-D or 2-D, not {X.ndim}-D")
    if X.shape[0] != ncols:
        raise ShapeError(f"{what}: X has {X.shape[0]} rows, the operator {ncols} columns")
    if element_type(X) != dtype:
        raise DTypeError(
            f"{what}: X is {element_type(X)}, the operator {dtype}; gcoo converts nothing "
            f"implicitly: pass X.astype({dtype.name}) or make the operator with dtype="
            f"'{element_type(X).name}'"
        )
    shape = (nrows,) + tuple(X.shape[1:])
    if out is None:
        if beta != 0.0:
            raise InvalidArgError(f"{what}: beta = {beta} needs an out to add to")
        return _empty(X, shape, dtype)
    if not is_dense(out):
        raise TypeError(f"{what}: out must be a NumPy or device array, not {type(out).__name__}")
    if tuple(out.shape) != shape:
        raise ShapeError(f"{what}: out has shape {tuple(out.shape)}, the product {shape}")
    if element_type(out) != dtype:
        raise DTypeError(f"{what}: out is {element_type(out)}, the operator {dtype}")
    if isinstance(out, np.ndarray) and isinstance(X, np.ndarray) and np.shares_memory(X, out):
        raise InvalidArgError(f"{what}: out overlaps X (the product cannot be computed in place)")
    return out


class Operator(LinearOperator):
    """A persistent sparse x dense operator: ``Y = A @ X`` for a sparse matrix A, many times.

    The matrix is converted to gcoo's GCOO format and moved to the backend once (the library's
    ``gcoo_op_create``); every product then costs only the kernel (``gcoo_op_apply``), with X and
    Y read and written in place. It is a ``scipy.sparse.linalg.LinearOperator``, so scipy's
    iterative solvers (``cg``, ``gmres``, ``eigsh``, ...) accept it.

    Args:
        A: a scipy.sparse matrix or array (CSR, CSC or COO; a CuPy sparse matrix is copied to
            the host once and moved to the GPU with the operator), float32 or float64.
            The operator holds its own copy; A itself is kept only as a reference for the
            transpose (``op.T``, ``rmatvec``), which is made on first use.
        backend: "cpu" (OpenMP), "cuda" / "cuda:N" (one GPU), "auto" (CUDA when a GPU is usable,
            the CPU otherwise; CuPy matrices go to the GPU), or None (``$GCOO_BACKEND``).
        dtype: the operator's element type; None keeps A's (a float32 or float64 matrix; any
            other type must be named here, and is converted once while copying).
        alg: the product algorithm ("auto": the library's measured choice; "gcoo",
            "cusparse", "reference", ... as ``gcoo_spdm_alg_name`` spells them).
        p: GCOO group width (0: the backend's tuned default).
        ncols_hint: expected columns of X, for the algorithm choice (0: unknown).

    Operands: X (n,) or (n, N) and out (m,) or (m, N), of the operator's element type, in host
    memory (NumPy) or, on the CUDA backend, in device memory (CuPy, PyTorch: DLPack). Row-major
    (C order) operands take the GCOO kernel; column-major (Fortran order) ones are read in place
    too, by a path for that layout. Nothing is copied or converted: a wrong shape raises
    ``ShapeError``, another element type ``DTypeError``, a layout gcoo cannot read in place
    (no unit stride) ``InvalidArgError``.
    """

    def __init__(
        self,
        A: Any,
        backend: Optional[str] = "auto",
        *,
        dtype: Any = None,
        alg: str = "auto",
        p: int = 0,
        ncols_hint: int = 0,
    ) -> None:
        if is_cupy(A) and backend == "auto":
            backend = "cuda"
        self._ctx = context(backend)
        S = to_gcoo(A, dtype)
        self._op = _core.Op(self._ctx, S, alg, p, ncols_hint)
        self._A = A
        self._backend = backend
        self._t_op: Optional[Operator] = None
        self.nnz: int = S.nnz
        super().__init__(dtype=np.dtype(S.dtype), shape=S.shape)

    # ---- products ------------------------------------------------------------------------
    def apply(self, X: Any, out: Any = None, *, alpha: float = 1.0, beta: float = 0.0) -> Any:
        """``out = alpha * A @ X + beta * out``, computed in place; returns out.

        Args:
            X: (n,) or (n, N) array of the operator's dtype (NumPy, or CuPy on the CUDA backend).
            out: (m,) or (m, N) array of the same dtype and memory, or None (a new C-order
                array: NumPy for host X, CuPy for device X).
            alpha, beta: scalars; beta = 0 ignores out's old values (NaN included).

        Raises:
            ShapeError, DTypeError, InvalidArgError: operands that do not fit (nothing is copied).
            Error: any failure of the library, with its message.
        """
        m, n = self.shape
        X = importable(X)
        out = check_operands("Operator.apply", m, n, self.dtype, X, out, beta)
        stream = cuda_stream(X) if on_device(X) else 0
        self._op.apply(self._ctx, X, importable(out), alpha, beta, stream)
        return out

    def dot(self, x: Any) -> Any:
        """``A @ x`` for arrays (1-D or 2-D, NumPy or device), else LinearOperator's product."""
        if is_dense(x):
            return self.apply(x)
        return super().dot(x)

    def _matvec(self, x: Any) -> Any:
        return self.apply(x)

    def _matmat(self, X: Any) -> Any:
        return self.apply(X)

    def _transposed(self) -> "Operator":
        if self._t_op is None:
            self._t_op = Operator(self._A.T, self._backend, dtype=self.dtype)
        return self._t_op

    def _rmatvec(self, x: Any) -> Any:
        return self._transposed().apply(x)

    def _rmatmat(self, X: Any) -> Any:
        return self._transposed().apply(X)

    def _transpose(self) -> "Operator":
        return self._transposed()

    def _adjoint(self) -> "Operator":
        return self._transposed()  # real element types: the adjoint is the transpose

    # ---- what the operator is ----------------------------------------------------------
    @property
    def backend(self) -> str:
        """The backend the operator runs on: "cpu" or "cuda"."""
        return self._ctx.backend

    @property
    def alg(self) -> str:
        """The product algorithm the library chose (or the one forced)."""
        return self._op.alg

    @property
    def setup_seconds(self) -> float:
        """Time the library took to convert and move the matrix."""
        return self._op.setup_seconds

    def __repr__(self) -> str:
        m, n = self.shape
        return (
            f"<gcoo.Operator {m}x{n}, {self.nnz} entries, {self.dtype}, "
            f"backend {self.backend}, alg {self.alg}>"
        )


def spmm(
    A: Any,
    X: Any,
    out: Any = None,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    backend: Optional[str] = "auto",
    alg: str = "auto",
) -> Any:
    """Sparse x dense product ``out = alpha * A @ X + beta * out`` (the library's gcoo_spdm).

    A one-shot product: an :class:`Operator` is made for A, applied once and freed. To multiply
    by the same matrix again, make the Operator once and apply it (the conversion to GCOO and the
    move to the device are then paid once). A may also be an Operator.

    Args:
        A: scipy.sparse matrix or array (CSR, CSC, COO), float32 or float64, or an Operator.
        X: (n,) or (n, N) array of A's dtype, NumPy (or CuPy on the CUDA backend); row-major
            operands take the GCOO kernel, column-major ones are read in place by another path.
        out: (m,) or (m, N) array to write, or None (a new C-order array).
        alpha, beta: scalars; beta = 0 ignores out's old values.
        backend: "cpu", "cuda", "auto" or None, as for Operator.
        alg: the product algorithm, as for Operator.

    Returns:
        out.

    Raises:
        ShapeError, DTypeError, InvalidArgError: operands that do not fit; nothing is copied
        or converted implicitly. Error: a failure of the library, with its message.
    """
    if isinstance(A, Operator):
        return A.apply(X, out, alpha=alpha, beta=beta)
    hint = int(X.shape[1]) if getattr(X, "ndim", 0) == 2 else 1
    return Operator(A, backend, alg=alg, ncols_hint=hint).apply(X, out, alpha=alpha, beta=beta)
