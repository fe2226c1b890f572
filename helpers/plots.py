"""Plot builders shared by static figures and live explorers.

Each ``*_panel`` function draws once and returns the artists; the matching ``update_*`` changes
them in place (explorers call it on every control move, see :mod:`helpers.explorer`).
"""
from __future__ import annotations

import numpy as np

from .display import fmt, new_figure

ACCENT = "#d95f02"
BASE = "#1b9e77"
MUTED = "#7570b3"


class BarPanel:
    """A labelled bar chart whose heights (and value labels) can be updated in place."""

    def __init__(self, ax, labels, values, *, ylim=(0, 1), title="", ylabel="", digits=3,
                 highlight=None):
        self.ax = ax
        self.digits = digits
        x = np.arange(len(labels))
        colors = [ACCENT if highlight is not None and i == highlight else BASE for i in x]
        self.bars = ax.bar(x, np.zeros(len(labels)), color=colors)
        ax.set_xticks(x, list(labels))
        ax.set_ylim(*ylim)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.spines[["top", "right"]].set_visible(False)
        self.labels = [ax.text(i, 0, "", ha="center", va="bottom", fontsize=9) for i in x]
        self.update(values)

    @property
    def artists(self) -> list:
        return [*self.bars, *self.labels]

    def update(self, values):
        top = self.ax.get_ylim()[1]
        for bar, label, value in zip(self.bars, self.labels, np.ravel(values)):
            bar.set_height(value)
            label.set_y(min(value, top * 0.92) if value >= 0 else 0)
            label.set_text(fmt(value, self.digits))


class HeatmapPanel:
    """A matrix heatmap with per-cell text; ``update`` swaps data and text in place.

    Cells holding ``-inf`` (masked) show as "−∞" on a grey background.
    """

    def __init__(self, ax, matrix, row_labels, col_labels, *, vmin=0.0, vmax=1.0, cmap="viridis",
                 title="", digits=3, annotate=True, highlight_row=None, xlabel="键（K）", ylabel="查询（Q）"):
        import matplotlib

        cmap_obj = matplotlib.colormaps[cmap].with_extremes(bad="#dddddd")
        self.ax = ax
        self.digits = digits
        m = np.asarray(matrix, dtype=float)
        self.image = ax.imshow(np.ma.masked_invalid(m), cmap=cmap_obj, vmin=vmin, vmax=vmax)
        ax.set_xticks(range(len(col_labels)), list(col_labels))
        ax.set_yticks(range(len(row_labels)), list(row_labels))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        self.texts = []
        if annotate:
            self.texts = [[ax.text(j, i, "", ha="center", va="center", fontsize=8)
                           for j in range(m.shape[1])] for i in range(m.shape[0])]
        from matplotlib.patches import Rectangle

        self.row_box = Rectangle((-0.5, -0.5), m.shape[1], 1, fill=False, lw=2.5, ec=ACCENT,
                                 visible=highlight_row is not None)
        ax.add_patch(self.row_box)
        self.update(m, highlight_row=highlight_row)

    @property
    def artists(self) -> list:
        return [self.image, *(t for row in self.texts for t in row), self.row_box]

    def update(self, matrix, highlight_row=None):
        m = np.asarray(matrix, dtype=float)
        self.image.set_data(np.ma.masked_invalid(m))
        lo, hi = self.image.get_clim()
        for i, row in enumerate(self.texts):
            for j, text in enumerate(row):
                value = m[i, j]
                if np.isneginf(value):
                    text.set_text("−∞")
                    text.set_color("black")
                elif np.isnan(value):  # padding (an empty cell): no number to show
                    text.set_text("")
                else:
                    text.set_text(fmt(value, self.digits))
                    text.set_color("white" if value < lo + 0.6 * (hi - lo) else "black")
        if highlight_row is None:
            self.row_box.set_visible(False)
        else:
            self.row_box.set_visible(True)
            self.row_box.set_y(highlight_row - 0.5)


def weights_bar(labels, weights, *, title="", highlight=None, width=4.2, height=2.6):
    """Static bar chart of one row of attention weights."""
    fig = new_figure(width, height)
    BarPanel(fig.add_subplot(), labels, weights, title=title, ylabel="权重", highlight=highlight)
    return fig


