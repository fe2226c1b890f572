"""``14_shrinking_caches``: its figures (none yet).

A figure made for this notebook alone goes here: a function returning a figure from
:func:`helpers.render.png.new_figure`, built from :mod:`helpers.render.panels` where they fit and
coloured from :mod:`helpers.render.palette`; add it to ``helpers/plots.py`` so the notebook calls
``helpers.plots.<name>``. A panel its explorer reuses (a class with ``update``) lives here too.
"""
