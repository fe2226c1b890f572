"""Checking a function the learner wrote: the engine behind ``helpers.exercises.check_code`` (plumbing).

A code exercise (:class:`CodeExercise`) names the function the learner writes (its signature and
what it returns), a seeded list of :class:`Case` s (small readable ones first, then random ones,
then the edge cases the idea is about), the reference implementation from the lesson module, and
the usual mistakes (:class:`Mistake`): each one a *known-wrong implementation* (or a predicate on
the returned value). :func:`run` calls the learner's function on every case and stops at the first
case it gets wrong; the mistake is recognised by diagnosis — the learner's output on that case is
compared with each wrong implementation's output on the same case, so "equals softmax over axis 0"
gets the hint for that mistake, not a generic message. The answer (in Chinese) shows the case's
input shapes (values too when small), what was expected and what came back (shape, a few values,
how many NaN/inf) and the hint.

:func:`run` never raises because of the learner's function: an exception is reported as one line
(type and message, and the learner's line where it happened; no traceback); ``None``, wrong types,
a wrong number of returned values, wrong shapes, NaN/inf are each named; printing is captured (at
most :data:`KEPT_CHARS` characters kept) and mentioned, not shown; the arguments are copies and a
function that modifies them in place is told so; warnings are recorded, not shown. Only
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
limit takes effect when that call returns, and the case is still reported as too slow. The
exception raised on time-out derives from ``BaseException`` so ``except Exception`` in the
learner's code does not swallow it; a case that overruns anyway is reported as too slow.
"""
from __future__ import annotations

import contextlib
import copy
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

#: seconds one case may take before the learner's function is stopped
TIME_LIMIT = 2.0
#: characters of the learner's printing kept (the rest is counted and dropped)
KEPT_CHARS = 2_000
#: how many values of an array a message shows
SHOWN_VALUES = 6
#: characters of the first printed line shown (longer lines are cut and end in “…”)
PREVIEW_CHARS = 60


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


# ---- the time limit ------------------------------------------------------------------------------
class TimeUp(BaseException):
    """Raised inside the learner's code when its case runs past the time limit (a BaseException,
    so ``except Exception`` in the learner's code does not catch it)."""


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def time_limit(seconds: float, *, use_alarm: bool | None = None):
    """Raise :class:`TimeUp` in the code run inside the block once ``seconds`` have passed.

    ``use_alarm=None`` picks ``signal.setitimer`` when available on the main thread, else the
    ``sys.settrace`` fallback (see the module docstring); ``False`` forces the fallback (tests)."""
    if use_alarm is None:
        use_alarm = _can_alarm()
    if use_alarm:
        def on_alarm(signum, frame):
            raise TimeUp
        previous = signal.signal(signal.SIGALRM, on_alarm)
        start = time.monotonic()
        old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if old_delay:  # someone else's timer was running: give it back what is left of it
                signal.setitimer(signal.ITIMER_REAL, max(old_delay - (time.monotonic() - start), 1e-3), old_interval)
    else:
        deadline = time.monotonic() + seconds
        previous = sys.gettrace()

        def tracer(frame, event, arg):
            if time.monotonic() > deadline:
                raise TimeUp
            return tracer
        sys.settrace(tracer)
        try:
            yield
        finally:
            sys.settrace(previous)


# ---- one call of the learner's function ----------------------------------------------------------
class _Sink(io.TextIOBase):
    """Stands in for stdout/stderr: counts what is written, keeps the first :data:`KEPT_CHARS`."""

    def __init__(self):
        self.kept, self.count = [], 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = KEPT_CHARS - sum(map(len, self.kept))
        if room > 0:
            self.kept.append(text[:room])
        self.count += len(text)
        return len(text)

    def text(self) -> str:
        return "".join(self.kept)


@dataclass
class Call:
    """What one call did: ``result`` (or ``error``, or ``timed_out``), ``seconds``, the printed text
    (``printed``, ``printed_chars``), the first warning, and which arguments it modified."""

    result: object = None
    error: BaseException | None = None
    error_line: str = ""
    timed_out: bool = False
    seconds: float = 0.0
    printed: str = ""
    printed_chars: int = 0
    warning: str = ""
    mutated: tuple = ()
    forbidden: tuple = ()


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
    previous = sys.getprofile()

    def profiler(frame, event, arg):
        if event == "call" and frame.f_code in codes and codes[frame.f_code] not in seen:
            seen.append(codes[frame.f_code])
    sys.setprofile(profiler)
    try:
        yield
    finally:
        sys.setprofile(previous)


