"""你自己的句子's engine, run as a reader runs it: SmolLM2-135M-Instruct from its GGUF, in headless
Chromium, every request that is not to the page's own folder aborted, over http (127.0.0.1; the
model fetched beside the page) and over ``file://`` (the model picked with ``<input type=file>``).

For 3 fixed texts (English; Chinese; digits and punctuation mixed in) and 20 drawn by a seeded
generator, the page's numbers are held to ``helpers.real_model``'s (notebook 09's):
the token ids equal ``encode``, the labels ``token_labels``; every weight of all 270 attention maps
equals ``forward``'s to 1e-5 (see :func:`tolerance` for the texts where numpy's own float32 rounding
moves a weight further), and so do the 5 likeliest next tokens (ids, probabilities and text).
One more token typed (the KV-cache path) and an edit in the middle (the cache kept up to the edit)
give the full forward's numbers, and exactly the bits the engine's own full run gives. Bad text
(empty, over the 64-token cap, a control character, half an emoji) and wrong model files (not a
GGUF, empty, truncated, another architecture, another model, another quantization, a wrong shape)
each get their Chinese sentence; emoji and special tokens run, with a note. The plain-JavaScript
kernel (for a browser without WebAssembly SIMD) gives the SIMD kernel's bits.
"""
from __future__ import annotations

import base64
import re

import numpy as np
import pytest
import sentence_reference
from sentence_reference import CAP, FIXED, TOL, reference, same_ranking, wrong_files
from site_checks import module_browser, require

from tools import chromium
from tools.site.live import sentence

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.model]

SEED, DRAWN = 44, 20
MODES = ("http", "file")
CJK = re.compile(r"[\u4e00-\u9fff]")


def drawn_texts() -> list:
    """20 texts of English words, Chinese words, numbers, punctuation, whitespace, accents, kana,
    hangul and emoji, each at most :data:`CAP` tokens (sentence_reference.drawn_texts)."""
    return sentence_reference.drawn_texts(SEED, DRAWN)


def maps(run: dict) -> np.ndarray:
    """A packed Run's maps as (layers, heads, T, T)."""
    t = run["length"]
    return np.frombuffer(base64.b64decode(run["attn"]), dtype="<f4").reshape(run["layers"], run["heads"], t, t)


def assert_python_numbers(run: dict, ids: list, where: str) -> float:
    """The Run's maps and top 5 against helpers.real_model.forward of ``ids``; returns the largest map difference."""
    assert "error" not in run, f"{where}: {run}"
    assert run["ids"] == ids, f"{where}: the engine ran {run['ids']}, not {ids}"
    ref = reference(tuple(ids))
    diff = float(np.abs(maps(run) - ref["attn"]).max())
    assert diff <= ref["tol"], (f"{where}: an attention weight differs from helpers.real_model.forward by "
                                f"{diff:.2e} (numpy's own float32 spread on this text: {ref['spread']:.2e})")
    got = [t["id"] for t in run["top"]]
    assert same_ranking(got, ref["top"], ref["p"]), f"{where}: top 5 {got}, helpers.real_model {ref['top']}"
    for t in run["top"]:
        assert abs(t["p"] - ref["p"][t["id"]]) <= TOL, f"{where}: p({t['id']}) = {t['p']}, numpy {ref['p'][t['id']]}"
    assert [t["text"] for t in run["top"]] == [ref["text"][ref["top"].index(i)] for i in got]
    return diff


