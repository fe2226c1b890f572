"""Regenerate helpers/data/streaming_losses.npz (``make streaming-data``): SmolLM2's per-token losses
on ``helpers.texts.STREAM_TEXT`` with full attention and with every window / sink count / choice of
positions of ``helpers.smaller_cache.streaming.variants()``.

Each run is one :func:`helpers.smaller_cache.streaming.token_losses`, with a progress line giving its
perplexity; ``generate.py`` runs it in the pinned environment (``pinned.py``), so the same code and
model give the same file on every x86-64 CPU.

    python -m tools.data.streaming_data [--out PATH]
"""
from __future__ import annotations

import json
from importlib import resources

import numpy as np

from helpers import real_model, texts
from helpers.smaller_cache import streaming
from tools.data import generate


def arrays(progress) -> dict:
    """The text's ids, one loss array per stored run, and the model they came from."""
    model = real_model.load_model()
    ids = np.asarray(real_model.encode(model, texts.STREAM_TEXT), dtype=np.int64)
    out = {"format": np.array(streaming.FORMAT), "ids": ids}
    for window, sinks, positions in streaming.variants():
        name = streaming.key(window, sinks, positions)
        out[name] = streaming.token_losses(model, ids, window, sinks, positions)
        progress(f"{name}: perplexity {np.exp(out[name].astype(float).mean()):.2f}")
    out["meta"] = np.array(json.dumps({"model": real_model.MODEL_REQUIREMENT, "tokens": int(len(ids)),
                                       "unpinned": False}))
    return out


if __name__ == "__main__":
    generate.main(__doc__, resources.files("helpers") / "data" / streaming.DATA, arrays)
