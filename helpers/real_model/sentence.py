"""Your own sentence through the real model, everything at once (``09_real_model``).

:func:`sentence_view` is the one definition of what the notebook's text box
(``helpers.widgets.sentence_explorer``) and the book's page 你自己的句子 show for a text: its tokens
as a reader reads them, every head's map, two scores per head and their ranking, and the likeliest
next tokens. Both are tested against it.

- **Tokens**: :func:`helpers.real_model.encode`; read with :func:`helpers.readable_tokens.spell_ids`
  (byte pieces merged into the characters they spell, a piece inside a character labelled ``年·1/2``).
- **Maps**: one forward pass (:func:`helpers.real_model.forward`), every layer's and head's causal
  weights over the tokens, and the same maps moved onto the characters
  (:func:`helpers.readable_tokens.group_attention`: keys summed, queries averaged).
- **Scores**, per head, on the tokens (the pieces the model reads, not the characters):
  ``previous`` — :func:`helpers.reading.previous_token_score`, the mean weight each query ``i ≥ 1``
  puts on ``i − 1``; ``sink`` — :func:`helpers.reading.sink_score`, the mean weight queries
  ``i ≥ 4`` put on position 0 (``09``'s first-position statistic). These are the scores of ``12``
  that any text defines; ``12``'s induction and duplicate-token scores read a diagonal of a
  sequence repeated twice (``[first] + r + r``) and mean nothing on a sentence. A score needs
  :data:`MIN_TOKENS` tokens (``previous`` 2, ``sink`` 5); a shorter text has no such score.
- **Ranking**: every head by score, highest first (:func:`helpers.reading.heads_by_score`, the order
  ``12``'s :func:`helpers.heads.top_heads` lists; ties keep ``(layer, head)`` order).
- **Next tokens**: the :data:`TOP_K` likeliest after the text, from the same pass's last logits
  (softmax in float64, as :func:`helpers.real_model.next_token_top`).

Text is refused with one Chinese sentence naming it as the text box and the argument do
(:data:`TEXT_NAME`, ``句子（text）``): not a string, empty, a control character
other than tab, newline and carriage return (C0, DEL, C1), half of a surrogate pair, or more than
:data:`MAX_TOKENS` tokens (the browser engine's cap: one run of 64 tokens is about 1.5–2 s of a
phone's CPU and 4.4 MB of maps).
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata

import numpy as np

from .. import readable_tokens
from ..reading import SINK_SKIP, heads_by_score, previous_token_score, sink_score
from ..render.validation import integer, short_preview
from .forward_pass import forward
from .generation import top_tokens
from .model import Model, check_model
from .tokenizer import decode, encode

#: the most tokens a text may have (the book's engine has the same cap)
MAX_TOKENS = 64
#: how many next tokens a view lists
TOP_K = 5
#: the per-head scores a view computes, in the order they are shown
SCORES = ("previous", "sink")
#: what the notebook and the page call each score
SCORE_LABELS = {"previous": "前一个 token 分数", "sink": "汇聚分数"}
#: the fewest tokens each score is defined on (a query i ≥ 1; queries from position SINK_SKIP on)
MIN_TOKENS = {"previous": 2, "sink": SINK_SKIP + 1}
#: control characters a text may hold (the others are invisible and refused)
ALLOWED_CONTROLS = "\t\n\r"
#: how a refusal names the text: the text box's label (句子) and the argument's name
TEXT_NAME = "句子（text）"
#: the book's page of this view, next to the notebooks' pages
PAGE = "sentence.html"
#: the installed package whose metadata names the book's address
DISTRIBUTION = "attention-lab"


@dataclass(frozen=True)
class NextToken:
    """One candidate next token: its id, its probability, its text (:func:`decode` of the id alone:
    a piece of a character is ``'�'``) and its label (:mod:`helpers.readable_tokens`: the piece's
    text with whitespace drawn, a leading space too (``' ='`` reads ``␣=``, ``'='`` reads ``=``), a cut
    character as its bytes ``‹E5B9›``)."""

    id: int
    probability: float
    text: str
    label: str


@dataclass(frozen=True, eq=False)
class SentenceView:
    """Everything :func:`sentence_view` computes for one text (n tokens, m characters or words;
    L layers × H heads: 30 × 9 for SmolLM2-135M).

    ``ids``: the n token ids. ``spelling``: how they spell m characters (``spelling.runs[u]`` =
    the tokens ``[start, stop)`` of character u). ``weights``: ``(L, H, n, n)`` float32, row i the
    weights query token i puts on each key token (rows sum to 1, the future is 0). ``maps``:
    ``(L, H, m, m)`` float32, the same over characters. ``scores[name]``: ``(L, H)`` float64 for
    each name of :data:`SCORES` this text is long enough for (:data:`MIN_TOKENS`); ``ranking[name]``:
    ``(L·H, 2)`` int, every ``(layer, head)`` from the highest score down. ``top``: :data:`TOP_K`
    :class:`NextToken`, the likeliest first (ties: the lower id first)."""

    text: str
    ids: tuple
    spelling: readable_tokens.Spelling
    weights: np.ndarray
    maps: np.ndarray
    scores: dict
    ranking: dict
    top: tuple

    @property
    def labels(self) -> list:
        """The m characters or words as a reader reads them (axes and the grid)."""
        return self.spelling.labels()

    @property
    def piece_labels(self) -> list:
        """One label per token: ``年·1/2`` for a piece of a character."""
        return self.spelling.piece_labels()

    def rank(self, name: str, layer: int, head: int) -> int:
        """Where head ``(layer, head)`` stands by score ``name``: 1 for the highest."""
        if name not in self.ranking:
            raise ValueError(f"name must be one of the scores of this text {list(self.ranking)}, got {name!r}")
        order = self.ranking[name]
        return int(np.flatnonzero((order[:, 0] == layer) & (order[:, 1] == head))[0]) + 1


def check_text_type(text) -> str:
    """``text`` if it is a string; otherwise a ``TypeError`` with the sentence :func:`check_sentence`
    gives (the text box checks its initial text with it before loading the model)."""
    if not isinstance(text, str):
        raise TypeError(f"{TEXT_NAME}应是一段文字（str），收到的是 {type(text).__name__} {short_preview(text, 60)}")
    return text


def check_sentence(model: Model, text) -> list:
    """The token ids of ``text`` if :func:`sentence_view` accepts it; otherwise a ``TypeError`` or
    ``ValueError`` with one Chinese sentence naming it :data:`TEXT_NAME` (see the module docstring)."""
    check_text_type(text)
    if not text:
        raise ValueError(f"{TEXT_NAME}是空的：请写一些文字（至少一个字）。")
    for at, c in enumerate(text, start=1):
        code = ord(c)
        if 0xD800 <= code <= 0xDFFF:
            raise ValueError(f"{TEXT_NAME}的第 {at} 个字符是半个字符（不成对的 UTF-16 代理项 U+{code:04X}），"
                             "可能是复制时截断了一个表情符号：请删掉它再试。")
        if (code < 0x20 and c not in ALLOWED_CONTROLS) or 0x7F <= code <= 0x9F:
            raise ValueError(f"{TEXT_NAME}的第 {at} 个字符是看不见的控制字符 U+{code:04X}：请删掉它再试"
                             "（换行和制表符可以保留）。")
    ids = encode(model, text)
    if len(ids) > MAX_TOKENS:
        raise ValueError(f"{TEXT_NAME}切成了 {len(ids)} 个 token，超过了上限 {MAX_TOKENS} 个：请删短一些"
                         "（一个汉字通常是 2～3 个 token）。")
    return ids


def sentence_view(model: Model, text: str) -> SentenceView:
    """``text`` through ``model`` (``helpers.real_model.load_model()``): tokens, every head's map,
    the per-head scores and their ranking, the :data:`TOP_K` likeliest next tokens — one forward
    pass (:class:`SentenceView` lists the shapes)."""
    ids = check_sentence(check_model(model), text)
    run = forward(model, ids, last_only=True)
    weights = np.stack(run.weights)  # (L, H, n, n) float32
    spelling = readable_tokens.spell_ids(model, ids)
    scores = {}
    for name, score in (("previous", previous_token_score), ("sink", sink_score)):
        if len(ids) >= MIN_TOKENS[name]:
            scores[name] = score(weights)
    ranking = {name: heads_by_score(s) for name, s in scores.items()}
    top = tuple(NextToken(i, p, decode(model, [i]), next_label(model, i))
                for i, p in top_tokens(run.logits[-1], TOP_K))
    return SentenceView(text, tuple(int(i) for i in ids), spelling, weights,
                        readable_tokens.group_attention(weights, spelling), scores, ranking, top)


def next_label(model: Model, token_id: int) -> str:
    """How a candidate next token is shown (:attr:`NextToken.label`): its text drawn with
    :func:`helpers.readable_tokens.visible`, keeping a leading space as ``␣`` (a candidate stands
    alone: ``' ='`` and ``'='`` are different tokens and must read differently)."""
    model = check_model(model)
    token_id = integer("token_id", token_id, low=0, high=len(model.tokens) - 1)
    return readable_tokens.spell([model.tokens[token_id]]).labels(keep_space=True)[0]


def page_url() -> str:
    """The address of the book's page 你自己的句子: the book's address from the installed package's
    metadata (``Documentation``, written from ``home.toml``) followed by :data:`PAGE`; just
    :data:`PAGE` where the package's metadata names no book (a checkout run without installing)."""
    try:
        urls = metadata.metadata(DISTRIBUTION).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip() == "Documentation" and url.strip():
            return url.strip().rstrip("/") + "/" + PAGE
    return PAGE
