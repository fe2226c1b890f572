"""``10_learning_to_attend``: its figures — curves, weights at chosen steps, score tables.

Built from the shared panels of :mod:`helpers.plots`; the explorer in
:mod:`helpers.explorers.training` reuses :class:`WeightsPanel` and :func:`score_panel`.
"""
from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from .. import training
from ..render.palette import ACCENT, BASE, DARK_GREY, FADED_GREY, HATCH_GREY, MUTED, WHITE
from ..render.panels import BarPanel, HeatmapPanel
from ..render.png import new_figure

KIND_LABELS = training.KINDS


class WeightsPanel:
    """The last position's weights over a sentence of up to ``MAX_LEN`` words, the 事项 word in
    the accent colour; ``update`` changes heights, colours and the words under the bars in place
    (the words are text artists, not tick labels, so an explorer never redraws its background)."""

    def __init__(self, ax, words, weights, *, title="", show_values=True):
        self.show_values = show_values
        self.bars = BarPanel(ax, [""] * training.MAX_LEN, np.zeros(training.MAX_LEN), title=title,
                             ylabel="权重", digits=2)
        ax.set_xlim(-0.6, training.MAX_LEN - 0.4)
        ax.tick_params(axis="x", length=0)
        self.words = [ax.text(i, -0.03, "", transform=ax.get_xaxis_transform(), ha="center", va="top")
                      for i in range(training.MAX_LEN)]
        self.ax = ax
        self.update(words, weights)

    @property
    def artists(self) -> list:
        labels = self.bars.labels if self.show_values else []
        return [*self.bars.bars, *labels, *self.words]

    def update(self, words, weights):
        n = len(words)
        padded = np.zeros(training.MAX_LEN)
        padded[:n] = weights
        self.bars.update(padded)
        for i, (bar, label, text) in enumerate(zip(self.bars.bars, self.bars.labels, self.words)):
            bar.set_color(ACCENT if i < n and training.KIND_OF[words[i]] == "事项" else BASE)
            bar.set_visible(i < n)  # a shorter sentence leaves empty slots, not zero-height slivers
            label.set_visible(self.show_values and i < n)
            text.set_text(words[i] if i < n else "")


def score_panel(ax, table, *, title, vmax, highlight_row=None):
    """A 4×4 kind × kind score table (rows: the query's kind, columns: the key's kind)."""
    return HeatmapPanel(ax, table, KIND_LABELS, KIND_LABELS, vmin=-vmax, vmax=vmax, cmap="viridis",
                        title=title, digits=2, xlabel="键的种类", ylabel="查询的种类", highlight_row=highlight_row)


UNTRAINED_ROWS = tuple(i for i, k in enumerate(KIND_LABELS) if k != "动作")


def hatch_untrained(panel, rows=UNTRAINED_ROWS):
    """Grey, hatched cover over the rows no gradient ever reaches (the query is always an 动作
    word), so their colours are not read as learned; their numbers turn grey."""
    n_cols = len(panel.texts[0]) if panel.texts else len(KIND_LABELS)
    covers = [panel.ax.add_patch(Rectangle((-0.5, r - 0.5), n_cols, 1, facecolor=WHITE, alpha=0.6,
                                           hatch="//", edgecolor=HATCH_GREY, lw=0)) for r in rows]
    for r in rows:
        for text in panel.texts[r] if panel.texts else ():
            text.set_color(FADED_GREY)
    return covers


def curves_figure(run, baseline):
    """Training loss and test accuracy against the step, attention vs the fixed-weight baseline."""
    fig = new_figure(7.6, 2.8)
    ax_loss, ax_acc = fig.subplots(1, 2)
    ax_loss.plot(np.arange(run.steps + 1), run.loss, color=ACCENT, label="注意力（按内容）")
    ax_loss.plot(np.arange(baseline.steps + 1), baseline.loss, color=MUTED, label="固定位置权重")
    ax_loss.axhline(np.log(len(training.ITEMS)), color=DARK_GREY, ls="--", lw=1, label="瞎猜（ln 4）")
    ax_loss.set_ylim(0, None)
    ax_loss.set_ylabel("训练集交叉熵（nats）")
    ax_loss.set_title("损失")
    ax_loss.legend(fontsize=9, loc="center right")
    ax_acc.plot(run.test_steps, run.test_accuracy, color=ACCENT, label="注意力（按内容）")
    ax_acc.plot(baseline.test_steps, baseline.test_accuracy, color=MUTED, label="固定位置权重")
    ax_acc.axhline(1 / len(training.ITEMS), color=DARK_GREY, ls="--", lw=1, label="瞎猜（1/4）")
    ax_acc.set_ylim(0, 1.05)
    ax_acc.set_ylabel("测试集准确率（每 5 步测一次）")
    ax_acc.set_title("准确率（512 个没训练过的句子）")
    ax_acc.legend(fontsize=9, loc="center right", bbox_to_anchor=(1.0, 0.72))
    for ax in (ax_loss, ax_acc):
        ax.set_xlabel("训练步数（Adam，整批）")
        ax.spines[["top", "right"]].set_visible(False)
    return fig


def weights_at_steps_figure(run, words, steps):
    """The last position's weights over ``words`` at each of ``steps`` (one panel per step)."""
    fig = new_figure(2.2 * len(steps), 2.6)
    data = training.encode([words])
    for ax, step in zip(np.atleast_1d(fig.subplots(1, len(steps), sharey=True)), steps):
        weights = training.forward(run.params_at(step), data).weights[0, : len(words)]
        WeightsPanel(ax, words, weights, title=f"第 {step} 步")
        ax.set_xlim(-0.6, len(words) - 0.4)
        if step != steps[0]:
            ax.set_ylabel("")
    return fig


def score_tables_figure(learned, article):
    """The learned kind × kind score table beside the article's hand-chosen one (rows centred)."""
    fig = new_figure(8.4, 3.5)
    ax_l, ax_a = fig.subplots(1, 2)
    action = KIND_LABELS.index("动作")
    for ax, table, title in ((ax_l, learned, "学出来的（d = 2；斜线行没训练过）"), (ax_a, article, "文章手选的")):
        panel = score_panel(ax, table, title=title, vmax=float(np.abs(table).max()), highlight_row=action)
        bar = fig.colorbar(panel.image, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label("分数（减去行均值）", fontsize=9)
        bar.ax.tick_params(labelsize=9)
        if ax is ax_l:
            hatch_untrained(panel)
    fig.suptitle("每行减去这一行的均值；两张图的颜色刻度各不相同（见各自的色条）；框出的是“动作”一行", fontsize=9)
    return fig
