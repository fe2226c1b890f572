"""The grader you can trust (helpers.exercises.check_code): learners' wrong versions of every code
exercise (tests/support/grader_corpus.py, written apart from the exercises' lists of known mistakes)
are rejected with a hint that is true of them, right versions written differently are accepted; and
code that fights the checker (swallows BaseException, prints 100,000 lines, reassigns what the
checker uses, returns complex, float16, an object whose __array__ exits, a giant array) neither hangs
it, nor fools it, nor leaves it broken for the next answer."""
import builtins
import contextlib
import io
import os
import signal
import sys
import threading
import time

import numpy as np
import pytest
import runaways
from grader_corpus import CORPUS, GENERIC
from sampling import first_of_each
from unfolded import Unfolded

import helpers
from helpers import exercises
from helpers.exercises import CODE_EXERCISES
from helpers.grading import code_check, compare, messages, originals, sandbox, watch

WRONG = [(key, label, fn, allowed) for key, (wrong, _) in CORPUS.items() for label, fn, allowed in wrong]
RIGHT = [(key, i, fn) for key, (_, right) in CORPUS.items() for i, fn in enumerate(right)]


pytestmark = pytest.mark.usefixtures("as_in_a_kernel")  # as in a learner's kernel (tests/conftest.py)


def _run(key, fn):
    ok, message, mistake = code_check.run(CODE_EXERCISES[key], fn)
    assert "Traceback" not in message
    return ok, message, mistake


def _passes_in_a_fresh_interpreter(script: str) -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_corpus_is_large_enough():
    for key in CODE_EXERCISES:
        wrong, right = CORPUS[key]
        assert len(wrong) >= 12 and len(right) >= 3, key


# fast: two wrong versions and one right version of each exercise; make test: all of them
@pytest.mark.parametrize("key, label, fn, allowed", first_of_each(WRONG, lambda case: case[0], keep=2,
                                                                 ids=[f"{k}-{lab}" for k, lab, _, _ in WRONG]))
def test_every_wrong_version_is_rejected_with_a_hint_true_of_it(key, label, fn, allowed):
    ok, message, mistake = _run(key, fn)
    assert ok is False, message
    assert mistake in allowed, (mistake, message)
    if mistake not in GENERIC and mistake not in ("mutation", "complex", "float16", "forbidden"):
        hint = next(m.hint for m in CODE_EXERCISES[key].mistakes if m.name == mistake)
        assert "提示：" + hint in message


@pytest.mark.parametrize("key, i, fn", first_of_each(RIGHT, lambda case: case[0],
                                                     ids=[f"{k}-right{i}" for k, i, _ in RIGHT]))
def test_every_right_version_is_accepted(key, i, fn):
    ok, message, _ = _run(key, fn)
    assert ok is True, message


def test_a_float32_solution_is_judged_at_float32_precision_and_told():
    ok, message, _ = _run("05-3", CORPUS["05-3"][1][3])
    assert ok is True and "float32" in message and "按 float32 的精度判" in message


# ---- hostile code ----------------------------------------------------------------------------------
def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


FAST = {"time_floor": 0.3}


def _fast(key="03-3"):
    import dataclasses

    return dataclasses.replace(CODE_EXERCISES[key], **FAST)


@pytest.mark.parametrize("fn", [runaways.swallows_everything, runaways.recurses_in_handler,
                                runaways.sleeps_in_handler])
@pytest.mark.parametrize("use_alarm", [True, False], ids=["signal", "tracer"])
def test_a_function_that_swallows_the_time_out_is_still_stopped(fn, use_alarm):
    if fn is runaways.sleeps_in_handler and not use_alarm:
        pytest.skip("a trace function cannot cut a sleep short (documented)")
    if fn is runaways.recurses_in_handler and not use_alarm:
        pytest.skip("off the main thread a RecursionError inside the tracer unsets it and nothing re-installs it "
                    "(documented in helpers/grading/watch.py)")
    before = signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGINT), sys.gettrace(), sys.getprofile()
    start, wall = time.thread_time(), time.perf_counter()
    ok, message, mistake = code_check.run(_fast(), fn, use_alarm=use_alarm)
    assert (ok, mistake) == (False, "timeout"), message
    if fn is runaways.sleeps_in_handler:  # no CPU used: idle as long as it may compute, 15 s of slack for a loaded machine
        assert time.perf_counter() - wall < FAST["time_floor"] + 15
    else:  # the bound is in the learner's CPU time: the same on a loaded machine
        assert time.thread_time() - start < watch.stop_bound(FAST["time_floor"]) + 0.2
    assert (signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGINT), sys.gettrace(), sys.getprofile()) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert code_check.run(CODE_EXERCISES["03-3"], _softmax)[0] is True  # nothing left behind


