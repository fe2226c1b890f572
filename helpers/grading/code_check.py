"""Checking a function the learner wrote: the engine behind ``helpers.exercises.check_code``.

A code exercise (:class:`~helpers.grading.code_exercise.CodeExercise`) names the function the
learner writes (its signature and what it returns), a seeded list of cases (small readable ones
first, then random ones, then the edge cases the idea is about), the reference implementation from
the lesson module, and the usual mistakes. :func:`run` puts the wing's jobs together:

1. **running** the learner's function on every case, in a sandbox (:mod:`~helpers.grading.sandbox`:
   copies of the arguments, printing and warnings captured) under a watch
   (:mod:`~helpers.grading.watch`: the clock, the stop button, forbidden calls), and reading what
   came back (:mod:`~helpers.grading.returned`); each case's time limit is made from the reference's
   CPU time on it, measured just before in the same kernel (:mod:`~helpers.grading.clock`);
2. only then **comparing** with the expected values (:mod:`~helpers.grading.compare`), computed with
   the functions recorded at import (:mod:`~helpers.grading.originals`), so nothing the learner's
   code can reach holds them and nothing it reassigns changes them; each case at its own precision;
3. **diagnosing** the first wrong case (:mod:`~helpers.grading.diagnose`: a usual mistake only on
   evidence from every case, else what kind of wrong it is);
4. the **message** the learner reads: what was found is one
   :class:`~helpers.grading.verdict.Outcome`, worded by :func:`~helpers.grading.messages.word`.

:func:`run` never raises because of the learner's function (``KeyboardInterrupt`` excepted): ``None``,
wrong types, a wrong number of returned values, wrong shapes, NaN/inf, an exception, a time-out, a
modified argument and a forbidden call are each named.
"""
from __future__ import annotations

from . import messages
from .clock import Limit
from .code_exercise import CodeExercise
from .compare import (
    Result,
    close_each,
    expected_shapes,
    judged_precisions,
    reference_outputs,
    tolerances,
)
from .diagnose import diagnose, error_hint
from .originals import Pristine, first_time, remember_originals
from .returned import measuring, reader
from .sandbox import call_learner
from .verdict import Outcome
from .watch import forbidden_codes


def run(exercise: CodeExercise, fn, *, use_alarm: bool | None = None, ignored=()) -> tuple:
    """``(verdict, message, mistake)`` for the learner's ``fn``: ``True`` when every case is right;
    ``False`` with the first wrong case; ``None`` when ``fn`` is not a function, still the stub, or the
    checker could not watch it (its profiler or timer was removed). ``mistake`` names the diagnosis
    (``None`` when right or unanswered). ``ignored``: names of the learner's reassignments the caller
    already set aside (an exercise entry). Never raises because of ``fn`` (``KeyboardInterrupt``
    excepted).

    The learner's function is called on every case first; the expected values are computed only
    afterwards, with the functions recorded by :func:`~helpers.grading.originals.remember_originals`."""
    if not callable(fn):
        outcome = Outcome("not_a_function", evidence=fn)
        return outcome.ok, messages.word(exercise, outcome, 0), outcome.mistake
    remember_originals()
    with Pristine() as world:
        cases = list(exercise.cases())
        total = len(cases) + (exercise.later_count() if exercise.later_count is not None else 0)
        outcome = _run(exercise, fn, use_alarm, world, cases)
        if outcome.ok is True and total > len(cases):  # the quick cases are right: now the slow ones, all run again
            cases += list(exercise.later())
            total = len(cases)
            outcome = _run(exercise, fn, use_alarm, world, cases)
        told = messages.ignored_notice(first_time([*ignored, *world.changed_names()]))
    return outcome.ok, messages.word(exercise, outcome, total) + ("\n" + told if told else ""), outcome.mistake


