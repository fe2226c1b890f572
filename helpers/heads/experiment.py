"""The study of SmolLM2-135M's 270 heads on repeated sequences, with memoised ablations (``12_heads_at_work``).

The test of a score is ablation: :func:`helpers.real_model.forward`'s ``interventions`` remove
chosen heads (``Zero()``, or ``Replace(z)`` with their mean or resampled output).
:class:`HeadStudy` runs all of it once per set of sequences and memoises every ablation, so the
notebook's tables and its explorer share the same numbers.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import real_model
from ..interventions import Replace, Zero
from ..render.validation import (
    as_float_array,
    entries,
    head_pairs,
    one_of,
    positive_int,
    token_ids,
    work_limit,
)
from ..render.validation import seed as check_seed
from .attribution import head_logit_attribution
from .patching import composition as patch_composition
from .scores import SCORES, all_scores, duplicate_token_score, induction_score, top_heads
from .sequences import copy_losses, repeated_sequence, unrepeated_sequence, word_pool

#: size guards of a study: every sequence is a row of each forward pass, and the study keeps every
#: head's (2·length + 1)² float32 attention weights on every sequence (SmolLM2: 270 heads, so the
#: limit on sequences × (2·length + 1)² is about 540 MB of weights)
MAX_SEQUENCES = 64
MAX_LENGTH = 128
MAX_PATTERN_CELLS = 500_000
SEQUENCES_WHY = "every sequence is one more row of each of the model's forward passes"


def output_constancy(outputs) -> np.ndarray:
    """How much of each head's output is the same whatever the tokens: ``outputs`` ``(sequences,
    layers, heads, n, head_dim)`` (e.g. :meth:`HeadStudy.reference_outputs`) → ``(layers, heads)``,
    the share of the output's energy (sum of squares over positions and dimensions, summed over
    sequences) that each sequence has in common with the position-wise mean of the **other**
    sequences: ``Σ_j ⟨x_j, mean_{i≠j} x_i⟩ / Σ_j ‖x_j‖²``. 1: the head writes the same vector at each
    position on every sequence (removing it is then like removing a constant, which mean-ablation
    keeps); 0 on average when nothing is shared (a mean that included ``x_j`` itself would keep
    about ``1/sequences`` of the energy even then). It can dip below 0 by chance."""
    arr = as_float_array("outputs", outputs)
    if arr.ndim != 5 or arr.shape[0] < 2:
        raise ValueError(f"outputs must have shape (sequences ≥ 2, layers, heads, n, head_dim), got {arr.shape}")
    arr = arr.astype(np.float64)
    count = arr.shape[0]
    others = (arr.sum(axis=0) - arr) / (count - 1)  # each sequence's leave-one-out mean
    shared = (arr * others).sum(axis=(-2, -1)).sum(axis=0)
    total = np.square(arr).sum(axis=(-2, -1)).sum(axis=0)
    return shared / np.where(total > 0, total, 1.0)


#: how a head is removed: its output before o_proj set to zero, to its mean over the reference
#: sequences (position by position), or to its output on one reference sequence (resampling)
ABLATIONS = ("zero", "mean", "resample")
ABLATION_LABELS = {"zero": "置零", "mean": "换成均值", "resample": "重采样"}


class HeadStudy:
    """Every head's scores and the copy losses on ``len(seeds)`` repeated sequences of ``length``
    random tokens; :meth:`ablate` reruns them with heads removed (memoised per set of heads).

    All sequences go through the model as one batch. ``reference_seeds`` name a separate set of
    sequences (same layout, other random tokens) whose head outputs mean- and resample-ablation
    use; by default as many as ``seeds``, seeded ``1000 + seed``. ``pool`` is the token ids the
    random tokens are drawn from (default: the vocabulary's " word" tokens, :func:`word_pool`)."""

    def __init__(self, model, *, length: int = 16, seeds=(0, 1, 2), reference_seeds=None, pool=None):
        self.model = real_model.check_model(model)
        self.length = positive_int("length", length, maximum=MAX_LENGTH)
        self.seeds = _seed_list("seeds", seeds)
        _check_size(len(self.seeds), self.length)
        self.reference_seeds = (tuple(1000 + s for s in self.seeds) if reference_seeds is None
                                else _seed_list("reference_seeds", reference_seeds))
        if set(self.reference_seeds) & set(self.seeds):
            raise ValueError(f"reference_seeds must be other sequences than seeds, both hold "
                             f"{sorted(set(self.reference_seeds) & set(self.seeds))}")
        cfg = model.config
        self.shape = (cfg.num_layers, cfg.num_heads)
        if pool is None:
            self.pool = word_pool(model.tokens)
        else:
            self.pool = np.unique(token_ids("pool", pool, cfg.vocab_size))
        if len(self.pool) < self.length:
            raise ValueError(f"length must be at most {len(self.pool)} (the pool has that many distinct "
                             f"tokens to draw from), got {self.length}")
        self.ids = [repeated_sequence(self.pool, self.length, s) for s in self.seeds]
        #: (seeds, n) the sequences as one batch
        self.batch = np.stack(self.ids)
        run = real_model.forward(model, self.batch, keep_inputs=True)
        #: per layer: the clean residual stream entering it, (seeds, n, hidden)
        self.layer_inputs = run.layer_inputs
        #: the clean residual stream leaving the last layer, before the final norm
        self.final_residual = run.final_residual
        #: (seeds, layers, heads, n, n) float32
        self.weights = np.stack(run.weights, axis=1)
        #: (seeds, 2T) per-token loss, entry i predicts token i+1
        self.losses = real_model.next_token_losses(run.logits, self.batch)
        #: {name: (seeds, layers, heads)} every score on every sequence (:data:`SCORES` and "duplicate")
        self.sequence_scores = {**all_scores(self.weights, self.length),
                                "duplicate": duplicate_token_score(self.weights, self.length)}
        #: {name: (layers, heads)} each score averaged over the sequences
        self.scores = {name: s.mean(axis=0) for name, s in self.sequence_scores.items()}
        #: the positions whose loss the copy losses read (entry i predicts token i+1)
        self.loss_positions = list(range(1, self.length)) + list(range(self.length + 1, 2 * self.length))
        self._ablated: dict = {}
        self._reference = None
        self._dla = None
        self._unrepeated = None

    @property
    def first_copy_loss(self) -> float:
        return float(copy_losses(self.losses, self.length)[0].mean())

    @property
    def second_copy_loss(self) -> float:
        return float(copy_losses(self.losses, self.length)[1].mean())

    def top(self, score: str, k: int) -> list:
        """The ``k`` heads with the highest ``score`` (one of :data:`SCORES` or ``"duplicate"``)."""
        return top_heads(self.scores[one_of("score", score, (*SCORES, "duplicate"))], k)

    def reference_outputs(self) -> np.ndarray:
        """Every head's output before o_proj on the reference sequences, ``(reference, layers,
        heads, n, head_dim)`` float32 (computed once)."""
        if self._reference is None:
            ref = np.stack([repeated_sequence(self.pool, self.length, s) for s in self.reference_seeds])
            inputs = real_model.forward(self.model, ref, keep_inputs=True).layer_inputs
            self._reference = np.stack([np.stack([real_model.head_attention(self.model, layer, h, inputs[layer]).z
                                                  for h in range(self.shape[1])], axis=1)
                                        for layer in range(self.shape[0])], axis=1).astype(np.float32)
        return self._reference

    def replacements(self, heads, kind: str) -> dict:
        """The outputs ``forward``'s ``Replace(z)`` puts in place of ``heads`` by ``kind`` (``"mean"`` or ``"resample"``):
        the head's mean output over the reference sequences at each position, or its output on
        reference sequence j for sequence j."""
        kind = one_of("kind", kind, ABLATIONS[1:])
        by_layer = head_pairs("heads", heads, *self.shape)
        ref = self.reference_outputs()
        if kind == "resample" and len(ref) < len(self.seeds):
            raise ValueError(f"resample needs at least as many reference_seeds as seeds ({len(self.seeds)}), "
                             f"got {len(ref)}")
        pick = (lambda z: z.mean(axis=0)) if kind == "mean" else (lambda z: z[:len(self.seeds)])
        return {(layer, h): pick(ref[:, layer, h]) for layer, hs in by_layer.items() for h in hs}

    def intervene(self, heads, kind: str = "zero", *, full_losses: bool = False) -> dict:
        """Remove ``heads`` (``(layer, head)`` pairs) by ``kind`` (one of :data:`ABLATIONS`), not
        memoised: ``"first"``, ``"second"`` (each ``(seeds,)``, the copy losses of every sequence),
        ``"scores"`` (``{name: (seeds, layers, heads)}``) and ``"run"`` (the forward result; layers
        below the lowest removed head are not rerun and their weights are the clean ones). The
        lm_head runs only on :attr:`loss_positions` unless ``full_losses`` (then also ``"losses"``,
        ``(seeds, 2T)``)."""
        kind = one_of("kind", kind, ABLATIONS)
        by_layer = head_pairs("heads", heads, *self.shape)
        if not by_layer:
            first, second = copy_losses(self.losses, self.length)
            out = {"first": first, "second": second, "scores": self.sequence_scores, "run": None}
            return {**out, "losses": self.losses} if full_losses else out
        start = min(by_layer)
        pairs = [(layer, h) for layer, hs in by_layer.items() for h in hs]
        changes = ({pair: Zero() for pair in pairs} if kind == "zero"
                   else {pair: Replace(z) for pair, z in self.replacements(pairs, kind).items()})
        rows = None if full_losses else self.loss_positions
        run = real_model.forward(self.model, self.batch, resume=(start, self.layer_inputs[start]), logits_at=rows,
                                 interventions=changes)
        losses = real_model.next_token_losses(run.logits, self.batch, positions=rows)
        weights = np.stack([self.weights[:, i] if w is None else w for i, w in enumerate(run.weights)], axis=1)
        scores = {**all_scores(weights, self.length), "duplicate": duplicate_token_score(weights, self.length)}
        if full_losses:
            first, second = copy_losses(losses, self.length)
            return {"first": first, "second": second, "scores": scores, "run": run, "losses": losses,
                    "weights": weights}
        t = self.length - 1
        return {"first": losses[:, :t].mean(axis=-1), "second": losses[:, t:].mean(axis=-1), "scores": scores,
                "run": run}

    def ablate(self, heads, kind: str = "zero") -> dict:
        """Per-token losses ``"losses"`` ``(seeds, 2T)``, the induction scores ``"induction"``
        ``(layers, heads)`` and the first sequence's weights ``"weights"`` ``(layers, heads, n, n)``
        with ``heads`` (``(layer, head)`` pairs) removed by ``kind`` (default zero); layers below
        the lowest ablated one are not rerun (they cannot change). Memoised: a repeated set costs
        nothing."""
        kind = one_of("kind", kind, ABLATIONS)
        by_layer = head_pairs("heads", heads, *self.shape)
        key = (kind, tuple((layer, h) for layer, hs in by_layer.items() for h in hs))
        if key not in self._ablated:
            if not key[1]:
                self._ablated[key] = {"losses": self.losses, "induction": self.scores["induction"],
                                      "weights": self.weights[0]}
            else:
                done = self.intervene(key[1], kind, full_losses=True)
                self._ablated[key] = {"losses": done["losses"], "induction": done["scores"]["induction"].mean(axis=0),
                                      "weights": done["weights"][0]}
        return self._ablated[key]

    def composition(self, sender, receiver, kind: str = "zero", *, path: str = "direct",
                    inputs=(("q",), ("k",), ("v",), ("q", "k", "v"))) -> list:
        """:func:`helpers.heads.composition` on this study: ``sender``'s direct write removed
        (zeroed, or for ``kind="mean"`` replaced by its mean output over the reference sequences)
        from ``receiver``'s queries only, keys only, values only, and all three (or the groups in
        ``inputs``; ``path="total"``: the stream of a run without the sender instead). One dict per
        input: ``"inputs"`` (e.g. ``("k",)``), ``"weights"`` (the receiver's pattern, ``(seeds, n,
        n)``), ``"induction"`` (the receiver's induction score on
        each sequence, ``(seeds,)``) and ``"first"`` / ``"second"`` (each sequence's copy losses)."""
        kind = one_of("kind", kind, ABLATIONS[:2])
        replacement = None if kind == "zero" else self.replacements([sender], kind)[tuple(sender)]
        rows = patch_composition(self.model, self.batch, self.layer_inputs, sender, receiver, inputs=inputs,
                                replacement=replacement, path=path, loss_positions=self.loss_positions)
        t = self.length - 1
        return [{"inputs": r["inputs"], "weights": r["weights"], "induction": induction_score(r["weights"], self.length),
                 "first": r["losses"][:, :t].mean(axis=-1), "second": r["losses"][:, t:].mean(axis=-1)}
                for r in rows]

    def logit_attribution(self) -> np.ndarray:
        """Every head's direct share of the logit of the next token (:mod:`helpers.heads.attribution`,
        the final norm's scale frozen at the clean run's) at :attr:`loss_positions`:
        ``(seeds, layers, heads, 2T − 2)``, the first copy's ``T − 1`` positions, then the second
        copy's (computed once)."""
        if self._dla is None:
            self._dla = head_logit_attribution(self.model, self.batch, self.layer_inputs, self.final_residual,
                                               self.loss_positions)
        return self._dla

    def unrepeated_losses(self) -> np.ndarray:
        """The no-repetition control: per-token losses at the second copy's positions (predicting
        tokens ``T+2 … 2T``, as :func:`copy_losses` reads them) on sequences laid out like the study's
        but with ``2T`` distinct random tokens (:func:`unrepeated_sequence`, seeds ``2000 + seed``),
        full model: ``(seeds, T − 1)`` (computed once). What these positions cost with nothing to copy."""
        if self._unrepeated is None:
            ids = np.stack([unrepeated_sequence(self.pool, self.length, 2000 + s) for s in self.seeds])
            rows = self.loss_positions[self.length - 1:]
            run = real_model.forward(self.model, ids, logits_at=rows)
            self._unrepeated = real_model.next_token_losses(run.logits, ids, positions=rows)
        return self._unrepeated

    def second_copy_loss_without(self, heads) -> float:
        """Second-copy loss (mean over the sequences) with ``heads`` ablated."""
        return float(copy_losses(self.ablate(heads)["losses"], self.length)[1].mean())


def _seed_list(name: str, seeds) -> tuple:
    if isinstance(seeds, (str, bytes, dict)) or not isinstance(seeds, (list, tuple, range)):
        raise TypeError(f"{name} must be a list or tuple of integers, got {seeds!r:.60}")
    work_limit(f"len({name})", len(seeds), MAX_SEQUENCES, SEQUENCES_WHY)
    seeds = tuple(check_seed(name, s) for s in seeds)
    if not seeds:
        raise ValueError(f"{name} must name at least one seed, got none")
    if len(set(seeds)) < len(seeds):
        raise ValueError(f"{name} must be distinct (each names one sequence), got {seeds!r:.60}")
    return seeds


def study(length: int = 16, seeds=tuple(range(12))) -> HeadStudy:
    """The :class:`HeadStudy` of SmolLM2-135M (loaded once), shared by the notebook, its explorer
    and its exercises so that every ablation is run once. The default is the study the stored
    scan (:data:`helpers.heads.scan.SETUP`) was run on: 12 sequences of 16 random tokens."""
    length = positive_int("length", length, maximum=MAX_LENGTH)
    seeds = _seed_list("seeds", tuple(entries("seeds", seeds, "seeds")))
    _check_size(len(seeds), length)
    return _study(length, seeds)


def _check_size(sequences: int, length: int) -> None:
    work_limit("len(seeds) × (2·length + 1)²", sequences * (2 * length + 1) ** 2, MAX_PATTERN_CELLS,
               "the study keeps every head's attention weights on every sequence: 4 bytes × 270 heads "
               "per cell for SmolLM2")


@lru_cache(maxsize=2)
def _study(length: int, seeds: tuple) -> HeadStudy:
    return HeadStudy(real_model.load_model(), length=length, seeds=seeds)
