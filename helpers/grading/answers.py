"""Reading and comparing a learner's typed answers: the checker vocabulary of
:mod:`helpers.exercises` (every notebook's exercises and ``08``'s closing quiz).

An answer is normalised before it is judged — quotes, full-width characters, spaces and units
(``2.3倍``, ``14%``, ``16 GiB``) are taken away — and an answer that cannot be read raises
:class:`Malformed`, whose message is the Chinese hint shown to the learner. Numbers are compared
after rounding both sides to the precision the question asks for (half away from zero, in exact
decimal arithmetic, so the check is symmetric). Three answer kinds — :class:`Choice`,
:class:`Number`, :class:`Numbers` — and one :class:`Exercise`; :func:`judge` never raises on an
answer.
"""
from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Callable

import numpy as np

from ..render.validation import short_preview

UNANSWERED = "还没有作答：把答案填进上面的变量，再运行这个单元。"


class Malformed(Exception):
    """An answer that cannot be read; the message is the Chinese hint shown to the learner."""


# ---- normalising answers ---------------------------------------------------------------------
_QUOTES = "\"'“”‘’「」『』《》〈〉`"
_UNIT_ALIASES = {
    "倍": "倍", "x": "倍", "×": "倍", "times": "倍",
    "%": "%", "percent": "%",
    "gib": "GiB", "gb": "GiB", "g": "GiB",
    "mib": "MiB", "mb": "MiB", "m": "MiB",
    "kib": "KiB", "kb": "KiB", "k": "KiB",
    "b": "B", "字节": "B", "bytes": "B", "byte": "B",
    "维": "维", "个": "个", "层": "层", "个头": "个", "头": "个", "个token": "个", "token": "个",
}
_NUMBER = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)(.*)$", re.IGNORECASE)
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?")


def clean_text(answer) -> str:
    """The answer as plain text: full-width → half-width (NFKC), quotes and spaces removed.

    ``"“怎么”"`` → ``"怎么"``, ``"Ｑ"`` → ``"Q"``, ``" 2.3 倍 "`` → ``"2.3倍"``, ``"−0.15"`` → ``"-0.15"``.
    """
    text = unicodedata.normalize("NFKC", str(answer)).replace("\u2212", "-")  # "−0.15" (typographic minus)
    text = "".join(ch for ch in text if ch not in _QUOTES and not ch.isspace())
    return text.rstrip("。.;；!！?？")


def parse_number(answer, *, unit: str | None = None, what: str = "答案") -> float:
    """A single number from ``answer`` (int, float or text such as ``"2.3倍"``, ``"14%"``,
    ``"16 GiB"``, ``"53,000"``); ``unit`` is the unit the question asks for. Raises
    :class:`Malformed` with a Chinese hint when it cannot."""
    if isinstance(answer, (bool, np.bool_)):
        raise Malformed(f"{what}应该是一个数，不是 {answer}。")
    if isinstance(answer, (int, float, np.integer, np.floating)):
        try:
            value = float(answer)
        except OverflowError:  # an int such as 10**400
            value = math.inf
        if not math.isfinite(value):
            raise Malformed(f"{what}应该是一个有限的数，收到的是 {answer}。")
        return value
    if isinstance(answer, (list, tuple, np.ndarray, dict, set)):
        raise Malformed(f"{what}只要一个数，收到的是一组值：{_short(answer)}。")
    text = clean_text(answer)
    if _THOUSANDS.match(text):
        text = text.replace(",", "")
    match = _NUMBER.match(text)
    if not match:
        raise Malformed(f"没能从 {_short(answer)} 里读出一个数。请填一个数，例如 "
                        f"{'2.3' if unit is None else '2.3 ' + unit}。")
    value = float(match.group(1))
    suffix = match.group(2).lower()
    given_unit = _UNIT_ALIASES.get(suffix) if suffix else None
    if suffix and given_unit is None:
        raise Malformed(f"看不懂数字后面的{_quoted(match.group(2), answer)}。只填数字"
                        f"{'' if unit is None else '（可以带单位 ' + unit + '）'}即可。")
    if given_unit == "%" and unit != "%":
        return value / 100
    if given_unit not in (None, unit) and not (unit is None and given_unit in ("倍", "个", "维", "层")):
        raise Malformed(f"这一题的单位是 {unit or '（无单位）'}，你写的是 {given_unit}。请换算后再填。")
    if not math.isfinite(value):
        raise Malformed(f"{what}应该是一个有限的数，收到的是 {_short(answer)}。")
    return value


def parse_numbers(answer, count: int, *, labels=None, unit: str | None = None) -> list:
    """``count`` numbers from a list/tuple/array or from text like ``"0.25，0.5, 0.12 0.12"``."""
    names = f"（{'、'.join(labels)}）" if labels else ""
    if isinstance(answer, dict):
        raise Malformed(f"请按顺序填 {count} 个数{names}，例如 [{', '.join(['0.5'] * count)}]，不要用字典。")
    if isinstance(answer, (list, tuple, np.ndarray)):
        items = list(np.asarray(answer, dtype=object).ravel())
    elif isinstance(answer, str):
        text = unicodedata.normalize("NFKC", answer).strip().strip("[]()（）【】")
        items = []
        for part in (part for part in re.split(r"[,，、;；\s]+", text) if part):
            previous = _NUMBER.match(items[-1]) if items else None
            if previous and not previous.group(2) and part.lower() in _UNIT_ALIASES:
                items[-1] += part  # "64 KiB, 256 KiB": a unit joins the bare number before it
            else:
                items.append(part)
    else:
        items = [answer]
    if len(items) != count:
        raise Malformed(f"这一题要 {count} 个数{names}，你填了 {len(items)} 个。")
    return [parse_number(item, unit=unit, what=f"第 {i + 1} 个数") for i, item in enumerate(items)]


