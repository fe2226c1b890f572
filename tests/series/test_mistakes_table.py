"""The table "mistakes we grade and where they come from" (CONTRIBUTING.md, written by
tools/checks/mistakes_table.py from each Mistake's ``seen``): it is current, every source is a public
address or a paper, and every named mistake says where it was seen."""
import re
import subprocess
import sys

import pytest
from paths import ROOT

from helpers.exercises import CODE_EXERCISES
from helpers.grading.code_exercise import Mistake

#: a GitHub issue, pull request or discussion, or a paper written "Author et al. YEAR, title/§"
SOURCE = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+"
                    r"|https://\S+|[A-Z][\w-]+( et al\.| and [A-Z][\w-]+)? (19|20)\d\d\b.*")

MISTAKES = [(key, m) for key, exercise in CODE_EXERCISES.items() for m in exercise.mistakes]


def test_the_table_in_contributing_is_current():
    done = subprocess.run([sys.executable, "-m", "tools.checks.mistakes_table", "--check"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("key, mistake", MISTAKES, ids=[f"{k}-{m.name}" for k, m in MISTAKES])
def test_every_mistake_names_where_it_was_seen(key, mistake):
    # a checker names only mistakes someone was seen making in public; one with no source is left
    # to the generic diagnosis instead
    assert mistake.seen, f"{key} {mistake.name}: give Mistake(..., seen=<public thread or paper>)"
    for source in mistake.seen:
        assert SOURCE.fullmatch(source), f"{key} {mistake.name}: {source!r} is neither an address nor a paper"


def test_a_single_source_may_be_written_without_the_tuple():
    assert Mistake("x", "hint", seen="https://github.com/a/b/issues/1").seen == ("https://github.com/a/b/issues/1",)
