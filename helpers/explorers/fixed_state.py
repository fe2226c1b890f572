"""``15_fixed_state``: three explorers — the chunkwise form's split of the table, recall against distance
for both attention cores, and the KV-bytes ledger against the context length."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import Patch

from ..figures.fixed_state import LENGTHS, ROLE_CMAP, chunk_roles
from ..linear_attention import forms, ledger, recall
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt_bytes
from ..render.palette import ACCENT, BASE, MARKER, MASKED, MUTED, colour_word

CHUNK_N = 16
#: the bound the chunkwise output keeps to the parallel one (float64, 16 positions): printed as a bound,
#: never as the difference, whose digits change with the CPU's rounding
TOLERANCE = 1e-10


def _example():
    rng = np.random.default_rng(15)
    q, k, v = rng.standard_normal((3, CHUNK_N, 4))
    return forms.feature_map(q), forms.feature_map(k), v


class ChunkExplorer(Explorer):
    """Chunk size → which weights the chunkwise form computes from the table and which through the state."""

    figsize = (4.4, 3.8)

    def make_controls(self):
        return {"chunk": widgets.IntSlider(value=4, min=1, max=CHUNK_N, description="块大小")}

    def compute(self, chunk):
        pq, pk, v = _example()
        out, state = forms.chunkwise(pq, pk, v, chunk)
        roles = chunk_roles(CHUNK_N, chunk)
        return {"chunk": chunk, "roles": roles, "inside": int(np.nansum(roles)),
                "through": int(np.sum(roles == 0)), "chunks": -(-CHUNK_N // chunk), "state": state.numbers,
                "error": float(np.abs(out - forms.parallel(pq, pk, v)).max())}

    def build(self, fig):
        self.ax = fig.add_subplot()
        self.roles = self.ax.imshow(np.ma.masked_invalid(chunk_roles(CHUNK_N, 4)), cmap=ROLE_CMAP.with_extremes(bad=MASKED),
                                    vmin=0, vmax=1)
        self.ax.set_xlabel("键的位置")
        self.ax.set_ylabel("查询的位置")
        self.ax.set_title("橙 = 块内用表算，紫 = 经由状态", fontsize=10)
        self.animate(self.roles)

    def draw(self, s):
        self.roles.set_data(np.ma.masked_invalid(s["roles"]))

    def describe(self, s):
        same = "是" if s["error"] < TOLERANCE else "否"
        return (f"{s['chunks']} 块：块内用表算 <span class='inside'>{s['inside']}</span> 个权重，"
                f"经由状态的 <span class='through'>{s['through']}</span> 个；块与块之间只传 {s['state']} 个数的状态<br>"
                f"与并行形式相差 &lt; {TOLERANCE:.0e}：{same}")

    def web_view(self, s):
        labels = [str(i) for i in range(CHUNK_N)]
        panel = web.heatmap(s["roles"], labels, labels, title="橙 = 块内用表算，紫 = 经由状态", vmin=0.0, vmax=1.0,
                            cmap=ROLE_CMAP, xlabel="键的位置", ylabel="查询的位置")
        return {"title": "", "panels": [panel]}


SETTING_OPTIONS = (("笔记本 11 的模型和任务", "plain"), ("加短卷积、重复段 8 个", "conv"))
SETTING_NAMES = {value: label for label, value in SETTING_OPTIONS}
#: the distance axis' right end: the longest task's length (a distance is at most length − repeat)
LONGEST = max(task.length for task, _ in recall.SETTINGS.values())


def _recall_title(setting: str, seed: int) -> str:
    return f"{SETTING_NAMES[setting]}，种子 {seed}：召回与两段副本的距离"


class RecallExplorer(Explorer):
    """Setting and seed → recall against distance for softmax and linear attention (the stored runs)."""

    figsize = (6.4, 3.2)

    def make_controls(self):
        return {"setting": widgets.ToggleButtons(options=SETTING_OPTIONS, value="conv", description="设置"),
                "seed": widgets.SelectionSlider(options=recall.SEEDS, value=recall.SEEDS[0], description="种子")}

    def compute(self, setting, seed):
        runs = recall.load()["runs"]
        soft, lin = runs[(setting, "softmax", seed)], runs[(setting, "linear", seed)]
        return {"setting": setting, "seed": seed, "x": recall.bin_centres(setting, soft.bins), "softmax": soft.recall,
                "linear": lin.recall, "soft_all": soft.overall, "lin_all": lin.overall,
                "soft_prev": soft.previous, "lin_prev": lin.previous,
                "chance": 1 / recall.SETTINGS[setting][0].vocab}

    def build(self, fig):
        self.ax = fig.add_subplot()
        (self.soft_line,) = self.ax.plot([0, LONGEST], [0, 0], color=ACCENT, marker="o", label="softmax 注意力")
        (self.lin_line,) = self.ax.plot([0, LONGEST], [0, 0], color=BASE, marker="o", label="线性注意力")
        self.chance = self.ax.axhline(0, color=MARKER, ls=":", lw=1, label="瞎猜")
        self.ax.set_xlim(0, LONGEST)
        self.ax.set_ylim(-0.04, 1.04)  # markers at 0 or 1 stay whole
        self.ax.set_xlabel("两段副本的距离（token，每格的中点）")
        self.ax.set_ylabel("召回（比例）")
        self.title = self.ax.set_title("", fontsize=10, pad=22)
        # above the axes, under the title: inside, a curve anywhere from 0 to 1 could run through the labels
        self.ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, borderaxespad=0.2, fontsize=9)
        self.animate(self.soft_line, self.lin_line, self.chance, self.title)

    def draw(self, s):
        self.soft_line.set_data(s["x"], s["softmax"])
        self.lin_line.set_data(s["x"], s["linear"])
        self.chance.set_ydata([s["chance"], s["chance"]])
        self.title.set_text(_recall_title(s["setting"], s["seed"]))

    def describe(self, s):
        return (f"种子 {s['seed']}：召回 softmax <span class='soft'>{s['soft_all']:.3f}</span>，"
                f"线性 <span class='lin'>{s['lin_all']:.3f}</span>；第 0 层最好的前一个 token 分数 "
                f"{s['soft_prev']:.3f} 和 {s['lin_prev']:.3f}")

    def web_view(self, s):
        panel = web.lines([web.series(s["x"], s["softmax"], color=ACCENT, marker=True, label="softmax 注意力"),
                           web.series(s["x"], s["linear"], color=BASE, marker=True, label="线性注意力")],
                          title=_recall_title(s["setting"], s["seed"]), xlabel="两段副本的距离（token，每格的中点）",
                          ylabel="召回（比例）", xlim=(0, LONGEST), ylim=(-0.04, 1.04),
                          hlines=[(s["chance"], "dotted", MARKER, "瞎猜")])
        return {"title": "", "panels": [panel]}


LENGTH_OPTIONS = [(f"{int(n) // 1024}K", int(n)) for n in LENGTHS]
#: the ledger's log axis' left end, where its bars start (a bar from 0 would reach past the axes)
LOW = 1e6
#: what each row's colour says: only full attention, a cache made smaller (MLA, windows, linear layers),
#: and the counterfactual row (DeepSeek-V3's MLA expanded into per-head K and V, which it never stores)
LEDGER_GROUPS = ((ACCENT, "只有全注意力"), (BASE, "MLA、窗口或线性层"), (MUTED, "假想的展开行"))


def ledger_colours() -> list:
    """One colour per ledger row (:data:`LEDGER_GROUPS`)."""
    full, smaller, counterfactual = (colour for colour, _ in LEDGER_GROUPS)
    return [counterfactual if m.counterfactual else full if set(m.kinds()) == {"full"} else smaller
            for m in ledger.MODELS]


def _short(model) -> str:
    """A row's name without its note, the counterfactual row told apart: what fits under a bar."""
    return model.name.split("（")[0] + (" 展开" if model.counterfactual else "")


