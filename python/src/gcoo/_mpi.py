# SPDX-License-Identifier: MIT
"""MPI for gcoo's distributed objects, with or without mpi4py.

A program that uses mpi4py has MPI initialised by it (``from mpi4py import MPI``) and passes its
communicators to :class:`gcoo.Dist`. A program without mpi4py still runs, on one process or under
``mpirun``: gcoo initialises MPI itself the first time a distributed object needs it
(``MPI_Init_thread`` with ``MPI_THREAD_MULTIPLE``, as mpi4py does) and finalises it when Python
exits, after closing every distributed object still open. Distributed objects must be closed
before MPI is finalised; ones left for the end are closed at exit, the newest first.
"""
from __future__ import annotations

import atexit
import weakref
from typing import Any

from . import _core
from ._errors import UnsupportedError

_open: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()
_serial = 0


def require_mpi(what: str) -> None:
    """Initialise MPI unless something already did; UnsupportedError if gcoo has no MPI."""
    if not _core.have_mpi:
        raise UnsupportedError(f"{what} needs gcoo built with MPI (this build has none)")
    if not _core.mpi_initialized():
        _core.mpi_init()


def comm_handle(comm: Any) -> tuple[str, int]:
    """('world' | 'self' | 'fortran', handle) for None, "world", "self" or an mpi4py
    communicator (passed by its Fortran handle, which every MPI converts back)."""
    if comm is None or comm == "world":
        return "world", 0
    if comm == "self":
        return "self", 0
    py2f = getattr(comm, "py2f", None)
    if py2f is None:
        raise TypeError(f"comm must be an mpi4py communicator, 'world' or 'self', not {comm!r}")
    return "fortran", int(py2f())


def track(obj: Any) -> None:
    """Remember an open distributed object, to close it at exit before MPI is finalised."""
    global _serial
    _serial += 1
    _open[_serial] = obj


@atexit.register
def _close_all() -> None:
    # newest first: operators before the contexts they were made on
    for key in sorted(_open.keys(), reverse=True):
        obj = _open.get(key)
        if obj is not None:
            obj.close()
    if _core.have_mpi:
        _core.mpi_finalize()  # only if gcoo initialised MPI
