# SPDX-License-Identifier: MIT
"""Linear solvers: :class:`Solver` (set up once, solve many times) and :func:`solve`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from . import _core
from ._convert import cuda_stream, importable, on_device
from ._dist import Dist, DistOperator
from ._errors import InvalidArgError, ShapeError
from ._operator import check_operands

#: the Krylov methods and preconditioners this build of gcoo offers
METHODS: dict = dict(_core.solver_names)


@dataclass(frozen=True)
class SolveInfo:
    """What a solve did.

    Attributes:
        converged: every right-hand side met rtol.
        reason: why it stopped: "converged" or "max_iterations".
        iterations: iterations performed (block iterations for several right-hand sides).
        residuals: per right-hand side, ``||b_j - A x_j|| / ||b_j||`` recomputed at the end.
        column_iterations: per right-hand side, the iteration at which it met rtol (-1: never).
        residual_history: (iterations + 1) x k relative residuals of every iteration (recursive
            residuals), when the solver was made with ``history=True``; else None.
        ksp, pc: the method and preconditioner.
        setup_seconds, solve_seconds: time before the first iteration, and in the iterations.
    """

    converged: bool
    reason: str
    iterations: int
    residuals: np.ndarray
    column_iterations: np.ndarray
    residual_history: Optional[np.ndarray]
    ksp: str
    pc: str
    setup_seconds: float
    solve_seconds: float


class Solver:
    """A linear solver for ``A X = B``: made once on A, then used for many right-hand sides.

    Args:
        A: a square scipy.sparse matrix (CSR/CSC/COO, float32 or float64), solved on this
            process alone; or a :class:`DistOperator` made with ``x="partitioned"``, solved by
            all of its ranks together (each passes its rows of B and gets its rows of X).
        ksp: the Krylov method. This build: "cg" (conjugate gradients, for symmetric positive
            definite A; k right-hand sides are solved as one block, breakdown-free block CG).
        pc: the preconditioner: "jacobi" (the inverse of A's diagonal) or "none".
        rtol: stop a right-hand side when ``||b - A x|| <= rtol ||b||``.
        maxiter: iteration limit (None: 10 n, as scipy).
        backend: for a scipy A, "cpu", "cuda", "auto" or None, as for Operator.
        history: keep every iteration's residuals (``SolveInfo.residual_history``).
        dtype: for a scipy A, the element type (None: A's).

    ``gcoo.Solver.methods`` lists the methods and preconditioners of this build.
    """

    methods = METHODS

    def __init__(
        self,
        A: Any,
        ksp: str = "cg",
        pc: str = "jacobi",
        *,
        rtol: float = 1e-8,
        maxiter: Optional[int] = None,
        backend: Optional[str] = "auto",
        history: bool = False,
        dtype: Any = None,
    ) -> None:
        if isinstance(A, DistOperator):
            if A.x != "partitioned":
                raise InvalidArgError("a solver needs a DistOperator made with x='partitioned'")
            self._dist: Optional[Dist] = None
            self.operator = A
        else:
            if len(A.shape) != 2 or A.shape[0] != A.shape[1]:
                raise ShapeError(f"a square matrix is needed, not {A.shape[0]}x{A.shape[1]}")
            self._dist = Dist("self", backend)  # this process alone
            self.operator = self._dist.operator(A, x="partitioned", dtype=dtype)
        m = self.operator.shape[0]
        self.ksp, self.pc, self.rtol = ksp, pc, rtol
        self.maxiter = int(maxiter) if maxiter is not None else max(10 * m, 1)
        self._solver = _core.Solver(self.operator._op, ksp, pc, rtol, self.maxiter, history)
        self.shape, self.dtype = self.operator.shape, self.operator.dtype

    def solve(self, B: Any, x0: Any = None, out: Any = None) -> tuple[Any, SolveInfo]:
        """Solve ``A X = B``; returns ``(X, info)``.

        Args:
            B: (n,) or (n, k) right-hand sides (this rank's rows for a DistOperator), of the
                solver's dtype, row-major (C order), NumPy (or CuPy on the CUDA backend).
            x0: initial guess of B's shape (None: zeros).
            out: array of B's shape, dtype and layout to receive X (None: a new one); without
                x0 its content is overwritten with zeros first.

        Not converging is not an error: ``info.converged`` is False and ``info.reason`` is
        "max_iterations" (scipy's convention); a breakdown raises BreakdownError.
        Collective for a DistOperator.
        """
        n = self.operator.nrows_local
        B = importable(B)
        X = check_operands("Solver.solve", n, n, self.dtype, B, out, 0.0)
        if x0 is None:
            X[...] = 0
        else:
            if tuple(x0.shape) != tuple(B.shape):
                raise ShapeError(f"x0 has shape {tuple(x0.shape)}, B {tuple(B.shape)}")
            X[...] = x0
        r = self._solver.solve(B, importable(X), cuda_stream(B) if on_device(B) else 0)
        k = 1 if B.ndim == 1 else int(B.shape[1])
        hist = r["history"]
        info = SolveInfo(
            converged=bool(r["converged"]),
            reason="converged" if r["status"] == "GCOO_SUCCESS" else "max_iterations",
            iterations=int(r["iterations"]),
            residuals=r["residuals"],
            column_iterations=r["column_iterations"].astype(np.int64),
            residual_history=None if hist is None else hist.reshape(-1, k),
            ksp=self.ksp,
            pc=self.pc,
            setup_seconds=float(r["setup_seconds"]),
            solve_seconds=float(r["iterate_seconds"]),
        )
        return X, info

    def close(self) -> None:
        """Free what the solver made (its operator and, for a scipy A, its context)."""
        if self._dist is not None:
            self._dist.close()

    def __repr__(self) -> str:
        return (f"<gcoo.Solver {self.shape[0]}x{self.shape[1]} {self.dtype}, ksp {self.ksp}, "
                f"pc {self.pc}, rtol {self.rtol:g}>")


def solve(
    A: Any,
    B: Any,
    ksp: str = "cg",
    pc: str = "jacobi",
    *,
    rtol: float = 1e-8,
    maxiter: Optional[int] = None,
    x0: Any = None,
    backend: Optional[str] = "auto",
    history: bool = False,
) -> tuple[Any, SolveInfo]:
    """Solve ``A X = B`` once; returns ``(X, info)``. See :class:`Solver` for the arguments
    (to solve with the same A again, make a Solver once and call its ``solve``)."""
    s = Solver(A, ksp, pc, rtol=rtol, maxiter=maxiter, backend=backend, history=history)
    try:
        return s.solve(B, x0=x0)
    finally:
        s.close()
