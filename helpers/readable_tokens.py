"""Byte-level BPE pieces read as the characters they spell (``09_real_model``).

SmolLM2's tokenizer works on UTF-8 **bytes**: a Chinese character is 3 bytes, and a mostly English
vocabulary often cuts it into 2 or 3 pieces. Each piece is stored as a string of stand-in symbols,
one per byte (``'Ġ'`` for a space, ``'Ċ'`` for a newline, ``'å¹'`` for the first two bytes of 年);
decoded one piece at a time, a partial character comes out as ``'�'``. Neither is for a reader.

:func:`spell` (from piece strings) and :func:`spell_ids` (from a model's token ids) return a
:class:`Spelling`: the pieces grouped into the shortest runs that spell whole characters, each run's
text, and labels — a run's text (spaces and newlines drawn as ``␣`` and ``↵``), and for a piece
inside a run of k pieces the run's text with its index, ``年·1/2``. :func:`group_attention` moves an
attention map from pieces onto those runs: the weight a run of queries puts on a run of keys is the
**sum** over its key pieces, **averaged** over its query pieces, so every row still sums to 1; when
each piece is one word (ASCII text) it returns the map unchanged.

The byte of each stand-in symbol is read from the ``tokenizers`` library's own ``ByteLevel``
pre-tokenizer (the one SmolLM2's tokenizer uses), never from a hand-copied table.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .render.validation import as_real_array, boolean, token_ids

SPACE, NEWLINE, TAB = "␣", "↵", "⇥"
#: how invisible characters are drawn: ␣ ↵ ⇥, and any other ASCII control character as its code in
#: ‹ › (like a cut character's bytes); Unicode's Control Pictures (␀, ␡) are not in the series' fonts
_CONTROL = {**{chr(c): f"‹{c:02X}›" for c in [*range(0x20), 0x7F]},
            " ": SPACE, "\n": NEWLINE, "\t": TAB, "\u3000": SPACE}
#: Unicode categories drawn as their code point, ``‹U+202E›`` (``U+`` tells it from a cut character's
#: bytes): the other controls (Cc: C1), the invisible format characters (Cf: the bidi embeddings,
#: overrides and isolates U+202A–202E and U+2066–2069, U+061C, the zero-width U+200B–200F and U+FEFF,
#: the soft hyphen, tags), which would reorder or hide a label's text, the line and paragraph
#: separators (Zl, Zp) and lone surrogates (Cs)
HIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")


@lru_cache(maxsize=1)
def byte_of_symbol() -> dict:
    """``{symbol: byte}`` for the 256 stand-in symbols of byte-level BPE, read from ``tokenizers``.

    Pre-tokenizing text shows the symbol the library writes for each byte of the text's UTF-8; the
    probe below is characters whose UTF-8 holds every byte that UTF-8 can contain (ASCII, every
    lead byte, every continuation byte). The 13 bytes that never occur in UTF-8 (C0, C1, F5–FF)
    cannot be reached through text: they get the alphabet's 13 remaining symbols in ascending order,
    which is the library's own assignment (both sides ascend), and never occur in encoded text."""
    try:
        from tokenizers.pre_tokenizers import ByteLevel
    except ImportError:
        raise ModuleNotFoundError("the package 'tokenizers' is missing; run: pip install tokenizers") from None
    probe = "".join(chr(c) for c in range(0x800))                      # 1- and 2-byte: C2–DF, 80–BF
    probe += "".join(chr(lead << 12) for lead in range(1, 16))         # 3-byte leads E0–EF
    probe += "".join(chr(c) for c in (0x10000, 0x40000, 0x80000, 0xC0000, 0x100000))  # F0–F4
    (symbols, _), = ByteLevel(add_prefix_space=False, use_regex=False).pre_tokenize_str(probe)
    table = dict(zip(symbols, probe.encode("utf-8")))
    rest_symbols = sorted(set(ByteLevel.alphabet()) - set(table))
    rest_bytes = sorted(set(range(256)) - set(table.values()))
    table.update(zip(rest_symbols, rest_bytes))
    if len(table) != 256 or set(table.values()) != set(range(256)):
        raise RuntimeError("tokenizers' ByteLevel alphabet is not one symbol per byte")
    return table


def piece_bytes(piece: str) -> bytes:
    """The bytes a byte-level piece stands for (``'å¹'`` → ``b'\\xe5\\xb9'``)."""
    return _piece_bytes(piece, "piece")


def _piece_bytes(piece, name: str) -> bytes:
    if not isinstance(piece, str):
        raise TypeError(f"{name} must be a str (a byte-level BPE piece such as 'Ġthe'), got {type(piece).__name__}")
    if not piece:
        raise ValueError(f"{name} must not be empty")
    table = byte_of_symbol()
    unknown = [c for c in piece if c not in table]
    if unknown:
        raise ValueError(f"{name} = {piece!r} is not a byte-level BPE piece: {unknown[0]!r} stands for no byte")
    return bytes(table[c] for c in piece)


def _drawn(c: str) -> str:
    """One character as :func:`visible` draws it."""
    if c in _CONTROL:
        return _CONTROL[c]
    if unicodedata.category(c) in HIDDEN_CATEGORIES:
        return f"‹U+{ord(c):04X}›"
    return c