def call_learner(fn, args: tuple, names: tuple, limit: float, *, use_alarm: bool | None = None,
                 forbidden: dict | None = None) -> Call:
    """Call ``fn(*copies of args)`` under the time limit, capturing printing and warnings, and noting
    calls of the functions in ``forbidden`` (:func:`forbidden_codes`)."""
    copies = tuple(copy.deepcopy(a) for a in args)
    sink = _Sink()
    out = Call()
    seen: list = []
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught, np.errstate(over="warn", invalid="warn", divide="warn", under="ignore"):
            warnings.simplefilter("always")
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                try:
                    with time_limit(limit, use_alarm=use_alarm), watch_calls(forbidden or {}, seen):
                        out.result = fn(*copies)
                except (TimeUp, KeyboardInterrupt):
                    raise
                except BaseException as exc:  # noqa: BLE001 — SystemExit too: the learner's code, reported
                    out.error = exc
                    out.error_line = _learner_line(exc, getattr(fn, "__code__", None))
        if caught:
            out.warning = str(caught[0].message).splitlines()[0][:120] if str(caught[0].message) else ""
    except TimeUp:
        out.timed_out = True
    out.seconds = time.perf_counter() - start
    if out.seconds > limit:
        out.timed_out, out.result, out.error = True, None, None
    out.printed, out.printed_chars = sink.text(), sink.count
    out.mutated = tuple(n for n, a, c in zip(names, args, copies) if not _same(a, c))
    out.forbidden = tuple(seen)
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
    """The learner's return value cannot be compared; the message is the Chinese hint."""


#: what a value of each kind is called in the messages (a list of numbers counts as an array)
KIND_WORDS = {"number": "一个数", "array": "一个数组"}
_TYPE_WORDS = {"str": "字符串（str）", "bytes": "字节串（bytes）", "dict": "字典（dict）", "set": "集合（set）"}


def _type_word(value) -> str:
    name = type(value).__name__
    return _TYPE_WORDS.get(name, name)


def _as_array(value, what: str, kind: str = "array") -> np.ndarray:
    """``value`` as a float array; lists and tuples of numbers are accepted silently."""
    if value is None:
        raise Unreadable(f"{what}是 None（缺了 return？）。")
    if isinstance(value, (str, bytes, dict, set)):
        raise Unreadable(f"{what}应是{KIND_WORDS[kind]}，收到的是{_type_word(value)}。")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        whole = "一个数" if kind == "number" else "一个整齐的数值数组"
        raise Unreadable(f"{what}不是{whole}（收到的是 {type(value).__name__}）。") from None
    return arr


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


def close(got: tuple, expected: tuple, rtol: float, atol: float) -> list:
    """Per output: ``True`` when shapes agree and values are close (NaN never close)."""
    verdicts = []
    for g, e in zip(got, expected):
        g = _fit(g, e)
        verdicts.append(g.shape == e.shape and bool(np.allclose(g, e, rtol=rtol, atol=atol)))
    return verdicts


def _matches(got: tuple, other: tuple, rtol: float, atol: float, only=None) -> bool:
    idx = range(len(got)) if only is None else [only]
    for i in idx:
        g, o = _fit(got[i], other[i]), other[i]
        if g.shape != o.shape or not np.allclose(g, o, rtol=rtol, atol=atol, equal_nan=True):
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


def _error_hint(exercise: CodeExercise, case: Case, call: Call, fn=None) -> str:
    exc = call.error
    if isinstance(exc, TypeError) and fn is not None:
        signature = _signature_hint(exercise, fn, case)
        if signature:
            return signature
    for mistake in exercise.mistakes:
        if mistake.wrong is None:
            continue
        theirs = _quiet(mistake.wrong, case.args)
        if isinstance(theirs, _Raised) and type(theirs.error) is type(exc) and str(theirs.error) == str(exc):
            return mistake.hint
    if isinstance(exc, SystemExit):
        return "函数里调用了 exit() / sys.exit()：用 return 把结果交回来。"
    return _GENERIC_ERRORS.get(type(exc).__name__, "读一读这条错误信息，在出错的那一行前后打印中间结果的形状和值。")


def _wrong_outputs(exercise: CodeExercise, mistake: Mistake, case: Case, expected: tuple):
    """A known-wrong implementation's outputs on ``case``, or ``None`` when it raises, cannot be
    read, or happens to be right on this case (then it is no evidence)."""
    theirs = _quiet(mistake.wrong, case.args)
    if isinstance(theirs, _Raised):
        return None
    try:
        theirs = read_outputs(theirs, exercise.outputs)
    except Unreadable:
        return None
    if close(theirs, expected, exercise.rtol, exercise.atol) == [True] * len(expected):
        return None
    return theirs


