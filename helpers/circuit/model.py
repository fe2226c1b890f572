"""A small attention-only transformer in numpy: the forward pass (``11_learning_a_circuit``).

Tokens enter as rows of a learned table ``W_E``; ``layers`` layers of causal multi-head attention
each *add* their heads' outputs to the residual stream; ``W_U`` turns the last stream into logits
over the vocabulary (entry ``i`` predicts token ``i + 1``)::

    x₀ = W_E[tokens]
    for each layer l:  x_{l+1} = x_l + Σ_h A_{l,h} (x_l W_V) W_O        (A: causal softmax of q·k/√d)
    logits = x_L W_U

There is no MLP (attention-only, like the small models Elhage et al. 2021 take apart) and no
layer norm, so that everything a layer reads is a plain sum of the embedding and earlier heads'
outputs.

**Positions** are learned vectors ``W_pos`` too. With ``positions="qk"`` (the default) they are
added to the input of the *queries and keys only* — ``q = (x + W_pos) W_Q``, ``k = (x + W_pos)
W_K``, ``v = x W_V`` — so, as with Llama's RoPE (``06_attention_layer``), position decides *where*
a head looks but never travels in the values: what a head writes into the stream is content.
With ``positions="residual"`` (GPT-2's way) they are added to the token embeddings and flow
everywhere.

:func:`forward` keeps every intermediate (:class:`Cache`) for the backward pass
(:mod:`helpers.circuit.backprop`) and takes the interventions of :mod:`helpers.interventions`
(``Zero``, ``Mean``, ``Replace``, ``Patch``, keyed by ``(layer, head)``) that
:mod:`helpers.circuit.experiments` runs: each applies itself through the :class:`HeadHook` of
the head it names.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..attention import causal_mask, target_loss
from ..interventions import PROJECTIONS
from ..render.validation import (
    as_float_array,
    choice,
    finite_result,
    float_dtype,
    integer,
    positive_int,
    quiet_overflow,
    token_ids,
)
from ..render.validation import interventions as check_interventions
from ..render.validation import seed as check_seed

POSITIONS = ("qk", "residual")
PARAMS = ("W_E", "W_pos", "W_Q", "W_K", "W_V", "W_O", "W_U")
MAX_WIDTH = 1024   # largest d_model, vocab or length a Config accepts
MAX_HEADS = 64
MAX_LAYERS = 8


@dataclass(frozen=True)
class Config:
    """The model's sizes: ``d_model`` is split into ``heads`` heads of ``d_model // heads``."""

    vocab: int = 32
    length: int = 32
    d_model: int = 32
    heads: int = 2
    layers: int = 2
    positions: str = "qk"

    def __post_init__(self):
        for name in ("vocab", "length", "d_model"):
            positive_int(name, getattr(self, name), maximum=MAX_WIDTH)
        positive_int("heads", self.heads, maximum=MAX_HEADS)
        positive_int("layers", self.layers, maximum=MAX_LAYERS)
        choice("positions", self.positions, POSITIONS)
        if self.d_model % self.heads:
            raise ValueError(f"d_model must be a multiple of heads, got d_model = {self.d_model}, heads = {self.heads}")

    @property
    def d_head(self) -> int:
        return self.d_model // self.heads

    def shapes(self) -> dict:
        """Every parameter's shape."""
        v, n, d, h, dh, layers = self.vocab, self.length, self.d_model, self.heads, self.d_head, self.layers
        return {"W_E": (v, d), "W_pos": (n, d), "W_Q": (layers, h, d, dh), "W_K": (layers, h, d, dh),
                "W_V": (layers, h, d, dh), "W_O": (layers, h, dh, d), "W_U": (d, v)}

    def size(self) -> int:
        """Number of parameters."""
        return int(sum(np.prod(s) for s in self.shapes().values()))


#: the lesson's model
CONFIG = Config()


@dataclass(frozen=True)
class Model:
    """A :class:`Config` and its parameters (``{name: array}`` with :meth:`Config.shapes`)."""

    config: Config
    params: dict

    def __post_init__(self):
        _check_config(self.config)
        if not isinstance(self.params, dict):
            raise TypeError(f"params must be a dict of arrays, got {type(self.params).__name__}")
        missing = [name for name in PARAMS if name not in self.params]
        if missing:
            raise ValueError(f"params is missing {missing}; it has {sorted(self.params)}")
        for name, shape in self.config.shapes().items():
            value = as_float_array(f"params[{name!r}]", self.params[name], keep_float_dtype=True)
            if value.shape != shape:
                raise ValueError(f"params[{name!r}] must have shape {shape} for {self.config}, got {value.shape}")
            self.params[name] = value   # the same array when one was given (training updates it in place)

    def copy(self, dtype=None) -> "Model":
        """A copy with its own arrays (``dtype``: convert them, e.g. ``np.float32`` to store)."""
        if dtype is not None:
            float_dtype("dtype", dtype)
        return Model(self.config, {name: np.array(value, dtype=dtype) for name, value in self.params.items()})


