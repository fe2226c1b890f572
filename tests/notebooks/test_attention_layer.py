"""``06_attention_layer``: the layer explorer (heads, KV heads, length, RoPE) and the
RoPE wavelength figure."""
import numpy as np
import pytest

from helpers import widgets
from helpers.config import LLAMA_3_1_8B, SMOLLM2_135M
from helpers.explorers.attention_layer import HEAD_DIM, _inputs, _weights
from helpers.figures.attention_layer import ASPECT, columns_for, head_mosaic
from helpers.layer import (
    LayerShape,
    attention_layer,
    rope_wavelengths,
)
from helpers.plots import rope_wavelengths_figure
from helpers.render.controls import AT_MAX


def test_wavelength_figure_shows_both_series_on_a_log_axis():
    cfg = LLAMA_3_1_8B
    fig = rope_wavelengths_figure(cfg)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and "token" in ax.get_ylabel() and ax.get_xlabel()
    plain, scaled = (line.get_ydata() for line in ax.get_lines()[:2])
    np.testing.assert_allclose(plain, rope_wavelengths(cfg.head_dim, cfg.rope_theta))
    np.testing.assert_allclose(scaled, rope_wavelengths(cfg.head_dim, cfg.rope_theta, cfg.rope_scaling))
    assert {round(line.get_ydata()[0]) for line in ax.get_lines()[2:]} == {2048, 8192, 131072}
    with pytest.raises(ValueError, match="config must have a rope_scaling to compare against, got SmolLM2-135M"):
        rope_wavelengths_figure(SMOLLM2_135M)


def test_layer_explorer_each_control():
    e = widgets.attention_layer_explorer()
    assert "128 KiB" in e.readout.value and "[8, 32, 16]" in e.readout.value
    e.controls["kv"].value = 32
    assert "512 KiB" in e.readout.value and "MHA" in e.readout.value
    e.controls["heads"].value = 8  # 32 KV heads no longer divide: clamps to the largest divisor ≤ 32
    assert list(e.controls["kv"].options) == [1, 2, 4, 8] and e.values["kv"] == 8
    e.controls["kv"].value = 1
    assert "MQA" in e.readout.value and "16 KiB" in e.readout.value
    e.controls["n"].value = 12
    e.controls["rope"].value = False
    shape = LayerShape(8 * HEAD_DIM, 8, 1, HEAD_DIM)
    _, attn = attention_layer(_inputs(shape.hidden)[:12], _weights(8, 1), shape, rope_theta=None)
    np.testing.assert_allclose(e.state["attn"], attn)
    assert dict(e.state["trace"])["每个头的分数 / 权重"] == (8, 12, 12)
    assert "RoPE(q)" not in dict(e.state["trace"]) and "RoPE(k)" not in dict(e.state["trace"])

    tiles = head_mosaic(attn, cols=columns_for(8, 12))
    shown = np.ma.filled(np.ma.asarray(e.panel.mosaic.get_array(), dtype=float), np.nan).reshape(tiles.shape)
    np.testing.assert_array_equal(shown, tiles)
    # the tiles fill the box's width (4 × 2 tiles in a 2 : 1 box) and stay inside it
    layout = e.state["layout"]
    assert layout.cols == columns_for(8, 12) and f"每行 {layout.cols} 个" in e.readout.value
    assert (layout.cols, layout.rows) == (4, 2) and layout.cols * layout.unit == pytest.approx(ASPECT)
    corners = e.panel.mosaic.get_coordinates().reshape(-1, 2)
    inside = e.panel.mosaic.get_transform() - e.ax.transData  # mesh → data coordinates
    data = inside.transform(corners)
    assert data[:, 0].min() >= -1e-9 and data[:, 0].max() <= ASPECT + 1e-9
    assert data[:, 1].min() >= -1e-9 and data[:, 1].max() <= 1 + 1e-9
    # settings in the title, heads named per row; MQA: one KV group, no separator
    assert e.settings.get_text() == "查询头 8 · KV 头 1（MQA）· n = 12 · RoPE 关"
    assert [t.get_text() for t in e.panel.row_texts if t.get_visible()] == ["头 0–3", "头 4–7"]
    assert len(e.panel.lines.get_segments()) == 0
    e.controls["kv"].value = 2  # 2 groups of 4 heads = the two rows: one line between them per column
    assert len(e.panel.lines.get_segments()) == 4
    e.controls["rope"].value = True
    assert not np.allclose(e.state["attn"], attn)


def test_the_readout_says_when_a_slider_is_at_its_maximum():
    """A key press at a slider's end changes nothing visible: the readout says so, or the
    learner thinks the key press was lost."""
    e = widgets.attention_layer_explorer()
    n = e.controls["n"]
    assert f"查询头 {AT_MAX}（32）" in e.readout.value  # 32 heads is the default and the last option
    assert f"长度 n {AT_MAX}" not in e.readout.value
    e.set(n=n.max)
    assert f"长度 n {AT_MAX}（{n.max}）" in e.readout.value
    e.set(n=n.max - 1, heads=8)
    assert AT_MAX not in e.readout.value


def test_no_rope_exercise_prints_the_bound_not_the_rounding():
    """06-2's working: "怎么"'s output does not move beyond rounding (the rounding itself, 4e-16 or 0
    depending on the CPU's kernel, is never printed); "年"'s moves by a printed amount."""
    from helpers.exercises import EXERCISES

    answer, working = EXERCISES["06-2"].solve()
    assert answer == "不会" and "“怎么”的输出变化 < 1e-09：是" in working and "输出变化 1.630" in working
    assert "e-1" not in working
