"""Sphinx configuration of the series' static site (``make site``) and of its one-page print
version (``make pdf``). Read by ``tools/site/build.py``, which stages the sources it names.

Pages are the stored notebooks (``nb_execution_mode = "off"``: nothing is re-executed); every
asset a page loads comes from the built site (the theme bundles its own; maths is MathML,
written at build time; no widget JavaScript from a CDN).
"""
from __future__ import annotations

import logging
from pathlib import Path

try:  # Sphinx's Chinese search segments with jieba; its dictionary ships in the package
    import jieba

    jieba.setLogLevel(logging.WARNING)  # not "Building prefix dict …" on every build
except ImportError:
    jieba = None

# tools/site/build.py runs Sphinx as `python -m sphinx` in the repository root, so this package and its
# extension import as tools.* (no change to sys.path)
from tools.home import home  # noqa: E402  (the project's home: home.toml)

HERE = Path(__file__).resolve().parent

project = "注意力实验室 Attention Lab"
author = "Attention Lab"
copyright = "Attention Lab（代码 MIT；随附字体 SIL OFL 1.1）"
language = "zh_CN"
root_doc = "index"

extensions = ["myst_nb", "tools.site.attnlab_site"]
exclude_patterns = ["_build", "_extra", "**.ipynb_checkpoints"]

# notebooks as stored: outputs are the ones nbval checks, not regenerated here
nb_execution_mode = "off"
nb_ipywidgets_js = {}  # no widget state is stored; never load require.js / html-manager from a CDN
nb_merge_streams = True
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type"]

html_theme = "sphinx_book_theme"
html_title = "注意力实验室"
# the series' bundled CJK font (and its licence) is the last fallback of the font stack
FONTS = HERE.parent.parent / "helpers" / "render" / "fonts"
html_static_path = ["static", str(FONTS / "AttnLabSansSC-Regular.otf"), str(FONTS / "OFL.txt")]
html_css_files = ["attnlab.css"]
html_favicon = "static/favicon.svg"
html_js_files = []
html_math_renderer = "mathml"
html_copy_source = True  # the theme's download button serves each page's .ipynb from _sources/
html_show_sourcelink = False
html_last_updated_fmt = None
html_search_language = "zh"
if jieba is None:
    raise RuntimeError("the site's Chinese search needs jieba (pip install -e '.[site]'): without it no Chinese word is indexed")
# domain words jieba should keep whole (归纳头, 因果掩码, …), one a line
html_search_options = {"dict": str(HERE / "search_words.txt")}

html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    # the theme's own buttons: launch in Colab / Binder (notebooks/NAME.ipynb in the repository)
    # and download the page's .ipynb; the book's PDF, zip and wheel: attnlab_site's line
    "repository_url": home()["repository"],
    "repository_branch": home()["branch"],
    "path_to_docs": "notebooks",
    "launch_buttons": {"colab_url": "https://colab.research.google.com", "binderhub_url": "https://mybinder.org",
                       "notebook_interface": "jupyterlab"},
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "extra_footer": "",
}
html_context = {"default_mode": "light"}
