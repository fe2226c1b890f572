"""``00_index``: no figure of its own. Its one picture, 申请's four weights, is the generic bar chart
:func:`helpers.render.panels.weights_bar` (``helpers.plots.weights_bar`` in the notebook), and its
explorer draws the same :class:`~helpers.render.panels.BarPanel` (:mod:`helpers.explorers.index`).

Every notebook has a module here, so a newcomer finds each notebook's figures in one place; a
figure made for 00 alone would go in this module.
"""
