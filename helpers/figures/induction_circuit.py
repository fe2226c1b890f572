"""``13_induction_circuit``: its figures. Its static figures are ``12_heads_at_work``'s head patterns
and null distributions again (:func:`helpers.figures.heads_at_work.patterns_figure` and
:func:`helpers.figures.heads_at_work.null_figure`); its explorer's second panel lives here.

:class:`ScreenPanel` draws one sender screen: the receiver's induction score with each earlier head
removed from one of its inputs, the senders in layer order along x, the chosen sender in the accent
colour, the score with nothing removed as a dashed line, and the chosen sender's random-direction
control as a purple bar from its lowest to its highest draw. :func:`screen_layout` says where each
mark goes, so that the explorer's live page (:mod:`helpers.render.web`) draws the same marks.
"""
from __future__ import annotations

import numpy as np

from ..render.palette import ACCENT, BLACK, DARK_GREY, MUTED
from ..render.validation import as_real_array, integer, positive_int

#: what the panel's marks mean (its legend; the live page's legend says the same)
SCREEN_LABELS = {"senders": "去掉一个发送者（每个点一个）", "chosen": "选中的发送者",
                 "clean": "不去掉", "control": "同样长的随机方向（最低–最高）"}
#: the panel's score axis: an induction score is a weight (0–1), with a margin below so that a
#: dot at about 0 shows whole above the axis line
SCORE_RANGE = (-0.05, 1.0)
#: every how many layers the sender axis is labelled, counted back from its last layer, so that
#: the layer just below the receiver is labelled
LAYER_TICKS = 2
#: the sender axis's margin on each side, as a share of the senders: the dot and the control bar
#: of the first and the last sender stay inside the frame
SENDER_MARGIN = 0.03


def screen_layout(screen, chosen, directions) -> dict:
    """Where :class:`ScreenPanel` puts each mark: ``screen`` ``(layers, heads)`` the receiver's score
    with each sender removed, ``chosen`` ``(layer, head)``, ``directions`` the chosen sender's
    random-direction control (empty: none). Returns ``x`` (sender ``(l, h)`` at ``l · heads + h``),
    ``y``, the chosen point ``(x, y)``, the control's ``(low, high)`` or ``None``, the axis's
    ``ticks`` ``[(x, layer label), …]`` and its ``xlim``."""
    screen = as_real_array("screen", screen, ndim=2)
    layers, heads = screen.shape
    layer = integer("chosen[0]", chosen[0], low=0, high=layers - 1)
    head = integer("chosen[1]", chosen[1], low=0, high=heads - 1)
    directions = as_real_array("directions", directions, ndim=1, allow_empty=True)
    x = layer * heads + head
    return {"x": np.arange(screen.size), "y": screen.ravel(), "chosen": (x, float(screen[layer, head])),
            "control": (float(directions.min()), float(directions.max())) if directions.size else None,
            "ticks": [(lay * heads, str(lay)) for lay in _tick_layers(layers)], "count": screen.size,
            "xlim": sender_limits(screen.size)}


def _tick_layers(layers: int) -> list:
    """The layers the sender axis labels: every :data:`LAYER_TICKS`-th, counted back from the last
    one, so that the last is labelled and no two labels crowd each other."""
    return list(range((layers - 1) % LAYER_TICKS, layers, LAYER_TICKS))


def sender_limits(count: int) -> tuple:
    """The sender axis's limits for ``count`` senders at x = 0 … count − 1, with
    :data:`SENDER_MARGIN` on each side."""
    pad = max(1.0, SENDER_MARGIN * positive_int("count", count))
    return (-pad, count - 1 + pad)


class ScreenPanel:
    """One sender screen on ``ax`` for ``layers × heads`` senders (see the module docstring);
    :meth:`update` moves the dots, the chosen sender, the control bar and the clean line."""

    def __init__(self, ax, layers: int, heads: int, *, title=""):
        layers, heads = positive_int("layers", layers), positive_int("heads", heads)
        count = layers * heads
        self.ax = ax
        (self.dots,) = ax.plot([], [], ls="none", marker="o", ms=2.6, color=DARK_GREY, label=SCREEN_LABELS["senders"])
        xlim = sender_limits(count)
        (self.clean,) = ax.plot(list(xlim), [0, 0], ls="--", lw=1.2, color=BLACK, label=SCREEN_LABELS["clean"])
        (self.control,) = ax.plot([], [], lw=6, color=MUTED, solid_capstyle="butt", label=SCREEN_LABELS["control"])
        (self.chosen,) = ax.plot([], [], ls="none", marker="o", ms=7, color=ACCENT, label=SCREEN_LABELS["chosen"],
                                 zorder=4)
        ax.set_xlim(*xlim)
        ax.set_ylim(*SCORE_RANGE)
        ax.set_xticks([lay * heads for lay in _tick_layers(layers)], [str(lay) for lay in _tick_layers(layers)])
        ax.set_xlabel(f"发送者所在的层（每层 {heads} 个头）")
        ax.set_ylabel("接收者的归纳分数")
        ax.legend(fontsize=9, loc="lower left")
        ax.spines[["top", "right"]].set_visible(False)
        self.title = ax.set_title(title, fontsize=9)

    @property
    def artists(self) -> list:
        """What :meth:`update` changes (an explorer animates them)."""
        return [self.dots, self.clean, self.control, self.chosen, self.title]

    def update(self, screen, chosen, directions, clean: float, title=None):
        """Show ``screen`` with ``chosen`` marked, its control ``directions`` and the ``clean`` score."""
        where = screen_layout(screen, chosen, directions)
        self.dots.set_data(where["x"], where["y"])
        self.chosen.set_data([where["chosen"][0]], [where["chosen"][1]])
        self.clean.set_ydata([clean, clean])
        low_high = where["control"]
        self.control.set_data(*(([where["chosen"][0]] * 2, list(low_high)) if low_high else ([], [])))
        if title is not None:
            self.title.set_text(title)
