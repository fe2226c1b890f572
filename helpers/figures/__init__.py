"""Figures made for one notebook each (gathered under :mod:`helpers.plots`)."""