@pytest.mark.parametrize("kernel_sigint", [signal.default_int_handler, signal.SIG_IGN],
                         ids=["a learner's kernel", "started in the background"])
def test_the_stop_button_still_works_inside_a_swallowing_loop(kernel_sigint):
    """Pressed mid-check, the stop button stops a loop that swallows everything, and SIGINT's handler is
    what it was before: Python's own in a learner's kernel; SIG_IGN where the process was started in the
    background by a shell without job control (POSIX ignores SIGINT there), as a CI job may be."""
    previous = signal.signal(signal.SIGINT, kernel_sigint)
    try:
        timer = threading.Timer(0.2, lambda: signal.pthread_kill(threading.main_thread().ident, signal.SIGINT))
        timer.start()
        start = time.thread_time()
        with pytest.raises(KeyboardInterrupt):
            code_check.run(CODE_EXERCISES["03-3"], runaways.swallows_everything)
        timer.join()
        # the loop's CPU time until the button (at most the 0.2 s before it), then the stop's bound
        assert time.thread_time() - start < 0.2 + watch.STOP_GRACE + 0.2
        assert signal.getsignal(signal.SIGINT) is kernel_sigint
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_correct_function_that_prints_100000_lines_passes():
    def chatty(x):
        for i in range(100_000):
            print("第", i, "行")
        return _softmax(x)
    # the same printing into a file first, in this process now: what a print costs here (a busy machine,
    # a large heap after other tests) is the yardstick, not a fixed number of seconds
    start = time.thread_time()
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        chatty(np.zeros(3))
    to_a_file = time.thread_time() - start
    start = time.thread_time()
    ok, message, _ = code_check.run(CODE_EXERCISES["03-3"], chatty)
    per_case = (time.thread_time() - start) / len(CODE_EXERCISES["03-3"].cases())
    # the capture costs about twice a file (its buffer and count, the case's own work); waking the
    # forbidden-call profiler at every write made it ≈ 7 times
    assert ok is True and "打印了" in message and per_case < 4 * to_a_file, (per_case, to_a_file)
    assert "第 0 行" in message  # the first printed line is still shown


def test_the_stop_landing_in_a_del_is_not_told_as_printing_and_the_learners_own_error_there_is():
    """CPython prints "Exception ignored in: …" to stderr for an exception raised where it cannot
    propagate (a ``__del__``): when that exception is the checker's stop, it is not the learner's output;
    their own error there is (as one line naming it), and the kernel's hook is back afterwards."""
    hook = sys.unraisablehook

    def loops_in_del(x):
        class Slow:
            def __del__(self):
                while True:
                    pass
        Slow()
        while True:
            pass

    def raises_in_del(x):
        class Noisy:
            def __del__(self):
                raise ValueError("from __del__")
        Noisy()
        return _softmax(x)
    ok, message, mistake = code_check.run(_fast(), loops_in_del)
    assert (ok, mistake) == (False, "timeout") and "打印了" not in message and "Exception" not in message
    ok, message, _ = code_check.run(_fast(), raises_in_del)
    message = Unfolded(message)
    assert ok is True and "打印了" in message and "Exception ignored in: <" in message
    printed = sandbox.call_learner(raises_in_del, (np.ones(3),), ("x",), None).printed
    assert printed.endswith("raises_in_del.<locals>.Noisy.__del__>: ValueError\n")
    assert sys.unraisablehook is hook


def test_the_state_a_checked_function_changes_is_put_back():
    """threading's trace hook, sys.excepthook and numpy's print options, changed by the learner's function,
    are as before once the check is over."""
    before = (threading.gettrace(), sys.excepthook, np.get_printoptions())

    def meddles(x):
        threading.settrace(lambda *a: None)
        sys.excepthook = lambda *a: None
        np.set_printoptions(precision=2)
        return _softmax(x)
    ok, message, _ = code_check.run(_fast(), meddles)
    assert ok is True and (threading.gettrace(), sys.excepthook, np.get_printoptions()) == before


