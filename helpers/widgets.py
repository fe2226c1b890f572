"""One-line entry points for every live explorer in the series.

A notebook's widget cell is a single call into this module; the explorer classes live in
:mod:`helpers.explorers` (one module per notebook) and are tested headless in
``tests/test_widgets.py``.
"""
from __future__ import annotations


def query_weights_explorer(**kwargs):
    """``00_index``: 申请's q sliders → its four attention weights."""
    from .explorers.index import QueryWeightsExplorer

    return QueryWeightsExplorer(**kwargs)


#: every explorer factory, for tests and ``make bench``
def all_factories() -> dict:
    return {name: obj for name, obj in globals().items()
            if name.endswith("_explorer") and callable(obj)}
