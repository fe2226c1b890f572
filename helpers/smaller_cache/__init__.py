"""Caches that shrink (``14_shrinking_caches``): what the models after Llama-3.1 keep per token instead of
every head's K and V.

One idea per module: :mod:`.latent` (multi-head latent attention: the naive and the absorbed forms, and
absorbed MLA as MQA over one latent head), :mod:`.streaming` (a sliding window with attention sinks, RoPE
positions in the cache or in the text, StreamingLLM's rolling cache, SmolLM2's stored runs) and
:mod:`.sink_logit` (gpt-oss's learned sink logit, which only rescales a row).
"""
from . import latent, sink_logit, streaming

__all__ = ["latent", "sink_logit", "streaming"]
