"""Checking a function the learner wrote: the engine behind ``helpers.exercises.check_code`` (plumbing).

A code exercise (:class:`CodeExercise`) names the function the learner writes (its signature and
what it returns), a seeded list of :class:`Case` s (small readable ones first, then random ones,
then the edge cases the idea is about), the reference implementation from the lesson module, and
the usual mistakes (:class:`Mistake`): each one a *known-wrong implementation* (or a predicate on
the returned value). :func:`run` calls the learner's function on every case first, and only then
computes the expected values (so nothing the learner's code can reach holds them), with the functions
recorded at import (:func:`remember_originals`: a learner who reassigns ``np.allclose`` or
``helpers.softmax`` in the notebook changes nothing about grading, and is told so once). A mistake is
named only when its wrong implementation reproduces the learner's output on *every* case the learner
answered and that output is not one constant (any ``return 0.0`` would match a wrong implementation
that is 0 on every case, so such a match is no evidence); otherwise the hint is generic (a constant
answer is said to be one) and the first differing row is shown. Precision is judged per case: float32
where the case's input or the learner's result is float32 (and told which cases, and why), float64
elsewhere; float16 and complex results are refused with their own
sentence; a result more than :data:`SIZE_FACTOR` times the expected size is refused unread. The
answer (in Chinese) shows the first wrong case's input shapes (values too when small), what was
expected and what came back (shape, a few values, how many NaN/inf) and the hint.

:func:`run` never raises because of the learner's function: an exception is reported as one line
(type and message, and the learner's line where it happened; no traceback); ``None``, wrong types,
a wrong number of returned values, wrong shapes, NaN/inf are each named; printing is captured (at
most :data:`KEPT_CHARS` characters kept) and mentioned, not shown; the arguments are copies and a
function that modifies them in place is told so; warnings are recorded, not shown. The capture is a
C-level text buffer (:class:`_Sink`), so printing costs what printing to a file costs. Only
``KeyboardInterrupt`` (the learner pressing stop) goes through.

**Forbidden helpers** (``CodeExercise.forbidden``: dotted names such as
``"helpers.attention.scaled_dot_product_attention"``, the functions the exercise asks the learner
to write instead of calling). While the learner's function runs, a ``sys.setprofile`` hook records
every Python call whose code object is one of theirs; a call is reported (with the exercise's
``forbidden_hint``), whatever came back. Watching the *code object* rather than patching a module
attribute catches every way of reaching the function — ``helpers.x(…)``, ``from helpers.attention
import x as y`` bound before the check, a saved reference, another helper that calls it — and leaves
nothing patched behind if the learner's code is interrupted. ``sys.setprofile`` is separate from
``sys.settrace`` (the time limit's fallback, debuggers, coverage), so neither disturbs the other.

**Time limit** (:data:`TIME_LIMIT` seconds per case, far above what these small cases need —
the reference takes well under a millisecond). A thread with a timeout cannot stop a runaway loop in
Python, so :func:`time_limit` uses, where it can, ``signal.setitimer(ITIMER_REAL)`` with a
``SIGALRM`` handler that raises inside the learner's code: this works on Linux and macOS, in a
plain interpreter and in a Jupyter/IPython kernel (which runs cells on the main thread), Colab
included, and it interrupts ``time.sleep`` too. Where there is no ``setitimer`` (Windows) or the
check runs off the main thread (a kernel's subshell, a thread), it falls back to ``sys.settrace``:
a trace function that raises once the deadline has passed, at the next line the learner's Python
code executes. Neither can cut short one long call inside C (a single huge numpy product): the
limit takes effect when that call returns, and the case is reported as too slow with the time it
really took. The
exception raised on time-out derives from ``BaseException`` so ``except Exception`` in the
learner's code does not swallow it; a case that overruns anyway is reported as too slow.
"""
from __future__ import annotations

import codecs
import contextlib
import copy
import ctypes
import functools
import importlib
import inspect
import io
import signal
import sys
import threading
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import originals
from .format import wrap_text

#: seconds one case may take before the learner's function is stopped
TIME_LIMIT = 2.0
#: characters of the learner's printing kept (the rest is counted and dropped)
KEPT_CHARS = 2_000
#: how many values of an array a message shows
SHOWN_VALUES = 6
#: characters of the first printed line shown (longer lines are cut and end in “…”)
PREVIEW_CHARS = 60
#: bytes of the learner's printing buffered before they are counted (see :class:`_Sink`)
SINK_BUFFER = 1 << 20


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
    instead (``got``/``expected``: tuples of arrays). ``name`` is a short id used by the tests."""

    name: str
    hint: str
    wrong: Callable | None = None
    test: Callable | None = None
    #: a sentence added to the hint for an answer that is the same number on every case, when this
    #: mistake's wrong implementation also returns that number (conditional: the output cannot tell
    #: this mistake from ``return 0.0``, see :func:`_evidence`)
    when_constant: str = ""


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
    rtol: float = 1e-6
    atol: float = 1e-9
    time_limit: float = TIME_LIMIT
    extra: dict = field(default_factory=dict)
    #: what the function returns, as a clause of the sentence “要写的是 f(x)，<returns>。”
    returns: str = ""
    #: dotted names of the lesson's functions the learner must not call (see the module docstring)
    forbidden: tuple = ()
    #: the hint shown when one of them is called
    forbidden_hint: str = ""


# ---- the time limit, the stop button and the forbidden-call watch ---------------------------------
class TimeUp(BaseException):
    """Raised inside the learner's code when its case runs past the time limit (a BaseException,
    so ``except Exception`` in the learner's code does not catch it)."""


_HERE = __file__
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


class _Watch:
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
        (the interrupted one) is the checker's own, where nothing may be raised."""
        self.raising = self.raising or exc
        tracer = self._c_tracer(self.raising)
        ours = frame is None or frame.f_code.co_filename == _HERE
        if tracer is not None:
            sys.settrace(tracer)
            f = frame
            while f is not None and f.f_code.co_filename != _HERE:
                f.f_trace = tracer
                f = f.f_back
        return not ours

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
            while f is not None and f.f_code.co_filename != _HERE:
                f.f_trace = tracer
                f = f.f_back
            self._done.wait(REARM_INTERVAL)

    def _profiler(self, frame, event, arg):
        if event == "call" and self.active and frame.f_code in self.codes:
            name = self.codes[frame.f_code]
            if name not in self.seen:
                self.seen.append(name)

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
        if frame.f_code.co_filename != _HERE and time.monotonic() > self.deadline:
            self.raising = TimeUp
            raise TimeUp
        return self._python_tracer

    def stop(self):
        """Called right after the untrace/clear subscripts of :func:`_guarded`."""
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


def _guarded(watch: _Watch, fn, args: tuple):
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


