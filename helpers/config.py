"""Model configurations (published ``config.json`` values) and the counts derived from them.

Taught in ``02_qkv`` (projection shapes and parameter counts), ``06_attention_layer`` (heads,
GQA, RoPE θ and Llama-3.1's RoPE scaling) and ``07_cost_of_length`` (the cost model). Every preset cites where its numbers
are published; nothing downstream types a shape by hand.
"""
from __future__ import annotations

from dataclasses import dataclass

from .render.validation import boolean, choice, finite_scalar, positive_float, positive_int, text

ROPE_TYPES = ("llama3",)


@dataclass(frozen=True)
class RopeScaling:
    """The ``rope_scaling`` entry of a ``config.json`` (``06_attention_layer``).

    ``"llama3"`` (Llama-3.1, 3.2): pairs whose wavelength is shorter than
    ``original_max_position_embeddings / high_freq_factor`` keep their frequency, those longer
    than ``original_max_position_embeddings / low_freq_factor`` turn ``factor`` times slower, and
    the pairs between blend the two (:func:`helpers.layer.rope_inv_freq` applies it).
    """

    rope_type: str
    factor: float
    low_freq_factor: float
    high_freq_factor: float
    original_max_position_embeddings: int

    def __post_init__(self):
        choice("rope_type", self.rope_type, ROPE_TYPES)
        for field in ("factor", "low_freq_factor", "high_freq_factor"):
            positive_float(field, getattr(self, field))
        if not float(self.high_freq_factor) > float(self.low_freq_factor):
            raise ValueError(f"high_freq_factor must be greater than low_freq_factor "
                             f"({self.low_freq_factor!r}), got {self.high_freq_factor!r}")
        positive_int("original_max_position_embeddings", self.original_max_position_embeddings)


@dataclass(frozen=True)
class ModelConfig:
    """The fields of a Llama-style ``config.json`` that attention needs."""

    name: str
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    rope_theta: float
    tie_word_embeddings: bool
    source: str
    rope_scaling: RopeScaling | None = None  # None: plain RoPE (SmolLM2)
    max_position_embeddings: int | None = None  # the context length the model is published for

    def __post_init__(self):
        text("name", self.name)
        for field in ("hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim",
                      "intermediate_size", "vocab_size"):
            positive_int(field, getattr(self, field), maximum=10 ** 7)
        finite_scalar("rope_theta", self.rope_theta, low=1.0, low_open=True)  # θ^(-2i/d) must shrink
        boolean("tie_word_embeddings", self.tie_word_embeddings)
        text("source", self.source)
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"num_kv_heads ({self.num_kv_heads}) must divide num_heads ({self.num_heads})")
        if self.rope_scaling is not None and not isinstance(self.rope_scaling, RopeScaling):
            raise TypeError(f"rope_scaling must be a RopeScaling or None, got {self.rope_scaling!r}")
        if self.max_position_embeddings is not None:
            positive_int("max_position_embeddings", self.max_position_embeddings)

    # ---- shapes (02_qkv) -------------------------------------------------------------
    @property
    def q_dim(self) -> int:
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.num_kv_heads * self.head_dim

    @property
    def group_size(self) -> int:
        """Query heads served by one KV head (GQA)."""
        return self.num_heads // self.num_kv_heads

    def projection_shapes(self) -> dict:
        """``{name: (in, out)}`` for q_proj, k_proj, v_proj, o_proj."""
        h = self.hidden_size
        return {"q_proj": (h, self.q_dim), "k_proj": (h, self.kv_dim),
                "v_proj": (h, self.kv_dim), "o_proj": (self.q_dim, h)}

    # ---- parameter counts (02_qkv, 07_cost_of_length) --------------------------------
    def attention_params_per_layer(self) -> int:
        return sum(a * b for a, b in self.projection_shapes().values())

    def mlp_params_per_layer(self) -> int:
        return 3 * self.hidden_size * self.intermediate_size  # gate, up, down

    def params_per_layer(self) -> int:
        """Attention + MLP + the two RMSNorm weight vectors."""
        return self.attention_params_per_layer() + self.mlp_params_per_layer() + 2 * self.hidden_size

    def embedding_params(self) -> int:
        return self.vocab_size * self.hidden_size

    def matmul_params(self) -> int:
        """Parameters a token is multiplied by: all layers, final norm and lm_head (not the
        embedding lookup). With tied embeddings lm_head reuses the embedding matrix but is
        still a matmul per token."""
        return self.num_layers * self.params_per_layer() + self.hidden_size + self.embedding_params()

    def total_params(self) -> int:
        untied = 0 if self.tie_word_embeddings else self.embedding_params()
        return self.num_layers * self.params_per_layer() + self.hidden_size + self.embedding_params() + untied


# Llama-3.1 was pre-trained at 8K and extended to 128K by slowing its low-frequency RoPE pairs 8×;
# Llama-3.2 (1B, 3B) by 32×. Both config.json files carry these rope_scaling values.
LLAMA_3_1_ROPE = RopeScaling(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                             original_max_position_embeddings=8192)
LLAMA_3_2_ROPE = RopeScaling(rope_type="llama3", factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                             original_max_position_embeddings=8192)


def _llama(name: str, hidden_size: int, num_layers: int, num_heads: int, head_dim: int, intermediate_size: int,
           rope_scaling: RopeScaling, tied: bool) -> ModelConfig:
    """A Llama-3 model's config.json: what the family shares (8 KV heads, the 128,256-token
    vocabulary, θ = 500,000, 128K positions) written once; the rest per model."""
    return ModelConfig(
        name=name, hidden_size=hidden_size, num_layers=num_layers, num_heads=num_heads, num_kv_heads=8,
        head_dim=head_dim, intermediate_size=intermediate_size, vocab_size=128256, rope_theta=500000.0,
        tie_word_embeddings=tied, source=f"meta-llama/{name}, config.json",
        rope_scaling=rope_scaling, max_position_embeddings=131072)


LLAMA_3_1_8B = _llama("Llama-3.1-8B", 4096, 32, 32, 128, 14336, LLAMA_3_1_ROPE, tied=False)
LLAMA_3_1_70B = _llama("Llama-3.1-70B", 8192, 80, 64, 128, 28672, LLAMA_3_1_ROPE, tied=False)
LLAMA_3_2_3B = _llama("Llama-3.2-3B", 3072, 28, 24, 128, 8192, LLAMA_3_2_ROPE, tied=True)
LLAMA_3_2_1B = _llama("Llama-3.2-1B", 2048, 16, 32, 64, 8192, LLAMA_3_2_ROPE, tied=True)

SMOLLM2_135M = ModelConfig(
    name="SmolLM2-135M", hidden_size=576, num_layers=30, num_heads=9, num_kv_heads=3,
    head_dim=64, intermediate_size=1536, vocab_size=49152, rope_theta=100000.0,
    tie_word_embeddings=True, source="HuggingFaceTB/SmolLM2-135M-Instruct, config.json",
    max_position_embeddings=8192)

PRESETS = {c.name: c for c in (LLAMA_3_1_8B, LLAMA_3_1_70B, LLAMA_3_2_3B, LLAMA_3_2_1B, SMOLLM2_135M)}


def preset(name: str) -> ModelConfig:
    """Look up a published configuration by name (see :data:`PRESETS`)."""
    return PRESETS[choice("name", name, PRESETS)]
