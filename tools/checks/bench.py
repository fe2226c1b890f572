#!/usr/bin/env python3
"""``make bench``: how fast the series answers, measured (not asserted in a timed unit test).

For every live explorer: the time from a control's new value to the finished figure and text
(compute + render, kernel side), median and p95 over >= 32 moves, side by side with the naive
way (a new figure per move) in the same run. Then the wall time to execute notebooks 00–08
(09 on its own line, if present), cold ``import helpers``, the growth exponent of naive
attention time on this CPU (07_cost_of_length), how long each graded code exercise takes to check
its reference solution (target: under 2 s each, the model's first load aside), and the time to build the site and the PDF
(``make site``, ``make pdf``; target: both within 120 s). The last line has a fixed form:

bench: worst median X ms, worst p95 Y ms, worst ratio to naive Z, series S s, import I s

``--memory`` (``make bench-memory``) instead drives every explorer, each in a fresh process, through
3,000 random moves and prints its RSS growth (limit: 30 MiB each; exit 1 if one is over).
"""
from __future__ import annotations

import argparse
import functools
import itertools
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tools import ROOT
from tools.series import NOTEBOOKS, REAL_MODEL

MOVES = 32


def sample_texts() -> list:
    """What a text box is set to here: the series' sentences, Chinese and English, short and near
    the 64-token cap (each new text is a new forward pass of the real model)."""
    from helpers import texts

    return [texts.CHINESE_PROMPT, texts.PROMPT, texts.HEATMAP_TEXT, texts.PARAGRAPH[:120], texts.PARAGRAPH[:280],
            texts.CHINESE_PROMPT * 3, texts.LONG_TEXT[:200]]


@functools.lru_cache(maxsize=1)
def random_texts(count: int = 32, seed: int = 5) -> tuple:
    """:func:`sample_texts` and ``count`` texts of 1–40 characters drawn from their characters
    (seeded): more texts than a text box's caches keep, few enough that a move often returns to one."""
    rng = np.random.default_rng(seed)
    pool = sorted(set("".join(sample_texts())) - {"\n"})
    drawn = ["".join(pool[int(i)] for i in rng.integers(len(pool), size=int(rng.integers(1, 41)))) for _ in range(count)]
    return tuple(sample_texts() + drawn)


def candidate_values(widget, k: int = 12) -> list:
    """Distinct values a control can take, spread over its range (a text box: :func:`sample_texts`)."""
    import ipywidgets

    options = getattr(widget, "options", None)
    if isinstance(widget, ipywidgets.Text):
        values = sample_texts()
    elif options is not None and not isinstance(widget.value, bool):
        values = [o[1] if isinstance(o, tuple) else o for o in options]
    elif isinstance(widget.value, bool):
        values = [not widget.value, widget.value]
    else:
        lo, hi, step = widget.min, widget.max, widget.step
        grid = np.linspace(lo, hi, k)
        values = [type(widget.value)(round(round((g - lo) / step) * step + lo, 10)) for g in grid]
    return [v for v in dict.fromkeys(values) if v != widget.value] + [widget.value]


def moves_for(explorer, n_moves: int = MOVES) -> list:
    """Round-robin over the controls: ``(name, k)`` = move control ``name`` to its k-th value."""
    names = itertools.cycle(list(explorer.controls))
    counters = dict.fromkeys(explorer.controls, 0)
    moves = []
    for name in itertools.islice(names, n_moves):
        moves.append((name, counters[name]))
        counters[name] += 1
    return moves


def time_moves(explorer, moves) -> list:
    """Apply each move (values are read from the control's current options, which may depend on
    other controls) and time it from the new value to the finished PNG and text. The explorer's
    per-state memo is cleared first, so every move is timed as a state never seen before."""
    out = []
    for name, k in moves:
        control = explorer.controls[name]
        values = candidate_values(control)
        value = values[k % len(values)]
        if control.value == value:
            value = values[(k + 1) % len(values)]
        explorer._cache.clear()
        start = time.perf_counter()
        control.value = value  # observers run synchronously: compute + draw + PNG + text
        out.append((time.perf_counter() - start) * 1e3)
    return out


def p95(xs) -> float:
    return float(np.percentile(xs, 95))


def bench_explorers() -> list:
    import matplotlib

    matplotlib.use("Agg")
    import helpers

    helpers.setup()
    from helpers import widgets

    rows = []
    for name, factory in widgets.all_factories().items():
        fast, naive = factory(), factory(naive=True)
        moves = moves_for(fast)
        fast_ms = time_moves(fast, moves)
        naive_ms = time_moves(naive, moves)
        row = {"name": name, "moves": len(fast_ms), "median": statistics.median(fast_ms), "p95": p95(fast_ms),
               "naive_median": statistics.median(naive_ms)}
        row["ratio"] = row["median"] / row["naive_median"]
        rows.append(row)
        print(f"{name:<28} {row['moves']:>3} moves  median {row['median']:6.1f} ms  p95 {row['p95']:6.1f} ms  "
              f"naive median {row['naive_median']:6.1f} ms  ratio {row['ratio']:.2f}", flush=True)
    return rows


