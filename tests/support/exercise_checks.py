"""Calling a notebook's answer checker the way a learner does, and reading what it printed."""
import contextlib
import io

from helpers import exercises


def check(key, answer):
    """``(verdict, printed text)`` of ``helpers.exercises.check`` (the verdict: its ``ok``)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        ok = exercises.check(key, answer).ok
    return ok, buffer.getvalue()
