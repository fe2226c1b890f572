"""Watching the learner's function while it runs: the time limit, the stop button, forbidden calls.

**Forbidden helpers** (``CodeExercise.forbidden``: dotted names such as
``"helpers.attention.scaled_dot_product_attention"``, the functions the exercise asks the learner
to write instead of calling). While the learner's function runs, a ``sys.setprofile`` hook records
every Python call whose code object is one of theirs; a call is reported (with the exercise's
``forbidden_hint``), whatever came back. Watching the *code object* rather than patching a module
attribute catches every way of reaching the function — ``helpers.x(…)``, ``from helpers.attention
import x as y`` bound before the check, a saved reference, another helper that calls it — and leaves
nothing patched behind if the learner's code is interrupted. ``sys.setprofile`` is separate from
``sys.settrace`` (the time limit's fallback, debuggers, coverage), so neither disturbs the other.

**Time limit** (:data:`helpers.grading.code_exercise.TIME_LIMIT` seconds per case, far above what
these small cases need — the reference takes well under a millisecond). A thread with a timeout
cannot stop a runaway loop in Python, so :class:`Watch` uses, where it can,
``signal.setitimer(ITIMER_REAL)`` with a ``SIGALRM`` handler that raises inside the learner's code:
this works on Linux and macOS, in a plain interpreter and in a Jupyter/IPython kernel (which runs
cells on the main thread), Colab included, and it interrupts ``time.sleep`` too. Where there is no
``setitimer`` (Windows) or the check runs off the main thread (a kernel's subshell, a thread), it
falls back to ``sys.settrace``: a trace function that raises once the deadline has passed, at the
next line the learner's Python code executes. Neither can cut short one long call inside C (a
single huge numpy product): the limit takes effect when that call returns, and the case is reported
as too slow with the time it really took. The exception raised on time-out derives from
``BaseException`` so ``except Exception`` in the learner's code does not swallow it; a case that
overruns anyway is reported as too slow.
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


class TimeUp(BaseException):
    """Raised inside the learner's code when its case runs past the time limit (a BaseException,
    so ``except Exception`` in the learner's code does not catch it)."""


#: the grading wing's own files: a frame of one of them is the checker's, never the learner's (the
#: checker reads what came back, and words an error, under the same watch as the learner's call)
_OURS = frozenset(os.path.join(os.path.dirname(__file__), name)
                  for name in os.listdir(os.path.dirname(__file__)) if name.endswith(".py"))

