# SPDX-License-Identifier: MIT
"""Sparse x sparse products: :func:`spgemm` and :func:`predict_nnz`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from . import _core
from ._context import context
from ._convert import is_cupy, like, to_gcoo
from ._errors import ShapeError


def _inner(A: Any, B: Any) -> None:
    if A.shape[1] != B.shape[0]:
        raise ShapeError(f"A is {A.shape[0]}x{A.shape[1]}, B {B.shape[0]}x{B.shape[1]}: "
                         "A's columns must equal B's rows")


def _pair(A: Any, B: Any, dtype: Any) -> tuple[_core.Sparse, _core.Sparse]:
    _inner(A, B)
    a = to_gcoo(A, dtype)
    return a, (a if B is A else to_gcoo(B, dtype))


def spgemm(
    A: Any,
    B: Any,
    *,
    backend: Optional[str] = "auto",
    alg: str = "auto",
    method: str = "adaptive",
    dtype: Any = None,
    return_info: bool = False,
) -> Any:
    """Sparse x sparse product ``C = A @ B`` (the library's gcoo_spgemm).

    The output is preallocated from the predicted number of nonzeros (the sampled predictor of
    :func:`predict_nnz`); a row that turns out larger than its space is detected and recomputed,
    so the result is always exact. C is structural: entries whose products cancel to 0.0 are
    kept (as cuSPARSE does; scipy's ``A @ B`` drops them, so its nnz may be smaller). Columns
    are sorted in every row, without duplicates.
    Values accumulate in the element type of A and B, which must agree. Backends: the CPU
    (OpenMP, one hash accumulator a row) and CUDA (rows binned by their products).

    Args:
        A, B: scipy.sparse matrices or arrays (CSR, CSC or COO; or CuPy sparse matrices), of
            one element type, float32 or float64, with A.shape[1] == B.shape[0].
        backend: "cpu", "cuda", "auto" (CUDA when a GPU is usable) or None ($GCOO_BACKEND).
        alg: "auto", "gcoo" (predicted allocation, overflow recovery), or on the GPU
            "cusparse_alg1", "cusparse_alg2", "cusparse_alg3" for comparison.
        method: how the output size is predicted (see predict_nnz), "adaptive" by default.
        dtype: convert both operands to this element type first (None: keep theirs).
        return_info: also return what the product reported (algorithm, FLOP, nnz, predicted
            nnz, rows recomputed, seconds, peak bytes).

    Returns:
        C, of A's kind: a scipy matrix for a matrix, a sparse array for an array, in A's format
        (CSR, CSC or COO), or a CuPy matrix for a CuPy one; for CSR its data and indices are
        the library's own arrays (no copy); ``(C, info)`` with return_info.

    Raises:
        ShapeError: inner dimensions that differ. DTypeError: element types that differ or are
        not float32/float64. Error: any failure of the library, with its message.
    """
    ctx = context("cuda" if backend == "auto" and is_cupy(A) else backend)
    if getattr(A, "format", None) == "csc" and getattr(B, "format", None) == "csc":
        # A and B in CSC are A^T and B^T in CSR: C^T = B^T A^T in CSR is C in CSC, with no
        # conversion of either operand or of the result
        _inner(A, B)
        at = to_gcoo(A.T, dtype)
        bt = at if B is A else to_gcoo(B.T, dtype)
        Ct, info = _core.spgemm(ctx, bt, at, alg, method)
        C = like(A, Ct, transposed=True)
    else:
        a, b = _pair(A, B, dtype)
        Cc, info = _core.spgemm(ctx, a, b, alg, method)
        C = like(A, Cc)
    return (C, info) if return_info else C


@dataclass(frozen=True)
class Prediction:
    """What :func:`predict_nnz` found for ``C = A @ B``.

    Attributes:
        nnz: the predicted number of nonzeros of C (rounded, inside the exact bounds).
        estimate: the same before rounding.
        method: the method that ran.
        flop: F, the exact number of products (sum over rows of A of the B rows they touch).
        nnz_lower, nnz_upper: exact bounds on nnz(C).
        compression_ratio: F / nnz.
        rel_stderr: estimated relative standard error of the estimate (0 when exact, NaN when
            the method gives none).
        exact: every row with any uncertainty was counted.
        rows_counted, flop_counted: the sample's rows and their FLOP (the cost of sampling).
        seconds: time of the prediction.
        row_nnz: predicted size of every row of C (with ``row_nnz=True``), else None.
    """

    nnz: int
    estimate: float
    method: str
    flop: int
    nnz_lower: int
    nnz_upper: int
    compression_ratio: float
    rel_stderr: float
    exact: bool
    rows_counted: int
    flop_counted: int
    seconds: float
    row_nnz: Optional[np.ndarray] = None

    def __int__(self) -> int:
        return self.nnz


def predict_nnz(
    A: Any,
    B: Any,
    method: str = "adaptive",
    *,
    samples: int = 0,
    seed: Optional[int] = None,
    rel_error: float = 0.0,
    max_cost: float = 0.0,
    row_nnz: bool = False,
) -> Prediction:
    """Predict the number of nonzeros of ``C = A @ B`` without computing it (gcoo_predict).

    The exact FLOP of every row of C is computed, with exact bounds on each row's size; the
    unknown part is estimated from rows sampled at random and counted exactly with a hash
    table. Only the patterns of A and B are read. Methods:

    - "adaptive" (the default): bounds plus a sample drawn with probability proportional to
      each row's uncertainty, doubled until the estimated relative standard error is at most
      ``rel_error`` (default 0.003) or the sampled FLOP would exceed ``max_cost`` of F
      (default 0.10). Unbiased.
    - "paper": Du et al.'s sampled compression ratio, nnz = F z* / f* on a uniform sample of
      min(0.003 M, 300) rows; "reference": their reference design, z* M / s.
    - "pps": rows drawn proportional to their FLOP (Hansen-Hurwitz); "classes": the per-class
      sample the GPU SpGEMM uses; "upper": the FLOP upper bound; "exact": every row counted.

    Args:
        A, B: scipy.sparse matrices or arrays (CSR, CSC, COO), A.shape[1] == B.shape[0]; their
            element types need not agree (values are not read), but must be float32/float64.
        method: one of the names above.
        samples: first sample size ("adaptive") or rows drawn ("paper", "reference", "pps");
            0: the method's default.
        seed: sampling seed (None: the library's default; the same seed gives the same answer
            on every machine).
        rel_error, max_cost: targets of "adaptive" (0: defaults).
        row_nnz: also return the predicted size of every row.

    Returns:
        A :class:`Prediction` (``int(pred)`` is the predicted nnz).
    """
    a, b = _pair(A, B, None)
    kw = {} if seed is None else {"seed": seed}
    r = _core.predict(a, b, method, samples, rel_error=rel_error, max_cost=max_cost,
                      row_nnz=row_nnz, **kw)
    return Prediction(**r)
