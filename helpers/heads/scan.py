"""The precomputed ablation scans behind ``12_heads_at_work``'s null distributions.

Removing every one of SmolLM2's 270 heads on its own, three ways (zero, mean, resample), and ≥ 30
random sets of k heads for each k takes about half an hour of one CPU core: too long for a
notebook that must run in a minute. :func:`compute` runs them with the project's own code
(:class:`helpers.heads.HeadStudy` on :data:`SETUP`'s sequences); ``make head-scan``
(``tools/data/head_scan.py``) stores the result in ``helpers/data/head_scan.npz`` (small, versioned,
byte-stable: :func:`helpers.render.npz.write_npz`), and a test recomputes randomly chosen entries.
:func:`load_scan` reads it back as a :class:`Scan`.

Every loss is kept per sequence, so every table can show the spread over sequences.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..render.npz import check_arrays, read_npz
from ..render.validation import (
    entries,
    head_pair,
    head_pairs,
    instance,
    integer,
    nonneg_int,
    one_of,
    positive_int,
    work_limit,
)
from .experiment import ABLATIONS, HeadStudy, study
from .scores import random_heads, top_heads

#: where the scan lives (in the package: the notebook reads it offline)
SCAN_PATH = Path(__file__).parent.parent / "data" / "head_scan.npz"
#: bump when the file's layout or the computation changes
FORMAT = 1
#: the entries every scan holds whatever its kinds and sizes (what load_scan requires)
ENTRIES = ("format", "kinds", "draw_kinds", "clean", "ks", "draw_ks", "set_scores", "draw_heads", "tracked",
           "tracked_scores", "clean_tracked")
#: the study the scan is run on: 12 sequences, and 12 others for mean- and resample-ablation
SETUP = {"length": 16, "seeds": tuple(range(12)), "reference_seeds": tuple(range(1000, 1012))}
#: sizes of the top-k sets
KS = (1, 2, 4, 8)
#: sizes of the random sets (k = 1's null is every single head)
DRAW_KS = (2, 4, 8)
#: random sets drawn for each k in DRAW_KS
DRAWS = 40
#: most random sets compute() draws per k
MAX_DRAWS = 1000
#: ablation kinds the random sets are run with
DRAW_KINDS = ABLATIONS
#: the scores whose top-k sets are removed together
SET_SCORES = ("induction", "previous", "duplicate")
#: the scores recorded for the tracked heads after every single-head ablation
TRACKED_SCORES = ("previous", "induction", "duplicate")
#: how many top heads of each tracked score are tracked
TRACKED_TOP = 10
COPIES = ("first", "second")
#: how far a recomputed entry (nats) may lie from the stored one: another CPU's BLAS kernels round the
#: float32 forward differently; set from the spread measured across OpenBLAS's kernel families
#: (tests/unit/test_heads_scan.py says the figures), far below the 0.01 nats any table prints
RECOMPUTE_TOLERANCE = 1e-3


def random_set(k: int, draw: int, shape: tuple) -> list:
    """Random set number ``draw`` of ``k`` heads, drawn uniformly from all heads (seed
    ``50000 + 1000·k + draw``): the null that a top-k set is compared with."""
    draw = nonneg_int("draw", draw)
    return random_heads(k, 50_000 + 1000 * positive_int("k", k) + draw, shape)


@lru_cache(maxsize=1)
def scan_study() -> HeadStudy:
    """The :class:`HeadStudy` of :data:`SETUP` on SmolLM2-135M (loaded once; the same object as
    :func:`helpers.heads.study` with the same length and seeds)."""
    run = study(SETUP["length"], SETUP["seeds"])  # the notebook's cached study: one run, not two
    if tuple(run.reference_seeds) != SETUP["reference_seeds"]:
        raise RuntimeError(f"the cached study's reference seeds {run.reference_seeds} are not SETUP's")
    return run


def tracked_heads(study: HeadStudy) -> list:
    """The heads whose scores every single-head ablation records: the top :data:`TRACKED_TOP` of
    each of :data:`TRACKED_SCORES`, in that order, without repeats."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    seen = []
    for name in TRACKED_SCORES:
        top = top_heads(study.scores[name], min(TRACKED_TOP, study.scores[name].size))
        seen += [h for h in top if h not in seen]
    return seen


def _losses(result) -> np.ndarray:
    return np.stack([result["first"], result["second"]])  # (2, seeds)