def init_model(config: Config, seed: int) -> Model:
    """Random float64 parameters (seeded): embeddings ``W_E`` and ``W_pos`` N(0, 1) (PyTorch's
    ``nn.Embedding``), the projections and ``W_U`` N(0, 1/(3·fan_in)) (the spread of PyTorch's
    default ``nn.Linear`` initialisation; fan_in = the rows one output column mixes)."""
    config = _check_config(config)
    rng = np.random.default_rng([check_seed("seed", seed), 11])
    params = {}
    for name, shape in config.shapes().items():
        spread = 1.0 if name in ("W_E", "W_pos") else 1.0 / np.sqrt(3.0 * shape[-2])
        params[name] = rng.standard_normal(shape) * spread
    return Model(config, params)


@dataclass
class Cache:
    """Every intermediate of one forward pass, named as :class:`helpers.real_model.ForwardResult`
    names the same things (its docstring has the table of both models' names and shapes). Per
    layer ``l`` (lists indexed by layer): ``layer_inputs[l]`` the stream entering it ``(B, n, D)``;
    ``q``, ``k``, ``v`` ``(B, H, n, d)``; ``weights`` the attention patterns ``(B, H, n, n)``;
    ``z`` = weights @ v, each head's output before ``W_O`` (what an intervention put in its place,
    for an intervened head). ``final_residual`` is the stream leaving the last layer, ``logits``
    ``(B, n, V)``; ``tokens`` ``(B, n)`` and ``params`` what ran."""

    config: Config
    tokens: np.ndarray
    params: dict
    layer_inputs: list = field(default_factory=list)
    q: list = field(default_factory=list)
    k: list = field(default_factory=list)
    v: list = field(default_factory=list)
    weights: list = field(default_factory=list)
    z: list = field(default_factory=list)
    final_residual: np.ndarray = None
    logits: np.ndarray = None
    intervened: bool = False

    def head_outputs(self, layer: int) -> np.ndarray:
        """What each head of ``layer`` adds to the stream, ``z_h W_O[h]``: ``(B, H, n, D)``."""
        layer = integer("layer", layer, low=0, high=len(self.z) - 1)
        return self.z[layer] @ self.params["W_O"][layer]

    def token_losses(self) -> np.ndarray:
        """``(B, n − 1)``: −log p(token i+1) at entry i."""
        logits = self.logits[:, :-1]
        if not np.isfinite(logits).all():   # a diverged training step: the training loop names lr
            return np.full(logits.shape[:-1], np.nan)
        return target_loss(logits, self.tokens[:, 1:])

    def loss(self) -> float:
        """Mean cross-entropy over every entry of every sequence (the training loss)."""
        return float(self.token_losses().mean())


def forward(model: Model, tokens, *, interventions=None) -> Cache:
    """Run the model on ``tokens`` (``(B, n)`` ids, or one sequence ``(n,)``), keeping every
    intermediate.

    ``interventions``: ``{(layer, head): intervention}`` (:mod:`helpers.interventions`; each applies
    itself through the head's :class:`HeadHook`). ``Zero()``:
    the head's output is not added to the stream. ``Mean()``: its output is replaced, at every
    position, by its mean over the sequences of ``tokens`` (mean ablation: the stream stays near
    where training kept it). ``Replace(z)``: by ``z`` (``(n, d_head)`` or ``(B, n, d_head)``).
    ``Patch(k=stream)``: the head's keys (or queries, values) are computed from ``stream``
    (``(B, n, d_model)``, e.g. the stream entering its layer minus an earlier head's output);
    everything else (its other projections, the stream itself, the unembedding) is unchanged.

    Parameters so large that the logits overflow float64 are a ``ValueError`` naming ``model``
    (never a NaN loss).
    """
    return run(model, tokens, interventions=interventions)


