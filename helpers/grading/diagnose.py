"""Diagnosing a wrong answer: which usual mistake it is, or what kind of wrong.

Each :class:`~helpers.grading.code_exercise.Mistake` is a *known-wrong implementation* (or a
predicate on the returned values). A mistake is named only when its wrong implementation reproduces
the learner's output on *every* case the learner answered and that output is not one constant (any
``return 0.0`` would match a wrong implementation that is 0 on every case, so such a match is no
evidence, :func:`evidence`); otherwise the hint is generic — a constant answer is said to be one, a
wrong shape, NaN/inf, a difference within float32 rounding and wrong values each have their sentence.
An exception is matched the same way (a wrong implementation raising the same), else the arguments
are compared with the signature, else the exception's type gives the hint.
"""
from __future__ import annotations

import inspect
import re

import numpy as np

from .code_exercise import Case, CodeExercise, Mistake
from .compare import Result, close_each, fit, matches, measured, tolerances
from .messages import number_text
from .returned import Unreadable, read_outputs
from .sandbox import Call, Raised, quiet

_GENERIC_ERRORS = {
    "TypeError": "检查函数的参数个数和顺序，以及是不是把数组当成了别的类型。",
    "IndexError": "下标越界了：数一数这一维有多长，下标从 0 开始。",
    "NameError": "用到了一个没定义的名字（np 需要先 import numpy as np；变量名拼写？）。",
    "AttributeError": "对象上没有这个属性或方法：检查拼写，或者它是不是 numpy 数组。",
    "ZeroDivisionError": "除以了 0：用 numpy 数组运算，而不是 Python 的 int/float。",
    # helpers.tiled.FastMemory refusing an array (07-4): its message gives the sizes
    "FastMemoryFull": "快速内存放不下这个数组（错误信息里有大小）：一次读的块太大，或者用完的数组还留着（存在列表里、没有被新值替换）。",
}


#: numpy's words for arrays whose shapes do not fit (broadcasting, matmul, concatenate, reshape);
#: another ValueError (the learner's own ``raise ValueError(…)``) is shown as it is
_SHAPE_ERROR = re.compile(r"broadcast|shape|dimension|not aligned|cannot reshape")


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


def error_hint(exercise: CodeExercise, case: Case, call: Call, fn=None, earlier=()) -> str:
    """The hint for an exception: the signature when the arguments do not fit, else a known-wrong
    implementation that raises the same and reproduces the learner's results on every ``earlier``
    case (:class:`~helpers.grading.compare.Result`), else a generic hint by exception type."""
    exc = call.error
    if isinstance(exc, TypeError) and fn is not None:
        signature = _signature_hint(exercise, fn, case)
        if signature:
            return signature
    for mistake in exercise.mistakes:
        if mistake.wrong is None:
            continue
        theirs = quiet(mistake.wrong, case.args)
        if (isinstance(theirs, Raised) and type(theirs.error) is type(exc) and str(theirs.error) == str(exc)
                and all(_reproduces(exercise, mistake, r) for r in earlier)):
            return mistake.hint
    if isinstance(exc, SystemExit):
        return "函数里调用了 exit() / sys.exit()：用 return 把结果交回来。"
    if type(exc) is ValueError and _SHAPE_ERROR.search(str(exc)):  # numpy's own (a subclass is not)
        return "两个形状对不上（广播、矩阵乘法、拼接或 reshape 做不了）：打印一下中间结果的 .shape。"
    return _GENERIC_ERRORS.get(type(exc).__name__, "读一读这条错误信息，在出错的那一行前后打印中间结果的形状和值。")



def _variant_outputs(exercise: CodeExercise, mistake: Mistake, case: Case):
    """``mistake``'s wrong implementation's outputs on ``case`` (``None`` if it raises or is unreadable)."""
    theirs = quiet(mistake.wrong, case.args)
    if not isinstance(theirs, Raised) and exercise.measure is not None:
        theirs = quiet(lambda *args: measured(exercise, theirs, args), case.args)
    if isinstance(theirs, Raised):
        return None
    try:
        return read_outputs(theirs, exercise.outputs)
    except Unreadable:
        return None


def _reproduces(exercise: CodeExercise, mistake: Mistake, result: Result) -> bool:
    """Whether ``mistake``'s wrong implementation returns what the learner returned on this case."""
    theirs = _variant_outputs(exercise, mistake, result.case)
    return theirs is not None and matches(result.got, theirs, result.rtol, result.atol)


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


def evidence(exercise: CodeExercise, mistake: Mistake, results: list, wrong: list) -> bool:
    """A mistake is named only when its wrong implementation reproduces the learner's outputs on every
    case, *and* that match says something: if, on the outputs the learner got wrong, the wrong
    implementation returns one constant whatever the input (the transposed diagonal of a causal
    pattern is all zeros; a signed sum of two distributions' difference is always 0), any constant
    answer — ``return 0.0`` — matches it too, and the match is no evidence of that mistake."""
    # the failing cases first, and stop at the first case it does not reproduce: most mistakes are
    # ruled out by one call instead of one per case (a long case costs the wrong version as much)
    order = sorted(range(len(results)), key=lambda j: all(results[j].ok))
    outs = [None] * len(results)
    for j in order:
        outs[j] = _variant_outputs(exercise, mistake, results[j].case)
        if outs[j] is None or not matches(results[j].got, outs[j], results[j].rtol, results[j].atol):
            return False
    return not all(_constant([o[i] for o in outs], max(r.rtol[i] for r in results), max(r.atol[i] for r in results))
                   is not None for i in wrong)


