"""``09_real_model``: SmolLM2-135M's attention, per layer and head."""
from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgba

from ..readable_tokens import group_attention
from ..render.palette import MASKED
from ..render.panels import future_masked, masked_viridis, matrix_mesh
from ..render.png import new_figure
from ..render.validation import as_real_array


def attention_map(ax, weights, labels, *, title=""):
    """One head's causal weight map with the tokens on both axes (shared with the explorer); the
    masked cells (a token after the one reading) grey. Update it with ``set_array(future_masked(w))``."""
    n = len(labels)
    image = matrix_mesh(ax, future_masked(weights), cmap=masked_viridis())
    ax.set_xticks(range(n), labels, rotation=90)
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("键（被看的 token）")
    ax.set_ylabel("查询（正在读的 token）")
    ax.set_title(title)
    return image


def real_heads_figure(layer_weights, labels, heads, *, layer, kv_groups):
    """``09_real_model``: a few heads of one layer, each a full map with its tokens, one colorbar."""
    fig = new_figure(2.8 * len(heads) + 0.9, 4.2)
    axes = np.atleast_1d(fig.subplots(1, len(heads)))
    image = None
    for ax, h in zip(axes, heads):
        image = attention_map(ax, layer_weights[h], labels, title=f"层 {layer} · 头 {h}（KV 头 {h // kv_groups}）")
        if ax is not axes[0]:
            ax.set_ylabel("")
            ax.set_yticks(range(len(labels)), [""] * len(labels))
    fig.colorbar(image, ax=list(axes), fraction=0.03, pad=0.02).set_label("权重")
    return fig


def pieces_and_characters_figure(piece_weights, spelling, *, layer, head):
    """``09_real_model``: one head on a byte-level tokenised text, twice: over its pieces (labelled
    ``年·1/2``) and moved onto the characters they spell (keys summed, queries averaged)."""
    fig = new_figure(8.6, 4.4)
    left, right = fig.subplots(1, 2, width_ratios=[1.6, 1])
    attention_map(left, piece_weights, spelling.piece_labels(), title=f"层 {layer} · 头 {head}：{len(spelling.pieces)} 个 piece")
    image = attention_map(right, group_attention(piece_weights, spelling), spelling.labels(),
                          title=f"同一个头，合成 {len(spelling.texts)} 个字")
    right.set_xlabel("键（被看的字）")
    right.set_ylabel("查询（正在读的字）")
    right.tick_params(axis="x", labelrotation=0)
    fig.colorbar(image, ax=[left, right], fraction=0.03, pad=0.02).set_label("权重")
    return fig


def sink_by_layer_figure(first_weights):
    """``09_real_model``: per layer and head, the mean weight on position 0 (a heatmap)."""
    fig = new_figure(7.0, 2.8)
    ax = fig.add_subplot()
    image = ax.imshow(np.asarray(first_weights).T, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xlabel("层（0 = 最靠近输入）")
    ax.set_ylabel("查询头")
    ax.set_title("从第 5 个 token 起的查询放在第 1 个 token 上的平均权重")
    fig.colorbar(image, ax=ax, fraction=0.04).set_label("平均权重")
    return fig


def head_grid_rgba(maps) -> np.ndarray:
    """``09_real_model``'s grid of every head: ``maps`` ``(layers, heads, m, m)`` as one RGBA picture
    with a thumbnail per head — layers left to right, heads top to bottom, each cell the head's map
    on one colour scale (viridis, 0–1, the future grey) and a white gap after it. Shape
    ``(heads·(m+g), layers·(m+g), 4)`` uint8 (g ≈ m/8, at least 1): drawn with ``imshow(…, extent=(-0.5,
    layers-0.5, heads-0.5, -0.5))``, head (layer, h) fills the cell centred on (layer, h)."""
    maps = as_real_array("maps", maps, ndim=4, keep_float_dtype=True)
    layers, heads, m, m2 = maps.shape
    if m != m2:
        raise ValueError(f"maps must be (layers, heads, m, m) square attention maps, got shape {maps.shape}")
    gap = max(1, m // 8)
    cells = np.full((heads, layers, m + gap, m + gap), np.nan, dtype=np.float32)
    thumbnails = cells[:, :, :m, :m]  # a view: (heads, layers, m, m)
    thumbnails[:] = maps.transpose(1, 0, 2, 3)
    thumbnails[..., np.triu(np.ones((m, m), bool), k=1)] = -1.0  # the future: grey
    picture = cells.transpose(0, 2, 1, 3).reshape(heads * (m + gap), layers * (m + gap))
    rgba = masked_viridis()(np.clip(picture, 0.0, 1.0), bytes=True)  # uint8: a 64-token text's is 5.6 MB
    rgba[picture == -1.0] = np.round(np.array(to_rgba(MASKED)) * 255).astype(np.uint8)
    rgba[np.isnan(picture)] = 255  # the gaps: white
    return rgba
