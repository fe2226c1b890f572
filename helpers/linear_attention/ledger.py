"""The KV-bytes ledger: what one sequence keeps, model by model, as the context grows (``15_fixed_state``).

Every model is a list of layers, each of one kind, and each kind keeps its own cache:

- ``full`` attention: K and V of every token, ``2 × kv_heads × head_dim`` numbers per token;
- ``window`` (sliding-window) attention: the same, for the last ``window`` tokens only;
- ``latent`` (MLA, ``14_shrinking_caches``): ``kv_lora_rank + qk_rope_head_dim`` numbers per token;
- ``linear`` (a linear-attention layer such as Qwen3-Next's Gated DeltaNet): a state of
  ``value_heads × key_head_dim × value_head_dim`` numbers and its short convolution's last
  ``kernel − 1`` inputs, whatever the length.

:meth:`Model.closed_form` writes the total as ``n × per token + what stops growing``;
:meth:`Model.counted` lists every layer's arrays with their shapes for ``n`` tokens and adds their
sizes up — the two are held equal by the tests. Each row names the public configuration it comes
from (:data:`MODELS`). Numbers are counted at :data:`BYTES` bytes each (bf16 / fp16); an
implementation that keeps the linear layers' state in float32 doubles that column.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import LLAMA_3_1_8B, SMOLLM2_135M, ModelConfig
from ..render.validation import choice, nonneg_int, positive_int
from ..smaller_cache.latent import DEEPSEEK_V3

#: bytes per cached number (bf16)
BYTES = 2
KINDS = ("full", "window", "latent", "linear")
#: the context length of the table's last column
CONTEXT = 131072
#: the longest context a row is counted for (a billion tokens)
MAX_CONTEXT = 1 << 30


@dataclass(frozen=True)
class Layer:
    """One layer's cache: ``kind`` (:data:`KINDS`) and the widths that kind needs."""

    kind: str
    kv_heads: int = 0
    head_dim: int = 0
    v_head_dim: int = 0       # full / window: the values' width when it is not head_dim (MLA expanded)
    window: int = 0
    latent: int = 0           # kv_lora_rank + qk_rope_head_dim (latent)
    key_heads: int = 0        # linear: heads of the keys (the convolution runs over q, k and v)
    value_heads: int = 0      # linear: one state per value head
    key_dim: int = 0
    value_dim: int = 0
    kernel: int = 0           # linear: the short convolution's width

    def __post_init__(self):
        choice("kind", self.kind, KINDS)

    @property
    def v_dim(self) -> int:
        """The values' width (``head_dim`` unless ``v_head_dim`` says otherwise)."""
        return self.v_head_dim or self.head_dim

    def arrays(self, n: int) -> dict:
        """``{name: shape}`` of what this layer keeps after ``n`` tokens."""
        n = nonneg_int("n", n, maximum=MAX_CONTEXT)
        if self.kind == "full":
            return {"k": (n, self.kv_heads, self.head_dim), "v": (n, self.kv_heads, self.v_dim)}
        if self.kind == "window":
            kept = min(n, self.window)
            return {"k": (kept, self.kv_heads, self.head_dim), "v": (kept, self.kv_heads, self.v_dim)}
        if self.kind == "latent":
            return {"c_kv + k_pe": (n, self.latent)}
        channels = 2 * self.key_heads * self.key_dim + self.value_heads * self.value_dim
        return {"state": (self.value_heads, self.key_dim, self.value_dim), "conv": (channels, self.kernel - 1)}


@dataclass(frozen=True)
class Model:
    """A row of the ledger: ``name``, its ``layers`` (:class:`Layer`, in order) and ``source``;
    ``counterfactual`` marks a row no released model stores (DeepSeek-V3's latent expanded into per-head
    K and V, the cache MLA saves)."""

    name: str
    layers: tuple
    source: str
    counterfactual: bool = False

    def counted(self, n: int, *, bytes_per_number: int = BYTES) -> int:
        """Bytes of every array every layer keeps after ``n`` tokens, added up array by array."""
        return sum(int(np.prod(shape)) * bytes_per_number for layer in self.layers for shape in layer.arrays(n).values())

    def closed_form(self, *, bytes_per_number: int = BYTES) -> dict:
        """``{"per_token", "fixed", "window_per_token", "window"}``: total after ``n`` tokens =
        ``n × per_token + min(n, window) × window_per_token + fixed``."""
        per_token = fixed = window_per_token = 0
        window = 0
        for layer in self.layers:
            if layer.kind == "full":
                per_token += layer.kv_heads * (layer.head_dim + layer.v_dim)
            elif layer.kind == "latent":
                per_token += layer.latent
            elif layer.kind == "window":
                window_per_token += layer.kv_heads * (layer.head_dim + layer.v_dim)
                if window and layer.window != window:
                    raise ValueError(f"{self.name}: windows of different sizes ({window}, {layer.window})")
                window = layer.window
            else:
                channels = 2 * layer.key_heads * layer.key_dim + layer.value_heads * layer.value_dim
                fixed += layer.value_heads * layer.key_dim * layer.value_dim + channels * (layer.kernel - 1)
        b = positive_int("bytes_per_number", bytes_per_number)
        return {"per_token": per_token * b, "fixed": fixed * b, "window_per_token": window_per_token * b,
                "window": window}

    def total(self, n: int, *, bytes_per_number: int = BYTES) -> int:
        """Bytes after ``n`` tokens by the closed form."""
        n = nonneg_int("n", n, maximum=MAX_CONTEXT)
        f = self.closed_form(bytes_per_number=bytes_per_number)
        return n * f["per_token"] + min(n, f["window"]) * f["window_per_token"] + f["fixed"]

    def kinds(self) -> dict:
        """``{kind: number of layers}``."""
        out: dict = {}
        for layer in self.layers:
            out[layer.kind] = out.get(layer.kind, 0) + 1
        return out