@contextlib.contextmanager
def time_limit(seconds: float, *, use_alarm: bool | None = None):
    """Raise :class:`TimeUp` in the code run inside the block once ``seconds`` have passed (a plain
    version of the watch for code that is not the learner's; :func:`call_learner` uses the full
    one). ``use_alarm=False`` forces the trace-function fallback (tests)."""
    watch = _Watch(seconds, use_alarm, {})
    watch.start()
    try:
        yield
    finally:
        watch._untrace[None]
        try:
            _absorb()
        except BaseException:  # noqa: BLE001, S110 — the scheduled TimeUp
            pass
        watch.stop()


# ---- one call of the learner's function ----------------------------------------------------------
class _Kept(io.RawIOBase):
    """Where :class:`_Sink`'s buffer lands, a chunk at a time: counts the characters, keeps the first
    :data:`KEPT_CHARS` (constant memory however much is printed)."""

    def __init__(self):
        self.kept, self.count, self.kept_chars = [], 0, 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self):
        return True

    def write(self, data):
        text = self._decoder.decode(bytes(data))
        room = KEPT_CHARS - self.kept_chars
        if room > 0:
            self.kept.append(text[:room])
            self.kept_chars += min(room, len(text))
        self.count += len(text)
        return len(data)


class _Sink(io.TextIOWrapper):
    """Stands in for stdout/stderr. Every ``write`` is C code (a text wrapper over a large buffer):
    no Python frame per print, so the forbidden-call profiler, which runs at every Python call, is not
    woken by the learner's printing; the buffer reaches :class:`_Kept` once per :data:`SINK_BUFFER`
    bytes. A function that prints 100,000 lines costs what printing to a file costs."""

    def __init__(self):
        self.raw_sink = _Kept()
        super().__init__(io.BufferedWriter(self.raw_sink, SINK_BUFFER), encoding="utf-8", errors="replace",
                         write_through=False)

    def _drain(self):
        with contextlib.suppress(ValueError, OSError):  # the learner's code may have closed it
            self.flush()

    def text(self) -> str:
        self._drain()
        return "".join(self.raw_sink.kept)

    @property
    def count(self) -> int:
        self._drain()
        return self.raw_sink.count


@dataclass
class Call:
    """What one call did: ``result`` (or ``error``, or ``timed_out``), ``seconds``, the printed text
    (``printed``, ``printed_chars``), the first warning, which arguments it modified, which forbidden
    helpers it called, and ``unwatched``: what the checker installed and the code removed."""

    result: object = None
    error: BaseException | None = None
    error_line: str = ""
    error_text: str = ""
    timed_out: bool = False
    seconds: float = 0.0
    printed: str = ""
    printed_chars: int = 0
    warning: str = ""
    mutated: tuple = ()
    forbidden: tuple = ()
    unwatched: tuple = ()


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
        except (TypeError, ValueError):
            return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 — an odd object's comparison
        return False


def _learner_line(exc: BaseException, code) -> str:
    """The deepest line of the learner's own code in ``exc``'s traceback (``"第 3 行：return …"``)."""
    filename = getattr(code, "co_filename", None)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    if not frames or not frames[-1].line:
        return ""
    return frames[-1].line.strip()


def forbidden_codes(names: tuple) -> dict:
    """``{code object: dotted name}`` of the functions named in ``names`` (unwrapped decorators)."""
    codes = {}
    for name in names:
        module, _, attr = name.rpartition(".")
        fn = inspect.unwrap(getattr(importlib.import_module(module), attr))
        codes[fn.__code__] = name
    return codes


@contextlib.contextmanager
def watch_calls(codes: dict, seen: list):
    """Append to ``seen`` the name of each function in ``codes`` called inside the block."""
    if not codes:
        yield
        return
    watch = _Watch(float("inf"), False, codes)
    watch.seen = seen
    previous = sys.getprofile()
    watch._previous_profile, watch.active = previous, True
    watch._previous_thread_profile = getattr(threading, "getprofile", lambda: None)()
    sys.setprofile(watch._profiler)
    threading.setprofile(watch._profiler)
    try:
        yield
    finally:
        sys.setprofile(previous)
        threading.setprofile(watch._previous_thread_profile)


def _error_text(exc: BaseException) -> str:
    """``"TypeError: …"`` (first line, at most 200 characters)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:200] if text else ''}"


def _warning_text(caught: list) -> str:
    return str(caught[0].message).splitlines()[0][:120] if caught and str(caught[0].message) else ""


def call_learner(fn, args: tuple, names: tuple, limit: float, *, use_alarm: bool | None = None,
                 forbidden: dict | None = None, reader=None) -> Call:
    """Call ``fn(*copies of args)`` under the watch (time limit, stop button, forbidden calls),
    capturing printing and warnings. Everything that touches what the learner's code made — its
    exception's text, its warning, the arguments it may have changed, and ``reader(result)`` (which
    turns the result into plain arrays) — runs under the same watch, so none of it can hang, print or
    leave by ``SystemExit``. ``KeyboardInterrupt`` (the stop button) is raised again afterwards."""
    copies = tuple(copy.deepcopy(a) for a in args)
    sink, out = _Sink(), Call()
    watch = _Watch(limit, use_alarm, forbidden or {})
    start = time.perf_counter()

    caught: list = []

    def whole_call():  # only the checker's own lines here: context managers stay outside the watch
        try:
            result, error = fn(*copies), None
        except (TimeUp, KeyboardInterrupt):
            raise
        except BaseException as exc:  # noqa: BLE001 — SystemExit too: the learner's code, reported
            result, error = None, exc
        if error is not None:
            out.error, out.error_text = error, _error_text(error)
            out.error_line = _learner_line(error, getattr(fn, "__code__", None))
        elif reader is not None:
            result = reader(result)
        out.result = result
        out.warning = _warning_text(caught)
        out.mutated = tuple(n for n, a, c in zip(names, args, copies) if not _same(a, c))

    with warnings.catch_warnings(record=True) as recorded, np.errstate(over="warn", invalid="warn",
                                                                        divide="warn", under="ignore"):
        warnings.simplefilter("always")
        caught = recorded
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            how, value = _guarded(watch, whole_call, ())
    out.seconds = time.perf_counter() - start
    if watch.raising is KeyboardInterrupt:
        raise KeyboardInterrupt
    if watch.raising is TimeUp or (how == "raised" and isinstance(value, TimeUp)):
        out.timed_out = True
    elif how == "raised":  # something escaped while reading the result (its __array__, __str__, …)
        out.error, out.result = value, None
        try:
            out.error_text = _error_text(value)
        except BaseException:  # noqa: BLE001 — its message is the learner's object too
            out.error_text = type(value).__name__
    if out.seconds > limit:
        out.timed_out = True
    if out.timed_out:
        out.result, out.error = None, None
    out.printed, out.printed_chars = sink.text(), sink.count
    out.forbidden = tuple(watch.seen)
    out.unwatched = watch.stopped_watching()
    return out


@dataclass(frozen=True)
class _Raised:
    """What a known-wrong implementation raised (its exception is its signature)."""

    error: BaseException


def _quiet(fn, args):
    """A known-wrong implementation's result on copies of ``args`` (a :class:`_Raised` if it raises)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*copy.deepcopy(args))
    except Exception as exc:  # noqa: BLE001 — a wrong implementation may raise: that is its signature
        return _Raised(exc)


