"""The offline book (``make site-zip``): the built site ``_site/`` as one zip. Unzipped anywhere and
opened as ``file://…/index.html``, every page reads and every explorer runs (their data is inline,
nothing is fetched, nothing comes from another host). The model file the page 你自己的句子 serves
over http is left out (the offline page has the reader pick it). The zip is then also put in the site's
``downloads/``, where every page links it (without a copy of itself inside).

    python -m tools.site.live.site_zip [SITE] [OUT]   default _site/ → dist/attention-lab-site-VERSION.zip

Deterministic like ``make zip`` (tools/release/notebooks_zip.py): sorted entries, fixed timestamps.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tools import ROOT
from tools.release.notebooks_zip import write_zip
from tools.site.attnlab_site import DOWNLOADS_DIR, offline_book
from tools.site.live.sentence import page as sentence_page


def name() -> str:
    """The zip's file name (the site links to it under this name)."""
    return offline_book()


def build(site: Path | None = None, out: Path | None = None) -> Path:
    site = Path(site or ROOT / "_site").resolve()
    if not (site / "index.html").exists():
        raise SystemExit(f"{site} has no index.html: run `make site` first")
    top = name()[:-4]
    out = Path(out or ROOT / "dist" / name()).resolve()
    itself = site / DOWNLOADS_DIR / name()
    # the model file the page 你自己的句子 offers over http (98 MB) stays out: the offline page asks the
    # reader to pick it (attention-lab model-path says where it is)
    files = sorted(p for p in site.rglob("*") if p.is_file() and p.name != ".buildinfo" and p != itself
                   and not sentence_page.is_model_file(p.relative_to(site).as_posix()))
    write_zip(out, [(f"{top}/{p.relative_to(site).as_posix()}", p) for p in files])
    itself.parent.mkdir(exist_ok=True)
    shutil.copy2(out, itself)
    print(f"site zip: {out} ({len(files)} files, {out.stat().st_size / 2**20:.1f} MiB); "
          f"unzip and open {top}/index.html")
    return out


if __name__ == "__main__":
    build(*(Path(a) for a in sys.argv[1:3]))
