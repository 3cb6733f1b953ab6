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
from ._mpi import track
from ._operator import check_operands

#: the Krylov methods and preconditioners of the library, as it names them
METHODS: dict = {k: list(v) for k, v in _core.solver_names.items()}


@dataclass(frozen=True)
class SolveInfo:
    """What a solve did.

    Attributes:
        converged: every right-hand side converged.
        reason: why the solve stopped, as the library names it: "converged_rtol",
            "converged_atol", "converged_preonly", or, when some column did not converge, that
            column's "diverged_its" (the iteration limit), "diverged_dtol", "diverged_breakdown",
            "diverged_indefinite" (CG on a matrix that is not SPD), "diverged_nanorinf",
            "diverged_stagnation".
        column_reasons: the reason of every right-hand side.
        iterations: iterations of the right-hand side that took the most (block iterations for
            block CG).
        residuals: per right-hand side, ``||b_j - A x_j|| / ||b_j||`` recomputed at the end.
        column_iterations: per right-hand side, the iteration at which it stopped.
        residual_history: (iterations + 1) x k relative residuals as the method tracked them,
            when the solver was made with ``history=True``; else None.
        solver: the method and preconditioner ("gmres(30) + jacobi").
        setup_seconds: set-up this solve paid (0 when the solver was set up before).
        solve_seconds: from the first iteration to the answer.
    """

    converged: bool
    reason: str
    column_reasons: list
    iterations: int
    residuals: np.ndarray
    column_iterations: np.ndarray
    residual_history: Optional[np.ndarray]
    solver: str
    setup_seconds: float
    solve_seconds: float


class Solver:
    """A linear solver for ``A X = B`` (the library's gcoo_ksp): made and set up once on A, then
    used for many right-hand sides, k at a time.

    Args:
        A: a square scipy.sparse matrix (CSR/CSC/COO, float32 or float64), solved on this
            process alone; or a :class:`DistOperator` made with ``x="partitioned"``, solved by
            all of its ranks together (each passes its rows of B and gets its rows of X).
        ksp: the Krylov method: "cg" (symmetric positive definite A; block CG for k > 1),
            "pipecg" (pipelined CG, one overlapped reduction an iteration), "gmres" (restarted,
            right preconditioning), "fgmres" (flexible, for preconditioners that vary),
            "bicgstab", or "preonly" (X = M^-1 B). ``Solver.methods`` lists this build's.
        pc: the preconditioner: "jacobi" (the inverse of A's diagonal), "none", "amg" or "lu"
            where this build has them.
        rtol, atol: stop a right-hand side when ``||b - A x|| <= max(rtol ||b||, atol)``.
        maxiter: iteration limit (None: 10 n, as scipy; GMRES counts inner iterations).
        restart: GMRES's and FGMRES's Krylov dimension m (None: the library's, 30).
        options: further options as a string of PETSc-like names, applied last (they win), e.g.
            "-ksp_type gmres -ksp_gmres_restart 50 -pc_type amg -pc_amg_theta 0.05".
        backend: for a scipy A, "cpu", "cuda", "auto" or None, as for Operator.
        history: keep every iteration's residuals (``SolveInfo.residual_history``).
        dtype: for a scipy A, the element type (None: A's).

    The preconditioner is built here (gcoo_ksp_setup), once; ``setup_seconds`` says how long it
    took. Collective for a DistOperator; close it (``close()``, or a ``with`` block) before the
    operator, or leave it to exit.
    """

    methods = METHODS

    def __init__(
        self,
        A: Any,
        ksp: str = "cg",
        pc: str = "jacobi",
        *,
        rtol: float = 1e-8,
        atol: float = 0.0,
        maxiter: Optional[int] = None,
        restart: Optional[int] = None,
        options: Optional[str] = None,
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
        self.maxiter = int(maxiter) if maxiter is not None else max(10 * m, 1)
        self._solver = _core.Solver(self.operator._op, ksp, pc, rtol, atol, self.maxiter,
                                    int(restart or 0), history, options or "")
        self.operator._solvers.add(self)
        track(self)
        lib0 = _core.library_seconds()
        self._solver.setup()
        self.setup_seconds: float = _core.library_seconds() - lib0
        self.shape, self.dtype = self.operator.shape, self.operator.dtype

    @property
    def description(self) -> str:
        """The method and preconditioner, as the library describes them ("gmres(30) + jacobi")."""
        return self._solver.describe()

    def solve(self, B: Any, x0: Any = None, out: Any = None) -> tuple[Any, SolveInfo]:
        """Solve ``A X = B``; returns ``(X, info)``.

        Args:
            B: (n,) or (n, k) right-hand sides (this rank's rows for a DistOperator), of the
                solver's dtype, row-major (C order), NumPy (or CuPy on the CUDA backend).
            x0: initial guess of B's shape (None: zeros).
            out: array of B's shape and dtype, row-major, to receive X (None: a new one).

        Not converging is not an error (scipy's convention): ``info.converged`` is False and
        ``info.reason`` says why. Collective for a DistOperator.
        """
        n = self.operator.nrows_local
        B = importable(B)
        X = check_operands("Solver.solve", n, n, self.dtype, B, out, 0.0)
        if x0 is not None:
            if tuple(x0.shape) != tuple(B.shape):
                raise ShapeError(f"x0 has shape {tuple(x0.shape)}, B {tuple(B.shape)}")
            X[...] = x0
        stream = cuda_stream(B) if on_device(B) else 0
        r = self._solver.solve(B, importable(X), x0 is not None, stream)
        k = 1 if B.ndim == 1 else int(B.shape[1])
        hist = r["history"]
        info = SolveInfo(
            converged=bool(r["converged"]),
            reason=str(r["reason"]),
            column_reasons=list(r["column_reasons"]),
            iterations=int(r["iterations"]),
            residuals=r["residuals"],
            column_iterations=r["column_iterations"].astype(np.int64),
            residual_history=None if hist is None else hist.reshape(-1, k),
            solver=self.description,
            setup_seconds=float(r["setup_seconds"]),
            solve_seconds=float(r["solve_seconds"]),
        )
        return X, info

    def close(self) -> None:
        """Free the solver (and, for a scipy A, the operator and context it made). Collective."""
        self.operator._solvers.discard(self)
        self._solver.close()
        if self._dist is not None:
            dist, self._dist = self._dist, None
            dist.close()

    def __enter__(self) -> "Solver":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<gcoo.Solver {self.shape[0]}x{self.shape[1]} {self.dtype}, {self.description}>"


def solve(
    A: Any,
    B: Any,
    ksp: str = "cg",
    pc: str = "jacobi",
    *,
    rtol: float = 1e-8,
    atol: float = 0.0,
    maxiter: Optional[int] = None,
    restart: Optional[int] = None,
    options: Optional[str] = None,
    x0: Any = None,
    backend: Optional[str] = "auto",
    history: bool = False,
) -> tuple[Any, SolveInfo]:
    """Solve ``A X = B`` once; returns ``(X, info)``. The arguments are :class:`Solver`'s and
    its ``solve``'s; to solve with the same A again, make a Solver once (its preconditioner is
    then built once) and call its ``solve``."""
    with Solver(A, ksp, pc, rtol=rtol, atol=atol, maxiter=maxiter, restart=restart,
                options=options, backend=backend, history=history) as s:
        return s.solve(B, x0=x0)
