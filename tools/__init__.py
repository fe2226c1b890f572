"""The maintainer's scripts, one package grouped by job; each runs from the repository root as
``python -m tools.<group>.<module>`` (the ``make`` targets do), and imports the others through the
package (``from tools.series import NOTEBOOKS``), never by changing ``sys.path``.

- the base every group reads: ``series.py`` (the one list of notebooks), ``home.py`` (the project's
  addresses, ``home.toml``), ``chromium.py`` (headless Chromium and a static server);
- ``notebooks/``: the shared header and footer and the pairing check (``pairs.py``), a new notebook's
  files (``scaffold.py``), re-executing the stored outputs (``execute.py``);
- ``site/``: the book — the site (``build.py``), its PDF (``pdf.py``), Sphinx's configuration and
  extension, the live explorers and the offline zip (``live/``);
- ``release/``: what a release builds and guards (``check.py``, ``guard.py``), the notebooks' zip,
  ``CITATION.cff``, the wheel check;
- ``data/``: the committed files a script makes — notebooks 11–12's ``.npz`` (in one pinned
  environment) and the bundled font;
- ``checks/``: checks and measurements beyond pytest — the layout rule, the suites under other
  OpenBLAS kernels and Pythons, the Colab snapshot, CONTRIBUTING's table of graded mistakes, ``make bench``.
"""
import re
from pathlib import Path

#: the repository's root folder (every script's paths start here)
ROOT = Path(__file__).resolve().parent.parent


def package_version() -> str:
    """The package's version, from its one home (``helpers/__init__.py``; pyproject reads it too),
    read without importing helpers."""
    text = (ROOT / "helpers" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.M)
    if not match:
        raise SystemExit("helpers/__init__.py has no __version__")
    return match.group(1)
