"""``14_shrinking_caches``: its self-checking exercises (none yet).

``EXERCISES`` maps ``"14-1"``, ``"14-2"`` … to :class:`helpers.grading.answers.Exercise`
(a prompt, an answer kind, and a solve function that computes the expected answer and its working
at check time); ``REFERENCES`` holds reference answers of discussion questions. The package
:mod:`helpers.exercises` gathers both; the notebook calls ``helpers.exercises.check("14-1", answer)``.
"""
from __future__ import annotations

EXERCISES: dict = {}
REFERENCES: dict = {}