# ---- the page, over http and over file:// ---------------------------------------------------------------


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The bundle and the harness page, the model beside them, and wrong model files."""
    require(chromium.missing())
    from helpers import real_model

    work = sentence.write_bundle(tmp_path_factory.mktemp("sentence"))
    gguf = real_model.find_gguf()
    (work / "model.gguf").symlink_to(gguf)
    for name, data in wrong_files(gguf.read_bytes()[: 3 << 20]).items():
        (work / name).write_bytes(data)
    return work


browser = pytest.fixture(scope="module", name="browser")(module_browser)


@pytest.fixture(scope="module", params=MODES)
def page(request, folder, browser, smollm2):
    """The harness page with the model loaded into its main engine, over http or file://."""
    mode = request.param
    with chromium.serve(folder) as base:
        if mode == "file":
            base = folder.as_uri()
        context = browser.new_context()
        page = context.new_page()
        page.outside = chromium.only_from(context, base)
        page.errors = []
        page.mode, page.folder = mode, folder
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(base + "/harness.html")
        page.wait_for_function("document.documentElement.dataset.harnessReady !== undefined")
        page.evaluate("() => { harness.onPicked = null; }")
        page.info = load(page, "model.gguf", "main")
        assert "error" not in page.info, page.info
        yield page
        context.close()


def load(page, name: str, engine: str, options: dict | None = None) -> dict:
    """Load the file ``name`` of the page's folder into ``engine``: fetched over http, picked over file://."""
    options = options or {}
    if page.mode == "http":
        return page.evaluate("([n, o, e]) => harness.blob(n).then(b => harness.load(b, o, e))", [name, options, engine])
    page.set_input_files("#model", str(page.folder / name))
    return page.evaluate("([o, e]) => harness.loadPicked(o, e)", [options, engine])


def call(page, op: str, *args, engine: str = "main"):
    return page.evaluate("([op, args, e]) => harness.call(op, args, e)", [op, list(args), engine])


def assert_clean(page):
    assert page.outside == [], f"requests outside the page's folder: {page.outside}"
    assert page.errors == [], f"console errors: {page.errors}"


# ---- the tests ------------------------------------------------------------------------------------------


def test_loads_the_model_on_the_simd_kernel(page):
    info = page.info
    assert info["config"] == {"layers": 30, "heads": 9, "kvHeads": 3, "hidden": 576, "headDim": 64, "ffn": 1536,
                              "vocab": 49152, "ropeTheta": 100000, "eps": pytest.approx(1e-5, rel=1e-6)}
    assert info["kernel"] == "wasm-simd" and info["maxTokens"] == CAP and info["notes"] == []
    assert len(info["vocab"]["specials"]) == 17
    assert_clean(page)


@pytest.mark.parametrize("text", FIXED, ids=["english", "chinese", "mixed"])
def test_fixed_texts_give_python_numbers(page, smollm2, text):
    check_text(page, smollm2, text)


def test_drawn_texts_give_python_numbers(page, smollm2):
    texts = drawn_texts()
    assert len(set(texts)) == DRAWN
    for text in texts:
        check_text(page, smollm2, text)


def check_text(page, model, text: str) -> None:
    from helpers import real_model

    run = call(page, "text", text)
    ids = real_model.encode(model, text)
    where = f"{page.mode}, {text!r}"
    assert_python_numbers(run, ids, where)
    assert run["tokens"]["labels"] == real_model.token_labels(model, ids), where
    assert run["tokens"]["pieces"] == [model.tokens[i] for i in ids], where
    assert_clean(page)


def test_one_more_token_through_the_kv_cache(page, smollm2):
    from helpers import real_model

    for text in FIXED + drawn_texts()[:5]:
        ids = real_model.encode(smollm2, text)
        full = call(page, "run", ids)
        before = call(page, "truncateTo", len(ids) - 1)
        assert before["length"] == len(ids) - 1 and before["from"] == len(ids) - 1
        typed = call(page, "extend", ids[-1:])
        assert typed["from"] == len(ids) - 1
        assert_python_numbers(typed, ids, f"{page.mode}, {text!r} + one token")
        assert typed["attn"] == full["attn"], "the KV-cache path must give the full run's bits"
        assert typed["top"] == full["top"]
    assert_clean(page)


