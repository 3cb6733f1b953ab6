# SPDX-License-Identifier: MIT
"""gcoo's errors as Python exceptions.

Every failing gcoo call raises :class:`Error`, or the subclass of its status (``ShapeError`` for
``GCOO_ERR_SHAPE``, ...), with gcoo's own message (``gcoo_last_error()``: what went wrong, where
it was detected and the call chain that carried it back). Each subclass is also the built-in
exception a Python caller would expect (``ShapeError`` is a ``ValueError``, ``DTypeError`` a
``TypeError``, ``NoMemoryError`` a ``MemoryError``, ...), so ``except ValueError`` works too.
Arguments refused by the package before the library is called raise the same classes.
"""
from __future__ import annotations

from . import _core

# the library's own table: status name -> (value, description)
_STATUSES: dict[str, tuple[int, str]] = dict(_core.statuses)


def _value(name: str) -> int:
    return _STATUSES[name][0]


class Error(Exception):
    """A gcoo error status, raised with gcoo's message.

    Attributes:
        status: the ``gcoo_status`` value (negative).
        status_name: its name in ``gcoo/types.h`` (``"GCOO_ERR_SHAPE"``).
        message: gcoo's message for this failure.
    """

    status: int = _value("GCOO_ERR_INTERNAL")
    status_name: str = "GCOO_ERR_INTERNAL"

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"{message} [{self.status_name}]")


class NullError(Error, ValueError):
    """GCOO_ERR_NULL: a required argument is missing."""

    status = _value("GCOO_ERR_NULL")
    status_name = "GCOO_ERR_NULL"


class InvalidObjectError(Error, ValueError):
    """GCOO_ERR_INVALID_OBJECT: a handle that is closed, freed or of another kind."""

    status = _value("GCOO_ERR_INVALID_OBJECT")
    status_name = "GCOO_ERR_INVALID_OBJECT"


class InvalidArgError(Error, ValueError):
    """GCOO_ERR_INVALID_ARG: an argument outside its documented range."""

    status = _value("GCOO_ERR_INVALID_ARG")
    status_name = "GCOO_ERR_INVALID_ARG"


class ShapeError(Error, ValueError):
    """GCOO_ERR_SHAPE: dimensions that do not agree."""

    status = _value("GCOO_ERR_SHAPE")
    status_name = "GCOO_ERR_SHAPE"


class DTypeError(Error, TypeError):
    """GCOO_ERR_DTYPE: element types that do not agree, or not float32/float64."""

    status = _value("GCOO_ERR_DTYPE")
    status_name = "GCOO_ERR_DTYPE"


class UnsupportedError(Error, NotImplementedError):
    """GCOO_ERR_UNSUPPORTED: a valid request this build or backend cannot serve."""

    status = _value("GCOO_ERR_UNSUPPORTED")
    status_name = "GCOO_ERR_UNSUPPORTED"


class TooLargeError(Error, ValueError):
    """GCOO_ERR_TOO_LARGE: a size past what the index types can hold."""

    status = _value("GCOO_ERR_TOO_LARGE")
    status_name = "GCOO_ERR_TOO_LARGE"


class IndexRangeError(Error, ValueError):
    """GCOO_ERR_INDEX_RANGE: an index outside the matrix."""

    status = _value("GCOO_ERR_INDEX_RANGE")
    status_name = "GCOO_ERR_INDEX_RANGE"


class UnsortedError(Error, ValueError):
    """GCOO_ERR_UNSORTED: entries not in the order a format requires."""

    status = _value("GCOO_ERR_UNSORTED")
    status_name = "GCOO_ERR_UNSORTED"


class DuplicateError(Error, ValueError):
    """GCOO_ERR_DUPLICATE: a repeated (row, column) where duplicates were refused."""

    status = _value("GCOO_ERR_DUPLICATE")
    status_name = "GCOO_ERR_DUPLICATE"


class NotFiniteError(Error, ValueError):
    """GCOO_ERR_NOT_FINITE: a NaN or infinity where finite values were required."""

    status = _value("GCOO_ERR_NOT_FINITE")
    status_name = "GCOO_ERR_NOT_FINITE"