def _shape_hint(result: Result, exercise: CodeExercise | None) -> str:
    """The sentence for returned values of the wrong shape, naming each (every output is looked at: a
    right output beside a cache one token short is still a shape mistake), else ``""``."""
    off = [(i, fit(g, e).shape, e.shape) for i, (g, e) in enumerate(zip(result.got, result.exact))
           if fit(g, e).shape != e.shape]
    if not off:
        return ""
    if len(result.exact) == 1 and off[0][2] == ():
        return f"应返回一个数，你返回的是形状 {tuple(off[0][1])} 的数组：还差最后一步（求和、取平均或取出一个元素）。"
    if len(result.exact) == 1:
        return (f"形状不对：应为 {tuple(off[0][2])}，你的是 {tuple(off[0][1])}。"
                "对照题目里写的形状，检查在哪一维上求和、转置或拼接。")
    names = exercise.outputs if exercise is not None else tuple(f"第 {i + 1} 个返回值" for i in range(len(result.exact)))
    each = "；".join(f"{names[i]} 应是一个数，你的是形状 {tuple(g)} 的数组" if e == () else
                    f"{names[i]} 应为 {tuple(e)}，你的是 {tuple(g)}" for i, g, e in off)
    return f"形状不对：{each}。对照题目里写的形状，检查在哪一维上求和、转置、拼接或追加。"


def _generic(result: Result, exercise: CodeExercise | None = None) -> tuple:
    shape = _shape_hint(result, exercise)
    if shape:
        return "shape", shape
    wrong_index = result.ok.index(False)
    g = fit(result.got[wrong_index], result.exact[wrong_index])
    if not np.isfinite(g).all():
        return "nonfinite", ("结果里有 nan 或 inf：打印中间结果，找出是哪一步先出现的。可能是 e 的大数次方溢出、0 / 0、"
                             "∞ − ∞，也可能是把 −∞ 这样的初始值原样返回了（哪个变量没有更新？）。")
    failing = [i for i, fine in enumerate(result.ok) if not fine]
    if exercise is not None and all(result.precisions[i] is not np.float32 for i in failing) and all(
            close_each(result.got, result.exact, tolerances(exercise, result.case, result.exact,
                                                               (np.float32,) * len(result.exact)))[i]
            for i in failing):
        # within float32's precision: the size of the miss is rounding, whose digits change with the CPU,
        # so the hint says where it lies, not its digits
        whose = ("这一组的输入和你的结果都是 float64" if np.float32 not in result.precisions else
                 "你返回的" + "、".join(exercise.outputs[i] for i in failing) + " 是 float64，其余的是 float32")
        return "small_difference", (f"差别很小（在 float32 的精度以内），但超过了允许的误差（{whose}：float64 按"
                                    f"相对误差 ≤ {exercise.rtol:g} 判）："
                                    "找一找哪里多出了一个很小的数（比如分母上加的 ε、clip 的下限）；如果有一步转成了 float32 "
                                    "又转回 float64（float32 的数组乘上一个 float64 的数，结果就是 float64），就整个函数都用 "
                                    "float32、返回 float32（那样按 float32 的精度判）。")
    return "values", "形状对，数值不对：拿这一组输入一步一步打印中间结果，和题目里的公式逐项对照。"


def _constant_hint(exercise: CodeExercise, values: dict, candidates: list) -> str:
    names = "、".join(f"{exercise.outputs[i]} = {number_text(v)}" for i, v in values.items())
    hint = (f"每一组输入你都返回同一个值（{names}），和输入无关：打印中间结果，看是哪一步变成了常数"
            "（相减的两个数是不是同一个？取的位置对不对？）。")
    return hint + "".join(m.when_constant for m in candidates if m.when_constant)


def diagnose(exercise: CodeExercise, results: list) -> tuple:
    """``(mistake name, hint)``: a known mistake only when its wrong implementation reproduces the
    learner's outputs on *every* case the learner answered (each failing one, and the right ones too)
    and the match is evidence (:func:`evidence`), or its predicate holds on every failing one; a
    constant answer is named as one; otherwise the generic hint of the first failing case."""
    failing = [r for r in results if not all(r.ok)]
    wrong = _wrong_outputs(results)
    for mistake in exercise.mistakes:
        if mistake.wrong is not None and evidence(exercise, mistake, results, wrong):
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
    shaped = all(fit(r.got[i], r.exact[i]).shape == r.exact[i].shape for r in results for i in wrong)
    constant = _constant_answer(results, wrong) if len(results) > 1 and shaped else None
    if constant is not None:
        candidates = [m for m in exercise.mistakes if m.wrong is not None and m.when_constant
                      and all(_reproduces(exercise, m, r) for r in results)]
        return "constant", _constant_hint(exercise, constant, candidates)
    return _generic(failing[0], exercise)
