"""``09_real_model``: SmolLM2-135M's attention, per layer and head."""
from __future__ import annotations

import numpy as np

from ..readable_tokens import group_attention
from ..render.panels import future_masked, masked_viridis, matrix_mesh
from ..render.png import new_figure


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
