"""The grader's clock (helpers.grading.watch, clock, stopped): it measures the learner's function alone, in
CPU time of its thread; a runaway in Python code stops within the stated bound of its own CPU time,
whatever it does to the signals and the timer; where it was is read from its frames; and everything the
check installed, or the learner's code replaced, is back afterwards — the stop button pressed included.

Bounds are in CPU time of this thread (the learner's function runs on it), so they hold on a loaded
machine (``make test-under-load``); the few wall-clock bounds are the backstop's, with slack stated."""
import builtins
import dataclasses
import signal
import sys
import threading
import time

import numpy as np
import pytest
import runaways
from unfolded import Unfolded

from helpers import grading
from helpers.grading import clock, messages, stopped, watch
from helpers.grading.clock import Limit
from helpers.grading.sandbox import call_learner

pytestmark = pytest.mark.usefixtures("as_in_a_kernel")  # as in a learner's kernel (tests/conftest.py)

FLOOR = 0.3
#: CPU seconds the check itself may add on this thread (the reference timed, expected values, messages)
CHECKER = 0.2


def _double(x):
    return 2.0 * np.asarray(x)


def _cases():
    return [grading.Case("一个小数组", (np.array([1.0, 2.0, 3.0]),)), grading.Case("二维", (np.arange(6.0).reshape(2, 3),))]


TOY = grading.CodeExercise("把数组乘以 2", "double(x)", ("x",), ("结果",), _cases, _double, (), "", time_floor=FLOOR,
                           forbidden=("helpers.softmax",))


def _flat(message: str) -> Unfolded:
    """The message read as one line (wrap_text folds its long lines)."""
    return Unfolded(message)


def _state():
    return (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGALRM), sys.gettrace(), sys.getprofile(),
            threading.getprofile() if hasattr(threading, "getprofile") else None, builtins.print, sys.stdout,
            sys.stderr, sys.getrecursionlimit(), signal.getitimer(signal.ITIMER_REAL))


# ---- the limit and the clock ---------------------------------------------------------------------------
def test_the_limit_is_the_floor_or_the_factor_times_the_reference():
    assert Limit.of(1e-4, 2.0, 50).cpu == 2.0
    assert Limit.of(0.07, 2.0, 50).cpu == pytest.approx(3.5)
    assert Limit.of(None, 2.0, 50).cpu == 2.0
    assert Limit.of(0.07, 2.0, 50).wall == pytest.approx(clock.WALL_FACTOR * 3.5)
    assert (grading.TIME_FLOOR, grading.TIME_FACTOR) == (2.0, 50.0)


def test_the_learners_clock_counts_their_thread_only():
    read = clock.thread_clock(threading.get_ident())
    busy = threading.Thread(target=lambda: sum(range(3_000_000)))
    before = read()
    busy.start()
    busy.join()   # this thread waits: the other one works
    assert read() - before < 0.05


def test_the_checkers_reading_is_outside_the_learners_clock():
    def reader(result):  # 0.4 s of the checker's own work on a result (11-4 runs a model here)
        end = time.thread_time() + 0.4
        while time.thread_time() < end:
            pass
        return result
    call = call_learner(_double, (np.ones(3),), ("x",), Limit.of(None, 0.1, 50), reader=reader)
    assert not call.timed_out and call.seconds < 0.1 and call.read_seconds >= 0.4


def test_the_reference_sets_the_limit_of_each_case():
    def slow_reference(x):
        end = time.thread_time() + 0.05
        while time.thread_time() < end:
            pass
        return _double(x)
    exercise = grading.CodeExercise("慢的参考", "double(x)", ("x",), ("结果",), _cases, slow_reference, (), "",
                                    time_floor=0.01, time_factor=20)

    def three_times_slower(x):  # right, and 3 × the reference: inside 20 ×
        end = time.thread_time() + 0.15
        while time.thread_time() < end:
            pass
        return _double(x)
    assert grading.run(exercise, three_times_slower)[0] is True
    ok, message, mistake = grading.run(exercise, runaways.loop)
    message = _flat(message)
    assert (ok, mistake) == (False, "timeout")
    assert "参考写法这一组在这台机器上刚用了" in message and "上限是它的 20 倍、至少 0.01 秒" in message


# ---- runaways: stopped within the stated bound of their own CPU time ------------------------------------
@pytest.mark.parametrize("fn", [runaways.loop, runaways.swallows, runaways.recurses_in_handler, runaways.grows,
                                runaways.ignores_the_alarm, runaways.ignores_the_alarm_and_swallows,
                                runaways.cancels_the_timer])
def test_a_runaway_stops_within_the_stated_bound_of_its_cpu_time(fn):
    before = _state()
    start = time.thread_time()
    ok, message, mistake = grading.run(TOY, fn)
    used = time.thread_time() - start
    assert (ok, mistake) == (False, "timeout"), message
    assert used < watch.stop_bound(FLOOR) + CHECKER, (used, message)
    assert _state() == before
    assert grading.run(TOY, _double)[0] is True  # nothing left behind


