"""``make test-kernels``: the fast suite and strict nbval once per OpenBLAS kernel family this CPU can
run, and once with numpy's SIMD dispatch limited to its baseline, then a summary table.

A test or stored output that holds on one CPU only (two BLAS paths compared bit for bit, a figure
that moves with the last float32 bit) fails here on the machine in front of you. Each run prints the
kernel OpenBLAS actually loaded (threadpoolctl) and numpy's dispatched features in use; a family the
CPU cannot run is skipped with the instruction set it lacks.

Usage: python -m tools.checks.kernel_families [--families Haswell,Nehalem] [--suites fast,nbval]
       [--fast-flags "-n 2"] [--nbval-flags "..."] [-- extra pytest arguments]
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from tools import ROOT

#: OpenBLAS's x86-64 kernel families (OPENBLAS_CORETYPE), newest first, with the CPU flags
#: (/proc/cpuinfo names) each needs: forcing one the CPU lacks would stop on an illegal instruction
FAMILIES = {
    "SkylakeX": ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"),
    "Haswell": ("avx2", "fma"),
    "Zen": ("avx2", "fma"),
    "Sandybridge": ("avx",),
    "Nehalem": ("sse4_2", "ssse3"),
    "Prescott": ("pni",),  # SSE3
}
#: the extra run: this shell's kernels, numpy limited to its baseline SIMD
LIMITED = "numpy-baseline"
#: the same flags as `make test`'s nbval (the Makefile passes its own with --nbval-flags)
NBVAL_FLAGS = "--nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg"

PROBE = """
import json
from threadpoolctl import threadpool_info
import numpy as np
np.ones((64, 64), np.float32) @ np.ones((64, 64), np.float32)  # load and use the BLAS
try:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
except ImportError:
    from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
print(json.dumps({"kernel": ", ".join(f"{i.get('internal_api')} {i.get('architecture')}" for i in blas) or "?",
                  "dispatch": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
                  "all_dispatch": list(__cpu_dispatch__)}))
"""


def cpu_flags() -> set:
    """The CPU's flags as Linux names them (empty where /proc/cpuinfo is missing)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def probe(env: dict) -> dict:
    """The BLAS kernel and numpy features a process under ``env`` actually uses."""
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return {"kernel": f"probe failed ({done.returncode}): {done.stderr.strip()[-200:]}", "dispatch": [],
                "all_dispatch": []}
    return json.loads(done.stdout)