def _ledger_title(n: int) -> str:
    return f"n = {n // 1024}K 个 token 时一条序列的缓存"


class LedgerExplorer(Explorer):
    """Context length → each ledger row's bytes for one sequence (log scale)."""

    figsize = (7.0, 3.4)

    def make_controls(self):
        return {"n": widgets.SelectionSlider(options=LENGTH_OPTIONS, value=ledger.CONTEXT, description="长度 n")}

    def compute(self, n):
        totals = np.array([m.total(n) for m in ledger.MODELS], dtype=float)
        return {"n": n, "totals": totals, "names": [_short(m) for m in ledger.MODELS]}

    def build(self, fig):
        self.ax = fig.add_subplot()
        y = np.arange(len(ledger.MODELS))[::-1]
        self.bars = self.ax.barh(y, np.ones(len(y)), left=LOW, color=ledger_colours())
        self.ax.set_yticks(y, [m.name for m in ledger.MODELS])
        self.ax.set_xscale("log")
        self.ax.set_xlim(LOW, 1e13)
        self.ax.set_xlabel("一条序列的缓存（字节，BF16，对数刻度）")
        self.ax.set_ylabel("模型")
        self.title = self.ax.set_title("", fontsize=10)
        handles = [Patch(color=colour, label=f"{label}（{colour_word(colour)}）") for colour, label in LEDGER_GROUPS]
        # below the axes, across the figure: inside, it would cover the long bars
        fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=9)
        self.animate(*self.bars, self.title)

    def draw(self, s):
        for bar, total in zip(self.bars, s["totals"]):
            bar.set_width(total - LOW)
        self.title.set_text(_ledger_title(s["n"]))

    def describe(self, s):
        rows = "；".join(f"{name} {fmt_bytes(t)}" for name, t in zip(s["names"], s["totals"]))
        return f"n = {s['n'] // 1024}K：{rows}"

    def web_view(self, s):
        key = "，".join(f"{colour_word(colour)} = {label}" for colour, label in LEDGER_GROUPS)
        panel = web.bars(s["names"], np.log10(s["totals"]), title=f"{_ledger_title(s['n'])}（log₁₀ 字节；{key}）",
                         ylabel="log₁₀（字节）", ylim=(6.0, 13.0), colors=ledger_colours())
        return {"title": "", "panels": [panel]}
