"""Regenerate helpers/data/fixed_state_recall.npz: every run of helpers.linear_attention.recall
(``make fixed-state-data``).

Trains each setting with each attention core from each seed (11's recipe), prints a line per run
(overall recall, layer-0 previous-token score, CPU time) and writes the file, with the seed-0 prefix
parameters the bit-for-bit test retrains. Deterministic on every x86-64 CPU: the script re-executes
itself under ``pinned.pinned_env`` (``tools/data/pinned.py``), as the other generators do:
``python -m tools.data.fixed_state_data [--settings …] [--part FILE | --merge PART… | --prefix OUT]``.
``--settings conv --part FILE`` trains one setting into a part file; ``--merge PART…`` joins parts (two
processes on two cores, the same file as one). ``--prefix OUT`` retrains only the stored prefixes: the
test that compares them with the file bit for bit.
"""
from __future__ import annotations

import argparse
import os
import pickle
import time

from helpers.linear_attention import recall
from helpers.linear_attention.model import KINDS
from helpers.render.npz import write_npz
from tools.data import pinned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=os.path.join("helpers", "data", recall.DATA))
    parser.add_argument("--settings", nargs="*", default=list(recall.SETTINGS))
    parser.add_argument("--part", metavar="FILE", help="write the runs of --settings to FILE (for --merge)")
    parser.add_argument("--merge", nargs="*", metavar="PART", help="join part files into --out")
    parser.add_argument("--prefix", metavar="OUT", help="only retrain every stored prefix and write them to OUT")
    args = parser.parse_args()
    pinned.pin()
    if args.prefix:
        write_npz({f"prefix/{s}/{k}/{name}": v for s in recall.SETTINGS for k in KINDS
                   for name, v in recall.train(s, k, recall.SEEDS[0], prefix=True).params.items()}, args.prefix)
        return
    if args.merge:
        runs, prefixes = [], {}
        for part in args.merge:
            with open(part, "rb") as f:
                got = pickle.load(f)  # noqa: S301 — our own part files
            runs += got["runs"]
            prefixes.update(got["prefix"])
        order = {key: i for i, key in enumerate(recall.runs_wanted())}
        runs.sort(key=lambda r: order[(r.setting, r.kind, r.seed)])
        missing = sorted(set(order) - {(r.setting, r.kind, r.seed) for r in runs})
        if missing:
            raise SystemExit(f"fixed_state_data --merge: missing runs {missing}")
        recall.save(args.out, runs, prefixes)
        print(f"wrote {args.out} ({os.path.getsize(args.out) / 1024:.0f} KiB)", flush=True)
        return
    runs, prefixes = [], {}
    for setting, kind, seed in recall.runs_wanted():
        if setting not in args.settings:
            continue
        c0 = time.process_time()
        run = recall.train(setting, kind, seed)
        runs.append(run)
        print(f"{setting} {kind} seed {seed}: recall {run.overall:.3f}, layer-0 previous-token {run.previous:.3f}, "
              f"final repeat loss {run.repeat_loss[-1]:.3f} ({time.process_time() - c0:.0f} s CPU)", flush=True)
    for setting in args.settings:
        for kind in KINDS:
            prefixes[(setting, kind)] = recall.train(setting, kind, recall.SEEDS[0], prefix=True).params
    if args.part:
        with open(args.part, "wb") as f:
            pickle.dump({"runs": runs, "prefix": prefixes}, f)
        print(f"wrote part {args.part}", flush=True)
    else:
        recall.save(args.out, runs, prefixes)
        print(f"wrote {args.out} ({os.path.getsize(args.out) / 1024:.0f} KiB)", flush=True)


if __name__ == "__main__":
    main()