def test_printing_while_a_thread_of_an_earlier_cell_runs_is_not_said_to_be_the_functions_alone():
    """stdout is the process's: a thread started in an earlier cell prints into the capture too."""
    stop = threading.Event()

    def ticks():
        while not stop.is_set():
            print("tick")
            time.sleep(0.001)
    worker = threading.Thread(target=ticks, daemon=True)
    worker.start()
    try:
        ok, message, _ = code_check.run(_fast(), _softmax)
    finally:
        stop.set()
        worker.join()
    message = Unfolded(message)
    assert ok is True and "你的函数或同时在运行的别的线程打印了" in message and "（你的函数打印了" not in message


def test_stopped_in_nested_loops_every_loop_is_named_and_a_while_is_asked_about():
    """A bounded for loop inside a helper, called from an endless while: the while is the one asked about."""
    def series(v):
        total, term = 1.0, 1.0
        for k in range(1, 400):
            term *= v / k
            total += term
        return total

    def endless(x):
        done = False
        while not done:
            e = np.array([series(v) for v in np.ravel(x)])
        return e
    first = endless.__code__.co_firstlineno
    ok, message, mistake = code_check.run(_fast(), endless)
    message = Unfolded(message)
    # stopped inside the helper's loop (almost always: it is nearly all the work) or in the while's own line
    assert (ok, mistake) == (False, "timeout") and f"{first + 2} 行开始的循环" in message
    assert "while 循环" in message and "它的条件会变成假吗" in message and "这个 for 循环" not in message
    if "外面还有" in message:
        assert f"第 {first + 2} 行的 while 循环：它的条件会变成假吗" in message


def test_a_comprehension_running_for_long_is_not_said_to_have_just_been_entered():
    ok, message, mistake = code_check.run(_fast(), lambda x: [v * v for v in range(10**10)])
    message = Unfolded(message)
    assert (ok, mistake) == (False, "timeout") and "刚进入" not in message and "for 循环" in message


def test_an_exception_whose_text_never_ends_is_told_as_raised_not_returned():
    class Endless(Exception):
        def __str__(self):
            while True:
                pass

    def raises(x):
        raise Endless()
    ok, message, mistake = code_check.run(_fast(), raises)
    message = Unfolded(message)
    assert (ok, mistake) == (False, "timeout") and "你的函数抛出了 Endless" in message and "__str__" in message
    assert "你的函数返回了" not in message and "不要返回自己定义的对象" not in message


def test_a_full_fast_memory_is_not_told_as_a_shape_mismatch():
    from helpers.tiled import FastMemory

    def keeps_every_tile(mem, bq, bk):
        kept = [mem.load("k", ks, ks + bk) for ks in range(0, mem.n, bk)]
        return kept
    ok, message, mistake = code_check.run(
        CODE_EXERCISES["07-4"], lambda mem, bq, bk: keeps_every_tile(FastMemory(*[np.ones((64, 4))] * 3, 32), bq, bk))
    assert ok is False and "快速内存放不下这个数组" in message and "两个形状对不上" not in message


def test_a_time_out_names_only_what_the_clock_saw():
    """A sleep is told as waiting, on its line, with the time measured; a loop as a loop on its line;
    neither is told the other's cause, nor a numpy one it does not contain."""
    ok, message, mistake = code_check.run(_fast(), lambda x: time.sleep(10))
    message = Unfolded(message)  # read as one line: wrap_text folds long lines
    assert (ok, mistake) == (False, "timeout") and "你的函数还没有结束，已经停下；其中有" in message
    assert "它几乎没有用 CPU" in message and "time.sleep(10) 这一次调用里" in message and "在等" in message
    assert "循环" not in message and "numpy" not in message and "C 代码" not in message
    ok, message, mistake = code_check.run(_fast(), runaways.swallows_everything)
    message = Unfolded(message)
    assert (ok, mistake) == (False, "timeout") and "的 CPU 时间还没有算完，已经停下" in message
    assert "开始的循环里" in message and "while 循环：它的条件会变成假吗" in message  # two nested whiles
    assert "time.sleep" not in message and "在等" not in message and "numpy" not in message
    assert "参考写法这一组在这台机器上刚用了" in message and "上限是它的 50 倍、至少 0.3 秒" in message


