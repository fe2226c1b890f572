"""One call of the learner's function, in a sandbox: copies of the arguments, printing and warnings
captured, under the :mod:`~helpers.grading.watch` (time limit, stop button, forbidden calls).

:func:`call_learner` never raises because of the learner's function: an exception is kept with one
line of text (type and message, and the learner's line where it happened; no traceback); printing is
captured (at most :data:`KEPT_CHARS` characters kept) and counted, not shown; the arguments are
copies and which of them the function modified in place is noted; warnings are recorded, not shown.
The capture is a C-level text buffer (:class:`_Sink`), so printing costs what printing to a file
costs. Only ``KeyboardInterrupt`` (the learner pressing stop) goes through. :func:`quiet` runs a
known-wrong implementation (a usual mistake) the same way, without the watch.
"""
from __future__ import annotations

import builtins
import codecs
import contextlib
import copy
import dataclasses
import io
import linecache
import sys
import threading
import tracemalloc
import types
import warnings
from dataclasses import dataclass, field

import numpy as np

from .clock import Limit
from .originals import THREADS_AT_IMPORT
from .stopped import where_raised
from .watch import Stopped, TimeUp, Watch, guarded

#: characters of the learner's printing kept (the rest is counted and dropped)
KEPT_CHARS = 2_000
#: bytes of the learner's printing buffered before they are counted (see :class:`_Sink`)
SINK_BUFFER = 1 << 20
#: bytes decoded at a time when the buffer is counted: what counting allocates stays small beside what a
#: learner's function is allowed (07-4's fast memory traces every allocation during the call)
KEPT_CHUNK = 1 << 14


class _Kept(io.RawIOBase):
    """Where :class:`_Sink`'s buffer lands, a chunk at a time: counts the characters, keeps the first
    :data:`KEPT_CHARS` (constant memory however much is printed)."""

    def __init__(self):
        self.kept, self.count, self.kept_chars = [], 0, 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self):
        return True

    def write(self, data):
        view = memoryview(data)
        for start in range(0, len(view), KEPT_CHUNK):  # small pieces: a flush allocates little at a time
            text = self._decoder.decode(view[start:start + KEPT_CHUNK].tobytes())
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
    """What one call did: ``result`` (or ``error``, or ``timed_out`` with what the clock saw,
    ``stopped``), its CPU ``seconds`` and ``wall`` seconds (the learner's function alone) and those of
    reading the result, the limits it ran under, the printed text (``printed``, ``printed_chars``),
    the first warning, which arguments it modified, which forbidden helpers it called, and
    ``unwatched``: what the checker installed and the code removed."""

    result: object = None
    error: BaseException | None = None
    #: the type of the exception the learner's function raised (kept when reading that exception timed out)
    raised: str = ""
    error_line: str = ""
    error_text: str = ""
    timed_out: bool = False
    #: the learner's function alone: CPU seconds of its thread, and wall seconds
    seconds: float = 0.0
    wall: float = 0.0
    #: reading what came back (the checker's work on the learner's result)
    read_seconds: float = 0.0
    read_wall: float = 0.0
    limit: Limit | None = None
    read_limit: Limit | None = None
    stopped: Stopped | None = None
    #: ``(before, set by the call)`` when the call changed the recursion limit (put back since)
    recursion_limit: tuple = ()
    printed: str = ""
    printed_chars: int = 0
    #: whether threads other than the kernel's were alive (what was printed may be theirs)
    other_threads: bool = False
    warning: str = ""
    mutated: tuple = ()
    #: ``{name: value after the call}`` of every argument the call modified
    after: dict = field(default_factory=dict)
    forbidden: tuple = ()
    unwatched: tuple = ()


