"""``15_fixed_state``: what the notebook shows — its explorers' controls, its figures, its exercises."""
from series import NOTEBOOKS

from helpers.exercises import fixed_state as exercises


def test_the_notebook_is_listed_and_its_exercises_carry_its_number():
    assert "15_fixed_state" in NOTEBOOKS
    assert all(key.startswith("15-") for key in exercises.EXERCISES), sorted(exercises.EXERCISES)
