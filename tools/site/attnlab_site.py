"""Sphinx extension for the series' site: what the stock theme does not do for this series.

- every notebook page gets one line under its title: those of the book's PDF, the notebooks' zip and
  the wheel that the site serves (config ``attnlab_downloads``: the ones tools/site/build.py found
  built; a download not built is not linked), the offline book, and a link to the index's
  "在本地运行" section; Colab, Binder and the page's ``.ipynb`` are sphinx-book-theme's own buttons
  (conf.py, from ``home.toml``); the real model's notebook (09) gets a second line, to the page
  你自己的句子 (``sentence.page``);
- an image from another host (the notebooks' Colab badge) becomes its alt text, so no page asks
  for anything outside the site;
- maths is written as MathML at build time (``html_math_renderer = "mathml"``): browsers draw it
  natively, with no MathJax from a CDN;
- Chinese search: the query is cut into the index's own words in the browser (longest match), so
  a query typed without spaces ("归纳头的作用") finds what jieba indexed.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

from tools import package_version
from tools.home import binder_url, colab_url  # noqa: F401  (the project's home, home.toml; the tests read them here)
from tools.series import NOTEBOOKS

REMOTE = ("http://", "https://", "//")

#: the anchor of the index page's "在本地运行" section (tools/site/build.py writes it)
LOCAL_RUN = "local-run"
DOWNLOADS_DIR = "downloads"


def downloads() -> dict:
    """The book's downloads, served from the site itself (``downloads/``, copied there by
    tools/site/build.py from dist/): ``{label: file name}``."""
    v = package_version()
    return {"整本书 PDF": "attention-lab.pdf", "全部笔记本（zip）": f"attention-lab-notebooks-{v}.zip",
            "wheel": f"attention_lab-{v}-py3-none-any.whl"}


def offline_book() -> str:
    """The offline book's file name (``make site-zip``, tools/site/live/site_zip.py), which puts it
    in the site's downloads/ after the site is built: the site zips itself, so it cannot be copied
    in with the other downloads."""
    return f"attention-lab-site-{package_version()}.zip"


def served(names) -> dict:
    """``{label: file name}`` of :func:`downloads` that are among ``names`` (what the site serves),
    in :func:`downloads`' order."""
    names = set(names)
    return {label: file for label, file in downloads().items() if file in names}


def actions_html(name: str, pathto, present=None) -> str:
    """One line under a page's title: the book's downloads the site serves (``present``: their file
    names; ``None``: all of :func:`downloads`), the offline book, and where the way to run it is.
    Colab, Binder and the page's .ipynb are the theme's own launch and download buttons (conf.py)."""
    e = html.escape
    files = downloads() if present is None else served(present)
    links = [f'<a class="attnlab-download" href="{e(pathto(f"{DOWNLOADS_DIR}/{file}", 1))}">{e(label)}</a>'
             for label, file in files.items()]
    offline = e(pathto(f"{DOWNLOADS_DIR}/{offline_book()}", 1))
    links = " · ".join([*links, f'<a class="attnlab-offline" href="{offline}">离线版网页（zip，控件不联网也能拖）</a>'])
    index = pathto("index")
    local = e(("" if index == "#" else index) + "#" + LOCAL_RUN)  # on the index page itself: "#"
    return (f'<p class="attnlab-actions">下载：{links}'
            f' ｜ <a href="{local}">在本地运行（国内用户不经过 GitHub 的路）</a></p>')


def sentence_html(pathto) -> str:
    """A line pointing to the page 你自己的句子 (the notebooks of :data:`sentence.page.LINKED_FROM`)."""
    from tools.site.live.sentence import page

    return (f'<p class="attnlab-sentence-link">在浏览器里试：<a href="{html.escape(pathto(page.PAGE))}">{page.TITLE}</a>'
            "——输入任何文字，看这个模型的全部 270 个头怎样读它（不用 Python，离线版网页里也能用）。</p>")


def on_page_context(app, pagename, templatename, context, doctree):
    if pagename not in ("index", *NOTEBOOKS) or "body" not in context:
        return
    from tools.site.live.sentence import page

    body = context["body"]
    block = actions_html(pagename, context["pathto"], present_downloads(app.config))
    if pagename in page.LINKED_FROM:
        block += sentence_html(context["pathto"])
    cut = body.find("</h1>")
    context["body"] = body[:cut + 5] + block + body[cut + 5:] if cut >= 0 else block + body


