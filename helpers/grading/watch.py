"""Watching the learner's function while it runs: the clock, the stop button, forbidden calls.

**Forbidden helpers** (``CodeExercise.forbidden``: dotted names such as
``"helpers.attention.scaled_dot_product_attention"``, the functions the exercise asks the learner
to write instead of calling). While the learner's function runs, a ``sys.setprofile`` hook records
every Python call whose code object is one of theirs; a call is reported (with the exercise's
``forbidden_hint``), whatever came back. Watching the *code object* rather than patching a module
attribute catches every way of reaching the function — ``helpers.x(…)``, ``from helpers.attention
import x as y`` bound before the check, a saved reference, another helper that calls it — and leaves
nothing patched behind if the learner's code is interrupted. ``sys.setprofile`` is separate from
``sys.settrace`` (the stop's tracer, debuggers, coverage), so neither disturbs the other.

**The clock** (:mod:`~helpers.grading.clock`: the CPU time of the learner's thread against a limit
made from the reference's). A watchdog thread reads that clock, the thread's idle time (a function
that waits) and the wall clock every :data:`TICK` seconds; once one is past its limit it stops the
learner's code:

- on the main thread (a Jupyter kernel runs cells there), by sending that thread ``SIGALRM``, whose
  handler (installed for the check) raises :class:`TimeUp` inside the learner's code — this also cuts
  a ``time.sleep`` or ``input()`` short;
- where the learner's code replaced that handler (``signal.signal(SIGALRM, SIG_IGN)``), through the
  ``SIGINT`` handler the check installed for the stop button, told that the clock sent it;
- off the main thread (a kernel's subshell, a thread), or with both handlers gone, by
  ``PyThreadState_SetAsyncExc`` and the C tracer below (installed from the start off the main thread).

No kernel timer is used: ``ITIMER_REAL`` counts wall time, ``ITIMER_PROF`` the CPU time of every thread
of the process, and the learner's code can cancel either; the watchdog reads the learner's thread
alone, and neither ``SIG_IGN`` nor a cancelled timer gets past it. An interval timer already running
when the check starts (someone else's) is paused and given back what was left. One long call inside C
that holds the interpreter (a single huge numpy product) cannot be cut short: the stop takes effect
when it returns, and the message says so with the time it really took. :class:`TimeUp` derives from
``BaseException`` so ``except Exception`` in the learner's code does not swallow it.

**Restored after every check**, whatever happened in it (the stop button pressed, the learner's code
replacing them): the ``SIGALRM`` and ``SIGINT`` handlers, a paused interval timer (one the learner's
code armed is cancelled), the trace and profile functions (``sys`` and ``threading``). ``SIGINT``'s
handler goes back last, so a stop pressed during the cleanup is raised after it, not inside it.
"""
from __future__ import annotations

import ctypes
import functools
import importlib
import inspect
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass

from .clock import UNLIMITED, Idle, Limit, thread_clock
from .stopped import Where, where


class TimeUp(BaseException):
    """Raised inside the learner's code when its case runs past the time limit (a BaseException,
    so ``except Exception`` in the learner's code does not catch it)."""


#: the grading wing's own files: a frame of one of them is the checker's, never the learner's (the
#: checker reads what came back, and words an error, under the same watch as the learner's call)
_OURS = frozenset(os.path.join(os.path.dirname(__file__), name)
                  for name in os.listdir(os.path.dirname(__file__)) if name.endswith(".py"))

