"""What a code exercise is: the function the learner writes, the cases it is called on, the usual mistakes.

The vocabulary each notebook's ``CODE_EXERCISES`` is written in (``helpers/exercises/<slug>.py``);
:func:`helpers.grading.code_check.run` grades a learner's function against one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

#: a case's time limit is ``max(TIME_FLOOR, TIME_FACTOR × the reference's time on it)``, both in CPU
#: seconds of the learner's thread, the reference timed on the learner's machine just before
#: (:mod:`helpers.grading.clock` argues both numbers: the floor covers what does not scale with the
#: reference, a first import or debugging prints; 50 is four times the slowest right version seen)
TIME_FLOOR = 2.0
TIME_FACTOR = 50.0
#: the absolute tolerance of an output measured for the diagnosis only: never judged, never shown
NOT_JUDGED = 1e9


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: ``args`` (positional), and ``label``, what the case is
    (Chinese, shown when the case fails: “一行分数大到 1000”)."""

    label: str
    args: tuple


@dataclass(frozen=True)
class Mistake:
    """A usual mistake and its hint. ``wrong`` is a known-wrong implementation (same arguments as
    the learner's function): the learner's output equal to its output on the failing case means
    this mistake. ``test(case, got, expected)`` (optional) recognises it from the returned values
    instead (``got``/``expected``: tuples of arrays). ``name`` is a short id used by the tests.
    ``seen``: where the mistake was seen made in public — issue or pull-request addresses, or a paper
    ("Su et al. 2021, RoFormer §3.4") — listed in CONTRIBUTING's table by ``tools/checks/mistakes_table.py``."""

    name: str
    hint: str
    wrong: Callable | None = None
    test: Callable | None = None
    #: a sentence added to the hint for an answer that is the same number on every case, when this
    #: mistake's wrong implementation also returns that number (conditional: the output cannot tell
    #: this mistake from ``return 0.0``, see :func:`helpers.grading.diagnose.evidence`)
    when_constant: str = ""
    #: the public threads or papers where this mistake was seen (see the class docstring)
    seen: tuple = ()

    def __post_init__(self):
        if isinstance(self.seen, str):  # one source written without the tuple
            object.__setattr__(self, "seen", (self.seen,))


@dataclass(frozen=True)
class CodeExercise:
    """A function the learner writes: ``signature`` (``"softmax(x)"``), ``params`` (argument names,
    shown with each case), ``outputs`` (names of the returned values: one name = one array, several =
    a tuple in that order), ``cases()`` (the seeded cases), ``reference`` (the lesson module's
    implementation, returning the same as the learner should), ``mistakes`` (tried in order),
    ``solution`` (readable source printed by ``helpers.exercises.solution``), tolerances."""

    title: str
    signature: str
    params: tuple
    outputs: tuple
    cases: Callable
    reference: Callable
    mistakes: tuple = ()
    solution: str = ""
    #: a float64 result is held to what float64 itself allows: another correct order of the same sums
    #: (a few thousand terms at most here) moves a value by ~1e-13 relative, so 1e-9 leaves four orders
    #: of margin and still rejects an epsilon of 1e-8 or more in a denominator (one of 1e-9 and below moves a
    #: softmax, whose denominator is at least 1, by less than 1e-9 relative: it passes, as an answer
    #: no printed digit of the series tells apart) or a 1e-7 nudge; float32 results get their own bound
    #: (:func:`helpers.grading.compare.tolerances`)
    rtol: float = 1e-9
    atol: float = 1e-12
    #: ``(rtol, atol)`` per output where one output is judged otherwise (counts of floats moved to
    #: within 1 % beside an output to 1e-10); outputs past its end use ``rtol``/``atol``
    output_tolerances: tuple = ()
    #: ``measure(returned, *args)`` → the outputs compared, for a function judged by what its result
    #: does rather than by its values (weights judged by the predictions of the model they make);
    #: outputs whose absolute tolerance is :data:`NOT_JUDGED` are measured for the diagnosis only
    measure: Callable | None = None
    #: the time limit's floor and factor (see :data:`TIME_FLOOR`)
    time_floor: float = TIME_FLOOR
    time_factor: float = TIME_FACTOR
    extra: dict = field(default_factory=dict)
    #: what the function returns, as a clause of the sentence “要写的是 f(x)，<returns>。”
    returns: str = ""
    #: dotted names of the lesson's functions the learner must not call (see :mod:`helpers.grading.watch`)
    forbidden: tuple = ()
    #: the hint shown when one of them is called
    forbidden_hint: str = ""
    #: parameters the function may change in place (a cache it appends to); changing any other is
    #: reported as a mistake
    mutable: tuple = ()
    #: ``in_place(args, after, got)`` → ``""`` when what the function left in the ``mutable``
    #: arguments (``after``: ``{name: value}`` of those it changed) agrees with what it returned
    #: (``got``), else a sentence naming what it wrote there
    in_place: Callable | None = None
    #: other versions of this exercise the learner picks with a keyword of ``check_code``, each with
    #: its own reference and mistakes: ``{keyword: {value: CodeExercise or None}}`` (``None``: this
    #: exercise). RoPE's ``pairing="interleaved"`` is how a learner says which convention they wrote.
    choices: dict = field(default_factory=dict)
    #: ``during(*args)`` → a context manager the learner's call on ``args`` runs inside (a fast memory
    #: tracing what is allocated beside its own count); ``None``: none
    during: Callable | None = None
    #: ``later()`` → cases that are slow to build (a real model's layer), run only once every case of
    #: ``cases()`` is right, so a wrong function is answered without waiting for them; ``later_count()``
    #: → how many there will be, known without building them (the message counts them from the start)
    later: Callable | None = None
    later_count: Callable | None = None
    #: how the later cases are described before they are built (the unfilled stub's list of cases)
    later_labels: tuple = ()

    def every_case(self) -> list:
        """The quick cases, then the later ones (building them: slow where they load a model)."""
        return list(self.cases()) + (list(self.later()) if self.later is not None else [])


def causal_rows(rng, n):
    """Random causal attention rows ``(n, n)``: each row a softmax over positions 0…i."""
    s = np.where(np.triu(np.ones((n, n), dtype=bool), k=1), -np.inf, rng.standard_normal((n, n)) * 1.5)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
