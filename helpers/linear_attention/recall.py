"""The price of the fixed state, measured: softmax and linear attention trained alike on
``11_learning_a_circuit``'s copy task, and their recall against the distance to the earlier
occurrence (``15_fixed_state``).

Two settings (:data:`SETTINGS`), each trained with both attention cores from :data:`SEEDS` with 11's
recipe (:data:`helpers.circuit.trainer` — Adam, learning rate, batch; :data:`STEPS` steps; the same
:class:`~helpers.circuit.Config`):

- ``"plain"`` — 11's model and task exactly (32 tokens, copies of 8–14); the softmax runs are 11's
  two-layer runs (the same arithmetic, :mod:`helpers.linear_attention.model`);
- ``"conv"`` — the model with a short convolution (``shift``, what linear-attention layers carry) on
  11's task with copies of exactly 8 tokens (32 tokens in all), so the distance between the two copies
  spans 8 … 24 and the copies' length does not change from one bin to the next. (At 64 tokens every
  linear run tried stayed at chance, ln 32: three seeds for 2000 steps, one for 3000.)

**Recall** of a model at a distance: over the evaluation sequences, the fraction of second-copy
positions whose next token (the predictable one) is the model's top prediction, counting only the
positions whose token occurs once before them (its earlier occurrence is then the one copy it must
find; where the token came twice, no model can tell which occurrence is meant, 11 showed). The distances
are binned :data:`BIN` wide; a bin of fewer than :data:`MIN_COUNT` positions is merged into its neighbour
(:func:`merge_sparse`), so no plotted recall rests on a handful of positions.

Training every run takes tens of minutes of CPU, so the results are stored in
``helpers/data/fixed_state_recall.npz`` (``make fixed-state-data`` regenerates it under the pinned
arithmetic of ``tools/data/pinned.py``), with the seed-0 parameters after :data:`PREFIX_STEP` steps of
each setting and core, which the tests retrain and compare bit for bit.
"""
from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from ..circuit.model import CONFIG, Config
from ..circuit.task import TASK, Batch, Task, sequences
from ..circuit.trainer import BATCH_SIZE, LEARNING_RATE
from ..reading import previous_token_score
from ..render.npz import read_npz, write_npz
from ..render.threads import one_blas_thread
from ..render.validation import (
    as_real_array,
    choice,
    entries,
    finite_scalar,
    instance,
    positive_int,
    quiet_overflow,
    whole_numbers,
)
from ..render.validation import seed as check_seed
from ..training import Adam
from .model import KINDS, backward, forward, init

#: training steps per setting: 11's 2000 for 11's task; the short-convolution runs get twice as many,
#: the same for both cores (linear attention's recall was still rising at 2000)
STEPS = {"plain": 2000, "conv": 4000}
EVAL_EVERY = 100
EVAL_SIZE = 256
#: the sequences recall is measured on (seed never drawn by training)
RECALL_SEED, RECALL_SIZE = 2026_15, 3000
SEEDS = (0, 1, 2)
PREFIX_STEP = 100
CONV_TASK = Task(length=32, min_repeat=8, max_repeat=8)
#: name → (task, short convolution)
SETTINGS = {"plain": (TASK, False), "conv": (CONV_TASK, True)}
#: the distance bins' width, per setting (before :func:`merge_sparse`)
BIN = {"plain": 4, "conv": 4}
#: the fewest positions a distance bin keeps; a sparser bin joins its neighbour (:func:`merge_sparse`)
MIN_COUNT = 100
DATA = "fixed_state_recall.npz"
FORMAT = 1


def config_of(setting: str) -> Config:
    """11's model sized for the setting's task."""
    task, _ = SETTINGS[choice("setting", setting, SETTINGS)]
    return Config(vocab=task.vocab, length=task.length, d_model=CONFIG.d_model, heads=CONFIG.heads, layers=CONFIG.layers)


