"""The table "mistakes we grade and where they come from" (CONTRIBUTING.md, written by
tools/mistakes_table.py from each Mistake's ``seen``): it is current, every source is a public
address or a paper, and every mistake added since the table began names where it was seen."""
import re
import subprocess
import sys

import pytest
from paths import ROOT

from helpers.exercises import CODE_EXERCISES
from helpers.grading.code_exercise import Mistake

#: mistakes with no public thread or paper found yet (graded before sources were recorded): a test
#: below fails when one gains a source, so the entry is then deleted here
UNSOURCED = {
    "03-3": {"no_max", "global_max", "axis0", "axis1", "sum_no_keepdims", "max_no_keepdims", "sum_all", "no_exp",
             "no_normalise", "row_min", "row_mean", "first_element"},
    "05-3": {"no_max", "no_mask", "mask_added_after", "mask_zeroed_after", "one_future", "no_scale", "scale_by_d",
             "axis0", "swapped", "no_transpose"},
    "07-3": {"no_l_rescale", "no_rescale", "inverted", "block_max", "old_max_in_p", "no_shift", "normalised", "old_m",
             "order_maccl", "order_lmacc", "order_laccm", "order_accml", "order_acclm"},
    "12-2": {"duplicate", "two_after", "transposed", "from_T", "whole_diagonal", "drops_last", "no_mean", "sum",
             "previous"},
    "13-3": {"no_half", "signed", "squared", "largest", "mean_over_keys", "sum_rows", "every_row", "columns"},
}
#: a GitHub issue, pull request or discussion, or a paper written "Author et al. YEAR, title/§"
SOURCE = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+"
                    r"|https://\S+|[A-Z][\w-]+( et al\.| and [A-Z][\w-]+)? (19|20)\d\d\b.*")

MISTAKES = [(key, m) for key, exercise in CODE_EXERCISES.items() for m in exercise.mistakes]


def test_the_table_in_contributing_is_current():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "mistakes_table.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("key, mistake", MISTAKES, ids=[f"{k}-{m.name}" for k, m in MISTAKES])
def test_every_new_mistake_names_where_it_was_seen(key, mistake):
    grandfathered = mistake.name in UNSOURCED.get(key, ())
    if grandfathered:
        assert not mistake.seen, f"{key} {mistake.name} has a source now: delete it from UNSOURCED"
    else:
        assert mistake.seen, f"{key} {mistake.name}: give Mistake(..., seen=<public thread or paper>)"
    for source in mistake.seen:
        assert SOURCE.fullmatch(source), f"{key} {mistake.name}: {source!r} is neither an address nor a paper"


def test_a_single_source_may_be_written_without_the_tuple():
    assert Mistake("x", "hint", seen="https://github.com/a/b/issues/1").seen == ("https://github.com/a/b/issues/1",)
