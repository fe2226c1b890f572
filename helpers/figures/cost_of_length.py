"""``07_cost_of_length``: cost curves from a config, the bytes a generated token reads, and
measured time and memory."""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import NullLocator

from .. import cost
from ..render.format import fmt_bytes
from ..render.palette import ACCENT, BASE, MARKER, MUTED, REFERENCE
from ..render.png import new_figure
from ..render.validation import finite_scalar

#: context lengths the article talks about, marked on every cost curve
MARKED_N = {8192: "8K", 131072: "128K"}
#: binary byte units for a log axis of bytes
BYTE_TICKS = {2 ** 20: "1 MiB", 2 ** 30: "1 GiB", 2 ** 40: "1 TiB"}


def n_label(n: float) -> str:
    """``8K`` for 8192 (a length of whole K's); lengths below 1024, or not a whole number of K's,
    written out in full (``28,629``), so a label never rounds a length the text prints."""
    n = finite_scalar("n", n, low=1.0, high=2.0 ** 62)
    return f"{int(n) // 1024}K" if n >= 1024 and n % 1024 == 0 else f"{round(n):,}"


def mark_lengths(ax, *, label: bool) -> None:
    """Dotted lines at 8K and 128K (labelled inside the axes' top when ``label``)."""
    for n, text in MARKED_N.items():
        ax.axvline(n, color=REFERENCE, ls=":", lw=1.2)
        if label:
            ax.text(n * 1.08, 0.96, text, transform=ax.get_xaxis_transform(), ha="left", va="top", fontsize=9,
                    color=MARKER)


def cost_curves_figure(config):
    """``07_cost_of_length``: per-token FLOPs, prefill share and bytes against n (stacked, one shared
    length axis), crossovers dashed, 8K and 128K dotted."""
    grid = np.array([2 ** i for i in range(10, 21)], dtype=float)
    cross = cost.crossovers(config)
    fig = new_figure(6.4, 7.2)
    ax_f, ax_s, ax_m = fig.subplots(3, 1, sharex=True)
    ax_f.plot(grid, [cost.attention_flops_per_token(config, int(n)) / 1e9 for n in grid], color=ACCENT,
              label="注意力")
    ax_f.axhline(cost.weight_flops_per_token(config) / 1e9, color=MUTED, label="权重矩阵（与 n 无关）")
    ax_f.axvline(cross["per_token"], color=MARKER, ls="--", lw=1)
    ax_f.set_title(f"生成每个 token 的计算量（交点 n ≈ {n_label(cross['per_token'])}）")
    ax_f.set_ylabel("GFLOPs / token")
    ax_s.plot(grid, [cost.prefill_share(config, int(n)) for n in grid], color=ACCENT, label="注意力 ÷ 固定部分")
    ax_s.axhline(1.0, color=MUTED, lw=1, label="= 1")
    ax_s.axvline(cross["prefill"], color=MARKER, ls="--", lw=1)
    ax_s.set_title(f"Prefill：注意力是固定部分的几倍（= 1 于 n ≈ {n_label(cross['prefill'])}）")
    ax_s.set_ylabel("倍数")
    ax_m.plot(grid, [cost.score_table_bytes(config, int(n)) for n in grid], color=ACCENT, label="一层的完整分数表")
    ax_m.plot(grid, [cost.kv_cache_bytes(config, int(n)) for n in grid], color=BASE, label="整个 KV Cache")
    ax_m.axvline(cross["table_vs_cache"], color=MARKER, ls="--", lw=1)
    ax_m.set_title(f"BF16 显存（交点 n = {n_label(cross['table_vs_cache'])}）")
    ax_m.set_ylabel("字节（BF16）")
    ax_m.set_yscale("log", base=2)
    ax_m.set_yticks(list(BYTE_TICKS), list(BYTE_TICKS.values()))
    for i, ax in enumerate((ax_f, ax_s, ax_m)):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2 if ax is ax_m else 10)
        mark_lengths(ax, label=i == 0)
        ax.legend(loc="lower right" if ax is not ax_f else "upper left")  # clear of the flat line
    ax_m.set_yticks(list(BYTE_TICKS), list(BYTE_TICKS.values()))
    ax_m.set_xticks(grid[::2], [n_label(n) for n in grid[::2]])
    ax_m.set_xlabel("上下文长度 n（token，对数刻度）")
    return fig