@dataclass(frozen=True)
class Run:
    """One training run: ``steps`` evaluated and the repeated tokens' loss there, the recall per
    distance bin at the end (``bins`` the bins' first distances, ``counts`` their positions), the
    best layer-0 previous-token score at the end (``None`` for a prefix run, stopped before the
    recall), and the final parameters."""

    setting: str
    kind: str
    seed: int
    steps: np.ndarray
    repeat_loss: np.ndarray
    bins: np.ndarray
    recall: np.ndarray
    counts: np.ndarray
    previous: float | None
    params: dict

    def __post_init__(self):
        choice("setting", self.setting, SETTINGS)
        choice("kind", self.kind, KINDS)
        check_seed("seed", self.seed)
        for name in ("steps", "bins", "counts"):
            object.__setattr__(self, name, whole_numbers(name, getattr(self, name)))
        for name in ("repeat_loss", "recall"):
            object.__setattr__(self, name, as_real_array(name, getattr(self, name), ndim=1, allow_empty=True))
        if not len(self.steps) or len(self.repeat_loss) != len(self.steps):
            raise ValueError(f"steps and repeat_loss must hold one loss per evaluated step (at least one), got "
                             f"{len(self.steps)} steps and {len(self.repeat_loss)} losses")
        if not len(self.bins) == len(self.recall) == len(self.counts):
            raise ValueError(f"bins, recall and counts must have one entry per distance bin each, got "
                             f"{len(self.bins)}, {len(self.recall)} and {len(self.counts)}")
        if self.previous is not None:
            object.__setattr__(self, "previous", finite_scalar("previous", self.previous, low=0.0, high=1.0))
        instance("params", self.params, dict)

    @property
    def overall(self) -> float:
        """Recall over every counted position (bins weighted by their counts)."""
        return float((self.recall * self.counts).sum() / self.counts.sum())


