#!/usr/bin/env python3
"""The whole series as one PDF (``make pdf``): the one-page print version of the site
(``python -m tools.site.build single``) printed by headless Chromium.

    python -m tools.site.pdf [OUT]     default dist/attention-lab.pdf

Each notebook starts a page; the PDF has a printed table of contents (links, and the page each
notebook starts on: printed once, the pages read back from the PDF's named destinations with
poppler's ``pdfinfo -dests``, written into the contents, printed again until they agree) and an
outline (bookmarks) from the headings; Chromium embeds the subset of every font it draws with, so the
Chinese text needs no font on the reader's machine. Served on 127.0.0.1; any request elsewhere is
refused and fails the build.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tools import chromium
from tools.site import build as site_build

DEFAULT_OUT = site_build.ROOT / "dist" / "attention-lab.pdf"
FOOTER = ('<div style="width:100%;font-size:8pt;color:#555;text-align:center;">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


#: the bold CJK face (Debian's fonts-noto-cjk, which CI installs; Noto Sans CJK SC is face 2 of
#: the collection): cut and converted like the regular one, so bold text is a real bold face,
#: not Chromium's synthetic bold, which its PDF writer emits as unnamed Type 3 glyphs
BOLD_SOURCE = (Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"), 2)


def print_fonts(single: Path) -> list:
    """The print faces: regular (the bundled font) and bold (BOLD_SOURCE, where installed; else
    bold text prints in the regular face: the print CSS forbids synthetic styles)."""
    out = [print_font(single)]
    if BOLD_SOURCE[0].exists():
        out.append(print_font(single, BOLD_SOURCE, "attnlab-print-bold.ttf"))
    else:
        print(f"pdf: no {BOLD_SOURCE[0]} (apt-get install fonts-noto-cjk): bold Chinese prints in the regular face")
    return out


def print_font(single: Path, source: tuple | None = None, filename: str = "attnlab-print.ttf") -> Path:
    """single/_static/FILENAME: a CJK font (the bundled one, or ``source``: (path, face number)) cut to
    the characters of the page, with TrueType outlines (see tools/site/static/attnlab-print.css for why)."""
    from html.parser import HTMLParser

    from fontTools import subset
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import TTFont, newTable

    class Text(HTMLParser):
        chars = set()

        def handle_data(self, data):
            self.chars.update(data)

    parser = Text()
    parser.feed((single / "index.html").read_text(encoding="utf-8"))
    chars = parser.chars | {chr(c) for c in range(0x20, 0x7F)}
    path, number = source or (next((site_build.ROOT / "helpers" / "render" / "fonts").glob("*.otf")), 0)
    font = TTFont(path, fontNumber=number)
    options = subset.Options()
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(chars)))
    subsetter.subset(font)
    order = font.getGlyphOrder()
    glyphs = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder, glyf.glyphs = order, {}
    for name in order:
        pen = TTGlyphPen(glyphs)
        glyphs[name].draw(Cu2QuPen(pen, 1.0, reverse_direction=True))
        glyf[name] = pen.glyph()
    for tag in ("CFF ", "VORG"):
        if tag in font:
            del font[tag]
    font["glyf"], font["loca"] = glyf, newTable("loca")
    maxp = font["maxp"]
    maxp.tableVersion = 0x00010000
    for field in ("maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs", "maxStackElements",
                  "maxSizeOfInstructions", "maxComponentElements"):
        setattr(maxp, field, 0)
    maxp.maxZones = 1
    font["head"].glyphDataFormat = 0
    font["post"].formatType = 3.0
    font.sfntVersion = "\x00\x01\x00\x00"
    out = single / "_static" / filename
    font.save(out)
    return out


# Writes each start page into the printed table of contents (the list after the cover's 目录);
# returns how many entries it numbered.
NUMBER_CONTENTS = """(pages) => {
  const label = [...document.querySelectorAll("p > strong")].find(s => s.textContent.trim() === "目录");
  const list = label && label.parentElement.nextElementSibling;
  if (!list || list.tagName !== "OL") return 0;
  let numbered = 0;
  for (const entry of list.querySelectorAll(":scope > li > p")) {
    const link = entry.querySelector('a[href^="#document-"]');
    const name = link && link.getAttribute("href").slice("#document-".length);
    if (!(name in pages)) continue;
    let page = entry.querySelector(".attnlab-toc-page");
    if (!page) {
      entry.classList.add("attnlab-toc-entry");
      const leader = document.createElement("span");
      leader.className = "attnlab-toc-leader";
      page = document.createElement("span");
      page.className = "attnlab-toc-page";
      entry.append(leader, page);
    }
    page.textContent = String(pages[name]);
    numbered += 1;
  }
  return numbered;
}"""
PDF_OPTIONS = dict(format="A4", print_background=True, outline=True, tagged=True, display_header_footer=True,
                   header_template="<span></span>", footer_template=FOOTER,
                   margin={"top": "14mm", "bottom": "16mm", "left": "14mm", "right": "14mm"})
PRINTS = 3  # at most: the numbers are written, then checked by printing again


def start_pages(pdf: Path) -> dict[str, int] | None:
    """{notebook: the page it starts on} from PDF's named destinations ``document-<name>`` (poppler's
    ``pdfinfo -dests``); None when poppler is not installed."""
    tool = shutil.which("pdfinfo")
    if tool is None:
        return None
    listing = subprocess.run([tool, "-dests", str(pdf)], check=True, capture_output=True, text=True).stdout
    found = re.findall(r'^\s*(\d+)\s+\[[^\]]*\]\s+"document-([^"]+)"\s*$', listing, flags=re.M)
    return {name: int(page) for page, name in found}


def print_pdf(single: Path, out: Path, browser=None) -> None:
    """Print single/index.html to OUT, its table of contents numbered with each notebook's first page;
    BROWSER: a running Chromium to use (else one is started)."""
    if browser is None:
        reason = chromium.missing()
        if reason:
            raise SystemExit(f"make pdf needs headless Chromium: {reason}")
        with chromium.browser() as started:
            return print_pdf(single, out, started)
    out.parent.mkdir(parents=True, exist_ok=True)
    with chromium.serve(single) as base:
        page = browser.new_page()
        outside = chromium.only_from(page, base)
        page.goto(f"{base}/index.html", wait_until="load")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.emulate_media(media="print")
        written = None
        for _ in range(PRINTS):
            page.pdf(path=str(out), **PDF_OPTIONS)
            pages = start_pages(out)
            if pages is None:
                print("pdf: the table of contents has no page numbers (they are read back with pdfinfo: "
                      "apt-get install poppler-utils)")
                break
            if pages == written:
                break
            if len(pages) != len(site_build.NOTEBOOKS) or page.evaluate(NUMBER_CONTENTS, pages) != len(pages):
                raise SystemExit(f"the print version should have one start page and one contents entry per "
                                 f"notebook ({len(site_build.NOTEBOOKS)}); found the pages of {sorted(pages)}")
            written = pages
        else:
            raise SystemExit(f"the contents' page numbers did not settle in {PRINTS} prints: {written}")
        page.close()
    if outside:
        out.unlink()
        raise SystemExit(f"the print version asked for {len(outside)} thing(s) outside the site: {outside[:5]}")


def build(out: Path | None = None, work: Path = site_build.WORK, browser=None) -> Path:
    out = Path(out or DEFAULT_OUT).resolve()
    single = site_build.build("single", work=work)
    t0 = time.perf_counter()
    print_fonts(single)
    print_pdf(single, out, browser)
    print(f"pdf: {out} ({out.stat().st_size / 2**20:.1f} MiB) printed in {time.perf_counter() - t0:.1f} s")
    return out


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
