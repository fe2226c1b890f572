"""``10_learning_to_attend``'s task: which 事项 does a short request ask about?

The task is built from the running example's four token kinds (事项, 时间, 疑问, 动作, see
:mod:`helpers.example`): a short "sentence" ends with an 动作 token, somewhere before it sits
exactly one 事项 token among 时间 and 疑问 tokens, and the target at the last position is *which*
事项 it is. Every word's input is its kind (the article's four features, one-hot) followed by a
random identity vector (like a real embedding row: no named meaning). Averaging the sentence
with weights that ignore content mixes every word's identity vector; picking the 事项 token by
its kind keeps one clean identity, which is what the learned q·k has to find.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from ..example import FEATURES
from ..render.validation import (
    one_of,
    positive_int,
)
from ..render.validation import seed as check_seed

KINDS = FEATURES  # 事项, 时间, 疑问, 动作
WORDS = {
    "事项": ("假", "报销", "加班", "出差"),
    "时间": ("年", "下周", "月底", "今天", "明天", "周五", "年底", "本月"),
    "疑问": ("怎么", "如何", "能否", "哪里", "何时", "是否", "可以", "需要"),
    "动作": ("申请", "办理", "提交"),
}
VOCAB = tuple(w for kind in KINDS for w in WORDS[kind])
KIND_OF = {w: kind for kind in KINDS for w in WORDS[kind]}
ITEMS = WORDS["事项"]          # the classes the readout chooses between
DISTRACTORS = WORDS["时间"] + WORDS["疑问"]
IDENTITY_DIM = 2               # size of each word's random identity vector
INPUT_DIM = len(KINDS) + IDENTITY_DIM
MIN_LEN, MAX_LEN = 4, 7
SEED = 20260510


#: example sentences of the notebook and its explorer (the first is the article's)
EXAMPLES = (
    ("年", "假", "怎么", "申请"),
    ("出差", "下周", "怎么", "办理"),
    ("今天", "如何", "加班", "申请"),
    ("哪里", "月底", "能否", "报销", "提交"),
    ("假", "下周", "年", "怎么", "如何", "申请"),
)


@lru_cache(maxsize=4)
def _embedding_table(seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, 0])
    kinds = np.array([[float(KIND_OF[w] == k) for k in KINDS] for w in VOCAB])
    identity = rng.standard_normal((len(VOCAB), IDENTITY_DIM)) / np.sqrt(IDENTITY_DIM)
    table = np.hstack([kinds, identity])
    table.setflags(write=False)
    return table


def embeddings(seed: int = SEED) -> np.ndarray:
    """Input rows of every word in :data:`VOCAB`: kind one-hot (事项, 时间, 疑问, 动作), then a
    random identity vector of :data:`IDENTITY_DIM` components (N(0, 1/IDENTITY_DIM), seeded)."""
    return _embedding_table(check_seed("seed", seed))


@dataclass(frozen=True)
class Sentences:
    """A padded batch: ``x`` is ``(B, L, D)``, ``valid`` marks real positions, ``target`` is the
    index in :data:`ITEMS` of each sentence's 事项 token, ``item_pos`` its position."""

    tokens: tuple
    x: np.ndarray
    valid: np.ndarray
    lengths: np.ndarray
    target: np.ndarray
    item_pos: np.ndarray

    def __len__(self) -> int:
        return len(self.tokens)

    @cached_property
    def last(self) -> np.ndarray:
        """Input row of every sentence's last (动作) token, ``(B, D)``."""
        return self.x[np.arange(len(self)), self.lengths - 1]

    @cached_property
    def offsets(self) -> np.ndarray:
        """Position counted from the end (0 = the last token), ``(B, L)``; padding gets -1."""
        pos = np.arange(self.x.shape[1])[None, :]
        return np.where(self.valid, self.lengths[:, None] - 1 - pos, -1)

    @cached_property
    def item_distance(self) -> np.ndarray:
        """How many words before the last one each sentence's 事项 word sits (1 = right before it)."""
        return self.lengths - 1 - self.item_pos

    @cached_property
    def mask(self) -> np.ndarray:
        """0 on words, −inf on padding, ``(B, L)``: added to the scores."""
        return np.where(self.valid, 0.0, -np.inf)


