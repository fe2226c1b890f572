"""Printed gaps that carry rounding noise: a gap, error or recompute difference printed with its own
digits ("最多差 8.7e-07") instead of as a bound against its tolerance ("差 < 1e-05：是").

Two computations that take different BLAS paths agree only to rounding, so the digits of the gap
between them change with the CPU's kernel family (SkylakeX 8.7e-07, Haswell 7.9e-07, Nehalem
6.7e-07): a stored output or a readout that prints them differs from one machine to the next. A
line that names a gap (差、误差、变化、gap、error、diff…) may print a bound: a number right after a
comparison or a tolerance word ("< 1e-12"、"允许 1e-05"、"允许的差 ≤ 1.7e-10"); any other number in
e-notation, or a decimal below 1e-3 written out ("0.00079"), is the gap's own noisy digits. Gaps
printed as plain decimals ("最大差 0.006"、"损失变化 -0.07") are measured quantities far above rounding,
and pass; values that are no gap ("‖J‖_F = 5.7e-06") are not looked at.
"""
import html
import json
import re

#: words that say the line prints a gap, an error or a difference
GAP_WORDS = re.compile(r"差|误差|变化|偏离|gap|error|diff|deviation|discrepanc", re.IGNORECASE)
#: a number in e-notation (``7.9e-07``, ``1e-5``) or a decimal below 1e-3 written out (``0.00079``)
SMALL_NUMBER = re.compile(r"(?<![\w.])[-+−]?(?:\d+(?:\.\d+)?[eE][-+−]?\d+|0\.000\d*[1-9]\d*)(?![\w.])")
#: what may stand just before a bound: a comparison or a tolerance word (and a space or colon)
BOUND_BEFORE = re.compile(r"(?:<|≤|＜|&lt;|&le;|小于|不到|低于|不超过|以内|允许|容差|要求|界|tolerance|below|under)"
                          r"[\s:：=]*$", re.IGNORECASE)


def noisy_numbers(line: str) -> list:
    """The numbers of ``line`` that print a gap's own small digits (empty when the line names no gap,
    or prints only bounds)."""
    if not GAP_WORDS.search(line):
        return []
    found = []
    for match in SMALL_NUMBER.finditer(line):
        if not BOUND_BEFORE.search(line[:match.start()][-12:]):
            found.append(match.group(0))
    return found


def noisy_lines(text: str) -> list:
    """``(line, [noisy numbers])`` for each line of ``text`` (HTML tags dropped, ``<br>`` a new line)
    that prints a gap's digits."""
    plain = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<br\s*/?>|</tr>|</p>", "\n", text)))
    return [(line.strip(), numbers) for line in plain.split("\n") if (numbers := noisy_numbers(line))]


def stored_outputs(path):
    """``(cell index, output)`` for every output stored in the notebook at ``path``, in order."""
    for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        for out in cell.get("outputs", []):
            yield index, out


def output_text(output: dict) -> str:
    """The text a stored notebook output shows: a stream's text, else text/plain, else text/html."""
    if "text" in output:
        return "".join(output["text"])
    data = output.get("data", {})
    for kind in ("text/plain", "text/html", "text/markdown"):
        if kind in data:
            value = data[kind]
            return "".join(value) if isinstance(value, list) else value
    return ""
