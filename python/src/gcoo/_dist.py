# SPDX-License-Identifier: MIT
"""Distributed use: :class:`Dist` (the ranks of a communicator) and :class:`DistOperator`."""
from __future__ import annotations

import weakref
from typing import Any, Optional

import numpy as np

from . import _core
from ._convert import cuda_stream, dtype_name, importable, on_device, to_gcoo
from ._mpi import comm_handle, require_mpi, track
from ._operator import check_operands


class Dist:
    """The ranks of an MPI communicator, each with its backend (gcoo_dist_create).

    Args:
        comm: an mpi4py communicator, or None / "world" (MPI_COMM_WORLD), or "self"
            (MPI_COMM_SELF). gcoo works on its own duplicate of it. Without mpi4py, gcoo
            initialises MPI itself.
        backend: "cpu", "cuda" (each rank takes the GPU of its node-local rank; distinct GPUs
            checked), "auto" (CUDA when every rank sees a GPU, else the CPU everywhere) or None
            ($GCOO_BACKEND).

    Collective: every rank of comm makes it, and closes it (``close()``, a ``with`` block, or
    at exit). Errors are agreed across ranks: when one rank fails, every rank raises, the
    others with ``RemoteError`` carrying the failing rank's message.
    """

    def __init__(self, comm: Any = None, backend: Optional[str] = "auto") -> None:
        require_mpi("gcoo.Dist")
        which, handle = comm_handle(comm)
        self.comm = comm
        self._d = _core.Dist(which, handle, backend)
        self._ops: "weakref.WeakSet[DistOperator]" = weakref.WeakSet()
        track(self)

    @property
    def rank(self) -> int:
        """This process's rank in the communicator."""
        return self._d.rank

    @property
    def size(self) -> int:
        """The number of ranks."""
        return self._d.size

    @property
    def backend(self) -> str:
        """"cpu" or "cuda"."""
        return self._d.backend

    def operator(
        self,
        A_rows: Any,
        *,
        row0: Optional[int] = None,
        nrows: Optional[int] = None,
        x: str = "replicated",
        dtype: Any = None,
        alg: str = "auto",
    ) -> "DistOperator":
        """A distributed operator from this rank's rows of A (gcoo_dist_op_create).

        Args:
            A_rows: this rank's rows [row0, row0 + A_rows.shape[0]) of A, all of its columns (a
                scipy.sparse matrix or array, CSR/CSC/COO). Ranks' slabs tile A's rows in rank
                order; a rank may hold none (a 0 x k matrix).
            row0, nrows: the slab's first row and A's rows in all; None: from the ranks' slab
                sizes (an exclusive scan over ranks).
            x: "replicated" (every rank passes all of X to apply) or "partitioned" (square A:
                each rank passes its rows of X, alike A's; what a solver needs).
            dtype: element type (None: A_rows's), alg: the local product algorithm.

        Collective.
        """
        S = to_gcoo(A_rows, dtype)
        local = int(S.shape[0])
        if row0 is None or nrows is None:
            before, total = self._d.exscan(local)
            row0 = before if row0 is None else row0
            nrows = total if nrows is None else nrows
        return DistOperator(self, _core.DistOp.from_rows(self._d, S, row0, nrows, x, alg))

    def operator_from_file(
        self, path: str, *, dtype: Any = "float64", x: str = "replicated", alg: str = "auto"
    ) -> "DistOperator":
        """A distributed operator read from a file, partitioned by nnz over the ranks
        (gcoo_dist_op_create_from_file).

        Args:
            path: an HDF5 object "file.h5" or "file.h5:/group" (scipy/h5py/anndata CSR or CSC
                groups, gcoo's GCOO groups): each rank reads only its slab, in parallel through
                MPI-IO; or a Matrix Market file (.mtx, .mtx.gz), read on rank 0 and scattered.
            dtype: the operator's element type (the file's values are converted).
            x, alg: as for :meth:`operator`.

        Collective.
        """
        op = _core.DistOp.from_file(self._d, str(path), dtype_name(dtype), x, alg)
        return DistOperator(self, op)

    def gather(self, Y_local: Any, root: Optional[int] = 0) -> Optional[np.ndarray]:
        """The ranks' row slabs stacked in rank order, on ``root`` (None: on every rank); the
        other ranks get None. Y_local: this rank's rows (host, row-major or column-major).
        Collective (gcoo_dist_gather_rows)."""
        Y_local = np.asarray(Y_local) if not on_device(Y_local) else Y_local
        _, total = self._d.exscan(int(Y_local.shape[0]))
        receive = root is None or root == self.rank
        full = None
        if receive:
            shape = (total,) + tuple(Y_local.shape[1:])
            full = np.empty(shape, dtype=Y_local.dtype, order="F" if _col_major(Y_local) else "C")
        self._d.gather_rows(Y_local, -1 if root is None else root, full)
        return full

    def close(self) -> None:
        """Free the distributed context (its operators first). Collective."""
        for op in list(self._ops):
            op.close()
        self._d.close()

    def __enter__(self) -> "Dist":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<gcoo.Dist rank {self.rank} of {self.size}, backend {self.backend}>"


