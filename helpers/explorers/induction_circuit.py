"""``13_induction_circuit``: pick a sender (any head of layers 0–17; 16.0 and 17.8, the two the notebook
finds, first), the input of 18.6 it is removed from (queries, keys or values) and how (zeroed or
replaced by its mean output) → 18.6's pattern on the first sequence, its induction score beside every
other sender's (the stored screen, :func:`helpers.heads.load_senders`), and the same-size
random-direction control's range for the chosen sender.

The state comes from :func:`helpers.heads.removal_view`: the pattern is recomputed (one head, one
sequence), the scores and the control are read from the stored screen; the values do not enter the
weights, so removing a sender from them leaves the pattern and the score as they were. The figure's
titles name the setting, so the static preview says what it shows; the numbers are in the readout.
"""
from __future__ import annotations

import ipywidgets as widgets

from .. import heads, real_model
from ..figures.heads_at_work import PatternPanel
from ..figures.induction_circuit import SCORE_RANGE, SCREEN_LABELS, ScreenPanel, screen_layout
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt
from ..render.palette import ACCENT, BLACK, DARK_GREY, MUTED

#: the two senders the notebook finds for 18.6's keys: first on the slider
FIRST = ((16, 0), (17, 8))
#: the receiver's inputs, as the controls and the titles name them
ROUTES = {"q": "查询", "k": "键", "v": "值"}


def _head_name(head) -> str:
    """``(17, 8)`` → ``"17.8"``: a head as the notebook and the slider write it."""
    return f"{head[0]}.{head[1]}"


class SenderExplorer(Explorer):
    """A sender, an input of 18.6 and a removal → 18.6's pattern, its induction score among every
    sender's, and the random-direction control."""

    figsize = (8.6, 4.4)

    def __init__(self, **kwargs):
        self.study = heads.study()
        self.stored = heads.load_senders()
        self.receiver = self.stored.receiver
        below = [(layer, h) for layer in range(self.receiver[0]) for h in range(self.study.shape[1])]
        #: the slider's senders: the notebook's two first, then every other head in layer order
        self.senders = [*FIRST, *(h for h in below if h not in FIRST)]
        self.labels = real_model.token_labels(self.study.model, self.study.ids[0])
        super().__init__(**kwargs)

    def make_controls(self):
        return {"sender": widgets.SelectionSlider(options=[_head_name(h) for h in self.senders], value="16.0",
                                                  description="发送者"),
                "route": widgets.ToggleButtons(options=[(label, key) for key, label in ROUTES.items()], value="k",
                                               description="从 18.6 的"),
                "removal": widgets.ToggleButtons(options=[(heads.ABLATION_LABELS[k], k) for k in heads.senders.KINDS],
                                                 value="zero", description="去法")}

    def compute(self, sender, route, removal):
        head = self.senders[[_head_name(h) for h in self.senders].index(sender)]
        view = heads.removal_view(self.study, self.stored, head, route, removal)
        return {**view, "sender": head, "route": route, "removal": removal}

    def build(self, fig):
        left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": (1.0, 1.15), "wspace": 0.35})
        self.pattern = PatternPanel(left, self.study.length, labels=self.labels, title=" ", both_sides=False)
        self.screen = ScreenPanel(right, self.receiver[0], self.study.shape[1], title=" ")
        self.animate(self.pattern.image, *self.pattern.lines, self.pattern.title, *self.screen.artists)

    def titles(self, s) -> tuple:
        """The two panels' titles: what is removed from where (the static preview says it too)."""
        removed = f"{ROUTES[s['route']]}里去掉 {_head_name(s['sender'])}（{heads.ABLATION_LABELS[s['removal']]}）"
        return (f"{_head_name(self.receiver)} 的模式：{removed}（第 1 条序列）",
                f"{_head_name(self.receiver)} 的归纳分数：从{ROUTES[s['route']]}里去掉每个发送者")

    def draw(self, s):
        pattern_title, screen_title = self.titles(s)
        self.pattern.update(s["pattern"], title=pattern_title)
        self.screen.update(s["screen"], s["sender"], s["directions"], s["clean"], title=screen_title)

    def describe(self, s):
        sender, receiver = _head_name(s["sender"]), _head_name(self.receiver)
        where = f"从 {receiver} 的{ROUTES[s['route']]}里去掉 {sender} 的直接写入（{heads.ABLATION_LABELS[s['removal']]}）"
        clean = f"不去掉 <span class='clean'>{fmt(s['clean'])}</span>"
        if s["route"] == "v":
            return (f"{where}：值不参与算权重，{receiver} 的模式不变，归纳分数 <span class='score'>{fmt(s['score'])}</span>"
                    f"（{clean}，{len(self.study.seeds)} 条序列的平均）")
        count = s["screen"].size
        low, high = s["directions"].min(), s["directions"].max()
        return (f"{where}：{receiver} 的归纳分数 <span class='score'>{fmt(s['score'])}</span>（{clean}，"
                f"{len(self.study.seeds)} 条序列的平均），在 {count} 个发送者里第 <span class='rank'>{s['rank']}</span> 低"
                f"<br>换成同样长的随机方向（限在 {sender} 能写的子空间里，{len(s['directions'])} 个）："
                f"<span class='control'>{fmt(low)}–{fmt(high)}</span>")

    def web_view(self, s):
        pattern_title, screen_title = self.titles(s)
        where = screen_layout(s["screen"], s["sender"], s["directions"])
        edge = self.study.length + 0.5
        chosen_x, chosen_y = where["chosen"]
        curves = [web.series(where["x"], where["y"], color=DARK_GREY, label=SCREEN_LABELS["senders"], marker=True,
                             line=False),
                  web.series(list(where["xlim"]), [s["clean"]] * 2, color=BLACK, label=SCREEN_LABELS["clean"],
                             dash=True, width=1.2),
                  web.series([chosen_x] * 2 if where["control"] else [], list(where["control"] or ()), color=MUTED,
                             label=SCREEN_LABELS["control"], width=6.0),
                  web.series([chosen_x], [chosen_y], color=ACCENT, label=SCREEN_LABELS["chosen"], marker=True,
                             line=False)]
        return {"title": pattern_title,
                "panels": [web.heatmap(s["pattern"], self.labels, self.labels,
                                       xlabel="被看的位置（键）", ylabel="提问的位置（查询）", colorbar="权重（0–1）",
                                       vlines=(edge,), hlines=(edge,)),
                           web.lines(curves, title=screen_title, xlabel=self.screen.ax.get_xlabel(),
                                     ylabel=self.screen.ax.get_ylabel(), xlim=where["xlim"], ylim=SCORE_RANGE,
                                     xticks=where["ticks"])]}
