"""Caches bounded by bytes, not by entries (plumbing behind :mod:`helpers.render.explorer`).

An explorer remembers what it drew — states and their PNGs, rasterised strings, background
pictures — so that returning to them costs nothing. Bounding such a cache by its number of
entries bounds nothing useful: a long title rasterised at 2× is tens of kilobytes, a number in a
cell a few hundred bytes, a PNG a hundred kilobytes, so 2,048 "entries" grew one explorer by
300 MiB over 3,000 moves. :class:`ByteLRU` drops the least recently used entries once the bytes
it holds pass its budget; :func:`approx_nbytes` is how it weighs a value it is not told the size of.
Taught nowhere (plumbing).
"""
from __future__ import annotations

import dataclasses
import sys
from collections import OrderedDict

import numpy as np

from .validation import positive_int

#: bytes counted for a Python object beyond what it holds (a small dict, a tuple, a number)
OVERHEAD = 64


def approx_nbytes(value) -> int:
    """An estimate of the memory ``value`` holds: numpy arrays by their bytes, bytes and strings by
    their length, containers, dataclasses and plain objects by their contents (each object once)."""
    return _nbytes(value, set(), 0)


def _nbytes(value, seen: set, depth: int) -> int:
    if id(value) in seen or depth > 6:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return value.nbytes + OVERHEAD
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value) + OVERHEAD
    if isinstance(value, str):
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return OVERHEAD + sum(_nbytes(k, seen, depth + 1) + _nbytes(v, seen, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return OVERHEAD + sum(_nbytes(v, seen, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return OVERHEAD + sum(_nbytes(getattr(value, f.name), seen, depth + 1) for f in dataclasses.fields(value))
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return OVERHEAD + _nbytes(vars(value), seen, depth + 1)
    return sys.getsizeof(value)


class ByteLRU:
    """A mapping that keeps its most recently used entries within ``max_bytes``.

    :meth:`put` stores a value with its size (weighed by :func:`approx_nbytes` unless given);
    :meth:`grow` adds to an entry's size when its value gains something later (a PNG rendered
    after the state was stored). Reading an entry (:meth:`get`, ``in`` does not) makes it the most
    recent; whenever the total passes the budget the least recent entries go, down to the newest
    one, which always stays (``on_evict(key, value)`` hears of each, e.g. to remove an artist).
    """

    def __init__(self, max_bytes: int, on_evict=None):
        self.max_bytes = positive_int("max_bytes", max_bytes, maximum=2 ** 40)
        self.on_evict = on_evict  # called as on_evict(key, value) for each entry the budget drops
        self._items: OrderedDict = OrderedDict()
        self._sizes: dict = {}
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key) -> bool:
        return key in self._items

    def values(self) -> list:
        """The values, least recently used first."""
        return list(self._items.values())

    def get(self, key):
        """The value stored under ``key`` (a ``KeyError`` if none), now the most recent."""
        value = self._items[key]
        self._items.move_to_end(key)
        return value

    def put(self, key, value, size: int | None = None) -> None:
        """Store ``value`` under ``key`` as the most recent entry, then keep within the budget."""
        if key in self._items:
            self.nbytes -= self._sizes[key]
        self._items[key] = value
        self._items.move_to_end(key)
        self._sizes[key] = approx_nbytes(value) if size is None else int(size)
        self.nbytes += self._sizes[key]
        self._trim()

    def grow(self, key, size: int) -> None:
        """``key``'s value now holds ``size`` more bytes (and is the most recent)."""
        if key in self._items:
            self._items.move_to_end(key)
            self._sizes[key] += int(size)
            self.nbytes += int(size)
            self._trim()

    def clear(self) -> None:
        """Forget every entry."""
        self._items.clear()
        self._sizes.clear()
        self.nbytes = 0

    def _trim(self) -> None:
        while self.nbytes > self.max_bytes and len(self._items) > 1:
            key, value = self._items.popitem(last=False)
            self.nbytes -= self._sizes.pop(key)
            if self.on_evict is not None:
                self.on_evict(key, value)
