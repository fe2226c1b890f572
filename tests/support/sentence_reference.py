"""What the tests of 你自己的句子 (the engine, test_sentence_engine; the book's page, test_sentence_page;
notebook 09's text box, test_real_model) hold the browser and the notebook to: ``helpers.real_model``'s
numbers for a text and what the page shows of them, how far float32 rounding lets the browser's be
from them, texts drawn by a seeded generator, and model files the engine must refuse."""
from __future__ import annotations

import copy
import dataclasses
import functools
import random
import struct

import numpy as np

TOL = 1e-5
CAP = 64
#: how many heads each ranked list shows
RANKED = 10
FIXED = ["The cat sat on the mat because it was tired.",
         "年假怎么申请？",
         "2024年3月15日，iPhone 15 Pro 的价格是 ¥7,999.00（约 $1,099）！"]
WORDS = ["the", "attention", "model", "head", "token", "cat", "river", "Paris", "is", "of", "I", "don't",
         "weights", "Hello", "world", "sat", "mat", "because", "we'll"]
CHINESE = ["年假", "怎么", "申请", "注意力", "模型", "我们", "今天", "天气", "很好", "机器", "学习", "北京", "的", "了", "是"]
PUNCT = list("，。！？、：；（）“”,.!?;:()-\"'")
OTHER = ["😀", "👍🏽", "café", "naïve", "こんにちは", "한국어", "Ωμέγα", "\n", "  ", "\t", "½", "٣"]


@functools.lru_cache(maxsize=None)
def drawn_texts(seed: int, count: int, other: tuple = tuple(OTHER)) -> list:
    """``count`` texts of English words, Chinese words, numbers, punctuation and ``other`` pieces
    (whitespace, accents, kana, hangul, emoji…), each at most :data:`CAP` tokens (drawn again when longer)."""
    from helpers import real_model

    model, rng = real_model.load_model(), random.Random(seed)
    out = []
    while len(out) < count:
        pieces = []
        for _ in range(rng.randint(2, 16)):
            kind = rng.random()
            if kind < 0.35:
                pieces.append(rng.choice(WORDS) + rng.choice(["", " "]))
            elif kind < 0.65:
                pieces.append(rng.choice(CHINESE))
            elif kind < 0.75:
                pieces.append(rng.choice([str(rng.randint(0, 99999)), f"{rng.random() * 100:.2f}", "2024-03-15"]))
            elif kind < 0.9:
                pieces.append(rng.choice(PUNCT))
            else:
                pieces.append(rng.choice(other))
        text = "".join(pieces).strip() or "x"
        if len(real_model.encode(model, text)) <= CAP:
            out.append(text)
    return out


@functools.lru_cache(maxsize=1)
def float64_mlp_twin():
    """helpers.real_model's model with its MLP weights in float64: the same forward with no float32
    rounding in the MLP (0.64 GB, made once)."""
    from helpers import real_model

    model = real_model.load_model()
    twin = copy.copy(model)
    twin.blocks = [dataclasses.replace(b, gate=b.gate.astype(np.float64), up=b.up.astype(np.float64),
                                       down=b.down.astype(np.float64)) for b in model.blocks]
    return twin


@functools.lru_cache(maxsize=None)
def reference(ids: tuple) -> dict:
    """helpers.real_model's numbers for token ``ids``: every map (30, 9, T, T), the top 5, and the
    tolerance for this text (:func:`tolerance`)."""
    from helpers import real_model

    model = real_model.load_model()
    run = real_model.forward(model, list(ids))
    attn = np.stack(run.weights)
    spread = float(np.abs(attn - np.stack(real_model.forward(float64_mlp_twin(), list(ids)).weights)).max())
    logits = run.logits[-1].astype(np.float64)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    top = np.argsort(-p)[:5]
    return {"attn": attn, "top": [int(i) for i in top], "p": p, "spread": spread, "tol": tolerance(spread),
            "text": [real_model.decode(model, [int(i)]) for i in top]}


