"""Regenerate helpers/data/circuit_sweep.npz: every run of helpers.circuit.sweep (``make circuit-data``).

Trains each variant from each of its seeds with the project's own code, prints one line per run
(drop window, final scores, CPU time) and writes the file. Deterministic: run twice, the same file
contents (the tests retrain the two_layers seed-0 prefix and compare it bit for bit).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from helpers.circuit import sweep  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=os.path.join("helpers", "data", sweep.DATA))
    parser.add_argument("--steps", type=int, default=sweep.STEPS)
    parser.add_argument("--variants", nargs="*", default=list(sweep.VARIANTS))
    args = parser.parse_args()
    summaries, prefix = [], None
    started, cpu = time.time(), time.process_time()
    for variant in args.variants:
        for seed in sweep.VARIANTS[variant][3]:
            t0, c0 = time.time(), time.process_time()
            run, summary = sweep.run_variant(variant, seed, steps=args.steps)
            if variant == "two_layers" and seed == 0:
                prefix = run.checkpoints[sweep.PREFIX_STEP]
            summaries.append(summary)
            c = summary.curves
            print(f"{variant:20s} seed {seed}: drop {summary.drop[0]:4d}→{summary.drop[1]:4d} "
                  f"repeat {summary.value_at('repeat_loss', summary.drop[0]):.3f}→"
                  f"{summary.value_at('repeat_loss', summary.drop[1]):.3f} (end {c['repeat_loss'][-1]:.3f}), "
                  f"prev {c['previous'][-1]:.3f}, ind {c['induction'][-1]:.3f}, dup {c['duplicate'][-1]:.3f}, "
                  f"formed {summary.formed}; patches {summary.patches}; transfer {summary.transfer}; "
                  f"{time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU", flush=True)
    if prefix is None:
        raise SystemExit("the two_layers variant (seed 0) must be among --variants: its prefix checkpoint is stored")
    sweep.save(args.out, summaries, prefix)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1024:.0f} KiB) in {time.time() - started:.0f} s wall, "
          f"{time.process_time() - cpu:.0f} s CPU", flush=True)


if __name__ == "__main__":
    main()
