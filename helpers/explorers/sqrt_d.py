"""``04_sqrt_d``: d (log steps), n and the 1/√d switch → score histogram and weight distribution."""
from __future__ import annotations

from functools import cached_property

import ipywidgets as widgets
import numpy as np

from ..attention import softmax
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt
from ..render.palette import BASE, MUTED
from ..scaling import D_STEPS, ScorePool, jacobian_norms, mean_largest_weight

BINS = 30
TOP = 10
TICKS = (-1.0, -0.5, 0.0, 0.5, 1.0)
#: the x-axis is ±4√d in every state, so its ticks are named in units of √d and never change
TICK_LABELS = ("−4√d", "−2√d", "0", "2√d", "4√d")
#: the right panel: each rank averaged over the pool's draws (the readout's mean is its first bar)
TOP_TITLE = "第 k 大的权重，{trials} 次抽样的平均"
SHARE_MAX = 0.3  # the tallest bin (d = 1: q·k of two N(0,1) numbers peaks sharply at 0) stays inside


def _settings_title(state) -> str:
    """The explorer's title: its settings and the score the histogram shows (``04_sqrt_d``); short,
    since a long text costs milliseconds on every move."""
    score = "除以 √d：分数 = q·k/√d" if state["scaled"] else "不缩放：分数 = 原始分数 q·k"
    return f"d = {state['d']} · n = {state['n']} · {score}"


#: the readout: (words, span class, state key, fmt's extra arguments)
READOUT = (("分数标准差", "std", "score_std", (2,)), ("最大权重平均", "maxw", "mean_max", ()),
           ("softmax 雅可比范数平均", "jac", "jacobian", ()))


class SqrtDExplorer(Explorer):
    """d (log steps), n and the 1/√d switch → the score histogram and each rank's mean weight."""

    figsize = (6.6, 2.6)

    @cached_property
    def pool(self):
        return ScorePool()

    def make_controls(self):
        return {
            "d": widgets.SelectionSlider(options=list(D_STEPS), value=128, description="d"),
            "n": widgets.IntSlider(value=5, min=2, max=1000, step=1, description="n"),
            "scaled": widgets.Checkbox(value=True, description="除以 √d"),
        }

    def compute(self, d, n, scaled):
        scores = self.pool.scores(n, d, scaled=scaled)
        weights = softmax(scores)
        # each rank's weight averaged over the pool's rows: rank 1 is the mean largest weight the
        # readout and the prose quote, not one draw's
        ranked = -np.sort(-weights, axis=-1)[:, :TOP].mean(axis=0)
        top = np.zeros(TOP)
        top[: min(TOP, n)] = ranked
        span = 4.0 * float(np.sqrt(d))  # the x-axis: ±4 std of the unscaled scores, in both modes
        sigma = 1.0 if scaled else float(np.sqrt(d))  # std of the scores shown
        sample = scores[: max(1, 20_000 // n)].ravel()  # enough points for a histogram
        counts, edges = np.histogram(sample, bins=BINS, range=(-4 * sigma, 4 * sigma))
        return {
            "d": d, "n": n, "scaled": scaled,
            "score_std": float(np.std(scores)),
            "mean_max": mean_largest_weight(weights),
            "jacobian": float(jacobian_norms(weights).mean()),
            "share": counts / max(1, counts.sum()),  # fraction of the scores in each bin
            "edges": edges / span,  # bin edges on the axis's −1…1 scale
            "span": span,
            "top": top,
            "shown": min(TOP, n),
        }

    def build(self, fig):
        self.ax_hist, self.ax_top = fig.subplots(1, 2)
        # one filled step outline (a single artist) rather than 30 bars: one draw per move
        self.hist = self.ax_hist.stairs(np.zeros(BINS), np.linspace(-1, 1, BINS + 1), fill=True, color=MUTED)
        self.ax_hist.set_xlim(-1, 1)
        self.ax_hist.set_ylim(0, SHARE_MAX)
        # the x range is ±4√d (±4 std of the unscaled scores) in both modes: scaling visibly
        # narrows the histogram, and the axis never rescales, which keeps every move a blit
        self.ax_hist.set_xticks(TICKS, TICK_LABELS)
        self.ax_hist.set_xlabel("送进 softmax 的分数（横轴固定为 ±4√d）")
        self.ax_hist.set_ylabel("落在每个区间的比例")
        self.ax_hist.set_title("分数的分布")
        self.top_bars = self.ax_top.bar(np.arange(1, TOP + 1), np.zeros(TOP), color=BASE)
        self.ax_top.set_ylim(0, 1.05)
        self.ax_top.set_xlabel("名次（从大到小）")
        self.ax_top.set_ylabel("权重")
        self.ax_top.set_title(TOP_TITLE.format(trials=self.pool.trials))
        # the settings, and which score is shown, in the title: the live view and the static preview
        self.settings = fig.suptitle(" ", fontsize=10)
        self.shown = None
        self.animate(self.hist, self.settings, *self.top_bars)

    def draw(self, s):
        self.hist.set_data(s["share"], s["edges"])
        self.settings.set_text(_settings_title(s))
        for i, (rect, h) in enumerate(zip(self.top_bars, s["top"])):
            rect.set_height(h)
            rect.set_visible(i < s["shown"])
        if s["shown"] != self.shown:  # fewer than 10 positions: only that many slots
            self.shown = s["shown"]
            self.ax_top.set_xlim(0.4, s["shown"] + 0.6)
            self.ax_top.set_xticks(np.arange(1, s["shown"] + 1))
            self.invalidate_background(key=s["shown"])

    def background_variants(self):
        """One static look per number of weight slots shown (n = 2 … 10)."""
        return [{"n": n} for n in range(2, TOP + 1)]

    def describe(self, s):
        mode = "÷√d" if s["scaled"] else "不缩放"
        values = " · ".join(f'{label} <span class="{cls}">{fmt(s[key], *digits)}</span>'
                            for label, cls, key, digits in READOUT)
        return f"d = {s['d']}，n = {s['n']}，{mode}：{values}"

    def web_view(self, s):
        shown = s["shown"]
        hist = web.lines([web.series(s["edges"], s["share"], color=MUTED, step=True, fill=True)],
                         title="分数的分布", xlabel="送进 softmax 的分数（横轴固定为 ±4√d）",
                         ylabel="落在每个区间的比例", xlim=(-1, 1), ylim=(0, SHARE_MAX),
                         xticks=list(zip(TICKS, TICK_LABELS)), legend=False)
        top = web.bars([str(i) for i in range(1, shown + 1)], s["top"][:shown], color=BASE, ylim=(0, 1.05),
                       title=TOP_TITLE.format(trials=self.pool.trials), xlabel="名次（从大到小）", ylabel="权重")
        return {"title": _settings_title(s), "panels": [hist, top]}
