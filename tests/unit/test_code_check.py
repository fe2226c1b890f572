"""The code-exercise engine (the grading wing, helpers.grading): whatever the learner's function does, the
checker answers with a Chinese message and never raises; the time limit is enforced both ways (the clock
itself: tests/unit/test_watch.py)."""
import contextlib
import dataclasses
import io
import time

import numpy as np
import pytest
import runaways

from helpers import grading
from helpers.grading import messages, watch

pytestmark = pytest.mark.usefixtures("as_in_a_kernel")  # as in a learner's kernel (tests/conftest.py)


def _double(x):
    return 2.0 * np.asarray(x)


def _halve(x):
    return np.asarray(x) / 2.0


def _cases():
    return [grading.Case("一个小数组", (np.array([1.0, 2.0, 3.0]),)), grading.Case("二维", (np.arange(6.0).reshape(2, 3),))]


TOY = grading.CodeExercise("把数组乘以 2", "double(x)", ("x",), ("结果",), _cases, _double,
                      (grading.Mistake("halve", "除以了 2，应乘以 2。", _halve),), "def double(x):\n    return 2 * x\n",
                      time_floor=0.3)


def _run(fn, **kw):
    ok, message, mistake = grading.run(TOY, fn, **kw)
    assert isinstance(message, str) and any("\u4e00" <= ch <= "\u9fff" for ch in message)
    assert "Traceback" not in message
    return ok, message, mistake


def test_reference_passes_and_a_known_mistake_gets_its_hint():
    assert _run(_double)[0] is True
    ok, message, mistake = _run(_halve)
    assert (ok, mistake) == (False, "halve") and "除以了 2，应乘以 2。" in message
    assert "应得" in message and "你的" in message and "形状 (3,)" in message


def test_the_stub_and_non_functions_are_unanswered_not_wrong():
    def stub(x):
        ...
    ok, message, _ = _run(stub)
    assert ok is None and "返回了 None" in message and "2 组" in message
    for thing in (None, 3, "softmax", [1, 2]):
        ok, message, _ = _run(thing)
        assert ok is None and "函数本身" in message


def test_an_exception_is_one_line_with_the_learners_line():
    def broken(x):
        y = x @ np.ones((7, 7))
        return y
    ok, message, mistake = _run(broken)
    assert (ok, mistake) == (False, "error")
    assert "ValueError: matmul" in message and "出错的一行：y = x @ np.ones((7, 7))" in message

    def leaves(x):
        raise SystemExit(3)
    ok, message, _ = _run(leaves)
    assert ok is False and "exit()" in message


@pytest.mark.parametrize("returned, words", [
    ((1, 2), "元组"), ("abc", "str"), ({"a": 1}, "dict"), ([[1, 2], [3]], "整齐"), (object(), "整齐"),
])
def test_returns_that_cannot_be_read_are_named(returned, words):
    ok, message, mistake = _run(lambda x: returned)
    assert (ok, mistake) == (False, "unreadable") and words in message


def test_wrong_shapes_and_nan_get_generic_hints_when_no_mistake_matches():
    ok, message, mistake = _run(lambda x: np.zeros(5))
    assert (ok, mistake) == (False, "shape") and "形状不对" in message and "(3,)" in message and "(5,)" in message
    ok, message, mistake = _run(lambda x: np.full(np.shape(x), np.nan))
    assert (ok, mistake) == (False, "nonfinite") and "3 个 nan" in message
    ok, message, mistake = _run(lambda x: np.asarray(x) * 3.0)
    assert (ok, mistake) == (False, "values")


def test_modifying_the_input_is_told_even_when_the_result_is_right():
    def in_place(x):
        x *= 2.0
        return x
    ok, message, mistake = _run(in_place)
    assert (ok, mistake) == (False, "mutation") and "改写了传进来的参数 x" in message and "x.copy()" in message


def test_printing_is_captured_counted_and_cut():
    prints, line = 10_000, "很长的调试输出 " * 10

    def chatty(x):
        for _ in range(prints):
            print(line)
        return 2.0 * x
    # What is checked is the capture, the count and the cut, not speed: the limit's floor is 50 × the CPU
    # time the same prints take on this thread just now.
    start = time.thread_time()
    with contextlib.redirect_stdout(io.StringIO()):
        chatty(0.0)
    roomy = dataclasses.replace(TOY, time_floor=max(grading.TIME_FLOOR, 50 * (time.thread_time() - start)))
    ok, message, _ = grading.run(roomy, chatty)
    printed = len(_cases()) * prints * (len(line) + 1)   # every case's prints, each with its newline
    assert ok is True and f"打印了 {printed} 个字符" in message and len(message) < 400, message


def test_warnings_are_recorded_not_shown():
    def warns(x):
        np.log(np.zeros(1))
        return 2.0 * x
    ok, message, _ = _run(warns)
    assert ok is True and "divide by zero" in message


@pytest.mark.parametrize("use_alarm", [True, False], ids=["signal", "tracer"])
def test_a_runaway_loop_is_stopped_at_the_limit(use_alarm):
    def forever(x):
        while True:
            pass
    start = time.thread_time()  # the learner's clock: CPU time of this thread, whatever the load
    ok, message, mistake = _run(forever, use_alarm=use_alarm)
    assert time.thread_time() - start < watch.stop_bound(TOY.time_floor) + 0.2
    assert (ok, mistake) == (False, "timeout") and "超时" in message


def test_catching_everything_does_not_escape_the_limit():
    ok, _, mistake = _run(runaways.catches_exceptions, use_alarm=True)
    assert (ok, mistake) == (False, "timeout")


