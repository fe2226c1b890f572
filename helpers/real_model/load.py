"""Reading SmolLM2-135M-Instruct's GGUF file into a :class:`Model` (``09_real_model``): dequantize
with ``gguf``, undo llama.cpp's q/k row permutation, rebuild the tokenizer.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ..config import ModelConfig
from ..layer import LayerWeights
from .model import GGUF_NAME, Block, Model, _qk_weight, _require, find_gguf
from .tokenizer import build_tokenizer


def unpermute_qk(weight: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo llama.cpp's converter permutation of q/k rows (made for interleaved RoPE pairs), so
    the rows are in Transformers' order and rotate-half RoPE applies (``(out, in)`` weights)."""
    weight, n_heads = _qk_weight(weight, n_heads)
    out, inp = weight.shape
    head_dim = out // n_heads
    return weight.reshape(n_heads, head_dim // 2, 2, inp).swapaxes(1, 2).reshape(out, inp)



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


def is_loaded() -> bool:
    """Whether :func:`load_model` has read the model in this kernel already (its next call returns at once)."""
    return _load_model.cache_info().currsize > 0


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