def heatmap(matrix, row_labels, col_labels, *, title="", vmin=0.0, vmax=1.0, cmap="viridis",
            highlight_row=None, digits=3, width=3.6, height=3.2):
    """Static heatmap of a score or weight matrix (rows = query, columns = key)."""
    fig = new_figure(width, height)
    HeatmapPanel(fig.add_subplot(), matrix, row_labels, col_labels, title=title, vmin=vmin,
                 vmax=vmax, cmap=cmap, highlight_row=highlight_row, digits=digits)
    return fig


def heatmaps(matrices, titles, row_labels, col_labels, *, vmin=0.0, vmax=1.0, cmap="viridis",
             digits=3, highlight_row=None, width_per=3.0, height=3.0):
    """Several heatmaps side by side (e.g. scores, masked scores, weights)."""
    fig = new_figure(width_per * len(matrices), height)
    axes = fig.subplots(1, len(matrices))
    for ax, m, title in zip(np.atleast_1d(axes), matrices, titles):
        finite = np.asarray(m, dtype=float)
        lo = vmin if vmin is not None else float(np.min(finite[np.isfinite(finite)]))
        hi = vmax if vmax is not None else float(np.max(finite[np.isfinite(finite)]))
        HeatmapPanel(ax, m, row_labels, col_labels, title=title, vmin=lo, vmax=hi, cmap=cmap,
                     digits=digits, highlight_row=highlight_row)
    return fig


class VectorPanel:
    """2-D arrows (q/k/v vectors, or weighted parts of a sum drawn head to tail).

    With ``chain=True`` all arrows but the last are drawn head to tail and the last (the sum)
    from the origin, so the picture shows ``Σ w_j v_j`` being built. Labels of arrows shorter
    than ``min_label`` are hidden so tiny parts do not pile up.
    """

    def __init__(self, ax, vectors, labels, *, colors=None, lim=2.2, title="", chain=False,
                 min_label=0.0):
        self.ax = ax
        self.chain = chain
        self.min_label = min_label
        n = len(labels)
        colors = colors or [BASE] * n
        self.arrows = [ax.annotate("", xy=(0, 0), xytext=(0, 0),
                                   arrowprops=dict(arrowstyle="-|>", color=c, lw=2, shrinkA=0, shrinkB=0))
                       for c in colors]
        self.texts = [ax.text(0, 0, lab, fontsize=9, color=c) for lab, c in zip(labels, colors)]
        lo, hi = (lim if isinstance(lim, tuple) else (-lim, lim))
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.axhline(0, color="#bbbbbb", lw=0.8)
        ax.axvline(0, color="#bbbbbb", lw=0.8)
        ax.set_aspect("equal")
        ax.set_title(title)
        self.update(vectors)

    @property
    def artists(self) -> list:
        return [*self.arrows, *self.texts]

    def update(self, vectors):
        vecs = np.asarray(vectors, dtype=float)
        starts = np.zeros_like(vecs)
        if self.chain:
            starts[1:-1] = np.cumsum(vecs[:-1], axis=0)[:-1]
        for i, (arrow, text, start, vec) in enumerate(zip(self.arrows, self.texts, starts, vecs)):
            end = start + vec
            arrow.xy = (end[0], end[1])
            arrow.set_position((start[0], start[1]))
            if self.chain and i == len(vecs) - 1:  # the sum: label under its tip
                text.set_position((end[0] - 0.1, end[1] - 0.3))
            else:
                mid = start + 0.5 * vec if self.chain else end
                text.set_position((mid[0] + 0.04, mid[1] + 0.08))
            text.set_visible(bool(np.hypot(*vec) >= self.min_label))


def fixed_vs_content_figure(results):
    """``01_weighted_average``: per sentence, fixed weights (grey) beside content weights."""
    fig = new_figure(7.2, 2.6)
    axes = fig.subplots(1, len(results))
    for ax, r in zip(np.atleast_1d(axes), results):
        x = np.arange(len(r.tokens))
        ax.bar(x - 0.2, r.fixed_weights, width=0.4, label="固定权重", color="#bbbbbb")
        ax.bar(x + 0.2, r.content_weights, width=0.4, label="按内容", color=BASE)
        ax.set_xticks(x, list(r.tokens))
        ax.set_ylim(0, 1)
        ax.set_title("".join(r.tokens))
        ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="upper right")
    return fig


QKV_COLORS = ("#d95f02", "#1b9e77", "#7570b3")


