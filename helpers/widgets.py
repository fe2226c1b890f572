"""One-line entry points for every live explorer in the series (a face: ``helpers.widgets.*``).

A notebook's widget cell is a single call into this module; the explorer classes live in
``helpers/explorers/<notebook>.py`` and are tested headless in ``tests/notebooks/test_<notebook>.py``
(every explorer at once in ``tests/series/test_explorers.py``). Nothing inside ``helpers`` imports
this module. Each factory imports its explorer class when called, so a notebook loads only the
explorers it shows (each brings ipywidgets and matplotlib); ``tools/checks/layout.py`` reads these imports
to tie each factory to its notebook's module.
"""
from __future__ import annotations


def query_weights_explorer(**kwargs):
    """``00_index``: 申请's q sliders → its four attention weights."""
    from .explorers.index import QueryWeightsExplorer

    return QueryWeightsExplorer(**kwargs)


def weighted_average_explorer(**kwargs):
    """``01_weighted_average``: four weight sliders (renormalised) → the new 申请 vector."""
    from .explorers.weighted_average import WeightedAverageExplorer

    return WeightedAverageExplorer(**kwargs)


def qkv_explorer(**kwargs):
    """``02_qkv``: a token's four input features → its q, k, v through W_Q, W_K, W_V."""
    from .explorers.qkv import QKVExplorer

    return QKVExplorer(**kwargs)


def hand_calculation_explorer(**kwargs):
    """``03_hand_calculation``: 申请's q and any token's k, v → every step of the row."""
    from .explorers.hand_calculation import HandCalculationExplorer

    return HandCalculationExplorer(**kwargs)


def sqrt_d_explorer(**kwargs):
    """``04_sqrt_d``: d (log steps), n, scale on/off → score histogram and largest weights."""
    from .explorers.sqrt_d import SqrtDExplorer

    return SqrtDExplorer(**kwargs)


def causal_mask_explorer(**kwargs):
    """``05_causal_mask``: mask on/off, query row, appended tokens → weights and cache validity."""
    from .explorers.causal_mask import CausalMaskExplorer

    return CausalMaskExplorer(**kwargs)


def attention_layer_explorer(**kwargs):
    """``06_attention_layer``: heads, KV heads, length, RoPE → shape trace, per-head maps, KV cache."""
    from .explorers.attention_layer import LayerExplorer

    return LayerExplorer(**kwargs)


def cost_explorer(**kwargs):
    """``07_cost_of_length``: n (log), model preset, dtype, batch → FLOPs and memory."""
    from .explorers.cost_of_length import CostExplorer

    return CostExplorer(**kwargs)


def online_softmax_explorer(**kwargs):
    """``07_cost_of_length``: block size → the online-softmax recurrence, step by step."""
    from .explorers.cost_of_length import OnlineSoftmaxExplorer

    return OnlineSoftmaxExplorer(**kwargs)


def sink_explorer(**kwargs):
    """``08_reading_attention``: sink strength and window size → bright first column, eviction damage."""
    from .explorers.reading_attention import SinkExplorer

    return SinkExplorer(**kwargs)


def influence_explorer(**kwargs):
    """``08_reading_attention``: value size of the high-weight position → rank by weight vs influence."""
    from .explorers.reading_attention import InfluenceExplorer

    return InfluenceExplorer(**kwargs)


def dilution_explorer(**kwargs):
    """``08_reading_attention``: margin Δ and length n (log, to 128K) → the relevant position's weight."""
    from .explorers.reading_attention import DilutionExplorer

    return DilutionExplorer(**kwargs)


def real_attention_explorer(**kwargs):
    """``09_real_model``: layer and head sliders → SmolLM2-135M's real attention weights."""
    from .explorers.real_model import RealAttentionExplorer

    return RealAttentionExplorer(**kwargs)


real_attention_explorer.needs_model = True  # tests skip it (outside CI) when the model is missing


def sentence_explorer(**kwargs):
    """``09_real_model``: a text box and layer / head sliders → every head of SmolLM2-135M on your own
    sentence, one head enlarged, its scores and rank, the five likeliest next tokens."""
    from .explorers.real_model import SentenceExplorer

    return SentenceExplorer(**kwargs)


sentence_explorer.needs_model = True


def learning_explorer(**kwargs):
    """``10_learning_to_attend``: training checkpoint slider and sentence picker → the last word's
    weights, the learned score table, the accuracy reached."""
    from .explorers.learning_to_attend import LearningExplorer

    return LearningExplorer(**kwargs)


def heads_explorer(**kwargs):
    """``12_heads_at_work``: a score and a rank → that head's pattern, scores and ablation effect."""
    from .explorers.heads_at_work import HeadsExplorer

    return HeadsExplorer(**kwargs)


heads_explorer.needs_model = True  # tests skip it (outside CI) when the model is missing


def latent_cache_explorer(**kwargs):
    """``14_shrinking_caches``: MLA's latent width, rope part and heads → numbers cached per token, expanded vs latent."""
    from .explorers.shrinking_caches import LatentCacheExplorer

    return LatentCacheExplorer(**kwargs)


def streaming_explorer(**kwargs):
    """``14_shrinking_caches``: window, sinks and RoPE positions → SmolLM2's stored loss along a long text."""
    from .explorers.shrinking_caches import StreamingExplorer

    return StreamingExplorer(**kwargs)


def sink_logit_explorer(**kwargs):
    """``14_shrinking_caches``: gpt-oss's sink logit s → one row's weights, all scaled by one factor."""
    from .explorers.shrinking_caches import SinkLogitExplorer

    return SinkLogitExplorer(**kwargs)


def chunk_explorer(**kwargs):
    """``15_fixed_state``: chunk size → which weights the chunkwise form takes from the table or the state."""
    from .explorers.fixed_state import ChunkExplorer

    return ChunkExplorer(**kwargs)


def recall_explorer(**kwargs):
    """``15_fixed_state``: setting and seed → recall against distance, softmax vs linear attention."""
    from .explorers.fixed_state import RecallExplorer

    return RecallExplorer(**kwargs)


def ledger_explorer(**kwargs):
    """``15_fixed_state``: context length → the KV-bytes ledger's rows."""
    from .explorers.fixed_state import LedgerExplorer

    return LedgerExplorer(**kwargs)


def all_factories() -> dict:
    """``{name: factory}`` of every explorer factory above, for the tests and ``make bench``."""
    return {name: obj for name, obj in globals().items()
            if name.endswith("_explorer") and callable(obj)}


def circuit_explorer(**kwargs):
    """``11_learning_a_circuit``: a step slider over the stored checkpoints → four heads' patterns, scores, losses."""
    from .explorers.learning_a_circuit import CircuitExplorer

    return CircuitExplorer(**kwargs)


def sender_explorer(**kwargs):
    """``13_induction_circuit``: a sender, an input of 18.6 and a removal → 18.6's pattern and score."""
    from .explorers.induction_circuit import SenderExplorer

    return SenderExplorer(**kwargs)


sender_explorer.needs_model = True  # tests skip it (outside CI) when the model is missing
