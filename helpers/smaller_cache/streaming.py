"""A sliding window with attention sinks, the way StreamingLLM runs it (``14_shrinking_caches``).

The cache keeps the first ``sinks`` tokens and the ``window`` most recent ones (the newest
included); everything between is evicted. Query ``t`` sees key ``j`` when ``j ≤ t`` and
(``j < sinks`` or ``j > t − window``) — ``09_real_model``'s :func:`helpers.real_model.streaming_mask`.

**Which positions RoPE uses.** Xiao et al. (2023, §3.2) give the keys their positions *in the
cache*, not in the text: keys are cached before RoPE and turned by their place in the cache at
every step (``positions="cache"``). Keeping the text's positions is the other choice
(``positions="text"``, what ``09`` measured). With RoPE a score depends only on the distance
between query and key, and inside the window the two choices give the same distance: query ``t``
sits at cache position ``c_t = min(t, sinks + window − 1)`` and window key ``j`` at ``j − t + c_t``.
Only the sinks move: sink ``i`` is at distance ``c_t − i`` in the cache, ``t − i`` in the text
(:func:`distances`). So one forward pass computes the cache version: the usual scores, with the sink
columns' scores recomputed from a query turned at ``c_t`` (:func:`streaming_logits`).

**Is the rolling cache exact beyond layer 1?** (mit-han-lab/streaming-llm#93.) :func:`rolling_decode`
runs StreamingLLM itself, token by token, with a rolling cache of un-turned keys; it equals the one
pass above to rounding, at every layer: a cached key of layer ℓ was computed when its token was new,
from the context that token had then, exactly as the one pass computes it. What it is *not* equal to
is recomputing the kept tokens from scratch (:func:`recomputed_keys`): from layer 1 on, a kept token's
key depends on tokens evicted since.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import ModelConfig
from ..layer import LayerWeights, apply_rope, repeat_kv
from ..reading import window_mask
from ..real_model.block import rms_norm, silu
from ..real_model.model import Block, Model, check_model
from ..render.validation import (
    as_real_array,
    boolean,
    check_elements,
    choice,
    entries,
    finite_result,
    float_dtype,
    instance,
    nonneg_int,
    positive_float,
    positive_int,
    quiet_overflow,
    token_ids,
    whole_numbers,
)
from ..render.validation import positions as check_positions
from ..render.validation import seed as check_seed

POSITIONS = ("cache", "text")


def _window(window, n: int):
    return n if window is None else positive_int("window", window, maximum=1 << 20)


def cache_position(t, window: int, sinks: int):
    """Where query ``t`` (a position, or a flat array of them) sits in a cache of ``sinks`` + ``window``
    tokens: ``min(t, sinks + window − 1)``."""
    window, sinks = positive_int("window", window, maximum=1 << 20), nonneg_int("sinks", sinks, maximum=1 << 20)
    if isinstance(t, (int, np.integer)) or (isinstance(t, np.ndarray) and t.ndim == 0):
        return min(nonneg_int("t", t), sinks + window - 1)
    return np.minimum(whole_numbers("t", t), sinks + window - 1)


def distances(t: int, window: int, sinks: int, positions: str = "cache") -> dict:
    """``{key: distance}`` from query ``t`` to every key it sees, as RoPE measures it."""
    t = nonneg_int("t", t)
    window, sinks = positive_int("window", window), nonneg_int("sinks", sinks)
    positions = choice("positions", positions, POSITIONS)
    c = int(cache_position(t, window, sinks)) if positions == "cache" else t
    kept = [j for j in range(t + 1) if j < sinks or j > t - window]
    return {j: (t - j if j >= sinks else c - j) for j in kept}


def _attend(q, k, v, mask, sink_scores=None):
    """Causal GQA attention of ``(n, H, d)`` queries on ``(n, KV, d)`` keys and values (already turned),
    with an additive ``mask``; ``sink_scores`` ``(H, n, sinks)`` replace the first columns' scores."""
    h, d = q.shape[1], q.shape[2]
    k_rep, v_rep = repeat_kv(k, h // k.shape[1]), repeat_kv(v, h // k.shape[1])
    scores = np.einsum("ihd,jhd->hij", q, k_rep) / np.sqrt(d)
    if sink_scores is not None:
        scores[:, :, :sink_scores.shape[-1]] = sink_scores
    scores = scores + mask
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return np.einsum("hij,jhd->ihd", w, v_rep).reshape(len(q), h * d)


def _block_tail(model, block, x, attended, mlp_dtype):
    """The residual stream after a block whose attention (before o_proj) gave ``attended``: o_proj,
    the residual, RMSNorm and the SwiGLU MLP in ``mlp_dtype`` (float32 as ``helpers.real_model.forward``)."""
    x = x + attended @ block.attention.w_o
    h = rms_norm(x, block.ffn_norm, model.eps).astype(mlp_dtype)
    return x + (silu(h @ block.gate) * (h @ block.up)) @ block.down


def _logits(model, x):
    return rms_norm(x, model.final_norm, model.eps).astype(np.float32) @ model.embed.T


def streaming_logits(model: Model, ids, *, window=None, sinks: int = 0, positions: str = "cache",
                     mlp_dtype=np.float32) -> np.ndarray:
    """Logits ``(n, vocab)`` of ``ids`` when every query sees only the first ``sinks`` tokens and the
    last ``window`` (``None``: all; full attention), with RoPE positions in the cache or in the text."""
    model = check_model(model)
    ids = token_ids("ids", ids, model.config.vocab_size)
    n, cfg = len(ids), model.config
    window, sinks = _window(window, n), nonneg_int("sinks", sinks)
    positions, mlp_dtype = choice("positions", positions, POSITIONS), float_dtype("mlp_dtype", mlp_dtype)
    mask = window_mask(n, window, keep_first=sinks) if window < n else np.where(
        np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)
    text_pos = np.arange(n)
    in_cache = cache_position(text_pos, window, sinks)
    s = min(sinks, n)
    h, kv, d = cfg.num_heads, cfg.num_kv_heads, cfg.head_dim
    x = model.embed[ids].astype(np.float64)
    for block in model.blocks:
        a = rms_norm(x, block.attn_norm, model.eps)
        w = block.attention
        q, k, v = ((a @ m).reshape(n, -1, d) for m in (w.w_q, w.w_k, w.w_v))
        k_turned = apply_rope(k, text_pos, cfg.rope_theta)
        sink_scores = None
        if positions == "cache" and s:
            q_cache = apply_rope(q, in_cache, cfg.rope_theta)
            sink_scores = np.einsum("ihd,jhd->hij", q_cache, repeat_kv(k_turned[:s], h // kv)) / np.sqrt(d)
        attended = _attend(apply_rope(q, text_pos, cfg.rope_theta), k_turned, v, mask, sink_scores)
        x = _block_tail(model, block, x, attended, mlp_dtype)
    return _logits(model, x)


def rolling_step(q, k_cache, v_cache, theta: float) -> np.ndarray:
    """One new token's attention over a rolling cache: ``q`` ``(heads, d)`` its query before RoPE,
    ``k_cache`` ``(m, kv_heads, d)`` the cached keys **before** RoPE in cache order (sinks, then the
    window, the new token's own key last), ``v_cache`` ``(m, kv_heads, d)``. The keys are turned by
    their positions in the cache, ``0 … m − 1``, the query by its own, ``m − 1``; every key is seen.
    Returns ``(heads, d)``."""
    q = as_real_array("q", q, ndim=2)
    k_cache, v_cache = as_real_array("k_cache", k_cache, ndim=3), as_real_array("v_cache", v_cache, ndim=3)
    theta = positive_float("theta", theta)
    (h, d), (m, kv, _) = q.shape, k_cache.shape
    if k_cache.shape[2] != d or v_cache.shape != k_cache.shape or h % kv or d % 2:
        raise ValueError(f"q (heads, d) and k_cache, v_cache (m, kv_heads, d) must share an even d, with heads a "
                         f"multiple of kv_heads, got q {q.shape}, k_cache {k_cache.shape} and v_cache {v_cache.shape}")
    place = np.arange(m)
    with quiet_overflow():
        out = _attend(apply_rope(q[None], place[-1:], theta), apply_rope(k_cache, place, theta), v_cache,
                      np.zeros((1, m)))
    return finite_result(out, "q, k_cache and v_cache", "a score or the weighted sum").reshape(q.shape)


@dataclass
class RollingRun:
    """What :func:`rolling_decode` returns: ``logits`` ``(n, vocab)``, one row per step, and the
    cache as it stood after the last step: per layer the kept tokens' positions in the text and their
    un-turned keys ``(kept, kv_heads, head_dim)``."""

    logits: np.ndarray
    kept: list
    keys: list

    def __post_init__(self):
        self.logits = as_real_array("logits", self.logits, ndim=2, keep_float_dtype=True)
        self.kept = [whole_numbers(f"kept[{i}]", k) for i, k in enumerate(entries("kept", self.kept, "arrays of positions"))]
        keys = entries("keys", self.keys, "arrays of keys")
        if len(keys) != len(self.kept):
            raise ValueError(f"keys and kept must have one entry per layer each, got {len(keys)} and {len(self.kept)}")
        self.keys = [as_real_array(f"keys[{i}]", k, ndim=3, allow_empty=True, keep_float_dtype=True)
                     for i, k in enumerate(keys)]
        for i, (k, pos) in enumerate(zip(self.keys, self.kept)):
            if len(k) != len(pos):
                raise ValueError(f"keys[{i}] must hold one key per position of kept[{i}], got {len(k)} keys "
                                 f"for {len(pos)} positions")


def rolling_decode(model: Model, ids, *, window: int, sinks: int, mlp_dtype=np.float32) -> RollingRun:
    """StreamingLLM's decoding, one token at a time: per layer a cache of keys **before** RoPE and
    values, the token between the sinks and the window evicted once it holds ``sinks + window``; at
    every step the cached keys are turned by their position in the cache and the new query by its own."""
    model = check_model(model)
    ids = token_ids("ids", ids, model.config.vocab_size)
    window, sinks = positive_int("window", window, maximum=1 << 20), nonneg_int("sinks", sinks)
    mlp_dtype = float_dtype("mlp_dtype", mlp_dtype)
    cfg = model.config
    d = cfg.head_dim
    keys = [np.zeros((0, cfg.num_kv_heads, d)) for _ in model.blocks]
    values = [np.zeros((0, cfg.num_kv_heads, d)) for _ in model.blocks]
    kept = [np.zeros(0, dtype=np.int64) for _ in model.blocks]
    rows = []
    for t, token in enumerate(ids):
        x = model.embed[[token]].astype(np.float64)
        for i, block in enumerate(model.blocks):
            a = rms_norm(x, block.attn_norm, model.eps)
            w = block.attention
            q, k, v = ((a @ m).reshape(1, -1, d) for m in (w.w_q, w.w_k, w.w_v))
            keys[i], values[i] = np.concatenate([keys[i], k]), np.concatenate([values[i], v])
            kept[i] = np.append(kept[i], t)
            if len(kept[i]) > sinks + window:  # evict the oldest token after the sinks
                keys[i], values[i], kept[i] = (np.delete(arr, sinks, axis=0) for arr in (keys[i], values[i], kept[i]))
            attended = rolling_step(q[0], keys[i], values[i], cfg.rope_theta).reshape(1, -1)
            x = _block_tail(model, block, x, attended, mlp_dtype)
        rows.append(_logits(model, x)[0])
    return RollingRun(np.array(rows), kept, keys)


def recomputed_keys(model: Model, ids, kept) -> list:
    """Per layer the un-turned keys ``(len(kept), kv_heads, head_dim)`` of the tokens ``kept`` (positions
    in ``ids``) when only they are run through the model, from scratch: sliding-window attention with
    re-computation, the baseline StreamingLLM compares with."""
    model = check_model(model)
    ids = token_ids("ids", ids, model.config.vocab_size)
    kept = check_positions("kept", kept, len(ids))
    sub = ids[kept]
    n, cfg = len(sub), model.config
    d = cfg.head_dim
    x = model.embed[sub].astype(np.float64)
    mask = np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)
    found = []
    for block in model.blocks:
        a = rms_norm(x, block.attn_norm, model.eps)
        w = block.attention
        q, k, v = ((a @ m).reshape(n, -1, d) for m in (w.w_q, w.w_k, w.w_v))
        found.append(k)
        pos = np.arange(n)
        attended = _attend(apply_rope(q, pos, cfg.rope_theta), apply_rope(k, pos, cfg.rope_theta), v, mask)
        x = _block_tail(model, block, x, attended, np.float64)
    return found


#: the small random model the exactness checks run on (float64 throughout): SmolLM2's structure, tiny
SMALL_CONFIG = ModelConfig(name="tiny-llama", hidden_size=32, num_layers=3, num_heads=4, num_kv_heads=2, head_dim=8,
                           intermediate_size=64, vocab_size=64, rope_theta=10000.0, tie_word_embeddings=True,
                           source="random weights (helpers.smaller_cache.streaming.random_decoder)")


def random_decoder(seed: int = 0, config: ModelConfig = SMALL_CONFIG) -> Model:
    """A Llama-style decoder with random float64 weights (no tokenizer): what the exactness checks run on."""
    rng = np.random.default_rng([check_seed("seed", seed), 1414])
    c = instance("config", config, ModelConfig)
    per_layer = c.hidden_size * (2 * c.q_dim + 2 * c.kv_dim + 3 * c.intermediate_size + 2)
    check_elements("config's sizes", c.num_layers * per_layer + (c.vocab_size + 1) * c.hidden_size,
                   why="random float64 weights for the exactness checks; a real model's sizes take gigabytes")
    hid, d = c.hidden_size, c.head_dim

    def w(n_in, n_out):
        return rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)

    def norm():
        return 1.0 + 0.1 * rng.standard_normal(hid)

    blocks = [Block(norm(), LayerWeights(w(hid, c.num_heads * d), w(hid, c.num_kv_heads * d),
                                         w(hid, c.num_kv_heads * d), w(c.num_heads * d, hid)),
                    norm(), w(hid, c.intermediate_size), w(hid, c.intermediate_size), w(c.intermediate_size, hid))
              for _ in range(c.num_layers)]
    return Model(c, 1e-5, rng.standard_normal((c.vocab_size, hid)), blocks, norm(), tokens=[],
                 token_types=np.zeros(0, dtype=np.int64), merges=[])


# ---- SmolLM2 on a long text: the stored per-token losses -----------------------------------------------
#: the windows and sink counts ``make streaming-data`` runs SmolLM2 with (on :data:`helpers.texts.STREAM_TEXT`)
WINDOWS = (32,)
SINKS = (0, 4)
DATA = "streaming_losses.npz"
FORMAT = 1


def variants() -> list:
    """``(window, sinks, positions)`` of every stored run: full attention is ``(None, 0, "text")``; with
    no sink the two kinds of positions are the same (:func:`distances`), so it is stored once."""
    out = [(None, 0, "text")]
    for w in WINDOWS:
        out.append((w, 0, "text"))
        out += [(w, s, p) for s in SINKS if s for p in POSITIONS]
    return out


def key(window, sinks: int, positions: str) -> str:
    """The entry of a run in the stored file: ``loss/full``, ``loss/w64/s0``, ``loss/w64/s4/cache`` …"""
    sinks, positions = nonneg_int("sinks", sinks, maximum=1 << 20), choice("positions", positions, POSITIONS)
    if window is None:
        return "loss/full"
    window = positive_int("window", window, maximum=1 << 20)
    return f"loss/w{window}/s{sinks}" + (f"/{positions}" if sinks else "")


def token_losses(model: Model, ids, window=None, sinks: int = 0, positions: str = "text") -> np.ndarray:
    """``−log p(ids[i+1])`` for every ``i`` under :func:`streaming_logits`: what the stored file holds."""
    from ..real_model.generation import next_token_losses

    logits = streaming_logits(model, ids, window=window, sinks=sinks, positions=positions)
    return next_token_losses(logits, ids).astype(np.float32)


@dataclass(frozen=True)
class StoredLosses:
    """The stored runs: ``ids`` of the text and ``losses[(window, sinks, positions)]``, one per next token."""

    ids: np.ndarray
    losses: dict
    unpinned: bool

    def __post_init__(self):
        object.__setattr__(self, "ids", whole_numbers("ids", self.ids))
        if len(self.ids) < 2:
            raise ValueError(f"ids must hold the text's tokens (at least two: one loss per next token), got {len(self.ids)}")
        if not isinstance(self.losses, dict):
            raise TypeError(f"losses must be a dict {{(window, sinks, positions): losses}}, got {type(self.losses).__name__}")
        losses = {}
        for run, found in self.losses.items():
            if not isinstance(run, tuple) or len(run) != 3:
                raise TypeError(f"losses' keys must be (window, sinks, positions) triples, got {run!r:.60}")
            losses[run] = as_real_array(f"losses[{run!r}]", found, shape=(len(self.ids) - 1,), keep_float_dtype=True)
        object.__setattr__(self, "losses", losses)
        object.__setattr__(self, "unpinned", boolean("unpinned", self.unpinned))

    def perplexity(self, window=None, sinks: int = 0, positions: str = "text", *, start: int = 0) -> float:
        """exp(mean loss) of one run over the predictions from position ``start`` on."""
        found = self.losses[self._key(window, sinks, positions)]
        start = nonneg_int("start", start, maximum=len(found) - 1)
        return float(np.exp(found[start:].astype(np.float64).mean()))

    def _key(self, window, sinks, positions):
        wanted = (window, sinks, "text" if not sinks else positions)
        if wanted not in self.losses:
            raise ValueError(f"no stored run with window={window!r}, sinks={sinks!r}, positions={positions!r}; "
                             f"stored: windows {WINDOWS} (or None), sinks {SINKS}, positions {POSITIONS}")
        return wanted

    def of(self, window=None, sinks: int = 0, positions: str = "text") -> np.ndarray:
        """The per-token losses of one run."""
        return self.losses[self._key(window, sinks, positions)]


def load(path=None) -> StoredLosses:
    """The losses ``make streaming-data`` stored (``helpers/data/streaming_losses.npz``, or ``path``)."""
    import json
    from contextlib import nullcontext
    from importlib import resources

    from ..render.npz import read_npz

    source = resources.files("helpers") / "data" / DATA if path is None else path
    with resources.as_file(source) if path is None else nullcontext(path) as file:
        arrays = read_npz(file, what="a streaming-loss .npz", remedy="run make streaming-data", format_version=FORMAT,
                          keys=("ids", "meta", *(key(*v) for v in variants())))
    meta = json.loads(str(arrays["meta"]))
    losses = {(w, s, p if s else "text"): arrays[key(w, s, p)] for w, s, p in variants()}
    return StoredLosses(arrays["ids"], losses, bool(meta.get("unpinned", False)))
