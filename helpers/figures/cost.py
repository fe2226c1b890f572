"""``07_cost_of_length``: cost curves from a config, and measured time and memory."""
from __future__ import annotations

import numpy as np

from ..display import new_figure
from ..palette import ACCENT, BASE, MARKER, MUTED


def cost_curves_figure(config):
    """``07_cost_of_length``: per-token FLOPs, prefill share and bytes against n, crossovers marked."""
    from .. import cost

    grid = np.array([2 ** i for i in range(10, 21)], dtype=float)
    cross = cost.crossovers(config)
    fig = new_figure(10.0, 3.0)
    ax_f, ax_s, ax_m = fig.subplots(1, 3)
    ax_f.plot(grid, [cost.attention_flops_per_token(config, int(n)) for n in grid], color=ACCENT, label="注意力 / token")
    ax_f.axhline(cost.weight_flops_per_token(config), color=MUTED, label="权重矩阵 / token")
    ax_f.axvline(cross["per_token"], color=MARKER, ls="--", lw=1)
    ax_f.set_title(f"每 token FLOPs（交点 n ≈ {cross['per_token'] / 1024:.0f}K）")
    ax_s.plot(grid, [cost.prefill_share(config, int(n)) for n in grid], color=ACCENT)
    ax_s.axhline(1.0, color=MUTED, lw=1)
    ax_s.axvline(cross["prefill"], color=MARKER, ls="--", lw=1)
    ax_s.set_yscale("log")
    ax_s.set_title(f"Prefill：注意力 ÷ 固定部分（= 1 于 n ≈ {cross['prefill'] / 1024:.0f}K）")
    ax_m.plot(grid, [cost.score_table_bytes(config, int(n)) for n in grid], color=ACCENT, label="一层的分数表")
    ax_m.plot(grid, [cost.kv_cache_bytes(config, int(n)) for n in grid], color=BASE, label="整个 KV Cache")
    ax_m.axvline(cross["table_vs_cache"], color=MARKER, ls="--", lw=1)
    ax_m.set_title(f"BF16 字节（交点 n = {cross['table_vs_cache'] / 1024:.0f}K）")
    for ax in (ax_f, ax_s, ax_m):
        ax.set_xscale("log", base=2)
        ax.set_xticks(grid[::2], [f"{int(n) // 1024}K" for n in grid[::2]])
        ax.spines[["top", "right"]].set_visible(False)
    ax_f.set_yscale("log")
    ax_m.set_yscale("log")
    ax_f.legend(fontsize=7)
    ax_m.legend(fontsize=7)
    return fig


def timing_figure(rows, exponent):
    """``07_cost_of_length``: measured time and peak memory, naive vs tiled, on log axes."""
    fig = new_figure(7.6, 2.8)
    ax_t, ax_m = fig.subplots(1, 2)
    ns = [r["n"] for r in rows]
    ax_t.plot(ns, [r["naive_s"] * 1e3 for r in rows], "o-", color=ACCENT, label=f"朴素（斜率 {exponent:.2f}）")
    ax_t.plot(ns, [r["tiled_s"] * 1e3 for r in rows], "s-", color=BASE, label="分块")
    ax_t.set_ylabel("毫秒")
    ax_m.plot(ns, [r["naive_peak"] / 2 ** 20 for r in rows], "o-", color=ACCENT, label="朴素")
    ax_m.plot(ns, [r["tiled_peak"] / 2 ** 20 for r in rows], "s-", color=BASE, label="分块")
    ax_m.set_ylabel("峰值内存 MiB")
    for ax in (ax_t, ax_m):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.legend(fontsize=8)
    return fig