def decode_reads_figure(config):
    """``07_cost_of_length``: what one generated token reads at batch 1 (BF16) against the cached
    length n — the weights (flat) and the KV cache (rising), their crossover dashed — and
    attention's share of that token's work counted in FLOPs and in bytes read; 8K and 128K dotted."""
    grid = np.array([2 ** i for i in range(10, 21)], dtype=float)
    reads = [cost.decode_read_bytes(config, int(n)) for n in grid]
    shares = [cost.decode_shares(config, int(n)) for n in grid]
    cross = cost.decode_crossover(config)
    fig = new_figure(7.6, 3.3)
    ax_b, ax_s = fig.subplots(1, 2, sharex=True)
    ax_b.plot(grid, [r["kv_cache"] for r in reads], color=ACCENT, label="KV Cache（注意力读的）")
    ax_b.plot(grid, [r["weights"] for r in reads], color=MUTED, label="权重（与 n 无关）")
    ax_b.axvline(cross, color=MARKER, ls="--", lw=1)
    ax_b.set_title(f"每生成一个 token 读的字节\n（batch 1，BF16；交点 n ≈ {n_label(cross)}）")
    ax_b.set_ylabel("字节（BF16，对数刻度）")
    ax_b.set_yscale("log", base=2)
    low, high = min(r["kv_cache"] for r in reads), max(r["kv_cache"] for r in reads)
    ticks = [2.0 ** k for k in range(0, 60, 3) if low <= 2.0 ** k <= high]
    ax_b.set_yticks(ticks, [fmt_bytes(t) for t in ticks])
    ax_b.legend(loc="upper left")
    ax_s.plot(grid, [100 * s["flops"] for s in shares], color=BASE, label="按 FLOPs 算")
    ax_s.plot(grid, [100 * s["bytes"] for s in shares], color=ACCENT, label="按读的字节算")
    ax_s.axhline(50, color=REFERENCE, lw=1)
    ax_s.axvline(cross, color=MARKER, ls="--", lw=1)
    ax_s.set_ylim(0, 100)
    ax_s.set_title("注意力占这个 token 工作量的比例")
    ax_s.set_ylabel("注意力的占比（%）")
    ax_s.legend(loc="lower right")  # clear of the curves, which start low on the left and rise
    for i, ax in enumerate((ax_b, ax_s)):
        ax.set_xscale("log", base=2)
        ax.set_xticks(grid[::2], [n_label(n) for n in grid[::2]])
        ax.set_xlabel("已缓存的长度 n（token，对数刻度）")
        mark_lengths(ax, label=i == 1)
    return fig


def timing_figure(rows):
    """``07_cost_of_length``: measured time and peak memory (CPU), naive vs tiled (and tiled visiting
    every block, when the rows have ``tiled_all_s``), on log axes with the lengths as ticks
    (``512``, ``1K``, ``2K``…). The time panel claims no fitted slope (a few noisy lengths bend);
    it draws slope-1 and slope-2 reference lines through the naive time at the longest length."""
    fig = new_figure(7.6, 3.6)
    ax_t, ax_m = fig.subplots(1, 2)
    ns = [r["n"] for r in rows]
    naive_ms = [r["naive_s"] * 1e3 for r in rows]
    ax_t.plot(ns, naive_ms, "o-", color=ACCENT, label="朴素")
    ax_t.plot(ns, [r["tiled_s"] * 1e3 for r in rows], "s-", color=BASE, label="分块")
    if all("tiled_all_s" in r for r in rows):
        ax_t.plot(ns, [r["tiled_all_s"] * 1e3 for r in rows], "^--", color=MUTED, label="分块，不跳过被遮住的块")
    grid = np.array(ns, dtype=float) / ns[-1]  # both reference lines pass through the longest length
    ax_t.plot(ns, naive_ms[-1] * grid ** 2, ":", color=REFERENCE, lw=1.6, label="∝ n²（参考线）")
    ax_t.plot(ns, naive_ms[-1] * grid, "-.", color=REFERENCE, lw=1.6, label="∝ n（参考线）")
    ax_t.set_ylabel("时间（毫秒）")
    ax_m.plot(ns, [r["naive_peak"] / 2 ** 20 for r in rows], "o-", color=ACCENT, label="朴素")
    ax_m.plot(ns, [r["tiled_peak"] / 2 ** 20 for r in rows], "s-", color=BASE, label="分块")
    ax_m.set_ylabel("峰值内存（CPU，MiB）")
    for ax in (ax_t, ax_m):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns, [n_label(n) for n in ns])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_yscale("log")
        ax.set_xlabel("长度 n（token，对数刻度）")
        # below the panel: the measured curves move from run to run, so no spot inside stays clear of them
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=2, frameon=False)
    return fig