def compute(study: HeadStudy, *, ks=KS, draw_ks=DRAW_KS, draws: int = DRAWS, kinds=ABLATIONS,
            draw_kinds=DRAW_KINDS, progress=None) -> dict:
    """Every scan as a dict of arrays (see :class:`Scan` for their meaning). ``progress``, if
    given, is called with a short text after each group."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a function of one text, got {type(progress).__name__}")
    ks = tuple(positive_int("ks", k) for k in entries("ks", ks, "set sizes", limit=16))
    draw_ks = tuple(positive_int("draw_ks", k) for k in entries("draw_ks", draw_ks, "set sizes", limit=16))
    draws = work_limit("draws", positive_int("draws", draws), MAX_DRAWS,
                       "every random set is one forward pass per ablation kind; the stored scan has 40")
    kinds = tuple(one_of("kinds", k, ABLATIONS) for k in entries("kinds", kinds, "ablation kinds"))
    draw_kinds = tuple(one_of("draw_kinds", k, ABLATIONS) for k in entries("draw_kinds", draw_kinds, "ablation kinds"))
    say = progress or (lambda text: None)
    layers, n_heads = study.shape
    tracked = tracked_heads(study)
    out = {"format": np.array(FORMAT), "length": np.array(study.length), "seeds": np.array(study.seeds),
           "reference_seeds": np.array(study.reference_seeds), "ks": np.array(ks), "draw_ks": np.array(draw_ks),
           "kinds": np.array(kinds), "draw_kinds": np.array(draw_kinds), "tracked": np.array(tracked),
           "tracked_scores": np.array(TRACKED_SCORES), "set_scores": np.array(SET_SCORES),
           "clean": _losses(study.intervene([])),
           "clean_tracked": np.array([[study.scores[s][h] for h in tracked] for s in TRACKED_SCORES])}
    for kind in kinds:
        single = np.empty((2, layers, n_heads, len(study.seeds)))
        after = np.empty((len(TRACKED_SCORES), layers, n_heads, len(tracked)), np.float32)
        for layer in range(layers):
            for h in range(n_heads):
                result = study.intervene([(layer, h)], kind)
                single[:, layer, h] = _losses(result)
                for j, name in enumerate(TRACKED_SCORES):
                    mean = result["scores"][name].mean(axis=0)
                    after[j, layer, h] = [mean[t] for t in tracked]
            say(f"single {kind}: layer {layer} done")
        out[f"single_{kind}"] = single
        out[f"tracked_after_{kind}"] = after
        out[f"sets_{kind}"] = np.stack([np.stack([_losses(study.intervene(study.top(name, k), kind)) for k in ks])
                                        for name in SET_SCORES])  # (scores, ks, 2, seeds)
        say(f"top-k sets {kind} done")
    heads = np.full((len(draw_ks), draws, max(draw_ks), 2), -1, dtype=np.int64)
    for i, k in enumerate(draw_ks):
        for d in range(draws):
            heads[i, d, :k] = random_set(k, d, study.shape)
    out["draw_heads"] = heads
    for kind in draw_kinds:
        out[f"draws_{kind}"] = np.stack([np.stack([_losses(study.intervene(
            [tuple(p) for p in heads[i, d, :k]], kind)) for d in range(draws)]) for i, k in enumerate(draw_ks)])
        say(f"random sets {kind} done")  # (ks, draws, 2, seeds)
    return out


@dataclass(frozen=True)
class Scan:
    """The stored scans. Losses are next-token losses (nats) on the first and second copy, per
    sequence; "change" is the loss with the heads removed minus the clean loss.

    - ``single[kind]``: ``(2, layers, heads, seeds)``, every head removed on its own;
    - ``sets[kind]``: ``(len(set_scores), len(ks), 2, seeds)``, the top-k heads of each score;
    - ``draws[kind]``: ``(len(draw_ks), draws, 2, seeds)``, random sets (``draw_heads`` lists them);
    - ``tracked_after[kind]``: ``(len(tracked_scores), layers, heads, len(tracked))``, the tracked
      heads' scores (mean over sequences) with each single head removed; ``clean_tracked`` without.
    """

    arrays: dict

    def __post_init__(self):
        check_arrays(self.arrays, ENTRIES, "a head scan", "helpers.heads.load_scan")

    def __getattr__(self, name):
        if name == "arrays":
            raise AttributeError(name)
        try:
            return self.arrays[name]
        except KeyError:
            raise AttributeError(name) from None

    def _by_kind(self, entry: str, kinds: str = "kinds") -> dict:
        """``{kind: arrays[f"{entry}_{kind}"]}`` over the kinds the scan lists under ``kinds``."""
        return {k: self.arrays[f"{entry}_{k}"] for k in self.arrays[kinds]}

    single = property(lambda self: self._by_kind("single"), doc="``{kind: single_kind}``")
    sets = property(lambda self: self._by_kind("sets"), doc="``{kind: sets_kind}``")
    tracked_after = property(lambda self: self._by_kind("tracked_after"), doc="``{kind: tracked_after_kind}``")
    draws = property(lambda self: self._by_kind("draws", "draw_kinds"), doc="``{kind: draws_kind}``")

    def copy_index(self, copy: str) -> int:
        return COPIES.index(one_of("copy", copy, COPIES))

    def single_change(self, kind: str = "zero", copy: str = "second") -> np.ndarray:
        """``(layers, heads, seeds)``: the loss change on ``copy`` with each head removed by ``kind``."""
        c = self.copy_index(copy)
        return self.single[one_of("kind", kind, tuple(self.single))][c] - self.clean[c][None, None, :]

    def set_change(self, score: str, k: int, kind: str = "zero", copy: str = "second") -> np.ndarray:
        """``(seeds,)``: the loss change with the top-``k`` heads of ``score`` removed."""
        s = list(self.set_scores).index(one_of("score", score, tuple(self.set_scores)))
        i = list(self.ks).index(one_of("k", k, tuple(int(x) for x in self.ks)))
        c = self.copy_index(copy)
        return self.sets[one_of("kind", kind, tuple(self.sets))][s, i, c] - self.clean[c]

    def draw_change(self, k: int, kind: str = "zero", copy: str = "second") -> np.ndarray:
        """``(draws, seeds)``: the loss change with each random set of ``k`` heads removed."""
        i = list(self.draw_ks).index(one_of("k", k, tuple(int(x) for x in self.draw_ks)))
        c = self.copy_index(copy)
        return self.draws[one_of("kind", kind, tuple(self.draws))][i, :, c] - self.clean[c][None, :]

    def null(self, k: int, kind: str = "zero", copy: str = "second") -> np.ndarray:
        """The null distribution of the mean (over sequences) loss change for ``k`` random heads:
        every single head for k = 1, the random sets otherwise."""
        k = integer("k", k, low=1)
        if k == 1:
            return self.single_change(kind, copy).mean(axis=-1).ravel()
        return self.draw_change(k, kind, copy).mean(axis=-1)

    def score_after(self, removed, score: str, head, kind: str = "zero") -> float:
        """``head``'s ``score`` (mean over sequences) with the single head ``removed`` taken out by
        ``kind``; ``head`` must be one of :attr:`tracked`."""
        tracked = [tuple(int(v) for v in p) for p in self.tracked]
        layers, heads = self.tracked_after["zero"].shape[1:3]
        head, removed = (head_pair(name, value, layers, heads) for name, value in (("head", head), ("removed", removed)))
        if head not in tracked:
            raise ValueError(f"head must be one of the tracked heads {tracked}, got {head!r}")
        s = list(self.tracked_scores).index(one_of("score", score, tuple(self.tracked_scores)))
        return float(self.tracked_after[one_of("kind", kind, tuple(self.tracked_after))][s, removed[0], removed[1],
                                                                                         tracked.index(head)])

    def draw_set(self, k: int, draw: int) -> list:
        """The heads of random set ``draw`` of size ``k``."""
        i = list(self.draw_ks).index(one_of("k", k, tuple(int(x) for x in self.draw_ks)))
        draw = integer("draw", draw, low=0, high=self.draw_heads.shape[1] - 1)
        return [tuple(int(v) for v in p) for p in self.draw_heads[i, draw, :k]]


def load_scan(path=None) -> Scan:
    """Read the stored scan (default :data:`SCAN_PATH`); a ``ValueError`` naming ``path`` if it is
    missing or from another format."""
    return Scan(read_npz(SCAN_PATH if path is None else path, what="a head scan .npz (written by `make head-scan`)",
                         remedy="regenerate it with `make head-scan`", format_version=FORMAT, keys=ENTRIES))


def recompute(study: HeadStudy, entry: tuple) -> np.ndarray:
    """Recompute one stored entry, ``(group, kind, heads)`` with ``group`` one of ``"single"``,
    ``"sets"``, ``"draws"``: the ``(2, seeds)`` first- and second-copy losses."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    if not isinstance(entry, tuple) or len(entry) != 3:
        raise TypeError(f"entry must be a (group, kind, heads) tuple, got {entry!r:.60}")
    group, kind, heads = entry
    one_of("group", group, ("single", "sets", "draws"))
    head_pairs("heads", heads, *study.shape)
    return _losses(study.intervene(list(heads), kind))
