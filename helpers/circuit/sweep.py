"""What changes the birth of the circuit: one small sweep, several seeds each (``11_learning_a_circuit``).

Variants of the notebook's run (:data:`VARIANTS`), each trained from :data:`SEEDS` for
:data:`STEPS` steps by :func:`helpers.circuit.trainer.train`:

- ``two_layers`` — the notebook's model and task;
- ``one_layer`` — the same with one layer: a head can find the earlier copy of the current token,
  but nothing before it has written "the token before me was …" into the keys;
- ``positions_in_stream`` — two layers with the positions added to the token embeddings
  (GPT-2's way) instead of to the queries' and keys' inputs only;
- ``fixed_task`` — two layers trained on the fixed-length, fixed-offset variant, where positions
  alone find the target; also scored on the random-offset sequences (``transfer``);
- ``lr_low`` / ``lr_high`` — learning rate 1e-3 and 1e-2 instead of 3e-3.

Per run it keeps the curves (every :data:`helpers.circuit.trainer.EVAL_EVERY` steps), the drop
(:meth:`TrainingRun.drop`), the scores at the end, and for two-layer models the composition patches and
single-head ablations on the evaluation batch — for the best previous-token head of layer 0, as a
control the key patch with the other layer-0 head, and the three patches for the best
duplicate-token head of layer 0 (the other way to find "last time"). Training every run takes minutes, so the results
are stored in ``helpers/data/circuit_sweep.npz`` (``make circuit-data`` regenerates it with this
module) together with the ``two_layers`` seed-0 parameters at step :data:`PREFIX_STEP`, which
the tests retrain and compare bit for bit, and at the last step (:func:`final_checkpoint`: the
trained model the notebook takes apart with interventions the stored numbers do not cover).

**One arithmetic on every x86-64 CPU.** The same code gives different last bits on different CPUs:
OpenBLAS picks its kernels by CPU, numpy dispatches AVX2/AVX-512 loops, and glibc's ``exp``/``log``
have FMA variants. Both the generator (``tools/data/circuit_data.py``) and the bit-for-bit test
therefore run in the pinned environment of ``tools/data/pinned.py`` (one BLAS thread with OpenBLAS's
baseline kernels, numpy's dispatched features off, glibc's FMA/AVX2 libm variants off), the one the
head scan's generator uses too.
"""
from __future__ import annotations

import json
import os
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np

