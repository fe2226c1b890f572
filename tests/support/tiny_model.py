"""A tiny random model with the real model's structure, for tests that must not load 1.2 GB."""
from functools import lru_cache

import numpy as np
import pytest


@lru_cache(maxsize=1)
def tiny_model():
    """SmolLM2's architecture at toy size: 2 layers, hidden 8, 2 query heads sharing 1 KV head,
    a byte-level vocabulary of 256 tokens; random weights (seed 0), tokenizer built like the real one."""
    tokenizers = pytest.importorskip("tokenizers")
    from helpers import real_model as rm
    from helpers.config import ModelConfig
    from helpers.layer import LayerWeights

    tokens = sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    cfg = ModelConfig(name="tiny", hidden_size=8, num_layers=2, num_heads=2, num_kv_heads=1, head_dim=4,
                      intermediate_size=16, vocab_size=len(tokens), rope_theta=10000.0,
                      tie_word_embeddings=True, source="test")
    rng = np.random.default_rng(0)

    def w(*shape):
        return (0.3 * rng.standard_normal(shape)).astype(np.float32)

    ones = np.ones(8, np.float32)
    blocks = [rm.Block(ones, LayerWeights(w(8, 8), w(8, 4), w(8, 4), w(8, 8)), ones, w(8, 16), w(8, 16), w(16, 8))
              for _ in range(2)]
    model = rm.Model(cfg, 1e-5, w(len(tokens), 8), blocks, ones, tokens, np.ones(len(tokens), int), [])
    model.tokenizer = rm.build_tokenizer(model)
    return model


def tiny_run(seed: int, shape: tuple) -> tuple:
    """``(model, ids, run)``: :func:`tiny_model`, random ids of ``shape`` drawn from ``seed``, and the
    forward over them with every layer's input kept (what the head seam's tests start from)."""
    from helpers import real_model

    model = tiny_model()
    ids = np.random.default_rng(seed).integers(0, model.config.vocab_size, shape)
    return model, ids, real_model.forward(model, ids, keep_inputs=True)
