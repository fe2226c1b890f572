"""Four ways to change one attention head in a forward pass, as data (``11_learning_a_circuit``).

An experiment on a trained model names *which* head (a ``(layer, head)`` pair) and *what* is done
to it; the forward pass takes them as one dict, ``interventions={(1, 0): Zero()}``. The words are
the same for ``11``'s small model (:func:`helpers.circuit.forward`) and ``12``'s SmolLM2
(:func:`helpers.real_model.forward`), so a new experiment is a new entry, not a new keyword:

- :class:`Zero` — the head's output before o_proj set to 0 (**ablation**);
- :class:`Mean` — its output replaced, position by position, by its mean over the batch's
  sequences (**mean ablation**: what is left is what the head writes whatever the sequence);
- :class:`Replace` — its output replaced by a given ``z`` (e.g. its mean over *other* sequences,
  or its output on another sequence: resampling);
- :class:`Patch` — its queries, keys or values read another residual stream than the one entering
  its layer (**patching** one input path: which of them needs an earlier head).

Every head not named runs unchanged.

**Each word applies itself**, as a TransformerLens hook carries its function: neither forward pass
knows the kinds. Before the run a forward pass calls ``intervention.checked(where, hook)`` (the
intervention with its arrays checked against that model; ``where`` names it in a message, e.g.
``"interventions[(1, 0)]"``); at the head it calls ``intervention.apply(z, hook)`` with ``z`` the
head's output before o_proj (``(batch, n, d_head)``) and puts what comes back in the head's place.
``hook`` is the head as that forward pass runs it (:class:`helpers.circuit.model.HeadHook`,
:class:`helpers.real_model.HeadHook`), and offers:

- ``hook.ids_shape`` and ``hook.ids_name`` — the shape of the sequences run and the argument that holds them;
- ``hook.head_output(name, z)`` — ``z`` checked as an output the model's heads can give on them;
- ``hook.residual_stream(name, x)`` — ``x`` checked as a stream a head of the model can read on them;
- ``hook.rerun(q=None, k=None, v=None)`` — the head's output with its queries, keys and values
  read from those streams (``None``: the stream entering its layer); the pattern it computes
  becomes the head's pattern in the result.

A new kind of change is a new class with ``checked`` and ``apply``; the dict itself is checked by
:func:`helpers.render.validation.interventions`.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

#: the three inputs of a head that :class:`Patch` can give another stream
PROJECTIONS = ("q", "k", "v")


@dataclass(frozen=True)
class Zero:
    """The head's output before o_proj set to zero: it adds nothing to the residual stream."""

    def checked(self, where: str, hook) -> "Zero":
        """Nothing to check: zero fits any head."""
        return self

    def apply(self, z, hook):
        """Zeros in the shape of the head's output ``z``."""
        return np.zeros_like(z)


@dataclass(frozen=True)
class Mean:
    """The head's output replaced, at each position, by its mean over the batch's sequences."""

    def checked(self, where: str, hook) -> "Mean":
        """A mean over a batch needs a batch: at least 2 sequences run at once."""
        shape = tuple(hook.ids_shape)
        if len(shape) != 2 or shape[0] < 2:
            raise ValueError(f"{where}: Mean() averages over a batch, so {hook.ids_name} must be a (batch ≥ 2, n) "
                             f"array, got shape {shape}")
        return self

    def apply(self, z, hook):
        """``z`` averaged over the sequences (its first axis), position by position: ``(n, d_head)``."""
        return z.mean(axis=0)


@dataclass(frozen=True, eq=False)
class Replace:
    """The head's output before o_proj replaced by ``z``: ``(n, head_dim)`` for every sequence or
    ``(batch, n, head_dim)`` one per sequence (the forward pass checks the shape)."""

    z: object

    def checked(self, where: str, hook) -> "Replace":
        """``z`` checked as an output of the hook's model on its sequences."""
        return Replace(hook.head_output(f"{where}.z", self.z))

    def apply(self, z, hook):
        """The given ``z``, whatever the head computed."""
        return self.z


@dataclass(frozen=True, eq=False)
class Patch:
    """The head's queries (``q``), keys (``k``) and/or values (``v``) computed from the residual
    stream given instead of the one entering its layer; an input left ``None`` reads the usual
    stream. Each stream has the shape of the layer's input (the forward pass checks it)."""

    q: object = None
    k: object = None
    v: object = None

    def __post_init__(self):
        if all(getattr(self, name) is None for name in PROJECTIONS):
            raise ValueError("Patch needs at least one of q=, k=, v= (the stream that input reads), got none")

    def streams(self) -> dict:
        """``{"q"|"k"|"v": stream}`` of the inputs this patch changes."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    def checked(self, where: str, hook) -> "Patch":
        """Each stream checked as one a head of the hook's model can read on its sequences."""
        return Patch(**{name: hook.residual_stream(f"{where}.{name}", x) for name, x in self.streams().items()})

    def apply(self, z, hook):
        """The head recomputed with the patched inputs reading their streams."""
        return hook.rerun(**self.streams())