from ..render.npz import NpzError, read_npz, write_npz
from ..render.validation import as_float_array, choice, finite_scalar, integer
from ..render.validation import seed as check_seed
from .experiments import CLEAN, ablation_effects, composition_effects, patch
from .model import CONFIG, Config, Model
from .scores import head_scores
from .task import TASK, Task
from .trainer import DROP_WINDOW, TrainingRun, _steepest_drop, eval_batch, train

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
    and best last-layer induction score, ``{name: (loss, induction)}``; ``heads``: which layer-0
    head the patches took as the best ``previous``-token and ``duplicate``-token head (two-layer
    runs); ``transfer``: the fixed variant scored on the random-offset sequences."""

    variant: str
    seed: int
    steps: np.ndarray
    curves: dict
    drop: tuple
    final: dict
    patches: dict
    ablations: dict
    transfer: dict
    heads: dict = field(default_factory=dict)

    def __post_init__(self):
        choice("variant", self.variant, VARIANTS)
        check_seed("seed", self.seed)
        steps = np.asarray(self.steps) if isinstance(self.steps, (list, tuple, np.ndarray)) else self.steps
        if not isinstance(steps, np.ndarray) or steps.ndim != 1 or steps.dtype.kind not in "iu" or len(steps) < 2:
            raise TypeError(f"steps must be a 1-D integer array of the evaluated steps, got {self.steps!r:.60}")
        if not isinstance(self.curves, dict) or set(self.curves) != set(CURVES):
            raise TypeError(f"curves must be a dict with the keys {CURVES}, got {self.curves!r:.60}")
        for name in CURVES:
            as_float_array(f"curves[{name!r}]", self.curves[name], shape=(len(steps),))
        if (not isinstance(self.drop, (tuple, list)) or len(self.drop) != 2
                or any(int(integer("drop", d, low=0)) not in steps for d in self.drop)):
            raise ValueError(f"drop must be a pair (start, end) of evaluated steps, got {self.drop!r:.60}")
        for name in ("final", "patches", "ablations", "transfer", "heads"):
            value = getattr(self, name)
            if not isinstance(value, dict):
                raise TypeError(f"{name} must be a dict, got {type(value).__name__} {value!r:.60}")
        for name in ("previous", "induction", "duplicate", "repeat_loss", "other_loss"):
            if name not in self.final:
                raise ValueError(f"final must hold {name!r}, got the keys {sorted(self.final)}")
            as_float_array(f"final[{name!r}]", self.final[name], ndim=(0, 2))
        for name in ("patches", "ablations"):
            for key, pair in getattr(self, name).items():
                as_float_array(f"{name}[{key!r}]", pair, shape=(2,))
        for key, value in self.transfer.items():
            finite_scalar(f"transfer[{key!r}]", value)
        for key, value in self.heads.items():
            integer(f"heads[{key!r}]", value, low=0)

    @property
    def formed(self) -> bool:
        return bool(self.curves["induction"][-1] >= FORMED)

    @property
    def before_drop(self) -> int:
        """The step one :attr:`drop` width before the drop starts (0 at the earliest): the steepest
        window is compared with the equally wide window just before it."""
        start, end = self.drop
        return max(start - (end - start), 0)

    def value_at(self, name: str, step: int) -> float:
        name = choice("name", name, CURVES)
        step = integer("step", step, low=0)
        if step not in self.steps:
            raise ValueError(f"step must be one of the evaluated steps (0, {self.steps[1]}, …, {self.steps[-1]}), got {step}")
        return float(self.curves[name][list(self.steps).index(step)])

    def window(self, width: int = DROP_WINDOW) -> tuple:
        """``(start, end)``: the ``width`` steps over which the repeated tokens' loss fell the most
        (``width`` = :data:`helpers.circuit.trainer.DROP_WINDOW` gives the stored :attr:`drop`)."""
        return _steepest_drop(self.steps, self.curves["repeat_loss"], width, "width")

    def share_of_top(self, name: str, step: int) -> float:
        """The curve ``name`` at ``step`` as a share of its highest value over the whole run."""
        top = float(self.curves[choice("name", name, CURVES)].max())
        if top <= 0:
            raise ValueError(f"name must be a curve with a positive maximum, got {name!r} (maximum {top:g})")
        return self.value_at(name, step) / top

    def reaches(self, name: str, share: float = 0.98) -> int:
        """The first evaluated step at which the curve ``name`` reaches ``share`` of its highest value."""
        share = finite_scalar("share", share, low=0, high=1, low_open=True)
        curve = self.curves[choice("name", name, CURVES)]
        return int(self.steps[np.argmax(curve >= share * curve.max())])


def summarize(variant: str, seed: int, run) -> Summary:
    """The :class:`Summary` of a finished :class:`helpers.circuit.trainer.TrainingRun`."""
    variant = choice("variant", variant, VARIANTS)
    seed = check_seed("seed", seed)
    if not isinstance(run, TrainingRun) or not run.evals or run.steps not in run.checkpoints:
        raise TypeError(f"run must be a finished helpers.circuit.trainer.TrainingRun with a checkpoint at its last step, "
                        f"got {type(run).__name__} {run!r:.60}")
    last = run.config.layers - 1
    curves = {"repeat_loss": run.curve("repeat_loss"), "other_loss": run.curve("other_loss"),
              "previous": run.curve("previous", 0), "induction": run.curve("induction", last),
              "duplicate": run.curve("duplicate", 0)}
    end = run.evals[-1]
    final = {"previous": end.previous, "induction": end.induction, "duplicate": end.duplicate,
             "repeat_loss": end.repeat_loss, "other_loss": end.other_loss}
    model = run.checkpoints[run.steps]
    batch = eval_batch(run.task)
    patches, ablations, heads = {}, {}, {}
    if run.config.layers == 2:
        head, _ = end.best("previous", 0)
        patches = {name: _pair(s) for name, s in composition_effects(model, batch, (0, head)).items()}
        if run.config.heads == 2:   # the control: the same key patch with the other layer-0 head
            patches["k_other"] = _pair(patch(model, batch, (0, 1 - head), "k"))
        dup, _ = end.best("duplicate", 0)   # the circuit that finds "last time" by the token itself
        for name, s in composition_effects(model, batch, (0, dup)).items():
            if name != CLEAN:
                patches[f"{name}_duplicate"] = _pair(s)
        heads = {"previous": head, "duplicate": dup}
        ablations = {_key(k): _pair(s) for k, s in ablation_effects(model, batch).items()}
    transfer = {}
    if run.task.fixed:
        other = head_scores(model, eval_batch(TASK))
        transfer = {"repeat_loss": other.repeat_loss, "induction": float(other.induction[last].max())}
    return Summary(variant, seed, np.array(run.eval_steps), curves, run.drop(), final, patches, ablations, transfer,
                   heads)


def _pair(scores) -> tuple:
    return float(scores.repeat_loss), float(scores.induction[-1].max())


def _key(k) -> str:
    return k if k == CLEAN else f"L{k[0]}H{k[1]}"


def run_variant(variant: str, seed: int, *, steps: int = STEPS) -> tuple:
    """Train one run of the sweep: ``(TrainingRun, Summary)``."""
    config, task, lr, _ = VARIANTS[choice("variant", variant, VARIANTS)]
    seed = check_seed("seed", seed)
    steps = integer("steps", steps, low=DROP_WINDOW)   # the summary reads the steepest DROP_WINDOW steps
    checkpoints = (steps, PREFIX_STEP) if steps > PREFIX_STEP else (steps,)
    run = train(config, task, steps=steps, lr=lr, seed=seed, checkpoints=checkpoints)
    return run, summarize(variant, seed, run)


# ---- the stored results ----------------------------------------------------------------------------
def _check_path(path) -> str:
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or pathlib.Path), got {type(path).__name__} {path!r:.60}")
    return os.fspath(path)


def save(path, summaries, prefix: Model, *, final: Model | None = None, unpinned=()) -> None:
    """Write ``summaries`` and the prefix checkpoint to ``path`` (an ``.npz``; ``prefix=None``: a part
    of the sweep without it, see ``tools/data/circuit_data.py --merge``); ``final``: the same run's
    parameters at its last step. ``unpinned``: the ``(variant, seed)`` runs that were trained outside
    the pinned environment (recorded, see :func:`unpinned_runs`)."""
    path = _check_path(path)
    if (isinstance(summaries, (str, bytes, dict)) or not isinstance(summaries, (list, tuple))
            or not summaries or not all(isinstance(s, Summary) for s in summaries)):
        raise TypeError(f"summaries must be a non-empty list of helpers.circuit.sweep.Summary, got {summaries!r:.60}")
    for name, model in (("prefix", prefix), ("final", final)):
        if model is not None and not isinstance(model, Model):
            raise TypeError(f"{name} must be a helpers.circuit.Model (the stored checkpoint) or None (a part of the "
                            f"sweep, merged later), got {type(model).__name__}")
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
                     "patches": s.patches, "ablations": s.ablations, "transfer": s.transfer, "heads": s.heads})
    for name, value in (prefix.params.items() if prefix is not None else ()):
        arrays[f"prefix/{name}"] = value
    for name, value in (final.params.items() if final is not None else ()):
        arrays[f"checkpoint/{name}"] = value
    unpinned = sorted([str(v), int(seed)] for v, seed in unpinned)
    arrays["meta"] = np.array(json.dumps({"runs": meta, "steps": STEPS, "prefix_step": PREFIX_STEP, "unpinned": unpinned,
                                          "variants": {k: [str(v[0]), str(v[1]), v[2], list(v[3])]
                                                       for k, v in VARIANTS.items()}}))
    write_npz(arrays, path)


def load(path=None) -> dict:
    """``{variant: [Summary per seed]}`` from the stored file (default: the package's)."""
    if path is None:
        return _load(None)
    path = _check_path(path)
    if not os.path.isfile(path):
        raise ValueError(f"path must name an existing .npz written by save(), got {path!r}")
    try:
        return _load(path)
    except NpzError:
        raise
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"path must be a circuit sweep .npz written by save(), got {path!r} ({exc})") from None


