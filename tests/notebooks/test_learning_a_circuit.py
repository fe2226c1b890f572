"""``11_learning_a_circuit``: what the notebook shows — its explorers' controls, its figures, its exercises."""
from series import NOTEBOOKS

from helpers.exercises import learning_a_circuit as exercises


def test_the_notebook_is_listed_and_its_exercises_carry_its_number():
    assert "11_learning_a_circuit" in NOTEBOOKS
    assert all(key.startswith("11-") for key in exercises.EXERCISES), sorted(exercises.EXERCISES)
