"""What a release builds and guards: every step run here uploading nothing (``check.py``, ``make
release-check``), what must hold before anything is published (``guard.py``), the notebooks' zip
(``notebooks_zip.py``, ``make zip``), ``CITATION.cff`` (``citation.py``) and the wheel's contents
(``check_wheel.sh``, ``make wheel-check``)."""
