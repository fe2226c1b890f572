"""The book's explorers, live: evaluate each explorer's states at build time and put them in its page.

    python -m tools.site.live.live_pages SITE      inject into a built site (tools/site/build.py does)
    python -m tools.site.live.live_pages --sizes   each explorer's data size, without a site

For each explorer of ``helpers.widgets`` whose class declares :meth:`web_view`, a page's widget cell
(the cell whose code calls ``helpers.widgets.<name>()``) gets a ``<div class="attnlab-live">`` over
its still picture, holding the explorer's data inline (gzip + base64 JSON: no fetch, so the site
works from ``file://``) and drawn by ``attnlab_live.js`` (plain SVG; no library), which sits beside
the panels' producer in ``helpers/render/web/`` (every state's view is checked against its
declaration of the panel kinds, ``helpers.render.web.check_view``):

- a **grid** explorer (``web_formula is None``): every combination of its control values (each
  control's own range, step or options; :meth:`web_universe` for a control whose range follows
  another) set on the Python explorer the way a reader would, then ``compute()``, ``describe()``
  (the readout, byte for byte) and ``web_view()``; combinations the explorer refuses are left out,
  and the page moves the other controls the way the explorer's observers do. A panel's fields that
  never change are stored once; every distinct string (a readout, a changing field's JSON) is stored
  once; a state is a list of indices.
- a **formula** explorer: the controls, the default view, the name of the browser function that
  recomputes a state, and the explorer's ``web_templates`` (its readout, written once: the page fills
  the template ``describe()`` fills); ``tests/series/test_live_site.py`` holds the function to
  ``compute()`` and its readout to ``describe()``.

The still picture stays in the page (hidden on screen once the live view starts) for readers without
JavaScript and for printing; the PDF (the one-page version) keeps only the still pictures and says once
per notebook where the live page is (:data:`PDF_NOTE`).
"""
from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import html
import itertools
import json
import re
import shutil
import sys
import time
from pathlib import Path

from tools import ROOT

HERE = Path(__file__).resolve().parent
#: the marker of a widget cell in a page's HTML: the call, as Pygments splits it into spans
CALL = re.compile(r"helpers\.widgets\.(\w+_explorer)\(\)")
CELL = '<div class="cell docutils container">'
#: each explorer's encoded data, kept between builds while the package's code and data are unchanged
CACHE = ROOT / "build" / "site" / "live"


@functools.lru_cache(maxsize=1)
def source_hash() -> str:
    """A hash of everything an explorer's data can come from: the package's code and stored data,
    and this builder."""
    h = hashlib.sha256()
    paths = sorted((ROOT / "helpers").rglob("*")) + [Path(__file__)]
    for path in paths:
        if path.is_file() and path.suffix in {".py", ".npz", ".json", ".txt"} and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def factories() -> dict:
    """``{name: factory}`` of every explorer of :mod:`helpers.widgets`."""
    from helpers import widgets

    return widgets.all_factories()


def set_values(explorer, values: dict) -> bool:
    """Set the controls to ``values`` without drawing (in the given order, else the reverse one:
    05's row can only follow its sequence's length); True if the explorer then holds exactly them."""
    from traitlets import TraitError

    for order in (list(values), list(values)[::-1]):
        with explorer.holding():
            try:
                for name in order:
                    explorer.controls[name].value = values[name]
            except (TraitError, ValueError, TypeError):
                continue
        if explorer.values == values:
            return True
    return False


def view_now(explorer) -> tuple:
    """``(state, readout, view)`` for the controls as they stand (nothing drawn; the view checked
    against the panel kinds the page draws)."""
    from helpers.render.threads import one_blas_thread
    from helpers.render.web import check_view

    with one_blas_thread():
        state = explorer.compute(**explorer.compute_args())
    view = explorer.web_view(state)
    check_view(view, f"{type(explorer).__name__}.web_view(...)")
    return state, explorer.describe(state), view


