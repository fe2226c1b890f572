"""Which cases of a heavy parametrised walk ``make test-fast`` keeps: the first ``keep`` of each group
as they are, every other case marked ``slow`` (``make test`` and ``-m slow`` still run it). One rule
for every walk, so the fast suite sees each exercise (or notebook) and the full suite sees every case."""
import pytest


def first_of_each(cases, group, keep=1, ids=None):
    """``cases`` (tuples of arguments, or single arguments) as ``pytest.param`` s: the first ``keep``
    whose ``group(case)`` is the same stay fast, the rest are marked slow; ``ids`` one id per case."""
    seen = {}
    params = []
    for n, case in enumerate(cases):
        key = group(case)
        seen[key] = seen.get(key, 0) + 1
        marks = () if seen[key] <= keep else (pytest.mark.slow,)
        values = case if isinstance(case, tuple) else (case,)
        params.append(pytest.param(*values, marks=marks, id=None if ids is None else ids[n]))
    return params
