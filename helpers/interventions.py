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

Every head not named runs unchanged. The checks here are the ones that need no model (the keys,
the kinds); each forward pass checks the arrays' shapes against its own model.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from .render.validation import head_pair, instance, integer, short_preview

#: the three inputs of a head that :class:`Patch` can give another stream
PROJECTIONS = ("q", "k", "v")


@dataclass(frozen=True)
class Zero:
    """The head's output before o_proj set to zero: it adds nothing to the residual stream."""


@dataclass(frozen=True)
class Mean:
    """The head's output replaced, at each position, by its mean over the batch's sequences."""


@dataclass(frozen=True, eq=False)
class Replace:
    """The head's output before o_proj replaced by ``z``: ``(n, head_dim)`` for every sequence or
    ``(batch, n, head_dim)`` one per sequence (the forward pass checks the shape)."""

    z: object


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


KINDS = (Zero, Mean, Replace, Patch)
SPELLING = "Zero(), Mean(), Replace(z) or Patch(q=…, k=…, v=…)"


def check(name: str, interventions, num_layers: int, num_heads: int) -> dict:
    """``interventions`` (``None`` or ``{(layer, head): intervention}``) checked: ``{(layer, head):
    intervention}`` with plain-int keys, in layer order. ``name`` is the argument as the caller wrote it."""
    if interventions is None:
        return {}
    if not isinstance(interventions, dict):
        raise TypeError(f"{name} must be a dict {{(layer, head): {SPELLING}}}, e.g. {{(1, 0): Zero()}}, "
                        f"got {short_preview(interventions)}")
    checked = {}
    for key, value in interventions.items():
        layer, head = head_pair(f"{name}'s keys", key, num_layers, num_heads)
        if not isinstance(value, KINDS):
            hint = " (a class: write Zero() with brackets)" if isinstance(value, type) and value in KINDS else ""
            raise TypeError(f"{name}[{key!r}] must be {SPELLING}{hint}, got {short_preview(value)}")
        checked[(layer, head)] = value
    return dict(sorted(checked.items()))


def at_layer(checked: dict, layer: int, kind) -> dict:
    """``{head: intervention}`` of the checked ``interventions`` (what :func:`check` returns) at
    ``layer`` (an integer ≥ 0) that are ``kind`` (one of :data:`KINDS`, or a tuple of them)."""
    instance("checked", checked, dict, "dict {(layer, head): intervention} (what helpers.interventions.check returns)")
    layer = integer("layer", layer, low=0)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not kinds or not all(any(k is c for c in KINDS) for k in kinds):
        raise TypeError(f"kind must be one of the classes Zero, Mean, Replace, Patch or a tuple of them, "
                        f"got {short_preview(kind)}")
    try:
        return {h: value for (i, h), value in checked.items() if i == layer and isinstance(value, kinds)}
    except (TypeError, ValueError):  # a key that is not a (layer, head) pair
        raise TypeError(f"checked must be what helpers.interventions.check returns, {{(layer, head): intervention}}, "
                        f"got the keys {short_preview(list(checked))}") from None