def test_an_edit_in_the_middle_recomputes_from_the_edit(page, smollm2):
    from helpers import real_model

    for text in FIXED:
        ids = real_model.encode(smollm2, text)
        k = len(ids) // 2
        call(page, "run", ids)
        edited = ids[:k] + [real_model.encode(smollm2, "马")[0]] + ids[k + 1:]
        run = call(page, "update", edited)
        assert run["from"] == k, "an edit at token k keeps the cache of tokens 0 … k−1"
        assert_python_numbers(run, edited, f"{page.mode}, {text!r} with token {k} replaced")
        assert run["attn"] == call(page, "run", edited)["attn"]
        shorter = ids[:k] + ids[k + 1:]
        call(page, "run", ids)
        run = call(page, "update", shorter)
        assert run["from"] == k
        assert_python_numbers(run, shorter, f"{page.mode}, {text!r} with token {k} deleted")
        prefix = call(page, "update", ids[:k])
        assert prefix["from"] == k and prefix["length"] == k, "a text cut short recomputes nothing"
        assert_python_numbers(prefix, ids[:k], f"{page.mode}, {text!r} cut to {k} tokens")
    assert_clean(page)


def test_the_typing_path_equals_a_full_run(page, smollm2):
    """What a text box does, key after key: engine.text on each longer prefix of the text."""
    from helpers import real_model

    text = FIXED[1] + "我想请三天假。"
    for end in range(1, len(text) + 1):
        run = call(page, "text", text[:end])
        assert_python_numbers(run, real_model.encode(smollm2, text[:end]), f"{page.mode}, typed {text[:end]!r}")
    assert_clean(page)


BAD_TEXT = [
    ("", "empty-text", "请先输入"),
    ("1" * (CAP + 1), "too-long", f"{CAP + 1} 个 token，超过了上限 {CAP}"),
    ("年假\u0007怎么", "control", "第 3 个字符是看不见的控制字符 U+0007"),
    ("a\u0085b", "control", "U+0085"),
]


@pytest.mark.parametrize("text, code, says", BAD_TEXT, ids=["empty", "over-the-cap", "bell", "c1-control"])
def test_bad_text_gets_its_sentence(page, text, code, says):
    run = call(page, "text", text)
    assert run.get("error", {}).get("code") == code, run
    assert says in run["error"]["message"] and CJK.search(run["error"]["message"])
    assert_clean(page)


def test_text_at_the_cap_and_odd_text_runs(page, smollm2):
    from helpers import real_model

    at_cap = call(page, "text", "1" * CAP)
    assert at_cap["length"] == CAP
    assert_python_numbers(at_cap, real_model.encode(smollm2, "1" * CAP), f"{page.mode}, {CAP} digits")
    half = page.evaluate("() => harness.call('text', ['ab' + String.fromCharCode(0xd83d)])")
    assert half["error"]["code"] == "broken-char" and "第 3 个字符是半个字符" in half["error"]["message"]
    assert call(page, "text", 42)["error"]["code"] == "not-text"
    assert call(page, "run", [1, 2, 49152])["error"]["code"] == "bad-ids"
    emoji = call(page, "text", "我爱😀")
    assert_python_numbers(emoji, real_model.encode(smollm2, "我爱😀"), f"{page.mode}, emoji")
    assert [n["code"] for n in emoji["tokens"]["notes"]] == ["emoji"]
    assert "😀" in emoji["tokens"]["notes"][0]["message"] and "4 个 UTF-8 字节" in emoji["tokens"]["notes"][0]["message"]
    special = call(page, "text", "<|im_start|>user")
    assert special["ids"] == real_model.encode(smollm2, "<|im_start|>user") == [1, 4093]
    assert [n["code"] for n in special["tokens"]["notes"]] == ["special"]
    assert_clean(page)


# ---- wrong model files ----------------------------------------------------------------------------------


