"""The engine of 你自己的句子 as it is committed: the WebAssembly kernel rebuilt from kernel.c gives the
committed kernel.wasm byte for byte, kernel_wasm.js carries those bytes, and the bundle a page
loads holds every script of the engine's folder once.

The rebuild needs Debian's clang and lld (the version in sentence/build.py): without them it skips
with the reason, and CI (which installs both, .ci/run) sets ATTENTION_LAB_REQUIRE_WASM=1 to make the
skip a failure.
"""
from __future__ import annotations

import base64
import os
import re

import pytest

from tools.site.live import sentence
from tools.site.live.sentence import build

REQUIRE_WASM = os.environ.get("ATTENTION_LAB_REQUIRE_WASM") == "1"


def test_rebuilding_the_kernel_gives_the_committed_bytes(tmp_path):
    reason = build.missing()
    if not reason and build.clang_version() != build.CLANG_VERSION:
        reason = (f"this is {build.clang_version()}; the committed bytes came from {build.CLANG_VERSION} "
                  "(another compiler may emit other, equally right, bytes)")
    if reason:
        if REQUIRE_WASM:
            pytest.fail(f"the wasm rebuild is required here (ATTENTION_LAB_REQUIRE_WASM=1): {reason}")
        pytest.skip(reason)
    wasm, js = build.build(tmp_path)
    assert wasm == build.WASM.read_bytes(), (
        "kernel.wasm is not what kernel.c builds to: run make sentence-wasm and commit kernel.wasm and kernel_wasm.js")
    assert js == build.WASM_JS.read_text(encoding="utf-8")


def test_the_script_embeds_the_committed_kernel():
    text = build.WASM_JS.read_text(encoding="utf-8")
    found = re.search(r'E\.KERNEL_WASM = "([A-Za-z0-9+/=]+)"', text)
    assert found, "kernel_wasm.js must set E.KERNEL_WASM to the kernel's base64"
    assert base64.b64decode(found.group(1)) == build.WASM.read_bytes(), "kernel_wasm.js is stale: make sentence-wasm"
    assert build.WASM.read_bytes()[:4] == b"\0asm"


def test_the_bundle_holds_every_script_once_in_order():
    on_disk = {p.name for p in sentence.HERE.glob("*.js")}
    assert set(sentence.SCRIPTS) == on_disk, f"sentence.SCRIPTS must list every script of the folder: {on_disk}"
    text = sentence.bundle()
    starts = [text.index((sentence.HERE / name).read_text(encoding="utf-8").strip()) for name in sentence.SCRIPTS]
    assert starts == sorted(starts)
    assert sentence.SCRIPTS[-1] == "client.js"
    # classic scripts only: a page opened from file:// cannot import modules or fetch
    assert not re.search(r"^\s*(import|export)\s", text, re.M)
    assert "fetch(" not in text and "importScripts" not in text


def test_every_part_registers_itself_by_name():
    for name in sentence.SCRIPTS[:-1]:
        text = (sentence.HERE / name).read_text(encoding="utf-8")
        assert re.search(r"\.parts\.push\(function \w+\(E\) \{", text), f"{name} must push one named part"
