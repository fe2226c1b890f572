"""The functions a grader computes with, as they were when ``helpers`` was imported.

A learner may experiment in the same kernel (``np.exp = …``) before the exercises' module is first
loaded (``helpers.exercises`` loads on first use), so the snapshot is taken here, by ``import
helpers`` itself, and extended when the exercises are gathered (:func:`remember_originals`). A change
made before ``import helpers`` is out of reach of any snapshot.

While a learner's function is graded the recorded originals are put back in place
(:class:`Pristine`): a learner who reassigns ``np.allclose`` or ``helpers.softmax`` in the notebook
changes nothing about grading, and is told so once (:func:`first_time`); their change is put back
for their own call and after the check, never undone.
"""
from __future__ import annotations

import builtins
import contextlib
import copy
import importlib
import inspect
import math
import sys
import threading
import types
import warnings
import weakref

import numpy as np

#: modules whose functions the checker and the references use, besides every loaded helpers.* module
WATCHED_MODULES = ("numpy", "numpy.linalg", "numpy.random", "copy", "math", "inspect", "warnings", "contextlib")
#: the built-in functions the checker computes and speaks with (``print`` shows every verdict). Not the whole
#: module: IPython puts its own ``input``, ``display`` and ``get_ipython`` there for each cell, which is
#: no change of the learner's
WATCHED_BUILTINS = ("abs", "all", "any", "enumerate", "float", "getattr", "hasattr", "int", "isinstance", "iter",
                    "len", "list", "map", "max", "min", "next", "print", "range", "repr", "round", "sorted", "str",
                    "sum", "tuple", "type", "zip")
#: ``{(module name, attribute): value}`` of every function and class of :data:`WATCHED_MODULES`,
#: then of ``helpers`` and the modules :func:`remember_originals` names (first value kept)
SNAPSHOT: dict = {}
_MISSING = object()
#: the changes the learner was already told the checker ignores (told once per session)
_TOLD: set = set()


def public_function(attr: str, value) -> bool:
    """What is recorded: public functions and classes. Private names are left out: a module's own
    machinery swaps them for a while (``warnings.catch_warnings`` replaces ``_showwarnmsg_impl``), and
    a snapshot taken inside such a block would call the module's own state a learner's change."""
    if not isinstance(attr, str):
        raise TypeError(f"attr must be an attribute name (str), got {type(attr).__name__}")
    return not attr.startswith("_") and callable(value) and not isinstance(value, types.ModuleType)


def record(*module_names: str, into: dict = SNAPSHOT) -> dict:
    """Add the callables of ``module_names`` (already imported) to ``into`` as they are now; a name
    already there keeps its first value."""
    if not isinstance(into, dict):
        raise TypeError(f"into must be a dict of (module, attribute) → value, got {type(into).__name__}")
    for i, name in enumerate(module_names):
        if not isinstance(name, str) or name not in sys.modules:
            shown = repr(name) if len(repr(name)) <= 60 else f"{type(name).__name__} {repr(name)[:57]}…"
            raise ValueError(f"module_names[{i}] must be the name of an imported module, got {shown}")
        module = sys.modules[name]
        for attr, value in list(vars(module).items()):
            if public_function(attr, value):
                into.setdefault((name, attr), value)
    return into


_IMPORTED = (np, np.linalg, np.random, copy, math, inspect, warnings, contextlib)  # the watched modules, loaded


def _record_builtins(into: dict = SNAPSHOT) -> None:
    for attr in WATCHED_BUILTINS:
        into.setdefault(("builtins", attr), getattr(builtins, attr))


record(*WATCHED_MODULES)
_record_builtins()


#: the threads alive when helpers was imported (the kernel's own, which do not print); a thread started
#: since, by a cell of the learner's, may print while another function of theirs is checked
THREADS_AT_IMPORT = weakref.WeakSet(threading.enumerate())


def original(module: str, attr: str):
    """``module.attr`` as recorded when ``helpers`` was imported (the current one if it was never recorded)."""
    return SNAPSHOT.get((module, attr), getattr(sys.modules[module], attr))


def remember_originals(*module_names: str) -> None:
    """Record, as they are now, the functions and classes of :data:`WATCHED_MODULES`, of
    ``module_names`` (imported if need be) and of every loaded ``helpers`` module (a name already
    recorded keeps its first value). Called when the exercises are gathered and before each check,
    so what a learner reassigns later is noticed."""
    for name in module_names:
        importlib.import_module(name)
    loaded = [m for m in list(sys.modules) if m == "helpers" or m.startswith("helpers.")]
    record(*WATCHED_MODULES, *module_names, *loaded)
    _record_builtins()


def first_time(names) -> list:
    """The names in ``names`` the learner has not yet been told about (each is told once per session)."""
    fresh = [name for name in dict.fromkeys(names) if name not in _TOLD]
    _TOLD.update(fresh)
    return fresh


class Pristine:
    """Inside the block the recorded originals are in place (the checker computes with them); on
    leaving, whatever the learner had put there is back. :meth:`learners` puts the learner's versions
    back for the duration of their call and notices what their call reassigned."""

    def __init__(self):
        self.changed: dict = {}  # (module name, attr) -> the learner's value

    def _take(self):
        for key, original in SNAPSHOT.items():
            module = sys.modules.get(key[0])
            if module is None:
                continue
            current = vars(module).get(key[1], _MISSING)
            if current is not original:
                self.changed[key] = current
                setattr(module, key[1], original)

    def _give_back(self):
        for (name, attr), value in self.changed.items():
            module = sys.modules.get(name)
            if module is None:
                continue
            if value is _MISSING:
                vars(module).pop(attr, None)
            else:
                setattr(module, attr, value)

    def __enter__(self):
        self._take()
        return self

    def __exit__(self, *exc):
        self._give_back()
        return False

    @contextlib.contextmanager
    def learners(self):
        """The learner's own versions in place for the duration of the block (their call)."""
        self._give_back()
        try:
            yield
        finally:
            self._take()

    def changed_names(self) -> list:
        """``module.attribute`` of every recorded function the learner had reassigned."""
        return [f"{name}.{attr}" for name, attr in self.changed]