def _same(a, b) -> bool:
    """Whether an argument is unchanged: arrays by value, containers (tuple, list, dict, dataclass) of
    arrays item by item, anything else by ``==``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
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
    """The deepest line of the learner's own code in ``exc``'s traceback (``"return …"``), found by
    walking the traceback, not formatting it: a RecursionError's holds a million frames after
    ``sys.setrecursionlimit(10**6)``."""
    filename = getattr(code, "co_filename", None)
    tb, last = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    return linecache.getline(filename, last.tb_lineno, last.tb_frame.f_globals).strip()

def _error_text(exc: BaseException) -> str:
    """``"TypeError: …"`` (first line, at most 200 characters)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:200] if text else ''}"


def _warning_text(caught: list) -> str:
    return str(caught[0].message).splitlines()[0][:120] if caught and str(caught[0].message) else ""


def call_learner(fn, args: tuple, names: tuple, limit: Limit | None, *, read_limit: Limit | None = None,
                 use_alarm: bool | None = None, forbidden: dict | None = None, reader=None, during=None) -> Call:
    """Call ``fn(*copies of args)`` under the watch (the clock, the stop button, forbidden calls),
    capturing printing and warnings. Everything that touches what the learner's code made — its
    exception's text, its warning, the arguments it may have changed, and ``reader(result)`` (which
    turns the result into plain arrays) — runs under the same watch, so none of it can hang, print or
    leave by ``SystemExit``; it is timed apart (``read_limit``), since its cost is the checker's.
    ``None`` for a limit: no limit. ``KeyboardInterrupt`` (the stop button) is raised again
    afterwards, once everything the call may have changed is back (:func:`_kernel_kept`)."""
    copies = tuple(copy.deepcopy(a) for a in args)
    sink, out = _Sink(), Call(limit=limit, read_limit=read_limit)
    saved_hook = sys.unraisablehook
    watch = Watch(limit, use_alarm, forbidden or {})
    caught: list = []

    def whole_call():  # only the checker's own lines here: context managers stay outside the watch
        try:
            with during if during is not None else contextlib.nullcontext():  # around the learner's call only
                result, error = fn(*copies), None
        except (TimeUp, KeyboardInterrupt):
            raise
        except BaseException as exc:  # noqa: BLE001 — SystemExit too: the learner's code, reported
            result, error = None, exc
        watch.lap("reading", read_limit)
        if error is not None:
            out.raised = type(error).__name__
            out.error, out.error_text = error, _error_text(error)
            out.error_line = _learner_line(error, getattr(fn, "__code__", None))
        elif reader is not None:
            result = reader(result)
        out.result = result
        out.warning = _warning_text(caught)
        out.mutated = tuple(n for n, a, c in zip(names, args, copies) if not _same(a, c))
        out.after = {n: copy.deepcopy(c) for n, c in zip(names, copies) if n in out.mutated}

    with _kernel_kept(out):
        with warnings.catch_warnings(record=True) as recorded, np.errstate(over="warn", invalid="warn",
                                                                            divide="warn", under="ignore"):
            warnings.simplefilter("always")
            caught = recorded
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                # list.append is C: an exception that cannot propagate (raised in a __del__) is noted
                # without entering a Python frame, which would take the stop's pending exception itself
                ignored: list = []
                sys.unraisablehook = ignored.append
                how, value = guarded(watch, whole_call, ())
                sys.unraisablehook = saved_hook
                _report_ignored(ignored, sink)
        out.seconds, out.wall = watch.used.get("call", (0.0, 0.0))
        out.read_seconds, out.read_wall = watch.used.get("reading", (0.0, 0.0))
        if watch.raising is KeyboardInterrupt:
            raise KeyboardInterrupt
    out.stopped = watch.stopped or _overran(out)
    if watch.raising is TimeUp or (how == "raised" and isinstance(value, TimeUp)) or out.stopped is not None:
        out.timed_out = True
        out.stopped = out.stopped or Stopped("call", "cpu", out.seconds, out.wall)
        ended = out.error if out.error is not None else value if how == "raised" else None
        if out.stopped.where is None and ended is not None:  # it ended by itself (RecursionError), past the limit
            out.stopped = dataclasses.replace(out.stopped, where=where_raised(ended))
    elif how == "raised":  # something escaped while reading the result (its __array__, __str__, …)
        out.error, out.result = value, None
        try:
            out.error_text = _error_text(value)
        except BaseException:  # noqa: BLE001 — its message is the learner's object too
            out.error_text = type(value).__name__
    if out.timed_out:
        out.result, out.error = None, None
    out.printed, out.printed_chars = sink.text(), sink.count
    # stdout is the process's: a thread started by an earlier cell of theirs prints into the sink too
    here = threading.current_thread()
    out.other_threads = any(t is not here and t not in THREADS_AT_IMPORT for t in threading.enumerate())
    out.forbidden = tuple(watch.seen)
    out.unwatched = watch.stopped_watching()
    return out