WRONG = [
    ("not-a-model.gguf", "not-gguf", "这不是 GGUF 模型文件"),
    ("empty.gguf", "empty", "空的"),
    ("truncated.gguf", "truncated", "模型文件不完整：应有 98,362,432 字节，只有 3,145,728 字节"),
    ("other-architecture.gguf", "architecture", "“gemma”架构"),
    ("other-model.gguf", "other-model", "llama.embedding_length 是 960，应为 576"),
    ("other-quantization.gguf", "tensor-type", "token_embd.weight 的格式是 Q4_K，这里只读得懂 Q8_0"),
    ("wrong-shape.gguf", "tensor-shape", "blk.0.attn_q.weight 的形状是 [576, 577]，应为 [576, 576]"),
]


def test_a_wrong_model_file_gets_its_sentence_and_nothing_breaks(page):
    page.evaluate("() => harness.create('other')")
    for name, code, says in WRONG:
        got = load(page, name, "other")
        assert got.get("error", {}).get("code") == code, f"{name}: {got}"
        assert says in got["error"]["message"], f"{name}: {got['error']['message']}"
        assert "SmolLM2-135M-Instruct.Q4_1.gguf" in got["error"]["message"]
        assert call(page, "text", "你好", engine="other")["error"]["code"] == "not-loaded"
    assert "error" not in load(page, "model.gguf", "other"), "after wrong files the right one must still load"
    ids = call(page, "text", FIXED[1])["ids"]
    assert call(page, "run", ids, engine="other")["attn"] == call(page, "run", ids)["attn"]
    page.evaluate("() => harness.engines.other.terminate()")
    assert_clean(page)


def test_plain_javascript_gives_the_simd_bits(page):
    """A browser without WebAssembly SIMD gets kernels.js's copy of the kernel: slower, the same bits."""
    if page.mode == "file":
        pytest.skip("the kernel does not depend on how the file came in; once over http is enough (it is slow)")
    page.evaluate("() => harness.create('js')")
    info = load(page, "model.gguf", "js", {"kernel": "js"})
    assert info["kernel"] == "js" and info["notes"] == []
    ids = call(page, "text", FIXED[1])["ids"]
    plain, simd = call(page, "run", ids, engine="js"), call(page, "run", ids)
    assert plain["attn"] == simd["attn"] and plain["top"] == simd["top"]
    page.evaluate("() => harness.engines.js.terminate()")
    assert_clean(page)


def test_terminated_engine_says_so(page):
    page.evaluate("() => harness.create('gone')")
    page.evaluate("() => harness.engines.gone.terminate()")
    got = call(page, "text", "你好", engine="gone")
    assert got["error"]["code"] == "worker-failed" and "引擎已经关闭" in got["error"]["message"]
    assert_clean(page)


def test_a_browser_without_webassembly_gets_the_plain_kernel_and_a_note(folder, browser, smollm2):
    """A Worker without WebAssembly (the page's Blob constructor made to start every script with
    ``self.WebAssembly = undefined``): the engine says so in one sentence and runs on the
    plain-JavaScript kernel; asked for the SIMD kernel only, it refuses with a sentence."""
    from helpers import real_model

    with chromium.serve(folder) as base:
        context = browser.new_context()
        page = context.new_page()
        outside = chromium.only_from(context, base)
        page.goto(base + "/harness.html")
        page.wait_for_function("document.documentElement.dataset.harnessReady !== undefined")
        page.evaluate("""() => {
            const Original = window.Blob;
            window.Blob = function (parts, options) {
              const script = options && options.type === "text/javascript";
              return new Original(script ? ["self.WebAssembly = undefined;\\n", ...parts] : parts, options);
            };
            harness.create("main");
        }""")
        page.mode, page.folder = "http", folder
        refused = load(page, "model.gguf", "main", {"kernel": "wasm"})
        assert refused["error"]["code"] == "no-simd" and "WebAssembly SIMD" in refused["error"]["message"]
        info = load(page, "model.gguf", "main")
        assert info["kernel"] == "js"
        assert [n["code"] for n in info["notes"]] == ["slow-kernel"] and "结果完全相同" in info["notes"][0]["message"]
        assert_python_numbers(call(page, "text", "你好"), real_model.encode(smollm2, "你好"), "no WebAssembly, '你好'")
        assert outside == []
        context.close()
