"""Self-checking exercises of every notebook (a face: notebooks call ``helpers.exercises.*``).

A notebook's exercise cell is two lines::

    answer = None  # 例如 "年"
    helpers.exercises.check("03-2", answer)

:func:`check` prints a verdict in Chinese and returns a :class:`Verdict` that shows nothing in the
cell (no stray ``Out[n]: False`` under the feedback) and holds ``ok`` — ``True``/``False``, ``None``
when the answer is still ``None`` or cannot be read — for tests and for code that wants it; a wrong
answer shows the working. The vocabulary the exercises are written in, how answers are read and
compared and how code is checked, is the grading wing :mod:`helpers.grading`.

Each notebook's exercises live in ``helpers/exercises/<notebook>.py`` (``"NN-i"`` = notebook NN,
exercise i, in the module of notebook NN), each defining ``EXERCISES`` and ``REFERENCES`` (the
reference answers of discussion questions, :func:`reference`). This package gathers them all into
:data:`EXERCISES` and :data:`REFERENCES`; a new notebook's module is found without editing this file.
The closing quiz lives with ``08_reading_attention`` (:data:`QUIZ`, :func:`closing_quiz`).

Code exercises (the learner writes a function, the grader runs it on seeded cases): a module may also define ``CODE_EXERCISES`` (gathered into
:data:`CODE_EXERCISES`; keys distinct from :data:`EXERCISES`), functions the learner writes::

    def softmax(x):
        ...  # 在这里写


    helpers.exercises.check_code("03-3", softmax)

:func:`check_code` runs it on seeded cases against the lesson module's reference and prints the
first wrong case with a hint for the mistake it looks like (:mod:`helpers.grading.code_check`);
:func:`solution` prints the reference solution for after the learner has tried.
Nothing inside ``helpers`` imports this package.
"""
from __future__ import annotations

import importlib
import pkgutil
from types import MappingProxyType

from ..grading import Verdict, code_check, originals

#: ``print`` as it was when helpers was imported: a cell that replaced ``builtins.print`` hides no verdict
_say = originals.original("builtins", "print")
from ..grading.answers import judge, shown_answer
from .reading_attention import QUIZ, closing_quiz
from .real_model import previous_token_ranking


def _gather(name: str, optional: bool = False) -> dict:
    """``name`` (EXERCISES, REFERENCES or the optional CODE_EXERCISES) of every notebook's module,
    merged; a key twice is an error."""
    merged: dict = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        table = getattr(module, name, {}) if optional else getattr(module, name)
        twice = set(table) & set(merged)
        if twice:
            raise RuntimeError(f"{module.__name__}.{name} repeats keys defined elsewhere: {sorted(twice)}")
        merged.update(table)
    return dict(sorted(merged.items()))


#: every exercise of the series by its key (``"03-1"`` …), in key order
EXERCISES = _gather("EXERCISES")
#: reference answers of the discussion questions, by key
REFERENCES = _gather("REFERENCES")
#: the exercises where the learner writes a function (:func:`check_code`), by key
CODE_EXERCISES = _gather("CODE_EXERCISES", optional=True)
if set(CODE_EXERCISES) & set(EXERCISES):
    raise RuntimeError(f"code exercises reuse keys of EXERCISES: {sorted(set(CODE_EXERCISES) & set(EXERCISES))}")
#: the code exercises as imported: a learner who replaces an entry of CODE_EXERCISES is graded by these
_GRADED = MappingProxyType(dict(CODE_EXERCISES))
#: the engine as imported (a learner's ``code_check.run = …`` does not reach check_code)
_RUN = code_check.run
originals.remember_originals(*{name.rpartition(".")[0] for ex in _GRADED.values() for name in ex.forbidden})


def check(key: str, answer, **context):
    """Check ``answer`` to exercise ``key`` (``"03-1"`` …) and print the verdict and working."""
    if not isinstance(key, str) or key not in EXERCISES:
        message = f"⚠ 没有编号为 {shown_answer(key)} 的练习。可选：{'、'.join(EXERCISES)}。"
        _say(message)
        return Verdict(None, message)
    ok, message = judge(EXERCISES[key], answer, **context)
    _say(message)
    return Verdict(ok, message)