def test_a_for_loop_that_runs_too_long_is_not_asked_whether_its_condition_turns_false():
    """A ``for`` loop ends when its sequence does: the hint asks how many rounds and how much each does."""
    def one_number_at_a_time(x):
        total = 0.0
        for i in range(10**12):
            total += float(i) ** 0.5
        return x
    ok, message, mistake = code_check.run(_fast(), one_number_at_a_time)
    message = Unfolded(message)
    assert (ok, mistake) == (False, "timeout") and "开始的循环里" in message
    assert "这个 for 循环没有在上限内走完：它要走的圈数太多" in message and "条件会变成假" not in message


def test_a_long_call_inside_c_is_reported_with_the_time_it_really_took():
    import dataclasses

    exercise = dataclasses.replace(CODE_EXERCISES["03-3"], time_floor=0.05)
    start = time.thread_time()
    ok, message, mistake = code_check.run(exercise, lambda x: sum(range(20_000_000)))  # one C call, no checks
    took, message = time.thread_time() - start, Unfolded(message)
    assert (ok, mistake) == (False, "timeout"), message
    # honest either way: a late stop is stated with the CPU time it really took, and the step it was in;
    # no late stop, no claim (how long the C call runs varies by machine)
    if "又过了 " in message:
        stated = "".join(message.split()).split("一共用了")[1].split("的CPU时间")[0]  # "850毫秒", "1.2秒"
        seconds = float(stated.rstrip("毫秒")) * (1e-3 if "毫秒" in stated else 1.0)
        assert 0.05 + messages.LATE_STOP <= seconds + 0.01 and seconds <= took + 0.01, message
        assert "sum(range(20_000_000)) 这一步正在 C 代码里算" in message and "已经停下" not in message
    else:
        assert "C 代码" not in message and took < 0.05 + messages.LATE_STOP + 0.3, (took, message)