def diagnose(exercise: CodeExercise, case: Case, got: tuple, expected: tuple, more=()) -> tuple:
    """``(mistake name, hint)`` for a wrong result: the known-wrong implementation whose output on
    ``case`` equals the learner's, else the first matching predicate, else a generic hint. When
    several match (an ideal pattern can look the same to two mistakes), ``more`` — the learner's
    ``(case, got)`` on other cases — keeps those that match there too."""
    wrong_index = next(i for i, ok in enumerate(close(got, expected, exercise.rtol, exercise.atol)) if not ok)
    tried = [(m, _wrong_outputs(exercise, m, case, expected)) for m in exercise.mistakes if m.wrong is not None]
    tried = [(m, theirs) for m, theirs in tried if theirs is not None]
    found = [m for m, theirs in tried if _matches(got, theirs, exercise.rtol, exercise.atol)]
    if not found:  # right on the other outputs, this mistake on the wrong one
        found = [m for m, theirs in tried if _matches(got, theirs, exercise.rtol, exercise.atol, only=wrong_index)]
    if len(found) > 1:
        for other_case, other_got in more:
            keep = []
            for m in found:
                theirs = _quiet(m.wrong, other_case.args)
                try:
                    theirs = read_outputs(theirs, exercise.outputs) if not isinstance(theirs, _Raised) else None
                except Unreadable:
                    theirs = None
                if theirs is not None and _matches(other_got, theirs, exercise.rtol, exercise.atol):
                    keep.append(m)
            found = keep or found
            if len(found) == 1:
                break
    if found:
        return found[0].name, found[0].hint
    for mistake in exercise.mistakes:
        if mistake.test is not None:
            try:
                hit = bool(mistake.test(case, got, expected))
            except Exception:  # noqa: BLE001 — a predicate on odd shapes: no evidence
                hit = False
            if hit:
                return mistake.name, mistake.hint
    g, e = _fit(got[wrong_index], expected[wrong_index]), expected[wrong_index]
    if g.shape != e.shape and e.shape == ():
        return "shape", f"应返回一个数，你返回的是形状 {tuple(g.shape)} 的数组：还差最后一步（求和、取平均或取出一个元素）。"
    if g.shape != e.shape:
        return "shape", f"形状不对：应为 {tuple(e.shape)}，你的是 {tuple(g.shape)}。对照题目里写的形状，检查在哪一维上求和、转置或拼接。"
    if not np.isfinite(g).all():
        return "nonfinite", "结果里有 nan 或 inf：找出是哪一步先出现的（打印中间结果），常见原因是 e 的大数次方溢出或 0/0。"
    return "values", "形状对，数值不对：拿这一组输入一步一步打印中间结果，和题目里的公式逐项对照。"


def _more_results(exercise: CodeExercise, fn, cases: list, skip: int, use_alarm):
    """The learner's readable outputs on the cases other than ``skip`` (for telling mistakes apart)."""
    for i, case in enumerate(cases):
        if i == skip:
            continue
        call = call_learner(fn, case.args, exercise.params, exercise.time_limit, use_alarm=use_alarm)
        if call.error is not None or call.timed_out:
            continue
        try:
            got = read_outputs(call.result, exercise.outputs)
        except Unreadable:
            continue
        yield case, got


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


