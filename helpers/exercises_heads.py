"""Self-checking exercises of ``11_heads_at_work``.

Each checker takes whatever the reader typed, never raises, prints a verdict in Chinese with the
notebook's own numbers as the working, and returns ``True``/``False`` (``None`` when unanswered).
The numbers come from :func:`helpers.heads.study`, the same runs the notebook shows.
"""
from __future__ import annotations

import math

from .display import fmt

UNANSWERED = "还没有作答：把答案填进上面的变量，再运行这个单元。"


def _verdict(ok: bool, working: str) -> bool:
    print(("✔ 正确！" if ok else "✘ 还不对。") + "\n" + working)
    return ok


def _text(answer) -> str:
    """The answer as lower-case text without spaces ('' when it cannot be shown as text)."""
    try:
        return "".join(str(answer).split()).lower()
    except Exception:  # any object a reader might type: never let the checker fail
        return ""


def _whole_number(answer):
    """``answer`` as an int if it is a whole number (int, float or numeric text), else ``None``."""
    if isinstance(answer, bool):
        return None
    try:
        value = float(answer if isinstance(answer, (int, float)) else _text(answer).lstrip("第").rstrip("层"))
    except (TypeError, ValueError, OverflowError):
        return None
    return int(value) if math.isfinite(value) and value == int(value) else None


COPY_WORDS = {1: {"1", "一", "第一遍", "第1遍", "first", "第一"}, 2: {"2", "二", "第二遍", "第2遍", "second", "第二"}}


def check_lower_copy(answer):
    """Which copy of a repeated random-token sequence has the lower loss: 1 (first) or 2 (second)?"""
    if answer is None:
        print(UNANSWERED)
        return None
    from .heads import study

    s = study()
    given = next((copy for copy, words in COPY_WORDS.items() if _text(answer) in words), None)
    lower = 1 if s.first_copy_loss < s.second_copy_loss else 2
    working = (f"{len(s.seeds)} 条序列的平均：第一遍每个 token 的损失 {fmt(s.first_copy_loss)}，"
               f"第二遍 {fmt(s.second_copy_loss)}。第二遍的每个 token 在上文出现过，模型可以照着抄。")
    if given is None:
        working = f"没看懂答案 {answer!r}：请填 1（第一遍）或 2（第二遍）。\n" + working
    return _verdict(given == lower, working)


PREVIOUS_WORDS = {"前一个token", "前一个token头", "前一个", "前一个头", "上一个token", "上一个token头", "上一个",
                  "previous", "previous-token", "previoustoken", "prev", "prev-token", "previous-tokenhead"}


def check_earlier_head(answer):
    """Which kind of head must sit in an earlier layer for an induction head to work?"""
    if answer is None:
        print(UNANSWERED)
        return None
    from .heads import study

    s = study()
    top_induction = s.top("induction", 1)[0]
    earlier = [h for h in s.top("previous", 3) if h[0] < top_induction[0]]
    lines = [f"得分最高的归纳头在第 {top_induction[0]} 层（第 {top_induction[1]} 个头）。"
             "它要找“上次出现当前 token 之后的那个位置”，这个位置得先“记住自己前面是谁”——"
             "这件事由更早一层的前一个 token 头完成。"]
    for layer, head in earlier:
        loss = s.second_copy_loss_without([(layer, head)])
        lines.append(f"第 {layer} 层第 {head} 个头（前一个 token 分数 {fmt(s.scores['previous'][layer, head])}）："
                     f"只去掉它，第二遍的损失 {fmt(s.second_copy_loss)} → {fmt(loss)}")
    ok = _text(answer).replace("（", "").replace("）", "") in PREVIOUS_WORDS
    return _verdict(ok, "\n".join(lines))


def check_top_induction_layer(answer):
    """In which layer is the head with the highest induction score? (a whole number)"""
    if answer is None:
        print(UNANSWERED)
        return None
    from .heads import study

    s = study()
    layer, head = s.top("induction", 1)[0]
    given = _whole_number(answer)
    working = (f"归纳分数最高的是第 {layer} 层第 {head} 个头（{fmt(s.scores['induction'][layer, head])}），"
               f"层从 0 数起，共 {s.shape[0]} 层。")
    if given is None:
        working = f"没看懂答案 {answer!r}：请填一个整数，比如 5。\n" + working
    return _verdict(given == layer, working)