def _run(exercise: CodeExercise, fn, use_alarm, world: Pristine, cases: list) -> Outcome:
    """What the learner's ``fn`` does on ``cases``: the first outcome that is not right, else right."""
    forbidden = forbidden_codes(exercise.forbidden)
    calls = []
    for case, case_shapes in zip(cases, expected_shapes(exercise, cases)):
        read = reader(exercise.outputs, case_shapes)
        if exercise.measure is not None:
            read = measuring(read, exercise.measure, case.args)
        limit, read_limit = _limits(exercise, case, read, use_alarm, forbidden)
        during = exercise.during(*case.args) if exercise.during is not None else None
        with world.learners():
            call = call_learner(fn, case.args, exercise.params, limit, read_limit=read_limit, use_alarm=use_alarm,
                                forbidden=forbidden, reader=read, during=during)
        calls.append(call)
        if call.forbidden or call.timed_out or call.error is not None or call.unwatched:
            break
        if call.result.problem is not None:
            break
    printed = next((c.printed for c in calls if c.printed), "")
    warning = next((c.warning for c in calls if c.warning), "")
    notes = tuple(messages.notes(exercise, sum(c.printed_chars for c in calls), printed, warning,
                                 others=any(c.other_threads for c in calls if c.printed_chars)))
    last, index = calls[-1], len(calls)
    case = cases[index - 1]

    if last.forbidden:
        return Outcome("forbidden", index, case, last.forbidden, notes=notes)
    if index == 1 and last.result is not None and last.result.problem is not None \
            and last.result.problem.name == "unreadable" and str(last.result.problem).startswith("返回值是 None"):
        return Outcome("unanswered", index, case)

    results = _compared(exercise, cases, calls)
    failing = [r for r in results if not all(r.ok)]
    if failing:
        name, hint = diagnose(exercise, results)
        first = failing[0]
        return Outcome("wrong", first.index, first.case, first, hint, notes, diagnosis=name)
    if last.timed_out:
        return Outcome("timed_out", index, case, last, notes=notes)
    if last.error is not None:
        return Outcome("raised", index, case, last, error_hint(exercise, case, last, fn, results), notes)
    if last.unwatched:
        return Outcome("unwatched", index, case, last.unwatched, notes=notes)
    if last.result.problem is not None:
        problem = last.result.problem
        return Outcome("unreadable", index, case, problem, notes=notes, diagnosis=problem.name)
    changed = next((c for c in calls if set(c.mutated) - set(exercise.mutable)), None)
    if changed is not None:
        i = calls.index(changed)
        names = tuple(n for n in changed.mutated if n not in exercise.mutable)
        return Outcome("mutated", i + 1, cases[i], names, notes=notes)
    for i, call in enumerate(calls):
        wrote = exercise.in_place and call.after and exercise.in_place(cases[i].args, call.after, call.result.got)
        if wrote:
            return Outcome("wrote_back", i + 1, cases[i], wrote, notes=notes)
    return Outcome("right", index, evidence=tuple(results), notes=notes)


def _limits(exercise: CodeExercise, case, read, use_alarm, forbidden: dict) -> tuple:
    """The limits of the learner's call on ``case`` and of reading its result: the exercise's floor and
    factor applied to the reference's CPU time on the same case, measured now, in this kernel, the
    same way the learner's call is (same watch, same ``during``, same reading; see
    :mod:`~helpers.grading.clock`). Nothing of the reference's result is kept. A reference that
    fails here leaves the floor alone; its failure is reported where the expected values are computed."""
    during = exercise.during(*case.args) if exercise.during is not None else None
    timed = call_learner(exercise.reference, case.args, exercise.params, None, use_alarm=use_alarm,
                         forbidden=forbidden, reader=read, during=during)
    fine = timed.error is None and not timed.timed_out
    floor, factor = exercise.time_floor, exercise.time_factor
    return (Limit.of(timed.seconds if fine else None, floor, factor),
            Limit.of(timed.read_seconds if fine else None, floor, factor))


def _compared(exercise: CodeExercise, cases: list, calls: list) -> list:
    """A :class:`~helpers.grading.compare.Result` per case the learner answered readably. The expected
    values only now that the learner's calls are over; each case at its own precision: float32 where
    its input or the learner's result is float32, else the exercise's float64 tolerance — the allowance
    follows the dtype the learner produced, so all-float64 code is held to the float64 bound."""
    results = []
    for i, call in enumerate(calls, start=1):
        if call.result is None or call.result.got is None:
            continue
        case, got = cases[i - 1], call.result.got
        exact = reference_outputs(exercise, case)
        precisions = judged_precisions(case, call.result.precisions, len(exact))
        tols = tolerances(exercise, case, exact, precisions)
        results.append(Result(case, i, got, exact, tols, close_each(got, exact, tols), precisions))
    return results


remember_originals()
