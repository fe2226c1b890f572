"""The notebooks as files: the shared header and footer and the pairing of each source with its
notebook (``pairs.py``, ``make check-notebooks``), a new notebook's files (``scaffold.py``, ``make new``)
and re-executing the stored outputs (``execute.py``, ``make outputs``)."""
