"""What every ``.npz`` generator of notebook 12 does around its arrays (``make head-scan``,
``make sender-screen``): read ``--out``, re-execute in the pinned environment (:func:`pinned.pin`),
compute the arrays with a timed progress line, write them with
:func:`helpers.render.npz.write_npz` (the same bytes for the same arrays)."""
from __future__ import annotations

import argparse
import time

from tools.data import pinned


def main(doc: str, default_out, arrays, argv=None) -> None:
    """Run one generator: ``doc`` is its docstring (the first line describes ``--out``'s command),
    ``default_out`` the stored file, ``arrays(progress)`` the function that computes the arrays
    (``progress(text)`` prints ``text`` after the wall and CPU seconds so far)."""
    from helpers.render.npz import write_npz

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", default=str(default_out), help="where to write the .npz")
    args = parser.parse_args(argv)
    pinned.pin()
    start, cpu = time.perf_counter(), time.process_time()

    def progress(text):
        print(f"[{time.perf_counter() - start:7.1f} s wall, {time.process_time() - cpu:7.1f} s cpu] {text}", flush=True)

    path = write_npz(arrays(progress), args.out)
    progress(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")
