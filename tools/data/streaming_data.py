"""Regenerate helpers/data/streaming_losses.npz: SmolLM2's per-token losses on ``helpers.texts.STREAM_TEXT``
with full attention and with every window / sink count / choice of positions of
``helpers.smaller_cache.streaming.variants()`` (``make streaming-data``).

Each run is one :func:`helpers.smaller_cache.streaming.token_losses`; a line per run says its perplexity
and CPU time. Deterministic on every x86-64 CPU: the script re-executes itself under
``pinned.pinned_env`` (this folder's ``pinned.py``), as the other generators do.
"""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402
import pinned  # noqa: E402  (this folder: the script's own directory is on sys.path)

from helpers import real_model, texts  # noqa: E402
from helpers.render.npz import write_npz  # noqa: E402
from helpers.smaller_cache import streaming  # noqa: E402


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("helpers", "data", streaming.DATA)
    pinned.pin(__file__)
    model = real_model.load_model()
    ids = np.asarray(real_model.encode(model, texts.STREAM_TEXT), dtype=np.int64)
    arrays = {"format": np.array(streaming.FORMAT), "ids": ids}
    for window, sinks, positions in streaming.variants():
        c0 = time.process_time()
        losses = streaming.token_losses(model, ids, window, sinks, positions)
        arrays[streaming.key(window, sinks, positions)] = losses
        print(f"{streaming.key(window, sinks, positions)}: perplexity {np.exp(losses.astype(float).mean()):.2f} "
              f"({time.process_time() - c0:.0f} s CPU)", flush=True)
    arrays["meta"] = np.array(json.dumps({"model": real_model.MODEL_REQUIREMENT, "tokens": int(len(ids)),
                                          "unpinned": False}))
    write_npz(arrays, out)
    print(f"wrote {out} ({os.path.getsize(out) / 1024:.0f} KiB)", flush=True)


if __name__ == "__main__":
    main()
