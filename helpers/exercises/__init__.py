"""Self-checking exercises of every notebook (a face: notebooks call ``helpers.exercises.*``).

A notebook's exercise cell is two lines::

    answer = None  # 例如 "年"
    helpers.exercises.check("03-2", answer)

:func:`check` prints a verdict in Chinese and returns ``True``/``False`` (``None`` when the answer
is still ``None`` or cannot be read, with a Chinese hint); a wrong answer shows the working. How
answers are read and compared is :mod:`helpers.render.answers`.

Each notebook's exercises live in ``helpers/exercises/<notebook>.py`` (``"NN-i"`` = notebook NN,
exercise i, in the module of notebook NN), each defining ``EXERCISES`` and ``REFERENCES`` (the
reference answers of discussion questions, :func:`reference`). This package gathers them all into
:data:`EXERCISES` and :data:`REFERENCES`; a new notebook's module is found without editing this file.
The closing quiz lives with ``08_reading_attention`` (:data:`QUIZ`, :func:`closing_quiz`).
Nothing inside ``helpers`` imports this package.
"""
from __future__ import annotations

import importlib
import pkgutil

from .reading_attention import QUIZ, closing_quiz
from .real_model import previous_token_ranking


def _gather(name: str) -> dict:
    """``name`` (EXERCISES or REFERENCES) of every notebook's module, merged; a key twice is an error."""
    merged: dict = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        table = getattr(module, name)
        twice = set(table) & set(merged)
        if twice:
            raise RuntimeError(f"{module.__name__}.{name} repeats keys defined elsewhere: {sorted(twice)}")
        merged.update(table)
    return dict(sorted(merged.items()))


#: every exercise of the series by its key (``"03-1"`` …), in key order
EXERCISES = _gather("EXERCISES")
#: reference answers of the discussion questions, by key
REFERENCES = _gather("REFERENCES")


def check(key: str, answer, **context):
    """Check ``answer`` to exercise ``key`` (``"03-1"`` …) and print the verdict and working."""
    from ..render.answers import judge

    if key not in EXERCISES:
        print(f"⚠ 没有编号为 {key!r} 的练习。可选：{'、'.join(EXERCISES)}。")
        return None
    ok, message = judge(EXERCISES[key], answer, **context)
    print(message)
    return ok


def reference(key: str, show: bool = False) -> None:
    """The reference answer of discussion question ``key``, printed only when ``show`` is true."""
    if key not in REFERENCES:
        print(f"⚠ 没有编号为 {key!r} 的讨论题。可选：{'、'.join(REFERENCES)}。")
    elif not show:
        print("先自己想一想（需要时做个实验），写下结论；想对照参考答案时，把 show 改成 True 再运行。")
    else:
        print("参考答案：" + REFERENCES[key])


__all__ = ["check", "reference", "closing_quiz", "previous_token_ranking", "EXERCISES", "REFERENCES", "QUIZ"]
