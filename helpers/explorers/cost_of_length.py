"""``07_cost_of_length``: length, model preset, dtype and batch → FLOPs and memory curves."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import cost
from ..attention import softmax
from ..config import PRESETS
from ..figures.cost_of_length import BYTE_TICKS, MARKED_N, mark_lengths, n_label
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt_bytes
from ..render.palette import ACCENT, BASE, MARKER, MUTED, REFERENCE
from ..render.validation import instance
from ..tiled import OnlineStep, online_softmax_steps

N_GRID = np.array([2 ** i for i in range(10, 21)], dtype=float)  # 1K … 1M
N_OPTIONS = [(f"{int(n) // 1024}K", int(n)) for n in N_GRID]
#: the figure's title: what its two kinds of vertical line mean (the page's legend names them too)
LINES_TITLE = "虚线 = 所选长度 n；点线 = 8K、128K"
#: mark_lengths' dotted 8K and 128K, for the page: named once in its legend
FIXED_MARKS = [(n, "dotted", REFERENCE, "、".join(MARKED_N.values())) for n in MARKED_N]
#: the chosen length's dashed line, for the page (``n`` filled in)
CHOSEN = "所选长度 n"


class CostExplorer(Explorer):
    """Length n (log steps), model preset, precision and batch → FLOPs and memory against n."""

    figsize = (7.4, 3.7)

    def make_controls(self):
        return {
            "n": widgets.SelectionSlider(options=N_OPTIONS, value=8192, description="长度 n"),
            "model": widgets.Dropdown(options=list(PRESETS), value="Llama-3.1-8B", description="模型"),
            "dtype": widgets.Dropdown(options=list(cost.DTYPE_BYTES), value="bf16", description="精度"),
            "batch": widgets.IntSlider(value=1, min=1, max=64, description="batch"),
        }

    def compute(self, n, model, dtype, batch):
        cfg = PRESETS[model]
        grid = [int(x) for x in N_GRID]
        return {
            "n": n, "model": model, "dtype": dtype, "batch": batch,
            "attn": cost.attention_flops_per_token(cfg, n), "fixed": cost.weight_flops_per_token(cfg),
            "share": cost.prefill_share(cfg, n),
            "table": cost.score_table_bytes(cfg, n, dtype=dtype, batch=batch),
            "cache": cost.kv_cache_bytes(cfg, n, dtype=dtype, batch=batch),
            "attn_curve": np.array([cost.attention_flops_per_token(cfg, g) for g in grid]),
            "table_curve": np.array([cost.score_table_bytes(cfg, g, dtype=dtype, batch=batch) for g in grid]),
            "cache_curve": np.array([cost.kv_cache_bytes(cfg, g, dtype=dtype, batch=batch) for g in grid]),
        }

    def build(self, fig):
        self.ax_f, self.ax_m = fig.subplots(1, 2)
        (self.attn_line,) = self.ax_f.plot(N_GRID, N_GRID, color=ACCENT, label="注意力 / token")
        (self.fixed_line,) = self.ax_f.plot(N_GRID, N_GRID, color=MUTED, label="权重矩阵 / token")
        (self.table_line,) = self.ax_m.plot(N_GRID, N_GRID, color=ACCENT, label="一层的分数表")
        (self.cache_line,) = self.ax_m.plot(N_GRID, N_GRID, color=BASE, label="整个 KV Cache")
        self.markers = [ax.axvline(8192, color=MARKER, ls="--", lw=1) for ax in (self.ax_f, self.ax_m)]
        for ax, title, ylabel in ((self.ax_f, "每 token 的计算量", "GFLOPs / token"),
                                  (self.ax_m, "显存", "字节")):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log", base=10 if ax is self.ax_f else 2)
            ax.set_xlim(N_GRID[0], N_GRID[-1])
            ax.set_xticks(N_GRID[::3], [n_label(x) for x in N_GRID[::3]])
            ax.set_xlabel("长度 n（token）")
            ax.set_ylabel(ylabel)
            ax.set_title(title, pad=40)
            mark_lengths(ax, label=False)
            # legend above the plot, under the title: the dashed marker moves across the whole x range
            ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), frameon=False, borderaxespad=0.2)
        self.ax_f.set_ylim(1e-2, 1e5)  # GFLOPs: 10 MFLOPs … 100 TFLOPs per token
        self.ax_m.set_ylim(2 ** 16, 2 ** 57)
        self.ax_m.set_yticks([2 ** 20, 2 ** 30, 2 ** 40, 2 ** 50], [*BYTE_TICKS.values(), "1 PiB"])
        # what the vertical lines mean, drawn once with the background (no per-move cost); the
        # readout under the controls names the model, precision, batch and n
        fig.suptitle(LINES_TITLE, fontsize=10)
        self.animate(self.attn_line, self.fixed_line, self.table_line, self.cache_line, *self.markers)

    def draw(self, s):
        self.attn_line.set_ydata(s["attn_curve"] / 1e9)
        self.fixed_line.set_ydata(np.full_like(N_GRID, s["fixed"] / 1e9))
        self.table_line.set_ydata(s["table_curve"])
        self.cache_line.set_ydata(s["cache_curve"])
        for marker in self.markers:
            marker.set_xdata([s["n"], s["n"]])

    def describe(self, s):
        share = f"{s['share']:.0%}" if s["share"] < 1 else f"{s['share']:.1f}×"
        return (f"{s['model']}，n = {n_label(s['n'])}：注意力 <span class='attn'>{s['attn'] / 1e9:.1f}</span> GFLOPs/token，"
                f"权重矩阵 {s['fixed'] / 1e9:.1f} GFLOPs/token；Prefill 中注意力是固定部分的 "
                f"<span class='share'>{share}</span><br>{s['dtype']}、batch {s['batch']}：一层完整分数表 "
                f"<span class='table'>{fmt_bytes(s['table'])}</span>，KV Cache <span class='cache'>{fmt_bytes(s['cache'])}</span>")


    def web_view(self, s):
        xticks = [(x, n_label(x)) for x in N_GRID[::3]]
        marks = [*FIXED_MARKS, (s["n"], True, None, CHOSEN)]
        flops = web.lines([web.series(N_GRID, s["attn_curve"] / 1e9, color=ACCENT, label="注意力 / token"),
                           web.series(N_GRID, np.full_like(N_GRID, s["fixed"] / 1e9), color=MUTED,
                                      label="权重矩阵 / token")],
                          title="每 token 的计算量", xlabel="长度 n（token）", ylabel="GFLOPs / token",
                          xlog=2, ylog=10, xlim=(N_GRID[0], N_GRID[-1]), ylim=(1e-2, 1e5), xticks=xticks,
                          yticks=[(10.0 ** e, f"1e{e}") for e in range(-2, 6)], vlines=marks, vline_color=MARKER)
        memory = web.lines([web.series(N_GRID, s["table_curve"], color=ACCENT, label="一层的分数表"),
                            web.series(N_GRID, s["cache_curve"], color=BASE, label="整个 KV Cache")],
                           title="显存", xlabel="长度 n（token）", ylabel="字节", xlog=2, ylog=2,
                           xlim=(N_GRID[0], N_GRID[-1]), ylim=(2 ** 16, 2 ** 57), xticks=xticks,
                           yticks=list(zip([2 ** 20, 2 ** 30, 2 ** 40, 2 ** 50], [*BYTE_TICKS.values(), "1 PiB"])),
                           vlines=marks, vline_color=MARKER)
        return {"title": LINES_TITLE, "panels": [flops, memory]}


def block_range(step) -> str:
    """``4–7`` for a block of keys, ``3`` for a block of one."""
    instance("step", step, OnlineStep, "OnlineStep (from helpers.tiled.online_softmax_steps)")
    last = step.block_end - 1
    return str(last) if last == step.block_start else f"{step.block_start}–{last}"


class OnlineSoftmaxExplorer(Explorer):
    """Block size → the online-softmax steps for one query row of 16 keys."""

    figsize = (6.0, 2.8)
    N = 16
    #: the bound the last step keeps to the one-pass softmax (float64, 16 keys); the readout prints the
    #: bound, not the difference, whose digits change with the CPU's rounding
    TOLERANCE = 1e-12

    def make_controls(self):
        return {"block": widgets.IntSlider(value=4, min=1, max=self.N, description="块大小")}

    def compute(self, block):
        rng = np.random.default_rng(7)
        scores = rng.standard_normal(self.N) * 2.0
        values = rng.standard_normal((self.N, 2))
        steps = online_softmax_steps(scores, values, block)
        exact = softmax(scores) @ values
        return {"steps": steps, "exact": exact, "error": float(np.abs(steps[-1].output - exact).max()),
                "scores": scores, "block": block}

    def build(self, fig):
        self.ax = fig.add_subplot()
        self.score_bars = self.ax.bar(np.arange(self.N), np.zeros(self.N), color=REFERENCE)
        (self.max_line,) = self.ax.step(np.arange(self.N), np.zeros(self.N), where="post", color=ACCENT,
                                        label="运行中的最大值 m")
        self.ax.set_ylim(-6, 6)
        self.ax.set_xlabel("键的位置")
        self.ax.set_ylabel("分数")
        self.ax.set_title("分块扫过一行分数（绿、紫交替 = 块）时的运行最大值 m")
        self.ax.legend(loc="lower right")
        self.animate(*self.score_bars, self.max_line)

    def draw(self, s):
        colors = [BASE, MUTED]
        for i, (bar, h) in enumerate(zip(self.score_bars, s["scores"])):
            bar.set_height(h)
            bar.set_color(colors[(i // s["block"]) % 2])
        running = np.concatenate([[st.running_max] * (st.block_end - st.block_start) for st in s["steps"]])
        self.max_line.set_ydata(running)

    def describe(self, s):
        cell = "<td style='padding:0 0.8em; text-align:right'>"
        rows = "".join(f"<tr>{cell}{block_range(st)}</td>{cell}{st.running_max:.3f}</td>"
                       f"{cell}{st.running_sum:.3f}</td>{cell}[{st.output[0]:.3f}, {st.output[1]:.3f}]</td></tr>"
                       for st in s["steps"])
        head = "".join(f"<th style='padding:0 0.8em'>{h}</th>" for h in ("块（键的位置）", "m", "l", "当前输出 acc/l"))
        return (f"<table style='border-collapse:collapse'><tr>{head}</tr>{rows}</table>"
                f"{len(s['steps'])} 步；与一次性 softmax 的最大差 &lt; {self.TOLERANCE:.0e}："
                f"{'是' if s['error'] < self.TOLERANCE else '否'}")

    def web_view(self, s):
        colors = [(BASE, MUTED)[(i // s["block"]) % 2] for i in range(self.N)]
        running = np.concatenate([[st.running_max] * (st.block_end - st.block_start) for st in s["steps"]])
        x = np.arange(self.N)
        panel = web.lines([web.series(np.append(x, self.N) - 0.5, running, color=ACCENT, step=True,
                                      label="运行中的最大值 m")],
                          title="分块扫过一行分数（绿、紫交替 = 块）时的运行最大值 m", xlabel="键的位置", ylabel="分数",
                          xlim=(-0.8, self.N - 0.2), ylim=(-6, 6), xticks=[(i, str(i)) for i in range(0, self.N, 3)],
                          hlines=[(0.0, False)], bars=(s["scores"], colors))
        return {"title": "", "panels": [panel]}
