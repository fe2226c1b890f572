"""The grading wing: reading a learner's typed answers and checking the functions they write.

Plumbing like :mod:`helpers.render` (no notebook teaches it), kept apart because it is one job with
its own parts. Each notebook's exercises (``helpers/exercises/<slug>.py``) are written in its
vocabulary, and the face :mod:`helpers.exercises` (``check``, ``check_code``) runs it:

- typed answers: :mod:`~helpers.grading.answers` (``Choice``, ``Number``, ``Numbers``, ``Exercise``,
  ``judge``: an answer is normalised, read, and compared at the precision the question asks for);
- the verdict both return: :mod:`~helpers.grading.verdict`;
- functions the learner writes: :mod:`~helpers.grading.code_exercise` (``CodeExercise``, ``Case``,
  ``Mistake``) and :mod:`~helpers.grading.code_check` (``run``), which puts the jobs together:
  running the learner's code (:mod:`~helpers.grading.watch`: the clock, stop button, forbidden
  calls; :mod:`~helpers.grading.clock`: what the limit measures and how large it is;
  :mod:`~helpers.grading.stopped`: where a stopped function was; :mod:`~helpers.grading.sandbox`:
  copies, printing and warnings captured;
  :mod:`~helpers.grading.returned`: reading what came back), comparing
  (:mod:`~helpers.grading.compare`: tolerances per case and precision), diagnosing
  (:mod:`~helpers.grading.diagnose`: the usual mistakes) and the messages the learner reads
  (:mod:`~helpers.grading.messages`);
- :mod:`~helpers.grading.originals`: the functions the grader computes with, recorded at ``import
  helpers`` (a learner's ``np.exp = …`` changes nothing about grading).

The wing imports only the base of :mod:`helpers.render` (validation), so a lesson module may use it
too. The names above are re-exported here and load on first use (``from helpers.grading import
Case``): ``import helpers`` records the originals through this package and stays fast.
"""
from __future__ import annotations

import importlib

#: ``{name: module of this wing that defines it}``: the public vocabulary, re-exported here
_WHERE = {
    **dict.fromkeys(("Choice", "Number", "Numbers", "Exercise", "Malformed", "judge", "clean_text",
                     "parse_number", "parse_numbers", "same_at_precision", "rounded", "shown_answer",
                     "UNANSWERED", "YES_NO", "CAN", "WILL"), "answers"),
    **dict.fromkeys(("Case", "Mistake", "CodeExercise", "TIME_FLOOR", "TIME_FACTOR"), "code_exercise"),
    **dict.fromkeys(("run",), "code_check"),
    **dict.fromkeys(("Verdict",), "verdict"),
    **dict.fromkeys(("Unreadable", "read_outputs"), "returned"),
    **dict.fromkeys(("show_array", "returns_clause", "describe_cases"), "messages"),
    **dict.fromkeys(("remember_originals",), "originals"),
}
#: the wing's modules (each also reachable as ``helpers.grading.<name>``)
MODULES = ("answers", "verdict", "code_exercise", "code_check", "watch", "clock", "stopped", "sandbox", "returned",
           "compare", "diagnose", "messages", "originals")


def __getattr__(name):
    """Load the module that defines ``name`` on first use (see the module docstring)."""
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    elif name in MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *_WHERE, *MODULES})


__all__ = sorted(_WHERE)
