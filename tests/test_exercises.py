"""The self-checking exercises: every checker says right, wrong, or gives a Chinese hint — never raises."""
import numpy as np
import pytest

from helpers import exercises as ex
from helpers import heads
from helpers.exercises import EXERCISES, QUIZ
from helpers.exercises.heads_at_work import LayerNumber
from helpers.render import answers as an
from helpers.render.answers import Choice, Malformed, Number, Numbers

MALFORMED = ["abc", "", "   ", [], {}, {"a": 1}, object(), float("nan"), float("inf"),
             [[1, 2], [3]], b"\xff", "1.2.3", "12 parsecs", -1e400]


def fake_weights(prev_share):
    """Three layers × two heads of 6×6 causal weights; layer 1 head 1 puts ``prev_share`` on the
    previous token, every other head spreads its weight evenly."""
    n = 6
    even = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    prev = np.eye(n) * (1 - prev_share) + np.eye(n, k=-1) * prev_share
    prev[0, 0] = 1.0
    return [np.stack([even, prev if layer == 1 else even]) for layer in range(3)]


class FakeStudy:
    """The attributes of a :class:`helpers.heads.HeadStudy` the 11-x exercises read, without the model:
    4 layers × 3 heads, induction strongest at layer ``induction_layer``, previous-token at layer 1
    (first) and layer 3 (second: after the induction head unless ``induction_layer`` is 3)."""

    def __init__(self, induction_layer=2, first=7.5, second=1.25):
        self.seeds, self.shape = (0, 1, 2), (4, 3)
        self.first_copy_loss, self.second_copy_loss = first, second
        rng = np.random.default_rng(0)
        self.scores = {name: rng.uniform(0, 0.2, self.shape) for name in heads.SCORES}
        self.scores["induction"][induction_layer, 1] = 0.9
        self.scores["previous"][1, 0] = 0.8
        self.scores["previous"][3, 2] = 0.7
        self.ablated = []

    def top(self, score, k):
        return heads.top_heads(self.scores[score], k)

    def second_copy_loss_without(self, ablated):
        self.ablated.append(list(ablated))
        return self.second_copy_loss + 2.0 * len(ablated)

    def ablate(self, ablated):
        """Like the real study: layers below the lowest ablated head keep their scores."""
        self.ablated.append(list(ablated))
        induction = self.scores["induction"].copy()
        induction[min(layer for layer, _ in ablated):] *= 0.5
        return {"induction": induction}


def context(key):
    if key.startswith("11-"):
        return {"study": FakeStudy()}
    if key == "09-1":
        weights = fake_weights(0.9)
        return {"short": weights, "ranked": ex.previous_token_ranking(weights)}
    return {}


def correct_answer(exercise, expected):
    kind = exercise.kind
    if isinstance(kind, Number):
        return an.rounded(expected, kind.digits).replace(",", "")
    if isinstance(kind, Numbers):
        return [an.rounded(e, kind.digits) for e in expected]
    return expected


def wrong_answer(exercise, expected):
    kind = exercise.kind
    if isinstance(kind, Number):
        return float(expected) + (kind.slack + 2) * 10.0 ** (-kind.digits)
    if isinstance(kind, Numbers):
        return [float(expected[0]) + (kind.slack + 2) * 10.0 ** (-kind.digits), *expected[1:]]
    return next(o for o in kind.options if o != expected)


ALL = {**EXERCISES, **QUIZ}


@pytest.mark.parametrize("key", list(ALL))
def test_every_checker_right_wrong_unanswered_and_malformed(key, capsys):
    exercise = ALL[key]
    expected, working = exercise.solve(**context(key))
    assert an.judge(exercise, None, **context(key)) == (None, an.UNANSWERED)
    ok, message = an.judge(exercise, correct_answer(exercise, expected), **context(key))
    assert ok is True and message.startswith("✔") and working in message
    ok, message = an.judge(exercise, wrong_answer(exercise, expected), **context(key))
    assert ok is False and message.startswith("✘") and working in message
    assert exercise.kind.show(expected) in message  # the wrong answer sees the right one and why
    for bad in MALFORMED:
        ok, message = an.judge(exercise, bad, **context(key))
        assert ok is None and message.startswith("⚠"), (bad, message)
        assert any("\u4e00" <= ch <= "\u9fff" for ch in message)  # a Chinese hint


