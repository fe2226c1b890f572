"""Reading what the learner's function returned: plain float arrays, or why they cannot be read.

A list or tuple of numbers is read as an array silently; ``None``, text, a wrong number of returned
values, a complex or float16 result and a result more than :data:`SIZE_FACTOR` times the expected
size (refused unread) are each named by :class:`Unreadable`, whose message is the Chinese hint.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .originals import Pristine


class Unreadable(Exception):
    """The learner's return value cannot be compared; the message is the Chinese hint, ``name`` the
    kind of problem (``"unreadable"``, ``"complex"``, ``"float16"``, ``"too_big"``)."""

    def __init__(self, message: str, name: str = "unreadable"):
        super().__init__(message)
        self.name = name


#: what a value of each kind is called in the messages (a list of numbers counts as an array)
KIND_WORDS = {"number": "一个数", "array": "一个数组"}
_TYPE_WORDS = {"str": "字符串（str）", "bytes": "字节串（bytes）", "dict": "字典（dict）", "set": "集合（set）"}
#: a result may hold this many times as many numbers as the expected one before it is refused unread
SIZE_FACTOR = 8
COMPLEX_HINT = ("返回值是复数（complex）：权重和输出都是实数，判分不会悄悄丢掉虚部。找一找虚部是从哪里来的"
                "（加了 1j？对负数开了 np.sqrt / np.emath？），去掉它再运行。")
FLOAT16_HINT = ("返回值是 float16（半精度）：它只有约 3 位有效数字，最大只到 65504，e 的 12 次方就溢出了，"
                "判不出对错。用 numpy 默认的 float64（或者 float32）来算。")


def _type_word(value) -> str:
    name = type(value).__name__
    return _TYPE_WORDS.get(name, name)


def _as_array(value, what: str, kind: str = "array") -> np.ndarray:
    """``value`` as a float array; lists and tuples of numbers are accepted silently; complex and
    float16 results are refused with their own sentence (never silently converted)."""
    if value is None:
        raise Unreadable(f"{what}是 None（缺了 return？）。")
    if isinstance(value, (str, bytes, dict, set)):
        raise Unreadable(f"{what}应是{KIND_WORDS[kind]}，收到的是{_type_word(value)}。")
    whole = "一个数" if kind == "number" else "一个整齐的数值数组"
    try:
        raw = np.asarray(value)
        if raw.dtype.kind == "c" or isinstance(value, complex):
            raise Unreadable(f"{what}：" + COMPLEX_HINT, "complex")
        if raw.dtype == np.float16:
            raise Unreadable(f"{what}：" + FLOAT16_HINT, "float16")
        arr = raw.astype(float)
    except (TypeError, ValueError, OverflowError):
        raise Unreadable(f"{what}不是{whole}（收到的是 {type(value).__name__}）。") from None
    return arr


def _precision(value):
    """The floating type the learner's value was computed in: ``np.float32`` or ``np.float64``."""
    dtype = getattr(value, "dtype", None)
    return np.float32 if dtype is not None and dtype == np.float32 else np.float64


def _check_sizes(result, outputs: tuple, shapes: tuple):
    """Refuse, before reading a single value, an array holding more than :data:`SIZE_FACTOR` times
    the numbers expected (a lazily allocated giant array would otherwise take seconds to compare)."""
    parts = tuple(result) if len(outputs) > 1 and isinstance(result, (tuple, list)) else (result,)
    for part, shape, name in zip(parts, shapes, outputs):
        size = getattr(part, "size", None) if isinstance(part, (np.ndarray, np.generic)) else None
        expected = max(int(np.prod(shape)), 1)
        if size is not None and size > SIZE_FACTOR * expected:
            raise Unreadable(f"{name} 太大了：形状 {tuple(part.shape)}，{size:,} 个数；这里应是形状 {tuple(shape)}"
                             f"（{expected} 个数），超过 {SIZE_FACTOR} 倍的结果判分不读。检查是不是多了一维，"
                             "或者把不该相乘的两个维度做了外积。", "too_big")


def measuring(read, measure, args: tuple):
    """``read`` applied to ``measure(result, *args)``: for an exercise judged by what the learner's
    result does, measured once their function has returned and with the functions recorded by
    :mod:`~helpers.grading.originals` back in place. A result the measure cannot use (wrong keys, shapes, types) is :class:`Unreadable`
    with the measure's own sentence."""
    def read_measured(result):
        if result is None:
            return read(None)
        try:
            with Pristine():  # measured with the recorded originals: a learner's np.mean = … changes nothing
                values = measure(result, *args)
        except (TypeError, ValueError, KeyError) as why:
            return Read(problem=Unreadable(f"返回的结果用不了：{why}"))
        return read(values)
    return read_measured


@dataclass(frozen=True)
class Read:
    """The learner's result as plain float64 arrays (``got``) and the precision each was computed in
    (``precisions``), or why it cannot be read (``problem``)."""

    got: tuple | None = None
    precisions: tuple = ()
    problem: Unreadable | None = None


def reader(outputs: tuple, shapes: tuple):
    """``read(result)`` → :class:`Read`: the function :func:`~helpers.grading.sandbox.call_learner` runs on
    the learner's result, under the same watch (``shapes``: the expected shape of each output)."""
    kinds = tuple("number" if s == () else "array" for s in shapes)

    def read(result):
        if result is None and len(outputs) >= 1:
            return Read(problem=Unreadable("返回值是 None（缺了 return？）。"))
        try:
            _check_sizes(result, outputs, shapes)
            got = read_outputs(result, outputs, kinds)
        except Unreadable as why:
            return Read(problem=why)
        parts = (result,) if len(outputs) == 1 else tuple(result)
        return Read(got, tuple(_precision(p) for p in parts))
    return read


def code_name(label: str) -> str:
    """The variable a returned value is called in code: the last word of ``"输出 out"`` when it is an
    identifier (``"out"``), else ``""``."""
    word = label.split()[-1] if label.split() else ""
    return word if word.isidentifier() and word.isascii() else ""


def read_outputs(result, outputs: tuple, kinds: tuple | None = None) -> tuple:
    """``result`` as a tuple of float arrays, one per name in ``outputs``; :class:`Unreadable` if not.
    ``kinds`` (``"number"``/``"array"`` per output, from the expected values) words the messages."""
    kinds = kinds or ("array",) * len(outputs)
    if len(outputs) == 1:
        if isinstance(result, tuple):
            one = "一个数" if kinds[0] == "number" else "一个数组"
            raise Unreadable(f"返回了一个有 {len(result)} 个值的元组；这里只要返回{one}（{outputs[0]}）。")
        return (_as_array(result, "返回值", kinds[0]),)
    names = "、".join(outputs)
    if not isinstance(result, (tuple, list)) or len(result) != len(outputs):
        got = (f" {len(result)} 个值" if isinstance(result, (tuple, list))
               else "一个数组" if isinstance(result, np.ndarray) else f" {type(result).__name__}")
        codes = [code_name(n) for n in outputs]
        example = f"，例如 return {', '.join(codes)}" if all(codes) else ""
        raise Unreadable(f"应返回 {len(outputs)} 个值（{names}，按这个顺序{example}），收到的是{got}。")
    return tuple(_as_array(r, f"第 {i + 1} 个返回值（{n}）", k)
                 for i, (r, n, k) in enumerate(zip(result, outputs, kinds)))
