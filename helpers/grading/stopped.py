"""Where the learner's code was when the clock stopped it, read from its frames: the line, the call it
was computing (``a @ a``, ``time.sleep(10)``), the loop around it, how deep a recursion went.

Only what the frames show: a time-out message names a loop when the stopped line lies inside one
(a backward jump in the function's bytecode spans it), a recursion when the same function is on the
stack many times, the expression the frame's current instruction computes (the thread is inside it
when it is a call: C code such as ``time.sleep``, or a library's Python code). The learner's frames are those
of files outside the standard library, the installed packages and ``helpers`` (a notebook cell, a
file of their own, ``exec``'d text).
"""
from __future__ import annotations

import dis
import functools
import linecache
import os
import sysconfig
from dataclasses import dataclass

#: a recursion is named when the stopped function is on the stack at least this many times
RECURSION_NAMED = 50
#: characters of the expression being computed shown (longer ones end in “…”)
STEP_CHARS = 60
#: instructions besides calls that run C code which can take long (``a @ b``, ``x[i]``, ``a == b``, ``-a``)
_OPERATORS = ("BINARY_", "COMPARE_OP", "CONTAINS_OP", "STORE_SUBSCR", "UNARY_", "INPLACE_")

_HELPERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: folders whose code is never the learner's: the standard library, installed packages, helpers
LIBRARY_DIRS = tuple(sorted({os.path.join(os.path.abspath(p), "") for p in
                             (*(sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")),
                              _HELPERS) if p}))


def learners(code) -> bool:
    """Whether ``code`` (a code object) is the learner's: not the standard library's, an installed
    package's, ``helpers``' or frozen."""
    return _learners_file(code.co_filename)


@functools.lru_cache(maxsize=1024)
def _learners_file(name: str) -> bool:
    if name.startswith("<frozen"):
        return False
    return not (os.path.isabs(name) and os.path.join(os.path.abspath(name), "").startswith(LIBRARY_DIRS))


@dataclass(frozen=True)
class Where:
    """The learner's innermost frame when stopped: ``line`` (number in their cell or file) and its
    ``text``; ``step``: the expression its current instruction computes, as written (``a @ a``,
    ``time.sleep(10)``), ``calling``: whether that instruction is a call (the thread is inside it),
    ``operating``: whether it is one that can run C code for long (a call or an operator: ``a @ a``,
    ``x[i]``, ``a == b``); ``loop_line``: the first line of the innermost loop around it, in this frame or an outer one
    of theirs (0: none), ``loop_for``: whether that loop is a ``for`` (it ends when its sequence does) rather
    than a ``while`` (it ends when its condition turns false); ``depth``: how many times that function was on the stack; ``function``: its
    name, ``entering``: stopped on its first line (just called)."""

    line: int
    text: str = ""
    step: str = ""
    calling: bool = False
    operating: bool = False
    loop_line: int = 0
    depth: int = 1
    #: the function's name, and whether it had only just been entered (its first line: the ``def``)
    function: str = ""
    entering: bool = False
    loop_for: bool = False
    #: ``((first line, is a for loop), …)`` of every loop around it, innermost first, across their frames
    loops: tuple = ()

    @property
    def recursion(self) -> bool:
        """Whether the function was on the stack often enough to call it a recursion."""
        return self.depth >= RECURSION_NAMED


def where(frame, stop_at=None) -> Where | None:
    """Where the learner's code is, ``frame`` being the innermost frame of their thread; frames are
    read outward until ``stop_at(code)`` is true (the checker's own, which called theirs), past the
    checker's frames their code is inside of (the forbidden-call profiler runs at every call).
    ``None`` when no frame of theirs is running."""
    def ours(f):
        return stop_at is not None and stop_at(f.f_code)

    def outward():
        f = frame
        while f is not None and ours(f):
            f = f.f_back
        while f is not None and not ours(f):
            yield f
            f = f.f_back
    return _where(outward())


def where_raised(exc: BaseException) -> Where | None:
    """Where the learner's code was when ``exc`` ended it (its traceback's frames): a recursion that
    ended in ``RecursionError`` past the limit has left no running frame to read."""
    frames, tb = [], exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return _where(reversed(frames))


def _where(frames) -> Where | None:
    theirs = [f for f in frames if _learners_file(f.f_code.co_filename)]
    if not theirs:
        return None
    inner = theirs[0]
    code = inner.f_code
    depth = sum(1 for f in theirs if f.f_code is code)
    loops = []  # every loop around it, innermost first: a loop in this frame, then in the frames that called it
    for f in theirs:
        for loop in _loops_around(f.f_code, f.f_lasti):
            if loop not in loops:  # a recursion's frames repeat the same loops
                loops.append(loop)
    loop_line, loop_for = loops[0] if loops else (0, False)
    # "just entered": on the def line of a function whose body starts below it (a comprehension, a lambda
    # or a one-line def runs all its work on that line)
    entering = inner.f_lineno == code.co_firstlineno and not code.co_name.startswith("<") and _body_below(code)
    step, opname = _step(inner)
    calling = opname.startswith("CALL")
    return Where(inner.f_lineno or 0, _line_text(inner, inner.f_lineno), step, calling,
                 calling or opname.startswith(_OPERATORS), loop_line, depth, code.co_name,
                 entering, loop_for, tuple(loops))


def _line_text(frame, line) -> str:
    if not line:
        return ""
    return linecache.getline(frame.f_code.co_filename, line, frame.f_globals).strip()


@functools.lru_cache(maxsize=256)
def _instructions(code) -> tuple:
    return tuple(dis.get_instructions(code))


@functools.lru_cache(maxsize=256)
def _loops(code) -> tuple:
    """``((first offset, last offset, head line, is a for loop), …)`` of every loop in ``code``: each
    backward jump and the instructions it jumps back over; a ``for`` loop jumps back to its ``FOR_ITER``
    (every Python from 3.10 on), a ``while`` loop to its condition or its body."""
    starts = sorted((offset, line) for offset, line in dis.findlinestarts(code) if line is not None)

    def line_of(offset):
        found = 0
        for start, line in starts:
            if start > offset:
                break
            found = line
        return found
    loops = []
    iterating = {ins.offset for ins in _instructions(code) if ins.opname == "FOR_ITER"}
    for ins in _instructions(code):
        backward = ("JUMP" in ins.opname and "NO_INTERRUPT" not in ins.opname
                    and isinstance(ins.argval, int) and ins.argval <= ins.offset)
        if backward:
            lines = [n for n in (line_of(ins.argval), line_of(ins.offset)) if n]
            loops.append((ins.argval, ins.offset, min(lines) if lines else 0, ins.argval in iterating))
    return tuple(loops)


def _loops_around(code, offset: int) -> list:
    """``[(first line, is a for loop), …]`` of the loops of ``code`` around ``offset``, innermost first."""
    around = sorted((loop for loop in _loops(code) if loop[0] <= offset <= loop[1]), key=lambda loop: loop[1] - loop[0])
    return list(dict.fromkeys(loop[2:] for loop in around))


@functools.lru_cache(maxsize=256)
def _body_below(code) -> bool:
    """Whether ``code`` has lines after its first (a ``def`` whose body is below it)."""
    return any(line is not None and line > code.co_firstlineno for _, line in dis.findlinestarts(code))


def _step(frame) -> tuple:
    """``(text, opname)``: the expression ``frame``'s current instruction computes, as written (``""``
    where the source or the positions are missing), and the instruction's name."""
    ins = next((i for i in _instructions(frame.f_code) if i.offset == frame.f_lasti), None)
    if ins is None:
        return "", ""
    pos = getattr(ins, "positions", None)
    if pos is None or not pos.lineno:  # Python 3.10: the whole line for a call
        return (_line_text(frame, frame.f_lineno) if ins.opname.startswith("CALL") else ""), ins.opname
    lines = [linecache.getline(frame.f_code.co_filename, n, frame.f_globals)
             for n in range(pos.lineno, (pos.end_lineno or pos.lineno) + 1)]
    if not lines[0]:
        return "", ins.opname
    if len(lines) == 1 and pos.col_offset is not None and pos.end_col_offset is not None:
        text = lines[0].encode()[pos.col_offset:pos.end_col_offset].decode(errors="replace")
    else:
        text = " ".join(line.strip() for line in lines)
    text = " ".join(text.split())
    return (text if len(text) <= STEP_CHARS else text[:STEP_CHARS] + "…"), ins.opname