# A handler that swallows BaseException in a loop (or recurses inside such a handler) survives one
# raised exception, and a *Python* trace function that raises is unset by CPython after one raise.
# So once the limit has passed (or stop is pressed) the checker installs, as the trace function, a
# C callable — PyThreadState_SetAsyncExc bound by functools.partial — which schedules the exception
# again at every call and line event of the learner's frames: it comes back inside every handler,
# and no Python frame of the checker runs in between (a Python frame would take the pending exception
# itself). Where ctypes.pythonapi is missing (not CPython) the plain raise is all there is.
# ``os._exit`` and a single long call inside C are out of reach of any of this (and out of scope).
# Off the main thread a recursion that reaches the recursion limit inside the tracer unsets it, and
# Python 3.11 offers no way to install a trace function on another thread again: such a function is
# stopped on the main thread only.
try:
    _SET_ASYNC_AS_TRACER = ctypes.PYFUNCTYPE(None, ctypes.c_ulong, *[ctypes.py_object] * 4)(
        ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
    _SET_ASYNC = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
        ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
except (AttributeError, OSError):  # pragma: no cover — not CPython
    _SET_ASYNC_AS_TRACER = _SET_ASYNC = None
#: seconds between two reads of the learner's clock by the watchdog: the most CPU time a runaway
#: gets past its limit before the stop is asked (the watchdog costs ~0.1 % of a core at this rate)
TICK = 0.01
#: seconds between two re-raises once the stop has been asked
REARM_INTERVAL = 0.02
#: frames of recursion allowed past the limit while the code is being stopped (:meth:`Watch._make_room`)
HEADROOM = 200
#: A runaway in Python code is stopped within :func:`stop_bound` of its CPU time: its limit, plus
#: STOP_GRACE, plus STOP_SHARE of the limit. Measured here (load ≈ 5–9): a loop, an allocation loop, a
#: loop swallowing the stop, one after ``signal.signal(SIGALRM, SIG_IGN)`` or ``setitimer(ITIMER_REAL,
#: 0)``: ≤ 0.02 s past the limit; a recursion re-entered from its ``except`` clause at the default
#: recursion limit: 0.13–0.16 s past a 0.5 s limit, 0.45–0.6 s past a 4 s one (CPython's own unwinding
#: of the exceptions it piled up grows with how long it ran; a plain raise at every entry takes as long).
#: Beyond the bound, in proportion to a recursion limit the learner raised: unwinding a RecursionError
#: cannot be interrupted (≈ 2.5 µs of CPU per frame: 2.4 s after ``sys.setrecursionlimit(10**6)``), and
#: a recursion re-entered from its handler unwinds in time quadratic in its depth (≈ 1.5 s at 10,000).
STOP_GRACE = 0.5
STOP_SHARE = 0.25


def stop_bound(limit: float) -> float:
    """CPU seconds within which a runaway in Python code under a ``limit`` of CPU seconds is stopped."""
    return limit + STOP_GRACE + STOP_SHARE * limit


def _subscript(fn):
    """``obj[x]`` calls ``fn(x)``: a subscript runs C code without the eval-breaker check a call makes,
    so a pending exception is not taken inside the checker's own cleanup."""
    return type("_Via", (), {"__getitem__": fn, "__slots__": ()})()


def _can_alarm() -> bool:
    return hasattr(signal, "pthread_kill") and threading.current_thread() is threading.main_thread()


def _ours(code) -> bool:
    return code.co_filename in _OURS


@dataclass(frozen=True)
class Stopped:
    """What the clock saw when it asked the learner's code to stop: in which ``phase`` (``"call"``:
    their function; ``"reading"``: the checker reading what came back), ``by`` which clock (``"cpu"``,
    ``"idle"`` or ``"wall"``), the phase's ``cpu``, ``wall`` and ``idle`` seconds then, and ``where``
    their code was."""

    phase: str
    by: str
    cpu: float
    wall: float
    where: Where | None = None
    idle: float = 0.0


class Watch:
    """Everything the checker installs around one call into the learner's code: the clock (a
    watchdog thread; ``SIGALRM`` on the main thread, else a C tracer), the stop button (SIGINT) and
    the profiler noting forbidden calls (``sys.setprofile`` and ``threading.setprofile``, so a worker
    thread is watched too). The call is timed in phases (:meth:`lap`), each with its own
    :class:`~helpers.grading.clock.Limit`; :attr:`used` holds each phase's ``(cpu, wall)`` seconds,
    :attr:`stopped` what the clock saw when it stopped the code, and :meth:`stopped_watching` names
    what the learner's code removed while it ran."""

    def __init__(self, limit: Limit | None, use_alarm: bool | None, codes: dict):
        self.limit, self.codes, self.seen = limit or UNLIMITED, codes, []
        self.use_alarm = _can_alarm() if use_alarm is None else use_alarm
        self.raising = None  # TimeUp or KeyboardInterrupt once it has to stop
        self.stopped: Stopped | None = None
        self.used: dict = {}
        self.tid = threading.get_ident()
        self.active = False
        #: set once the learner's code is over: a signal landing in the cleanup (in a library frame the
        #: checker called, ``Thread.join``) raises nothing there
        self.closing = False
        self._clock = thread_clock(self.tid)
        self._phase = ("call", self.limit, 0.0, 0.0)
        self._untrace = _subscript(functools.partial(sys.settrace))
        # the fallback's tracer: PyThreadState_SetAsyncExc(box, TimeUp) finds no thread while the box
        # holds 0, and the learner's thread once the watchdog puts its id there
        self._tid_box = ctypes.c_ulong(0)
        self._armed_tracer = (functools.partial(_SET_ASYNC_AS_TRACER, self._tid_box, TimeUp)
                              if _SET_ASYNC_AS_TRACER is not None else None)
        #: the C tracers that re-raise each exception on the learner's thread (built before they are needed)
        self._tracers = ({exc: functools.partial(_SET_ASYNC_AS_TRACER, self.tid, exc) for exc in (TimeUp, KeyboardInterrupt)}
                         if _SET_ASYNC_AS_TRACER is not None else {})
        self._clock_via_interrupt = False
        self._done = threading.Event()
        self._dog = None
        self._room = None
        self._lost: list = []
        # bound once: a bound method is a new object at every attribute access (``is`` would fail)
        self._on_alarm = self._on_alarm
        self._on_interrupt = self._on_interrupt
        self._profiler = self._profiler

    # -- the clock
    def lap(self, phase: str, limit: Limit | None):
        """End the current phase (its time goes into :attr:`used`) and start ``phase`` under ``limit``."""
        cpu, wall = self._clock(), time.monotonic()
        name, _, cpu0, wall0 = self._phase
        self.used[name] = (cpu - cpu0, wall - wall0)
        self._phase = (phase, limit or UNLIMITED, cpu, wall)

    def _watchdog(self):
        """Read the learner's clock every :data:`TICK`; once past the limit, note where their code is
        and make it stop, again every :data:`REARM_INTERVAL` until the call ends."""
        timing, idle = None, None
        while not self._done.wait(TICK):
            current = self._phase
            phase, limit, cpu0, wall0 = current
            now_cpu, now_wall = self._clock(), time.monotonic()
            if current is not timing:  # a new phase: its own idle time
                timing, idle = current, Idle(cpu0, wall0)
            cpu, wall, waited = now_cpu - cpu0, now_wall - wall0, idle.update(now_cpu, now_wall)
            if cpu > limit.cpu or waited > limit.idle or wall > limit.wall:
                break
        else:
            return
        frame = sys._current_frames().get(self.tid)
        try:
            seen = where(frame, _ours)
        except Exception:  # noqa: BLE001 — a frame it cannot read: the stop matters more than the words
            seen = None
        del frame
        by = "cpu" if cpu > limit.cpu else "idle" if waited > limit.idle else "wall"
        self.stopped = Stopped(phase, by, cpu, wall, seen, waited)
        self.raising = self.raising or TimeUp
        self._make_room()
        while not self._done.is_set():
            self._fire()
            self._done.wait(REARM_INTERVAL)

    def _make_room(self):
        """Raise the recursion limit by :data:`HEADROOM` while the code is being stopped: a recursion
        that sits at the limit (re-entered from its ``except`` clause) would otherwise fail every call of
        the stop's own handler and tracer with ``RecursionError``, which its handler catches. Put back
        by :meth:`stop`. (Set from this thread: it applies to every thread, the learner's included.)"""
        before = sys.getrecursionlimit()
        sys.setrecursionlimit(before + HEADROOM)
        self._room = (before, before + HEADROOM)

    def _fire(self):
        """Make the learner's thread stop: by the check's own signal handlers while they are in place,
        else by scheduling the exception directly (and the C tracer where the thread traces)."""
        if self.use_alarm:
            if signal.getsignal(signal.SIGALRM) is self._on_alarm:
                signal.pthread_kill(self.tid, signal.SIGALRM)
                return
            if signal.getsignal(signal.SIGINT) is self._on_interrupt:
                self._clock_via_interrupt = True
                signal.pthread_kill(self.tid, signal.SIGINT)
                return
        if self._armed_tracer is not None:
            self._tid_box.value = self.tid
            f = sys._current_frames().get(self.tid)
            while f is not None and not _ours(f.f_code) and f.f_trace is not self._armed_tracer:
                f.f_trace = self._armed_tracer
                f = f.f_back
            del f
        if _SET_ASYNC is not None:
            _SET_ASYNC(self.tid, self.raising)

    # -- stopping the learner's code (on its own thread)
    def _stop_here(self, exc, frame) -> bool:
        """Make the exception come back at every event of the learner's frames; ``False`` when ``frame``
        (the interrupted one) is the checker's own, where nothing may be raised. Nor is the tracer
        installed then: a signal that lands in the checker's cleanup (a loaded machine can hold the
        process there past the next re-arm) would otherwise raise in the cleanup itself and leave the
        tracer on; learner code that runs later is stopped by the next re-arm anyway. The frames are
        marked from the innermost outward, up to the first already marked: a deep recursion is walked
        once, not at every re-arm."""
        # no Python call in here: entering a Python frame would take a pending exception mid-walk
        self.raising = self.raising or exc
        if frame is None or frame.f_code.co_filename in _OURS:
            return False
        tracer = self._tracers.get(self.raising)
        if tracer is not None:
            sys.settrace(tracer)
            f = frame
            while f is not None and f.f_code.co_filename not in _OURS and f.f_trace is not tracer:
                f.f_trace = tracer
                f = f.f_back
        return True

    def _on_alarm(self, signum, frame):
        if self.raising is not None and not self.closing and self._stop_here(self.raising, frame):
            raise self.raising

    def _on_interrupt(self, signum, frame):
        exc, self._clock_via_interrupt = (TimeUp if self._clock_via_interrupt else KeyboardInterrupt), False
        if self.closing:  # the checker is putting things back: noted, raised once it is done
            self.raising = self.raising or exc
        elif self._stop_here(exc, frame):
            raise self.raising

    def _profiler(self, frame, event, arg):
        if event == "call" and self.active and frame.f_code in self.codes:
            name = self.codes[frame.f_code]
            if name not in self.seen and not self._inside_forbidden(frame.f_back):
                self.seen.append(name)

    def _inside_forbidden(self, frame) -> bool:
        """Whether ``frame`` runs inside a forbidden helper: the helpers it calls (apply_rope's
        rotate_half) are its own business, not the learner's calls."""
        while frame is not None:
            if frame.f_code in self.codes:
                return True
            frame = frame.f_back
        return False

    # -- installing and removing
    def start(self):
        self._previous_trace = sys.gettrace()
        # the hook threading gives every new thread (a debugger's, or none): put back after the call
        self._previous_thread_trace = threading.gettrace() if hasattr(threading, "gettrace") else None
        if self.codes:
            self._previous_profile = sys.getprofile()
            self._previous_thread_profile = getattr(threading, "getprofile", lambda: None)()
            threading.setprofile(self._profiler)
            sys.setprofile(self._profiler)
        if self.use_alarm:
            self._previous_alarm = signal.signal(signal.SIGALRM, self._on_alarm)
            self._previous_interrupt = signal.signal(signal.SIGINT, self._on_interrupt)
            self._old_timer = signal.setitimer(signal.ITIMER_REAL, 0)  # someone else's: paused, given back
            self._paused_at = time.monotonic()
        elif self._armed_tracer is not None:
            sys.settrace(self._armed_tracer)
        else:  # pragma: no cover — not CPython: a trace function raising once the clock says so
            sys.settrace(self._python_tracer)
        self._phase = ("call", self.limit, self._clock(), time.monotonic())
        self._dog = threading.Thread(target=self._watchdog, name="helpers.grading clock", daemon=True)
        self._dog.start()
        self.active = True

    def _python_tracer(self, frame, event, arg):  # pragma: no cover — not CPython
        if self.raising is not None and not _ours(frame.f_code):
            raise self.raising
        return self._python_tracer

    def halt(self):
        """Stop the watchdog (it sends nothing more once this returns); the current phase's time goes
        into :attr:`used`. Safe to call again."""
        self._done.set()
        if self._dog is not None:
            self._dog.join()
        if self._phase[0] != "done":
            self.lap("done", None)

    def stop(self):
        """Put back everything :meth:`start` installed (after :meth:`halt`); the SIGINT handler last."""
        self.active = False
        self.halt()
        try:
            if self.codes:
                if sys.getprofile() is not self._profiler:
                    self._lost.append("禁用函数的监视（sys.setprofile）")
                sys.setprofile(self._previous_profile)
                threading.setprofile(self._previous_thread_profile)
            sys.settrace(self._previous_trace)
            threading.settrace(self._previous_thread_trace)
            if self._room is not None and sys.getrecursionlimit() == self._room[1]:
                sys.setrecursionlimit(self._room[0])
            if self.use_alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)  # a timer the learner's code armed goes with it
                signal.signal(signal.SIGALRM, self._previous_alarm)
                old_delay, old_interval = self._old_timer
                if old_delay:  # someone else's timer was running: give it back what is left of it
                    signal.setitimer(signal.ITIMER_REAL, max(old_delay - (time.monotonic() - self._paused_at), 1e-3),
                                     old_interval)
        finally:
            if self.use_alarm:
                signal.signal(signal.SIGINT, self._previous_interrupt)

    def stopped_watching(self) -> tuple:
        return tuple(self._lost)


