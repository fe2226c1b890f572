"""``03_hand_calculation``: no figure of its own. Its pictures are generic panels of
:mod:`helpers.render.panels`: the weights bar chart (``weights_bar``), the
weighted parts of v drawn head to tail (``vectors_figure`` with ``chain=True``) and the score and
weight tables (``heatmaps``); the notebook calls them as ``helpers.plots.*``.

Every notebook has a module here, so a newcomer finds each notebook's figures in one place; a
figure made for 03 alone would go in this module.
"""
