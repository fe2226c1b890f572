"""Every code exercise (helpers.exercises.check_code): the reference and the printed solution
pass; each usual mistake is rejected with its own hint; the unfilled stub, a function that raises,
returns None, loops, prints or modifies its input gets a hint, never a traceback; each exercise sits
in its notebook with the stub's hint as the stored output and no solution in any output."""
import dataclasses
import json

import numpy as np
import pytest
from paths import ROOT
from sampling import first_of_each

from helpers import exercises
from helpers.exercises import CODE_EXERCISES
from helpers.grading import code_check, messages

KEYS = list(CODE_EXERCISES)
#: code exercises whose cells the lead inserts into their notebook at merge (12 is rewritten elsewhere)
AWAITING_NOTEBOOK: set = set()
NOTEBOOK_OF = {"03": "03_hand_calculation", "05": "05_causal_mask", "06": "06_attention_layer",
               "07": "07_cost_of_length", "09": "09_real_model", "11": "11_learning_a_circuit",
               "12": "12_heads_at_work", "13": "13_induction_circuit", "14": "14_shrinking_caches",
               "15": "15_fixed_state"}


#: code exercises whose cases include the real model's layer when the model is installed
NEEDS_MODEL = {"09-4"}
#: every exercise as the fast suite grades it (09-4 on its random layers: fast tests run without the
#: model), then 09-4 again with SmolLM2's first layer among its cases (model, so make test only)
WITH_MODEL = KEYS + [pytest.param(key, id=f"{key}-SmolLM2", marks=[pytest.mark.model, pytest.mark.slow])
                     for key in KEYS if key in NEEDS_MODEL]


def _model_installed() -> bool:
    try:
        helpers.real_model.find_gguf()
    except helpers.real_model.ModelNotInstalled:
        return False
    return True


def _function_name(exercise):
    return exercise.signature.split("(")[0]


def _solution(key):
    """The printed solution, as a function (it calls no forbidden helper)."""
    exercise = CODE_EXERCISES[key]
    namespace = {}
    exec(exercise.solution, namespace)  # noqa: S102 — our own solution text
    return namespace[_function_name(exercise)]


def _judge(key, fn, **changes):
    exercise = dataclasses.replace(CODE_EXERCISES[key], **changes) if changes else CODE_EXERCISES[key]
    ok, message, mistake = code_check.run(exercise, fn)
    assert isinstance(message, str) and "Traceback" not in message
    assert any("\u4e00" <= ch <= "\u9fff" for ch in message)
    return ok, message, mistake


def test_five_exercises_where_their_ideas_are_taught():
    assert set(KEYS) >= {"03-3", "05-3", "06-3", "07-3", "12-2", "13-3"}


@pytest.mark.parametrize("key", WITH_MODEL)
def test_the_reference_and_the_printed_solution_pass(key, capsys):
    exercise = CODE_EXERCISES[key]
    assert _judge(key, exercise.reference, forbidden=())[0] is True
    ok, message, _ = _judge(key, _solution(key))
    assert ok is True, message
    exercises.solution(key)
    assert exercise.solution in capsys.readouterr().out


def _wrong_versions(key):
    return [m for m in CODE_EXERCISES[key].mistakes if m.wrong is not None]


@pytest.mark.parametrize("key", KEYS)
def test_each_exercise_names_a_usual_mistake(key):
    exercise = CODE_EXERCISES[key]
    # a mistake is named only where it was seen made in public (test_mistakes_table), so some exercises
    # name few; the learners' wrong versions that name none are in the grader corpus, rejected there by
    # the generic path. An exercise judged by what its result does (measure) names mistakes from the
    # measurements (Mistake.test); the weights that make each are in the corpus too
    assert _wrong_versions(key) or (exercise.measure is not None and exercise.mistakes)


#: (exercise, usual mistake): fast grades the first two of each exercise, make test all of them
MISTAKES = [(key, mistake.name) for key in KEYS for mistake in _wrong_versions(key)]


@pytest.mark.parametrize("key, name", first_of_each(MISTAKES, lambda case: case[0], keep=2,
                                                    ids=[f"{key}-{name}" for key, name in MISTAKES]))