@pytest.mark.parametrize("key", [k for k, e in ALL.items() if isinstance(e.kind, (Number, Numbers))
                                 and not isinstance(e.kind, LayerNumber)])  # a layer is whole: see 11-2 below
def test_number_checkers_round_to_the_asked_precision_at_the_boundary(key):
    exercise = ALL[key]
    expected, _ = exercise.solve(**context(key))
    kind = exercise.kind
    first = float(np.ravel(expected)[0])
    step = 10.0 ** (-kind.digits)
    centre = an.steps(first, kind.digits) * step
    inside = centre + (kind.slack + 0.4) * step   # rounds to the last accepted value
    outside = centre + (kind.slack + 0.6) * step  # rounds one past it

    def answer(value):
        return value if isinstance(kind, Number) else [value, *list(expected)[1:]]

    assert an.judge(exercise, answer(inside), **context(key))[0] is True
    assert an.judge(exercise, answer(outside), **context(key))[0] is False
    assert an.judge(exercise, answer(centre - (kind.slack + 0.4) * step), **context(key))[0] is True
    assert an.judge(exercise, answer(centre - (kind.slack + 0.6) * step), **context(key))[0] is False


def test_the_issue_cases(capsys):
    assert ex.check("03-2", "“假”") is True
    assert ex.check("03-2", "「假」。") is True
    assert ex.check("03-1", [0.25, 0.50, 0.12]) is None
    out = capsys.readouterr().out
    assert "要 4 个数" in out and "你填了 3 个" in out
    assert ex.check("03-1", "0.13，0.27，0.06，0.54") is True
    assert ex.check("03-1", "[0.13、0.27、0.06、0.54]") is True
    assert ex.closing_quiz({"q8": "2.3倍"})["q8"] is True
    assert ex.closing_quiz({"q8": "２.３ 倍"})["q8"] is True
    assert ex.closing_quiz({"q8": "2.3x"})["q8"] is True
    assert ex.closing_quiz({"q10": "16 GiB"})["q10"] is True
    assert ex.closing_quiz({"q10": "16 MiB"})["q10"] is None  # wrong unit: a hint, not a verdict
    assert "单位" in capsys.readouterr().out
    assert ex.closing_quiz({"q7": "5%"})["q7"] is True  # 5% = 0.05


def test_several_numbers_keep_their_units():
    # "64 KiB, 256 KiB" is two numbers with units, not four items
    assert an.parse_numbers("64 KiB, 256 KiB", 2, unit="KiB") == [64.0, 256.0]
    assert an.parse_numbers("64 KiB 256 KiB", 2, unit="KiB") == [64.0, 256.0]
    assert an.parse_numbers("0.25 0.5, 0.12 0.12", 4) == [0.25, 0.5, 0.12, 0.12]
    with pytest.raises(Malformed, match="你填了 3 个"):
        an.parse_numbers("64 KiB 256 KiB 8", 2, unit="KiB")
    with pytest.raises(Malformed, match="单位"):
        an.parse_numbers("64 MiB, 256 KiB", 2, unit="KiB")


def test_tolerance_is_symmetric():
    # 2.3 ± 0.1 at one decimal: 2.2 and 2.4 are treated alike (float 2.4 - 2.3 > 0.1 used to reject it)
    assert an.same_at_precision(2.2, 2.3, 1, slack=1) is True
    assert an.same_at_precision(2.4, 2.3, 1, slack=1) is True
    assert an.same_at_precision(2.15, 2.3, 1, slack=1) is True   # rounds to 2.2
    assert an.same_at_precision(2.45, 2.3, 1, slack=1) is False  # rounds to 2.5
    assert an.same_at_precision(2.14, 2.3, 1, slack=1) is False
    assert an.same_at_precision(2.2, 2.3, 1) is False and an.same_at_precision(2.4, 2.3, 1) is False
    assert an.same_at_precision(-2.25, -2.3, 1) is True and an.same_at_precision(2.25, 2.3, 1) is True
    assert an.same_at_precision(52_600, 53_026.6, -3) is True and an.same_at_precision(52_400, 53_026.6, -3) is False


