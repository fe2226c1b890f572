"""The experiments that take the trained model apart (``11_learning_a_circuit``): ablation and
composition patching.

- **Ablation** (as notebook 12 does on SmolLM2): a head's output is not added to the stream;
  everything downstream runs on what is left.
- **Mean ablation**: a head's output is replaced, position by position, by its mean over the
  batch — what is left of the head is what it writes whatever the sequence, so the stream stays
  near the states training saw (zeroing can push it where it never was).
- **Composition patching**: layer 1 reads the stream in three places — its queries, its keys and
  its values. To ask which of them needs a layer-0 head, recompute only that one from the stream
  *without* the head's output and leave the other two, the residual stream itself and the
  unembedding as they were. If the induction head's keys need the previous-token head (the keys
  of position ``j`` must say "the token before me was …"), patching the keys alone breaks
  induction — K-composition (Elhage et al. 2021) — while patching the queries changes much less.

:func:`composition_effects` runs the three patches (and, as a reference, the clean model) for one
layer-0 head; :func:`ablation_effects` removes every head alone; :func:`mean_ablate` averages heads out.
Each is one dict of :mod:`helpers.interventions` (``Zero()``, ``Mean()``, ``Patch(k=…)``) given to
:func:`helpers.circuit.forward`; these functions only build the dict and score the run.
"""
from __future__ import annotations

from ..interventions import PROJECTIONS, Mean, Patch, Zero
from ..render.validation import choice, head_pairs
from .model import Model, _check_model, forward
from .scores import HeadScores, head_scores, scores_with
from .task import Batch

CLEAN = "clean"


def _check(model, batch) -> tuple:
    model = _check_model(model)
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a helpers.circuit.Batch (from sequences), got {type(batch).__name__}")
    if batch.task.vocab != model.config.vocab or batch.task.length > model.config.length:
        raise ValueError(f"batch's task (vocab {batch.task.vocab}, length {batch.task.length}) does not fit the model "
                         f"(vocab {model.config.vocab}, length {model.config.length})")
    return model, batch


def _pairs(model: Model, name: str, heads) -> list:
    """``heads`` (``(layer, head)`` pairs) checked and flattened, in layer order."""
    by_layer = head_pairs(name, heads, model.config.layers, model.config.heads)
    return [(layer, h) for layer, hs in by_layer.items() for h in hs]


def ablate(model: Model, batch: Batch, heads) -> HeadScores:
    """Scores and losses with ``heads`` (``(layer, head)`` pairs) zeroed: ``Zero()`` on each."""
    model, batch = _check(model, batch)
    return scores_with(model, batch, {pair: Zero() for pair in _pairs(model, "heads", heads)}, name="heads")


def mean_ablate(model: Model, batch: Batch, heads) -> HeadScores:
    """Scores and losses with the output of ``heads`` (``(layer, head)`` pairs) replaced by its mean
    over ``batch``'s sequences, at each position: ``Mean()`` on each."""
    model, batch = _check(model, batch)
    return scores_with(model, batch, {pair: Mean() for pair in _pairs(model, "heads", heads)}, name="heads")


def without(model: Model, tokens, head) -> dict:
    """The streams entering every layer above ``head``'s (a checked ``(layer, head)`` pair) minus
    what ``head`` wrote, in a clean run on ``tokens``: ``{layer: (B, n, d_model)}``."""
    clean = forward(model, tokens)
    layer, h = head
    write = clean.head_outputs(layer)[:, [h]].sum(axis=1)
    return {later: clean.layer_inputs[later] - write for later in range(layer + 1, model.config.layers)}


def patch(model: Model, batch: Batch, head, into) -> HeadScores:
    """Scores and losses when every head of the later layers computes its ``into`` projections
    (``"q"``, ``"k"``, ``"v"`` or a list of them) from the stream entering its layer without
    ``head``'s output (a ``(layer, head)`` pair): ``Patch(k=stream − output)`` on each."""
    model, batch = _check(model, batch)
    (layer, h), = _pairs(model, "head", [head])
    if layer == model.config.layers - 1:
        raise ValueError(f"head must be in a layer below the last ({model.config.layers - 1}): only later layers "
                         f"read its output, got layer {layer}")
    names = (into,) if isinstance(into, str) else into
    if isinstance(names, (bytes, dict)) or not isinstance(names, (tuple, list)) or not names:
        raise TypeError(f"into must be 'q', 'k', 'v' or a list of them, got {into!r:.60}")
    names = [choice("into", name, PROJECTIONS) for name in names]
    streams = without(model, batch.tokens, (layer, h))
    patches = {(later, r): Patch(**{name: stream for name in names})
               for later, stream in streams.items() for r in range(model.config.heads)}
    return scores_with(model, batch, patches, name="into")


def composition_effects(model: Model, batch: Batch, head) -> dict:
    """``{"clean", "q", "k", "v"}`` → :class:`HeadScores`: the model as trained, then with layer 1's
    queries, keys or values (one at a time) recomputed without ``head``'s output."""
    model, batch = _check(model, batch)
    out = {CLEAN: head_scores(model, batch)}
    for name in PROJECTIONS:
        out[name] = patch(model, batch, head, name)
    return out


def ablation_effects(model: Model, batch: Batch) -> dict:
    """``{(layer, head): HeadScores}`` with that one head zeroed, plus ``"clean"``."""
    model, batch = _check(model, batch)
    out = {CLEAN: head_scores(model, batch)}
    for layer in range(model.config.layers):
        for h in range(model.config.heads):
            out[(layer, h)] = ablate(model, batch, [(layer, h)])
    return out
