"""``14_shrinking_caches``: what the notebook shows — its explorers' controls, its figures, its exercises."""
from series import NOTEBOOKS

from helpers.exercises import shrinking_caches as exercises


def test_the_notebook_is_listed_and_its_exercises_carry_its_number():
    assert "14_shrinking_caches" in NOTEBOOKS
    assert all(key.startswith("14-") for key in exercises.EXERCISES), sorted(exercises.EXERCISES)