@pytest.mark.parametrize("text, unit, value", [
    ("2.3倍", "倍", 2.3), (" 2.3 倍 ", "倍", 2.3), ("２．３", None, 2.3), ("14%", None, 0.14), ("１４％", None, 0.14),
    ("16 GiB", "GiB", 16.0), ("16G", "GiB", 16.0), ("53,000", None, 53000.0), ("“0.5”", None, 0.5), (".5", None, 0.5),
    ("512维", "维", 512.0), (3, None, 3.0), (np.float32(0.25), None, 0.25), ("-1e-3", None, -0.001),
])
def test_parse_number_accepts_natural_forms(text, unit, value):
    assert an.parse_number(text, unit=unit) == pytest.approx(value)


@pytest.mark.parametrize("text, hint", [
    ("abc", "没能从"), ("2.3 parsecs", "看不懂"), ("16 MiB", "单位"), (True, "一个数"), ([1, 2], "一组"),
    (float("nan"), "有限"),
])
def test_parse_number_hints(text, hint):
    with pytest.raises(Malformed, match=hint):
        an.parse_number(text, unit="GiB" if text == "16 MiB" else None)


def test_choice_normalises_quotes_width_case_and_aliases():
    choice = Choice(("Q", "K", "V"), {"查询": "Q"})
    assert [choice.read(a) for a in ("q", "Ｑ", "“Q”", " 'q' ", "查询")] == ["Q"] * 5
    with pytest.raises(Malformed, match="不在选项里"):
        choice.read("X")
    assert an.CAN.read("不可以") == "不能" and an.YES_NO.read("“是”。") == "是" and an.WILL.read("不变") == "不会"


def test_check_names_unknown_exercise_instead_of_raising(capsys):
    assert ex.check("99-9", "x") is None
    assert "没有编号" in capsys.readouterr().out


def test_quiz_covers_the_three_outcomes_and_shows_reasoning_when_wrong(capsys):
    assert len(QUIZ) >= 8
    prompts = " ".join(e.prompt for e in QUIZ.values())
    for topic in ("第一列", "遮掉", "999", "×16", "√d", "KV Cache"):
        assert topic in prompts
    results = ex.closing_quiz({})
    assert set(results.values()) == {None} and "得分：0" in capsys.readouterr().out
    results = ex.closing_quiz({"q9": "4 倍"})
    out = capsys.readouterr().out
    assert results["q9"] is False and "比值 ∝ n" in out
    assert ex.closing_quiz(["Q"]) == {key: None for key in QUIZ}
    assert "字典" in capsys.readouterr().out


def test_previous_token_exercise_is_an_experiment_on_the_given_weights():
    strong, weak = fake_weights(0.9), fake_weights(0.3)
    ranked = ex.previous_token_ranking(strong)
    assert ranked[0][1:] == (1, 1) and ranked[0][0] == pytest.approx(0.9)
    assert an.judge(EXERCISES["09-1"], "是", short=strong, ranked=ranked)[0] is True
    assert an.judge(EXERCISES["09-1"], "是", short=weak, ranked=ranked)[0] is False
    with pytest.raises(ValueError, match="weights\\[0\\] must have shape"):
        ex.previous_token_ranking([np.ones((2, 1, 1))])


def test_reference_answers_stay_hidden_until_asked(capsys):
    ex.reference("09-2")
    hidden = capsys.readouterr().out
    ex.reference("09-2", show=True)
    shown = capsys.readouterr().out
    assert ex.REFERENCES["09-2"] not in hidden and ex.REFERENCES["09-2"] in shown


def test_row_checker_working_matches_the_article():
    row, working = an.row_working("申请")
    assert "0.179, 0.735, 0.043, 0.043" in working
    assert np.isclose(row.weights.sum(), 1.0)


def test_fixed_weights_miss_the_item_content_weights_find_it():
    from helpers.weighting import fixed_vs_content

    a, b = fixed_vs_content()
    assert a.fixed_on_target == pytest.approx(a.content_on_target)
    assert a.content_on_target > 0.7 and b.content_on_target > 0.7
    assert b.fixed_on_target < 0.2
    # the weight the fixed vector puts elsewhere lands on a position that carries no item
    assert b.fixed_weights.argmax() == 1 and b.content_weights.argmax() == 0


