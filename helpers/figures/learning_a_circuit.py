"""``11_learning_a_circuit``: its figures — the phase change, the sweep, the heads' patterns.

:func:`phase_change_figure` puts the losses and the two scores of one stored run on one time
axis with the drop shaded; :func:`sweep_figure` draws every seed of two variants side by side;
:class:`CircuitPatterns` draws all four heads' patterns on one sequence with the copies and the
induction targets marked — the static figure and the explorer
(:mod:`helpers.explorers.learning_a_circuit`) share it.
"""
from __future__ import annotations

import numpy as np

from ..render.palette import ACCENT, BASE, DARK_GREY, LIGHT_GREY, MUTED, PINK, WHITE
from ..render.panels import future_masked, masked_viridis, pattern_frame
from ..render.png import new_figure
from ..render.validation import positive_int

#: the colours of the four curves (the notebook's prose names them with colour_word)
REPEAT_COLOUR, OTHER_COLOUR, PREVIOUS_COLOUR, INDUCTION_COLOUR = ACCENT, MUTED, BASE, PINK


def phase_change_figure(summary, *, vocab: int, ceiling: float):
    """Top: loss on the repeated (predictable) tokens and on the others; bottom: the best
    previous-token score of layer 0 and the best induction score of layer 1 — one run
    (a :class:`helpers.circuit.sweep.Summary`), one time axis, the drop window shaded."""
    fig = new_figure(7.6, 6.0)
    ax_loss, ax_score = fig.subplots(2, 1, sharex=True)
    steps, c = summary.steps, summary.curves
    start, end = summary.drop
    for ax in (ax_loss, ax_score):
        ax.axvspan(start, end, color=LIGHT_GREY, zorder=0, label=f"下降最快的 {end - start} 步" if ax is ax_loss else None)
        ax.spines[["top", "right"]].set_visible(False)
    ax_loss.plot(steps, c["repeat_loss"], color=REPEAT_COLOUR, lw=2, label="重复段里可预测的 token")
    ax_loss.plot(steps, c["other_loss"], color=OTHER_COLOUR, lw=2, label="其余 token")
    ax_loss.axhline(np.log(vocab), color=DARK_GREY, ls="--", lw=1, label=f"瞎猜（ln {vocab}）")
    ax_loss.set_ylabel("损失（nats / token）")
    ax_loss.set_ylim(0, np.log(vocab) * 1.3)
    ax_loss.legend(fontsize=9, loc="center right")
    ax_score.plot(steps, c["previous"], color=PREVIOUS_COLOUR, lw=2, ls="--", label="第 0 层最好的前一个 token 分数")
    ax_score.plot(steps, c["induction"], color=INDUCTION_COLOUR, lw=2, label="第 1 层最好的归纳分数")
    ax_score.axhline(ceiling, color=DARK_GREY, ls=":", lw=1.2, label=f"只靠位置能到的归纳分数（{ceiling:.2f}）")
    ax_score.set_ylim(0, 1.0)
    ax_score.set_ylabel("分数（平均权重，0–1）")
    ax_score.set_xlabel("训练步数")
    # below the axes: inside, the dotted ceiling line crosses the whole width
    ax_score.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)
    ax_score.set_xlim(0, steps[-1])
    return fig


def sweep_figure(runs: dict, *, name: str = "repeat_loss", ylabel: str = "重复段的损失（nats / token）",
                 vocab: int | None = None):
    """One curve per seed of each variant (``{label: [Summary, …]}``, up to three variants);
    ``vocab``: a dashed line at the loss of guessing, ln ``vocab`` (as in :func:`phase_change_figure`)."""
    fig = new_figure(7.6, 3.2)
    ax = fig.add_subplot()
    for (label, summaries), colour in zip(runs.items(), (ACCENT, MUTED, BASE)):
        for i, s in enumerate(summaries):
            ax.plot(s.steps, s.curves[name], color=colour, lw=1.3, alpha=0.9,
                    label=f"{label}（{len(summaries)} 个种子）" if i == 0 else None)
    if vocab is not None:
        vocab = positive_int("vocab", vocab)
        ax.axhline(np.log(vocab), color=DARK_GREY, ls="--", lw=1, label=f"瞎猜（ln {vocab}）")
    ax.set_xlabel("训练步数")
    ax.set_ylabel(ylabel)
    ax.set_xlim(0, max(s.steps[-1] for ss in runs.values() for s in ss))
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=9, loc="center right")   # the right half between the two groups of curves is empty
    ax.spines[["top", "right"]].set_visible(False)
    return fig


