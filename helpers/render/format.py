"""Numbers and tables as text, the same way everywhere (plumbing behind :mod:`helpers.display`).

Numbers are always formatted explicitly (never a numpy repr): fixed decimals, ``−∞`` for a masked
score, binary units for bytes; tables line up Chinese headers (a CJK character is two columns).
Lesson modules use these for the text they return; notebooks reach them as ``helpers.display.*``.
Taught nowhere (plumbing).
"""
from __future__ import annotations

import re

import numpy as np

from .validation import as_real_array, finite_scalar, integer, short_preview, text


def _digits(digits) -> int:
    return integer("digits", digits, low=0, high=15)

def fmt(x, digits: int = 3) -> str:
    """A number with a fixed number of decimals; integers-valued floats keep the decimals.

    ``-inf`` (a masked score) is written ``−∞``; NaN and ``+inf`` are refused (a number shown to a
    reader is never ``nan``)."""
    digits = _digits(digits)
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, (float, np.floating)) and x == -np.inf:
        return "−∞"
    return f"{finite_scalar('x', x):.{digits}f}"


def fmt_vec(values, digits: int = 3) -> str:
    """``[1.648, 0.087]`` style text for a 1-D array (lists and tuples too)."""
    arr = as_real_array("values", values, ndim=(0, 1), allow_empty=True, allow_neg_inf=True)
    return "[" + ", ".join(fmt(v, digits) for v in np.ravel(arr)) + "]"


#: the minus sign of a number written as zero (``-0.000``, ``-0``): a readout's sum that cancels to
#: within an ulp of 0 keeps the sign of its last rounding, which depends on the order of the additions
#: (numpy's accumulator, the page's JavaScript), not on the formula; a reader sees zero
_SIGNED_ZERO = re.compile(r"(?<![\w.])-(?=0(?:\.0+)?(?![\w.]))")


def unsigned_zeros(words: str) -> str:
    """``words`` with every number written as a negative zero (``-0.000``, ``-0``) written as zero:
    what a readout shows (each explorer's ``describe()``; :func:`fill` for each field it writes, as
    ``fill`` in ``helpers/render/web/attnlab_live.js`` does)."""
    return _SIGNED_ZERO.sub("", text("words", words))


#: a field of a :func:`fill` template, a doubled brace, or a brace that is neither (an error)
_FIELD = re.compile(r"\{\{|\}\}|\{(\w+)(?:\[(\d+)\])?(?::\.(\d+)f)?\}|[{}]")


def fill(template: str, values: dict) -> str:
    """``template`` with its fields written from ``values``: ``{name:.Nf}`` a number by :func:`fmt` or
    a vector by :func:`fmt_vec` with N decimals, ``{name[i]:.Nf}`` entry ``i`` of a vector, ``{name}``
    a text as it is; ``{{`` and ``}}`` are braces (:func:`literal`), any other brace an error. A
    number that rounds to zero is written without a sign (:func:`unsigned_zeros`).

    A readout the book's live page recomputes is written once, as such a template: the explorer's
    ``describe()`` fills it here, and ``fill`` in ``helpers/render/web/attnlab_live.js`` fills it in
    the browser by these same rules (its ``fixed()`` writes a number as :func:`fmt` does)."""
    template = text("template", template)
    if not isinstance(values, dict):
        raise TypeError(f"values must be a dict {{field name: value}}, got {type(values).__name__} {short_preview(values)}")

    def field(match) -> str:
        whole, name, index, digits = match.group(0), *match.groups()
        if whole in ("{{", "}}"):
            return whole[0]
        if name is None:
            raise ValueError(f"template has a lone {whole!r} at {match.start()} (a brace in the text is written "
                             f"doubled): {short_preview(template, 60)}")
        if name not in values:
            raise ValueError(f"template field {whole} has no value: values hold {sorted(values)}")
        value = values[name]
        if index is not None:
            try:
                value = value[int(index)]
            except (TypeError, IndexError, KeyError):
                raise ValueError(f"template field {whole}: {name} has no entry {index} "
                                 f"({short_preview(value)})") from None
        if isinstance(value, str):
            if digits is not None:
                raise TypeError(f"template field {whole} gives decimals to a text, {short_preview(value)}")
            return value
        if digits is None:
            raise TypeError(f"template field {whole} is a number: say its decimals, {{{name}:.3f}}")
        return unsigned_zeros(fmt_vec(value, int(digits)) if np.ndim(value) == 1 else fmt(value, int(digits)))

    return _FIELD.sub(field, template)


def literal(words: str) -> str:
    """``words`` as literal text of a :func:`fill` template (its braces doubled)."""
    return text("words", words).replace("{", "{{").replace("}", "}}")