def execute_notebooks(paths) -> float:
    import nbformat
    from nbclient import NotebookClient

    start = time.perf_counter()
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        NotebookClient(nb, timeout=900, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    return time.perf_counter() - start


def cold_import_seconds(repeats: int = 3) -> float:
    code = "import time; t = time.perf_counter(); import helpers; print(time.perf_counter() - t)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
            for _ in range(repeats)]
    return min(runs)


RSS_SCRIPT = """
import contextlib, io, resource, sys, time
import matplotlib
matplotlib.use("Agg")
import nbformat
from IPython.core.inputtransformer2 import TransformerManager  # a cell may hold IPython syntax
nb = nbformat.read(sys.argv[1], as_version=4)
code = "\\n".join(TransformerManager().transform_cell(c.source) for c in nb.cells
                  if c.cell_type == "code" and "helpers.widgets" not in c.source)
start = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    exec(compile(code, sys.argv[1], "exec"), {})
seconds = time.perf_counter() - start
try:  # this process's own high-water mark (ru_maxrss would carry the parent's over fork + exec)
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(seconds, peak)
"""


def notebook_peak_rss(path: Path) -> tuple:
    """(seconds, peak RSS MiB) of a notebook's code run in one fresh process (widget cells skipped)."""
    out = subprocess.run([sys.executable, "-c", RSS_SCRIPT, str(path)], capture_output=True, text=True,
                         check=True, cwd=path.parent).stdout.split()
    return float(out[0]), float(out[1])


def naive_growth_exponent() -> float:
    from helpers.tiled import growth_exponent, time_naive_vs_tiled

    ns = [512, 1024, 2048, 4096]
    rows = time_naive_vs_tiled(ns, repeats=3)
    return growth_exponent(ns, [r["naive_s"] for r in rows])


MEMORY_MOVES = 3000
#: the most an explorer's process may grow over MEMORY_MOVES random moves, so a cache
#: that grows without a cap shows up before a learner's browser tab runs out of memory
MEMORY_LIMIT_MIB = 30.0

MEMORY_SCRIPT = """
import sys, time
import numpy as np
import matplotlib
matplotlib.use("Agg")
import helpers
helpers.setup()
from helpers import widgets
from tools.checks.bench import random_value, rss_mib
name, moves = sys.argv[1], int(sys.argv[2])
explorer = widgets.all_factories()[name]()
start = rss_mib()
rng = np.random.default_rng(23)
names = list(explorer.controls)
times = []
for _ in range(moves):
    control = explorer.controls[names[int(rng.integers(len(names)))]]
    value = random_value(control, rng)
    t = time.perf_counter()
    control.value = value
    times.append((time.perf_counter() - t) * 1e3)
end = rss_mib()
caches = getattr(explorer, "cache_bytes", dict)()
print(start, end, float(np.percentile(times, 95)), max(times), " ".join(f"{k}={v}" for k, v in caches.items()))
"""


def rss_mib() -> float:
    """This process's resident memory now (VmRSS), MiB."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def random_value(control, rng):
    """A random value ``control`` can take now (its current options, or a step of its range; a text
    box: one of :func:`random_texts`)."""
    import ipywidgets

    options = getattr(control, "options", None)
    if isinstance(control, ipywidgets.Text):
        pool = random_texts()
        return pool[int(rng.integers(len(pool)))]
    if isinstance(control.value, bool):
        return bool(rng.integers(2))
    if options is not None:
        values = [o[1] if isinstance(o, tuple) else o for o in options]
        return values[int(rng.integers(len(values)))]
    steps = int(round((control.max - control.min) / control.step))
    return type(control.value)(round(control.min + int(rng.integers(steps + 1)) * control.step, 10))


def bench_memory(moves: int = MEMORY_MOVES, only=()) -> bool:
    """Every explorer in its own process, driven through ``moves`` random moves: RSS after building
    it and after the moves (and the p95 and slowest move, and what its caches hold at the end).
    True when none grew more than MEMORY_LIMIT_MIB."""
    from helpers import widgets

    ok = True
    for name, factory in widgets.all_factories().items():
        if only and name not in only:
            continue
        if getattr(factory, "needs_model", False):
            from helpers import real_model

            try:
                real_model.find_gguf()
            except real_model.ModelNotInstalled as exc:
                print(f"{name:<28} skipped: {exc}")
                continue
        out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, name, str(moves)], capture_output=True,
                             text=True, check=True, cwd=ROOT).stdout.split()
        start, end, p95_ms, worst_ms = map(float, out[:4])
        grew = end - start
        ok &= grew <= MEMORY_LIMIT_MIB
        print(f"{name:<28} {moves} moves  RSS {start:6.0f} → {end:6.0f} MiB  growth {grew:5.1f} MiB "
              f"({'ok' if grew <= MEMORY_LIMIT_MIB else 'OVER'} ≤ {MEMORY_LIMIT_MIB:.0f})  p95 {p95_ms:5.1f} ms  "
              f"slowest {worst_ms:6.1f} ms  caches {' '.join(out[4:])}", flush=True)
    return ok


SITE_PDF_TARGET_S = 120.0


def bench_site() -> float:
    """Wall time of ``make site`` and ``make pdf`` (fresh processes, into a temporary folder)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        times = {}
        for what, cmd in (("site", [sys.executable, "-m", "tools.site.build", "html", f"{tmp}/_site"]),
                          ("pdf", [sys.executable, "-m", "tools.site.pdf", f"{tmp}/book.pdf"])):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
            times[what] = time.perf_counter() - t0
    total = times["site"] + times["pdf"]
    print(f"build site: {times['site']:.1f} s, PDF: {times['pdf']:.1f} s, site + PDF: {total:.1f} s "
          f"(target ≤ {SITE_PDF_TARGET_S:.0f} s: {'met' if total <= SITE_PDF_TARGET_S else 'MISSED'})")
    return total


