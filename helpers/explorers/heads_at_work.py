"""``12_heads_at_work``: pick a score and a rank → that head's pattern, its scores, and the
second-copy loss with it ablated. Every state comes from :func:`helpers.heads.study`, whose
single-head ablations are run once when the explorer is built (or earlier by the notebook)."""
from __future__ import annotations

from ..render.controls import limit_note
from ..render.explorer import Explorer
from ..render.format import fmt

RANKS = 3


class HeadsExplorer(Explorer):
    """A score and a rank → that head's pattern on the repeated sequence, its three scores, and the
    second-copy loss with it ablated (all read from :func:`helpers.heads.study`)."""

    figsize = (5.0, 4.9)

    def __init__(self, **kwargs):
        from .. import heads, real_model

        self.study = heads.study()
        self.rows = {(r["score"], r["rank"]): r for r in self.study.head_table(RANKS)}
        model = self.study.model
        self.labels = real_model.token_labels(model, self.study.ids[0])
        super().__init__(**kwargs)

    def make_controls(self):
        import ipywidgets as widgets

        from ..heads import SCORE_LABELS, SCORES

        return {"score": widgets.ToggleButtons(options=[(SCORE_LABELS[s], s) for s in SCORES], value="induction",
                                               description="分数"),
                "rank": widgets.IntSlider(value=1, min=1, max=RANKS, description="名次")}

    def compute(self, score, rank):
        row = self.rows[(score, rank)]
        layer, head = row["head"]
        return {**row, "pattern": self.study.weights[0][layer, head], "base": self.study.second_copy_loss}

    def build(self, fig):
        from ..figures.heads_at_work import PatternPanel

        ax = fig.add_subplot()
        self.panel = PatternPanel(ax, self.study.length, labels=self.labels, title=" ")
        # issue 22: every row label on one side (the left, every other row: legible at 9 pt), not
        # alternating left and right; a colour bar says what the colours mean
        self.panel.right.set_visible(False)
        fig.colorbar(self.panel.image, ax=ax, fraction=0.046, pad=0.03, label="权重（0–1）")
        self.animate(self.panel.image, *self.panel.lines, self.panel.title)

    def draw(self, s):
        layer, head = s["head"]
        self.panel.update(s["pattern"], title=(
            f"第 {layer} 层第 {head} 个头（第 1 条序列）\n"
            f"前一个 token {s['previous']:.2f} · 汇聚 {s['sink']:.2f} · 归纳 {s['induction']:.2f}\n"
            f"只去掉它：第二遍损失 {s['base']:.2f} → {s['loss']:.2f}（{s['loss'] - s['base']:+.2f}）"))

    def describe(self, s):
        layer, head = s["head"]
        return (f"第 {layer} 层第 {head} 个头 · 前一个 token <span class='previous'>{fmt(s['previous'])}</span> · "
                f"汇聚 <span class='sink'>{fmt(s['sink'])}</span> · 归纳 <span class='induction'>{fmt(s['induction'])}</span>"
                f"<br>只去掉这个头：第二遍的损失 {fmt(s['base'])} → <span class='loss'>{fmt(s['loss'])}</span>"
                f"（变化 {s['loss'] - s['base']:+.3f}）" + limit_note(self.controls))
