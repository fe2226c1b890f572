"""What ``helpers.exercises.check`` and ``check_code`` return after printing their message, and what
checking a learner's function found before it is worded (:class:`Outcome`)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """What :func:`helpers.exercises.check` and :func:`helpers.exercises.check_code` return after
    printing their message: ``ok`` (``True``/``False``/``None``), the ``message`` printed and, for
    code, the diagnosed ``mistake``. A notebook cell ending in the call shows nothing more (the
    message is already printed); ``bool()`` is ``True`` only for a right answer."""

    ok: bool | None
    message: str = ""
    mistake: str | None = None

    def _ipython_display_(self):  # the verdict is already printed: the cell's Out[n] stays empty
        return None

    def __repr__(self):
        return ""

    def __bool__(self):
        return self.ok is True


#: every outcome of checking a learner's function: ``(ok, mistake)`` — whether it is right (``None``:
#: no verdict) and the mistake it names (``None`` for a wrong or unreadable result: its diagnosis names it)
OUTCOMES = {
    "not_a_function": (None, None),  # check_code was given something else (the call's result, None …)
    "unanswered": (None, None),      # still the stub: None on the first case
    "unwatched": (None, "unwatched"),  # the code removed the checker's profiler or timer
    "forbidden": (False, "forbidden"),  # it called the lesson function it is asked to write
    "wrong": (False, None),
    "timed_out": (False, "timeout"),
    "raised": (False, "error"),
    "unreadable": (False, None),
    "mutated": (False, "mutation"),  # right results, arguments changed in place
    "wrote_back": (False, "wrote_back"),  # right results, a wrong value left in an argument it may update
    "right": (True, None),
}


@dataclass(frozen=True)
class Outcome:
    """What checking a learner's function found (:mod:`helpers.grading.code_check`), one value per
    outcome, worded by :func:`helpers.grading.messages.word`: ``kind`` (a key of :data:`OUTCOMES`),
    the case it is about (``index``, counted from 1, and ``case``), its ``evidence`` (the wrong
    :class:`~helpers.grading.compare.Result`; the :class:`~helpers.grading.sandbox.Call` that timed out
    or raised; the unreadable problem; the arguments changed; the names called or removed; what was
    written back; every case's results when right; what was passed instead of a function), the
    ``hint``, the ``notes`` that end the message, and the ``diagnosis`` that names a wrong or unreadable
    result's mistake."""

    kind: str
    index: int = 0
    case: object = None
    evidence: object = None
    hint: str = ""
    notes: tuple = ()
    diagnosis: str | None = None

    def __post_init__(self):
        if self.kind not in OUTCOMES:
            raise ValueError(f"kind must be one of {', '.join(OUTCOMES)}, got {self.kind!r}")

    @property
    def ok(self) -> bool | None:
        """``True`` when right, ``False`` when wrong, ``None`` when there is no verdict."""
        return OUTCOMES[self.kind][0]

    @property
    def mistake(self) -> str | None:
        """The mistake's name (the diagnosis of a wrong or unreadable result; ``None`` when right or unanswered)."""
        return self.diagnosis if self.diagnosis is not None else OUTCOMES[self.kind][1]
