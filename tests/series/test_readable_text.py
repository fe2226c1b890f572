"""What a reader sees of the real model reads as text: the stored outputs and the figure text of
the real-model notebooks hold none of byte-level BPE's stand-in symbols (``Ġ`` for a space, ``Ċ``
for a newline), no ``�`` (U+FFFD, a character decoded from part of its bytes) and no mojibake of a
Chinese character (its UTF-8 bytes shown one Latin-1 or stand-in symbol each, ``å¹´`` for 年).

The detector (:func:`unreadable`): those three symbols, or a UTF-8 lead byte of a 3- or 4-byte
character (E0–F4, where CJK lives) followed by a continuation byte (80–BF), each byte read from a
symbol as Latin-1 (U+0080–U+00FF) or as byte-level BPE's stand-in (U+0100–U+0143). One such pair
is already the start of a character split into bytes; a real word with an accent (``naïve``,
``café``) has no lead byte followed by a continuation byte.
"""
import nbformat
import pytest
from paths import ROOT

from tools.series import REAL_MODEL

pytest.importorskip("tokenizers")
from helpers.readable_tokens import byte_of_symbol  # noqa: E402

FORBIDDEN = {"Ġ": "byte-level symbol for a space", "Ċ": "byte-level symbol for a newline",
             "\ufffd": "U+FFFD (part of a character's bytes)"}


def _byte(c: str):
    """The byte a symbol would be under Latin-1 or byte-level BPE reading; None for ASCII and the rest."""
    if 0x80 <= ord(c) <= 0xFF:
        return ord(c)
    return byte_of_symbol().get(c) if ord(c) >= 0x100 else None


def unreadable(text: str) -> list:
    """Each place in ``text`` a reader would see a tokenizer's internals: ``[(snippet, why)]``."""
    found = [(text[max(0, i - 8): i + 8], FORBIDDEN[c]) for i, c in enumerate(text) if c in FORBIDDEN]
    for i in range(len(text) - 1):
        lead, follow = _byte(text[i]), _byte(text[i + 1])
        if lead is not None and follow is not None and 0xE0 <= lead <= 0xF4 and 0x80 <= follow <= 0xBF:
            found.append((text[max(0, i - 8): i + 8], "a character's UTF-8 bytes shown one symbol each"))
    return found


def stored_texts(name: str):
    """``(cell index, text)`` of every text output stored in notebook ``name``."""
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if "text" in out:
                yield i, out["text"]
            for kind in ("text/plain", "text/html", "text/markdown"):
                if kind in out.get("data", {}):
                    yield i, out["data"][kind]


def figure_texts(fig) -> list:
    """Every string drawn in ``fig`` (titles, labels, tick labels, legends, annotations)."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text") and hasattr(a, "get_fontsize"))]


@pytest.mark.parametrize("text, expected", [
    ("['å¹', '´', 'å', 'ģ', 'ĩ']", 1), ("ï¼Ł", 1), ("å¹´", 1), ("'Ġthe'", 1), ("'Ċ'", 1), ("�", 1),
    ("ðŁĺĢ", 1),  # 😀 in stand-in symbols
    ("naïve café São Paulo", 0), ("年假怎么申请？", 0), ("['年·1/2', '␣Every', '↵']", 0), ("‹E7B3›", 0),
    ("权重 0.741 · 头 8（KV 头 2）", 0),
])
def test_the_detector_finds_each_kind_and_passes_readable_text(text, expected):
    assert len(unreadable(text)) == expected, unreadable(text)


@pytest.mark.parametrize("name", sorted(REAL_MODEL))
def test_stored_outputs_read_as_text(name):
    offenders = [(i, *o) for i, text in stored_texts(name) for o in unreadable(text)]
    assert offenders == []


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("name", sorted(REAL_MODEL))
def test_figure_text_reads_as_text(name, needs_model):
    from notebook_figures import notebook_figures

    figures = notebook_figures(name)
    offenders = [(f"figure {k + 1}", *o) for k, fig in enumerate(figures)
                 for text in figure_texts(fig) for o in unreadable(text)]
    assert offenders == []