class CircuitPatterns:
    """All heads' patterns (``(layers, heads, n, n)``) on one sequence, one panel per head: the
    future cells grey, dashed white lines where the second copy starts (rows) and where the first
    copy starts and ends (columns), and small white rings on the induction targets (query
    ``second + j`` → key ``first + j + 1``). ``update`` swaps the patterns and the titles."""

    def __init__(self, fig, layers: int, heads: int, *, first: int, second: int, repeat: int, length: int):
        axes = np.atleast_2d(fig.subplots(layers, heads))
        self.axes, self.meshes, self.titles, self.marks = axes, [], [], []
        cmap = masked_viridis()
        j = np.arange(repeat - 1)
        for layer in range(layers):
            for head in range(heads):
                ax = axes[layer, head]
                mesh, lines = pattern_frame(ax, length, columns=(first - 0.5, first + repeat - 0.5),
                                            rows=(second - 0.5,), blank=np.nan, cmap=cmap, label_size=9)
                self.meshes.append(mesh)
                self.marks.extend(lines)
                self.marks.extend(ax.plot(first + j + 1, second + j, "o", ms=4.5, mfc="none", mec=WHITE, mew=0.9))
                ticks = range(0, length, 8)
                ax.set_xticks(ticks)
                ax.set_yticks(ticks)
                self.titles.append(ax.set_title(" ", fontsize=9))
        fig.colorbar(self.meshes[0], ax=list(axes.ravel()), fraction=0.03, label="权重")

    @property
    def artists(self) -> list:
        """What an explorer animates, in drawing order: the marks after the meshes, so they stay on top."""
        return [*self.meshes, *self.marks, *self.titles]

    def update(self, patterns, titles) -> None:
        flat = np.asarray(patterns, dtype=float).reshape(-1, *np.shape(patterns)[-2:])
        for mesh, title, pattern, text in zip(self.meshes, self.titles, flat, titles):
            mesh.set_array(future_masked(pattern))
            title.set_text(text)


def best_heads(previous, induction) -> tuple:
    """``(p, i)``: the head of layer 0 with the highest previous-token score and the head of the last
    layer with the highest induction score (arrays ``(layers, heads)``; the first one on a tie)."""
    return int(np.argmax(previous[0])), int(np.argmax(induction[-1]))


def head_titles(previous, induction) -> list:
    """One title per head: its layer and number, and its two scores (arrays ``(layers, heads)``)."""
    layers, heads = np.shape(previous)
    return [f"第 {layer} 层第 {head} 个头\n前一个 token {previous[layer][head]:.2f} · 归纳 {induction[layer][head]:.2f}"
            for layer in range(layers) for head in range(heads)]


def patterns_at_figure(history, step: int, sequence, *, note: str | None = None):
    """The four heads' patterns at ``step`` on the shown sequence (a :class:`Batch` of one);
    ``note``: what that step is (say, "骤降开始"), in brackets after the step in the title."""
    if note is not None and (not isinstance(note, str) or not note.strip()):
        raise TypeError(f"note must be a non-empty string or None, got {type(note).__name__} {note!r:.60}")
    fig = new_figure(6.4, 6.0)
    i = history.index(step)
    panels = CircuitPatterns(fig, *history.patterns.shape[1:3], first=int(sequence.first[0]),
                             second=int(sequence.second[0]), repeat=int(sequence.repeat[0]),
                             length=history.patterns.shape[-1])
    panels.update(history.patterns[i], head_titles(history.previous[i], history.induction[i]))
    fig.suptitle(f"第 {step} 步" + (f"（{note}）" if note else ""), fontsize=10)
    return fig

