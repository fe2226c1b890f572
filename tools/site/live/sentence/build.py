"""Rebuild the engine's WebAssembly kernel from kernel.c: ``make sentence-wasm``.

    python -m tools.site.live.sentence.build           kernel.wasm and kernel_wasm.js from kernel.c
    python -m tools.site.live.sentence.build --check   rebuild in a temporary folder, compare (exit 1 if not equal)

The flags are pinned here; :data:`CLANG_VERSION` is the compiler the committed bytes came from
(Debian's clang 14 and lld: ``apt-get install clang lld``). ``--strip-all`` leaves out the name
and producers sections, so the bytes hold no compiler version string or path.
``kernel_wasm.js`` carries the same bytes as base64 for the Worker (a page opened from
``file://`` cannot fetch ``kernel.wasm``).
"""
from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "kernel.c"
WASM = HERE / "kernel.wasm"
WASM_JS = HERE / "kernel_wasm.js"
#: the compiler the committed kernel.wasm was built with (``clang --version``, first line)
CLANG_VERSION = "Debian clang version 14.0.6"
FLAGS = ["--target=wasm32", "-O3", "-msimd128", "-fno-builtin", "-nostdlib",
         "-Wl,--no-entry", "-Wl,--import-memory", "-Wl,--export=__heap_base", "-Wl,--strip-all"]
JS_TEMPLATE = """/* Attention Lab · your own sentence — kernel.wasm as base64 (written by build.py from kernel.c: make sentence-wasm). */
(self.AttnLabSentence = self.AttnLabSentence || {{ parts: [] }}).parts.push(function kernelWasm(E) {{
  E.KERNEL_WASM = "{b64}";
}});
"""


def missing() -> str:
    """'' when clang and wasm-ld are installed, else a one-line reason."""
    for tool in ("clang", "wasm-ld"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install clang lld): the wasm kernel cannot be rebuilt here"
    return ""


def clang_version() -> str:
    """The installed clang's version line (``Debian clang version 14.0.6``)."""
    out = subprocess.run(["clang", "--version"], capture_output=True, text=True, check=True).stdout
    return re.sub(r"\s*\(.*$", "", out.splitlines()[0]).strip()


def wasm_js(wasm: bytes) -> str:
    """kernel_wasm.js's text for the kernel's bytes."""
    return JS_TEMPLATE.format(b64=base64.b64encode(wasm).decode("ascii"))


def build(out_dir: Path) -> tuple:
    """Compile kernel.c into ``out_dir``; returns (wasm bytes, kernel_wasm.js text)."""
    target = Path(out_dir) / "kernel.wasm"
    subprocess.run(["clang", *FLAGS, "-o", str(target), str(SOURCE)], check=True)
    wasm = target.read_bytes()
    return wasm, wasm_js(wasm)


def main(argv: list) -> int:
    reason = missing()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    if clang_version() != CLANG_VERSION:
        print(f"note: this is {clang_version()!r}; the committed bytes came from {CLANG_VERSION!r}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        wasm, js = build(Path(tmp))
    if "--check" in argv:
        same = WASM.read_bytes() == wasm and WASM_JS.read_text(encoding="utf-8") == js
        print("kernel.wasm and kernel_wasm.js match kernel.c" if same else "kernel.wasm differs from a rebuild of kernel.c")
        return 0 if same else 1
    WASM.write_bytes(wasm)
    WASM_JS.write_text(js, encoding="utf-8")
    print(f"{WASM.name}: {len(wasm):,} bytes; {WASM_JS.name}: {len(js):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
