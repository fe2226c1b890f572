"""What ``helpers.exercises.check`` and ``check_code`` return after printing their message."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """What :func:`helpers.exercises.check` and :func:`helpers.exercises.check_code` return after
    printing their message: ``ok`` (``True``/``False``/``None``), the ``message`` printed and, for
    code, the diagnosed ``mistake``. A notebook cell ending in the call shows nothing more (the
    message is already printed); ``bool()`` is ``True`` only for a right answer."""

    ok: bool | None
    message: str = ""
    mistake: str | None = None

    def _ipython_display_(self):  # the verdict is already printed: the cell's Out[n] stays empty
        return None

    def __repr__(self):
        return ""

    def __bool__(self):
        return self.ok is True