def default_env(env: dict | None = None) -> dict:
    """``env`` (default: this process's) with OpenBLAS and numpy left to pick their own kernels."""
    return {k: v for k, v in (os.environ if env is None else env).items()
            if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")}


def second_family(env: dict | None = None) -> str:
    """The family a release runs strict nbval under besides the CPU's default: the newest one this CPU
    can run whose kernels OpenBLAS does not already pick by default (SkylakeX → Haswell on AVX-512,
    Haswell → Sandybridge on AVX2); numpy-baseline where no other family runs (another CPU architecture)."""
    base = default_env(env)
    default, flags = probe(base)["kernel"], cpu_flags()
    for family, needs in FAMILIES.items():
        if all(f in flags for f in needs) and probe({**base, "OPENBLAS_CORETYPE": family})["kernel"] != default:
            return family
    return LIMITED


def counts(junit: Path) -> dict:
    """passed/failed/skipped from a pytest junit XML report."""
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    if not junit.exists():
        return totals
    for suite in ET.parse(junit).getroot().iter("testsuite"):
        tests, errors = int(suite.get("tests", 0)), int(suite.get("errors", 0))
        failed, skipped = int(suite.get("failures", 0)) + errors, int(suite.get("skipped", 0))
        totals["failed"] += failed
        totals["skipped"] += skipped
        totals["passed"] += tests - failed - skipped
    return totals


def run_suite(name: str, env: dict, flags: str, extra: list, workdir: Path) -> dict:
    junit = workdir / f"{name}.xml"
    where = ["tests", "-m", "not slow"] if name == "fast" else ["notebooks"]
    cmd = [sys.executable, "-m", "pytest", *where, *shlex.split(flags), "-q", "-p", "no:cacheprovider"]
    cmd += [f"--junitxml={junit}", *extra]
    start = time.perf_counter()
    rc = subprocess.run(cmd, env=env, cwd=ROOT).returncode
    return {**counts(junit), "rc": rc, "seconds": time.perf_counter() - start}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=",".join([*FAMILIES, LIMITED]),
                        help=f"comma-separated, from {', '.join([*FAMILIES, LIMITED])}")
    parser.add_argument("--suites", default="fast,nbval", help="comma-separated: fast, nbval")
    parser.add_argument("--nbval-flags", default=NBVAL_FLAGS)
    parser.add_argument("--fast-flags", default="", help="pytest flags for the fast suite (the Makefile: -n …)")
    parser.add_argument("extra", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    suites = [s.strip() for s in args.suites.split(",") if s.strip()]
    unknown = [f for f in families if f not in FAMILIES and f != LIMITED] + [s for s in suites if s not in ("fast", "nbval")]
    if unknown:
        print(f"unknown families or suites: {', '.join(unknown)}", file=sys.stderr)
        return 2
    flags, base = cpu_flags(), {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    rows = []
    with tempfile.TemporaryDirectory(prefix="test-kernels-") as tmp:
        for family in families:
            env = dict(base)
            if family == LIMITED:  # this shell's own kernels (OPENBLAS_CORETYPE as set, or OpenBLAS's choice)
                env["NPY_DISABLE_CPU_FEATURES"] = " ".join(probe(base)["all_dispatch"])
            else:
                missing = [f for f in FAMILIES[family] if f not in flags]
                if missing:
                    print(f"\n=== {family}: skipped — this CPU lacks {', '.join(missing)}", flush=True)
                    rows.append({"family": family, "kernel": f"skipped: no {', '.join(missing)}"})
                    continue
                env["OPENBLAS_CORETYPE"] = family
            seen = probe(env)
            same = [r["family"] for r in rows if r.get("kernel") == seen["kernel"] and r.get("dispatch") ==
                    (" ".join(seen["dispatch"]) or "baseline")]
            if same:  # OpenBLAS maps some families onto another's kernels (Zen → Haswell)
                print(f"\n=== {family}: skipped — OpenBLAS runs {seen['kernel']} for it, as for {same[0]}", flush=True)
                rows.append({"family": family, "kernel": f"skipped: same kernels as {same[0]} ({seen['kernel']})"})
                continue
            print(f"\n=== {family}: OpenBLAS kernel in use: {seen['kernel']}; numpy dispatch in use: "
                  f"{' '.join(seen['dispatch']) or 'baseline only'}", flush=True)
            row = {"family": family, "kernel": seen["kernel"], "dispatch": " ".join(seen["dispatch"]) or "baseline"}
            workdir = Path(tmp) / family
            workdir.mkdir()
            for suite in suites:
                print(f"--- {family}: {suite}", flush=True)
                flags_ = args.fast_flags if suite == "fast" else args.nbval_flags
                row[suite] = run_suite(suite, env, flags_, args.extra, workdir)
            rows.append(row)
    print("\n" + summary(rows, suites))
    ran = [r for r in rows if suites and suites[0] in r]
    return 1 if not ran or any(r[s]["rc"] != 0 for r in ran for s in suites) else 0


def summary(rows: list, suites: list) -> str:
    """The table: one row per family, passed/failed/skipped per suite."""
    head = ["family", "OpenBLAS kernel used", "numpy dispatch", *suites]
    lines = [head]
    for r in rows:
        cells = [r["family"], r["kernel"], r.get("dispatch", "—")]
        for s in suites:
            c = r.get(s)
            cells.append("—" if c is None else
                         f"{'ok' if c['rc'] == 0 else 'FAIL'} {c['passed']}p {c['failed']}f {c['skipped']}s "
                         f"{c['seconds']:.0f}s")
        lines.append(cells)
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    out = [" | ".join(str(c).ljust(w) for c, w in zip(line, widths)) for line in lines]
    out.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
