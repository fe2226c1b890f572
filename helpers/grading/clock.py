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
  over the query rows of each tile — takes 12–13 times the reference's CPU time on its largest case
  (0.85 s against 0.07 s under the grader's watch on an idle machine, 1.33 s against 0.10 s at load
  5); the other right versions of the test corpus stay within 4 times. 50 leaves four times the worst
  for a still slower right version and for the noise of one measurement (a cold first call, caches
  shared with other processes on the same core). 07-4 has its own factor, 500: written one key of one
  query at a time (scalars in Python), it is about 260 times its reference under the watch, whose
  memory tracing charges every Python object the learner makes and the vectorised reference makes few.
- ``floor`` = 2 s: most references take well under a millisecond, where 50 times is microseconds.
  The floor covers what does not scale with the reference — the first call importing a module, the
  learner's debugging prints (100,000 lines take about 0.3 s) — and is what a runaway loop on such a
  case costs the learner before it is stopped.

**Waiting** (``time.sleep``, ``input()``, a lock, another thread) uses no CPU time, so a second clock
counts the *idle* time: wall time during which the learner's thread used less than :data:`IDLE_SHARE`
of a core (read in windows of :data:`IDLE_WINDOW`). A function may wait as long as it may compute (the
CPU limit). A thread that is merely starved by a busy machine is not idle: it still gets its share
(about 9 % of a core at load 12 on two cores: a wall-clock limit would have to be more than 10 times
the CPU limit to let it finish). A last backstop, :data:`WALL_FACTOR` times the CPU limit of wall time, stops what
neither clock catches (a loop that mostly sleeps).

**Reading** what came back has a limit of its own by the same rule, from the time reading the
reference's result took: reading touches the learner's objects (their ``__array__``, ``__eq__``),
which could run for ever, but its cost is the checker's, not the learner's.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

#: a thread using less than this share of a core is idle (a sleeping one uses ~0.01 %; see the docstring)
IDLE_SHARE = 0.01
#: seconds of wall time over which the share is read
IDLE_WINDOW = 0.25
#: the wall-clock backstop, as a multiple of the CPU limit (2 minutes at the floor)
WALL_FACTOR = 60.0


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
    """One phase's limit: ``cpu`` seconds of the learner's thread, ``idle`` seconds of waiting and
    ``wall`` seconds in all at most; ``reference``: the reference's CPU seconds it was derived from
    (``None``: not measured, the floor alone), with the ``floor`` and ``factor`` that made it."""

    cpu: float
    idle: float
    wall: float
    reference: float | None = None
    floor: float = 0.0
    factor: float = 0.0

    @classmethod
    def of(cls, reference: float | None, floor: float, factor: float) -> Limit:
        """``max(floor, factor × reference)`` CPU seconds, as many idle ones, and the wall-clock backstop."""
        cpu = floor if reference is None else max(floor, factor * reference)
        return cls(cpu, cpu, WALL_FACTOR * cpu, reference, floor, factor)


#: no limit: the checker's own calls (the reference, timed to make the learner's limit)
UNLIMITED = Limit(math.inf, math.inf, math.inf)


class Idle:
    """The idle time of a thread: wall seconds of the windows (:data:`IDLE_WINDOW` long at least) in which
    it used less than :data:`IDLE_SHARE` of a core, from readings of its CPU clock and the wall clock."""

    def __init__(self, cpu: float, wall: float):
        self.seconds = 0.0
        self._base = (cpu, wall)

    def update(self, cpu: float, wall: float) -> float:
        """Take a reading; the idle seconds so far."""
        base_cpu, base_wall = self._base
        if wall - base_wall >= IDLE_WINDOW:
            if cpu - base_cpu < IDLE_SHARE * (wall - base_wall):
                self.seconds += wall - base_wall
            self._base = (cpu, wall)
        return self.seconds