class RemoteImages(SphinxTransform):
    """No image from another host: a linked one (a badge: Colab, Binder) goes with its link, as
    every notebook page has these actions already; any other becomes its alt text."""

    default_priority = 200

    def apply(self, **kwargs) -> None:
        for image in list(self.document.findall(nodes.image)):
            if not image["uri"].startswith(REMOTE):
                continue
            link = image.parent if isinstance(image.parent, nodes.reference) else None
            if link is None:
                image.replace_self(nodes.Text(image.get("alt", "")))
                continue
            paragraph = link.parent
            link.parent.remove(link)
            if isinstance(paragraph, nodes.paragraph) and not paragraph.astext().strip():
                paragraph.parent.remove(paragraph)


EXPLORER_CELL = re.compile(r"helpers\.widgets\.\w+\(.*\)")
PREVIEW_CAPTION = "交互控件的静态预览：用页首的链接在 Colab、Binder 里打开本篇，或在本地运行，就能拖动。"


class ExplorerPreviews(SphinxTransform):
    """An explorer cell (its one line is a ``helpers.widgets.…()`` call, see README) stores a static
    preview: here it gets an alt text and a caption saying how to make it live."""

    default_priority = 210

    def apply(self, **kwargs) -> None:
        for cell in list(self.document.findall(nodes.container)):
            if cell.get("nb_element") != "cell_code":
                continue
            code = "".join(n.astext() for n in cell.findall(nodes.literal_block)
                           if "cell_input" in n.parent.get("classes", []))
            if not EXPLORER_CELL.fullmatch(code.strip()):
                continue
            images = list(cell.findall(nodes.image))
            for image in images:
                image["alt"] = "交互控件的静态预览"
                image["classes"].append("attnlab-preview")
            if images:
                cell += nodes.paragraph(PREVIEW_CAPTION, PREVIEW_CAPTION, classes=["attnlab-preview-caption"])


def _mathml(tex: str, display: str) -> str:
    from latex2mathml.converter import convert

    return convert(tex, display=display)


def visit_math(self, node):
    tex = node.astext()
    self.body.append(f'<span class="math" title="{html.escape(tex)}">{_mathml(tex, "inline")}</span>')
    raise nodes.SkipNode


def visit_displaymath(self, node):
    tex = node.astext()
    self.body.append(f'<div class="math" title="{html.escape(tex)}">{_mathml(tex, "block")}</div>')
    raise nodes.SkipNode


# Replaces Sphinx's default splitQuery for 'zh': Latin words as usual; a run of Chinese is cut
# into the longest words that the index has (terms or title terms), unknown single characters
# (的, 是, …) dropped, the way jieba's indexing drops one-character words.
SPLITTER_JS = r"""
function splitQuery(query) {
  const index = (typeof Search !== "undefined" && Search._index) || {};
  const known = (w) => (index.terms && w in index.terms) || (index.titleterms && w in index.titleterms);
  const out = [];
  for (const token of query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)) {
    if (!token) continue;
    for (const run of token.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu)) {
      if (!/\p{Script=Han}/u.test(run)) { out.push(run); continue; }
      let i = 0;
      while (i < run.length) {
        let j = Math.min(run.length, i + 8);
        while (j > i + 1 && !known(run.slice(i, j))) j--;
        const word = run.slice(i, j);
        if (j > i + 1 || known(word)) out.push(word);
        i = j;
      }
    }
  }
  return out;
}
"""


def _english_stemmer_js() -> str:
    """Sphinx's own English stemmer (what 'zh' stems Latin words with in Python), exported as
    ``Stemmer``. Sphinx 9.0 exports ``ChineseStemmer``, which does not exist, and search stops
    with "ChineseStemmer is not defined" (sphinx-doc/sphinx#14229, fixed after 9.0)."""
    import sphinx.search

    folder = Path(sphinx.search.__file__).parent / "minified-js"
    code = [(folder / name).read_text(encoding="utf-8") for name in ("base-stemmer.js", "english-stemmer.js")]
    return "\n".join([*code, "window.Stemmer = EnglishStemmer;"])


def _chinese_search():
    from sphinx.search.zh import SearchChinese

    class SearchChineseSeries(SearchChinese):
        js_stemmer_rawcode = ""
        js_stemmer_code = _english_stemmer_js()
        js_splitter_code = SPLITTER_JS

    return SearchChineseSeries


def present_downloads(config) -> list:
    """The download file names the site serves, from the config value ``attnlab_downloads`` (comma
    separated; tools/site/build.py sets it to those it found built)."""
    return [name for name in config.attnlab_downloads.split(",") if name]


def on_builder_inited(app):
    if app.builder.name == "singlehtml":  # the print version (tools/site/pdf.py adds its font)
        app.add_css_file("attnlab-print.css")


def setup(app):
    import sphinx.search

    sphinx.search.languages["zh"] = _chinese_search()
    app.add_config_value("attnlab_downloads", "", "html", types=[str])
    app.add_transform(RemoteImages)
    app.add_transform(ExplorerPreviews)
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    app.connect("html-page-context", on_page_context)
    app.connect("builder-inited", on_builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