@pytest.mark.slow  # the floor a learner gets: 2 s of CPU and more
def test_a_recursion_in_its_handler_stops_within_the_bound_at_the_real_floor():
    """The bound grows with the limit: CPython's own unwinding of the exceptions such a recursion piled up
    takes longer the longer it ran (0.45–0.6 s past a 4 s limit here), inside STOP_SHARE of the limit."""
    exercise = dataclasses.replace(TOY, time_floor=grading.TIME_FLOOR)
    start = time.thread_time()
    ok, message, mistake = grading.run(exercise, runaways.recurses_in_handler)
    assert (ok, mistake) == (False, "timeout")
    assert time.thread_time() - start < watch.stop_bound(grading.TIME_FLOOR) + CHECKER


@pytest.mark.slow  # a million frames, twice: ~10 s of CPU
def test_a_deep_recursion_stops_once_its_recursion_error_has_unwound():
    def deep(x):
        sys.setrecursionlimit(10**6)

        def down(n):
            return down(n + 1) + 1
        return down(0)
    limit = sys.getrecursionlimit()
    start = time.thread_time()
    try:
        deep(0)
    except RecursionError:
        pass
    finally:
        sys.setrecursionlimit(limit)
    bare = time.thread_time() - start   # the descent and the unwinding nothing can interrupt
    start = time.thread_time()
    ok, message, mistake = grading.run(TOY, deep)
    used, message = time.thread_time() - start, _flat(message)
    assert (ok, mistake) == (False, "timeout") and sys.getrecursionlimit() == limit
    # the unwinding's time varies with what else shares the core's caches: half as much again
    assert used < FLOOR + 1.5 * bare + watch.STOP_GRACE + CHECKER + 1.0, (used, bare)
    assert "（递归）" in message and "改成了 1000000" in message and f"已改回 {limit}" in message


def test_a_sleep_is_stopped_by_the_idle_clock():
    start = time.perf_counter()
    ok, message, mistake = grading.run(TOY, lambda x: time.sleep(60))
    took, message = time.perf_counter() - start, _flat(message)
    # idle as long as it may compute (0.3 s), read in windows of 0.25 s; 15 s of slack for a loaded
    # machine's scheduling of the watchdog, far below the 60 s of the sleep
    assert (ok, mistake) == (False, "timeout") and took < FLOOR + 15
    assert "你的函数还没有结束，已经停下；其中有" in message and "它几乎没有用 CPU" in message
    assert "几乎不用 CPU 的等待也最多 300 毫秒" in message and "time.sleep(60) 这一次调用里" in message
    assert "它在等，而不是在算" in message and "循环" not in message and "numpy" not in message


def test_idle_time_counts_windows_of_waiting_not_of_starving():
    idle = clock.Idle(cpu=0.0, wall=0.0)
    assert idle.update(0.0, 0.1) == 0.0  # shorter than a window: not read yet
    assert idle.update(0.0, 0.3) == pytest.approx(0.3)  # slept through the window
    assert idle.update(0.03, 0.6) == pytest.approx(0.3)  # 10 % of a core: starved by load, not idle
    assert idle.update(0.0305, 1.0) == pytest.approx(0.7)  # 0.1 %: waiting again


def test_off_the_main_thread_the_tracer_stops_a_loop_within_the_bound():
    results, used = [], []

    def graded():
        start = time.thread_time()
        results.append(grading.run(TOY, runaways.loop))
        used.append(time.thread_time() - start)
    worker = threading.Thread(target=graded)
    worker.start()
    worker.join(120)
    assert not worker.is_alive() and results[0][2] == "timeout"
    assert used[0] < watch.stop_bound(FLOOR) + CHECKER


# ---- what the message says: what was measured, where it was --------------------------------------------
def test_a_loop_is_named_with_its_line_and_the_times_measured():
    def counts(x):
        i = 0
        while i < 10:
            x = x + 1
        return x
    ok, message, _ = grading.run(TOY, counts)
    message = _flat(message)
    assert "你的函数用了 " in message and "的 CPU 时间还没有算完，已经停下" in message
    assert "参考写法这一组在这台机器上刚用了" in message and "上限是它的 50 倍、至少 0.3 秒" in message
    head = counts.__code__.co_firstlineno + 2  # stopped on the loop's test or on its body
    assert f"停下时它在第 {head} 行：while i < 10:（在第 {head} 行开始的循环里）" in message or \
        f"停下时它在第 {head + 1} 行：x = x + 1（在第 {head} 行开始的循环里）" in message, message
    assert "numpy" not in message and "time.sleep" not in message and "不到 1 毫秒" not in message


