"""helpers.render.format.wrap_text: where a long printed line is folded.

A line ends after CJK punctuation or at a space when one lies within its last third; only where a
clause offers no such point does it break beside a CJK character (which may split a Chinese word).
The guarantees that never bend (numbers, names, glued groups whole; punctuation never starts a line)
are checked over stored outputs in tests/series/test_output_lines.py; here the new preference, and a
property test over random mixed text.
"""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.render.format import _BREAK_AFTER, _CLOSING, _PIECES, _width, wrap_text

#: a clause of 14 CJK characters (28 columns) ending in a comma, then a long one with no break point
CLAUSE = "前一个分数高的头在第二遍里，"
LONG = "归纳头把权重放在上次出现之后那个位置上面去看下一个词"


def test_a_line_ends_after_a_comma_in_its_last_third_rather_than_inside_a_word():
    lines = wrap_text(CLAUSE + LONG, 40).split("\n")
    assert lines[0] == CLAUSE, lines  # 28 of 40 columns: inside the last third


def test_a_line_ends_at_a_space_in_its_last_third():
    text = "一二三四五六七八九十一二三四 token 五六七八九十一二三四五六七八九"
    lines = wrap_text(text, 40).split("\n")
    assert lines[0] == "一二三四五六七八九十一二三四 token", lines


@pytest.mark.parametrize("mark", list("，；：。、"))
def test_each_cjk_mark_is_a_preferred_break(mark):
    lines = wrap_text("甲" * 14 + mark + "乙" * 30, 40).split("\n")
    assert lines[0] == "甲" * 14 + mark, lines


def test_a_comma_too_early_in_the_line_is_not_used():
    # the comma ends at column 12 of 40: breaking there would leave the line two thirds empty
    lines = wrap_text("甲" * 5 + "，" + "乙" * 40, 40).split("\n")
    assert _width(lines[0]) == 40 and lines[0].endswith("乙"), lines


def test_without_a_break_point_the_line_is_filled_as_before():
    lines = wrap_text("字" * 50, 40).split("\n")
    assert [_width(line) for line in lines] == [40, 40, 20]


def test_the_preferred_break_keeps_the_indent_and_the_width():
    lines = wrap_text((CLAUSE + LONG) * 3, 40, indent="    ").split("\n")
    assert all(_width(line) <= 40 for line in lines), lines
    assert all(line.startswith("    ") for line in lines[1:]), lines
    assert lines[0] == CLAUSE, lines


def test_printed_sentence_from_notebook_12_breaks_after_its_commas():
    text = ("选一种分数和名次，看这个头在第 1 条（种子 0）序列上的权重、它的三种分数，以及只去掉它时第二遍"
            "损失的变化——置零、换成均值、重采样三种做法各一个数（12 条序列的平均，来自扫描）")
    lines = wrap_text(text, 60, indent="  ").split("\n")
    assert all(line.rstrip()[-1] in _BREAK_AFTER + "）" for line in lines), lines


#: mixed text: CJK words, punctuation, numbers, names and spaces, as the helpers print
_WORDS = st.sampled_from(["归纳头", "第二遍", "损失", "的", "权重", "分数", "模型", "，", "；", "：", "。",
                          "、", "（区间）", " ", " 0.746 ", "lm_head", " 18.6 ", "[+1.47, +2.10]", "T = 16",
                          "64 KiB", "“上次的下一个”", "−0.38"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=80), st.integers(20, 120), st.sampled_from(["", "  "]))
def test_folding_keeps_the_text_and_the_width(words, width, indent):
    text = "".join(words)
    lines = wrap_text(text, width, indent=indent).split("\n")
    # joining the lines gives back the text (a break at a space drops only that space)
    assert re.sub(r"\s+", "", "".join(lines)) == re.sub(r"\s+", "", text)
    assert all(line.strip() in text for line in lines)
    # no line is wider than the width unless it is one piece that cannot be split
    assert all(_width(line) <= width or len(_PIECES.findall(line.strip())) == 1 for line in lines), lines
    # punctuation never starts a line; continuation lines carry the indent
    assert not any(line.strip()[:1] in _CLOSING for line in lines[1:] if line.strip()), lines
    assert all(line.startswith(indent) for line in lines[1:]), lines


def test_a_line_ends_before_an_opening_bracket_rather_than_at_an_earlier_space():
    text = "只有键减去 16.0：第二遍的查询放在起始 token 上 0.96，放在“上次的下一个”上 0.00，其余位置 0.03（12 条序列的平均）"
    lines = wrap_text(text, indent="  ").split("\n")
    assert lines == [text[:text.index("（")], "  （12 条序列的平均）"]
