"""``10_learning_to_attend``: a slider over training checkpoints and a sentence picker → the last
position's weights, the learned score table and where the run stands on its accuracy curve."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import training
from ..figures.learning_to_attend import UNTRAINED_ROWS, WeightsPanel, hatch_untrained, score_panel
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt
from ..render.palette import ACCENT, BASE, DARK_GREY

SENTENCES = tuple(" ".join(words) for words in training.EXAMPLES)


class LearningExplorer(Explorer):
    """Reads the notebook's cached training run (:func:`helpers.training.trained_run`): moving the
    slider computes one forward pass of one sentence, nothing is trained again."""

    figsize = (8.4, 3.1)

    def __init__(self, **kwargs):
        self.run = training.trained_run()
        tables = [training.centred_table_at(self.run, step) for step in self.run.checkpoints]
        self.vmax = float(np.max(np.abs(tables)))
        super().__init__(**kwargs)

    def make_controls(self):
        return {
            "step": widgets.SelectionSlider(options=sorted(self.run.checkpoints), value=0, description="训练步数"),
            "sentence": widgets.Dropdown(options=list(SENTENCES), value=SENTENCES[0], description="句子"),
        }

    def compute(self, step, sentence):
        return training.checkpoint_record(self.run, step, tuple(sentence.split()))

    def build(self, fig):
        ax_w, ax_t, ax_c = fig.subplots(1, 3, width_ratios=[1.0, 1.0, 1.0])
        fig.get_layout_engine().set(wspace=0.06)  # room between the table and the curve's y label
        first = training.EXAMPLES[0]
        self.weights = WeightsPanel(ax_w, first, np.zeros(len(first)), title="最后一个词的权重",
                                    show_values=False)
        # below the words (text artists just under the axis), not on them
        ax_w.set_xlabel("句子里的词（从句首到句末）", labelpad=17)
        self.length = None  # the x range follows the sentence's length (one background per length)
        action = self.action = training.KINDS.index("动作")
        self.table = score_panel(ax_t, np.zeros((4, 4)), title="分数表（每行减去均值）", vmax=self.vmax,
                                 highlight_row=action)
        self.table.ax.set_xticks(range(4), training.KINDS)
        covers = hatch_untrained(self.table)  # drawn over the (animated) image, so animated too
        for i, row in enumerate(self.table.texts):  # numbers on the trained row only; colour elsewhere
            for text in row:
                text.set_visible(i == action)
        ax_c.plot(self.run.test_steps, self.run.test_accuracy, color=DARK_GREY)
        (self.marker,) = ax_c.plot([0], [self.run.test_accuracy[0]], "o", color=ACCENT, ms=8)
        ax_c.set_ylim(0, 1.05)
        ax_c.set_title("测试集准确率（橙点：当前步）")
        ax_c.set_xlabel("训练步数")
        ax_c.set_ylabel("测试集准确率")
        ax_c.spines[["top", "right"]].set_visible(False)
        self.animate(*self.weights.artists, self.table.image, *covers, self.table.row_box, *self.table.texts[action],
                     self.marker)

    def background_variants(self):
        """One sentence of each length: each x range is drawn once, up front."""
        by_length = {len(words): " ".join(words) for words in training.EXAMPLES}
        return [{"sentence": sentence} for sentence in by_length.values()]

    def draw(self, s):
        n = len(s["words"])
        if n != self.length:
            self.length = n
            self.weights.ax.set_xlim(-0.6, n - 0.4)
            self.invalidate_background(key=n)
        self.weights.update(s["words"], s["weights"])
        self.table.update(s["table"], highlight_row=self.action)
        self.marker.set_data([s["step"]], [s["accuracy"]])

    def describe(self, s):
        words = " · ".join(f'<span class="w{i}">{w} {fmt(p)}</span>' for i, (w, p) in enumerate(zip(s["words"], s["weights"])))
        item = s["words"][s["item"]]
        return (f"第 {s['step']} 步：测试集准确率 <span class=\"acc\">{fmt(s['accuracy'])}</span> · "
                f"训练损失 {fmt(s['loss'])}<br>“{s['words'][-1]}”的权重：{words}<br>"
                f"放在事项“{item}”上：<span class=\"item\">{fmt(s['weights'][s['item']])}</span> · "
                f"预测：{s['predicted']}（概率 {fmt(s['probability'])}）")

    def web_view(self, s):
        words = s["words"]
        colors = [ACCENT if training.KIND_OF[w] == "事项" else BASE for w in words]
        action = self.action if hasattr(self, "action") else training.KINDS.index("动作")
        shown = np.zeros((4, 4), dtype=bool)
        shown[action] = True
        return {"title": "", "panels": [
            web.bars(words, s["weights"], colors=colors, title="最后一个词的权重", xlabel="句子里的词（从句首到句末）",
                     ylabel="权重"),
            web.heatmap(s["table"], training.KINDS, training.KINDS, vmin=-self.vmax, vmax=self.vmax, highlight_row=action,
                        numbers=shown, digits=2, title="分数表（每行减去均值；只有“动作”一行被训练）",
                        xlabel="键的种类", ylabel="查询的种类", hatch_rows=UNTRAINED_ROWS),
            web.lines([web.series(self.run.test_steps, self.run.test_accuracy, color=DARK_GREY, label=""),
                       web.series([s["step"]], [s["accuracy"]], color=ACCENT, marker=True, line=False, label="")],
                      title="测试集准确率（橙点：当前步）", xlabel="训练步数", ylabel="测试集准确率", ylim=(0, 1.05),
                      legend=False)]}