@functools.lru_cache(maxsize=None)
def python_view(text: str) -> dict:
    """What the page (and notebook 09's text box) must show for ``text``, from helpers.real_model /
    readable_tokens / reading / heads: ids, piece and character labels, grouped maps, both scores
    (None where the text is too short for one), the :data:`RANKED` best heads by each, the top 5."""
    from helpers import readable_tokens, real_model
    from helpers.heads import top_heads
    from helpers.reading import SINK_SKIP, previous_token_score, sink_score
    from helpers.real_model import sentence

    model = real_model.load_model()
    ids = real_model.encode(model, text)
    spelling = readable_tokens.spell_ids(model, ids)
    ref = reference(tuple(ids))
    grouped = readable_tokens.group_attention(ref["attn"], spelling)
    widest = max(stop - start for start, stop in spelling.runs)
    # the scores are read on the tokens the model reads, not on the characters
    scores = {"previous": previous_token_score(ref["attn"]) if len(ids) >= 2 else None,
              "sink": sink_score(ref["attn"]) if len(ids) >= SINK_SKIP + 1 else None}
    return {"ids": ids, "piece_labels": real_model.token_labels(model, ids), "run_labels": spelling.labels(),
            "grouped": grouped.astype(np.float64), "scores": scores, "tol": ref["tol"], "grouped_tol": ref["tol"] * widest,
            "ranking": {k: None if s is None else [layer * s.shape[1] + head for layer, head in top_heads(s, RANKED)]
                        for k, s in scores.items()},
            "top": ref["top"], "p": ref["p"], "labels": {i: sentence.next_label(model, i) for i in ref["top"]}}


def tolerance(spread: float) -> float:
    """How far a map of the engine may be from numpy's: TOL, or twice numpy's own float32 spread.

    Both run the MLP in float32 and round differently (numpy's BLAS, the kernel's 16 lanes); how far a
    weight moves for that depends on the text (a sharp head multiplies a score's rounding). ``spread``
    measures it: numpy's float32 forward against the same forward with its MLP in float64. Each of
    the two float32 runs is about that far from the float64 one, so they may be twice that apart;
    never looser than the issue's 1e-5."""
    return max(TOL, 2 * spread)


def same_ranking(got: list, want: list, p: np.ndarray, tie: float = 1e-7) -> bool:
    """The same ids in the same order, two of them swapped only where their values ``p`` tie (< ``tie``)."""
    return got == want or (sorted(got) == sorted(want) and all(
        abs(p[a] - p[b]) < tie for a, b in zip(got, want) if a != b))


def _patch(data: bytearray, after: bytes, fmt: str, value, skip: int = 0) -> None:
    """Overwrite the struct ``fmt`` found ``skip`` bytes after the first ``after`` in ``data``."""
    at = data.index(after) + len(after) + skip
    struct.pack_into(fmt, data, at, value)


def wrong_files(head: bytes) -> dict:
    """{file name: bytes} of files the engine must refuse, made from the real file's first bytes."""
    files = {"not-a-model.gguf": b"hello, this is a text file\n", "empty.gguf": b"", "truncated.gguf": head}
    arch = bytearray(head)
    at = arch.index(b"llama", arch.index(b"general.architecture"))
    arch[at:at + 5] = b"gemma"
    files["other-architecture.gguf"] = bytes(arch)
    other = bytearray(head)
    _patch(other, b"llama.embedding_length", "<I", 960, skip=4)  # after the value's u32 type code
    files["other-model.gguf"] = bytes(other)
    quant = bytearray(head)  # token_embd: u32 n_dims = 2, u64 × 2 dims, then the u32 type (8 = Q8_0)
    _patch(quant, b"token_embd.weight", "<I", 12, skip=4 + 16)  # 12 = Q4_K
    files["other-quantization.gguf"] = bytes(quant)
    shape = bytearray(head)
    _patch(shape, b"blk.0.attn_q.weight", "<Q", 577, skip=4 + 8)  # its second dim
    files["wrong-shape.gguf"] = bytes(shape)
    return files