def _col_major(a: Any) -> bool:
    return a.ndim == 2 and a.shape[1] > 1 and not a.flags.c_contiguous and a.flags.f_contiguous


class DistOperator:
    """This rank's slab of rows of a distributed sparse matrix A (m x k), as an operator.

    ``apply(X)`` returns this rank's rows of ``A @ X``: X is all of X (k x N) when the operator
    was made with x="replicated", this rank's rows of X when x="partitioned". Made by
    :meth:`Dist.operator` and :meth:`Dist.operator_from_file`; a :class:`gcoo.Solver` solves
    with one made with x="partitioned".

    Attributes:
        shape: (m, k) of the whole matrix A.
        dtype: the element type.
        row0, nrows_local: this rank's rows [row0, row0 + nrows_local).
    """

    def __init__(self, dist: Dist, op: Any) -> None:
        self.dist = dist
        self._op = op
        info = op.info()
        self.shape = (int(info["m_global"]), int(info["k"]))
        self.dtype = np.dtype(info["dtype"])
        self.row0 = int(info["row0"])
        self.nrows_local = int(info["nrows_local"])
        self.x = str(info["x"])
        self._solvers: "weakref.WeakSet[Any]" = weakref.WeakSet()  # closed before the operator
        dist._ops.add(self)
        track(self)

    @property
    def info(self) -> dict:
        """What the library reports of this rank's part (nnz, imbalance, halo, times)."""
        return self._op.info()

    def apply(self, X: Any, out: Any = None, *, alpha: float = 1.0, beta: float = 0.0) -> Any:
        """This rank's rows of ``alpha * A @ X + beta * out``, in place. Collective.

        X: all of X (k x N or k) for x="replicated", this rank's rows for x="partitioned";
        out: (nrows_local x N or nrows_local), or None. Same rules as Operator.apply: the
        operator's dtype, arrays read and written in place, nothing copied.
        """
        n_in = self.shape[1] if self.x == "replicated" else self.nrows_local
        X = importable(X)
        out = check_operands("DistOperator.apply", self.nrows_local, n_in, self.dtype, X, out, beta)
        self._op.apply(X, importable(out), alpha, beta, cuda_stream(X) if on_device(X) else 0)
        return out

    def __matmul__(self, X: Any) -> Any:
        return self.apply(X)

    def local_matrix(self) -> Any:
        """This rank's rows of A as a scipy CSR matrix (global column indices), for checks."""
        from ._convert import like
        import scipy.sparse as sp

        return like(sp.csr_matrix((0, 0)), self._op.local_matrix())

    def close(self) -> None:
        """Free the operator, and the solvers made on it first (collective if there are any)."""
        for s in list(self._solvers):
            s.close()
        self._op.close()

    def __repr__(self) -> str:
        m, k = self.shape
        return (f"<gcoo.DistOperator {m}x{k} {self.dtype}, rows {self.row0}.."
                f"{self.row0 + self.nrows_local} of rank {self.dist.rank}, X {self.x}>")