def test_weighting_validation():
    from helpers.weighting import normalise_weights, weighted_average

    with pytest.raises(ValueError, match="raw weights must be >= 0"):
        normalise_weights([1, -1, 0, 0])
    with pytest.raises(ValueError, match="sum to 1"):
        weighted_average([[1, 0], [0, 1]], [0.7, 0.7])
    with pytest.raises(ValueError, match="weights has 3 entries but vectors has 2 rows"):
        weighted_average([[1, 0], [0, 1]], [0.2, 0.3, 0.5])


def test_typographic_minus_is_read_as_minus():
    from helpers.render import answers

    assert answers.parse_number("−0.15") == -0.15
    assert answers.clean_text("[0.25, −0.15]") == "[0.25,-0.15]"


# ---- 11_heads_at_work: answers computed from the study passed as context -----------------------
def test_lower_copy_follows_the_study_and_reads_natural_forms(capsys):
    study = FakeStudy()
    for right in (2, 2.0, "2", "第二遍", "“第二遍”", "２", "Second", " 第 2 遍 "):
        assert ex.check("11-1", right, study=study) is True, right
    for wrong in (1, "第一遍", "first"):
        assert ex.check("11-1", wrong, study=study) is False, wrong
    assert "答案是 第二遍" in capsys.readouterr().out
    assert ex.check("11-1", 1, study=FakeStudy(first=1.0, second=3.0)) is True  # computed, not typed in
    out = capsys.readouterr().out
    assert "第一遍每个 token 的损失 1.000" in out and "第二遍 3.000" in out
    for bad in ("第三遍", 3, 1.5, float("nan"), {"copy": 2}, [1, 2], "", object()):
        assert ex.check("11-1", bad, study=study) is None, bad
        assert "⚠" in capsys.readouterr().out


def test_earlier_head_names_previous_token_heads_and_shows_their_ablations(capsys):
    study = FakeStudy(induction_layer=2)
    for right in ("前一个 token 头", "“前一个token头”", "previous-token", "Previous Token", "上一个 token 头",
                  "previous-token head", "prev-token head", "前一个 token", "上一个token的头"):
        assert ex.check("11-3", right, study=study) is True, right
    assert ex.check("11-3", "汇聚头", study=study) is False
    assert ex.check("11-3", "ｉｎｄｕｃｔｉｏｎ", study=study) is False  # full-width: read, then judged
    out = capsys.readouterr().out
    assert "第 2 层（第 1 个头）" in out and "第 1 层第 0 个头" in out and "1.250 → 3.250" in out
    assert "归纳分数 0.900 → 0.450" in out  # the evidence: the induction head's own score drops
    assert [[(1, 0)]] == study.ablated[:1]  # only heads below the induction head are ablated
    assert all(layer < 2 for heads_ in study.ablated for layer, _ in heads_)
    for bad in ("注意力头", 3, float("nan"), {"head": "previous"}, ["前一个 token 头"]):
        assert ex.check("11-3", bad, study=study) is None, bad


def test_later_head_is_the_layer_above_the_induction_head_and_its_ablation_is_shown(capsys):
    study = FakeStudy(induction_layer=2)  # previous-token heads at layers 1 (first) and 3 (second)
    for right in (3, 3.0, "3", "第3层", "“第 3 层”", "３", "3层"):
        assert ex.check("11-2", right, study=study) is True, right
    for wrong in (1, 2, "第1层", 0):
        assert ex.check("11-2", wrong, study=study) is False, wrong
    out = capsys.readouterr().out
    assert "答案是 3 层" in out and "第 3 层第 2 个头" in out and "0.900 → 0.900" in out  # computed, unchanged
    assert study.ablated[-1] == [(3, 2)]
    for near in (2.6, 3.4, "3.4", 2.999):  # would round to 3, but a layer is a whole number
        assert ex.check("11-2", near, study=study) is None, near
    assert "整数" in capsys.readouterr().out
    for bad in (-1, float("nan"), float("inf"), 10**400, {"layer": 3}, [3], "三层", "3 parsecs", True):
        assert ex.check("11-2", bad, study=study) is None, bad
    late = FakeStudy(induction_layer=0)  # now the layer-1 head is the first one above it
    assert ex.check("11-2", 1, study=late) is True
