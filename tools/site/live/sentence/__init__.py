"""The engine of 你自己的句子: SmolLM2-135M-Instruct run in the reader's browser from its GGUF file.

Classic scripts (no modules, no fetch: the engine runs from ``file://``), in this folder:

- ``messages.js``: every sentence the engine says to a reader (Chinese), and its error codes;
- ``kernel.c`` → ``kernel.wasm`` → ``kernel_wasm.js``: the quantized products as WebAssembly SIMD
  (``build.py``, ``make sentence-wasm``); ``kernels.js``: loading it, and the same products in
  plain JavaScript, bit for bit, for a browser without SIMD;
- ``gguf.js``: the file's header, checked against SmolLM2-135M-Instruct's;
- ``tokenizer.js``: the tokenizer, from the GGUF's vocabulary and merges;
- ``model.js``: the forward pass with a KV cache; ``loader.js``: file → heap → model;
- ``worker.js``: the Worker's message loop; ``client.js``: the page's promise API (its docstring
  is the API's documentation).

:data:`SCRIPTS` is the one list of them, in load order; :func:`bundle` joins them into one file
for a page (``attnlab_sentence.js``). ``harness.html`` is a bare page that drives the engine (the
tests and the benchmark use it, with the bundle beside it). The book's page that uses the engine is
the subpackage :mod:`sentence.page`.
"""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the engine's scripts in load order (client.js last: the page's API)
SCRIPTS = ("messages.js", "kernel_wasm.js", "kernels.js", "gguf.js", "tokenizer.js", "model.js", "loader.js",
           "worker.js", "client.js")
#: the name a page loads the bundle by
BUNDLE = "attnlab_sentence.js"
HARNESS = HERE / "harness.html"


def bundle(scripts=SCRIPTS, folder: Path = HERE) -> str:
    """Every script of ``scripts`` (the engine's: :data:`SCRIPTS`) in ``folder``, in order, as one classic script."""
    return "".join((Path(folder) / name).read_text(encoding="utf-8").rstrip("\n") + "\n" for name in scripts)


def write_bundle(folder: Path) -> Path:
    """Write :func:`bundle` as ``folder/attnlab_sentence.js`` and ``harness.html`` beside it; returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / BUNDLE).write_text(bundle(), encoding="utf-8")
    (folder / HARNESS.name).write_bytes(HARNESS.read_bytes())
    return folder