def _full(config: ModelConfig) -> tuple:
    return tuple(Layer("full", kv_heads=config.num_kv_heads, head_dim=config.head_dim)
                 for _ in range(config.num_layers))


#: DeepSeek-V3's layer count (inference/configs/config_671B.json: n_layers 61)
DEEPSEEK_V3_LAYERS = 61
#: Gemma-3 27B (google-deepmind/gemma, gemma/gm/nn/_gemma.py): 62 layers in the repeating pattern of five
#: sliding-window layers and one global, 16 KV heads of 128, window 1024
GEMMA3_27B = dict(layers=62, pattern=("window",) * 5 + ("full",), kv_heads=16, head_dim=128, window=1024)
#: Qwen3-Next-80B-A3B (transformers' Qwen3NextConfig defaults): 48 layers, every 4th full attention
#: (2 KV heads of 256), the rest Gated DeltaNet (16 key heads, 32 value heads, 128 × 128, conv kernel 4)
QWEN3_NEXT = dict(layers=48, interval=4, kv_heads=2, head_dim=256, key_heads=16, value_heads=32, key_dim=128,
                  value_dim=128, kernel=4)


def _gemma3() -> tuple:
    g = GEMMA3_27B
    kinds = [g["pattern"][i % len(g["pattern"])] for i in range(g["layers"])]
    return tuple(Layer(kind, kv_heads=g["kv_heads"], head_dim=g["head_dim"], window=g["window"] if kind == "window" else 0)
                 for kind in kinds)


def _qwen3_next() -> tuple:
    q = QWEN3_NEXT
    return tuple(Layer("full", kv_heads=q["kv_heads"], head_dim=q["head_dim"]) if (i + 1) % q["interval"] == 0 else
                 Layer("linear", key_heads=q["key_heads"], value_heads=q["value_heads"], key_dim=q["key_dim"],
                       value_dim=q["value_dim"], kernel=q["kernel"])
                 for i in range(q["layers"]))


MODELS = (
    Model("Llama-3.1-8B", _full(LLAMA_3_1_8B), LLAMA_3_1_8B.source),
    Model("SmolLM2-135M", _full(SMOLLM2_135M), SMOLLM2_135M.source),
    Model("DeepSeek-V3（MLA）", tuple(Layer("latent", latent=DEEPSEEK_V3.latent_numbers())
                                      for _ in range(DEEPSEEK_V3_LAYERS)),
          "deepseek-ai/DeepSeek-V3, inference/configs/config_671B.json"),
    Model("DeepSeek-V3（展开成每头 K、V）",
          tuple(Layer("full", kv_heads=DEEPSEEK_V3.num_heads, head_dim=DEEPSEEK_V3.qk_head_dim,
                      v_head_dim=DEEPSEEK_V3.v_head_dim) for _ in range(DEEPSEEK_V3_LAYERS)),
          "deepseek-ai/DeepSeek-V3, inference/configs/config_671B.json", counterfactual=True),
    Model("Gemma-3-27B（5 层窗口 : 1 层全局）", _gemma3(), "google-deepmind/gemma, gemma/gm/nn/_gemma.py (Gemma3_27B)"),
    Model("Qwen3-Next-80B-A3B（3 层线性 : 1 层全局）", _qwen3_next(),
          "huggingface/transformers, src/transformers/models/qwen3_next/configuration_qwen3_next.py"),
)


def model(name: str) -> Model:
    """The ledger's row called ``name``."""
    rows = {m.name: m for m in MODELS}
    return rows[choice("name", name, rows)]


def rows(n: int = CONTEXT) -> list:
    """``[name, bytes per token, fixed bytes, bytes after n tokens, source]`` per model (the table)."""
    out = []
    for m in MODELS:
        f = m.closed_form()
        fixed = f["fixed"] + f["window"] * f["window_per_token"]
        out.append([m.name, f["per_token"], fixed, m.total(n), m.source])
    return out


def notes() -> dict:
    """The numbers the lesson adds under the ledger: SmolLM2-135M's published context
    (``smollm2_context``), the bytes of Qwen3-Next's short-convolution inputs inside its fixed part
    (``qwen_conv_bytes``), the numbers one layer caches per token under MLA and under Llama-3.1-8B's GQA
    (``mla_per_layer``, ``gqa_per_layer``), how many times MLA's per-token bytes fit in the expanded row's
    (``expanded_over_mla``), and Gemma-3-27B's and Llama-3.1-8B's layers (``gemma_window_layers``,
    ``gemma_full_layers``, ``gemma_window``, ``llama_layers``)."""
    qwen = model("Qwen3-Next-80B-A3B（3 层线性 : 1 层全局）")
    conv = sum(BYTES * int(np.prod(layer.arrays(0)["conv"])) for layer in qwen.layers if layer.kind == "linear")
    mla, expanded = model("DeepSeek-V3（MLA）"), model("DeepSeek-V3（展开成每头 K、V）")
    gemma = model("Gemma-3-27B（5 层窗口 : 1 层全局）").kinds()
    return {"smollm2_context": SMOLLM2_135M.max_position_embeddings, "qwen_conv_bytes": conv,
            "mla_per_layer": mla.layers[0].latent, "gqa_per_layer": 2 * LLAMA_3_1_8B.num_kv_heads * LLAMA_3_1_8B.head_dim,
            "expanded_over_mla": expanded.closed_form()["per_token"] / mla.closed_form()["per_token"],
            "gemma_window_layers": gemma["window"], "gemma_full_layers": gemma["full"],
            "gemma_window": GEMMA3_27B["window"], "llama_layers": LLAMA_3_1_8B.num_layers}
