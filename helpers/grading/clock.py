"""The learner's clock: what a case's time limit measures, and how large the limit is.

**What is measured.** The CPU time of the thread that runs the learner's function, during their
call only. Other programs on a busy machine (a browser, a video call, another notebook, tests running
beside) stretch the wall-clock time of a call, not the CPU time its own thread uses: a right
function takes the same CPU time at load 1 and at load 12, so the verdict does not depend on what
else the machine is doing, and a runaway is stopped after the same amount of its own work.
The checker's own work is outside the clock: the reference, the expected values, and reading what
came back (11-4 runs a model over 1,000 sequences to read the learner's weights) are timed apart.

**How large the limit is.** For each case, ``max(floor, factor × the reference's CPU time on that
case)``, the reference measured just before, in the same kernel, under the same watch (the
forbidden-call profiler, 07-4's fast-memory tracing), so a slower laptop scales both alike
(:data:`helpers.grading.code_exercise.TIME_FLOOR`, :data:`~helpers.grading.code_exercise.TIME_FACTOR`).

- ``factor`` = 50: the slowest right way seen of writing these exercises — 07-4 with a Python loop
  over the query rows of each tile — takes 12 times the reference's CPU time on its largest case
  (0.85 s against 0.07 s under the grader's watch); 50 leaves four times that for a still slower
  right version and for the noise of one measurement (a cold first call, caches shared with other
  processes on the same core).
- ``floor`` = 2 s: most references take well under a millisecond, where 50 times is microseconds.
  The floor covers what does not scale with the reference — the first call importing a module, the
  learner's debugging prints (100,000 lines take about 0.3 s) — and is what a runaway loop on such a
  case costs the learner before it is stopped.

**Waiting** (``time.sleep``, ``input()``, a lock) uses no CPU time, so a wall-clock backstop stops
it: :data:`WALL_FACTOR` times the CPU limit. A right function is never stopped by it unless it gets
less than a tenth of a core (load 20 on two cores).

**Reading** what came back has a limit of its own by the same rule, from the time reading the
reference's result took: reading touches the learner's objects (their ``__array__``, ``__eq__``),
which could run for ever, but its cost is the checker's, not the learner's.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

#: the wall-clock backstop, as a multiple of the CPU limit (see the module docstring)
WALL_FACTOR = 10.0


def thread_clock(thread_id: int):
    """A function returning the CPU seconds used so far by thread ``thread_id``, callable from any
    thread (the watchdog reads the learner's thread). Where the platform offers no per-thread clock
    to other threads (macOS, Windows), the process's CPU time stands in: the learner's thread is the
    one working while it runs."""
    getter = getattr(time, "pthread_getcpuclockid", None)
    if getter is not None:
        try:
            clock_id = getter(thread_id)
            time.clock_gettime(clock_id)
        except (OSError, OverflowError, ValueError):
            pass
        else:
            return lambda: time.clock_gettime(clock_id)
    return time.process_time


@dataclass(frozen=True)
class Limit:
    """One phase's limit: ``cpu`` seconds of the learner's thread, ``wall`` seconds of waiting at
    most; ``reference``: the reference's CPU seconds it was derived from (``None``: not measured,
    the floor alone), with the ``floor`` and ``factor`` that made it."""

    cpu: float
    wall: float
    reference: float | None = None
    floor: float = 0.0
    factor: float = 0.0

    @classmethod
    def of(cls, reference: float | None, floor: float, factor: float) -> Limit:
        """``max(floor, factor × reference)`` CPU seconds, and the wall-clock backstop."""
        cpu = floor if reference is None else max(floor, factor * reference)
        return cls(cpu, WALL_FACTOR * cpu, reference, floor, factor)


#: no limit: the checker's own calls (the reference, timed to make the learner's limit)
UNLIMITED = Limit(math.inf, math.inf)