class FormatError(Error, ValueError):
    """GCOO_ERR_FORMAT: a malformed file or object."""

    status = _value("GCOO_ERR_FORMAT")
    status_name = "GCOO_ERR_FORMAT"


class ExistsError(Error, FileExistsError):
    """GCOO_ERR_EXISTS: an output exists and may not be replaced."""

    status = _value("GCOO_ERR_EXISTS")
    status_name = "GCOO_ERR_EXISTS"


class NoMemoryError(Error, MemoryError):
    """GCOO_ERR_NO_MEMORY: host or device allocation failed, or a budget was exceeded."""

    status = _value("GCOO_ERR_NO_MEMORY")
    status_name = "GCOO_ERR_NO_MEMORY"


class FileError(Error, OSError):
    """GCOO_ERR_IO: a file could not be opened, read, written or renamed."""

    status = _value("GCOO_ERR_IO")
    status_name = "GCOO_ERR_IO"


class CudaError(Error, RuntimeError):
    """GCOO_ERR_CUDA: CUDA runtime failure."""

    status = _value("GCOO_ERR_CUDA")
    status_name = "GCOO_ERR_CUDA"


class CusparseError(Error, RuntimeError):
    """GCOO_ERR_CUSPARSE: cuSPARSE failure."""

    status = _value("GCOO_ERR_CUSPARSE")
    status_name = "GCOO_ERR_CUSPARSE"


class CublasError(Error, RuntimeError):
    """GCOO_ERR_CUBLAS: cuBLAS failure, or cuBLAS could not be loaded."""

    status = _value("GCOO_ERR_CUBLAS")
    status_name = "GCOO_ERR_CUBLAS"


class NoDeviceError(Error, RuntimeError):
    """GCOO_ERR_NO_DEVICE: the CUDA backend was asked for and no usable GPU exists."""

    status = _value("GCOO_ERR_NO_DEVICE")
    status_name = "GCOO_ERR_NO_DEVICE"


class MPIError(Error, RuntimeError):
    """GCOO_ERR_MPI: MPI failure."""

    status = _value("GCOO_ERR_MPI")
    status_name = "GCOO_ERR_MPI"


class NCCLError(Error, RuntimeError):
    """GCOO_ERR_NCCL: NCCL failure."""

    status = _value("GCOO_ERR_NCCL")
    status_name = "GCOO_ERR_NCCL"


class HDF5Error(Error, RuntimeError):
    """GCOO_ERR_HDF5: HDF5 failure."""

    status = _value("GCOO_ERR_HDF5")
    status_name = "GCOO_ERR_HDF5"


class RemoteError(Error, RuntimeError):
    """GCOO_ERR_REMOTE: another rank failed; the message is that rank's."""

    status = _value("GCOO_ERR_REMOTE")
    status_name = "GCOO_ERR_REMOTE"


class BreakdownError(Error, ArithmeticError):
    """GCOO_ERR_BREAKDOWN: a solver met a breakdown it could not recover from."""

    status = _value("GCOO_ERR_BREAKDOWN")
    status_name = "GCOO_ERR_BREAKDOWN"


class InternalError(Error, RuntimeError):
    """GCOO_ERR_INTERNAL: a bug in gcoo: please report it with the message."""

    status = _value("GCOO_ERR_INTERNAL")
    status_name = "GCOO_ERR_INTERNAL"


_BY_STATUS: dict[int, type[Error]] = {
    c.status: c for c in Error.__subclasses__()  # every class above, keyed by its status
}


def error_class(status: int | str) -> type[Error]:
    """The exception class of a status, given as its value or its name."""
    if isinstance(status, str):
        status = _value(status)
    return _BY_STATUS.get(status, Error)


def from_status(status: int, message: str) -> Error:
    """The exception of a failing status with its message (the extension raises these)."""
    exc = error_class(status)(message)
    if type(exc) is Error:  # a status this package does not know yet: keep its value
        exc.status = status
    return exc


__all__ = ["Error"] + [c.__name__ for c in _BY_STATUS.values()]