def test_every_usual_mistake_is_rejected_with_its_own_hint(key, name):
    mistake = next(m for m in _wrong_versions(key) if m.name == name)
    ok, message, got = _judge(key, mistake.wrong)
    assert ok is False, mistake.name
    if mistake.when_constant:  # the same number on every case, like ``return 0.0``: said conditionally
        assert got == "constant" and mistake.when_constant in message, (mistake.name, message)
    else:
        assert "提示：" + mistake.hint in message, (mistake.name, message)


def _first_array(args):
    return next(i for i, a in enumerate(args) if isinstance(a, np.ndarray))


#: (exercise, misbehaviour): fast tries each misbehaviour on the first two exercises, make test on every
#: exercise (09-4 there with SmolLM2's layer among its cases)
MISBEHAVIOURS = ("stub", "raises", "none_later", "loops", "prints", "mutates")
MISBEHAVING = [(key, kind) for key in KEYS for kind in MISBEHAVIOURS]


@pytest.mark.parametrize("key, kind", first_of_each(MISBEHAVING, lambda case: case[1], keep=2,
                                                    ids=[f"{key}-{kind}" for key, kind in MISBEHAVING]))
def test_misbehaving_functions_get_a_hint_not_a_traceback(key, kind):
    exercise = dataclasses.replace(CODE_EXERCISES[key], reference=_solution(key))

    def stub(*args):
        ...

    def raises(*args):
        raise ZeroDivisionError("division by zero")

    def none_later(*args):
        none_later.calls += 1
        return exercise.reference(*args) if none_later.calls == 1 else None
    none_later.calls = 0

    def loops(*args):
        while True:
            pass

    def prints(*args):
        print("调试 " * 5000)
        return exercise.reference(*args)

    def mutates(*args):
        result = exercise.reference(*args)
        args[_first_array(args)][...] = 0.0
        return result

    if kind == "stub":
        ok, message, _ = _judge(key, stub)
        assert ok is None and message.startswith("⚠ 还没有写好")
    elif kind == "raises":
        ok, message, mistake = _judge(key, raises)
        assert (ok, mistake) == (False, "error") and "ZeroDivisionError: division by zero" in message
    elif kind == "none_later":
        ok, message, mistake = _judge(key, none_later)
        assert (ok, mistake) == (False, "unreadable") and "None" in message
    elif kind == "loops":
        ok, message, mistake = _judge(key, loops, time_floor=0.2)
        assert (ok, mistake) == (False, "timeout")
    elif kind == "prints":
        ok, message, _ = _judge(key, prints)
        assert ok is True and "打印了" in message and len(message) < 600
    elif any(isinstance(a, np.ndarray) for a in exercise.cases()[0].args):  # 07-4's memory has no public way
        ok, message, mistake = _judge(key, mutates)                         # to change its problem
        assert (ok, mistake) == (False, "mutation")


# the stored hint lists 09-4's real-layer case: with the model only (fast tests run without it)
@pytest.mark.parametrize("key", [pytest.param(k, marks=[pytest.mark.model, pytest.mark.slow]) if k in NEEDS_MODEL
                                 else k for k in KEYS if k not in AWAITING_NOTEBOOK])