def visible(text: str, *, keep_space: bool = False) -> str:
    """``text`` with spaces, newlines, tabs, control and invisible format characters drawn (``␣``,
    ``↵``, ``⇥``, ``‹00›``, ``‹U+202E›``…): a label shows every character it holds, in order.

    With ``keep_space=False`` (axes and tables) the space that starts or ends a word is dropped —
    ``' Paris'`` reads ``Paris`` — and a run of only whitespace stays visible (``' '`` → ``␣``)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    keep_space = boolean("keep_space", keep_space)
    if not keep_space and text.strip():
        text = text.strip(" ")
    return "".join(map(_drawn, text))


def _is_boundary(data: bytes, at: int) -> bool:
    """A character may start at byte ``at``: not inside a UTF-8 sequence (no continuation byte)."""
    return at == 0 or at == len(data) or (data[at] & 0xC0) != 0x80


def _run_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:  # a cut character (a window that starts or ends mid-character): its bytes
        return "‹" + data.hex().upper() + "›"


@dataclass(frozen=True)
class Spelling:
    """Byte-level ``pieces`` and the characters they spell (see the module docstring); build it with
    :func:`spell` or :func:`spell_ids`.

    ``runs[u] = (start, stop)``: pieces ``start … stop-1`` spell ``texts[u]`` and nothing shorter
    does; ``bytes[i]`` is what piece i stands for."""

    pieces: tuple
    bytes: tuple = field(init=False)
    runs: tuple = field(init=False)
    texts: tuple = field(init=False)

    def __post_init__(self):
        pieces = self.pieces
        if isinstance(pieces, str) or not isinstance(pieces, (list, tuple)):
            raise TypeError(f"pieces must be a list of byte-level BPE piece strings, got {type(pieces).__name__}")
        if not pieces:
            raise ValueError("pieces must hold at least one piece, got an empty list")
        data = [_piece_bytes(p, f"pieces[{i}]") for i, p in enumerate(pieces)]
        joined, runs, start, at = b"".join(data), [], 0, 0
        for i, chunk in enumerate(data):
            at += len(chunk)
            if _is_boundary(joined, at):
                runs.append((start, i + 1))
                start = i + 1
        for name, value in (("pieces", tuple(pieces)), ("bytes", tuple(data)), ("runs", tuple(runs)),
                            ("texts", tuple(_run_text(b"".join(data[a:b])) for a, b in runs))):
            object.__setattr__(self, name, value)  # frozen: set once, here

    @property
    def run_of_piece(self) -> np.ndarray:
        """For each piece, the index of its run."""
        return np.repeat(np.arange(len(self.runs)), [stop - start for start, stop in self.runs])

    def labels(self, *, keep_space: bool = False) -> list:
        """One label per run: its text, whitespace drawn (:func:`visible`)."""
        return [visible(t, keep_space=keep_space) for t in self.texts]

    def piece_labels(self, *, keep_space: bool = False) -> list:
        """One label per piece: its run's text, and ``·i/k`` when the run has k > 1 pieces (``年·1/2``)."""
        out = []
        for (start, stop), label in zip(self.runs, self.labels(keep_space=keep_space)):
            k = stop - start
            out.extend([label] if k == 1 else [f"{label}·{i + 1}/{k}" for i in range(k)])
        return out

    def index(self, text: str) -> int:
        """The index of the first run whose text is ``text`` (ValueError naming the runs if none)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if text not in self.texts:
            raise ValueError(f"text = {text!r} is not one run of this spelling; runs: {list(self.texts)}")
        return self.texts.index(text)


def spell(pieces) -> Spelling:
    """Group byte-level ``pieces`` (strings as in the vocabulary: ``['å¹', '´', 'å', …]``) into the
    shortest runs that spell whole characters."""
    return Spelling(pieces)


def spell_ids(model, ids) -> Spelling:
    """:func:`spell` of token ``ids`` in ``model``'s vocabulary (``helpers.real_model.load_model()``)."""
    tokens = getattr(model, "tokens", None)
    if not isinstance(tokens, list):
        raise TypeError(f"model must be a loaded model with a vocabulary (helpers.real_model.load_model()), "
                        f"got {type(model).__name__}")
    ids = token_ids("ids", ids, len(tokens))
    return spell([tokens[int(i)] for i in ids])


def _piece_weights(weights, spelling) -> np.ndarray:
    if not isinstance(spelling, Spelling):
        raise TypeError(f"spelling must be a Spelling (from helpers.readable_tokens.spell_ids), "
                        f"got {type(spelling).__name__}")
    w = as_real_array("weights", weights, keep_float_dtype=True)
    n = len(spelling.pieces)
    if w.ndim < 2 or w.shape[-2:] != (n, n):
        raise ValueError(f"weights must end in ({n}, {n}) axes (one per piece of spelling), got shape {w.shape}")
    return w


def group_attention(weights, spelling: Spelling) -> np.ndarray:
    """Attention over pieces → attention over runs of ``spelling``: keys summed within a run, queries
    averaged within a run. ``weights`` is ``(…, n, n)`` with n = the number of pieces; rows that sum
    to 1 still do, and with one piece per run the result equals ``weights``."""
    w = _piece_weights(weights, spelling)
    starts = np.array([start for start, _ in spelling.runs])
    sizes = np.array([stop - start for start, stop in spelling.runs], dtype=w.dtype)
    keys = np.add.reduceat(w, starts, axis=-1)
    return np.add.reduceat(keys, starts, axis=-2) / sizes[:, None]


def within_run_weight(weights, spelling: Spelling) -> np.ndarray:
    """How much a piece that is not the first of its character looks back inside that character:
    the weight it puts on the earlier pieces of its own run, averaged over those pieces. ``weights``
    is ``(…, n, n)`` over the pieces; the result has the leading axes (per layer and head, say)."""
    w = _piece_weights(weights, spelling)
    inside = [w[..., q, start:q].sum(axis=-1) for start, stop in spelling.runs for q in range(start + 1, stop)]
    if not inside:
        raise ValueError(f"spelling has no character of more than one piece (runs {list(spelling.texts)}): "
                         "nothing to look back at")
    return np.mean(inside, axis=0)
