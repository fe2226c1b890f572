"""What the learner reads: values, cases and the verdict of a code exercise, in Chinese.

A message shows the first wrong case's input shapes (values too when small), what was expected and
what came back (shape, a few values — the first differing row of a larger array —, how many NaN/inf)
and the hint; a time-out, an exception (one line, and the learner's line), an unreadable result, a
mutated argument and a forbidden call each have their own. Every message ends with the notes: how
much the function printed (never shown) and numpy's first warning.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..render.format import wrap_text
from .code_exercise import NOT_JUDGED, Case, CodeExercise
from .compare import Result, fit, input_is_float32
from .returned import code_name
from .verdict import Outcome

#: how many values of an array a message shows
SHOWN_VALUES = 6
#: characters of the first printed line shown (longer lines are cut and end in “…”)
PREVIEW_CHARS = 60


def number_text(x: float) -> str:
    """``x`` as a message writes it: 4 significant digits, ``nan``, ``inf``, ``0``."""
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    return f"{x:.4g}"


def _nested(arr: np.ndarray) -> str:
    if arr.ndim == 0:
        return number_text(float(arr))
    return "[" + ", ".join(_nested(a) for a in arr) + "]"


def _row_text(arr: np.ndarray, row: tuple) -> str:
    values = arr[row].ravel()
    shown = ", ".join(number_text(float(v)) for v in values[:SHOWN_VALUES * 2])
    where = "第 " + "、".join(str(i) for i in row) + " 行" if len(row) == 1 else "下标 [" + ", ".join(map(str, row)) + ", :]"
    return f"{where} [{shown}{', …' if values.size > SHOWN_VALUES * 2 else ''}]"


def largest_miss(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float):
    """``(index, difference, allowed)`` of the entry that misses its tolerance by the most (a NaN or
    inf where a number is expected first), or ``None`` when the shapes differ or nothing misses."""
    if got.shape != expected.shape or got.size == 0:
        return None
    with np.errstate(all="ignore"):
        diff = np.abs(got - expected)
        allowed = atol + rtol * np.abs(expected)
        excess = np.where(np.isfinite(diff), diff - allowed, np.inf)
    at = np.unravel_index(int(np.argmax(excess)), got.shape)
    if not excess[at] > 0 or np.isclose(got[at], expected[at], rtol=rtol, atol=atol, equal_nan=True):
        return None
    return tuple(int(i) for i in at), float(diff[at]), float(allowed[at])


def first_difference(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float):
    """Leading index (all axes but the last) of the entry that misses its tolerance by the most, or
    ``None``: the row shown is the one where the difference is, even when it is small."""
    miss = largest_miss(got, expected, rtol, atol) if got.ndim >= 2 else None
    return miss[0][:-1] if miss else None


def miss_line(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float, size: bool = True) -> str:
    """``差得最多的一个值：下标 [1, 5]，应得 …，你的 …，差 2.1e-07，允许的差 ≤ 1.0e-09`` (``""`` when none);
    ``size=False`` for a miss within float32's precision, whose size is rounding (its digits change
    with the CPU): ``…，差超过了允许的差 ≤ 1.0e-09``."""
    miss = largest_miss(got, expected, rtol, atol)
    if miss is None or not np.isfinite(miss[1]):
        return ""
    at, diff, allowed = miss
    where = f"下标 [{', '.join(map(str, at))}]，" if at else ""
    gap = f"差 {diff:.1e}，允许的差" if size else "差超过了允许的差"
    return (f"差得最多的一个值：{where}应得 {float(expected[at]):.8g}，你的 {float(got[at]):.8g}，{gap} ≤ {allowed:.1e}"
            f"（相对误差 ≤ {rtol:g}、绝对误差 ≤ {atol:g}）")


def show_array(arr: np.ndarray, row: tuple | None = None) -> str:
    """``形状 (3, 5)，第 1 行 [0.09, 0.24, …]，其中 2 个 nan``: every value when few, else the row
    ``row`` (the first that differs) of a 2-D or larger array, else the first values."""
    arr = np.asarray(arr, dtype=float)
    flat = arr.ravel()
    if arr.ndim == 0:
        text = f"标量 {number_text(float(arr))}"
    elif flat.size <= SHOWN_VALUES * 2 and arr.ndim <= 2:
        text = f"形状 {tuple(arr.shape)}，{_nested(arr)}"
    elif row is not None:
        text = f"形状 {tuple(arr.shape)}，{_row_text(arr, row)}"
    else:
        values = ", ".join(number_text(float(v)) for v in flat[:SHOWN_VALUES])
        text = f"形状 {tuple(arr.shape)}，前 {SHOWN_VALUES} 个值 [{values}, …]"
    bad = [f"{int(c)} 个 {w}" for c, w in ((np.isnan(flat).sum(), "nan"), (np.isinf(flat).sum(), "inf")) if c]
    return text + (f"；共有 {'、'.join(bad)}" if bad else "")


def _short_value(value) -> str:
    """An item inside a container argument: an array by its shape, a number as it is, a named object
    (a model config) by its name."""
    if isinstance(value, np.ndarray):
        return f"形状 {tuple(value.shape)}"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e9 else number_text(value)
    if dataclasses.is_dataclass(value) and hasattr(value, "name"):
        return f"{value.name} 的配置"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def show_input(name: str, value) -> str:
    """One argument of a case: its values when it is small, else its shape; a container (tuple, dict)
    item by item, a named config (``ModelConfig``) by its name."""
    if isinstance(value, tuple):
        return f"{name} = (" + ", ".join(_short_value(v) for v in value) + ")"
    if isinstance(value, dict):
        return f"{name} = {{" + ", ".join(f"{k!r}: {_short_value(v)}" for k, v in value.items()) + "}"
    if dataclasses.is_dataclass(value) and hasattr(value, "name"):
        return f"{name} = {_short_value(value)}"
    if isinstance(value, np.ndarray):
        if value.size <= SHOWN_VALUES * 2 and value.ndim <= 2:
            return f"{name} = {_nested(value)}" if value.ndim == 0 else f"{name} 形状 {tuple(value.shape)} = {_nested(value)}"
        return f"{name} 形状 {tuple(value.shape)}"
    if isinstance(value, float):
        return f"{name} = {number_text(value)}"
    return f"{name} = {value!r}"


def case_lines(exercise: CodeExercise, case: Case, index: int, total: int) -> list:
    """The two lines that introduce a case: which one of how many, what it is, and its inputs."""
    inputs = "；".join(show_input(n, a) for n, a in zip(exercise.params, case.args))
    return [f"第 {index} 组（共 {total} 组）：{case.label}", f"  输入：{inputs}"]


def notes(exercise: CodeExercise, printed_chars: int, printed: str, warning: str, others: bool = False) -> list:
    """What follows every verdict: how much the function printed (and its first line), numpy's warning.
    ``others``: threads besides the kernel's were running (stdout is the process's: their printing
    lands in the same place), so the text is not said to be the function's alone."""
    notes = []
    if printed_chars:
        first = printed.strip().splitlines()[0] if printed.strip() else ""
        first = first[:PREVIEW_CHARS] + "…" if len(first) > PREVIEW_CHARS else first
        who = "你的函数或同时在运行的别的线程" if others else "你的函数"
        notes.append(f"（{who}打印了 {printed_chars} 个字符，判分时不显示"
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
    if exercise.later_count is not None and exercise.later_count():
        labels.extend(exercise.later_labels)
    return "；".join(labels)


def ignored_notice(names) -> str:
    """The one line telling the learner that the checker ignored what they reassigned."""
    names = list(names)
    if not names:
        return ""
    return (f"（你改过 {'、'.join(names)}：判分用的是导入时的原版，你的改动不影响判分，也没有被撤销。"
            "这条说明只出现一次。）")


def unanswered_stub(exercise: CodeExercise, total: int) -> str:
    """The answer to the unfilled stub (it returned ``None`` on the first case): the cases it will meet."""
    sig = exercise.signature
    return (wrap_text(f"⚠ 还没有写好：{sig} 返回了 None（函数体还是 ...，或者缺了 return）。") + "\n"
            + wrap_text(f"判分会依次试 {total} 组输入，每组的时间上限至少 {exercise.time_floor:g} 秒："
                        f"{describe_cases(exercise)}。", indent="  ") + "\n"
            "写好后再运行这个单元；卡住了可以看参考写法（见上面的说明）。")


#: CPU seconds past the limit after which a stop counts as late (said, with why, in the message)
LATE_STOP = 0.25


def duration(seconds: float) -> str:
    """``0.03 毫秒``, ``21 毫秒``, ``2.0 秒``: a measured time as a message writes it."""
    if seconds < 1e-3:
        return f"{seconds * 1e3:.2f} 毫秒"
    if seconds < 1:
        return f"{seconds * 1e3:.0f} 毫秒"
    return f"{seconds:.1f} 秒"


def _timeout_head(index: int, total: int, call, late: float) -> str:
    """What was measured: the learner's CPU time (and the wall time when it waited), or the reading's."""
    stop, at = call.stopped, f"第 {index} 组（共 {total} 组）"
    if stop.phase == "reading" and call.raised:
        return (f"✘ 超时：{at}你的函数抛出了 {call.raised}（用了 {duration(call.seconds)}的 CPU 时间），但判分读这个异常"
                f"的说明（调用它的 __str__）用了 {duration(call.read_seconds)}还没读完，已经停下。")
    if stop.phase == "reading":
        return (f"✘ 超时：{at}你的函数返回了（用了 {duration(call.seconds)}的 CPU 时间），但判分读它返回的东西"
                f"（调用返回值的 __array__、__len__ 这类方法）用了 {duration(call.read_seconds)}还没读完，已经停下。")
    if stop.by == "idle":
        return (f"✘ 超时：{at}过了 {duration(call.wall)}，你的函数还没有结束，已经停下；其中有 {duration(stop.idle)}"
                f"它几乎没有用 CPU（一共只用了 {duration(call.seconds)}的 CPU 时间）。")
    if stop.by == "wall":
        return (f"✘ 超时：{at}过了 {duration(call.wall)}，你的函数还没有结束，已经停下；"
                f"这期间它只用了 {duration(call.seconds)}的 CPU 时间。")
    if late > LATE_STOP:
        return (f"✘ 超时：{at}你的函数到了上限 {duration(call.limit.cpu)}还没有算完，"
                f"又过了 {duration(late)}才停下来（一共用了 {duration(call.seconds)}的 CPU 时间）。")
    return f"✘ 超时：{at}你的函数用了 {duration(call.seconds)}的 CPU 时间还没有算完，已经停下。"


def _limit_line(call) -> str:
    """How the limit was made: the reference's time measured just now, the factor and the floor."""
    reading = call.stopped.phase == "reading"
    limit = call.read_limit if reading else call.limit
    if limit is None or limit.reference is None:
        return f"上限：{duration(limit.cpu)}的 CPU 时间。" if limit is not None else ""
    whose = "判分读参考写法的结果" if reading else "参考写法这一组"
    waits = {"idle": f"；几乎不用 CPU 的等待也最多 {duration(limit.idle)}",
             "wall": f"；从开始算起最多 {duration(limit.wall)}"}.get(call.stopped.by, "")
    return (f"{whose}在这台机器上刚用了 {duration(limit.reference)}；上限是它的 {limit.factor:g} 倍、"
            f"至少 {limit.floor:g} 秒：{duration(limit.cpu)}的 CPU 时间{waits}。")


def _where_line(where) -> str:
    """Where the learner's code was when stopped, as the frames showed it (``""`` when unseen)."""
    if where is None or not where.line:
        return ""
    if where.calling and where.step:
        text = f"停下时它在第 {where.line} 行的 {where.step} 这一次调用里"
    elif where.entering:
        text = f"停下时它刚进入 {where.function}（第 {where.line} 行）"
    else:
        text = f"停下时它在第 {where.line} 行" + (f"：{where.text}" if where.text else "")
    if where.loop_line:
        outer = "、".join(str(line) for line, _ in where.loops[1:])
        text += f"（在第 {where.loop_line} 行开始的循环里" + (f"；外面还有第 {outer} 行开始的循环）" if outer else "）")
    if where.recursion:
        text += f"；同一个函数在栈上有 {where.depth} 层（递归）"
    return text + "。"


def _seen_hint(call, late: float) -> str:
    """A hint about what the clock saw, and nothing it did not see."""
    stop, where = call.stopped, call.stopped.where
    if stop.phase == "reading" and call.raised:
        return "异常的说明（__str__）里不要做耗时的事：出错时 raise ValueError(\"……\") 这样的内置异常就好。"
    if stop.phase == "reading":
        return "返回普通的 numpy 数组（或数），不要返回自己定义的对象。"
    if stop.by == "idle":
        return "它在等，而不是在算：time.sleep、input()、等一个锁或另一个线程……"
    if stop.by == "wall":
        return "这段时间它大多没有在算：在等（time.sleep、input()、锁……），或者这台机器忙得轮不到它。"
    if where is not None and where.recursion:
        return ("递归一直没有到底：每次调用的参数有没有朝终止条件变？" if late <= LATE_STOP else
                f"递归一直没有到底，{where.depth} 层一层层退出来也用了 {duration(late)}：每次调用的参数有没有朝终止条件变？")
    if late > LATE_STOP and where is not None and where.operating and where.step:
        return (f"上限到时，第 {where.line} 行的 {where.step} 这一步正在 C 代码里算，不回到 Python 代码就停不下来，"
                f"它又算了 {duration(late)}：这一步要算的太多。")
    if where is not None and where.loop_line:
        return _loop_hint(where.loops or ((where.loop_line, where.loop_for),))
    return ""


def _loop_hint(loops: tuple) -> str:
    """The hint for a stop inside loops (innermost first): a ``while`` asks whether its condition turns
    false; ``for`` loops end with their sequences, so they ask how many rounds and how much each does."""
    whiles = [line for line, is_for in loops if not is_for]
    if len(loops) == 1:
        return ("这个 while 循环没有在上限内走完：它的条件会变成假吗（循环变量有没有更新）？也可能每一圈做得太多。"
                if whiles else
                "这个 for 循环没有在上限内走完：它要走的圈数太多（in 后面的序列有多长？循环里它还在变长吗？），"
                "或者每一圈做得太多——一个数一个数地算的 Python 循环，比 numpy 一次算一整块慢几十到几百倍。")
    if whiles:
        lines = "、".join(str(line) for line in whiles)
        return (f"这几层循环没有在上限内走完。第 {lines} 行的 while 循环：它的条件会变成假吗（循环变量有没有更新）？"
                "也可能里面每一圈做得太多。")
    return ("这几层 for 循环没有在上限内走完：它们一共要走的圈数太多（in 后面的序列有多长？），或者每一圈做得太多——"
            "一个数一个数地算的 Python 循环，比 numpy 一次算一整块慢几十到几百倍。")


def _why_float32(result: Result) -> str:
    return "输入是 float32" if input_is_float32(result.case) else "你的结果是 float32"


def float32_note(results: list, outputs: tuple = ()) -> list:
    """One line naming the cases judged at float32 precision, why, and the tolerance used there
    (nothing when every case listed was judged at float64); where a case's ``outputs`` were judged
    some at float32 and some at float64, the ones at float32 by name."""
    judged = [r for r in results if np.float32 in r.precisions]
    if not judged:
        return []
    worst = max(t[0] for r in judged for t, p in zip(r.tols, r.precisions) if p is np.float32)
    if outputs and any(len(set(r.precisions)) > 1 for r in judged):
        each = "；".join(f"第 {r.index} 组的" + "、".join(o for o, p in zip(outputs, r.precisions) if p is np.float32)
                        for r in judged)
        return [f"（{each} 按 float32 的精度判（你返回的是 float32）：允许的相对误差约 {worst:.2g}"
                "（同一算法用 float32 算时自身的误差再留余量）；其余的按 float64 判。）"]
    groups = "、".join(str(r.index) for r in judged)
    whys = "；".join(dict.fromkeys(_why_float32(r) for r in judged))
    return [f"（第 {groups} 组按 float32 的精度判（{whys}）：允许的相对误差约 {worst:.2g}"
            "（同一算法用 float32 算时自身的误差再留余量）；其余各组按 float64 判。）"
            if len(judged) < len(results) else
            f"（按 float32 的精度判（{whys}）：允许的相对误差约 {worst:.2g}（同一算法用 float32 算时自身的误差再留余量）。）"
            ]


def _tolerance_words(exercise: CodeExercise, results: list) -> str:
    """The float64 tolerance as it is applied (``np.allclose``: |你的 − 参考| ≤ atol + rtol·|参考|)."""
    if all(set(r.precisions) == {np.float32} for r in results):
        return "误差在 float32 的精度以内，见下一行"
    if exercise.output_tolerances:  # judged output by output: each with its own tolerance
        return "；".join(f"{label}：" + "、".join(part for part in (f"相对误差 ≤ {r:g}" if r else "",
                                                                  f"绝对误差 ≤ {a:g}" if a else "") if part)
                        for label, (r, a) in zip(exercise.outputs, exercise.output_tolerances) if a < NOT_JUDGED)
    return f"相对误差 ≤ {exercise.rtol:g}，接近 0 的值绝对误差 ≤ {exercise.atol:g}"


# ---- the verdict's message, one per outcome --------------------------------------------------------
def word(exercise: CodeExercise, outcome: Outcome, total: int) -> str:
    """The message of ``outcome`` (an :class:`~helpers.grading.verdict.Outcome` of checking the learner's
    function on ``total`` cases): its own lines (:data:`WORDING`), then the notes that end every message."""
    return "\n".join(WORDING[outcome.kind](exercise, outcome, total) + list(outcome.notes))


def _not_a_function(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """``check_code`` was given something other than a function (the call's result, ``None`` …)."""
    fn = outcome.evidence
    shown = type(fn).__name__ if fn is not None else "None"
    return [f"⚠ 这里要传入你写的函数本身（函数名，不带括号），例如 check_code(…, {exercise.signature.split('(')[0]})；"
            f"收到的是 {shown}。"]


def _unanswered(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """The answer to the unfilled stub (it returned ``None`` on the first case): the cases it will meet."""
    sig = exercise.signature
    return [wrap_text(f"⚠ 还没有写好：{sig} 返回了 None（函数体还是 ...，或者缺了 return）。"),
            wrap_text(f"判分会依次试 {total} 组输入，每组的时间上限至少 {exercise.time_floor:g} 秒："
                      f"{describe_cases(exercise)}。", indent="  "),
            "写好后再运行这个单元；卡住了可以看参考写法（见上面的说明）。"]


def _forbidden(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """The function called a lesson function the exercise asks the learner to write."""
    return [f"✘ 你的函数调用了 {'、'.join(outcome.evidence)}：判分拿它当参考答案，调用它就是拿答案对答案；"
            "这道题要你自己把它写出来。",
            f"  提示：{exercise.forbidden_hint or '照题目里的步骤自己算；卡住了可以看参考写法（见题目里的说明）。'}"]


def _wrong(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """The first wrong case (a :class:`~helpers.grading.compare.Result`): per output, right or what
    was expected beside what came back (the first differing row of a larger array), and the hint; a
    miss within float32's precision (diagnosed ``small_difference``) without its size (:func:`miss_line`)."""
    first, rounding = outcome.evidence, outcome.diagnosis == "small_difference"
    head = case_lines(exercise, first.case, first.index, total)
    lines = ["✘ 还不对。" + head[0], head[1]]
    for label, g, e, fine, (r, a) in zip(exercise.outputs, first.got, first.exact, first.ok, first.tols):
        if a >= NOT_JUDGED:  # measured for the diagnosis only
            continue
        if fine:
            lines.append(f"  {label}：对")
        else:
            g = fit(g, e)
            row = first_difference(g, e, r, a)
            lines.append(f"  {label} 应得：{show_array(e, row)}")
            lines.append(f"  {label} 你的：{show_array(g, row)}")
            miss = miss_line(g, e, r, a, size=not rounding)
            if miss:
                lines.append(f"  {label} {miss}")
    lines.append(f"  提示：{outcome.hint}")
    return lines + float32_note([first], exercise.outputs)


def _timed_out(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """The case ran past its limit: what was measured (the learner's time, the reference's, the limit),
    where the code was when stopped, and a hint only about what the clock saw (the evidence: a
    :class:`~helpers.grading.sandbox.Call` with ``stopped`` set)."""
    call, index = outcome.evidence, outcome.index
    limit = call.read_limit if call.stopped.phase == "reading" else call.limit
    late = max(0.0, (call.read_seconds if call.stopped.phase == "reading" else call.seconds) - limit.cpu) \
        if limit is not None and call.stopped.by == "cpu" else 0.0
    lines = [wrap_text(_timeout_head(index, total, call, late), indent="  "),
             case_lines(exercise, outcome.case, index, total)[1]]
    for text in (_limit_line(call), _where_line(call.stopped.where)):
        if text:
            lines.append(wrap_text("  " + text, indent="  "))
    if call.recursion_limit:
        before, changed = call.recursion_limit
        lines.append(f"  （你的函数把递归上限从 {before} 改成了 {changed}（sys.setrecursionlimit）；判分后已改回 {before}。）")
    hint = _seen_hint(call, late)
    if hint:
        lines.append(wrap_text("  提示：" + hint, indent="  "))
    return lines


def _raised(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """The function raised: the exception in one line, the learner's line, the hint."""
    call, case, index = outcome.evidence, outcome.case, outcome.index
    lines = [f"✘ 你的函数出错了（第 {index} 组，共 {total} 组：{case.label}）",
             case_lines(exercise, case, index, total)[1], f"  错误：{call.error_text}"]
    if call.error_line:
        lines.append(f"  出错的一行：{call.error_line}")
    lines.append(f"  提示：{outcome.hint}")
    return lines


def _unwatched(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """The function removed the checker's profiler or timer while it ran: no verdict."""
    return [f"⚠ 判分没能看住你的函数：运行时，{'、'.join(outcome.evidence)}被拿掉了（第 {outcome.index} 组）。",
            "  所以这次不判对错。去掉函数里改动 sys.setprofile / sys.settrace / signal 的代码，再运行一次。"]


def _unreadable(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """What the case returned cannot be read (the evidence: an :class:`~helpers.grading.returned.Unreadable`)."""
    case, index = outcome.case, outcome.index
    return [f"✘ 第 {index} 组的返回值读不了（共 {total} 组：{case.label}）", case_lines(exercise, case, index, total)[1],
            f"  提示：{outcome.evidence}", f"  要写的是 {exercise.signature}，{returns_clause(exercise)}。"]


def _mutated(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """Right results, but the function changed the arguments named in the evidence in place (the
    exercise's ``extra["mutated"]``: its own sentence for an argument that is not an array, by name)."""
    names, hints = outcome.evidence, exercise.extra.get("mutated")
    first = names[0]
    lines = [f"✘ 结果对，但你的函数改写了传进来的参数 {'、'.join(names)}（第 {outcome.index} 组：{outcome.case.label}）。",
             "  判分时传的是副本；在笔记本里，这会悄悄改掉你的数据，后面的单元再用它就错了。",
             f"  提示：{first} -= …、{first} *= …、{first}[...] = … 会原地修改；"
             f"写成 {first} = {first} - …，或者先 {first} = {first}.copy()。"]
    if hints and first in hints:
        lines[1:] = [f"  提示：{hints[first]}"]
    return lines


def _wrote_back(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """Right results, but what the function left in an argument it may update disagrees with them."""
    return [f"✘ 返回的结果对，但你的函数写进参数里的东西不对（第 {outcome.index} 组：{outcome.case.label}）。",
            f"  提示：{outcome.evidence}"]


def _right(exercise: CodeExercise, outcome: Outcome, total: int) -> list:
    """Every case right: at which tolerance (and which cases were judged at float32)."""
    results = list(outcome.evidence)
    return ([f"✔ 全部 {total} 组都对了：{exercise.signature} 和参考实现的结果一致（{_tolerance_words(exercise, results)}）。"]
            + float32_note(results, exercise.outputs))


#: each outcome's own lines (:data:`~helpers.grading.verdict.OUTCOMES` names them; a test holds the two lists equal)
WORDING = {"not_a_function": _not_a_function, "unanswered": _unanswered, "unwatched": _unwatched,
           "forbidden": _forbidden, "wrong": _wrong, "timed_out": _timed_out, "raised": _raised,
           "unreadable": _unreadable, "mutated": _mutated, "wrote_back": _wrote_back, "right": _right}