def explorer_data(name: str, explorer) -> dict:
    """The JSON-able data of one explorer's live view (see the module docstring)."""
    from helpers.render.explorer import RESET_LABEL
    from helpers.render.web import control_spec

    universe = explorer.web_universe()
    controls = [control_spec(n, c, universe.get(n)) for n, c in explorer.controls.items()]
    data = {"name": name, "reset_label": RESET_LABEL, "controls": controls}
    defaults = dict(explorer.values)
    if explorer.web_formula is not None:
        if not isinstance(explorer.web_templates, dict) or "readout" not in explorer.web_templates:
            raise RuntimeError(f"{name}: a formula explorer writes its readout as web_templates['readout'] "
                               "(which describe() fills), so that the page fills the same words")
        _, readout, view = view_now(explorer)
        data.update(formula=explorer.web_formula, view=view, readout=readout, **explorer.web_formula_data())
        data["templates"] = explorer.web_templates
        return data
    strings, index, states = [], {}, {}

    def ref(text: str) -> int:
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    views = {}
    for combo in itertools.product(*[range(len(c["values"])) for c in controls]):
        values = {c["name"]: c["values"][i] for c, i in zip(controls, combo)}
        if not set_values(explorer, values):
            continue
        _, readout, view = view_now(explorer)
        views[",".join(map(str, combo))] = (view.get("title", ""), readout, view["panels"])
    # what every state's panel at one place shares (labels, colours, titles…) is stored once, as that
    # place's base; of the fields that change, each distinct value is stored once too (04's bin edges
    # follow d alone): a state's panel is one string index per changing field
    counts = {len(panels) for _, _, panels in views.values()}
    if len(counts) != 1:
        raise RuntimeError(f"{name}: web_view must return the same number of panels in every state, got {counts}")
    places = []
    for i in range(counts.pop()):
        panels = [v[2][i] for v in views.values()]
        keys = sorted({k for p in panels for k in p})
        same = [k for k in keys if all(k in p and p[k] == panels[0][k] for p in panels)]
        places.append({"base": {k: panels[0][k] for k in same}, "keys": [k for k in keys if k not in same]})
    for key, (title, readout, panels) in views.items():
        states[key] = [ref(title), ref(readout)] + [
            [ref(json.dumps(p.get(k), ensure_ascii=False, separators=(",", ":"))) for k in place["keys"]]
            for p, place in zip(panels, places)]
    if not set_values(explorer, defaults):
        raise RuntimeError(f"{name}: could not put the controls back to {defaults}")
    default_key = ",".join(str(c["default"]) for c in controls)
    if default_key not in states:
        raise RuntimeError(f"{name}: the default state {defaults} is not in its grid")
    data["grid"] = {"strings": strings, "states": states, "places": places}
    return data


