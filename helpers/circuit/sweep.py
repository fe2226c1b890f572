"""What changes the birth of the circuit: one small sweep, several seeds each (``11_learning_a_circuit``).

Variants of the notebook's run (:data:`VARIANTS`), each trained from :data:`SEEDS` for
:data:`STEPS` steps by :func:`helpers.circuit.train.train`:

- ``two_layers`` — the notebook's model and task;
- ``one_layer`` — the same with one layer: a head can find the earlier copy of the current token,
  but nothing before it has written "the token before me was …" into the keys;
- ``positions_in_stream`` — two layers with the positions added to the token embeddings
  (GPT-2's way) instead of to the queries' and keys' inputs only;
- ``fixed_task`` — two layers trained on the fixed-length, fixed-offset variant, where positions
  alone find the target; also scored on the random-offset sequences (``transfer``);
- ``lr_low`` / ``lr_high`` — learning rate 1e-3 and 1e-2 instead of 3e-3.

Per run it keeps the curves (every :data:`helpers.circuit.train.EVAL_EVERY` steps), the drop
(:meth:`Run.drop`), the scores at the end, and for two-layer models the composition patches and
single-head ablations on the evaluation batch — for the best previous-token head of layer 0, as a
control the key patch with the other layer-0 head, and the three patches for the best
duplicate-token head of layer 0 (the other way to find "last time"). Training every run takes minutes, so the results
are stored in ``helpers/data/circuit_sweep.npz`` (``make circuit-data`` regenerates it with this
module) together with the ``two_layers`` seed-0 parameters at step :data:`PREFIX_STEP`, which
the tests retrain and compare bit for bit.
"""
from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from ..render.validation import choice
from .interventions import CLEAN, ablation_effects, composition_effects, patch
from .model import CONFIG, Config, Model
from .task import TASK, Task
from .train import eval_batch, train

STEPS = 2000
SEEDS = (0, 1, 2, 3, 4)
LR_SEEDS = (0, 1, 2)
PREFIX_STEP = 100
FORMED = 0.5      # a run "formed an induction head" when its best last-layer induction score ends ≥ 0.5
DATA = "circuit_sweep.npz"
CURVES = ("repeat_loss", "other_loss", "previous", "induction", "duplicate")

VARIANTS = {
    "two_layers": (CONFIG, TASK, 3e-3, SEEDS),
    "one_layer": (Config(layers=1), TASK, 3e-3, SEEDS),
    "positions_in_stream": (Config(positions="residual"), TASK, 3e-3, SEEDS),
    "fixed_task": (CONFIG, Task(fixed=True), 3e-3, SEEDS),
    "lr_low": (CONFIG, TASK, 1e-3, LR_SEEDS),
    "lr_high": (CONFIG, TASK, 1e-2, LR_SEEDS),
}


@dataclass(frozen=True)
class Summary:
    """One run of the sweep. ``curves[name]``: the values at ``steps`` (best head of layer 0 for
    ``previous`` and ``duplicate``, of the last layer for ``induction``); ``final``: per-head
    scores ``(layers, heads)`` and losses at the end; ``patches`` / ``ablations``: repeat loss
    and best last-layer induction score, ``{name: (loss, induction)}``."""

    variant: str
    seed: int
    steps: np.ndarray
    curves: dict
    drop: tuple
    final: dict
    patches: dict
    ablations: dict
    transfer: dict

    @property
    def formed(self) -> bool:
        return bool(self.curves["induction"][-1] >= FORMED)

    def value_at(self, name: str, step: int) -> float:
        return float(self.curves[name][list(self.steps).index(step)])


def summarize(variant: str, seed: int, run) -> Summary:
    """The :class:`Summary` of a finished :class:`helpers.circuit.train.Run`."""
    last = run.config.layers - 1
    curves = {"repeat_loss": run.curve("repeat_loss"), "other_loss": run.curve("other_loss"),
              "previous": run.curve("previous", 0), "induction": run.curve("induction", last),
              "duplicate": run.curve("duplicate", 0)}
    end = run.evals[-1]
    final = {"previous": end.previous, "induction": end.induction, "duplicate": end.duplicate,
             "repeat_loss": end.repeat_loss, "other_loss": end.other_loss}
    model = run.checkpoints[run.steps]
    batch = eval_batch(run.task)
    patches, ablations = {}, {}
    if run.config.layers == 2:
        head, _ = end.best("previous", 0)
        patches = {name: _pair(s) for name, s in composition_effects(model, batch, (0, head)).items()}
        patches["head"] = (float(head), float("nan"))
        if run.config.heads == 2:   # the control: the same key patch with the other layer-0 head
            patches["k_other"] = _pair(patch(model, batch, (0, 1 - head), "k"))
        dup, _ = end.best("duplicate", 0)   # the circuit that finds "last time" by the token itself
        for name, s in composition_effects(model, batch, (0, dup)).items():
            if name != CLEAN:
                patches[f"{name}_duplicate"] = _pair(s)
        patches["duplicate_head"] = (float(dup), float("nan"))
        ablations = {_key(k): _pair(s) for k, s in ablation_effects(model, batch).items()}
    transfer = {}
    if run.task.fixed:
        from .scores import head_scores

        other = head_scores(model, eval_batch(TASK))
        transfer = {"repeat_loss": other.repeat_loss, "induction": float(other.induction[last].max())}
    return Summary(variant, seed, np.array(run.eval_steps), curves, run.drop(), final, patches, ablations, transfer)