def test_a_sleep_is_cut_short_by_the_alarm():
    start = time.perf_counter()
    ok, _, mistake = _run(lambda x: time.sleep(60), use_alarm=True)
    # idle as long as it may compute (0.3 s), with 15 s of slack for a loaded machine
    assert (ok, mistake) == (False, "timeout") and time.perf_counter() - start < 0.3 + 15


def test_the_limit_leaves_no_alarm_or_tracer_behind():
    import signal
    import sys

    before = signal.getsignal(signal.SIGALRM), sys.gettrace()
    _run(_double, use_alarm=True)
    _run(_double, use_alarm=False)
    assert (signal.getsignal(signal.SIGALRM), sys.gettrace()) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_show_array_formats_rows_scalars_and_nonfinite():
    assert grading.show_array(np.array(1.5)) == "标量 1.5"
    assert grading.show_array(np.array([[1.0, np.nan], [np.inf, 0.0]])) == "形状 (2, 2)，[[1, nan], [inf, 0]]；共有 1 个 nan、1 个 inf"
    big = np.arange(40.0).reshape(4, 10)
    assert grading.show_array(big, (2,)).startswith("形状 (4, 10)，第 2 行 [20, 21,")


def test_off_the_main_thread_the_tracer_stops_the_loop():
    import threading

    results = []

    def forever(x):
        while True:
            pass
    def graded():
        start = time.thread_time()
        results.append(grading.run(TOY, forever))
        results.append(time.thread_time() - start)
    worker = threading.Thread(target=graded)
    worker.start()
    worker.join(120)
    assert not worker.is_alive() and results[1] < watch.stop_bound(TOY.time_floor) + 0.2
    assert results[0][0] is False and results[0][2] == "timeout"


def test_someone_elses_timer_is_given_back():
    import signal

    previous = signal.signal(signal.SIGALRM, lambda *a: None)
    try:
        signal.setitimer(signal.ITIMER_REAL, 50.0)
        _run(_double, use_alarm=True)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 45.0 < left <= 50.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_cut_preview_of_the_printing_ends_in_an_ellipsis():
    def chatty(x):
        print("x =", np.arange(40.0))
        return 2.0 * x
    ok, message, _ = _run(chatty)
    first = message.split("第一行是：")[1].split("。调试完")[0]
    assert ok is True and first.endswith("…") and len(first) == messages.PREVIEW_CHARS + 1

    def short(x):
        print("ok")
        return 2.0 * x
    assert "第一行是：ok。" in _run(short)[1]


def _np_softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_a_forbidden_function_is_noticed_however_it_is_reached_and_nothing_stays_patched():
    import sys

    toy = grading.CodeExercise("softmax", "softmax(x)", ("x",), ("权重",), _cases, _np_softmax, (), "",
                          forbidden=("helpers.softmax",), forbidden_hint="自己写。")

    import helpers
    from helpers.attention import softmax as renamed

    saved = helpers.softmax
    before = sys.getprofile()
    for fn in (helpers.softmax, lambda x: helpers.softmax(x), lambda x: renamed(x),
               lambda x: [saved(x)][0], lambda x: helpers.scaled_dot_product_attention(*[np.atleast_2d(x)] * 3)[1]):
        ok, message, mistake = grading.run(toy, fn)
        assert (ok, mistake) == (False, "forbidden") and "调用了 helpers.softmax" in message and "提示：自己写。" in message
    assert grading.run(toy, _np_softmax)[0] is True
    assert sys.getprofile() is before and helpers.softmax is saved


def test_every_module_of_the_wing_counts_as_the_checkers_own_code():
    """The watch tells the checker's frames from the learner's by file: the reader of the result
    (helpers/grading/returned.py) runs under the watch too, so every module of the wing is in the set."""
    import sys

    for name in grading.MODULES:
        module = getattr(grading, name)
        assert sys.modules[module.__name__].__file__ in watch._OURS, name


def test_the_public_vocabulary_loads_from_the_wing_and_import_helpers_leaves_the_engine_unloaded():
    import subprocess
    import sys

    assert all(getattr(grading, name) is not None for name in grading.__all__)
    loaded = subprocess.run([sys.executable, "-c", "import sys, helpers; print(sorted(m for m in sys.modules "
                             "if m.startswith('helpers.grading')))"], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "['helpers.grading', 'helpers.grading.originals']"


# ---- container arguments (a cache dict, a tuple, a model config) ---------------------------------------
def test_a_container_argument_is_compared_item_by_item():
    from helpers.config import SMOLLM2_135M
    from helpers.grading.sandbox import _same

    cache = {"k": np.zeros((2, 3, 4)), "v": np.ones((2, 3, 4))}
    assert _same(cache, {"k": np.zeros((2, 3, 4)), "v": np.ones((2, 3, 4))})
    assert not _same(cache, {"k": np.zeros((2, 3, 4)), "v": np.zeros((2, 3, 4))})
    assert not _same(cache, {"k": np.zeros((2, 3, 4))})
    assert _same((np.eye(2), 3), (np.eye(2), 3)) and not _same((np.eye(2), 3), [np.eye(2), 3])
    assert _same(SMOLLM2_135M, SMOLLM2_135M)


def test_container_and_config_arguments_are_shown_briefly():
    from helpers.config import SMOLLM2_135M
    from helpers.grading.messages import show_input

    assert show_input("cache", {"k": np.zeros((2, 3, 4)), "n": 3, "theta": 10000.0}) == \
        "cache = {'k': 形状 (2, 3, 4), 'n': 3, 'theta': 10000}"
    assert show_input("pair", (np.zeros(5), 0.5)) == "pair = (形状 (5,), 0.5)"
    assert show_input("config", SMOLLM2_135M) == "config = SmolLM2-135M 的配置"
