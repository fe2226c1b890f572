"""The real model's tokenizer, rebuilt from the GGUF vocabulary and merges (``09_real_model``).
"""
from __future__ import annotations

import numpy as np

from .. import readable_tokens
from ..render.validation import (
    text,
)
from .model import Model, _ids, _require, check_model

_text = text


def build_tokenizer(model: Model):
    """A ``tokenizers.Tokenizer`` from the GGUF vocabulary and merges: byte-level BPE, digits
    split one by one, no prefix space, no BOS added; control tokens registered as special."""
    check_model(model)
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
    check_model(model)
    return model.tokenizer.encode(_text("text", text), add_special_tokens=False).ids


def decode(model: Model, ids) -> str:
    """The text of token ``ids`` (an empty list gives "")."""
    ids = _ids(check_model(model), ids, min_length=0)
    return model.tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)


def token_strings(model: Model, ids) -> list:
    """Each id decoded on its own (a multi-byte character split over tokens shows as '�')."""
    ids = _ids(check_model(model), ids, min_length=0)
    return [decode(model, [i]) for i in ids]


def token_labels(model: Model, ids) -> list:
    """Readable labels for tables and axes (``09``), one per token: :mod:`helpers.readable_tokens`'
    piece labels (``年·1/2``; a word's leading space dropped, ␣ and ↵ drawn; never 'Ġ' or '�')."""
    return readable_tokens.spell_ids(check_model(model), ids).piece_labels()
