"""The functions a grader computes with, as they were when ``helpers`` was imported.

A learner may experiment in the same kernel (``np.exp = …``) before the exercises' module is first
loaded (``helpers.exercises`` loads on first use), so the snapshot is taken here, by ``import
helpers`` itself: :mod:`helpers.render.code_check` starts its record of originals from it. A change
made before ``import helpers`` is out of reach of any snapshot.
"""
from __future__ import annotations

import copy
import inspect
import math
import sys
import types
import warnings

import numpy as np

#: modules whose functions the checker and the references use, besides every loaded helpers.* module
WATCHED_MODULES = ("numpy", "numpy.linalg", "numpy.random", "copy", "math", "inspect", "warnings")
#: ``{(module name, attribute): value}`` of every function and class of :data:`WATCHED_MODULES`
SNAPSHOT: dict = {}


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


_IMPORTED = (np, np.linalg, np.random, copy, math, inspect, warnings)  # the watched modules, loaded
record(*WATCHED_MODULES)
