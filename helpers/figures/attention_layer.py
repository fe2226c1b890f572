"""``06_attention_layer``: RoPE's rotation picture and Llama-3.1's RoPE wavelengths."""
from __future__ import annotations

import numpy as np

from ..render.palette import ACCENT, MUTED, REFERENCE, TEXT_GREY
from ..render.png import new_figure


def rope_rotation_figure(vector, positions, theta_step):
    """``06_attention_layer``: one 2-D pair of q rotated by position · θ (RoPE's picture)."""
    fig = new_figure(3.8, 3.8)
    ax = fig.add_subplot()
    v = np.asarray(vector, dtype=float)
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    for i, p in enumerate(positions):
        a = p * theta_step
        rotated = np.array([v[0] * np.cos(a) - v[1] * np.sin(a), v[0] * np.sin(a) + v[1] * np.cos(a)])
        color = cmap(i / max(1, len(positions) - 1))
        ax.annotate("", xy=rotated, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=color, lw=1.8))
        ax.text(*(rotated * 1.12), f"m={p}", fontsize=9, ha="center", va="center", color=color)
    lim = 1.35 * float(np.hypot(*v))
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.axhline(0, color=REFERENCE, lw=0.8)
    ax.axvline(0, color=REFERENCE, lw=0.8)
    ax.set_title("同一对分量在位置 m 处转过 m·θ")
    ax.set_xlabel("第 1 个分量")
    ax.set_ylabel("第 2 个分量")
    return fig


def rope_wavelengths_figure(config):
    """``06_attention_layer``: each RoPE pair's wavelength (positions per full turn), plain and
    with the config's ``rope_scaling``, against the pre-training and published context lengths."""
    from ..layer import rope_wavelengths

    scaling = config.rope_scaling
    if scaling is None:
        raise ValueError(f"config must have a rope_scaling to compare against, got {config.name} without one")
    plain = rope_wavelengths(config.head_dim, config.rope_theta)
    scaled = rope_wavelengths(config.head_dim, config.rope_theta, scaling)
    pairs = np.arange(len(plain))
    fig = new_figure(6.6, 3.8)
    ax = fig.add_subplot()
    ax.plot(pairs, plain, "o", ms=3.5, color=MUTED, label="基础公式：2π/θᵢ")
    ax.plot(pairs, scaled, "o", ms=3.5, mfc="none", mew=1.1, color=ACCENT, label=f"{scaling.rope_type} 缩放后")
    length = scaling.original_max_position_embeddings
    lines = [(length / scaling.high_freq_factor, ":", f"{length / scaling.high_freq_factor / 1024:.0f}K：波长更短的不变"),
             (length / scaling.low_freq_factor, "--", f"预训练长度 {length / 1024:.0f}K：波长更长的 ×{scaling.factor:g}")]
    if config.max_position_embeddings is not None:
        lines.append((config.max_position_embeddings, "-.", f"扩展后的上下文 {config.max_position_embeddings / 1024:.0f}K"))
    for value, style, text in lines:
        ax.axhline(value, color=REFERENCE, ls=style, lw=1)
        ax.text(0.5, value * 1.25, text, fontsize=9, color=TEXT_GREY, va="bottom")
    ax.set_yscale("log")
    ax.set_xlim(-1, len(plain))
    ax.set_xlabel(f"第 i 对（共 {len(plain)} 对，i 越大转得越慢）")
    ax.set_ylabel("波长：转一整圈的位置（token）")
    ax.set_title(f"{config.name}：每对分量的波长，缩放前后")
    ax.legend(loc="lower right", fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def head_mosaic(attn, cols: int = 8, gap: int = 1) -> np.ndarray:
    """Tile per-head ``(H, n, n)`` weight maps into one array (NaN gaps), so a whole grid of
    heads is a single image: one ``set_data`` per update (``06_attention_layer``, ``09``)."""
    from ..render.validation import as_real_array, nonneg_int, positive_int

    a = as_real_array("attn", attn, ndim=3)
    cols, gap = positive_int("cols", cols, maximum=64), nonneg_int("gap", gap, maximum=16)
    heads, n, m = a.shape
    rows = -(-heads // cols)
    out = np.full((rows * (n + gap) - gap, cols * (m + gap) - gap), np.nan)
    for h in range(heads):
        r, c = divmod(h, cols)
        out[r * (n + gap): r * (n + gap) + n, c * (m + gap): c * (m + gap) + m] = a[h]
    return out


def heads_grid_figure(attn, *, cols=8, title="", kv_groups=None, width=7.6, xlabel="", ylabel=""):
    """Static grid of per-head heatmaps (one colour scale, a colorbar for the weight);
    ``kv_groups`` labels which KV head each query head uses; ``xlabel``/``ylabel``, if given, say
    once for all tiles what a tile's columns and rows are."""
    from ..render.validation import as_real_array, positive_int

    a = as_real_array("attn", attn, ndim=3)
    cols = positive_int("cols", cols, maximum=64)
    if kv_groups is not None:
        kv_groups = positive_int("kv_groups", kv_groups, maximum=a.shape[0])
    heads = a.shape[0]
    rows = -(-heads // cols)
    fig = new_figure(width, max(1.8, width / cols * rows * 1.05 + 0.7))
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    image = None
    for h, ax in enumerate(axes):
        ax.set_xticks([])
        ax.set_yticks([])
        if h < heads:
            image = ax.imshow(a[h], vmin=0, vmax=1, cmap="viridis")
            label = f"头 {h}" + (f"·KV {h // kv_groups}" if kv_groups else "")
            ax.set_title(label, fontsize=9, pad=2)
        else:
            ax.set_visible(False)
    fig.suptitle(title)
    if xlabel:
        fig.supxlabel(xlabel, fontsize=10)
    if ylabel:
        fig.supylabel(ylabel, fontsize=10)
    if image is not None:
        fig.colorbar(image, ax=list(axes), fraction=0.02, pad=0.01).set_label("权重")
    return fig
