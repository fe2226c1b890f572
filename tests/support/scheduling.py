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
#: seconds of the slowest units in one sequential run of make test (2-core Xeon at load ≈ 5, so about 1.5 times
#: a quiet machine's): only their order matters
SECONDS = {
    "book": 890, "tests/series/test_figures.py": 520, "tests/series/test_browser.py": 330,
    "tests/series/test_sentence_engine.py": 160, "tests/series/test_install_from_index.py": 105,
    "tests/series/test_readable_text.py": 95, "tests/series/test_colab_stack.py": 80,
    "notebooks/13_induction_circuit.ipynb": 70, "tests/series/test_api_fuzz.py": 65, "tests/unit/test_heads_scan.py": 65,
    "tests/series/test_wheel_notebooks.py": 60, "tests/series/test_explorers.py": 60,
    "tests/series/test_code_exercises.py": 50, "tests/series/test_grader_mutations.py": 50,
    "tests/notebooks/test_induction_circuit.py": 45, "tests/series/test_setup_cell.py": 45,
    "notebooks/09_real_model.ipynb": 40, "notebooks/12_heads_at_work.ipynb": 30,
}
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
