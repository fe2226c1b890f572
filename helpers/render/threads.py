"""One BLAS thread for the series' small matrix products.

numpy's OpenBLAS splits every product over all cores. For the matrices here (a few hundred rows
at most) that gains nothing, and on a 2-core machine with anything else running the two threads
wait for each other: measured, the 06 explorer's 32-head layer took 2.2 ms with one thread and
9.7 ms (spikes to 85 ms) with two. :func:`one_blas_thread` limits BLAS to one thread inside a
``with`` block (``threadpoolctl``; without it, a no-op). Used by :class:`helpers.render.explorer.Explorer`
and by the real-model passes of notebooks 09 and 12; taught nowhere (plumbing).
"""
from __future__ import annotations

import contextlib
import functools

# threadpoolctl is imported on the first one_blas_thread: lesson modules import this one, and
# ``import helpers`` stays numpy-only; without it (an odd install) the block runs unpinned.

_controller = None


def one_blas_thread():
    """A context manager under which numpy's BLAS runs single-threaded."""
    global _controller
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a dependency; kept optional for odd installs
        return contextlib.nullcontext()
    if _controller is None:
        _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api="blas")


def with_one_blas_thread(function):
    """Decorator: ``function`` runs under :func:`one_blas_thread`."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with one_blas_thread():
            return function(*args, **kwargs)
    return wrapper