def _report_ignored(ignored: list, sink) -> None:
    """Write to the learner's output what CPython would have printed for each exception their code
    raised where it could not propagate (a ``__del__``), as one line naming its type; the stop's own
    exception landing in such a place (TimeUp, KeyboardInterrupt) is the checker's doing, not output
    of theirs. Only type names are read: the object's ``repr`` and the exception's text are the
    learner's code, which could run for ever outside the watch."""
    for hook_args in ignored:
        if hook_args.exc_type is None or issubclass(hook_args.exc_type, (TimeUp, KeyboardInterrupt)):
            continue
        thing = hook_args.object
        where = (thing.__qualname__ if isinstance(thing, types.FunctionType) else
                 type(thing).__name__ if thing is not None else "?")
        sink.write(f"Exception ignored in: <{where}>: {hook_args.exc_type.__name__}\n")
    ignored.clear()


def _overran(out: Call) -> Stopped | None:
    """A phase past its limit that the watchdog had no chance to stop (one call inside C that held
    the interpreter until it returned): a time-out all the same, stated with the time it took."""
    for phase, cpu, wall, limit in (("call", out.seconds, out.wall, out.limit),
                                    ("reading", out.read_seconds, out.read_wall, out.read_limit)):
        if limit is not None and (cpu > limit.cpu or wall > limit.wall):
            return Stopped(phase, "cpu" if cpu > limit.cpu else "wall", cpu, wall)
    return None


@contextlib.contextmanager
def _kernel_kept(out: Call):
    """What the learner's code may change in the kernel, put back after the call whatever happened
    (the stop button included): ``builtins.print`` (replaced, it would hide every later message),
    ``sys.stdout``/``sys.stderr`` (also put back by the capture), ``sys.unraisablehook`` and
    ``sys.excepthook``, numpy's print options (a verdict shows arrays with them), the recursion limit (``out.recursion_limit``
    notes a changed one), and :mod:`tracemalloc` when the call left it tracing."""
    saved_print, saved_out, saved_err = builtins.print, sys.stdout, sys.stderr
    saved_hooks = sys.unraisablehook, sys.excepthook
    saved_limit, tracing = sys.getrecursionlimit(), tracemalloc.is_tracing()
    saved_printing = np.get_printoptions()
    try:
        yield
    finally:
        builtins.print, sys.stdout, sys.stderr = saved_print, saved_out, saved_err
        sys.unraisablehook, sys.excepthook = saved_hooks
        if np.get_printoptions() != saved_printing:
            np.set_printoptions(**saved_printing)
        if sys.getrecursionlimit() != saved_limit:
            out.recursion_limit = (saved_limit, sys.getrecursionlimit())
            sys.setrecursionlimit(saved_limit)
        if tracemalloc.is_tracing() and not tracing:
            tracemalloc.stop()


@dataclass(frozen=True)
class Raised:
    """What a known-wrong implementation raised (its exception is its signature)."""

    error: BaseException


def quiet(fn, args):
    """A known-wrong implementation's result on copies of ``args`` (a :class:`Raised` if it raises)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*copy.deepcopy(args))
    except Exception as exc:  # noqa: BLE001 — a wrong implementation may raise: that is its signature
        return Raised(exc)
