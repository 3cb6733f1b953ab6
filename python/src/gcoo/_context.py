# SPDX-License-Identifier: MIT
"""One gcoo context per backend for the whole process, made on first use.

A context binds gcoo to the CPU or to one GPU (its stream, its cuSPARSE handle); making one for a
GPU costs a large fraction of a second, so every operator and product on the same backend shares
it. Operators keep their context alive.
"""
from __future__ import annotations

import threading

from . import _core

_lock = threading.Lock()
_contexts: dict[str | None, _core.Context] = {}


def context(backend: str | None = "auto") -> _core.Context:
    """The context of ``backend``: "cpu", "cuda", "cuda:N", "auto" (CUDA when a GPU is usable,
    else the CPU) or None (the environment variable GCOO_BACKEND, "auto" when unset)."""
    if backend is not None and not isinstance(backend, str):
        raise TypeError(f"backend must be a string or None, not {type(backend).__name__}")
    with _lock:
        ctx = _contexts.get(backend)
        if ctx is None:
            ctx = _core.Context(backend)
            _contexts[backend] = ctx
        return ctx