def test_a_recursion_is_named_with_its_depth():
    ok, message, _ = grading.run(TOY, runaways.recurses_in_handler)
    message = _flat(message)
    assert ("刚进入 recurses_in_handler" in message or "：return recurses_in_handler(x)" in message) \
        and "（递归）" in message
    depth = int("".join(message.split()).split("同一个函数在栈上有")[1].split("层")[0])
    assert depth >= stopped.RECURSION_NAMED
    assert "numpy" not in message and "循环" not in message


def test_a_long_step_in_c_is_named_with_the_time_it_took():
    def one_long_sum(x):
        return sum(range(30_000_000))  # one C call, never back in Python until it returns
    exercise = grading.CodeExercise("乘以 2", "double(x)", ("x",), ("结果",), _cases, _double, (), "", time_floor=0.02)
    ok, message, mistake = grading.run(exercise, one_long_sum)
    message = _flat(message)
    assert (ok, mistake) == (False, "timeout"), message
    late = "".join(message.split()).split("又过了")[1].split("才停下来")[0]
    assert "sum(range(30_000_000)) 这一步正在 C 代码里算" in message and f"它又算了 {late}" in message


def test_reading_a_hostile_result_is_timed_apart_and_named():
    class Endless:
        def __array__(self, dtype=None, copy=None):
            while True:
                pass
    ok, message, mistake = grading.run(TOY, lambda x: Endless())
    message = _flat(message)
    assert (ok, mistake) == (False, "timeout")
    assert "你的函数返回了" in message and "判分读它返回的东西" in message and "判分读参考写法的结果" in message


def test_where_reads_the_frames_of_a_running_function():
    seen = {}

    def learner():
        total = 0
        while not seen:
            total += len(str(total))
        time.sleep(0.5)
    worker = threading.Thread(target=learner)
    worker.start()
    time.sleep(0.05)
    seen["loop"] = stopped.where(sys._current_frames()[worker.ident])
    time.sleep(0.2)
    seen["sleep"] = stopped.where(sys._current_frames()[worker.ident])
    worker.join()
    first = learner.__code__.co_firstlineno
    assert seen["loop"].loop_line == first + 2 and seen["loop"].line in (first + 2, first + 3)
    assert not seen["loop"].loop_for  # a while loop
    assert seen["sleep"] == stopped.Where(first + 4, "time.sleep(0.5)", "time.sleep(0.5)", True, True, 0, 1, "learner")


def test_durations_are_written_for_reading():
    assert [messages.duration(s) for s in (3e-5, 0.021, 0.85, 2.04)] == ["0.03 毫秒", "21 毫秒", "850 毫秒", "2.0 秒"]


# ---- everything restored -------------------------------------------------------------------------------
def _replaces_everything_then_loops(x):
    builtins.print = lambda *a, **k: None
    sys.stdout = sys.stderr = None
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 100.0)
    sys.setrecursionlimit(5000)
    sys.settrace(None)
    runaways.swallows(x)


def _replaces_everything_and_returns(x):
    builtins.print = lambda *a, **k: None
    sys.stdout = sys.stderr = None
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 100.0)
    sys.setrecursionlimit(5000)
    return _double(x)


@pytest.fixture
def learners_kernel():
    """SIGINT as in a learner's kernel (a test runner started in the background may ignore it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("fn", [_double, runaways.loop, _replaces_everything_then_loops, _replaces_everything_and_returns])
def test_everything_is_restored_after_a_check(fn, learners_kernel):
    before = _state()
    grading.run(TOY, fn)
    assert _state() == before


def test_everything_is_restored_when_stop_is_pressed_mid_check(learners_kernel):
    before = _state()
    main = threading.main_thread().ident
    presser = threading.Timer(0.3, lambda: signal.pthread_kill(main, signal.SIGINT))
    start = time.thread_time()
    presser.start()
    with pytest.raises(KeyboardInterrupt):
        grading.run(dataclasses.replace(TOY, time_floor=60.0), _replaces_everything_then_loops)
    presser.join()
    assert time.thread_time() - start < 0.3 + watch.STOP_GRACE + CHECKER  # stopped by the button, not the clock
    assert _state() == before
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the stop button works on


def test_a_signal_landing_in_the_checkers_own_code_raises_nothing_and_installs_no_tracer():
    """On a loaded machine the process can sit in the checker's cleanup when the clock's signal lands:
    the SIGALRM then lands in the checker's own frame. Raising there, or installing the re-raising
    tracer, would skip the cleanup."""
    import types

    ours = types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=watch.__file__), f_back=None)
    before = sys.gettrace()
    guard = watch.Watch(Limit.of(None, 60.0, 50), True, {})
    guard.start()
    try:
        guard.raising = watch.TimeUp  # as the watchdog sets it once the limit has passed
        guard._on_alarm(signal.SIGALRM, ours)
        installed = sys.gettrace()
        sys.settrace(before)  # a C call: an installed tracer goes before it can fire in this test
    finally:
        guard.stop()
    assert installed is before and guard.raising is watch.TimeUp
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