def _softmax_keeping_dtype(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _float32_cases(key="03-3"):
    return [i for i, c in enumerate(CODE_EXERCISES[key].cases(), start=1)
            if any(getattr(a, "dtype", None) == np.float32 for a in c.args)]


def test_precision_is_judged_and_told_per_case():
    groups = _float32_cases()
    assert groups  # the float32-input case the note is about
    ok, message, _ = _run("03-3", _softmax_keeping_dtype)
    assert ok is True and "你的结果是 float32" not in message
    assert f"第 {'、'.join(map(str, groups))} 组按 float32 的精度判（输入是 float32）" in message
    assert "其余各组按 float64 判" in message and "相对误差 ≤ 1e-09" in message
    ok, message, _ = _run("03-3", lambda x: x)  # fails on the first (float64) case
    assert ok is False and "float32" not in message


def test_a_float64_case_keeps_the_float64_tolerance():
    # ε = 1e-5 in the denominator: within 64 float32 units on [1000, 0, −1000], ten times the float64 rtol
    ok, message, mistake = _run("03-3", lambda x: (lambda e: e / (e.sum(-1, keepdims=True) + 1e-5))(
        np.exp(x - x.max(-1, keepdims=True))))
    assert ok is False and mistake in ("values", "small_difference") and "float32" not in message.split("提示：")[0]


def test_the_kv_head_order_hint_describes_the_output_not_a_call():
    from grader_corpus import GQA_WRONG

    fn = next(f for label, f, _ in GQA_WRONG if label == "KV heads concatenated r times")  # h % KV, no np.tile
    ok, message, mistake = _run("06-3", fn)
    assert (ok, mistake) == (False, "tile") and "h % KV 头数" in message and "np.tile 把" not in message


@pytest.mark.parametrize("key, fn", [
    ("12-2", lambda A, T: 0.0),
    ("13-3", lambda A, B, rows: 0.0),
    ("13-3", lambda A, B, rows: float(0.5 * np.abs(A[rows] - A[rows]).sum(-1).mean())),
], ids=["12-2 return 0.0", "13-3 return 0.0", "13-3 A[r] - A[r]"])
def test_a_constant_answer_is_named_as_one_not_as_a_mistake(key, fn):
    ok, message, mistake = _run(key, fn)
    assert (ok, mistake) == (False, "constant") and "每一组输入你都返回同一个值" in message
    named = [m.hint for m in CODE_EXERCISES[key].mistakes]
    assert not any("提示：" + hint in message for hint in named)


def test_the_old_m_returned_is_named_and_no_overflow_is_claimed():
    ok, message, mistake = _run("07-3", lambda m, l, acc, s, v: (
        m, l * np.exp(m - max(m, s.max())) + np.exp(s - max(m, s.max())).sum(),
        acc * np.exp(m - max(m, s.max())) + np.exp(s - max(m, s.max())) @ v))
    assert (ok, mistake) == (False, "old_m") and "溢出" not in message.split("提示：")[1]


@pytest.mark.parametrize("owner, name, value", [
    (lambda: helpers.attention, "softmax", lambda x, axis=-1: np.zeros_like(x)),
    (lambda: helpers, "softmax", lambda x, axis=-1: np.zeros_like(x)),
    (lambda: np, "allclose", lambda *a, **k: True),
    (lambda: np, "isclose", lambda *a, **k: np.True_),
    (lambda: compare, "close_each", lambda *a, **k: [True, True, True]),
    (lambda: code_check, "run", lambda *a, **k: (True, "✔", None)),
    (lambda: builtins, "abs", lambda v: 0 * v),
    (lambda: builtins, "print", lambda *a, **k: None),
], ids=["attention.softmax", "helpers.softmax", "np.allclose", "np.isclose", "compare.close_each", "code_check.run",
        "builtins.abs", "builtins.print"])
def test_a_learners_reassignment_changes_nothing_and_is_told_once(monkeypatch, owner, name, value):
    monkeypatch.setattr(owner(), name, value)
    monkeypatch.setattr(originals, "_TOLD", set())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        right = exercises.check_code("05-3", CORPUS["05-3"][1][0])
        wrong = exercises.check_code("03-3", lambda x: x)
        right_again = exercises.check_code("03-3", _softmax)
    assert (right.ok, wrong.ok, right_again.ok) == (True, False, True)
    if name != "run":  # check_code uses the engine bound at import: nothing to tell
        assert out.getvalue().count("判分用的是导入时的原版") == 1
    assert getattr(owner(), name) is value  # ignored, not undone


def test_replacing_an_exercise_entry_changes_nothing(monkeypatch):
    monkeypatch.setitem(CODE_EXERCISES, "03-3", CODE_EXERCISES["05-3"])
    monkeypatch.setattr(originals, "_TOLD", set())
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert exercises.check_code("03-3", _softmax).ok is True
    assert "CODE_EXERCISES['03-3']" in out.getvalue()


def test_complex_and_float16_results_are_named():
    ok, message, mistake = _run("03-3", lambda x: _softmax(x) + 5j)
    assert (ok, mistake) == (False, "complex") and "复数" in message
    ok, message, mistake = _run("03-3", lambda x: _softmax(x).astype(np.float16))
    assert (ok, mistake) == (False, "float16") and "float16" in message


class _Exits:
    def __init__(self, value):
        self.value = value

    def __array__(self, dtype=None, copy=None):
        raise SystemExit(0)


def test_system_exit_from_a_returned_objects_array_is_caught():
    ok, message, mistake = _run("03-3", lambda x: _Exits(x))
    assert ok is False and "SystemExit" in message
    ok, _, _ = _run("05-3", lambda q, k, v: (_Exits(q), _Exits(k)))
    assert ok is False


def test_a_giant_result_is_refused_before_it_is_read():
    start = time.thread_time()  # CPU time: reading 1.6e9 zeros would take seconds of it, on any load
    ok, message, mistake = _run("12-2", lambda A, T: np.zeros((40_000, 40_000)))
    assert (ok, mistake) == (False, "too_big") and time.thread_time() - start < 1.0


def test_the_expected_value_cannot_be_read_from_the_checkers_frames():
    import gc

    def peeks(x):
        frame = sys._getframe(1)
        while frame is not None:
            for value in frame.f_locals.values():
                if isinstance(value, tuple) and value and isinstance(value[0], np.ndarray) and value[0].shape == x.shape \
                        and np.allclose(value[0].sum(axis=-1), 1.0):
                    return value[0]
            frame = frame.f_back
        return x
    assert _run("03-3", peeks)[0] is False
    del gc


def test_removing_the_checkers_profiler_is_never_answered_with_a_tick():
    def unprofiled(x):
        sys.setprofile(None)
        return helpers.softmax(x)
    ok, message, mistake = _run("03-3", unprofiled)
    assert ok is not True and "✔" not in message and mistake in ("unwatched", "forbidden")



def test_cancelling_the_timer_or_ignoring_the_alarm_changes_nothing():
    """The clock is the checker's own thread, not a kernel timer: a right function that cancels
    ITIMER_REAL or ignores SIGALRM is judged (and SIGALRM's handler is back afterwards); one that
    loops after doing so is stopped."""
    before = signal.getsignal(signal.SIGALRM)

    def untimed(x):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        return _softmax(x)
    ok, message, _ = _run("03-3", untimed)
    assert ok is True, message
    assert signal.getsignal(signal.SIGALRM) is before

    def untimed_loop(x):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            pass
    assert code_check.run(_fast(), untimed_loop)[2] == "timeout"
    assert signal.getsignal(signal.SIGALRM) is before


def test_a_forbidden_call_from_a_worker_thread_is_caught():
    def threaded(x):
        out = []
        worker = threading.Thread(target=lambda: out.append(helpers.softmax(x)))
        worker.start()
        worker.join()
        return out[0]
    ok, message, mistake = _run("03-3", threaded)
    assert (ok, mistake) == (False, "forbidden") and "helpers.softmax" in message


def test_check_code_and_check_show_nothing_after_their_message():
    with contextlib.redirect_stdout(io.StringIO()):
        verdicts = [exercises.check_code("03-3", _softmax), exercises.check("03-2", "“假”")]
    for verdict in verdicts:
        assert verdict.ok is True and bool(verdict) and repr(verdict) == "" and verdict._ipython_display_() is None


def test_numpy_reassigned_before_the_exercises_first_load_changes_nothing():
    """``helpers.exercises`` loads on first use, so the originals are recorded by ``import helpers``:
    a learner who reassigns ``np.exp`` in between is still graded against the real one. A fresh
    interpreter, because in this one the exercises are loaded already."""
    script = (
        "import math, numpy as np, helpers\n"
        "np.exp = lambda x: x\n"
        "def softmax(x):\n"
        "    x = np.asarray(x, float); e = np.power(math.e, x - x.max(-1, keepdims=True))\n"
        "    return e / e.sum(-1, keepdims=True)\n"
        "v = helpers.exercises.check_code('03-3', softmax)\n"
        "assert v.ok is True, v.message\n"
        "assert 'numpy.exp' in v.message\n"
    )
    _passes_in_a_fresh_interpreter(script)


def test_helpers_imported_inside_catch_warnings_tells_of_no_change():
    """``warnings.catch_warnings`` swaps the module's private ``_showwarnmsg_impl`` while it is open
    (pytest wraps tests in one): the record of originals keeps public names only, so the checker does
    not tell the learner of a change they never made."""
    script = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True):\n"
        "    import helpers, helpers.exercises\n"
        "import numpy as np\n"
        "def softmax(x):\n"
        "    e = np.exp(x - x.max(-1, keepdims=True))\n"
        "    return e / e.sum(-1, keepdims=True)\n"
        "v = helpers.exercises.check_code('03-3', softmax)\n"
        "assert v.ok is True and '你改过' not in v.message, v.message\n"
    )
    _passes_in_a_fresh_interpreter(script)


def test_outputs_of_mixed_precision_are_each_judged_and_told_at_their_own():
    """float32 arithmetic with one output promoted to float64 (a float32 array times a float64 number is
    float64): the float64 output's miss is within float32's precision and told as such, and the note names
    only the output judged at float32, not the whole result."""
    def attention(q, k, v):
        q, k, v = (np.asarray(a, np.float32) for a in (q, k, v))
        s = q @ k.T / np.float32(np.sqrt(q.shape[-1]))
        s = np.where(np.triu(np.ones(s.shape, bool), 1), -np.inf, s)
        w = np.exp(s - s.max(-1, keepdims=True))
        w = w / w.sum(-1, keepdims=True)
        return (w @ v).astype(np.float64), w
    ok, message, mistake = code_check.run(CODE_EXERCISES["05-3"], attention)
    message = Unfolded(message)
    assert (ok, mistake) == (False, "small_difference") and "你返回的输出 out 是 float64，其余的是 float32" in message
    assert "第 1 组的权重 weights 按 float32 的精度判" in message and "你的结果是 float32" not in message
