"""A state that does not grow (``15_fixed_state``): linear attention and what it costs.

One idea per module: :mod:`.forms` (the parallel, recurrent and chunkwise forms, equal up to rounding, and
the fixed state), :mod:`.model` (notebook 11's model with a softmax or a linear core, its
gradient by hand), :mod:`.recall` (the two cores trained alike and their recall against distance: stored
runs) and :mod:`.ledger` (the KV-bytes ledger of five public models and one counterfactual row).
"""
from . import forms, ledger, model, recall

__all__ = ["forms", "ledger", "model", "recall"]