def run(model: Model, tokens, *, interventions=None, name: str = "interventions") -> Cache:
    """:func:`forward` for wrappers such as :func:`helpers.circuit.experiments.ablate`: ``name``
    is the argument the wrapper's caller wrote (e.g. ``"heads"``), so that a message names it."""
    if not isinstance(name, str):
        raise TypeError(f"name must be an argument name (text), got {type(name).__name__}")
    model = _check_model(model)
    config = model.config
    tokens = _check_tokens(tokens, config)
    hook = HeadHook(config, tokens.shape)
    checked = {key: change.checked(f"{name}[{key}]", hook)
               for key, change in check_interventions(name, interventions, config.layers, config.heads).items()}
    return _checked_forward(model.params, config, tokens, checked)


def _checked_forward(p: dict, config: Config, tokens: np.ndarray, *args) -> Cache:
    """:func:`_forward` on checked arguments, refusing parameters whose logits overflow (a training
    run whose learning rate is too high gets there too)."""
    with quiet_overflow():
        cache = _forward(p, config, tokens, *args)
    finite_result(cache.logits, "model's parameters are", "a logit")
    return cache


def _forward(p: dict, config: Config, tokens: np.ndarray, interventions: dict | None = None) -> Cache:
    b, n = tokens.shape
    d_model, h, dh = config.d_model, config.heads, config.d_head
    mask = causal_mask(n)
    interventions = interventions or {}
    cache = Cache(config, tokens, p, intervened=bool(interventions))
    hook = HeadHook(config, tokens.shape)
    pos = p["W_pos"][:n]
    x = p["W_E"][tokens] + (pos if config.positions == "residual" else 0.0)
    for layer in range(config.layers):
        cache.layer_inputs.append(x)
        q, k, v = (head_projection(x, p, config, layer, name) for name in PROJECTIONS)
        weights, z = _attend(q, k, v, mask, dh)                    # (B, H, n, n), (B, H, n, d)
        run = _LayerRun(p, config, layer, mask, {"q": q, "k": k, "v": v}, weights) if interventions else None
        for (at, head), change in interventions.items():
            if at == layer:
                z[:, head] = change.apply(z[:, head], replace(hook, run=run, head=head))
        for name, value in zip(("q", "k", "v", "weights", "z"), (q, k, v, weights, z)):
            getattr(cache, name).append(value)
        # Σ_h z_h W_O[h] as one product: (B·n, H·d) @ (H·d, D)
        x = x + (merge_heads(z) @ p["W_O"][layer].reshape(h * dh, d_model)).reshape(b, n, d_model)
    cache.final_residual = x
    cache.logits = x @ p["W_U"]
    return cache


def _attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray, dh: int) -> tuple:
    """Every head's causal attention at once, ``q``, ``k``, ``v`` ``(B, H, n, d)`` (any number of
    heads ``H``): ``(weights, z)``, the patterns ``(B, H, n, n)`` and ``z = weights @ v``."""
    scores = q @ np.swapaxes(k, -1, -2)
    scores *= 1.0 / np.sqrt(dh)
    scores += mask
    weights = _softmax_in_place(scores)
    return weights, weights @ v


@dataclass(frozen=True, eq=False)
class _LayerRun:
    """One layer of a running :func:`_forward`: its parameters' layer, the causal ``mask``, the
    ``projected`` queries, keys and values of every head and the ``weights``, which a patched head's
    rerun updates in place (the cache keeps them), and ``from_streams``, each patched stream's
    projection for every head."""

    p: dict
    config: Config
    layer: int
    mask: np.ndarray
    projected: dict
    weights: np.ndarray
    from_streams: dict = field(default_factory=dict)

    def rerun(self, head: int, streams: dict) -> np.ndarray:
        """Head ``head`` with its inputs named in ``streams`` (``{"q"|"k"|"v": stream}``) projected
        from those streams: its output ``(B, n, d)``."""
        for name, stream in streams.items():
            key = (name, id(stream))
            if key not in self.from_streams:   # every head from the stream: one BLAS path
                self.from_streams[key] = head_projection(stream, self.p, self.config, self.layer, name)
            self.projected[name][:, head] = self.from_streams[key][:, head]
        one = slice(head, head + 1)
        weights, z = _attend(*(self.projected[name][:, one] for name in PROJECTIONS), self.mask, self.config.d_head)
        self.weights[:, head] = weights[:, 0]
        return z[:, 0]