def recall_by_distance(params: dict, setting: str, kind: str) -> tuple:
    """``(bins, recall, counts)`` of a model on the recall sequences (see the module docstring)."""
    task, _ = SETTINGS[choice("setting", setting, SETTINGS)]
    batch = sequences(RECALL_SIZE, RECALL_SEED, task)
    hits = _hits(params, config_of(setting), batch, kind)
    seq, query, _ = batch.induction_pairs
    keep = ~batch.ambiguous
    distance = (batch.second - batch.first)[seq][keep]
    width = BIN[setting]
    bins = np.arange(task.min_repeat // width * width, task.length - task.min_repeat + 1, width)
    which = np.searchsorted(bins, distance, side="right") - 1
    counts = np.bincount(which, minlength=len(bins))
    recall = np.bincount(which, weights=hits[seq, query][keep], minlength=len(bins)) / np.maximum(counts, 1)
    used = counts > 0
    return merge_sparse(bins[used], recall[used], counts[used])


def merge_sparse(bins, recall, counts, minimum: int = MIN_COUNT) -> tuple:
    """``(bins, recall, counts)`` with every bin of fewer than ``minimum`` positions merged into the bin
    before it (the first bin into the one after it). Recall is hits / count, so the merged bin's recall
    is the pooled hits over the pooled count: the same number measuring with the wider bin gives."""
    bins, counts = whole_numbers("bins", bins), whole_numbers("counts", counts)
    recall = as_real_array("recall", recall, ndim=1, allow_empty=True)
    minimum = positive_int("minimum", minimum)
    if not len(bins) == len(recall) == len(counts):
        raise ValueError(f"bins, recall and counts must have one entry per distance bin each, got "
                         f"{len(bins)}, {len(recall)} and {len(counts)}")
    starts, hits, sizes = [], [], []
    for start, r, c in zip(bins.tolist(), recall, counts.tolist()):
        if starts and (c < minimum or sizes[-1] < minimum and len(starts) == 1):
            hits[-1] += round(r * c)   # recall × count is a whole number of hits, up to rounding
            sizes[-1] += c
        else:
            starts.append(start)
            hits.append(round(r * c))
            sizes.append(c)
    sizes_arr = np.array(sizes, dtype=int)
    return np.array(starts, dtype=int), np.array(hits) / np.maximum(sizes_arr, 1), sizes_arr


def bin_ends(setting: str, bins) -> np.ndarray:
    """The last distance (inclusive) each bin of ``bins`` (their first distances) covers: one before the
    next bin's start; the last bin runs to the setting's longest distance, ``length − min_repeat``."""
    task, _ = SETTINGS[choice("setting", setting, SETTINGS)]
    bins = whole_numbers("bins", bins)
    return np.append(bins[1:] - 1, task.length - task.min_repeat).astype(int)


def bin_centres(setting: str, bins) -> np.ndarray:
    """Where the figures draw each bin: halfway between its first and last distance."""
    return (whole_numbers("bins", bins) + bin_ends(setting, bins)) / 2


def _hits(params, config, batch: Batch, kind: str) -> np.ndarray:
    """``(B, n − 1)`` bool: the top prediction at entry ``i`` is token ``i + 1``."""
    hits = []
    for start in range(0, len(batch), 500):   # 500 sequences at a time: the weights of 64 tokens stay small
        cache = forward(params, config, batch.tokens[start:start + 500], kind)
        hits.append(cache.logits[:, :-1].argmax(axis=-1) == batch.tokens[start:start + 500, 1:])
    return np.concatenate(hits)


def _previous(params, config, batch: Batch, kind: str) -> float:
    weights = forward(params, config, batch.tokens[:64], kind).weights[0]
    return float(max(np.mean([previous_token_score(w[h]) for w in weights]) for h in range(config.heads)))


def train(setting: str, kind: str, seed: int = 0, *, steps: int | None = None, prefix: bool = False) -> Run:
    """Train a fresh model (``init(config, seed)``) with 11's recipe; ``prefix`` stops at
    :data:`PREFIX_STEP` and skips the recall (the bit-for-bit test)."""
    setting, kind = choice("setting", setting, SETTINGS), choice("kind", kind, KINDS)
    seed = check_seed("seed", seed)
    steps = STEPS[setting] if steps is None else positive_int("steps", steps, maximum=20_000)
    task, shift = SETTINGS[setting]
    config = config_of(setting)
    params = init(config, seed, shift=shift)
    optimiser = Adam(LEARNING_RATE)
    held_out = sequences(EVAL_SIZE, RECALL_SEED + 1, task)
    last = PREFIX_STEP if prefix else steps
    evaluated, losses = [], []
    with one_blas_thread(), quiet_overflow():
        for t in range(last + 1):
            if t % EVAL_EVERY == 0 or t == last:
                cache = forward(params, config, held_out.tokens, kind)
                evaluated.append(t)
                losses.append(float(cache.token_losses()[held_out.predictable].mean()))
            if t == last:
                break
            batch = sequences(BATCH_SIZE, seed, task, draw=t)
            optimiser.step(params, backward(params, config, forward(params, config, batch.tokens, kind), kind))
        if prefix:
            empty = np.zeros(0)
            return Run(setting, kind, seed, np.array(evaluated), np.array(losses), empty, empty, empty.astype(int),
                       None, params)
        bins, recall, counts = recall_by_distance(params, setting, kind)
        previous = _previous(params, config, held_out, kind)
    return Run(setting, kind, seed, np.array(evaluated), np.array(losses), bins, recall, counts, previous, params)


def runs_wanted() -> list:
    """``(setting, kind, seed)`` of every stored run, in the order the generator trains them."""
    return [(s, k, seed) for s in SETTINGS for seed in SEEDS for k in KINDS]


def _name(setting, kind, seed) -> str:
    return f"{setting}/{kind}/{seed}"


def save(path, runs: list, prefixes: dict) -> None:
    """Store ``runs`` (:class:`Run`) and the prefix parameters ``{(setting, kind): params}``."""
    runs = [instance(f"runs[{i}]", r, Run, "helpers.linear_attention.recall.Run")
            for i, r in enumerate(entries("runs", runs, "runs"))]
    if not runs:
        raise ValueError("runs must hold at least one Run, got none")
    instance("prefixes", prefixes, dict)
    for found in prefixes:
        if not isinstance(found, tuple) or len(found) != 2 or found[0] not in SETTINGS or found[1] not in KINDS:
            raise ValueError(f"prefixes' keys must be (setting, kind) pairs of {list(SETTINGS)} and {list(KINDS)}, "
                             f"got {found!r:.60}")
        instance(f"prefixes[{found!r}]", prefixes[found], dict)
    arrays = {"format": np.array(FORMAT)}
    meta = []
    for r in runs:
        name = _name(r.setting, r.kind, r.seed)
        for field_name in ("steps", "repeat_loss", "bins", "recall", "counts"):
            arrays[f"{name}/{field_name}"] = np.asarray(getattr(r, field_name))
        meta.append({"setting": r.setting, "kind": r.kind, "seed": r.seed, "previous": r.previous})
        if r.seed == SEEDS[0]:
            arrays.update({f"{name}/final/{k}": v for k, v in r.params.items()})
    for (setting, kind), params in prefixes.items():
        arrays.update({f"prefix/{setting}/{kind}/{k}": v for k, v in params.items()})
    arrays["meta"] = np.array(json.dumps({"runs": meta, "steps": STEPS, "prefix_step": PREFIX_STEP}))
    write_npz(arrays, path)


def load(path=None) -> dict:
    """``{"runs": {(setting, kind, seed): Run}, "prefix": {(setting, kind): params}}`` from the stored
    file (``helpers/data/fixed_state_recall.npz``) or ``path``."""
    return _load(None) if path is None else _load_path(path)


@lru_cache(maxsize=1)
def _load(_):
    source = resources.files("helpers") / "data" / DATA
    with resources.as_file(source) as file:
        return _load_path(file)


def _load_path(path) -> dict:
    with nullcontext(path):
        arrays = read_npz(path, what="a fixed-state recall .npz", remedy="run make fixed-state-data",
                          format_version=FORMAT, keys=("meta",))
    meta = json.loads(str(arrays["meta"]))
    runs = {}
    for m in meta["runs"]:
        name = _name(m["setting"], m["kind"], m["seed"])
        final = {k.split("/")[-1]: v for k, v in arrays.items() if k.startswith(f"{name}/final/")}
        # merged on reading as well: a file may hold bins finer than MIN_COUNT allows (merging twice changes nothing)
        bins = merge_sparse(*(arrays[f"{name}/{f}"] for f in ("bins", "recall", "counts")))
        runs[(m["setting"], m["kind"], m["seed"])] = Run(
            m["setting"], m["kind"], m["seed"], arrays[f"{name}/steps"], arrays[f"{name}/repeat_loss"], *bins,
            float(m["previous"]), final)
    prefixes = {}
    for setting in SETTINGS:
        for kind in KINDS:
            found = {k.split("/")[-1]: v for k, v in arrays.items() if k.startswith(f"prefix/{setting}/{kind}/")}
            if found:
                prefixes[(setting, kind)] = found
    return {"runs": runs, "prefix": prefixes}


def table(setting: str, kind: str) -> list:
    """The stored runs of one setting and core, by seed."""
    setting, kind = choice("setting", setting, SETTINGS), choice("kind", kind, KINDS)
    runs = load()["runs"]
    return [runs[(setting, kind, seed)] for seed in SEEDS if (setting, kind, seed) in runs]


def mean_recall(setting: str, kind: str) -> tuple:
    """``(bins, recall averaged over the seeds, lowest, highest)`` of one setting and core."""
    runs = table(setting, kind)
    if not runs:
        raise ValueError(f"the stored file holds no run of setting={setting!r} and kind={kind!r}; run make fixed-state-data")
    stack = np.stack([r.recall for r in runs])
    return runs[0].bins, stack.mean(axis=0), stack.min(axis=0), stack.max(axis=0)


def facts() -> dict:
    """The numbers the lesson quotes about the stored runs: the recipe (``learning_rate``, ``batch``),
    how many ``settings``, ``kinds``, ``seeds`` and ``models``, the ``prefix_seed`` and ``prefix_step`` the
    tests retrain, the ``recall_sequences``, and per setting (``per_setting``) its task's ``length``,
    ``repeat`` (``"8–14"`` or ``"8"``), ``distances`` (``"8–24"``), the ``parameters`` of each core, the
    ``positions`` recall counts and the training ``steps``."""
    runs = load()["runs"]
    per_setting = {}
    for setting, (task, _) in SETTINGS.items():
        first = runs[(setting, KINDS[0], SEEDS[0])]
        repeat = f"{task.min_repeat}" if task.min_repeat == task.max_repeat else f"{task.min_repeat}–{task.max_repeat}"
        per_setting[setting] = {
            "length": task.length, "repeat": repeat,
            "distances": f"{first.bins[0]}–{bin_ends(setting, first.bins)[-1]}",
            "parameters": {kind: sum(int(p.size) for p in runs[(setting, kind, SEEDS[0])].params.values())
                           for kind in KINDS},
            "positions": int(first.counts.sum()), "steps": STEPS[setting]}
    return {"learning_rate": LEARNING_RATE, "batch": BATCH_SIZE, "settings": len(SETTINGS),
            "kinds": len(KINDS), "seeds": len(SEEDS), "models": len(runs_wanted()), "prefix_seed": SEEDS[0],
            "prefix_step": PREFIX_STEP, "recall_sequences": RECALL_SIZE, "per_setting": per_setting}


def bin_rows(setting: str) -> list:
    """One row per distance bin of ``setting``: ``(first distance, last distance, positions,
    {kind: (mean recall over the seeds, lowest seed, highest seed)})``."""
    setting = choice("setting", setting, SETTINGS)
    means = {kind: mean_recall(setting, kind) for kind in KINDS}
    first = table(setting, KINDS[0])[0]
    ends = bin_ends(setting, first.bins)
    return [(int(start), int(end), int(count), {kind: tuple(float(m[j][i]) for j in (1, 2, 3))
                                                for kind, m in means.items()})
            for i, (start, end, count) in enumerate(zip(first.bins, ends, first.counts))]