def guarded(watch: Watch, fn, args: tuple):
    """``("ok", fn(*args))`` or ``("raised", exception)``, with ``watch`` installed around the call.
    After the call the watch is told it is closing and tracing goes off by a subscript (neither makes an
    eval-breaker check); then, until the watchdog has stopped, an exception still scheduled for this
    thread is taken by :func:`_absorb` before the checker's cleanup runs."""
    watch.start()
    try:
        return "ok", fn(*args)
    except BaseException as exc:  # noqa: BLE001 — the learner's code, reported
        return "raised", exc
    finally:
        watch.closing = True
        watch._untrace[None]
        while True:
            try:
                _absorb()
                watch.halt()
                _absorb()
                break
            except BaseException:  # noqa: BLE001, S112 — the scheduled TimeUp, already counted
                continue
        watch.stop()


def _absorb():
    """Entering a Python frame takes a pending asynchronous exception (raised here, caught above)."""


def forbidden_codes(names: tuple) -> dict:
    """``{code object: dotted name}`` of the functions named in ``names`` (unwrapped decorators)."""
    codes = {}
    for name in names:
        module, _, attr = name.rpartition(".")
        fn = inspect.unwrap(getattr(importlib.import_module(module), attr))
        codes[fn.__code__] = name
    return codes
