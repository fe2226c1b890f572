"""``11_learning_a_circuit``: its self-checking exercises (none yet).

``EXERCISES`` maps ``"11-1"``, ``"11-2"`` … to :class:`helpers.render.answers.Exercise`
(a prompt, an answer kind, and a solve function that computes the expected answer and its working
at check time); ``REFERENCES`` holds reference answers of discussion questions. The package
:mod:`helpers.exercises` gathers both; the notebook calls ``helpers.exercises.check("11-1", answer)``.
"""
from __future__ import annotations

EXERCISES: dict = {}
REFERENCES: dict = {}