def reference(key: str, show: bool = False) -> None:
    """The reference answer of discussion question ``key``, printed only when ``show`` is true."""
    if not isinstance(key, str) or key not in REFERENCES:
        _say(f"⚠ 没有编号为 {shown_answer(key)} 的讨论题。可选：{'、'.join(REFERENCES)}。")
    elif not show:
        _say("先自己想一想（需要时做个实验），写下结论；想对照参考答案时，把 show 改成 True 再运行。")
    else:
        _say("参考答案：" + REFERENCES[key])


def check_code(key: str, function, **options):
    """Run the learner's ``function`` for code exercise ``key`` (``"03-3"`` …) on seeded cases and
    print the verdict: the first wrong case (inputs, expected vs returned, a hint for the mistake
    it looks like) or ✔. Returns a :class:`Verdict` (``ok``: ``True``/``False``, ``None`` while it is
    still the stub). Never raises because of ``function`` (see :mod:`helpers.grading.code_check`; each
    case's time limit: :mod:`helpers.grading.clock`)."""
    if not isinstance(key, str) or key not in _GRADED:
        message = f"⚠ 没有编号为 {shown_answer(key)} 的写代码练习。可选：{'、'.join(_GRADED)}。"
        _say(message)
        return Verdict(None, message)
    ignored = () if CODE_EXERCISES.get(key) is _GRADED[key] else (f"CODE_EXERCISES[{key!r}]",)
    exercise, options, message = _chosen(key, _GRADED[key], options)
    if message:
        _say(message)
        return Verdict(None, message)
    return _verdict(_RUN, exercise, function, ignored, options)


#: keywords of check_code that go to the engine (tests use them), not to an exercise's choices
_ENGINE_OPTIONS = ("use_alarm",)


def _chosen(key: str, exercise, options: dict) -> tuple:
    """The version of ``exercise`` the learner picked with a keyword (``pairing="interleaved"``, see
    ``CodeExercise.choices``), the options left for the engine, and a message when a keyword or its
    value is not one the exercise knows (``""`` otherwise)."""
    left = dict(options)
    for keyword in [k for k in options if k not in _ENGINE_OPTIONS]:
        versions = exercise.choices.get(keyword)
        value = left.pop(keyword)
        if versions is None:
            known = "、".join(f"{k}=…" for k in exercise.choices) or "没有"
            return exercise, left, (f"⚠ check_code({key!r}, …) 没有 {keyword}= 这个选项；这道题可选的是：{known}。")
        if not isinstance(value, str) or value not in versions:
            allowed = "、".join(repr(v) for v in versions)
            return exercise, left, f"⚠ {keyword} 只能是 {allowed}，你给的是 {shown_answer(value)}。"
        exercise = versions[value] or exercise
    return exercise, left, ""


def _verdict(run, exercise, function, ignored, options) -> Verdict:
    try:
        ok, message, mistake = run(exercise, function, ignored=ignored, **options)
    except Exception as exc:  # noqa: BLE001 — a last guard: the learner sees a sentence, not a traceback
        ok, mistake, message = None, None, _grader_failed(exercise, exc)
    _say(message)
    return Verdict(ok, message, mistake)


def _grader_failed(exercise, exc: Exception) -> str:
    """What the learner reads when the checker itself raised: the reference's failure is not blamed
    on their function."""
    name = type(exc).__name__
    tb, codes = exc.__traceback__, {getattr(exercise.reference, "__code__", None)}
    while tb is not None and tb.tb_frame.f_code not in codes:
        tb = tb.tb_next
    if tb is not None:
        return (f"⚠ 判分程序在计算参考答案时出错了（{name}）：这不是你的函数的问题。重启内核（Kernel → Restart），"
                f"运行本节开头的导入单元，再运行这个单元；仍然出错就请报告这个问题。")
    return f"⚠ 判分程序没能处理这次的结果（{name}）。先检查函数的返回值是不是题目要求的形状和个数，再运行一次。"


def solution(key: str) -> None:
    """Print the reference solution of code exercise ``key`` (readable code, written for the learner)."""
    if not isinstance(key, str) or key not in CODE_EXERCISES:
        _say(f"⚠ 没有编号为 {shown_answer(key)} 的写代码练习。可选：{'、'.join(CODE_EXERCISES)}。")
        return
    _say(f"参考写法（{CODE_EXERCISES[key].title}）：\n")
    _say(CODE_EXERCISES[key].solution)


__all__ = ["Verdict", "check", "check_code", "solution", "reference", "closing_quiz", "previous_token_ranking", "EXERCISES", "REFERENCES", "CODE_EXERCISES", "QUIZ"]