GRADER_TARGET_S = 2.0


def bench_graders() -> None:
    """Each code exercise's check of its own reference solution: wall and CPU time, against the target
    a learner waits for (the exercise's data, and the model where one is used, loaded first as the
    notebook has loaded them by then)."""
    from helpers.exercises import CODE_EXERCISES
    from helpers.grading import code_check

    for key, exercise in CODE_EXERCISES.items():
        exercise.every_case()
        namespace = {}
        exec(exercise.solution, namespace)  # noqa: S102  (the exercise's own reference solution)
        wall, cpu = time.perf_counter(), time.process_time()
        ok, _, _ = code_check.run(exercise, namespace[exercise.signature.split("(")[0]])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        verdict = "met" if wall < GRADER_TARGET_S else "MISSED"
        print(f"grader {key}: {wall:.2f} s wall, {cpu:.2f} s CPU, right answer accepted: {ok} "
              f"(target < {GRADER_TARGET_S:.0f} s: {verdict})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-notebooks", action="store_true", help="do not time notebook execution")
    parser.add_argument("--skip-site", action="store_true", help="do not time the site and PDF builds")
    parser.add_argument("--only-site", action="store_true", help="time only the site and PDF builds")
    parser.add_argument("--memory", action="store_true",
                        help=f"only the memory bench: every explorer, {MEMORY_MOVES} random moves, RSS growth")
    parser.add_argument("--moves", type=int, default=MEMORY_MOVES, help="moves per explorer for --memory")
    parser.add_argument("--explorer", action="append", default=[], help="--memory: only this factory (repeatable)")
    args = parser.parse_args()
    if args.memory:
        import matplotlib

        matplotlib.use("Agg")
        sys.exit(0 if bench_memory(args.moves, args.explorer) else 1)
    if args.only_site:
        bench_site()
        return

    rows = bench_explorers()
    exponent = naive_growth_exponent()
    print(f"naive attention time growth exponent (n = 512…4096): {exponent:.2f}")
    import_s = cold_import_seconds()
    print(f"cold import helpers: {import_s:.3f} s")
    bench_graders()
    series = float("nan")
    if not args.skip_notebooks:
        light = [ROOT / "notebooks" / f"{name}.ipynb" for name in NOTEBOOKS if name not in REAL_MODEL]
        series = 0.0
        for book in light:  # every notebook of the list on its own line, then the series total
            seconds = execute_notebooks([book])
            series += seconds
            print(f"execute {book.stem}: {seconds:.1f} s")
        print(f"execute notebooks without the real model ({len(light)}): {series:.1f} s")
        for name in NOTEBOOKS:
            if name in REAL_MODEL:
                book = ROOT / "notebooks" / f"{name}.ipynb"
                print(f"execute {name} (real model): {execute_notebooks([book]):.1f} s")
                seconds, rss = notebook_peak_rss(book)
                print(f"{name} code in one process: {seconds:.1f} s, peak RSS {rss:.0f} MiB")
    if not args.skip_site:
        bench_site()
    worst_median = max(r["median"] for r in rows)
    worst_p95 = max(r["p95"] for r in rows)
    worst_ratio = max(r["ratio"] for r in rows)
    print(f"bench: worst median {worst_median:.1f} ms, worst p95 {worst_p95:.1f} ms, "
          f"worst ratio to naive {worst_ratio:.2f}, series {series:.1f} s, import {import_s:.2f} s")


if __name__ == "__main__":
    main()
