"""How ``make test`` shares the suite between its two workers (pytest-xdist, ``-n 2 --dist loadfile``).

A file is one unit, as xdist's ``loadfile`` makes it: a notebook's cells must run in order in one kernel
(strict nbval), and a module's fixtures are built once. Two changes to ``loadfile``:

- the files that read the built book (:data:`BOOK`) are one unit: the book is a session fixture
  (tests/conftest.py), built in whichever worker first asks for it, and two workers would each build
  their own;
- the units go out longest first (:data:`SECONDS`), so that the last units to start are short ones and
  both workers finish at about the same time; a unit not listed counts :data:`PER_TEST` per test.
"""
from __future__ import annotations

from collections import OrderedDict

from xdist.scheduler import LoadFileScheduling

#: the test files that read the session's built book (the ``site`` fixture)
BOOK = ("tests/series/test_site.py", "tests/series/test_live_site.py", "tests/series/test_sentence_page.py")
#: seconds of the slowest units in one sequential run of make test (2-core Xeon): only their order matters
SECONDS: dict = {}
#: seconds per test of a unit not in SECONDS
PER_TEST = 0.2


def unit(nodeid: str) -> str:
    """The unit a test goes out in: its file, or ``"book"`` for the files that read the built book."""
    path = nodeid.split("::", 1)[0]
    return "book" if path in BOOK else path


class SeriesScheduling(LoadFileScheduling):
    """``loadfile`` with the book's files as one unit and the longest units sent first."""

    _sorted = False

    def _split_scope(self, nodeid: str) -> str:
        return unit(nodeid)

    def _assign_work_unit(self, node) -> None:
        if not self._sorted:  # the first assignment: the queue holds every unit, in collection order
            self.workqueue = OrderedDict(sorted(
                self.workqueue.items(), key=lambda item: -SECONDS.get(item[0], PER_TEST * len(item[1]))))
            self._sorted = True
        super()._assign_work_unit(node)
