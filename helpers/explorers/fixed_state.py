"""``15_fixed_state``: its live explorers (none yet).

An explorer is a subclass of :class:`helpers.render.explorer.Explorer` (``make_controls``, a pure
``compute`` that asks the lesson module for the state, ``build`` once, ``draw`` updates the
artists, ``describe`` the readout); add a one-line factory to ``helpers/widgets.py``, which is
what the notebook's widget cell calls.
"""
