"""``14_shrinking_caches``: what one token caches per layer in MLA and its neighbours, SmolLM2's loss
along a long text with a sliding window and sinks, and a row's weights with a learned sink logit."""
from __future__ import annotations

import numpy as np

from ..attention import softmax
from ..config import LLAMA_3_1_8B
from ..render.palette import ACCENT, BASE, MARKER, MUTED, REFERENCE
from ..render.png import new_figure, plotted
from ..render.validation import instance, positive_int
from ..smaller_cache import latent, sink_logit, streaming

#: predictions averaged into one point of the loss curves (a single token's loss jumps by several nats)
SMOOTH = 96


def cache_widths(shape: latent.MLAShape = latent.DEEPSEEK_V3) -> list:
    """``[(label, numbers one token caches per layer)]``: MLA's heads expanded, Llama-3.1-8B's GQA,
    MQA with MLA's head widths, MLA's latent."""
    instance("shape", shape, latent.MLAShape)
    return [(f"展开成每头 K、V（{shape.num_heads} 头 × ({shape.qk_head_dim} + {shape.v_head_dim})）",
             shape.expanded_numbers()),
            (f"Llama-3.1-8B 的 GQA（{LLAMA_3_1_8B.num_kv_heads} 个 KV 头 × 2 × {LLAMA_3_1_8B.head_dim}）",
             2 * LLAMA_3_1_8B.num_kv_heads * LLAMA_3_1_8B.head_dim),
            (f"MLA 的潜在向量（{shape.kv_lora_rank} + {shape.qk_rope_head_dim}）", shape.latent_numbers())]


def cache_widths_figure(shape: latent.MLAShape = latent.DEEPSEEK_V3):
    """Horizontal bars (log scale): numbers one token caches in one layer, per way of caching."""
    rows = cache_widths(shape)
    fig = new_figure(7.0, 2.4)
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    values = [v for _, v in rows]
    low = 100  # the log axis' left end: each bar starts there, a bar from 0 would reach past the axes
    ax.barh(y, np.subtract(values, low), left=low, color=[MUTED, REFERENCE, BASE])
    for yi, v in zip(y, values):
        ax.text(v * 1.1, yi, f"{v:,}", va="center", fontsize=9)
    ax.set_yticks(y, [label for label, _ in rows])
    ax.set_xscale("log")
    ax.set_xlim(low, 4e5)
    ax.set_xlabel("每个 token、每层缓存的数（个，对数刻度）")
    ax.set_ylabel("缓存的方式")
    # right-aligned: the long bar labels push the axes right, a centred title would run off the figure
    ax.set_title("一层缓存多少个数：DeepSeek-V3 的两种存法，对照 Llama-3.1-8B", loc="right")
    return fig


def smoothed(losses, width: int = SMOOTH) -> tuple:
    """``(x, y)``: the mean loss of the ``width`` predictions ending at each position ``x`` (from
    ``width`` on), for a curve a reader can follow."""
    losses = np.asarray(losses, dtype=float)
    width = positive_int("width", width, maximum=len(losses))
    cumulative = np.concatenate([[0.0], np.cumsum(losses)])
    y = (cumulative[width:] - cumulative[:-width]) / width
    return np.arange(width, len(losses) + 1), y


def loss_curves(stored: streaming.StoredLosses, window: int) -> list:
    """``[(label, colour, dash, losses)]`` of the four runs the notebook compares at ``window``; the
    two sink runs nearly coincide, so the cache-position one comes last, wide, and the text-position one
    dashed: drawn in this order, the dashes lie on the wide line and both stay visible."""
    return [("完整注意力", REFERENCE, False, stored.of()),
            (f"只留最近 {window} 个", ACCENT, False, stored.of(window)),
            (f"4 个汇聚 + {window} 个，按缓存位置", BASE, False, stored.of(window, 4, "cache")),
            (f"4 个汇聚 + {window} 个，按原文位置", MUTED, True, stored.of(window, 4, "text"))]


def streaming_figure(stored: streaming.StoredLosses, window: int = 32):
    """SmolLM2's loss along the text (smoothed over :data:`SMOOTH` predictions) for full attention, the
    window alone, and the window with 4 sinks at text and at cache positions; dotted where the sink runs
    start dropping tokens (4 + ``window``), labelled."""
    instance("stored", stored, streaming.StoredLosses)
    fig = new_figure(7.2, 3.8)
    ax = fig.add_subplot()
    for label, colour, dash, losses in loss_curves(stored, window):
        x, y = smoothed(losses)
        wide = colour == BASE  # under the dashed text-position curve it nearly coincides with
        ax.plot(x, plotted(y, 1e-3), color=colour, ls="--" if dash else "-", lw=3.0 if wide else 1.5, label=label)
    ax.axvline(window + 4, color=MARKER, ls=":", lw=1)
    ax.text(window + 4 + 8, 0.97, f"4 + {window} = {window + 4}：开始丢 token", transform=ax.get_xaxis_transform(),
            va="top", fontsize=9, color=MARKER)
    ax.set_xlabel("文中的位置（token）")
    ax.set_ylabel(f"前 {SMOOTH} 个预测的平均损失（nats）")
    ax.set_title(f"SmolLM2-135M 读 {len(stored.ids):,} 个 token 的故事：窗口 {window}")
    # below the axes: the curves fill the whole plot, any corner inside has a line through the labels
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    return fig


#: the example row of the sink-logit figure and explorer: eight scores of one query
SINK_ROW = np.array([1.2, 0.3, -0.5, 2.0, 0.8, -1.0, 0.1, 1.5])


def sink_row(sink: float) -> dict:
    """The example row's weights without and with the sink logit ``sink``, and the row's factor."""
    plain = softmax(SINK_ROW)
    with_sink = sink_logit.softmax_with_sink(SINK_ROW, sink)
    return {"plain": plain, "with_sink": with_sink, "factor": float(sink_logit.row_factor(SINK_ROW, sink))}


def sink_rows_figure(sinks=(0.0, 2.0, 4.0)):
    """The example row's weights with no sink and with each sink logit in ``sinks``: bars side by side."""
    fig = new_figure(7.2, 2.8)
    ax = fig.add_subplot()
    x = np.arange(len(SINK_ROW))
    width = 0.8 / (len(sinks) + 1)
    colours = [REFERENCE, BASE, MUTED, ACCENT]
    ax.bar(x - 0.4 + width / 2, sink_row(0.0)["plain"], width, color=colours[0], label="没有汇聚 logit")
    for i, s in enumerate(sinks, start=1):
        row = sink_row(s)
        ax.bar(x - 0.4 + width * (i + 0.5), row["with_sink"], width, color=colours[i % len(colours)],
               label=f"s = {s:g}：每个权重 × {row['factor']:.3f}")
    ax.set_xticks(x, [str(i) for i in x])
    ax.set_xlabel("键的位置")
    ax.set_ylabel("权重")
    ax.set_title("同一行分数，加上汇聚 logit s 以后")
    ax.legend()
    return fig