def _pair(scores) -> tuple:
    return float(scores.repeat_loss), float(scores.induction[-1].max())


def _key(k) -> str:
    return k if k == CLEAN else f"L{k[0]}H{k[1]}"


def run_variant(variant: str, seed: int, *, steps: int = STEPS) -> tuple:
    """Train one run of the sweep: ``(Run, Summary)``."""
    config, task, lr, _ = VARIANTS[choice("variant", variant, VARIANTS)]
    checkpoints = (steps, PREFIX_STEP) if steps > PREFIX_STEP else (steps,)
    run = train(config, task, steps=steps, lr=lr, seed=seed, checkpoints=checkpoints)
    return run, summarize(variant, seed, run)


# ---- the stored results ----------------------------------------------------------------------------
def save(path, summaries, prefix: Model) -> None:
    """Write ``summaries`` and the prefix checkpoint to ``path`` (an ``.npz``)."""
    arrays, meta = {}, []
    for s in summaries:
        tag = f"{s.variant}/{s.seed}"
        arrays[f"{tag}/steps"] = s.steps
        for name in CURVES:
            arrays[f"{tag}/curve/{name}"] = s.curves[name]
        for name in ("previous", "induction", "duplicate"):
            arrays[f"{tag}/final/{name}"] = s.final[name]
        meta.append({"variant": s.variant, "seed": s.seed, "drop": list(s.drop),
                     "losses": [s.final["repeat_loss"], s.final["other_loss"]],
                     "patches": s.patches, "ablations": s.ablations, "transfer": s.transfer})
    for name, value in prefix.params.items():
        arrays[f"prefix/{name}"] = value
    arrays["meta"] = np.array(json.dumps({"runs": meta, "steps": STEPS, "prefix_step": PREFIX_STEP,
                                          "variants": {k: [str(v[0]), str(v[1]), v[2], list(v[3])]
                                                       for k, v in VARIANTS.items()}}))
    np.savez_compressed(path, **arrays)


def load(path=None) -> dict:
    """``{variant: [Summary per seed]}`` from the stored file (default: the package's)."""
    return _load(None if path is None else str(path))


@lru_cache(maxsize=2)
def _load(path) -> dict:
    source = resources.files("helpers") / "data" / DATA if path is None else path
    with resources.as_file(source) if path is None else nullcontext(path) as file, np.load(file) as data:
        meta = json.loads(str(data["meta"]))
        out: dict = {}
        for m in meta["runs"]:
            tag = f"{m['variant']}/{m['seed']}"
            final = {name: data[f"{tag}/final/{name}"] for name in ("previous", "induction", "duplicate")}
            final["repeat_loss"], final["other_loss"] = m["losses"]
            summary = Summary(m["variant"], m["seed"], data[f"{tag}/steps"],
                              {name: data[f"{tag}/curve/{name}"] for name in CURVES}, tuple(m["drop"]), final,
                              {k: tuple(v) for k, v in m["patches"].items()},
                              {k: tuple(v) for k, v in m["ablations"].items()}, m["transfer"])
            out.setdefault(m["variant"], []).append(summary)
        prefix = {key.split("/", 1)[1]: data[key] for key in data.files if key.startswith("prefix/")}
    out["_prefix"] = Model(CONFIG, prefix)
    return out


def prefix_checkpoint() -> Model:
    """The stored ``two_layers`` seed-0 parameters at step :data:`PREFIX_STEP` (float64)."""
    return load()["_prefix"]


def table(variant: str) -> list:
    """The stored runs of ``variant``, one :class:`Summary` per seed."""
    return load()[choice("variant", variant, VARIANTS)]
