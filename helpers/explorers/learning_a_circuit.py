"""``11_learning_a_circuit``: a step slider over the stored checkpoints → all four heads' patterns
on one sequence (the copies and the induction targets marked) with each head's scores in its title,
and the step's summary (both losses, the best scores) once, in the readout. The figure's title names
only the step, so the static preview (no kernel) still says which checkpoint it shows; the summary
is not repeated there (a long title is also the costliest thing to redraw on a move).

Every entry comes precomputed from :func:`helpers.circuit.history.load`, so a move picks arrays
and redraws; nothing is trained or run again.
"""
from __future__ import annotations

import ipywidgets as widgets

from ..circuit import history
from ..figures.learning_a_circuit import CircuitPatterns, best_heads, head_titles
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt
from ..render.panels import future_masked


class CircuitExplorer(Explorer):
    """The notebook's run (``two_layers``, seed 0) checkpoint by checkpoint."""

    #: smaller than the static figure of the same panels (6.4 × 6.0): a move sends ≈ 0.8× the pixels
    figsize = (5.7, 5.4)

    def __init__(self, **kwargs):
        self.history = history.load()
        self.sequence = history.shown_sequence()
        super().__init__(**kwargs)

    def make_controls(self):
        steps = [int(t) for t in self.history.steps]
        return {"step": widgets.SelectionSlider(options=steps, value=steps[-1], description="训练步数")}

    #: every checkpoint's state and picture (41 × ≈ 165 KiB) stays memoised
    memo_bytes = 12 * 2 ** 20

    def picture_variants(self):
        """Every stored checkpoint: its picture is drawn once when the explorer is made, so a first
        move to any step sends a stored PNG (JupyterLab waited 60–110 ms in the kernel for it)."""
        return [{"step": int(t)} for t in self.history.steps]

    def compute(self, step):
        h = self.history
        i = h.index(step)
        return {"step": int(step), "patterns": h.patterns[i], "previous": h.previous[i], "induction": h.induction[i],
                "repeat_loss": float(h.repeat_loss[i]), "other_loss": float(h.other_loss[i])}

    def build(self, fig):
        b = self.sequence
        layers, heads = self.history.patterns.shape[1:3]
        self.panels = CircuitPatterns(fig, layers, heads, first=int(b.first[0]), second=int(b.second[0]),
                                      repeat=int(b.repeat[0]), length=self.history.patterns.shape[-1])
        self.summary = fig.suptitle(" ", fontsize=10)
        self.animate(*self.panels.artists, self.summary)

    def draw(self, s):
        self.panels.update(s["patterns"], head_titles(s["previous"], s["induction"]))
        self.summary.set_text(f"第 {s['step']} 步")

    def describe(self, s):
        best_prev, best_ind = best_heads(s["previous"], s["induction"])
        return (f"第 {s['step']} 步 · 重复段的损失 <span class='repeat'>{fmt(s['repeat_loss'])}</span> · "
                f"其余 token 的损失 <span class='other'>{fmt(s['other_loss'])}</span><br>"
                f"第 0 层最好的前一个 token 分数（头 {best_prev}）<span class='previous'>"
                f"{fmt(s['previous'][0][best_prev])}</span> · 第 1 层最好的归纳分数（头 {best_ind}）"
                f"<span class='induction'>{fmt(s['induction'][-1][best_ind])}</span>")

    def web_view(self, s):
        titles = head_titles(s["previous"], s["induction"])
        patterns = s["patterns"].reshape(-1, *s["patterns"].shape[-2:])
        b = self.sequence
        first, second, repeat = int(b.first[0]), int(b.second[0]), int(b.repeat[0])
        ticks = [str(i) if i % 8 == 0 else "" for i in range(patterns.shape[-1])]  # the figure's ticks
        marks = dict(marks=[(second + j, first + j + 1) for j in range(repeat - 1)],  # CircuitPatterns' marks
                     vlines=(first - 0.5, first + repeat - 0.5), hlines=(second - 0.5,))
        return {"title": f"第 {s['step']} 步",
                "panels": [web.heatmap(future_masked(p), ticks, ticks, title=t, xlabel="被看的位置（键）",
                                       ylabel="提问的位置（查询）", colorbar="权重", **marks)
                           for p, t in zip(patterns, titles)]}
