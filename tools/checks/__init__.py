"""Checks and measurements beyond pytest's: the layout rule (``layout.py``, ``make layout``), the suites
under each OpenBLAS kernel family (``kernel_families.py``, ``make test-kernels``) and on Colab's and the
lowest declared versions (``compat.sh``, ``make test-compat``, with ``find_python.py`` and the snapshot
``colab_snapshot.py`` writes), CONTRIBUTING's table of graded mistakes (``mistakes_table.py``) and the
explorers' latency and memory (``bench.py``, ``make bench``)."""
