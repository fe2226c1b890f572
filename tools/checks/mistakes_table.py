"""The table "mistakes we grade and where they come from" in CONTRIBUTING.md, written from the code
exercises' :class:`~helpers.grading.code_exercise.Mistake` entries (their ``seen`` sources).

``python -m tools.checks.mistakes_table`` rewrites the table between the two markers; ``--check`` only
says whether it is current (exit 1 and the difference when not). ``tests/series/test_mistakes_table.py``
runs the check, so a mistake added or a source changed without rewriting the table fails by name.
"""
from __future__ import annotations

import argparse
import difflib
import sys

from helpers.exercises import CODE_EXERCISES
from tools import ROOT

CONTRIBUTING = ROOT / "CONTRIBUTING.md"
START = "<!-- mistakes-table:start (tools/checks/mistakes_table.py writes this part) -->"
END = "<!-- mistakes-table:end -->"
#: how much of a hint the table quotes: enough to recognise the mistake, short enough for one row
HINT_CHARS = 36


def _short(hint: str) -> str:
    first = hint.split("：")[0].split("。")[0]
    text = first if len(first) <= HINT_CHARS else first[:HINT_CHARS] + "…"
    return text.replace("|", "\\|")


def _link(source: str) -> str:
    """A GitHub thread as ``owner/repo#N`` linked to its address; anything else (a paper) as written."""
    prefix = "https://github.com/"
    if source.startswith(prefix):
        parts = source[len(prefix):].split("/")
        if len(parts) == 4 and parts[2] in ("issues", "pull", "discussions") and parts[3].isdigit():
            return f"[{parts[0]}/{parts[1]}#{parts[3]}]({source})"
    if source.startswith("https://"):
        return f"<{source}>"
    return source


def table(exercises=None) -> str:
    """The markdown between the markers: one row per mistake with a source, then the count without."""
    exercises = CODE_EXERCISES if exercises is None else exercises
    rows = ["| 练习 Exercise | 错误 Mistake | 提示开头 Hint begins | 在哪里见过 Seen in |", "|---|---|---|---|"]
    unsourced = []
    for key, exercise in exercises.items():
        for mistake in exercise.mistakes:
            if mistake.seen:
                sources = "<br>".join(_link(s) for s in mistake.seen)
                rows.append(f"| {key} | `{mistake.name}` | {_short(mistake.hint)} | {sources} |")
            else:
                unsourced.append(f"{key} `{mistake.name}`")
    sourced = len(rows) - 2
    tail = (f"\n\n{sourced} 个有公开出处；{len(unsourced)} 个还没有（{sourced} with a public source; "
            f"{len(unsourced)} without one yet）：{', '.join(unsourced)}。" if unsourced else "")
    return "\n".join(rows) + tail


def current_text() -> str:
    return CONTRIBUTING.read_text(encoding="utf-8")


def rewritten(text: str) -> str:
    """``text`` with the part between the markers replaced by :func:`table`."""
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise ValueError(f"CONTRIBUTING.md needs the markers {START!r} … {END!r} once each, in that order")
    head, rest = text.split(START)
    _, tail = rest.split(END)
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the table is current")
    args = parser.parse_args(argv)
    text = current_text()
    new = rewritten(text)
    if args.check:
        if new == text:
            return 0
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                   "CONTRIBUTING.md", "CONTRIBUTING.md (rewritten)"))
        print("\nthe mistakes table is stale: run `python -m tools.checks.mistakes_table`")
        return 1
    if new != text:
        CONTRIBUTING.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
