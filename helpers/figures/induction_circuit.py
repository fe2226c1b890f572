"""``13_induction_circuit``: its figures (none of its own yet: it shows ``12_heads_at_work``'s head
patterns and null distributions again, :func:`helpers.figures.heads_at_work.patterns_figure` and
:func:`helpers.figures.heads_at_work.null_figure`).

A figure made for this notebook alone goes here: a function returning a figure from
:func:`helpers.render.png.new_figure`, built from :mod:`helpers.render.panels` where they fit and
coloured from :mod:`helpers.render.palette`; add it to ``helpers/plots.py`` so the notebook calls
``helpers.plots.<name>``. A panel its explorer reuses (a class with ``update``) lives here too.
"""
