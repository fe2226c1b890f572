"""Live explorers, one module per notebook; created through :mod:`helpers.widgets`."""