@lru_cache(maxsize=2)
def _load(path) -> dict:
    source = resources.files("helpers") / "data" / DATA if path is None else path
    with resources.as_file(source) if path is None else nullcontext(path) as file:
        data = read_npz(file, what="a circuit sweep .npz written by save()", remedy="run make circuit-data",
                        keys=("meta",))
        meta = json.loads(str(data["meta"]))
        out: dict = {}
        for m in meta["runs"]:
            tag = f"{m['variant']}/{m['seed']}"
            final = {name: data[f"{tag}/final/{name}"] for name in ("previous", "induction", "duplicate")}
            final["repeat_loss"], final["other_loss"] = m["losses"]
            summary = Summary(m["variant"], m["seed"], data[f"{tag}/steps"],
                              {name: data[f"{tag}/curve/{name}"] for name in CURVES}, tuple(m["drop"]), final,
                              {k: tuple(v) for k, v in m["patches"].items()},
                              {k: tuple(v) for k, v in m["ablations"].items()}, m["transfer"], m["heads"])
            out.setdefault(m["variant"], []).append(summary)
        prefix = {key.split("/", 1)[1]: data[key] for key in data if key.startswith("prefix/")}
        final = {key.split("/", 1)[1]: data[key] for key in data if key.startswith("checkpoint/")}
    out["_prefix"] = Model(CONFIG, prefix) if prefix else None
    out["_final"] = Model(CONFIG, final) if final else None
    out["_unpinned"] = [tuple(r) for r in meta.get("unpinned", [])]
    return out


def prefix_checkpoint() -> Model:
    """The stored ``two_layers`` seed-0 parameters at step :data:`PREFIX_STEP` (float64)."""
    return load()["_prefix"]


def final_checkpoint() -> Model:
    """The stored ``two_layers`` seed-0 parameters at step :data:`STEPS` (float64): the trained model
    whose patches and ablations :func:`table` holds."""
    model = load()["_final"]
    if model is None:
        raise ValueError("the stored sweep holds no final checkpoint: run make circuit-data")
    return model


def unpinned_runs() -> list:
    """The stored ``(variant, seed)`` runs trained outside the pinned environment (on one CPU's own kernels:
    their last bits are that CPU's); ``make circuit-data`` retrains every run pinned and empties this list."""
    return list(load()["_unpinned"])


def table(variant: str) -> list:
    """The stored runs of ``variant``, one :class:`Summary` per seed."""
    return load()[choice("variant", variant, VARIANTS)]