def encode(data: dict) -> str:
    """gzip (no timestamp: the same bytes every build) + base64 of the JSON."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def build_all(names=None, *, log=print) -> dict:
    """``{factory name: encoded data}`` for every explorer with a live view (or those ``names``)."""
    import matplotlib

    matplotlib.use("Agg")
    import helpers
    from helpers.render.explorer import Explorer

    helpers.setup()  # the series' font and style: each explorer draws its (here unused) first picture
    out = {}
    for name, factory in factories().items():
        if names is not None and name not in names:
            continue
        t0 = time.perf_counter()
        cached = CACHE / f"{name}.{source_hash()}.b64"
        if cached.exists():
            out[name] = cached.read_text(encoding="ascii")
            continue
        explorer = factory()
        if type(explorer).web_view is Explorer.web_view:
            log(f"  live: {name}: no web_view (still picture only)")
            continue
        out[name] = encode(explorer_data(name, explorer))
        CACHE.mkdir(parents=True, exist_ok=True)
        for stale in CACHE.glob(f"{name}.*.b64"):
            stale.unlink()
        cached.write_text(out[name], encoding="ascii")
        log(f"  live: {name}: {len(out[name]) / 1024:.0f} KiB in {time.perf_counter() - t0:.1f} s")
    return out


def live_block(name: str, encoded: str) -> str:
    return (f'<div class="attnlab-live" data-explorer="{name}">'
            f'<script type="application/octet-stream" class="al-data">{encoded}</script></div>')


def inject_page(text: str, encoded: dict) -> tuple:
    """``(new page, names injected)``: each widget cell of an explorer in ``encoded`` gets its live block
    before its output (the output, the still picture, stays: the script hides it on screen once live)."""
    parts = text.split(CELL)
    names = []
    for i, part in enumerate(parts[1:], start=1):
        code = html.unescape(re.sub(r"<[^>]+>", "", part.split('<div class="cell_output', 1)[0]))
        match = CALL.search(code)
        if not match or match.group(1) not in encoded:
            continue
        name = match.group(1)
        head, sep, tail = part.partition('<div class="cell_output docutils container">')
        if not sep:
            continue
        parts[i] = head + live_block(name, encoded[name]) + sep + tail
        names.append(name)
    return CELL.join(parts), names


def inject(site: Path, encoded: dict | None = None, *, log=print) -> dict:
    """Put the live explorers into every page of ``site``; ``{page: [names]}``."""
    from helpers.render.web import ASSETS

    site = Path(site)
    encoded = build_all(log=log) if encoded is None else encoded
    static = site / "_static"
    for asset in ASSETS:
        shutil.copy2(asset, static / asset.name)
    done = {}
    for page in sorted(site.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        new, names = inject_page(text, encoded)
        if not names:
            continue
        tags = "".join(f'<link rel="stylesheet" href="_static/{a.name}">' if a.suffix == ".css"
                       else f'<script defer src="_static/{a.name}"></script>' for a in ASSETS)
        new = new.replace("</head>", tags + "</head>", 1)
        page.write_text(new, encoding="utf-8")
        done[page.name] = names
    missing = set(encoded) - {n for names in done.values() for n in names}
    if missing:
        raise SystemExit(f"no page has a widget cell for {sorted(missing)}")
    return done


#: what the print version (the PDF) says once per notebook, over its first explorer's still picture
PDF_NOTE = ("这一篇的交互控件在网页版里可以直接拖动，不需要 Python：网站的 {page} 页"
            "（离线版：make site-zip 生成的压缩包，解压后在浏览器里打开 index.html）。下面是它的静态图。")


def mark_print(single: Path) -> int:
    """In the one-page print version (``single``: its index.html), put :data:`PDF_NOTE` before the
    first widget cell of each notebook; returns how many notes were written."""
    path = Path(single) / "index.html"
    text = path.read_text(encoding="utf-8")
    chunks = re.split(r'(<span id="document-\w+"></span>)', text)
    count = 0
    for i in range(1, len(chunks) - 1, 2):
        slug = re.search(r'document-(\w+)', chunks[i]).group(1)
        parts = chunks[i + 1].split(CELL)
        for j, part in enumerate(parts[1:], start=1):
            code = html.unescape(re.sub(r"<[^>]+>", "", part.split('<div class="cell_output', 1)[0]))
            if CALL.search(code):
                note = f'<p class="attnlab-live-where">{html.escape(PDF_NOTE.format(page=slug + ".html"))}</p>'
                parts[j - 1] += note
                count += 1
                break
        chunks[i + 1] = CELL.join(parts)
    path.write_text("".join(chunks), encoding="utf-8")
    return count


def main(argv) -> None:
    if argv[:1] == ["--sizes"]:
        for name, enc in build_all(argv[1:] or None).items():
            print(f"{name}: {len(enc)} bytes")
        return
    if len(argv) != 1:
        raise SystemExit(__doc__)
    inject(Path(argv[0]))


if __name__ == "__main__":
    main(sys.argv[1:])