def run(exercise: CodeExercise, fn, *, use_alarm: bool | None = None) -> tuple:
    """``(verdict, message, mistake)`` for the learner's ``fn``: ``True`` when every case is right;
    ``False`` with the first wrong case; ``None`` when ``fn`` is not a function or still the stub
    (returns ``None`` on the first case). ``mistake`` names the diagnosis (``None`` when right or
    unanswered). Never raises because of ``fn`` (``KeyboardInterrupt`` excepted)."""
    sig = exercise.signature
    if not callable(fn):
        shown = type(fn).__name__ if fn is not None else "None"
        return None, (f"⚠ 这里要传入你写的函数本身（函数名，不带括号），例如 check_code(…, {sig.split('(')[0]})；"
                      f"收到的是 {shown}。"), None
    cases = list(exercise.cases())
    total = len(cases)
    forbidden = forbidden_codes(exercise.forbidden)
    printed_chars, printed, warning = 0, "", ""
    for index, case in enumerate(cases, start=1):
        expected = exercise.reference(*copy.deepcopy(case.args))
        expected = tuple(np.asarray(e, dtype=float) for e in (expected if len(exercise.outputs) > 1 else (expected,)))
        call = call_learner(fn, case.args, exercise.params, exercise.time_limit, use_alarm=use_alarm,
                            forbidden=forbidden)
        printed_chars += call.printed_chars
        printed = printed or call.printed
        warning = warning or call.warning
        head = _case_lines(exercise, case, index, total)
        if call.forbidden:
            lines = [f"✘ 你的函数调用了 {'、'.join(call.forbidden)}：判分拿它当参考答案，调用它就是拿答案对答案；"
                     "这道题要你自己把它写出来。",
                     f"  提示：{exercise.forbidden_hint or '照题目里的步骤自己算；卡住了可以看参考写法（见题目里的说明）。'}"]
            return False, "\n".join(lines + _notes(exercise, printed_chars, printed, warning)), "forbidden"
        if index == 1 and call.error is None and not call.timed_out and call.result is None:
            return None, (f"⚠ 还没有写好：{sig} 返回了 None（函数体还是 ...，或者缺了 return）。\n"
                          f"判分会依次试 {total} 组输入，每组最多 {exercise.time_limit:.0f} 秒：{describe_cases(exercise)}。\n"
                          "写好后再运行这个单元；卡住了可以看参考写法（见上面的说明）。"), None
        if call.timed_out:
            lines = [f"✘ 超时：第 {index} 组算了 {exercise.time_limit:.0f} 秒还没结束（每组的上限），已经停下。",
                     *head[1:], "  提示：有没有停不下来的循环（while 的条件永远成立）？这些输入都很小，不需要循环很多次。"]
            return False, "\n".join(lines + _notes(exercise, printed_chars, printed, warning)), "timeout"
        if call.error is not None:
            message = f"{type(call.error).__name__}: {str(call.error).strip().splitlines()[0][:200] if str(call.error).strip() else ''}"
            lines = [f"✘ 你的函数出错了（第 {index} 组，共 {total} 组：{case.label}）", *head[1:], f"  错误：{message}"]
            if call.error_line:
                lines.append(f"  出错的一行：{call.error_line}")
            lines.append(f"  提示：{_error_hint(exercise, case, call, fn)}")
            return False, "\n".join(lines + _notes(exercise, printed_chars, printed, warning)), "error"
        try:
            got = read_outputs(call.result, exercise.outputs, tuple("number" if e.ndim == 0 else "array" for e in expected))
        except Unreadable as hint:
            lines = [f"✘ 第 {index} 组的返回值读不了（共 {total} 组：{case.label}）", *head[1:], f"  提示：{hint}",
                     f"  要写的是 {sig}，{returns_clause(exercise)}。"]
            return False, "\n".join(lines + _notes(exercise, printed_chars, printed, warning)), "unreadable"
        ok = close(got, expected, exercise.rtol, exercise.atol)
        if not all(ok):
            name, hint = diagnose(exercise, case, got, expected,
                                  _more_results(exercise, fn, cases, index - 1, use_alarm))
            lines = ["✘ 还不对。" + head[0], head[1]]
            for label, g, e, fine in zip(exercise.outputs, got, expected, ok):
                if fine:
                    lines.append(f"  {label}：对")
                else:
                    g = _fit(g, e)
                    row = first_difference(g, e, exercise.rtol, exercise.atol)
                    lines.append(f"  {label} 应得：{show_array(e, row)}")
                    lines.append(f"  {label} 你的：{show_array(g, row)}")
            lines.append(f"  提示：{hint}")
            return False, "\n".join(lines + _notes(exercise, printed_chars, printed, warning)), name
        if call.mutated:
            names = "、".join(call.mutated)
            lines = [f"✘ 结果对，但你的函数改写了传进来的参数 {names}（第 {index} 组：{case.label}）。",
                     "  判分时传的是副本；在笔记本里，这会悄悄改掉你的数据，后面的单元再用它就错了。",
                     f"  提示：{call.mutated[0]} -= …、{call.mutated[0]} *= …、{call.mutated[0]}[...] = … 会原地修改；"
                     f"写成 {call.mutated[0]} = {call.mutated[0]} - …，或者先 {call.mutated[0]} = {call.mutated[0]}.copy()。"]
            return False, "\n".join(lines + _notes(exercise, printed_chars, printed, warning)), "mutation"
    lines = [f"✔ 全部 {total} 组都对了：{sig} 和参考实现的结果一致（相对误差 ≤ {exercise.rtol:g}）。"]
    return True, "\n".join(lines + _notes(exercise, printed_chars, printed, warning)), None