def fmt_bytes(n_bytes: float) -> str:
    """Bytes in binary units: ``128 KiB``, ``16 GiB``, ``1024 GiB`` (two significant decimals)."""
    n = finite_scalar("n_bytes", n_bytes, low=0.0)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if n == round(n) else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n:.2f} TiB"


def table_cells(headers, rows, *, digits: int = 3) -> tuple[list[str], list[list[str]]]:
    """The checked, formatted cells of a table: ``(header texts, body rows of texts)``.

    Float cells get ``digits`` decimals (:func:`fmt`), arrays are written by :func:`fmt_vec`, anything
    else by ``str``. A cell holding NaN or +inf (a float, an array, or a list such as ``[1.0, nan]``)
    is a ``ValueError`` naming it (``rows[i][j]``): a table never shows ``nan``; where a value is
    missing, write the cell yourself (e.g. ``"—"``). Shared by :func:`text_table` and :func:`helpers.render.table.table`, so the text
    and the HTML of one table always show the same cells."""
    _digits(digits)
    if isinstance(headers, (str, bytes)) or not isinstance(headers, (list, tuple)) or not headers:
        raise TypeError(f"headers must be a non-empty list of column titles, got {type(headers).__name__} {headers!r:.60}")
    if not all(isinstance(h, str) for h in headers):
        raise TypeError(f"headers must be strings (column titles), got {list(headers)!r:.80}")
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__") or isinstance(rows, np.ndarray) and rows.ndim == 0:
        raise TypeError(f"rows must be a list of rows (each a list of cells), got {type(rows).__name__} {rows!r:.60}")
    rows = list(rows)
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != len(headers):
            raise ValueError(f"rows[{i}] must have {len(headers)} cells (one per header), got {row!r:.60}")

    def cell(value):
        if isinstance(value, (float, np.floating)):
            return fmt(value, digits)
        if isinstance(value, np.ndarray):
            return fmt_vec(value, digits)
        return str(value)

    def body_cell(i, j, value):
        if isinstance(value, (list, tuple)) and not _all_finite(value):
            raise ValueError(f"rows[{i}][{j}] holds NaN or inf ({short_preview(value, 60)}); a table never shows "
                             "nan: leave the value out, or write the cell yourself (e.g. '—') where there is none")
        try:
            return cell(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"rows[{i}][{j}] cannot be shown: {exc}") from None

    return [cell(h) for h in headers], [[body_cell(i, j, v) for j, v in enumerate(row)] for i, row in enumerate(rows)]


def _all_finite(value, depth: int = 0) -> bool:
    """No NaN or ±inf among the numbers of a (nested) list or tuple cell."""
    if isinstance(value, (float, np.floating)):
        return bool(np.isfinite(value))
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return bool(np.isfinite(value).all())
    if isinstance(value, (list, tuple)) and depth < 8:
        return all(_all_finite(v, depth + 1) for v in value)
    return True


def text_table(headers, rows, *, digits: int = 3) -> str:
    """A fixed-width text table; float cells are formatted with ``digits`` decimals.

    Widths count CJK characters as two columns so Chinese headers line up in a terminal (a browser
    draws them narrower: notebooks show tables with :func:`helpers.display.table`, whose plain-text
    form is this).
    """
    head, body = table_cells(headers, rows, digits=digits)
    table = [head] + body
    widths = [max(_width(r[i]) for r in table) for i in range(len(head))]
    lines = []
    for r_i, row in enumerate(table):
        lines.append("  ".join(c + " " * (w - _width(c)) for c, w in zip(row, widths)).rstrip())
        if r_i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


_text = text


def _width(text: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)


def pad(text: str, width: int) -> str:
    """Left-align ``text`` in ``width`` columns, counting CJK characters as two."""
    text = _text("text", text)
    width = integer("width", width, low=0, high=1000)
    return text + " " * max(1, width - _width(text))


