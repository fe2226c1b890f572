"""The stored sender screen: which earlier head 18.6's keys (or queries) cannot do without (``13_induction_circuit``).

:func:`helpers.heads.sender_screen` removes each of the 162 heads of layers 0–17 from the
receiver's keys only (or queries only) and recomputes the receiver's pattern. Both inputs, zeroed
and mean-replaced, on the study's 12 sequences and again on 12 fresh ones and at another length,
take a few minutes of one CPU core: more than a notebook's minute. Beside each sender of the study's
screen it stores the same-size random-direction control (:func:`same_size_directions`, in the subspace
the sender can write) for each input and removal, which the notebook's explorer shows next to the
sender's own effect. :func:`compute` runs them with
the project's own code; ``make sender-screen`` (``tools/data/sender_screen.py``) stores the
receiver's induction score per sequence in ``helpers/data/sender_screen.npz`` (small, versioned,
byte-stable: :func:`helpers.render.npz.write_npz`), and a test recomputes randomly chosen senders
one by one with :func:`helpers.heads.receiver_pattern`. :func:`load_senders` reads it back.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import real_model
from ..interventions import Replace, Zero
from ..render.npz import check_arrays, read_npz
from ..render.validation import head_pair, instance, integer, one_of
from .experiment import ABLATIONS, HeadStudy
from .patching import INPUTS, _input_names, _sender_write, receiver_pattern, sender_screen
from .scores import induction_score, top_heads

#: where the screen lives (in the package: the notebook reads it offline)
SENDERS_PATH = Path(__file__).parent.parent / "data" / "sender_screen.npz"
#: bump when the file's layout or the computation changes
FORMAT = 2
#: the entries every screen holds (what load_senders requires)
ENTRIES = ("format", "receiver", "kinds", "study_clean", "study_k_zero", "study_k_zero_directions")
#: the receiver: the top induction head of the study
RECEIVER = (18, 6)
#: the inputs screened (values cannot move a pattern: they do not enter the weights)
SCREENED = ("k", "q")
#: how a sender is removed: zeroed, or replaced by its mean output on the reference sequences
KINDS = ABLATIONS[:2]
#: the studies screened: the notebook's (the stored head scan's), 12 fresh sequences, a longer T
STUDIES = {"study": {"length": 16, "seeds": tuple(range(12))},
           "fresh": {"length": 16, "seeds": tuple(range(100, 112))},
           "long": {"length": 24, "seeds": tuple(range(12))}}
#: the replications screen the keys only
REPLICATED = ("k",)
#: the stored random-direction control: how many directions per sender, input and removal, drawn in
#: the subspace the sender can write (the harder control: a random vector of the whole stream barely
#: reaches the receiver's keys), with the seed the notebook's own call uses
CONTROL_DRAWS = 20
CONTROL_WITHIN = "head"
CONTROL_SEED = 0
#: how far a recomputed score (a weight in [0, 1]) may lie from the stored one: the file is written
#: with OpenBLAS's Nehalem kernels and checked on others, whose float32 forward rounds differently;
#: the largest gap measured over 43 recomputed entries is 9.0e-7 (11 times below it), and the notebook
#: prints three decimals
RECOMPUTE_TOLERANCE = 1e-5


def _replacements(study: HeadStudy, kind: str, layers: int):
    return None if kind == "zero" else study.reference_outputs()[:, :layers].mean(axis=0)


def screen_scores(study: HeadStudy, receiver=RECEIVER, inputs=("k",), kind: str = "zero") -> np.ndarray:
    """The receiver's induction score on every sequence with each earlier head removed (``kind``)
    from its ``inputs`` only: ``(receiver's layer, heads, seeds)``."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    kind = one_of("kind", kind, KINDS)
    layer, _ = head_pair("receiver", receiver, *study.shape)
    weights = sender_screen(study.model, study.layer_inputs, receiver, inputs=inputs,
                            replacements=_replacements(study, kind, layer))
    return induction_score(weights, study.length)


def recompute(study: HeadStudy, sender, receiver=RECEIVER, inputs=("k",), kind: str = "zero") -> np.ndarray:
    """One stored entry recomputed sender by sender (:func:`helpers.heads.receiver_pattern`, not
    the batched screen): the receiver's induction score on every sequence, ``(seeds,)``."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    kind = one_of("kind", kind, KINDS)
    sender = head_pair("sender", sender, *study.shape)
    replacement = None if kind == "zero" else study.replacements([sender], "mean")[sender]
    weights = receiver_pattern(study.model, study.layer_inputs, sender, receiver, inputs=inputs,
                               replacement=replacement)
    return induction_score(weights, study.length)


def _upwards(study: HeadStudy, sender, receiver) -> tuple:
    """``(sender, receiver)`` checked as heads of the study's model, the sender in a lower layer."""
    s_layer, s_head = head_pair("sender", sender, *study.shape)
    r_layer, r_head = head_pair("receiver", receiver, *study.shape)
    if s_layer >= r_layer:
        raise ValueError(f"sender must sit in an earlier layer than receiver, got sender {sender} and receiver {receiver}")
    return (s_layer, s_head), (r_layer, r_head)


#: where :func:`same_size_directions` draws: anywhere in the residual stream, or only in the
#: subspace the sender can write (the span of its rows of o_proj)
DIRECTION_SPACES = ("stream", "head")


def same_size_directions(study: HeadStudy, sender, receiver=RECEIVER, *, inputs=("k",), kind: str = "zero",
                         draws: int = 20, seed: int = 0, within: str = "stream") -> np.ndarray:
    """A control for removing ``sender`` from the receiver's ``inputs`` (default its keys; ``("q",)``
    its queries): at every position, subtract instead a random direction as long as what removing
    the sender takes out there (``kind="zero"``: its write; ``"mean"``: its write minus the write of
    its mean output), and recompute the receiver's induction score. If removing the sender moves
    the score and these do not, the effect is what the sender writes, not the size of the change.
    ``within="head"`` draws only in the subspace the sender can write (a harder control: a random
    vector of the whole stream barely reaches the receiver's keys). Returns the mean score over the
    sequences, ``(draws,)``."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    within = one_of("within", within, DIRECTION_SPACES)
    kind = one_of("kind", kind, KINDS)
    picked = _input_names(inputs)
    (s_layer, s_head), (r_layer, r_head) = _upwards(study, sender, receiver)
    draws = integer("draws", draws, low=1, high=200)
    seed = integer("seed", seed, low=0)
    x_s, x = study.layer_inputs[s_layer], study.layer_inputs[r_layer]
    replacement = None if kind == "zero" else study.replacements([(s_layer, s_head)], "mean")[(s_layer, s_head)]
    write = _sender_write(study.model, x_s, s_layer, s_head, replacement)
    rng = np.random.default_rng(seed)
    if within == "stream":
        noise = rng.standard_normal((draws, *write.shape))
    else:
        d = study.model.config.head_dim
        rows = study.model.blocks[s_layer].attention.w_o[s_head * d:(s_head + 1) * d]
        noise = rng.standard_normal((draws, *write.shape[:-1], d)) @ rows
    noise *= np.linalg.norm(write, axis=-1, keepdims=True) / np.linalg.norm(noise, axis=-1, keepdims=True)
    shape = (-1, *x.shape[-2:])
    stacked = np.broadcast_to(x, (draws, *x.shape)).reshape(shape)
    moved = (x[None] - noise.astype(x.dtype)).reshape(shape)
    x_q, x_k, x_v = (moved if c in picked else stacked for c in INPUTS)
    weights = real_model.head_attention(study.model, r_layer, r_head, x_q, x_k=x_k, x_v=x_v).weights
    return induction_score(weights.reshape(draws, *x.shape[:-2], *weights.shape[-2:]), study.length).mean(axis=-1)


def direction_controls(study: HeadStudy, receiver=RECEIVER, inputs: str = "k", kind: str = "zero") -> np.ndarray:
    """:func:`same_size_directions` for every head below the receiver (the stored control's draws,
    seed and space): ``(receiver's layer, heads, CONTROL_DRAWS)``, the receiver's mean induction
    score with each draw subtracted from its ``inputs`` (``"k"`` or ``"q"``) instead of the sender."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    inputs = one_of("inputs", inputs, SCREENED)
    layer, _ = head_pair("receiver", receiver, *study.shape)
    return np.stack([np.stack([same_size_directions(study, (s_layer, s_head), receiver, inputs=(inputs,), kind=kind,
                                                    draws=CONTROL_DRAWS, seed=CONTROL_SEED, within=CONTROL_WITHIN)
                               for s_head in range(study.shape[1])]) for s_layer in range(layer)])


def between_change(study: HeadStudy, sender, receiver=RECEIVER, kind: str = "zero") -> dict:
    """Where a removed sender is made up for before the receiver reads the stream. With ``sender``
    removed (``kind``) from the whole model, the stream entering the receiver's layer differs from
    the clean one by more than the sender's direct write: the layers between respond. Returns
    ``"direct"`` (``x − write``), ``"total"`` (the stream of the run without the sender), the
    receiver's induction score with its keys reading each (``"direct_score"``, ``"total_score"``,
    ``(seeds,)``), and how the layers' response ``total − direct`` relates to the removed write,
    per sequence over every position: ``"share"`` (its component along the write, as a fraction of
    the write: 1 would put the write back) and ``"ratio"`` (its size over the write's)."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    kind = one_of("kind", kind, KINDS)
    (s_layer, s_head), (r_layer, r_head) = _upwards(study, sender, receiver)
    x_s, x = study.layer_inputs[s_layer], study.layer_inputs[r_layer]
    z = real_model.head_attention(study.model, s_layer, s_head, x_s).z
    change = Zero()
    if kind == "mean":
        change = Replace(study.replacements([(s_layer, s_head)], "mean")[(s_layer, s_head)])
        z = z - change.z
    write = real_model.head_write(study.model, s_layer, s_head, z)
    total = real_model.forward(study.model, study.batch, resume=(s_layer, x_s), keep_inputs=True, logits_at=[0],
                               interventions={(s_layer, s_head): change}).layer_inputs[r_layer]
    direct = x - write
    response = total - direct
    scores = {f"{name}_score": induction_score(real_model.head_attention(study.model, r_layer, r_head, x,
                                                                         x_k=stream).weights, study.length)
              for name, stream in (("direct", direct), ("total", total))}
    size = np.sum(write ** 2, axis=(1, 2))
    return {"direct": direct, "total": total, **scores,
            "share": np.sum(response * write, axis=(1, 2)) / size,
            "ratio": np.sqrt(np.sum(response ** 2, axis=(1, 2)) / size)}


def compute(studies: dict, receiver=RECEIVER, progress=None) -> dict:
    """Every screen as a dict of arrays: ``studies`` maps each name of :data:`STUDIES` to its
    :class:`HeadStudy`. ``progress``, if given, is called with a short text after each screen."""
    if not isinstance(studies, dict) or set(studies) != set(STUDIES):
        raise TypeError(f"studies must be a dict with the keys {sorted(STUDIES)}, got {type(studies).__name__}")
    for name, study in studies.items():
        instance(f"studies[{name!r}]", study, HeadStudy, "helpers.heads.HeadStudy")
    receiver = head_pair("receiver", receiver, *studies["study"].shape)
    if receiver[0] == 0:
        raise ValueError(f"receiver must sit above layer 0 (its senders are the heads below it), got {receiver}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a function of one text, got {type(progress).__name__}")
    say = progress or (lambda text: None)
    out = {"format": np.array(FORMAT), "receiver": np.array(receiver), "kinds": np.array(KINDS)}
    for name, study in studies.items():
        out[f"{name}_length"] = np.array(study.length)
        out[f"{name}_seeds"] = np.array(study.seeds)
        out[f"{name}_clean"] = study.sequence_scores["induction"][:, receiver[0], receiver[1]]
        for inputs in SCREENED if name == "study" else REPLICATED:
            for kind in KINDS:
                out[f"{name}_{inputs}_{kind}"] = screen_scores(study, receiver, (inputs,), kind)
                say(f"{name}: {inputs} {kind} done")
                if name == "study":
                    out[f"{name}_{inputs}_{kind}_directions"] = direction_controls(study, receiver, inputs, kind)
                    say(f"{name}: {inputs} {kind} random directions done")
    return out


@dataclass(frozen=True)
class Senders:
    """The stored screen: :meth:`scores` and :meth:`clean` per study of :data:`STUDIES`."""

    arrays: dict

    def __post_init__(self):
        check_arrays(self.arrays, ENTRIES, "a sender screen", "helpers.heads.load_senders")

    @property
    def receiver(self) -> tuple:
        return tuple(int(v) for v in self.arrays["receiver"])

    def clean(self, study: str = "study") -> np.ndarray:
        """``(seeds,)``: the receiver's induction score with nothing removed."""
        return self.arrays[f"{one_of('study', study, tuple(STUDIES))}_clean"]

    def scores(self, inputs: str = "k", kind: str = "zero", study: str = "study") -> np.ndarray:
        """``(receiver's layer, heads, seeds)``: the receiver's induction score with each earlier
        head removed (``kind``) from its ``inputs`` (``"k"`` or ``"q"``) only."""
        study = one_of("study", study, tuple(STUDIES))
        key = f"{study}_{one_of('inputs', inputs, SCREENED)}_{one_of('kind', kind, KINDS)}"
        if key not in self.arrays:
            raise ValueError(f"inputs must be one of {REPLICATED} for study {study!r} (only the keys are "
                             f"replicated), got {inputs!r}")
        return self.arrays[key]

    def directions(self, inputs: str = "k", kind: str = "zero") -> np.ndarray:
        """``(receiver's layer, heads, CONTROL_DRAWS)``: the study's receiver's mean induction score
        with, instead of each earlier head, a random direction as long as what removing it (``kind``)
        takes out of its ``inputs`` subtracted (:func:`direction_controls`)."""
        return self.arrays[f"study_{one_of('inputs', inputs, SCREENED)}_{one_of('kind', kind, KINDS)}_directions"]

    def ranked(self, inputs: str = "k", kind: str = "zero", study: str = "study", k: int = 3) -> list:
        """The ``k`` senders whose removal leaves the receiver's mean score lowest."""
        return top_heads(-self.scores(inputs, kind, study).mean(axis=-1), k)


#: the receiver's inputs a sender can be removed from: the screened two, and the values, which do
#: not enter the weights (removing a sender there leaves the pattern exactly as it was)
ROUTES = (*SCREENED, "v")


def removal_view(study: HeadStudy, stored: Senders, sender, inputs: str = "k", kind: str = "zero",
                 sequence: int = 0) -> dict:
    """One sender removed from the receiver's ``inputs`` (one of :data:`ROUTES`) by ``kind``, read
    from the stored screen ``stored`` where it holds the numbers and recomputed where it holds none:

    - ``"pattern"``: the receiver's pattern on ``sequence``, ``(n, n)``, recomputed
      (:func:`helpers.heads.receiver_pattern`);
    - ``"screen"``: ``(receiver's layer, heads)``, the receiver's induction score (mean over the
      study's sequences) with each earlier head removed the same way; ``"score"`` the sender's entry,
      ``"clean"`` the score with nothing removed, ``"rank"`` how many senders leave a lower score, + 1;
    - ``"directions"``: the stored same-size random-direction control for this sender
      (:func:`direction_controls`), ``(CONTROL_DRAWS,)``; empty for the values.

    For ``inputs="v"`` the screen is the clean score everywhere: the values do not enter the weights."""
    study = instance("study", study, HeadStudy, "helpers.heads.HeadStudy")
    stored = instance("stored", stored, Senders, "helpers.heads.Senders (from helpers.heads.load_senders())")
    inputs = one_of("inputs", inputs, ROUTES)
    kind = one_of("kind", kind, KINDS)
    sequence = integer("sequence", sequence, low=0, high=len(study.seeds) - 1)
    receiver = stored.receiver
    (layer, head), _ = _upwards(study, sender, receiver)
    replacement = None if kind == "zero" else study.replacements([(layer, head)], "mean")[(layer, head)]
    pattern = receiver_pattern(study.model, [x[sequence:sequence + 1] for x in study.layer_inputs], (layer, head),
                               receiver, inputs=(inputs,), replacement=replacement)[0]
    clean = float(stored.clean().mean())
    if inputs == "v":
        screen, directions = np.full((receiver[0], study.shape[1]), clean), np.empty(0)
    else:
        screen, directions = stored.scores(inputs, kind).mean(axis=-1), stored.directions(inputs, kind)[layer, head]
    score = float(screen[layer, head])
    return {"pattern": pattern, "screen": screen, "score": score, "clean": clean, "directions": directions,
            "rank": int((screen < score).sum()) + 1}


def load_senders(path=None) -> Senders:
    """Read the stored screen (default :data:`SENDERS_PATH`); a ``ValueError`` naming ``path`` if it
    is missing or from another format."""
    return Senders(read_npz(SENDERS_PATH if path is None else path,
                            what="a sender screen .npz (written by `make sender-screen`)",
                            remedy="regenerate it with `make sender-screen`", format_version=FORMAT, keys=ENTRIES))