@dataclass(frozen=True, eq=False)
class HeadHook:
    """One head of :func:`forward` as an intervention sees it (the ``hook`` of ``apply(z, hook)``,
    :mod:`helpers.interventions`). Before the run, for tokens of shape ``ids_shape`` ``(B, n)``, it
    checks what an intervention brings (:meth:`head_output`, :meth:`residual_stream`); at ``head``
    of a running layer it recomputes that head from other streams (:meth:`rerun`)."""

    config: Config
    ids_shape: tuple
    run: _LayerRun | None = None
    head: int | None = None
    #: the argument that holds the sequences, as the forward pass names it
    ids_name = "tokens"

    def head_output(self, name: str, z) -> np.ndarray:
        """``z`` checked as a head's output on these tokens: ``(n, d_head)`` or ``(B, n, d_head)``."""
        b, n = self.ids_shape
        return _check_array(name, z, [(n, self.config.d_head), (b, n, self.config.d_head)])

    def residual_stream(self, name: str, x) -> np.ndarray:
        """``x`` checked as a stream a head can read on these tokens: ``(B, n, d_model)``."""
        return _check_array(name, x, [(*self.ids_shape, self.config.d_model)])

    def rerun(self, q=None, k=None, v=None) -> np.ndarray:
        """The head's output with its queries, keys and values read from the streams ``q``, ``k``,
        ``v`` (``None``: the stream entering its layer, as projected already); its pattern, queries,
        keys and values become the head's in the cache."""
        streams = {name: s for name, s in zip(PROJECTIONS, (q, k, v)) if s is not None}
        return self.run.rerun(self.head, streams)


def head_projection(x: np.ndarray, p: dict, config: Config, layer: int, name: str) -> np.ndarray:
    """Every head's ``name`` projection (``"q"``, ``"k"``, ``"v"``) of the stream ``x``, positions
    added to queries and keys when ``config.positions == "qk"``: ``(B, H, n, d)``. Unchecked (the training
    loops' plumbing, several calls a layer a step): its callers check their arguments."""
    source = x + p["W_pos"][:x.shape[1]] if config.positions == "qk" and name != "v" else x
    return _heads(source, p["W_" + name.upper()][layer])


def _softmax_in_place(scores: np.ndarray) -> np.ndarray:
    """:func:`helpers.attention.softmax` along the last axis, computed in ``scores``' own memory and
    without its argument checks (the training loop calls it three times a step; the tests check that
    both give the same weights). Every row has a finite entry (the causal diagonal)."""
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores


def merge_heads(z: np.ndarray) -> np.ndarray:
    """``(B, H, n, d)`` → ``(B·n, H·d)``: every head's vector side by side, one row per position (unchecked,
    as :func:`head_projection`)."""
    b, h, n, dh = z.shape
    return z.transpose(0, 2, 1, 3).reshape(b * n, h * dh)


def _heads(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``(B, n, D)`` times every head's ``(D, d)`` → ``(B, H, n, d)``, as one matrix product."""
    b, n, d_model = x.shape
    h, _, dh = w.shape
    flat = x.reshape(b * n, d_model) @ w.transpose(1, 0, 2).reshape(d_model, h * dh)
    return np.ascontiguousarray(flat.reshape(b, n, h, dh).transpose(0, 2, 1, 3))


# ---- checks ------------------------------------------------------------------------------------
def _check_model(model) -> Model:
    if not isinstance(model, Model):
        raise TypeError(f"model must be a helpers.circuit.Model (from init_model or a training run), "
                        f"got {type(model).__name__} {model!r:.60}")
    return model


def _check_config(config) -> Config:
    if not isinstance(config, Config):
        raise TypeError(f"config must be a helpers.circuit.Config, got {type(config).__name__} {config!r:.60}")
    return config


def _check_tokens(tokens, config: Config) -> np.ndarray:
    arr = np.asarray(tokens) if not isinstance(tokens, (str, bytes, dict, set)) else tokens
    if isinstance(arr, np.ndarray) and arr.ndim == 2:
        rows = [token_ids(f"tokens[{i}]", row, config.vocab, min_length=2) for i, row in enumerate(arr)]
        out = np.stack(rows) if rows else None
        if out is None:
            raise ValueError("tokens must hold at least one sequence, got none")
    else:
        out = token_ids("tokens", tokens, config.vocab, min_length=2)[None, :]
    if out.shape[1] > config.length:
        raise ValueError(f"tokens must be at most length = {config.length} long (the model's positions), "
                         f"got {out.shape[1]}")
    return out


def _check_array(name: str, value, shapes: list) -> np.ndarray:
    """A float array of one of ``shapes`` (an intervention's ``z`` or stream)."""
    arr = as_float_array(name, value, keep_float_dtype=True)
    if arr.shape not in shapes:
        raise ValueError(f"{name} must have shape {' or '.join(map(str, shapes))}, got {arr.shape}")
    return arr