#: the widest text line a stored output may hold, in columns (a CJK character counts two): JupyterLab
#: wraps a longer line wherever it runs out of room, even inside a number ("2.1" / "5"); at 1366 px
#: with the file browser open its output area holds about 118 Latin columns
LINE_COLUMNS = 110
#: CJK punctuation that never starts a line (it stays with the character before it)
_CLOSING = "，。、；：？！）」』”’》】…"
#: CJK punctuation that never ends a line (it moves on with the character after it)
_OPENING = "（「『“‘《【"
#: the units a line is folded between: a space run, or a Latin run (a number, a name) or one CJK
#: character, with the opening marks before it and the closing marks after it glued on
_PIECES = re.compile(rf"[ \t]+|[{_OPENING}]*(?:[^\s\u2e80-\uffff]+|[\u2e80-\uffff])[{_CLOSING}]*")
#: what a line is never broken inside, when it is short (:data:`_GLUE_COLUMNS`): a bracketed group
#: ("（√d = 1.4）", "[0.179, 0.735]"), ``name = value`` and ``a × b`` (a reader would see "T =" end a line
#: and "5" start the next), and a number with its unit ("64 KiB", "5 个")
_OPERATORS = "=×≈÷≤≥<>→"
_UNITS = r"(?:[KMGT]i?B|B|[mµn]?s|[GT]?FLOPs?(?:/s)?|[GT]B/s|tokens?)(?![^\s\u2e80-\uffff])|[个步维层头倍次组句词位行列块段条]"
_LATIN_RUN = rf"[{_OPENING}]*[^\s\u2e80-\uffff]+[{_CLOSING}]*"
_GLUED = re.compile(
    rf"[{_OPENING}]*[(\[（][^\s()\[\]（）][^()\[\]（）\n]*?[)\]）][{_CLOSING}]*"
    rf"|{_LATIN_RUN}(?: [{_OPERATORS}] {_LATIN_RUN})+(?: (?:{_UNITS})[{_CLOSING}]*)?"
    rf"|[{_OPENING}]*[−+-]?\d[\d,.]*%? (?:{_UNITS})[{_CLOSING}]*"
    rf"|{_PIECES.pattern}")
#: the widest glued group kept whole (at most half the line): a longer one folds at its spaces
_GLUE_COLUMNS = 28


def _units(line: str, width: int) -> list:
    """The pieces of ``line`` that :func:`wrap_text` folds between: the short glued groups whole,
    everything else as :data:`_PIECES`."""
    most = min(_GLUE_COLUMNS, width // 2)
    units = []
    for group in _GLUED.findall(line):
        for unit in ([group] if group.isspace() or _width(group) <= most or " " not in group
                     else _PIECES.findall(group)):
            if unit[:1] in _CLOSING and len(units) > 1 and units[-1].isspace():  # "18.6 ，" stays whole
                units[-2:] = [units[-2] + units[-1] + unit]
            else:
                units.append(unit)
    return units


#: CJK punctuation a line prefers to end after (a clause ends there), before a space
_BREAK_AFTER = "，；：。、？！"
#: how far back a line may end early to reach such a point or a space, as a fraction of the width:
#: a line ends at most this much short rather than split two CJK characters of one word
_LOOKBACK = 1 / 3


def _cut(pieces: list, piece: str, width: int, fits) -> int:
    """Where a full line of ``pieces`` ends when ``piece`` does not fit after it: after the last
    :data:`_BREAK_AFTER` mark, at the last space or before the last opening bracket within the line's
    last :data:`_LOOKBACK`, provided what moves on ``fits``; otherwise at its end (beside whatever
    piece comes last, a CJK character included)."""
    following = [*pieces, piece]
    column = _width("".join(pieces))
    for j in range(len(pieces), 0, -1):
        if column < width - width * _LOOKBACK:
            break
        end, before = pieces[j - 1].rstrip()[-1:], following[j][:1]
        if (not end or end in _BREAK_AFTER or before.isspace() or before in _OPENING) and fits(pieces[j:]):
            return j
        column -= _width(pieces[j - 1])
    return len(pieces)


def wrap_text(text: str, width: int = LINE_COLUMNS, *, indent: str = "") -> str:
    """``text`` with each line folded to at most ``width`` columns (a CJK character counts two).

    A line ends after CJK punctuation (``，；：。、``), at a space or before an opening bracket (``（``)
    when one lies within its last third,
    and only otherwise beside a CJK character, so a Chinese word is split only where a clause offers no
    earlier point. A number, a name (``lm_head``) or a token (``[0.179, 0.735]`` pieces) is never split,
    nor a short ``name = value``, ``a × b``, number with its unit or bracketed group (:data:`_GLUED`).
    A piece longer than a line stays whole; CJK punctuation never starts a line, nor an opening bracket
    ends one. Continuation lines start with ``indent``."""
    text = _text("text", text)
    width = integer("width", width, low=10, high=1000)
    indent = _text("indent", indent)
    out = []
    for line in text.split("\n"):
        current = []  # the pieces of the line being filled
        for piece in _units(line, width):
            if ("".join(current).strip() and not piece.isspace() and piece[0] not in _CLOSING
                    and _width("".join(current) + piece) > width):
                def fits(rest, piece=piece):
                    return _width(indent + "".join(rest).lstrip() + piece) <= width
                j = _cut(current, piece, width, fits)
                out.append("".join(current[:j]).rstrip())
                rest = "".join(current[j:]).lstrip()
                current = [indent] + ([rest] if rest else [])
            if not (piece.isspace() and "".join(current) == indent and out):
                current.append(piece)
        out.append("".join(current).rstrip())
    return "\n".join(out)
