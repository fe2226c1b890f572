"""Live explorers, one module per notebook (``helpers/explorers/<notebook>.py``); created through
:mod:`helpers.widgets`."""
