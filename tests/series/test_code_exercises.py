"""Every code exercise (helpers.exercises.check_code, issue 27): the reference and the printed solution
pass; each usual mistake is rejected with its own hint; the unfilled stub, a function that raises,
returns None, loops, prints or modifies its input gets a hint, never a traceback; each exercise sits
in its notebook with the stub's hint as the stored output and no solution in any output."""
import dataclasses
import json

import numpy as np
import pytest
from paths import ROOT

from helpers import exercises
from helpers.exercises import CODE_EXERCISES
from helpers.render import code_check

KEYS = list(CODE_EXERCISES)
#: code exercises whose cells the lead inserts into their notebook at merge (12 is rewritten elsewhere)
AWAITING_NOTEBOOK = {"12-4"}
NOTEBOOK_OF = {"03": "03_hand_calculation", "05": "05_causal_mask", "06": "06_attention_layer",
               "07": "07_cost_of_length", "12": "12_heads_at_work"}


def _function_name(exercise):
    return exercise.signature.split("(")[0]


def _judge(key, fn, **changes):
    exercise = dataclasses.replace(CODE_EXERCISES[key], **changes) if changes else CODE_EXERCISES[key]
    ok, message, mistake = code_check.run(exercise, fn)
    assert isinstance(message, str) and "Traceback" not in message
    assert any("\u4e00" <= ch <= "\u9fff" for ch in message)
    return ok, message, mistake


def test_five_exercises_where_their_ideas_are_taught():
    assert set(KEYS) >= {"03-3", "05-3", "06-3", "07-3", "12-4"}


@pytest.mark.parametrize("key", KEYS)
def test_the_reference_and_the_printed_solution_pass(key, capsys):
    exercise = CODE_EXERCISES[key]
    assert _judge(key, exercise.reference)[0] is True
    namespace = {}
    exec(exercise.solution, namespace)  # noqa: S102 — our own solution text
    ok, message, _ = _judge(key, namespace[_function_name(exercise)])
    assert ok is True, message
    exercises.solution(key)
    assert exercise.solution in capsys.readouterr().out


@pytest.mark.parametrize("key", KEYS)
def test_every_usual_mistake_is_rejected_with_its_own_hint(key):
    exercise = CODE_EXERCISES[key]
    wrong = [m for m in exercise.mistakes if m.wrong is not None]
    assert len(wrong) >= 5
    for mistake in wrong:
        ok, message, _ = _judge(key, mistake.wrong)
        assert ok is False, mistake.name
        assert "提示：" + mistake.hint in message, (mistake.name, message)


def _first_array(args):
    return next(i for i, a in enumerate(args) if isinstance(a, np.ndarray))


@pytest.mark.parametrize("key", KEYS)
def test_misbehaving_functions_get_a_hint_not_a_traceback(key):
    exercise = CODE_EXERCISES[key]

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

    ok, message, _ = _judge(key, stub)
    assert ok is None and message.startswith("⚠ 还没有写好")
    ok, message, mistake = _judge(key, raises)
    assert (ok, mistake) == (False, "error") and "ZeroDivisionError: division by zero" in message
    ok, message, mistake = _judge(key, none_later)
    assert (ok, mistake) == (False, "unreadable") and "None" in message
    ok, message, mistake = _judge(key, loops, time_limit=0.2)
    assert (ok, mistake) == (False, "timeout")
    ok, message, _ = _judge(key, prints)
    assert ok is True and "打印了" in message and len(message) < 600
    ok, message, mistake = _judge(key, mutates)
    assert (ok, mistake) == (False, "mutation")


@pytest.mark.parametrize("key", [k for k in KEYS if k not in AWAITING_NOTEBOOK])
def test_each_exercise_sits_in_its_notebook_with_the_stubs_hint_stored(key):
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
    assert exercises.check_code("99-9", print) is None
    assert exercises.solution("99-9") is None
    assert exercises.check_code("03-3", None) is None
    assert "⚠" in capsys.readouterr().out


def test_a_failure_inside_the_checker_is_still_a_sentence(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("engine bug")
    monkeypatch.setattr(code_check, "run", broken)
    assert exercises.check_code("03-3", lambda x: x) is None
    assert capsys.readouterr().out.startswith("⚠ 判分程序没能处理")