def test_each_exercise_sits_in_its_notebook_with_the_stubs_hint_stored(key):
    if key in NEEDS_MODEL and not _model_installed():
        pytest.skip(f"{key} lists one case more when the model is installed, as it is wherever its notebook runs")
    name = NOTEBOOK_OF[key[:2]]
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    call = f'helpers.exercises.check_code("{key}", {_function_name(CODE_EXERCISES[key])})'
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and call in "".join(c["source"])]
    assert len(cells) == 1, f"{name} has no cell calling {call}"
    source = "".join(cells[0]["source"])
    assert "...  # 在这里写" in source
    stored = "".join("".join(o.get("text", "")) for o in cells[0]["outputs"])
    assert stored == code_check.run(CODE_EXERCISES[key], lambda *a: None)[1] + "\n"
    shown = "".join("".join(o.get("text", "")) + json.dumps(o.get("data", {}), ensure_ascii=False)
                    for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"])
    body = [line for line in CODE_EXERCISES[key].solution.splitlines() if len(line.strip()) > 20]
    assert not any(line.strip() in shown for line in body), "the solution shows in a stored output"


def test_unknown_keys_and_non_functions_are_answered(capsys):
    assert exercises.check_code("99-9", print).ok is None
    assert exercises.solution("99-9") is None
    assert exercises.check_code("03-3", None).ok is None
    assert "⚠" in capsys.readouterr().out


def test_a_failure_inside_the_checker_is_still_a_sentence(capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("engine bug")
    assert exercises._verdict(broken, CODE_EXERCISES["03-3"], lambda x: x, (), {}).ok is None
    assert capsys.readouterr().out.startswith("⚠ 判分程序没能处理")


def test_a_failure_inside_the_reference_is_not_blamed_on_the_learner(capsys):
    def failing_reference(x):
        raise np.exceptions.AxisError("axis 1 is out of bounds")
    exercise = dataclasses.replace(CODE_EXERCISES["03-3"], reference=failing_reference)
    exercises._verdict(code_check.run, exercise, lambda x: np.asarray(x, float), (), {})
    out = capsys.readouterr().out
    assert "参考答案" in out and "不是你的函数的问题" in out and "检查函数的返回值" not in out


# ---- what learners did in a trial: the helper under another name, lists, reshapes, argument order ----
import helpers  # noqa: E402
from helpers.attention import scaled_dot_product_attention as sdpa_alias  # noqa: E402


def _gqa_with_helpers_repeat(q, k, v):
    n_rep = q.shape[1] // k.shape[1]
    k, v = helpers.layer.repeat_kv(k, n_rep), helpers.layer.repeat_kv(v, n_rep)
    out, _ = helpers.scaled_dot_product_attention(*(np.swapaxes(a, 0, 1) for a in (q, k, v)), causal=True)
    return np.swapaxes(out, 0, 1)


def _recurrent_with_helpers(phi_q, phi_k, v):
    out, state = helpers.linear_attention.forms.recurrent(phi_q, phi_k, v)
    return out, state.S, state.z


CHEATS = {
    "03-3": (lambda x: helpers.softmax(x), "helpers.softmax"),
    "05-3": (lambda q, k, v: helpers.scaled_dot_product_attention(q, k, v, causal=True),
             "helpers.scaled_dot_product_attention"),
    "06-3": (_gqa_with_helpers_repeat, "helpers.layer.repeat_kv"),
    "07-3": (lambda m, l, acc, s, v: helpers.tiled.online_softmax_update(m, l, acc, s, v),
             "helpers.tiled.online_softmax_update"),
    "07-4": (lambda mem, bq, bk: helpers.tiled.flash_forward(mem, bq, bk), "helpers.tiled.flash_forward"),
    "11-4": (lambda W_E, W_U, length: helpers.circuit.history.load() and None, "helpers.circuit.history.load"),
    "12-2": (lambda A, T: float(helpers.heads.induction_score(A, T)), "helpers.heads.induction_score"),
    "13-3": (lambda A, B, rows: float(helpers.heads.pattern_change(A, B, rows)), "helpers.heads.pattern_change"),
    "06-4": (lambda x, p, c: helpers.layer.apply_rope(np.reshape(x, (len(x), -1, x.shape[-1])), p, c.rope_theta,
                                                      c.rope_scaling).reshape(x.shape), "helpers.layer.apply_rope"),
    "09-4": (lambda x, cache, p, w: helpers.exercises.real_model._decode_reference(x, cache, p, w),
             "helpers.layer.attention_layer"),
    "14-4": (lambda qn, qp, c, kp, uk, uv: (
        helpers.smaller_cache.latent.absorbed_heads(qn, qp, c, kp, uk, uv, (uk.shape[1] + qp.shape[-1]) ** -0.5)[0],
        np.einsum("nhd,hdr->nhr", qn, uk)), "helpers.smaller_cache.latent.absorbed_heads"),
    "14-5": (lambda q, k, v, kept, theta: helpers.smaller_cache.streaming.rolling_step(q, k, v, theta),
             "helpers.smaller_cache.streaming.rolling_step"),
    "15-2": (lambda q, k, v: _recurrent_with_helpers(q, k, v), "helpers.linear_attention.forms.recurrent"),
}


@pytest.mark.parametrize("key", WITH_MODEL)
def test_calling_the_helper_the_exercise_asks_for_is_refused(key):
    cheat, name = CHEATS[key]
    ok, message, mistake = _judge(key, cheat)
    assert (ok, mistake) == (False, "forbidden") and "✔" not in message
    assert f"你的函数调用了 {name}" in message and "提示：" + CODE_EXERCISES[key].forbidden_hint in message


def test_the_helper_is_noticed_under_another_name_and_through_other_helpers():
    ok, _, mistake = _judge("05-3", lambda q, k, v: sdpa_alias(q, k, v, causal=True))
    assert (ok, mistake) == (False, "forbidden")
    ok, message, mistake = _judge("03-3", lambda x: helpers.scaled_dot_product_attention(x[None], x[None], x[None])[1][0])
    assert (ok, mistake) == (False, "forbidden") and "helpers.softmax" in message
    ok, _, mistake = _judge("12-2", lambda A, T: float(helpers.heads.all_scores(A, T)["induction"]))
    assert (ok, mistake) == (False, "forbidden")


def test_a_scalar_answer_is_asked_for_as_a_number():
    def no_mean(A, T):
        queries = np.arange(T + 1, 2 * T + 1)
        return A[queries, queries - T + 1]
    ok, message, mistake = _judge("12-2", no_mean)
    assert (ok, mistake) == (False, "shape") and "提示：应返回一个数，你返回的是形状 (3,) 的数组" in message
    ok, message, _ = _judge("12-2", lambda A, T: "0.5")
    assert ok is False and "返回值应是一个数，收到的是字符串（str）" in message and "数组" not in message
    ok, message, _ = _judge("07-3", lambda m, l, acc, s, v: ("m", l, acc))
    assert ok is False and "第 1 个返回值（m）应是一个数" in message
    ok, message, _ = _judge("03-3", lambda x: "0.5")
    assert ok is False and "返回值应是一个数组，收到的是字符串（str）" in message


def test_lists_of_numbers_are_accepted_wherever_an_array_is_asked():
    softmax, attention, online_step = _solution("03-3"), _solution("05-3"), _solution("07-3")
    assert _judge("03-3", lambda x: softmax(x).tolist())[0] is True
    assert _judge("05-3", lambda q, k, v: tuple(a.tolist() for a in attention(q, k, v)))[0] is True
    assert _judge("07-3", lambda *a: [float(online_step(*a)[0]), float(online_step(*a)[1]), list(online_step(*a)[2])])[0] is True
    assert _judge("12-2", lambda A, T: [_solution("12-2")(A, T)])[0] is True


def test_dropping_the_last_query_is_named():
    def range_excl(A, T):
        return float(np.mean([A[i, i - T + 1] for i in range(T + 1, 2 * T)]))
    ok, message, mistake = _judge("12-2", range_excl)
    assert (ok, mistake) == (False, "drops_last") and "少算了最后一个查询 2T（range 不含终点）" in message


def test_moving_heads_with_reshape_is_named():
    def reshape_not_transpose(q, k, v):
        n, h, d = q.shape
        r = h // k.shape[1]
        k, v = np.repeat(k, r, axis=1), np.repeat(v, r, axis=1)
        out, _ = helpers.scaled_dot_product_attention(q.reshape(h, n, d), k.reshape(h, n, d), v.reshape(h, n, d), causal=True)
        return out.reshape(n, h, d)
    ok, message, mistake = _judge("06-3", reshape_not_transpose)
    assert ok is False and mistake.startswith("reshape")
    assert "reshape 会把数据打乱" in message and "挪头这一维要用 transpose/swapaxes" in message


@pytest.mark.parametrize("order", ["l, m, acc", "acc, l, m", "m, acc, l"])
def test_returning_the_online_state_in_another_order_shows_each_value_against_its_name(order):
    online_step = _solution("07-3")

    def reordered(m, l, acc, s, v):
        state = dict(zip(("m", "l", "acc"), online_step(m, l, acc, s, v)))
        return tuple(state[name] for name in order.split(", "))
    ok, message, mistake = _judge("07-3", reordered)
    # no hint names the order (no public thread makes this slip): the values are shown under their names
    assert (ok, mistake) in ((False, "values"), (False, "shape")) and "提示：" in message
    assert "m 应得" in message or "acc 应得" in message


def test_the_messages_read_as_sentences():
    attention = _solution("05-3")
    _, message, _ = _judge("05-3", lambda q, k, v: attention(q, k, v)[0])
    assert "例如 return out, weights）" in message and "收到的是一个数组" in message
    assert "要写的是 attention(q, k, v)，返回两个数组：return out, weights。" in message
    _, message, _ = _judge("06-3", lambda q, k, v: (q, q))
    assert "要写的是 gqa_attention(q, k, v)，返回一个数组：每个查询头的输出，形状 (n, 查询头数, d)。" in message
    _, message, _ = _judge("12-2", lambda A, T: "x")
    assert "要写的是 induction_score(A, T)，返回一个数：归纳分数" in message
    for key in KEYS:
        text = messages.returns_clause(CODE_EXERCISES[key])
        assert not text.startswith("返回 ") and text.startswith(("返回", "按顺序返回")), text


def test_a_wrong_number_of_arguments_states_the_signature():
    def wrong_sig(A):
        return 0.0
    ok, message, mistake = _judge("12-2", wrong_sig)
    assert (ok, mistake) == (False, "error") and "应为 induction_score(A, T)" in message and "wrong_sig(A)" in message


def test_the_online_step_text_says_not_to_modify_acc_and_the_checker_agrees():
    text = (ROOT / "notebook_sources" / "07_cost_of_length.md").read_text(encoding="utf-8")
    exercise_text = text[text.index("**练习 3（写代码）**"):text.index('check_code("07-3"')]
    assert "不要原地修改传进来的 `acc`" in exercise_text

    def in_place(m, l, acc, s, v):
        m_new = max(m, s.max())
        c, p = np.exp(m - m_new), np.exp(s - m_new)
        acc *= c
        acc += p @ v
        return m_new, l * c + p.sum(), acc
    ok, message, mistake = _judge("07-3", in_place)
    assert (ok, mistake) == (False, "mutation") and "改写了传进来的参数 acc" in message


def test_the_shape_hint_is_given_only_for_a_shape_error():
    def boom(x):
        raise ValueError("boom")
    ok, message, _ = code_check.run(CODE_EXERCISES["03-3"], boom)
    assert ok is False and "ValueError: boom" in message and "对不上" not in message.split("提示：")[1]
    ok, message, _ = code_check.run(CODE_EXERCISES["03-3"], lambda x: np.ones(3) + np.ones(4))
    assert ok is False and "形状对不上" in message.split("提示：")[1]


def test_only_the_helper_the_learner_called_is_named_not_the_ones_it_calls():
    def with_apply_rope(x, positions, config):
        x = np.asarray(x, float)
        heads = x if x.ndim == 3 else x[:, None]
        out = helpers.layer.apply_rope(heads, positions, config.rope_theta, config.rope_scaling)
        return out.reshape(x.shape)
    ok, message, mistake = code_check.run(CODE_EXERCISES["06-4"], with_apply_rope)
    assert (ok, mistake) == (False, "forbidden")
    assert "helpers.layer.apply_rope" in message and "rotate_half" not in message.split("提示")[0]


def test_a_small_difference_is_shown_where_it_is_and_against_the_tolerance():
    """Off by 1e-4 in the last value only: the row shown is that row, and the size of the miss is
    printed beside the tolerance (both rows look alike at 4 digits)."""
    namespace = {}
    exec(CODE_EXERCISES["06-4"].solution, namespace)  # noqa: S102

    def off_at_the_last_value(x, positions, config):
        out = namespace["rope"](x, positions, config)
        out[(-1,) * out.ndim] += 1e-4
        return out
    ok, message, _ = code_check.run(CODE_EXERCISES["06-4"], off_at_the_last_value)
    assert ok is False and "第 3 行" in message and "下标 [3, 15]" in message
    assert "差 1.0e-04" in message and "允许的差" in message


def test_a_miss_within_float32_precision_prints_its_bound_not_its_rounding():
    """06-3 computed in float32 and returned as float64: the miss is rounding, whose digits change
    with the CPU's BLAS kernel, so the verdict names the bound it misses, never the miss's digits."""
    from grader_corpus import CORPUS
    from printed_gaps import noisy_lines

    fn = next(fn for label, fn, _ in CORPUS["06-3"][0] if label == "float32 inputs, float64 result")
    ok, message, mistake = code_check.run(CODE_EXERCISES["06-3"], fn)
    assert (ok, mistake) == (False, "small_difference")
    assert "差超过了允许的差 ≤" in message and "在 float32 的精度以内" in message
    assert not noisy_lines(message), noisy_lines(message)