def encode(sentences, seed: int = SEED) -> Sentences:
    """Turn sentences (sequences of words from :data:`VOCAB`) into a padded batch.

    Each sentence must end with an 动作 word and hold exactly one 事项 word before it.
    """
    if isinstance(sentences, str) or not hasattr(sentences, "__len__") or len(sentences) == 0:
        raise ValueError(f"sentences must be a non-empty list of word sequences, got {sentences!r}")
    seed = check_seed("seed", seed)
    rows = []
    for s in sentences:
        if not isinstance(s, str) and (not isinstance(s, (list, tuple)) or not all(isinstance(w, str) for w in s)):
            raise TypeError(f"sentences must hold sequences (lists or tuples) of words, got {s!r:.60}")
        words = (s,) if isinstance(s, str) else tuple(s)
        unknown = [w for w in words if w not in KIND_OF]
        if unknown:
            raise ValueError(f"sentences contains words not in the vocabulary {list(VOCAB)}: {unknown}")
        if not MIN_LEN <= len(words) <= MAX_LEN:
            raise ValueError(f"each sentence must have {MIN_LEN}…{MAX_LEN} words, got {len(words)}: {words}")
        if KIND_OF[words[-1]] != "动作":
            raise ValueError(f"each sentence must end with an 动作 word {WORDS['动作']}, got {words}")
        items = [i for i, w in enumerate(words[:-1]) if KIND_OF[w] == "事项"]
        if len(items) != 1 or any(KIND_OF[w] == "动作" for w in words[:-1]):
            raise ValueError(f"each sentence needs exactly one 事项 word {ITEMS} and 动作 only at the end, "
                             f"got {words}")
        rows.append((words, items[0]))
    table = embeddings(seed)
    index = {w: i for i, w in enumerate(VOCAB)}
    b = len(rows)
    x = np.zeros((b, MAX_LEN, INPUT_DIM))
    valid = np.zeros((b, MAX_LEN), dtype=bool)
    for i, (words, _) in enumerate(rows):
        x[i, : len(words)] = table[[index[w] for w in words]]
        valid[i, : len(words)] = True
    return Sentences(tuple(w for w, _ in rows), x, valid, valid.sum(axis=1),
                     np.array([ITEMS.index(w[p]) for w, p in rows]), np.array([p for _, p in rows]))


def random_sentences(n: int, seed: int) -> list:
    """``n`` random sentences: length 3…6, one 事项 word at a random position among distinct
    时间/疑问 words, an 动作 word at the end."""
    n = positive_int("n", n)
    rng = np.random.default_rng([check_seed("seed", seed), 1])
    out = []
    for _ in range(n):
        length = int(rng.integers(MIN_LEN, MAX_LEN + 1))
        body = [DISTRACTORS[i] for i in rng.choice(len(DISTRACTORS), size=length - 2, replace=False)]
        body.insert(int(rng.integers(0, length - 1)), ITEMS[int(rng.integers(len(ITEMS)))])
        out.append((*body, WORDS["动作"][int(rng.integers(len(WORDS["动作"])))]))
    return out


def dataset(split: str = "train", seed: int = SEED) -> Sentences:
    """The fixed training (512) or test (512) sentences; the two splits use different draws."""
    return _dataset(one_of("split", split, ("train", "test")), check_seed("seed", seed))


@lru_cache(maxsize=8)
def _dataset(split: str, seed: int) -> Sentences:
    size, stream = (512, 0) if split == "train" else (512, 1)
    return encode(random_sentences(size, check_seed("seed", seed) * 10 + stream + 7), seed)
