"""The wheel carries the notebooks (``attention-lab notebooks`` copies them out; see helpers/cli.py).

They live once, in ``notebooks/`` (jupytext pairs with ``notebook_sources/``); the build copies
them into ``helpers/notebooks/`` inside the wheel, so git holds no second copy. Everything else is
configured in pyproject.toml. An editable install (``pip install -e .``) copies nothing: the
command then reads the checkout's ``notebooks/``.
"""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithNotebooks(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        notebooks = sorted((HERE / "notebooks").glob("[0-9][0-9]_*.ipynb"))
        if not notebooks:
            raise SystemExit("setup.py: no notebooks/NN_*.ipynb to put into the wheel")
        target = Path(self.build_lib) / "helpers" / "notebooks"
        target.mkdir(parents=True, exist_ok=True)
        for path in notebooks:
            self.copy_file(str(path), str(target / path.name))


setup(cmdclass={"build_py": BuildWithNotebooks})