# A handler that swallows BaseException in a loop (or recurses inside such a handler) survives one
# raised exception, and a *Python* trace function that raises is unset by CPython after one raise.
# So once the deadline passes (or stop is pressed) the checker installs, as the trace function, a
# C callable — PyThreadState_SetAsyncExc bound by functools.partial — which schedules the exception
# again at every call and line event of the learner's frames: it comes back inside every handler,
# and no Python frame of the checker runs in between (a Python frame would take the pending exception
# itself). Where ctypes.pythonapi is missing (not CPython) the plain raise is all there is.
# ``os._exit`` and a single long call inside C are out of reach of any of this (and out of scope).
# Off the main thread (no SIGALRM) a watchdog thread arms the same C tracer; there, a recursion that
# reaches the recursion limit inside the tracer unsets it, and Python 3.11 offers no way to install a
# trace function on another thread again: such a function is stopped on the main thread only.
try:
    _SET_ASYNC_AS_TRACER = ctypes.PYFUNCTYPE(None, ctypes.c_ulong, *[ctypes.py_object] * 4)(
        ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
except (AttributeError, OSError):  # pragma: no cover — not CPython
    _SET_ASYNC_AS_TRACER = None
#: seconds between two re-raises once the deadline has passed
REARM_INTERVAL = 0.02


def _subscript(fn):
    """``obj[x]`` calls ``fn(x)``: a subscript runs C code without the eval-breaker check a call makes,
    so a pending exception is not taken inside the checker's own cleanup."""
    return type("_Via", (), {"__getitem__": fn, "__slots__": ()})()


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class Watch:
    """Everything the checker installs around one call into the learner's code: the time limit
    (``setitimer`` + SIGALRM on the main thread, else a deadline-checking trace function), the stop
    button (SIGINT) and the profiler noting forbidden calls (``sys.setprofile`` and
    ``threading.setprofile``, so a worker thread is watched too). :meth:`stopped_watching` names what
    the learner's code removed while it ran."""

    def __init__(self, limit: float, use_alarm: bool | None, codes: dict):
        self.limit, self.codes, self.seen = limit, codes, []
        self.use_alarm = _can_alarm() if use_alarm is None else use_alarm
        self.raising = None  # TimeUp or KeyboardInterrupt once it has to stop
        self.tid = threading.get_ident()
        self.active = False
        self._untrace = _subscript(functools.partial(sys.settrace))
        # the fallback's tracer: PyThreadState_SetAsyncExc(box, TimeUp) finds no thread while the box
        # holds 0, and the learner's thread once the watchdog puts its id there
        self._tid_box = ctypes.c_ulong(0)
        self._armed_tracer = (functools.partial(_SET_ASYNC_AS_TRACER, self._tid_box, TimeUp)
                              if _SET_ASYNC_AS_TRACER is not None else None)
        self._done = threading.Event()
        self._lost: list = []
        # bound once: a bound method is a new object at every attribute access (``is`` would fail)
        self._on_alarm = self._on_alarm
        self._on_interrupt = self._on_interrupt
        self._profiler = self._profiler

    # -- stopping the learner's code
    def _c_tracer(self, exc):
        if _SET_ASYNC_AS_TRACER is None:
            return None
        return functools.partial(_SET_ASYNC_AS_TRACER, self.tid, exc)

    def _stop_here(self, exc, frame) -> bool:
        """Make ``exc`` come back at every event of the learner's frames; ``False`` when ``frame``
        (the interrupted one) is the checker's own, where nothing may be raised. Nor is the tracer
        installed then: a signal that lands in the checker's cleanup (a loaded machine can hold the
        process there past the next re-arm) would otherwise raise in the cleanup itself, leave the
        timer running and the tracer on, and the process would die of the next SIGALRM once the
        default handler is back; the re-armed timer stops learner code that runs later anyway."""
        self.raising = self.raising or exc
        if frame is None or frame.f_code.co_filename in _OURS:
            return False
        tracer = self._c_tracer(self.raising)
        if tracer is not None:
            sys.settrace(tracer)
            f = frame
            while f is not None and f.f_code.co_filename not in _OURS:
                f.f_trace = tracer
                f = f.f_back
        return True

    def _on_alarm(self, signum, frame):
        if self.active and self._stop_here(TimeUp, frame):
            raise TimeUp

    def _on_interrupt(self, signum, frame):
        if self._stop_here(KeyboardInterrupt, frame):
            raise KeyboardInterrupt

    def _watchdog(self):
        """Off the main thread there is no SIGALRM: a helper thread waits for the deadline, then points
        the C tracer (installed from the start, harmless until now) at the learner's thread and sets it
        on the frames that thread is running, again every :data:`REARM_INTERVAL` until the call ends."""
        if self._done.wait(self.limit):
            return
        self.raising = self.raising or TimeUp
        tracer = self._armed_tracer
        self._tid_box.value = self.tid
        while not self._done.is_set():
            f = sys._current_frames().get(self.tid)
            while f is not None and f.f_code.co_filename not in _OURS:
                f.f_trace = tracer
                f = f.f_back
            self._done.wait(REARM_INTERVAL)

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
        self.deadline = time.monotonic() + self.limit
        self._previous_trace = sys.gettrace()
        if self.codes:
            self._previous_profile = sys.getprofile()
            self._previous_thread_profile = getattr(threading, "getprofile", lambda: None)()
            threading.setprofile(self._profiler)
            sys.setprofile(self._profiler)
        if self.use_alarm:
            self._previous_alarm = signal.signal(signal.SIGALRM, self._on_alarm)
            self._previous_interrupt = signal.signal(signal.SIGINT, self._on_interrupt)
            self._start = time.monotonic()
            self._old_timer = signal.setitimer(signal.ITIMER_REAL, self.limit, REARM_INTERVAL)
        elif self._armed_tracer is not None:
            sys.settrace(self._armed_tracer)
            self._dog = threading.Thread(target=self._watchdog, daemon=True)
            self._dog.start()
        else:  # pragma: no cover — not CPython: a trace function raising once past the deadline
            sys.settrace(self._python_tracer)
        self.active = True

    def _python_tracer(self, frame, event, arg):  # pragma: no cover — not CPython
        if frame.f_code.co_filename not in _OURS and time.monotonic() > self.deadline:
            self.raising = TimeUp
            raise TimeUp
        return self._python_tracer

    def stop(self):
        """Called right after the untrace/clear subscripts of :func:`guarded`."""
        self.active = False
        if self.use_alarm:
            left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
            if signal.getsignal(signal.SIGALRM) is not self._on_alarm or (left == 0 and self.raising is None):
                self._lost.append("时间上限（SIGALRM 计时器）")
            signal.signal(signal.SIGALRM, self._previous_alarm)
            signal.signal(signal.SIGINT, self._previous_interrupt)
            old_delay, old_interval = self._old_timer
            if old_delay:  # someone else's timer was running: give it back what is left of it
                signal.setitimer(signal.ITIMER_REAL, max(old_delay - (time.monotonic() - self._start), 1e-3),
                                 old_interval)
        if not self.use_alarm and self._armed_tracer is not None:
            self._done.set()
            self._dog.join()
        if self.codes:
            if sys.getprofile() is not self._profiler:
                self._lost.append("禁用函数的监视（sys.setprofile）")
            sys.setprofile(self._previous_profile)
            threading.setprofile(self._previous_thread_profile)
        sys.settrace(self._previous_trace)

    def stopped_watching(self) -> tuple:
        return tuple(self._lost)


def guarded(watch: Watch, fn, args: tuple):
    """``("ok", fn(*args))`` or ``("raised", exception)``, with ``watch`` installed around the call.
    After the call, tracing goes off by a subscript (no eval-breaker check), then an exception still
    scheduled for the learner's frames is taken by :func:`_absorb` before the checker's cleanup runs."""
    watch.start()
    try:
        return "ok", fn(*args)
    except BaseException as exc:  # noqa: BLE001 — the learner's code, reported
        return "raised", exc
    finally:
        watch._untrace[None]
        try:
            _absorb()
        except BaseException:  # noqa: BLE001, S110 — the scheduled TimeUp, already counted
            pass
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
