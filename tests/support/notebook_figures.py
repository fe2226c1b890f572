"""Run a notebook's code cells (widget cells left out) and collect the figures it shows: the
figures exactly as a reader gets them (the figure check, the readable-label check)."""
import contextlib
import io

import nbformat
from IPython.core.inputtransformer2 import TransformerManager
from paths import ROOT

import helpers


def notebook_figures(name):
    """Run ``name``'s code cells (not widget cells) up to its last figure; return every figure it shows."""
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    shown = []
    namespace = {}
    original = helpers.display.show
    helpers.display.show = shown.append
    try:
        code = [c for c in nb.cells if c.cell_type == "code" and "helpers.widgets." not in c.source]
        last = max((i for i, c in enumerate(code) if "helpers.display.show(" in c.source), default=-1)
        with contextlib.redirect_stdout(io.StringIO()):
            for cell in code[: last + 1]:  # up to the last figure: what follows draws nothing
                # IPython's own transform: a cell may hold IPython syntax (a magic, a shell line)
                exec(compile(TransformerManager().transform_cell(cell.source), f"{name}.ipynb", "exec"), namespace)
    finally:
        helpers.display.show = original
    return shown
