"""helpers.render.text_stamps: stamped text looks like drawn text, and costs less."""
from __future__ import annotations

import builtins
import io

import numpy as np
import pytest

import helpers
from helpers import widgets
from helpers.display import new_figure, rgba_png
from helpers.render.text_stamps import TextStamps

helpers.setup()


def pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def blurred(x: np.ndarray, k: int = 2) -> np.ndarray:
    """Grey levels averaged over (2k+1)² pixels: what the eye sees of anti-aliased glyph edges."""
    grey = x.mean(axis=2)
    c = np.cumsum(np.cumsum(np.pad(grey, ((k + 1, k), (k + 1, k)), mode="edge"), 0), 1)
    n = 2 * k + 1
    return (c[n:, n:] - c[:-n, n:] - c[n:, :-n] + c[:-n, :-n]) / n / n


#: stamped and drawn text differ only in sub-pixel anti-aliasing: blurred grey levels within 50
#: (measured 16–36); the same text placed one pixel off differs by 70–100
SAME_LOOK = 50


def best_shift(a: np.ndarray, b: np.ndarray, bbox, reach: int = 3) -> tuple:
    """``((dx, dy), mean |a − b|)`` for the pixel shift of ``b`` that best matches ``a`` around
    ``bbox`` (display coordinates, y up)."""
    height = a.shape[0]
    x0, x1 = int(bbox.x0) - 4, int(bbox.x1) + 5
    y0, y1 = int(height - bbox.y1) - 4, int(height - bbox.y0) + 5
    x0, y0 = max(x0, reach), max(y0, reach)
    x1, y1 = min(x1, a.shape[1] - reach), min(y1, height - reach)
    crop = a[y0:y1, x0:x1]
    scores = {(dx, dy): float(np.abs(crop - b[y0 + dy:y1 + dy, x0 + dx:x1 + dx]).mean())
              for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1)}
    shift = min(scores, key=scores.get)
    return shift, scores[shift]


def look_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(blurred(a) - blurred(b)).max())


def render_both(explorer):
    stamped = pixels(explorer.render())
    explorer.text_stamps = False
    try:
        drawn = pixels(explorer.render())
    finally:
        explorer.text_stamps = True
    return stamped, drawn


@pytest.mark.parametrize("name", ["hand_calculation_explorer", "causal_mask_explorer", "sqrt_d_explorer",
                                  "learning_explorer", "query_weights_explorer"])
def test_stamped_text_looks_like_drawn_text(name):
    explorer = widgets.all_factories()[name]()
    stamped_texts = [a for a in explorer._animated if explorer._stamps.can_stamp(a) and a.get_visible() and a.get_text()]
    assert stamped_texts, f"{name} has no animated text to stamp"
    stamped, drawn = render_both(explorer)
    assert stamped.shape == drawn.shape
    renderer = explorer.fig.canvas.get_renderer()
    for text in stamped_texts:  # each string lands within one pixel of where matplotlib puts it
        shift, residual = best_shift(stamped, drawn, text.get_window_extent(renderer))
        assert max(abs(shift[0]), abs(shift[1])) <= 1 and residual < 8, (text.get_text(), shift, residual)
    # and the text is really there: blanking every stamped string changes the picture
    saved = [t.get_text() for t in stamped_texts]
    for t in stamped_texts:
        t.set_text("")
    blank = pixels(explorer.render())
    for t, s in zip(stamped_texts, saved):
        t.set_text(s)
    assert np.abs(blank - stamped).max() > 100


def test_a_string_is_rasterised_once_and_coloured_on_each_stamp():
    fig = new_figure(3, 1.5)
    fig.canvas.draw()
    stamps = TextStamps(fig.dpi)
    text = fig.text(0.5, 0.5, "0.735", ha="center", va="center", color="red", fontsize=12)
    calls = []
    original = stamps._scratch.draw_artist
    stamps._scratch.draw_artist = lambda artist: (calls.append(artist), original(artist))
    assert stamps.draw(text, fig.canvas)
    text.set_color("blue")
    text.set_x(0.2)
    assert stamps.draw(text, fig.canvas)
    assert len(calls) == 1
    rgb = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(int)
    assert ((rgb[..., 2] > 200) & (rgb[..., 0] < 60)).any()  # blue ink
    assert ((rgb[..., 0] > 200) & (rgb[..., 2] < 60)).any()  # the red one stamped before it


def test_text_a_stamp_cannot_reproduce_is_left_to_matplotlib():
    fig = new_figure(3, 1.5)
    fig.canvas.draw()
    stamps = TextStamps(fig.dpi)
    boxed = fig.text(0.5, 0.5, "框", bbox={"facecolor": "yellow"})
    long = fig.text(0.0, 0.5, "很长的一行字" * 20, fontsize=12)
    assert not stamps.draw(boxed, fig.canvas)
    assert not stamps.draw(long, fig.canvas)  # wider than the scratch canvas


def test_stamped_text_is_clipped_to_its_clip_box():
    fig = new_figure(3, 1.5)
    fig.set_layout_engine("none")
    ax = fig.add_axes((0.1, 0.1, 0.5, 0.8))
    fig.canvas.draw()
    clean = np.asarray(fig.canvas.buffer_rgba()).copy()
    stamps = TextStamps(fig.dpi)
    text = ax.text(1.2, 0.5, "88888", clip_on=True, fontsize=14)  # anchored right of the axes
    assert stamps.draw(text, fig.canvas)
    after = np.asarray(fig.canvas.buffer_rgba())
    assert np.array_equal(after, clean)


@pytest.mark.parametrize("name, control, values", [
    ("causal_mask_explorer", "extra", [1, 2, 3, 0, 2]),
    ("sqrt_d_explorer", "n", [3, 7, 9, 2, 1000, 4]),
])
def test_no_move_waits_for_a_full_redraw(name, control, values):
    explorer = widgets.all_factories()[name]()
    draws = []
    original = explorer.fig.canvas.draw
    explorer.fig.canvas.draw = lambda *a, **k: (draws.append(1), original(*a, **k))
    for value in values:
        explorer.controls[control].value = value
    assert draws == []  # every static look was drawn when the explorer was made
    # and the remembered background is the right one: same picture as a full redraw
    explorer.fig.canvas.draw = original
    fast = pixels(explorer.png)
    explorer.invalidate_background()
    explorer.text_stamps = False
    slow = pixels(explorer.render())
    assert look_difference(fast, slow) < SAME_LOOK


def test_png_encoder_round_trips_with_and_without_isal(monkeypatch):
    fig = new_figure(2, 1)
    fig.add_subplot().plot([0, 1], [1, 0])
    fig.canvas.draw()
    want = np.asarray(fig.canvas.buffer_rgba())
    assert np.array_equal(pixels(rgba_png(fig.canvas)), want[..., :3].astype(int))
    real_import = builtins.__import__

    def no_isal(name, *args, **kwargs):
        if name.startswith("isal"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_isal)
    assert np.array_equal(pixels(rgba_png(fig.canvas)), want[..., :3].astype(int))
