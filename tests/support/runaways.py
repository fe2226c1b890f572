"""Learner functions that never return, each in its own way of resisting the grader's stop: the
grader's tests (tests/unit/test_watch.py, tests/series/test_grader_mutations.py) check each is
stopped within the stated bound and named truly."""
from __future__ import annotations

import signal
import time


def loop(x):
    """A plain endless loop."""
    while True:
        pass


def _catching(caught: type, name: str, doc: str):
    def runaway(x):
        while True:
            try:
                while True:
                    pass
            except caught:
                pass
    runaway.__name__ = runaway.__qualname__ = name
    runaway.__doc__ = doc
    return runaway


swallows = _catching(BaseException, "swallows", "An endless loop that catches the time-out and goes on.")
catches_exceptions = _catching(Exception, "catches_exceptions", "An endless loop that catches every Exception, "
                               "as a learner might write (the time-out is not one), and goes on.")


def swallows_everything(x):
    """Catches the time-out at two depths, also while handling it."""
    while True:
        try:
            while True:
                try:
                    pass
                except BaseException:  # noqa: BLE001
                    pass
        except BaseException:  # noqa: BLE001
            pass


def recurses_in_handler(x):
    """Recurses without end, and recurses again in the handler of its RecursionError."""
    try:
        return recurses_in_handler(x)
    except BaseException:  # noqa: BLE001
        return recurses_in_handler(x)


def sleeps_in_handler(x):
    """Sleeps, and sleeps again whenever it is interrupted."""
    while True:
        try:
            time.sleep(10)
        except BaseException:  # noqa: BLE001
            continue


def grows(x):
    """Keeps allocating, and frees every 400 appends (memory stays small, time does not)."""
    keep = []
    while True:
        keep.append([0] * 1000)
        if len(keep) >= 400:
            keep.clear()


def ignores_the_alarm(x):
    """Turns off SIGALRM, then loops."""
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    loop(x)


def ignores_the_alarm_and_swallows(x):
    """Turns off SIGALRM, then loops swallowing whatever is raised."""
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    swallows(x)


def cancels_the_timer(x):
    """Cancels the interval timer, then loops."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    loop(x)
