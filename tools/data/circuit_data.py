"""Regenerate helpers/data/circuit_sweep.npz: every run of helpers.circuit.sweep (``make circuit-data``).

Trains each variant from each of its seeds with the project's own code, prints one line per run
(drop window, final scores, CPU time) and writes the file. Deterministic on every x86-64 CPU: the
script re-executes itself under ``pinned.pinned_env`` (this folder's ``pinned.py``: one BLAS thread,
baseline kernels for OpenBLAS, numpy and glibc's libm), so a run anywhere gives the same file contents.
``--part`` with ``--variants …`` writes a part of the sweep and ``--merge PART…`` joins the parts
(two processes on two cores, the same file as one). ``--prefix OUT`` trains only the two_layers seed-0 prefix (``PREFIX_STEP`` steps) and writes its
parameters and evaluations to ``OUT``: the test that compares them with the stored file bit for bit.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from helpers.circuit import history, sweep, trainer
from helpers.render.npz import write_npz
from tools.data import pinned


def prefix(out: str) -> None:
    """The two_layers seed-0 run up to PREFIX_STEP: parameters and the evaluations at 0 and PREFIX_STEP."""
    step = sweep.PREFIX_STEP
    run = trainer.train(steps=step, eval_every=step, checkpoints=(step,))
    arrays = {f"param/{k}": v for k, v in run.checkpoints[step].params.items()}
    for t in (0, step):
        arrays[f"repeat_loss/{t}"] = np.array(run.at(t).repeat_loss)
        arrays[f"induction/{t}"] = np.array(run.at(t).induction)
    write_npz(arrays, out)


def _history(out: str) -> None:
    t0, c0 = time.time(), time.process_time()
    write_npz(history.record(), out)
    print(f"wrote {out} ({os.path.getsize(out) / 1024:.0f} KiB) in {time.time() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} s CPU", flush=True)


def merge(parts: list, out: str, fill_from=None) -> None:
    """The parts' runs, in the order a single run writes them, with the one stored prefix, into ``out``."""
    runs, prefixes, finals, unpinned = {}, [], [], []
    for part in parts:
        loaded = dict(sweep.load(part))
        loaded.pop("_unpinned")
        if loaded.pop("_prefix") is not None:
            prefixes.append(sweep.load(part)["_prefix"])
        if loaded.pop("_final") is not None:
            finals.append(sweep.load(part)["_final"])
        for variant, summaries in loaded.items():
            runs.update({(variant, s.seed): s for s in summaries})
    missing = [(v, seed) for v in sweep.VARIANTS for seed in sweep.VARIANTS[v][3] if (v, seed) not in runs]
    if missing and fill_from:
        old = sweep.load(fill_from)
        for v, seed in missing:
            runs[(v, seed)] = next(s for s in old[v] if s.seed == seed)
        unpinned, missing = missing, []
        print(f"filled {len(unpinned)} runs from {fill_from} (unpinned): {unpinned}", flush=True)
    if missing or len(prefixes) != 1 or len(finals) != 1:
        raise SystemExit(f"circuit_data --merge: missing runs {missing}, {len(prefixes)} prefix and "
                         f"{len(finals)} final checkpoints (need 1 each)")
    sweep.save(out, [runs[(v, seed)] for v in sweep.VARIANTS for seed in sweep.VARIANTS[v][3]], prefixes[0],
               final=finals[0], unpinned=unpinned)
    print(f"wrote {out} ({os.path.getsize(out) / 1024:.0f} KiB) from {len(parts)} parts", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=os.path.join("helpers", "data", sweep.DATA))
    parser.add_argument("--steps", type=int, default=sweep.STEPS)
    parser.add_argument("--variants", nargs="*", default=list(sweep.VARIANTS))
    parser.add_argument("--prefix", metavar="OUT", help="only retrain the stored prefix and write it to OUT")
    parser.add_argument("--history", metavar="OUT", help="only write the explorer's history (helpers.circuit.history)")
    parser.add_argument("--part", action="store_true",
                        help="write a part of the sweep (--variants without two_layers allowed), for --merge")
    parser.add_argument("--merge", nargs="+", metavar="PART", help="join parts written with --part into --out")
    parser.add_argument("--fill-from", metavar="OLD", help="with --merge: take runs missing from the parts from OLD, "
                        "recorded as unpinned (sweep.unpinned_runs); a stopgap until a full pinned run")
    args = parser.parse_args()
    if args.merge:
        merge(args.merge, args.out, args.fill_from)
        return
    pinned.pin()
    if args.prefix:
        prefix(args.prefix)
        return
    if args.history:
        _history(args.history)
        return
    summaries, prefix_model, final_model = [], None, None
    started, cpu = time.time(), time.process_time()
    for variant in args.variants:
        for seed in sweep.VARIANTS[variant][3]:
            t0, c0 = time.time(), time.process_time()
            run, summary = sweep.run_variant(variant, seed, steps=args.steps)
            if variant == "two_layers" and seed == 0:
                prefix_model, final_model = run.checkpoints[sweep.PREFIX_STEP], run.checkpoints[run.steps]
            summaries.append(summary)
            c = summary.curves
            print(f"{variant:20s} seed {seed}: drop {summary.drop[0]:4d}→{summary.drop[1]:4d} "
                  f"repeat {summary.value_at('repeat_loss', summary.drop[0]):.3f}→"
                  f"{summary.value_at('repeat_loss', summary.drop[1]):.3f} (end {c['repeat_loss'][-1]:.3f}), "
                  f"prev {c['previous'][-1]:.3f}, ind {c['induction'][-1]:.3f}, dup {c['duplicate'][-1]:.3f}, "
                  f"formed {summary.formed}; patches {summary.patches}; transfer {summary.transfer}; "
                  f"{time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU", flush=True)
            if args.part:   # a part keeps what it has so far (a long sweep split over processes)
                sweep.save(args.out, summaries, prefix_model, final=final_model)
    if prefix_model is None and not args.part:
        raise SystemExit("the two_layers variant (seed 0) must be among --variants: its prefix checkpoint is stored")
    sweep.save(args.out, summaries, prefix_model, final=final_model)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1024:.0f} KiB) in {time.time() - started:.0f} s wall, "
          f"{time.process_time() - cpu:.0f} s CPU", flush=True)


if __name__ == "__main__":
    main()
