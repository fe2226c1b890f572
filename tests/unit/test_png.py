"""helpers.render.png.plotted: figures drawn from real-model numbers round what they draw."""
import numpy as np
import pytest

from helpers import plots
from helpers.render.png import figure_png, new_figure, plotted, png_size, rgba_png


def test_plotted_rounds_to_the_step_and_checks_it():
    np.testing.assert_allclose(plotted([1.23456, -2.0049], 0.01), [1.23, -2.0])
    assert plotted(np.float32(0.5004), 1e-3) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="step"):
        plotted([1.0], 0.0)


def test_the_last_float32_bits_leave_the_loss_and_null_figures_alone():
    """Another CPU's kernels move live losses by ~1e-5 nats: the same PNG bytes."""
    rng = np.random.default_rng(0)
    curves = {"a": rng.uniform(0.5, 6, 32).round(3) + 2e-4, "b": rng.uniform(0.5, 6, 32).round(3) + 2e-4}
    moved = {k: v + rng.uniform(-2e-5, 2e-5, v.shape) for k, v in curves.items()}
    assert figure_png(plots.copy_loss_figure(curves, 16)) == figure_png(plots.copy_loss_figure(moved, 16))
    null = rng.normal(size=270).round(3) + 2e-4
    mark = {"x": 0.4312}
    draw = lambda n, m: figure_png(plots.null_figure([("t", n, m)], "损失变化"))  # noqa: E731
    assert draw(null, mark) == draw(null + 1e-5, {"x": 0.4312 + 1e-5})


def test_rgba_png_encodes_the_pixels_the_canvas_holds_after_a_savefig_at_another_dpi():
    """figure_png(fig, dpi=…) leaves the canvas holding that render; rgba_png encodes those pixels
    at their own size (it read the size from the figure and failed to reshape them)."""
    fig = new_figure(2, 2)
    with pytest.raises(ValueError, match="canvas"):
        rgba_png(fig.canvas)  # never drawn: no pixels yet
    fig.canvas.draw()
    assert png_size(rgba_png(fig.canvas)) == (384, 384)
    figure_png(fig, dpi=100)
    assert png_size(rgba_png(fig.canvas)) == (200, 200)
