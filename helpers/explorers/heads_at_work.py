"""``12_heads_at_work``: pick a score and a rank → that head's pattern, its scores, and the
second-copy loss change with it removed three ways (zero, mean, resample). The figure's title names
the head only; its numbers are shown once, in the readout. The pattern and scores
come from :func:`helpers.heads.study`, the loss changes from the stored scan
(:func:`helpers.heads.load_scan`, the same 12 sequences): moving a control runs no model."""
from __future__ import annotations

from .. import heads, real_model
from ..figures.heads_at_work import PatternPanel
from ..render import web
from ..render.controls import limit_note
from ..render.explorer import Explorer
from ..render.format import fmt

RANKS = 5


#: the readout's scores and ablations: (state key, the word before it)
SCORE_READOUT = (("previous", "前一个 token"), ("sink", "汇聚"), ("induction", "归纳"))
ABLATION_READOUT = (("zero", "置零"), ("mean", "换成均值"), ("resample", "重采样"))


class HeadsExplorer(Explorer):
    """A score and a rank → that head's pattern on the repeated sequence, its three scores, and the
    second-copy loss change (mean over the sequences) with it removed by zero-, mean- and
    resample-ablation, read from the stored scan."""

    figsize = (5.0, 4.9)
    #: the prose points at the three loss changes: the static preview shows them too
    preview_readout = True

    def __init__(self, **kwargs):
        self.study = heads.study()
        scan = heads.load_scan()
        change = {kind: scan.single_change(kind).mean(axis=-1) for kind in heads.ABLATIONS}
        self.rows = {}
        for name in heads.SCORES:
            for rank, head in enumerate(self.study.top(name, RANKS), start=1):
                self.rows[(name, rank)] = {"score": name, "rank": rank, "head": head,
                                           **{s: float(self.study.scores[s][head]) for s in heads.SCORES},
                                           **{kind: float(change[kind][head]) for kind in heads.ABLATIONS}}
        model = self.study.model
        self.labels = real_model.token_labels(model, self.study.ids[0])
        super().__init__(**kwargs)

    def make_controls(self):
        import ipywidgets as widgets

        return {"score": widgets.ToggleButtons(options=[(heads.SCORE_LABELS[s], s) for s in heads.SCORES], value="induction",
                                               description="分数"),
                "rank": widgets.IntSlider(value=1, min=1, max=RANKS, description="名次")}

    def compute(self, score, rank):
        row = self.rows[(score, rank)]
        layer, head = row["head"]
        return {**row, "pattern": self.study.weights[0][layer, head]}

    def build(self, fig):
        ax = fig.add_subplot()
        # row labels on the left only (every other row: legible at 9 pt): the right side holds the
        # colour bar that says what the colours mean
        self.panel = PatternPanel(ax, self.study.length, labels=self.labels, title=" ", both_sides=False)
        fig.colorbar(self.panel.image, ax=ax, fraction=0.046, pad=0.03, label="权重（0–1）")
        self.animate(self.panel.image, *self.panel.lines, self.panel.title)

    def draw(self, s):
        self.panel.update(s["pattern"], title=self.title(s))

    @staticmethod
    def title(s) -> str:
        """Which head is shown (the static preview, with no kernel, still says so); its numbers are
        in the readout only, shown once."""
        layer, head = s["head"]
        return f"第 {layer} 层第 {head} 个头：{heads.SCORE_LABELS[s['score']]}第 {s['rank']} 名（第 1 条序列）"

    def describe(self, s):
        layer, head = s["head"]
        scores = " · ".join(f"{label} <span class='{key}'>{fmt(s[key])}</span>" for key, label in SCORE_READOUT)
        changes = " · ".join(f"{label} <span class='{key}'>{s[key]:+.3f}</span>" for key, label in ABLATION_READOUT)
        return (f"第 {layer} 层第 {head} 个头 · {scores}<br>只去掉这个头，第二遍的损失变化"
                f"（{len(self.study.seeds)} 条序列的平均，nats）：{changes}" + limit_note(self.controls))

    def web_view(self, s):
        # tokens named on every other position, as the still names them (both copies show the same
        # tokens); a masked cell is what the still draws, its weight 0
        named = [t if i % 2 == 0 else "" for i, t in enumerate(self.labels)]
        return {"title": self.title(s),
                "panels": [web.heatmap(s["pattern"], named, named,
                                       xlabel="被看的位置（键）", ylabel="提问的位置（查询）", colorbar="权重（0–1）",
                                       vlines=(self.study.length + 0.5,), hlines=(self.study.length + 0.5,))]}
