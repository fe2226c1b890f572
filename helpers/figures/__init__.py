"""Figures, one module per notebook (``helpers/figures/<notebook>.py``), gathered by :mod:`helpers.plots`."""