# ---- reading what came back ----------------------------------------------------------------------
class Unreadable(Exception):
    """The learner's return value cannot be compared; the message is the Chinese hint, ``name`` the
    kind of problem (``"unreadable"``, ``"complex"``, ``"float16"``, ``"too_big"``)."""

    def __init__(self, message: str, name: str = "unreadable"):
        super().__init__(message)
        self.name = name


#: what a value of each kind is called in the messages (a list of numbers counts as an array)
KIND_WORDS = {"number": "一个数", "array": "一个数组"}
_TYPE_WORDS = {"str": "字符串（str）", "bytes": "字节串（bytes）", "dict": "字典（dict）", "set": "集合（set）"}
#: a result may hold this many times as many numbers as the expected one before it is refused unread
SIZE_FACTOR = 8
COMPLEX_HINT = ("返回值是复数（complex）：权重和输出都是实数，判分不会悄悄丢掉虚部。找一找虚部是从哪里来的"
                "（加了 1j？对负数开了 np.sqrt / np.emath？），去掉它再运行。")
FLOAT16_HINT = ("返回值是 float16（半精度）：它只有约 3 位有效数字，最大只到 65504，e 的 12 次方就溢出了，"
                "判不出对错。用 numpy 默认的 float64（或者 float32）来算。")


def _type_word(value) -> str:
    name = type(value).__name__
    return _TYPE_WORDS.get(name, name)


def _as_array(value, what: str, kind: str = "array") -> np.ndarray:
    """``value`` as a float array; lists and tuples of numbers are accepted silently; complex and
    float16 results are refused with their own sentence (never silently converted)."""
    if value is None:
        raise Unreadable(f"{what}是 None（缺了 return？）。")
    if isinstance(value, (str, bytes, dict, set)):
        raise Unreadable(f"{what}应是{KIND_WORDS[kind]}，收到的是{_type_word(value)}。")
    whole = "一个数" if kind == "number" else "一个整齐的数值数组"
    try:
        raw = np.asarray(value)
        if raw.dtype.kind == "c" or isinstance(value, complex):
            raise Unreadable(f"{what}：" + COMPLEX_HINT, "complex")
        if raw.dtype == np.float16:
            raise Unreadable(f"{what}：" + FLOAT16_HINT, "float16")
        arr = raw.astype(float)
    except (TypeError, ValueError, OverflowError):
        raise Unreadable(f"{what}不是{whole}（收到的是 {type(value).__name__}）。") from None
    return arr


def _precision(value):
    """The floating type the learner's value was computed in: ``np.float32`` or ``np.float64``."""
    dtype = getattr(value, "dtype", None)
    return np.float32 if dtype is not None and dtype == np.float32 else np.float64


def _check_sizes(result, outputs: tuple, shapes: tuple):
    """Refuse, before reading a single value, an array holding more than :data:`SIZE_FACTOR` times
    the numbers expected (a lazily allocated giant array would otherwise take seconds to compare)."""
    parts = tuple(result) if len(outputs) > 1 and isinstance(result, (tuple, list)) else (result,)
    for part, shape, name in zip(parts, shapes, outputs):
        size = getattr(part, "size", None) if isinstance(part, (np.ndarray, np.generic)) else None
        expected = max(int(np.prod(shape)), 1)
        if size is not None and size > SIZE_FACTOR * expected:
            raise Unreadable(f"{name} 太大了：形状 {tuple(part.shape)}，{size:,} 个数；这里应是形状 {tuple(shape)}"
                             f"（{expected} 个数），超过 {SIZE_FACTOR} 倍的结果判分不读。检查是不是多了一维，"
                             "或者把不该相乘的两个维度做了外积。", "too_big")


@dataclass(frozen=True)
class _Read:
    """The learner's result as plain float64 arrays (``got``) and the precision each was computed in
    (``precisions``), or why it cannot be read (``problem``)."""

    got: tuple | None = None
    precisions: tuple = ()
    problem: Unreadable | None = None


def _reader(outputs: tuple, shapes: tuple):
    kinds = tuple("number" if s == () else "array" for s in shapes)

    def read(result):
        if result is None and len(outputs) >= 1:
            return _Read(problem=Unreadable("返回值是 None（缺了 return？）。"))
        try:
            _check_sizes(result, outputs, shapes)
            got = read_outputs(result, outputs, kinds)
        except Unreadable as why:
            return _Read(problem=why)
        parts = (result,) if len(outputs) == 1 else tuple(result)
        return _Read(got, tuple(_precision(p) for p in parts))
    return read


def code_name(label: str) -> str:
    """The variable a returned value is called in code: the last word of ``"输出 out"`` when it is an
    identifier (``"out"``), else ``""``."""
    word = label.split()[-1] if label.split() else ""
    return word if word.isidentifier() and word.isascii() else ""


def read_outputs(result, outputs: tuple, kinds: tuple | None = None) -> tuple:
    """``result`` as a tuple of float arrays, one per name in ``outputs``; :class:`Unreadable` if not.
    ``kinds`` (``"number"``/``"array"`` per output, from the expected values) words the messages."""
    kinds = kinds or ("array",) * len(outputs)
    if len(outputs) == 1:
        if isinstance(result, tuple):
            one = "一个数" if kinds[0] == "number" else "一个数组"
            raise Unreadable(f"返回了一个有 {len(result)} 个值的元组；这里只要返回{one}（{outputs[0]}）。")
        return (_as_array(result, "返回值", kinds[0]),)
    names = "、".join(outputs)
    if not isinstance(result, (tuple, list)) or len(result) != len(outputs):
        got = (f" {len(result)} 个值" if isinstance(result, (tuple, list))
               else "一个数组" if isinstance(result, np.ndarray) else f" {type(result).__name__}")
        codes = [code_name(n) for n in outputs]
        example = f"，例如 return {', '.join(codes)}" if all(codes) else ""
        raise Unreadable(f"应返回 {len(outputs)} 个值（{names}，按这个顺序{example}），收到的是{got}。")
    return tuple(_as_array(r, f"第 {i + 1} 个返回值（{n}）", k)
                 for i, (r, n, k) in enumerate(zip(result, outputs, kinds)))


