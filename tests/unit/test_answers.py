"""helpers.grading.answers: how a learner's typed answer is read and compared."""
import numpy as np
import pytest

from helpers.grading import answers as an
from helpers.grading.answers import Choice, Malformed


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


def test_typographic_minus_is_read_as_minus():
    assert an.parse_number("−0.15") == -0.15
    assert an.clean_text("[0.25, −0.15]") == "[0.25,-0.15]"
