#!/usr/bin/env bash
# make wheel-check: build the wheel in isolation (no deprecation or package-discovery warnings
# allowed), check it holds the font and the three licence texts, install it in a clean venv and
# render Chinese with the bundled font alone (system fonts hidden, missing glyphs are errors).
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/build-venv"
"$work/build-venv/bin/python" -m pip install -q build
"$work/build-venv/bin/python" -m build --wheel -o "$work/dist" . > "$work/build.log" 2>&1 \
  || { cat "$work/build.log"; exit 1; }
if grep -n -i -E "deprecat|absent from the .packages|license.*(table|classifier)" "$work/build.log"; then
  echo "wheel-check: the build warned (above)"; exit 1
fi
wheel=$(ls "$work"/dist/*.whl)
listing=$("$work/build-venv/bin/python" -m zipfile -l "$wheel")
for want in helpers/render/fonts/AttnLabSansSC-Regular.otf helpers/render/fonts/OFL.txt licenses/LICENSE \
            licenses/LICENSE-CC-BY-4.0.txt licenses/helpers/render/fonts/OFL.txt \
            helpers/model_requirement.txt helpers/notebooks/00_index.ipynb helpers/notebooks/12_heads_at_work.ipynb \
            helpers/data/circuit_sweep.npz helpers/data/circuit_history.npz helpers/data/head_scan.npz \
            helpers/render/web/attnlab_live.js helpers/render/web/attnlab_live.css; do
  grep -q "$want" <<<"$listing" || { echo "wheel-check: $want missing from $(basename "$wheel")"; exit 1; }
done
expression=$(sed -n 's/^license = "\(.*\)"$/\1/p' pyproject.toml)
test -n "$expression" || { echo "wheel-check: pyproject.toml has no license = \"…\" line"; exit 1; }
grep -q "License-Expression: $expression" <<<"$(unzip -p "$wheel" '*/METADATA')" \
  || { echo "wheel-check: METADATA lacks License-Expression: $expression (pyproject.toml's license)"; exit 1; }
"$python" -m venv "$work/clean-venv"
"$work/clean-venv/bin/python" -m pip install -q "$wheel"
cd "$work"  # away from the checkout: the installed wheel is what gets imported
"$work/clean-venv/bin/python" - <<'PY'
import warnings
import matplotlib
matplotlib.use("Agg")
from matplotlib import font_manager
font_manager.fontManager.ttflist = [f for f in font_manager.fontManager.ttflist if "mpl-data" in f.fname]
import helpers
assert "site-packages" in helpers.__file__, helpers.__file__
helpers.setup()
from helpers.display import figure_png, new_figure
new_figure(1, 1)
warnings.simplefilter("error", UserWarning)  # a missing glyph is a UserWarning
fig = new_figure(4, 2)
fig.add_subplot().set_title("注意力：每个 token 怎样看上下文（年 假 怎么 申请）")
png = figure_png(fig)
print(f"wheel-check: {helpers.__version__} from {helpers.__file__.split('site-packages')[0]}…, Chinese rendered "
      f"({len(png)} bytes PNG) with the bundled font alone")
PY