def _fit(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """A one-element array where a scalar is expected (``np.float64`` vs ``array([x])``) is read as it."""
    if expected.shape == () and got.size == 1:
        return got.reshape(())
    return got


def _tol(tol, i):
    """The ``i``-th output's tolerance when ``tol`` is a per-output tuple, else ``tol`` itself."""
    return tol[i] if isinstance(tol, (tuple, list)) else tol


def close(got: tuple, expected: tuple, rtol, atol) -> list:
    """Per output: ``True`` when shapes agree and values are close (NaN never close). ``rtol`` and
    ``atol`` are numbers or one per output."""
    verdicts = []
    for i, (g, e) in enumerate(zip(got, expected)):
        g = _fit(g, e)
        verdicts.append(g.shape == e.shape and bool(np.allclose(g, e, rtol=_tol(rtol, i), atol=_tol(atol, i))))
    return verdicts


def _matches(got: tuple, other: tuple, rtol, atol, only=None) -> bool:
    idx = range(len(got)) if only is None else [only]
    for i in idx:
        g, o = _fit(got[i], other[i]), other[i]
        if g.shape != o.shape or not np.allclose(g, o, rtol=_tol(rtol, i), atol=_tol(atol, i), equal_nan=True):
            return False
    return True


# ---- showing values --------------------------------------------------------------------------------
def _num(x: float) -> str:
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    return f"{x:.4g}"


def _nested(arr: np.ndarray) -> str:
    if arr.ndim == 0:
        return _num(float(arr))
    return "[" + ", ".join(_nested(a) for a in arr) + "]"


def _row_text(arr: np.ndarray, row: tuple) -> str:
    values = arr[row].ravel()
    shown = ", ".join(_num(float(v)) for v in values[:SHOWN_VALUES * 2])
    where = "第 " + "、".join(str(i) for i in row) + " 行" if len(row) == 1 else "下标 [" + ", ".join(map(str, row)) + ", :]"
    return f"{where} [{shown}{', …' if values.size > SHOWN_VALUES * 2 else ''}]"


def first_difference(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float):
    """Leading index (all axes but the last) of the first entry where ``got`` differs, or ``None``."""
    if got.shape != expected.shape or got.ndim < 2:
        return None
    bad = np.argwhere(~np.isclose(got, expected, rtol=rtol, atol=atol))
    return tuple(int(i) for i in bad[0][:-1]) if len(bad) else None


def show_array(arr: np.ndarray, row: tuple | None = None) -> str:
    """``形状 (3, 5)，第 1 行 [0.09, 0.24, …]，其中 2 个 nan``: every value when few, else the row
    ``row`` (the first that differs) of a 2-D or larger array, else the first values."""
    arr = np.asarray(arr, dtype=float)
    flat = arr.ravel()
    if arr.ndim == 0:
        text = f"标量 {_num(float(arr))}"
    elif flat.size <= SHOWN_VALUES * 2 and arr.ndim <= 2:
        text = f"形状 {tuple(arr.shape)}，{_nested(arr)}"
    elif row is not None:
        text = f"形状 {tuple(arr.shape)}，{_row_text(arr, row)}"
    else:
        values = ", ".join(_num(float(v)) for v in flat[:SHOWN_VALUES])
        text = f"形状 {tuple(arr.shape)}，前 {SHOWN_VALUES} 个值 [{values}, …]"
    bad = [f"{int(c)} 个 {w}" for c, w in ((np.isnan(flat).sum(), "nan"), (np.isinf(flat).sum(), "inf")) if c]
    return text + (f"；共有 {'、'.join(bad)}" if bad else "")


def show_input(name: str, value) -> str:
    """One argument of a case: its values when it is small, else its shape."""
    if isinstance(value, np.ndarray):
        if value.size <= SHOWN_VALUES * 2 and value.ndim <= 2:
            return f"{name} = {_nested(value)}" if value.ndim == 0 else f"{name} 形状 {tuple(value.shape)} = {_nested(value)}"
        return f"{name} 形状 {tuple(value.shape)}"
    if isinstance(value, float):
        return f"{name} = {_num(value)}"
    return f"{name} = {value!r}"


# ---- the verdict -----------------------------------------------------------------------------------
_GENERIC_ERRORS = {
    "TypeError": "检查函数的参数个数和顺序，以及是不是把数组当成了别的类型。",
    "ValueError": "多半是两个形状对不上（广播不了）：打印一下中间结果的 .shape。",
    "IndexError": "下标越界了：数一数这一维有多长，下标从 0 开始。",
    "NameError": "用到了一个没定义的名字（np 需要先 import numpy as np；变量名拼写？）。",
    "AttributeError": "对象上没有这个属性或方法：检查拼写，或者它是不是 numpy 数组。",
    "ZeroDivisionError": "除以了 0：用 numpy 数组运算，而不是 Python 的 int/float。",
}


def _signature_hint(exercise: CodeExercise, fn, case: Case) -> str:
    """When ``fn`` cannot take ``case``'s arguments: the expected signature and the learner's, else ``""``."""
    try:
        theirs = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or an odd callable: nothing to compare
        return ""
    try:
        theirs.bind(*case.args)
    except TypeError:
        mine = f"{getattr(fn, '__name__', '你的函数')}{theirs}"
        return (f"参数个数不对：应为 {exercise.signature}（{len(exercise.params)} 个参数，按这个顺序），"
                f"你的是 {mine}。")
    return ""


def _error_hint(exercise: CodeExercise, case: Case, call: Call, fn=None, earlier=()) -> str:
    """The hint for an exception: the signature when the arguments do not fit, else a known-wrong
    implementation that raises the same and reproduces the learner's results on every ``earlier``
    case (:class:`_Result`), else a generic hint by exception type."""
    exc = call.error
    if isinstance(exc, TypeError) and fn is not None:
        signature = _signature_hint(exercise, fn, case)
        if signature:
            return signature
    for mistake in exercise.mistakes:
        if mistake.wrong is None:
            continue
        theirs = _quiet(mistake.wrong, case.args)
        if (isinstance(theirs, _Raised) and type(theirs.error) is type(exc) and str(theirs.error) == str(exc)
                and all(_reproduces(exercise, mistake, r) for r in earlier)):
            return mistake.hint
    if isinstance(exc, SystemExit):
        return "函数里调用了 exit() / sys.exit()：用 return 把结果交回来。"
    return _GENERIC_ERRORS.get(type(exc).__name__, "读一读这条错误信息，在出错的那一行前后打印中间结果的形状和值。")


# ---- what is expected, at which precision ----------------------------------------------------------
#: float32 results may differ from the exact value by this many times the error the reference itself
#: makes in float32 on the same case (two float32 paths round differently: a factor, not equality) …
FLOAT32_ERROR_FACTOR = 4.0
#: … plus this many float32 rounding units relative to the value (one exp and short sums per value)
FLOAT32_ULPS = 64
#: a float64 result on a float64 case that misses the float64 tolerance is still right when it is within
#: this many float32 units (plus the reference's own float32 error): one step computed in float32 and
#: promoted back (``x32 / np.sqrt(d)`` is float64 under NumPy 2). Tighter than :data:`FLOAT32_ULPS`: a
#: systematic error such as ε = 1e-5 added to a sum (≈ 84 units) is not rounding.
FLOAT32_STEP_ULPS = 8


def _cast_args(args: tuple, dtype) -> tuple:
    """``args`` with every floating array and float in ``dtype`` (ints, lists of indices unchanged)."""
    def cast(a):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            return a.astype(dtype)
        if isinstance(a, (float, np.floating)):
            return dtype(a)
        return a
    return tuple(cast(a) for a in args)


def _outputs(exercise: CodeExercise, value) -> tuple:
    return tuple(np.asarray(e, dtype=float) for e in (value if len(exercise.outputs) > 1 else (value,)))


def _exact(exercise: CodeExercise, case: Case) -> tuple:
    """The reference's outputs on ``case``, computed in float64 (float32 inputs are exact in float64)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _outputs(exercise, exercise.reference(*copy.deepcopy(_cast_args(case.args, np.float64))))


def _tolerances(exercise: CodeExercise, case: Case, exact: tuple, precisions: tuple, ulps: int = FLOAT32_ULPS) -> tuple:
    """``((rtol, atol), …)`` per output: the exercise's for float64 results; for float32 results the
    error the reference itself makes in float32 on this very case (× :data:`FLOAT32_ERROR_FACTOR`) plus
    ``ulps`` float32 rounding units — a float32 solution is judged at float32 precision."""
    tols = []
    ref32 = None
    for i, e in enumerate(exact):
        if i < len(precisions) and precisions[i] is np.float32:
            if ref32 is None:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    ref32 = _outputs(exercise, exercise.reference(*copy.deepcopy(_cast_args(case.args, np.float32))))
            eps = float(np.finfo(np.float32).eps)
            err = np.abs(ref32[i] - e) if ref32[i].shape == e.shape else np.zeros_like(e)
            err = np.where(np.isfinite(err), err, 0.0)
            rel = float(np.max(FLOAT32_ERROR_FACTOR * err / (1.0 + np.abs(e)), initial=0.0)) + ulps * eps
            tols.append((max(rel, exercise.rtol), max(rel, exercise.atol)))
        else:
            tols.append((exercise.rtol, exercise.atol))
    return tuple(tols)


_SHAPES: dict = {}


def _expected_shapes(exercise: CodeExercise, cases: list) -> list:
    """The shapes of the reference's outputs per case (cached per exercise; values are not kept, so
    the learner's code finds no expected value in memory while it runs)."""
    cached = _SHAPES.get(id(exercise))
    if cached is None or cached[0] is not exercise:
        cached = (exercise, [tuple(e.shape for e in _exact(exercise, c)) for c in cases])
        _SHAPES[id(exercise)] = cached
    return cached[1]


@dataclass
class _Result:
    """One case the learner's function answered readably: its outputs, the exact ones, the tolerance
    per output and which outputs are right."""

    case: Case
    index: int
    got: tuple
    exact: tuple
    tols: tuple
    ok: list
    precisions: tuple
    #: a float64 case accepted at float32 rounding (:data:`FLOAT32_STEP_ULPS`)
    stepped: bool = False

    @property
    def rtol(self):
        return tuple(t[0] for t in self.tols)

    @property
    def atol(self):
        return tuple(t[1] for t in self.tols)


def _close_each(got: tuple, exact: tuple, tols: tuple) -> list:
    return [_fit(g, e).shape == e.shape and bool(np.allclose(_fit(g, e), e, rtol=r, atol=a))
            for g, e, (r, a) in zip(got, exact, tols)]


def _variant_outputs(exercise: CodeExercise, mistake: Mistake, case: Case):
    """``mistake``'s wrong implementation's outputs on ``case`` (``None`` if it raises or is unreadable)."""
    theirs = _quiet(mistake.wrong, case.args)
    if isinstance(theirs, _Raised):
        return None
    try:
        return read_outputs(theirs, exercise.outputs)
    except Unreadable:
        return None


def _reproduces(exercise: CodeExercise, mistake: Mistake, result: _Result) -> bool:
    """Whether ``mistake``'s wrong implementation returns what the learner returned on this case."""
    theirs = _variant_outputs(exercise, mistake, result.case)
    return theirs is not None and _matches(result.got, theirs, result.rtol, result.atol)


def _constant(values: list, rtol: float, atol: float):
    """The one number every array in ``values`` holds (within the tolerance), else ``None``."""
    flat = np.concatenate([np.ravel(v) for v in values]) if values else np.zeros(0)
    if flat.size == 0:
        return None
    return float(flat[0]) if np.allclose(flat, flat[0], rtol=rtol, atol=atol, equal_nan=True) else None


def _wrong_outputs(results: list) -> list:
    """Indices of the outputs the learner got wrong on some case."""
    return [i for i in range(len(results[0].got)) if any(not r.ok[i] for r in results)]


def _constant_answer(results: list, wrong: list):
    """The learner's wrong outputs, when each is one and the same number on every case (``return 0.0``,
    ``A[r] − A[r]``): ``{output index: number}``, else ``None``."""
    found = {}
    for i in wrong:
        value = _constant([r.got[i] for r in results], max(r.rtol[i] for r in results), max(r.atol[i] for r in results))
        if value is None or not np.isfinite(value):  # all nan or inf: the non-finite hint says more
            return None
        found[i] = value
    return found


def _evidence(exercise: CodeExercise, mistake: Mistake, results: list, wrong: list) -> bool:
    """A mistake is named only when its wrong implementation reproduces the learner's outputs on every
    case, *and* that match says something: if, on the outputs the learner got wrong, the wrong
    implementation returns one constant whatever the input (the transposed diagonal of a causal
    pattern is all zeros; a signed sum of two distributions' difference is always 0), any constant
    answer — ``return 0.0`` — matches it too, and the match is no evidence of that mistake."""
    outs = [_variant_outputs(exercise, mistake, r.case) for r in results]
    if any(o is None for o in outs):
        return False
    if not all(_matches(r.got, o, r.rtol, r.atol) for r, o in zip(results, outs)):
        return False
    return not all(_constant([o[i] for o in outs], max(r.rtol[i] for r in results), max(r.atol[i] for r in results))
                   is not None for i in wrong)


def _generic(result: _Result, exercise: CodeExercise | None = None) -> tuple:
    wrong_index = result.ok.index(False)
    g, e = _fit(result.got[wrong_index], result.exact[wrong_index]), result.exact[wrong_index]
    if g.shape != e.shape and e.shape == ():
        return "shape", f"应返回一个数，你返回的是形状 {tuple(g.shape)} 的数组：还差最后一步（求和、取平均或取出一个元素）。"
    if g.shape != e.shape:
        return "shape", f"形状不对：应为 {tuple(e.shape)}，你的是 {tuple(g.shape)}。对照题目里写的形状，检查在哪一维上求和、转置或拼接。"
    if not np.isfinite(g).all():
        return "nonfinite", ("结果里有 nan 或 inf：打印中间结果，找出是哪一步先出现的。可能是 e 的大数次方溢出、0 / 0、"
                             "∞ − ∞，也可能是把 −∞ 这样的初始值原样返回了（哪个变量没有更新？）。")
    if exercise is not None and np.float32 not in result.precisions and all(
            _close_each(result.got, result.exact, _tolerances(exercise, result.case, result.exact,
                                                               (np.float32,) * len(result.exact)))):
        worst = max(float(np.max(np.abs(_fit(g, e) - e) / np.maximum(np.abs(e), exercise.atol), initial=0.0))
                    for g, e in zip(result.got, result.exact))
        return "small_difference", (f"差别很小（最大相对误差约 {worst:.1g}），但超过了允许的误差（这一组的输入和你的结果都是 float64："
                                    f"相对误差 ≤ {exercise.rtol:g}）："
                                    "找一找哪里多出了一个很小的数（比如分母上加的 ε、clip 的下限）；如果有一步转成了 float32 "
                                    "又转回 float64，就整个函数都用 float32、返回 float32（那样按 float32 的精度判）。")
    return "values", "形状对，数值不对：拿这一组输入一步一步打印中间结果，和题目里的公式逐项对照。"


def _constant_hint(exercise: CodeExercise, values: dict, candidates: list) -> str:
    names = "、".join(f"{exercise.outputs[i]} = {_num(v)}" for i, v in values.items())
    hint = (f"每一组输入你都返回同一个值（{names}），和输入无关：打印中间结果，看是哪一步变成了常数"
            "（相减的两个数是不是同一个？取的位置对不对？）。")
    return hint + "".join(m.when_constant for m in candidates if m.when_constant)


def _diagnose(exercise: CodeExercise, results: list) -> tuple:
    """``(mistake name, hint)``: a known mistake only when its wrong implementation reproduces the
    learner's outputs on *every* case the learner answered (each failing one, and the right ones too)
    and the match is evidence (:func:`_evidence`), or its predicate holds on every failing one; a
    constant answer is named as one; otherwise the generic hint of the first failing case."""
    failing = [r for r in results if not all(r.ok)]
    wrong = _wrong_outputs(results)
    for mistake in exercise.mistakes:
        if mistake.wrong is not None and _evidence(exercise, mistake, results, wrong):
            return mistake.name, mistake.hint
    for mistake in exercise.mistakes:
        if mistake.test is None:
            continue
        try:
            hit = all(bool(mistake.test(r.case, r.got, r.exact)) for r in failing)
        except Exception:  # noqa: BLE001 — a predicate on odd shapes: no evidence
            hit = False
        if hit:
            return mistake.name, mistake.hint
    shaped = all(_fit(r.got[i], r.exact[i]).shape == r.exact[i].shape for r in results for i in wrong)
    constant = _constant_answer(results, wrong) if len(results) > 1 and shaped else None
    if constant is not None:
        candidates = [m for m in exercise.mistakes if m.wrong is not None and m.when_constant
                      and all(_reproduces(exercise, m, r) for r in results)]
        return "constant", _constant_hint(exercise, constant, candidates)
    return _generic(failing[0], exercise)


def diagnose(exercise: CodeExercise, case: Case, got: tuple, expected: tuple, more=()) -> tuple:
    """``(mistake name, hint)`` for a wrong result ``got`` on ``case`` (``more``: the learner's
    ``(case, got)`` on other cases, all of which the named mistake must reproduce too)."""
    results = []
    for c, g in ((case, got), *more):
        exact = expected if c is case else _exact(exercise, c)
        tols = ((exercise.rtol, exercise.atol),) * len(exact)
        results.append(_Result(c, 0, g, exact, tols, close(g, exact, exercise.rtol, exercise.atol), ()))
    return _diagnose(exercise, results)


def _case_lines(exercise: CodeExercise, case: Case, index: int, total: int) -> list:
    inputs = "；".join(show_input(n, a) for n, a in zip(exercise.params, case.args))
    return [f"第 {index} 组（共 {total} 组）：{case.label}", f"  输入：{inputs}"]


def _notes(exercise: CodeExercise, printed_chars: int, printed: str, warning: str) -> list:
    notes = []
    if printed_chars:
        first = printed.strip().splitlines()[0] if printed.strip() else ""
        first = first[:PREVIEW_CHARS] + "…" if len(first) > PREVIEW_CHARS else first
        notes.append(f"（你的函数打印了 {printed_chars} 个字符，判分时不显示"
                     + (f"；第一行是：{first}" if first else "") + "。调试完记得删掉 print。）")
    if warning:
        notes.append(f"（运行时 numpy 给出了警告：{warning}）")
    return notes


def returns_clause(exercise: CodeExercise) -> str:
    """“返回两个数组 out, weights”: the exercise's own ``returns``, else made from the output names."""
    if exercise.returns:
        return exercise.returns
    codes = [code_name(n) for n in exercise.outputs]
    if len(exercise.outputs) > 1:
        return f"按顺序返回 {len(exercise.outputs)} 个值：{', '.join(codes) if all(codes) else '、'.join(exercise.outputs)}"
    return f"返回{exercise.outputs[0]}"


def describe_cases(exercise: CodeExercise) -> str:
    """The cases the checker will try, as one line (shown with the unfilled stub)."""
    labels = []
    for case in exercise.cases():
        if case.label not in labels:
            labels.append(case.label)
    return "；".join(labels)


# ---- the checker's own world: what a learner's experiment cannot change ---------------------------
WATCHED_MODULES = originals.WATCHED_MODULES
#: starts from the snapshot ``import helpers`` took, so a reassignment made before this module
#: loaded (it loads with helpers.exercises, on first use) is still noticed
_ORIGINALS: dict = dict(originals.SNAPSHOT)
_MISSING = object()
#: the changes the learner was already told the checker ignores (told once per session)
_TOLD: set = set()


def remember_originals(*module_names: str) -> None:
    """Record, as they are now, the functions and classes of :data:`WATCHED_MODULES`, of
    ``module_names`` and of every loaded ``helpers`` module (a name already recorded keeps its first
    value). Called when the exercises are gathered, so what a learner reassigns later is noticed."""
    loaded = [m for m in list(sys.modules) if m == "helpers" or m.startswith("helpers.")]
    for name in (*WATCHED_MODULES, *module_names, *loaded):
        module = sys.modules.get(name) or importlib.import_module(name)
        for attr, value in list(vars(module).items()):
            if originals.public_function(attr, value):
                _ORIGINALS.setdefault((name, attr), value)


class _Pristine:
    """Inside the block the recorded originals are in place (the checker computes with them); on
    leaving, whatever the learner had put there is back. :meth:`learners` puts the learner's versions
    back for the duration of their call and notices what their call reassigned."""

    def __init__(self):
        self.changed: dict = {}  # (module name, attr) -> the learner's value

    def _take(self):
        for key, original in _ORIGINALS.items():
            module = sys.modules.get(key[0])
            if module is None:
                continue
            current = vars(module).get(key[1], _MISSING)
            if current is not original:
                self.changed[key] = current
                setattr(module, key[1], original)

    def _give_back(self):
        for (name, attr), value in self.changed.items():
            module = sys.modules.get(name)
            if module is None:
                continue
            if value is _MISSING:
                vars(module).pop(attr, None)
            else:
                setattr(module, attr, value)

    def __enter__(self):
        self._take()
        return self

    def __exit__(self, *exc):
        self._give_back()
        return False

    @contextlib.contextmanager
    def learners(self):
        self._give_back()
        try:
            yield
        finally:
            self._take()

    def notice(self) -> list:
        names = [f"{name}.{attr}" for name, attr in self.changed if f"{name}.{attr}" not in _TOLD]
        _TOLD.update(names)
        return names


def ignored_notice(names) -> str:
    """The one line telling the learner that the checker ignored what they reassigned."""
    names = list(names)
    if not names:
        return ""
    return (f"（你改过 {'、'.join(names)}：判分用的是导入时的原版，你的改动不影响判分，也没有被撤销。"
            "这条说明只出现一次。）")


# ---- the verdict -----------------------------------------------------------------------------------
def _unanswered_stub(exercise: CodeExercise, total: int) -> str:
    sig = exercise.signature
    return (f"⚠ 还没有写好：{sig} 返回了 None（函数体还是 ...，或者缺了 return）。\n"
            + wrap_text(f"判分会依次试 {total} 组输入，每组最多 {exercise.time_limit:.0f} 秒："
                        f"{describe_cases(exercise)}。", indent="  ") + "\n"
            "写好后再运行这个单元；卡住了可以看参考写法（见上面的说明）。")


#: a call that returns this long after the limit was not stopped at the limit (a long call inside C)
LATE_STOP = 0.25


def _timeout_line(index: int, limit: float, seconds: float) -> str:
    """The first line of a time-out: the limit, and when the function actually stopped. One long call
    inside C (a huge matrix product) cannot be cut short: the time-out is raised when it returns."""
    if seconds > limit + LATE_STOP:
        return (f"✘ 超时：第 {index} 组没有在 {limit:g} 秒内结束（每组的上限）；它到 {seconds:.1f} 秒时才停下来："
                "numpy 里的一个大运算算到一半停不下来，只能等它算完。")
    return f"✘ 超时：第 {index} 组没有在 {limit:g} 秒内结束（每组的上限），已经停下。"


def _input_is_float32(case: Case) -> bool:
    return any(isinstance(a, (np.ndarray, np.generic)) and a.dtype == np.float32 for a in case.args)


def _judged_precisions(case: Case, returned: tuple, count: int) -> tuple:
    """The precision each output of ``case`` is judged at: float32 when the case's input is float32
    (a learner may compute in either, and float32 input carries float32 rounding into any step done in
    float32) or when that output came back float32; float64 otherwise — a float64 case keeps the
    exercise's float64 tolerance whatever the other cases were."""
    if _input_is_float32(case):
        return (np.float32,) * count
    return tuple(returned[i] if i < len(returned) else np.float64 for i in range(count))


def _why_float32(result: _Result) -> str:
    return "输入是 float32" if _input_is_float32(result.case) else "你的结果是 float32"


def _float32_note(results: list) -> list:
    """One line naming the cases judged at float32 precision, why, and the tolerance used there
    (nothing when every case listed was judged at float64)."""
    stepped = [r for r in results if r.stepped]
    step_line = ([f"（第 {'、'.join(str(r.index) for r in stepped)} 组的输入和你的结果都是 float64，误差超过了 float64 的允许值，"
                  f"但在 float32 的舍入误差以内（约 {max(max(r.rtol) for r in stepped):.2g}）：如果你有一步是用 float32 算的，"
                  "这正是它的舍入误差，所以这几组按 float32 的舍入误差判。）"] if stepped else [])
    judged = [r for r in results if np.float32 in r.precisions]
    if not judged:
        return step_line
    worst = max(t[0] for r in judged for t, p in zip(r.tols, r.precisions) if p is np.float32)
    groups = "、".join(str(r.index) for r in judged)
    whys = "；".join(dict.fromkeys(_why_float32(r) for r in judged))
    return [f"（第 {groups} 组按 float32 的精度判（{whys}）：允许的相对误差约 {worst:.2g}"
            "（同一算法用 float32 算时自身的误差再留余量）；其余各组按 float64 判。）"
            if len(judged) < len(results) else
            f"（按 float32 的精度判（{whys}）：允许的相对误差约 {worst:.2g}（同一算法用 float32 算时自身的误差再留余量）。）"
            ] + step_line


def _tolerance_words(exercise: CodeExercise, results: list) -> str:
    """The float64 tolerance as it is applied (``np.allclose``: |你的 − 参考| ≤ atol + rtol·|参考|)."""
    if all(np.float32 in r.precisions or r.stepped for r in results):
        return "误差在 float32 的精度以内，见下一行"
    return f"相对误差 ≤ {exercise.rtol:g}，接近 0 的值绝对误差 ≤ {exercise.atol:g}"


def run(exercise: CodeExercise, fn, *, use_alarm: bool | None = None, ignored=()) -> tuple:
    """``(verdict, message, mistake)`` for the learner's ``fn``: ``True`` when every case is right;
    ``False`` with the first wrong case; ``None`` when ``fn`` is not a function, still the stub, or the
    checker could not watch it (its profiler or timer was removed). ``mistake`` names the diagnosis
    (``None`` when right or unanswered). ``ignored``: names of the learner's reassignments the caller
    already set aside (an exercise entry). Never raises because of ``fn`` (``KeyboardInterrupt``
    excepted).

    The learner's function is called on every case first; the expected values are computed only
    afterwards, with the functions recorded by :func:`remember_originals`."""
    sig = exercise.signature
    if not callable(fn):
        shown = type(fn).__name__ if fn is not None else "None"
        return None, (f"⚠ 这里要传入你写的函数本身（函数名，不带括号），例如 check_code(…, {sig.split('(')[0]})；"
                      f"收到的是 {shown}。"), None
    remember_originals()
    with _Pristine() as world:
        verdict = _run(exercise, fn, use_alarm, world)
        names = [n for n in ignored if n not in _TOLD] + world.notice()
        _TOLD.update(names)
        told = ignored_notice(names)
    ok, message, mistake = verdict
    return ok, message + ("\n" + told if told else ""), mistake


def _run(exercise: CodeExercise, fn, use_alarm, world: _Pristine) -> tuple:
    sig = exercise.signature
    cases = list(exercise.cases())
    total = len(cases)
    shapes = _expected_shapes(exercise, cases)
    forbidden = forbidden_codes(exercise.forbidden)
    calls = []
    for case, case_shapes in zip(cases, shapes):
        with world.learners():
            call = call_learner(fn, case.args, exercise.params, exercise.time_limit, use_alarm=use_alarm,
                                forbidden=forbidden, reader=_reader(exercise.outputs, case_shapes))
        calls.append(call)
        if call.forbidden or call.timed_out or call.error is not None or call.unwatched:
            break
        if call.result.problem is not None:
            break
    printed_chars = sum(c.printed_chars for c in calls)
    printed = next((c.printed for c in calls if c.printed), "")
    warning = next((c.warning for c in calls if c.warning), "")
    notes = _notes(exercise, printed_chars, printed, warning)
    last, index = calls[-1], len(calls)
    head = _case_lines(exercise, cases[index - 1], index, total)

    if last.forbidden:
        lines = [f"✘ 你的函数调用了 {'、'.join(last.forbidden)}：判分拿它当参考答案，调用它就是拿答案对答案；"
                 "这道题要你自己把它写出来。",
                 f"  提示：{exercise.forbidden_hint or '照题目里的步骤自己算；卡住了可以看参考写法（见题目里的说明）。'}"]
        return False, "\n".join(lines + notes), "forbidden"
    if index == 1 and last.result is not None and last.result.problem is not None \
            and last.result.problem.name == "unreadable" and str(last.result.problem).startswith("返回值是 None"):
        return None, _unanswered_stub(exercise, total), None

    # the expected values, only now that the learner's calls are over; each case at its own precision:
    # float32 where its input or the learner's result is float32, else the exercise's float64 tolerance
    results = []
    for i, call in enumerate(calls, start=1):
        if call.result is None or call.result.got is None:
            continue
        case, got = cases[i - 1], call.result.got
        exact = _exact(exercise, case)
        precisions = _judged_precisions(case, call.result.precisions, len(exact))
        tols = _tolerances(exercise, case, exact, precisions)
        ok, stepped = _close_each(got, exact, tols), False
        if not all(ok) and np.float32 not in precisions:
            step = _tolerances(exercise, case, exact, (np.float32,) * len(exact), FLOAT32_STEP_ULPS)
            if all(_close_each(got, exact, step)):
                tols, ok, stepped = step, [True] * len(ok), True
        results.append(_Result(case, i, got, exact, tols, ok, precisions, stepped))

    failing = [r for r in results if not all(r.ok)]
    if failing:
        first = failing[0]
        name, hint = _diagnose(exercise, results)
        fhead = _case_lines(exercise, first.case, first.index, total)
        lines = ["✘ 还不对。" + fhead[0], fhead[1]]
        for label, g, e, fine, (r, a) in zip(exercise.outputs, first.got, first.exact, first.ok, first.tols):
            if fine:
                lines.append(f"  {label}：对")
            else:
                g = _fit(g, e)
                row = first_difference(g, e, r, a)
                lines.append(f"  {label} 应得：{show_array(e, row)}")
                lines.append(f"  {label} 你的：{show_array(g, row)}")
        lines.append(f"  提示：{hint}")
        return False, "\n".join(lines + _float32_note([first]) + notes), name

    if last.timed_out:
        lines = [_timeout_line(index, exercise.time_limit, last.seconds), *head[1:],
                 "  提示：两种可能：一个停不下来的循环（while 的条件永远成立？），或者一步计算太重（比如造了一个很大的矩阵、"
                 "循环了太多次，或者在 time.sleep / input() 里等）。这些输入都很小，参考写法每组不到 1 毫秒。"]
        return False, "\n".join(lines + notes), "timeout"
    if last.error is not None:
        lines = [f"✘ 你的函数出错了（第 {index} 组，共 {total} 组：{cases[index - 1].label}）", *head[1:],
                 f"  错误：{last.error_text}"]
        if last.error_line:
            lines.append(f"  出错的一行：{last.error_line}")
        lines.append(f"  提示：{_error_hint(exercise, cases[index - 1], last, fn, results)}")
        return False, "\n".join(lines + notes), "error"
    if last.unwatched:
        lines = [f"⚠ 判分没能看住你的函数：运行时，{'、'.join(last.unwatched)}被拿掉了（第 {index} 组）。",
                 "  所以这次不判对错。去掉函数里改动 sys.setprofile / sys.settrace / signal 的代码，再运行一次。"]
        return None, "\n".join(lines + notes), "unwatched"
    if last.result.problem is not None:
        problem = last.result.problem
        lines = [f"✘ 第 {index} 组的返回值读不了（共 {total} 组：{cases[index - 1].label}）", *head[1:],
                 f"  提示：{problem}", f"  要写的是 {sig}，{returns_clause(exercise)}。"]
        return False, "\n".join(lines + notes), problem.name
    mutated = next((c for c in calls if c.mutated), None)
    if mutated is not None:
        i = calls.index(mutated)
        names = "、".join(mutated.mutated)
        lines = [f"✘ 结果对，但你的函数改写了传进来的参数 {names}（第 {i + 1} 组：{cases[i].label}）。",
                 "  判分时传的是副本；在笔记本里，这会悄悄改掉你的数据，后面的单元再用它就错了。",
                 f"  提示：{mutated.mutated[0]} -= …、{mutated.mutated[0]} *= …、{mutated.mutated[0]}[...] = … 会原地修改；"
                 f"写成 {mutated.mutated[0]} = {mutated.mutated[0]} - …，或者先 {mutated.mutated[0]} = {mutated.mutated[0]}.copy()。"]
        return False, "\n".join(lines + notes), "mutation"
    lines = [f"✔ 全部 {total} 组都对了：{sig} 和参考实现的结果一致（{_tolerance_words(exercise, results)}）。"]
    return True, "\n".join(lines + _float32_note(results) + notes), None


remember_originals()
