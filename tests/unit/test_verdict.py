"""helpers.grading.verdict: the outcomes of checking a learner's function, each worded by one function."""
import pytest

from helpers.exercises import CODE_EXERCISES
from helpers.grading import messages
from helpers.grading.verdict import OUTCOMES, Outcome


def test_every_outcome_is_worded_and_every_wording_is_an_outcome():
    assert list(messages.WORDING) == list(OUTCOMES)


def test_an_outcome_knows_its_verdict_and_its_mistake():
    assert (Outcome("right").ok, Outcome("right").mistake) == (True, None)
    assert (Outcome("timed_out").ok, Outcome("timed_out").mistake) == (False, "timeout")
    assert (Outcome("unwatched").ok, Outcome("unanswered").ok) == (None, None)
    assert Outcome("wrong", diagnosis="shape").mistake == "shape"
    with pytest.raises(ValueError, match="kind must be one of not_a_function, .*got 'late'"):
        Outcome("late")


def test_the_notes_end_every_message_they_are_given_to():
    exercise = next(iter(CODE_EXERCISES.values()))
    said = messages.word(exercise, Outcome("unwatched", index=2, evidence=("sys.setprofile",),
                                           notes=("（一条说明）",)), 5)
    assert said.splitlines()[0] == "⚠ 判分没能看住你的函数：运行时，sys.setprofile被拿掉了（第 2 组）。"
    assert said.splitlines()[-1] == "（一条说明）"
