"""Every test draws with Agg and the series' font and style, as the notebooks do (helpers.setup).

Support code (browser_lab, figure_check, tiny_model, explorer_checks, fakes, paths) lives in
tests/support/ and tools/series.py in tools/: both are on pytest's ``pythonpath`` (pyproject.toml).
"""
import matplotlib

matplotlib.use("Agg")

import helpers  # noqa: E402

helpers.setup()