def vectors_figure(vectors, labels, *, colors=None, lim=2.5, title="", chain=False, width=3.4, height=3.2):
    """Static 2-D arrow picture (``02_qkv``'s q/k/v, ``03``'s weighted sum of v)."""
    fig = new_figure(width, height)
    VectorPanel(fig.add_subplot(), vectors, labels, colors=colors, lim=lim, title=title, chain=chain,
                min_label=0.15 if chain else 0.0)
    return fig


def std_vs_d_figure(ds, stds):
    """``04_sqrt_d``: measured std of q·k against d on log axes, with the √d curve."""
    fig = new_figure(4.6, 3.0)
    ax = fig.add_subplot()
    d = np.asarray(ds, dtype=float)
    ax.plot(d, np.sqrt(d), color="#bbbbbb", lw=3, label="√d（理论）")
    ax.plot(d, stds, "o", color=ACCENT, label="模拟")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("每个头的维度 d")
    ax.set_ylabel("点积 q·k 的标准差")
    ax.legend()
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def saturation_figure(rows):
    """``04_sqrt_d``: as scores are multiplied up, the largest weight → 1 and ‖J‖ → 0."""
    fig = new_figure(4.6, 3.0)
    ax = fig.add_subplot()
    factors = [r[0] for r in rows]
    ax.plot(factors, [r[1] for r in rows], "o-", color=BASE, label="最大的权重")
    ax.plot(factors, [r[2] for r in rows], "s-", color=MUTED, label="softmax 雅可比范数 ‖J‖")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("分数放大的倍数")
    ax.set_ylim(0, 1.05)
    ax.legend()
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def causal_heatmaps(tokens, scores, weights_causal):
    """``05_causal_mask``: raw scores, scores + mask (−∞ above the diagonal), masked weights."""
    from .attention import causal_mask

    masked = scores + causal_mask(len(tokens))
    finite = scores[np.isfinite(scores)]
    fig = new_figure(9.6, 3.3)
    for ax, m, title, lo, hi in zip(fig.subplots(1, 3), [scores, masked, weights_causal],
                                    ["分数 QKᵀ/√d", "加上因果掩码", "softmax 后的权重"],
                                    [finite.min(), finite.min(), 0.0], [finite.max(), finite.max(), 1.0]):
        HeatmapPanel(ax, m, tokens, tokens, title=title, vmin=float(lo), vmax=float(hi))
    return fig