def steps(x: float, digits: int) -> int:
    """``x`` rounded to ``digits`` decimals (negative: tens, hundreds…), counted in units of the
    last digit, half away from zero, in exact decimal arithmetic."""
    return int(Decimal(repr(float(x))).scaleb(digits).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def same_at_precision(given: float, expected: float, digits: int, slack: int = 0) -> bool:
    """Whether ``given`` and ``expected`` agree when both are rounded to ``digits`` decimals,
    allowing ``slack`` units of the last digit either way (symmetric)."""
    try:
        return abs(steps(given, digits) - steps(expected, digits)) <= slack
    except (InvalidOperation, ValueError, OverflowError):
        return False


def rounded(x: float, digits: int) -> str:
    """``x`` written at ``digits`` decimals (``digits < 0`` rounds to tens, hundreds…)."""
    if digits >= 0:
        return f"{float(x):.{digits}f}"
    return f"{steps(x, digits) * 10 ** (-digits):,}"


#: the longest answer a hint quotes in full; a longer one is shown as its type, length and start
QUOTED = 40


def _short(answer) -> str:
    """``answer``'s repr when short, else ``str of 1,000,000 characters: 'xxxx…'`` (≤ 80 characters):
    a hint never echoes a whole pasted file back."""
    return short_preview(answer, limit=QUOTED if len(repr(answer)) <= QUOTED else 2 * QUOTED)


def _quoted(text: str, answer) -> str:
    """“text” (a cleaned answer or a part of it) when short; else :func:`_short` of the whole answer."""
    return f"“{text}”" if len(text) <= QUOTED else _short(answer)


shown_answer = _short


# ---- answer kinds ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    """One of ``options``; ``aliases`` maps other accepted spellings (after :func:`clean_text`,
    case-insensitive) to an option."""

    options: tuple
    aliases: dict = field(default_factory=dict)

    def read(self, answer) -> str:
        if isinstance(answer, (list, tuple, dict, set, np.ndarray)):
            raise Malformed(f"只填一个选项，例如 {self.options[0]!r}；可选：{'、'.join(self.options)}。")
        text = clean_text(answer).upper()
        table = {clean_text(o).upper(): o for o in self.options}
        table.update({clean_text(k).upper(): v for k, v in self.aliases.items()})
        if text not in table:
            raise Malformed(f"{_quoted(clean_text(answer), answer)}不在选项里。可选：{'、'.join(self.options)}。")
        return table[text]

    def same(self, given, expected) -> bool:
        return given == expected

    def show(self, expected) -> str:
        return str(expected)


@dataclass(frozen=True)
class Number:
    """A number, compared at ``digits`` decimals with ``slack`` units of the last digit."""

    digits: int
    unit: str | None = None
    slack: int = 0

    def read(self, answer) -> float:
        return parse_number(answer, unit=self.unit)

    def same(self, given, expected) -> bool:
        return same_at_precision(given, expected, self.digits, self.slack)

    def show(self, expected) -> str:
        return rounded(expected, self.digits) + (f" {self.unit}" if self.unit else "")


@dataclass(frozen=True)
class Numbers:
    """Several numbers in order (``labels`` name them), each compared like :class:`Number`."""

    labels: tuple
    digits: int
    slack: int = 0
    unit: str | None = None

    def read(self, answer) -> list:
        return parse_numbers(answer, len(self.labels), labels=self.labels, unit=self.unit)

    def same(self, given, expected) -> bool:
        return all(same_at_precision(g, e, self.digits, self.slack) for g, e in zip(given, expected))

    def show(self, expected) -> str:
        return "[" + ", ".join(rounded(e, self.digits) for e in expected) + "]"


@dataclass(frozen=True)
class Exercise:
    """A question, its answer kind, and ``solve``: a function of the notebook's context (keyword
    arguments passed to :func:`check`) returning ``(expected answer, working text)``."""

    prompt: str
    kind: object
    solve: Callable


def judge(exercise: Exercise, answer, **context):
    """``(verdict, message)`` for ``answer``: verdict ``True``/``False``, or ``None`` when the
    answer is missing or unreadable. Never raises on the answer."""
    if answer is None:
        return None, UNANSWERED
    try:
        given = exercise.kind.read(answer)
    except Malformed as hint:
        return None, f"⚠ 没能读懂这个答案：{hint}"
    expected, working = exercise.solve(**context)
    ok = exercise.kind.same(given, expected)
    verdict = "✔ 正确！" if ok else f"✘ 还不对。答案是 {exercise.kind.show(expected)}。"
    return ok, verdict + "\n" + working


# ---- common choices ------------------------------------------------------------------------
YES_NO = Choice(("是", "否"), {"对": "是", "yes": "是", "y": "是", "true": "是",
                              "不是": "否", "不对": "否", "no": "否", "n": "否", "false": "否"})
CAN = Choice(("能", "不能"), {"可以": "能", "是": "能", "yes": "能", "不可以": "不能", "否": "不能", "no": "不能"})
WILL = Choice(("会", "不会"), {"变": "会", "会变": "会", "是": "会", "yes": "会",
                              "不变": "不会", "不会变": "不会", "否": "不会", "no": "不会"})
