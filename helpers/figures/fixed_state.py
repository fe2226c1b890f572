"""``15_fixed_state``: what a layer keeps against the length (a growing KV cache, a fixed state), how the
chunkwise form splits the table (the roles its explorer colours), recall against distance for both attention
cores, and the KV-bytes ledger."""
from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from ..linear_attention import forms, ledger, recall
from ..render.format import fmt_bytes
from ..render.palette import ACCENT, BASE, MARKER, MUTED, REFERENCE, colour_word
from ..render.png import new_figure
from ..render.validation import positive_int

#: the lengths the figures and the ledger's explorer span: 1K … 1M tokens
LENGTHS = np.array([2 ** i for i in range(10, 21)], dtype=float)


def kept_figure(heads: int = 8, d: int = 64):
    """KV cache vs linear state of one layer against the length (log–log)."""
    kept = forms.kept_numbers(LENGTHS, heads, d)
    fig = new_figure(6.4, 3.0)
    ax = fig.add_subplot()
    ax.plot(LENGTHS, kept["cache"], color=ACCENT, label=f"KV Cache（{heads} 头 × 2 × {d}，每个 token 一份）")
    ax.plot(LENGTHS, kept["state"], color=BASE, label=f"线性注意力的状态（{heads} 头 × ({d}×{d} + {d})）")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(LENGTHS[::2], [f"{int(n) // 1024}K" for n in LENGTHS[::2]])
    ax.set_xlabel("上下文长度 n（token）")
    ax.set_ylabel("一层保存的数（个）")
    ax.set_title("随长度增长的缓存，和不增长的状态")
    ax.legend(loc="upper left")
    return fig


def chunk_roles(n: int, chunk: int) -> np.ndarray:
    """``(n, n)``: how the chunkwise form reaches each weight — NaN above the diagonal (masked), 1
    inside a chunk (the table), 0 in an earlier chunk (through the state)."""
    n, chunk = positive_int("n", n, maximum=256), positive_int("chunk", chunk, maximum=256)
    block = np.arange(n) // chunk
    roles = np.where(block[:, None] == block[None, :], 1.0, 0.0)
    return np.where(np.tril(np.ones((n, n), dtype=bool)), roles, np.nan)


ROLE_CMAP = ListedColormap([MUTED, ACCENT])


def recall_figure():
    """Recall against the distance between the two copies for both cores in both settings: the dot is
    the mean over the seeds, the band runs from the lowest seed to the highest, the dotted line is
    chance (one token in ``vocab``)."""
    fig = new_figure(7.6, 3.8)
    axes = fig.subplots(1, 2, sharey=True)
    titles = {"plain": "笔记本 11 的模型和任务（32 个 token）", "conv": "加短卷积，32 个 token、重复段 8 个"}
    for ax, setting in zip(axes, recall.SETTINGS):
        for kind, colour, label in (("softmax", ACCENT, "softmax 注意力"), ("linear", BASE, "线性注意力")):
            bins, mean, low, high = recall.mean_recall(setting, kind)
            x = recall.bin_centres(setting, bins)
            ax.fill_between(x, low, high, color=colour, alpha=0.2, lw=0)
            ax.plot(x, mean, color=colour, marker="o", label=f"{label}（点：{len(recall.SEEDS)} 个种子的平均）")
        vocab = recall.SETTINGS[setting][0].vocab
        ax.axhline(1 / vocab, color=MARKER, ls=":", lw=1, label=f"瞎猜：1/{vocab}")
        ax.set_ylim(-0.04, 1.04)  # markers at 0 or 1 stay whole
        ax.set_title(titles[setting], fontsize=10)
        ax.set_xlabel("两段副本的距离（token，每格的中点）")
    axes[0].set_ylabel("召回（比例）")
    band = Patch(color=REFERENCE, alpha=0.5, lw=0, label="色带：种子里最低到最高")
    # below both panels: inside, a curve anywhere from 0 to 1 could run through the labels
    fig.legend(handles=[*axes[0].lines[:3], band], loc="outside lower center", ncol=2, fontsize=9)
    return fig


def ledger_figure(n: int = ledger.CONTEXT):
    """Each ledger row after ``n`` tokens (log scale): the part that grows with the length and the part
    that stops growing, each as its own bar from the axis' left end (stacked on a log axis, a fixed part
    hundreds of times smaller than the growing one would be a sliver), and the total written beside them."""
    rows = ledger.MODELS
    fig = new_figure(7.6, 3.8)
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    low = 1e5  # the log axis' left end: the bars start there, a bar from 0 would reach past the axes
    for i, (yi, model) in enumerate(zip(y, rows)):
        f = model.closed_form()
        growing, fixed = n * f["per_token"], f["fixed"] + f["window"] * f["window_per_token"]
        ax.barh(yi + 0.18, max(growing - low, 0), left=low, height=0.34, color=ACCENT,
                label=None if i else f"随长度增长（{colour_word(ACCENT)}）")
        ax.barh(yi - 0.18, max(fixed - low, 0), left=low, height=0.34, color=BASE,
                label=None if i else f"不再增长（{colour_word(BASE)}：存满的窗口、线性层的状态）")
        ax.text(max(growing, fixed) * 1.3, yi, f"一共 {fmt_bytes(model.total(n))}", va="center", fontsize=9)
    ax.set_yticks(y, [m.name for m in rows])
    ax.set_xscale("log")
    ax.set_xlim(low, 1e14)  # room for the longest bar's total on its right
    ax.set_ylabel("模型")
    ax.set_xlabel(f"一条序列的缓存（字节，BF16，{n // 1024}K 个 token，对数刻度）")
    # below the axes: inside, it would cover the short bars' byte labels
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=9)
    ax.set_title(f"KV 字节账本：{n // 1024}K 个 token 时增长的部分和不再增长的部分", fontsize=10)
    return fig