def head_mosaic(attn, cols: int = 8, gap: int = 1) -> np.ndarray:
    """Tile per-head ``(H, n, n)`` weight maps into one array (NaN gaps), so a whole grid of
    heads is a single image: one ``set_data`` per update (``06_attention_layer``, ``09``)."""
    from .validation import as_real_array, nonneg_int, positive_int

    a = as_real_array("attn", attn, ndim=3)
    cols, gap = positive_int("cols", cols, maximum=64), nonneg_int("gap", gap, maximum=16)
    heads, n, m = a.shape
    rows = -(-heads // cols)
    out = np.full((rows * (n + gap) - gap, cols * (m + gap) - gap), np.nan)
    for h in range(heads):
        r, c = divmod(h, cols)
        out[r * (n + gap): r * (n + gap) + n, c * (m + gap): c * (m + gap) + m] = a[h]
    return out


def heads_grid_figure(attn, *, cols=8, title="", kv_groups=None, width=7.6):
    """Static grid of per-head heatmaps; ``kv_groups`` labels which KV head each query head uses."""
    from .validation import as_real_array, positive_int

    a = as_real_array("attn", attn, ndim=3)
    cols = positive_int("cols", cols, maximum=64)
    if kv_groups is not None:
        kv_groups = positive_int("kv_groups", kv_groups, maximum=a.shape[0])
    heads = a.shape[0]
    rows = -(-heads // cols)
    fig = new_figure(width, max(1.6, width / cols * rows + 0.6))
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    for h, ax in enumerate(axes):
        ax.set_xticks([])
        ax.set_yticks([])
        if h < heads:
            ax.imshow(a[h], vmin=0, vmax=1, cmap="viridis")
            label = f"头 {h}" + (f" · KV {h // kv_groups}" if kv_groups else "")
            ax.set_title(label, fontsize=7)
        else:
            ax.set_visible(False)
    fig.suptitle(title)
    return fig


def rope_rotation_figure(vector, positions, theta_step):
    """``06_attention_layer``: one 2-D pair of q rotated by position · θ (RoPE's picture)."""
    fig = new_figure(3.4, 3.4)
    ax = fig.add_subplot()
    v = np.asarray(vector, dtype=float)
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    for i, p in enumerate(positions):
        a = p * theta_step
        rotated = np.array([v[0] * np.cos(a) - v[1] * np.sin(a), v[0] * np.sin(a) + v[1] * np.cos(a)])
        color = cmap(i / max(1, len(positions) - 1))
        ax.annotate("", xy=rotated, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=color, lw=1.8))
        ax.text(*(rotated * 1.12), f"m={p}", fontsize=8, ha="center", va="center", color=color)
    lim = 1.35 * float(np.hypot(*v))
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.axhline(0, color="#bbbbbb", lw=0.8)
    ax.axvline(0, color="#bbbbbb", lw=0.8)
    ax.set_title("同一对分量在位置 m 处转过 m·θ")
    return fig


def cost_curves_figure(config):
    """``07_cost_of_length``: per-token FLOPs, prefill share and bytes against n, crossovers marked."""
    from . import cost

    grid = np.array([2 ** i for i in range(10, 21)], dtype=float)
    cross = cost.crossovers(config)
    fig = new_figure(10.0, 3.0)
    ax_f, ax_s, ax_m = fig.subplots(1, 3)
    ax_f.plot(grid, [cost.attention_flops_per_token(config, int(n)) for n in grid], color=ACCENT, label="注意力 / token")
    ax_f.axhline(cost.weight_flops_per_token(config), color=MUTED, label="权重矩阵 / token")
    ax_f.axvline(cross["per_token"], color="#999999", ls="--", lw=1)
    ax_f.set_title(f"每 token FLOPs（交点 n ≈ {cross['per_token'] / 1024:.0f}K）")
    ax_s.plot(grid, [cost.prefill_share(config, int(n)) for n in grid], color=ACCENT)
    ax_s.axhline(1.0, color=MUTED, lw=1)
    ax_s.axvline(cross["prefill"], color="#999999", ls="--", lw=1)
    ax_s.set_yscale("log")
    ax_s.set_title(f"Prefill：注意力 ÷ 固定部分（= 1 于 n ≈ {cross['prefill'] / 1024:.0f}K）")
    ax_m.plot(grid, [cost.score_table_bytes(config, int(n)) for n in grid], color=ACCENT, label="一层的分数表")
    ax_m.plot(grid, [cost.kv_cache_bytes(config, int(n)) for n in grid], color=BASE, label="整个 KV Cache")
    ax_m.axvline(cross["table_vs_cache"], color="#999999", ls="--", lw=1)
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


class SinkPanels:
    """``08_reading_attention``: the causal weight map and the per-position output change after
    eviction (only a recent window vs first token + window); ``update`` changes them in place."""

    def __init__(self, fig, weights, only, with_first, *, ylim=None):
        ax_w, ax_c = fig.subplots(1, 2)
        self.ax_change = ax_c
        self.heat = ax_w.imshow(weights, vmin=0, vmax=1, cmap="viridis")
        ax_w.set_title("因果注意力权重")
        ax_w.set_xlabel("键（K）")
        ax_w.set_ylabel("查询（Q）")
        x = np.arange(len(only))
        (self.only_line,) = ax_c.plot(x, only, "o-", ms=3, color=ACCENT, label="只留最近窗口")
        (self.first_line,) = ax_c.plot(x, with_first, "s-", ms=3, color=BASE, label="首 token + 窗口")
        if ylim is not None:
            ax_c.set_ylim(*ylim)
        ax_c.set_xlabel("位置")
        ax_c.set_title("丢掉前文后，输出变化 ‖Δout‖")
        ax_c.legend(fontsize=7, loc="upper left")

    @property
    def artists(self) -> list:
        return [self.heat, self.only_line, self.first_line]

    def update(self, weights, only, with_first):
        self.heat.set_data(weights)
        self.only_line.set_ydata(only)
        self.first_line.set_ydata(with_first)


def sink_figure(weights, only, with_first, window):
    """Static version of :class:`SinkPanels`, with the window's edge marked."""
    fig = new_figure(7.4, 3.0)
    panels = SinkPanels(fig, weights, only, with_first)
    panels.ax_change.axvline(window - 0.5, color="#bbbbbb", ls="--", lw=1)
    return fig


class InfluencePanels:
    """``08_reading_attention``: attention weight and ablation influence per position, side by side."""

    def __init__(self, fig, weights, influence):
        ax_w, ax_i = fig.subplots(1, 2)
        labels = [str(i) for i in range(len(weights))]
        self.weight_bars = BarPanel(ax_w, labels, weights, title="注意力权重", highlight=0)
        self.influence_bars = BarPanel(ax_i, labels, influence, ylim=(0, 1.2), title="遮掉它以后输出的变化",
                                       highlight=0)

    @property
    def artists(self) -> list:
        return [*self.weight_bars.artists, *self.influence_bars.artists]

    def update(self, weights, influence):
        self.weight_bars.update(weights)
        self.influence_bars.update(influence)


def influence_figure(example_result):
    """Static version of :class:`InfluencePanels`."""
    fig = new_figure(6.4, 2.6)
    InfluencePanels(fig, example_result["weights"], example_result["influence"])
    return fig


def dilution_figure(deltas, ns, closed, simulated):
    """``08_reading_attention``: the relevant position's weight against n, closed form and simulation."""
    fig = new_figure(5.0, 3.0)
    ax = fig.add_subplot()
    colors = [ACCENT, BASE, MUTED, "#e7298a"]
    for delta, c, cl, sim in zip(deltas, colors, closed, simulated):
        ax.plot(ns, cl, color=c, label=f"Δ = {delta:g}")
        ax.plot(ns, sim, "o", ms=3, color=c)
    ax.axhline(0.5, color="#bbbbbb", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("长度 n")
    ax.set_ylabel("相关位置的权重")
    ax.set_title("线：闭式解；点：模拟")
    ax.legend(fontsize=8)
    return fig


def sink_by_layer_figure(first_weights):
    """``09_real_model``: per layer and head, the mean weight on position 0 (a heatmap)."""
    fig = new_figure(7.0, 2.6)
    ax = fig.add_subplot()
    image = ax.imshow(np.asarray(first_weights).T, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xlabel("层")
    ax.set_ylabel("头")
    ax.set_title("查询放在第 1 个 token 上的平均权重")
    fig.colorbar(image, ax=ax, fraction=0.04)
    return fig


def rope_wavelengths_figure(config):
    """``06_attention_layer``: each RoPE pair's wavelength (positions per full turn), plain and
    with the config's ``rope_scaling``, against the pre-training and published context lengths."""
    from .layer import rope_wavelengths

    scaling = config.rope_scaling
    if scaling is None:
        raise ValueError(f"config must have a rope_scaling to compare against, got {config.name} without one")
    plain = rope_wavelengths(config.head_dim, config.rope_theta)
    scaled = rope_wavelengths(config.head_dim, config.rope_theta, scaling)
    pairs = np.arange(len(plain))
    fig = new_figure(6.6, 3.6)
    ax = fig.add_subplot()
    ax.plot(pairs, plain, "o", ms=3.5, color=MUTED, label="基础公式：2π/θᵢ")
    ax.plot(pairs, scaled, "o", ms=3.5, mfc="none", mew=1.1, color=ACCENT, label=f"{scaling.rope_type} 缩放后")
    length = scaling.original_max_position_embeddings
    lines = [(length / scaling.high_freq_factor, ":", f"{length / scaling.high_freq_factor / 1024:.0f}K：波长更短的不变"),
             (length / scaling.low_freq_factor, "--", f"预训练长度 {length / 1024:.0f}K：波长更长的 ×{scaling.factor:g}")]
    if config.max_position_embeddings is not None:
        lines.append((config.max_position_embeddings, "-.", f"扩展后的上下文 {config.max_position_embeddings / 1024:.0f}K"))
    for value, style, text in lines:
        ax.axhline(value, color="#555555", ls=style, lw=1)
        ax.text(0.5, value * 1.25, text, fontsize=8, color="#333333", va="bottom")
    ax.set_yscale("log")
    ax.set_xlim(-1, len(plain))
    ax.set_xlabel(f"第 i 对（共 {len(plain)} 对，i 越大转得越慢）")
    ax.set_ylabel("波长：转一整圈的位置（token）")
    ax.set_title(f"{config.name}：每对分量的波长，缩放前后")
    ax.legend(loc="lower right", fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return fig
