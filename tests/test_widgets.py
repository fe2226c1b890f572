"""Drive every explorer headless: move each control, assert the numbers it then shows."""
import numpy as np
import pytest

import helpers
from helpers import example, scaled_dot_product_attention, widgets
from helpers.render.explorer import Explorer


def shown_numbers(html):
    import re

    return [float(x) for x in re.findall(r"-?\d+\.\d+", re.sub(r"<[^>]+>", " ", html))]


@pytest.mark.parametrize("name", sorted(widgets.all_factories()))
def test_every_factory_builds_an_explorer_with_a_png(name, request):
    factory = widgets.all_factories()[name]
    if getattr(factory, "needs_model", False):
        request.getfixturevalue("needs_model")
    explorer = factory()
    assert isinstance(explorer, Explorer), name
    assert explorer.png.startswith(b"\x89PNG"), name
    assert explorer.image.value == explorer.png


# ---- 00_index ---------------------------------------------------------------------------------
def test_query_weights_explorer_starts_at_article_numbers():
    e = widgets.query_weights_explorer()
    np.testing.assert_allclose(np.round(e.state["weights"], 3), [0.179, 0.735, 0.043, 0.043])
    assert shown_numbers(e.readout.value) == [0.179, 0.735, 0.043, 0.043]


@pytest.mark.parametrize("control, value", [("q1", 0.5), ("q2", 2.0), ("q1", -3.0)])
def test_query_weights_explorer_controls(control, value):
    e = widgets.query_weights_explorer()
    before = e.renders
    e.controls[control].value = value
    assert e.renders == before + 1
    q = np.array([[e.values["q1"], e.values["q2"]]])
    k = example.running_qkv().k
    expected = np.exp(q @ k.T / np.sqrt(2))
    expected /= expected.sum()
    np.testing.assert_allclose(e.state["weights"], expected[0], rtol=1e-12)
    assert shown_numbers(e.readout.value) == [round(x, 3) for x in expected[0]]
    # the bar heights on the figure follow
    heights = [bar.get_height() for bar in e.bars.bars]
    np.testing.assert_allclose(heights, expected[0])


def test_explorer_set_batches_one_update_and_rejects_unknown():
    e = widgets.query_weights_explorer()
    before = e.renders
    e.set(q1=0.0, q2=2.0)
    assert e.renders == before + 1
    assert np.argmax(e.state["weights"]) == 2  # q = [0, 2] points at 怎么's key
    with pytest.raises(ValueError, match="unknown control"):
        e.set(q3=1.0)


@pytest.mark.parametrize("factory", [widgets.query_weights_explorer, widgets.hand_calculation_explorer])
def test_orange_highlight_follows_the_largest_weight(factory):
    from matplotlib.colors import to_hex

    from helpers.plots import ACCENT

    e = factory()
    for q, expected in (((2.0, 0.0), [1]), ((0.0, 2.0), [2]), ((-2.0, -2.0), [3]), ((0.0, 0.0), [0, 1, 2, 3])):
        e.set(q1=q[0], q2=q[1])
        weights = e.state["weights"] if isinstance(e.state, dict) else e.state.weights
        orange = [i for i, bar in enumerate(e.bars.bars) if to_hex(bar.get_facecolor()) == ACCENT]
        assert orange == expected == [i for i, w in enumerate(weights) if w >= max(weights) - 1e-12], q


def test_orange_means_only_the_largest_weight_in_00_to_03():
    """q's arrows (02) and the weighted parts (03) take other colours than the highlight."""
    from helpers.render import palette

    assert palette.ACCENT not in palette.QKV_COLORS
    assert palette.ACCENT not in palette.PART_COLORS
    e = widgets.hand_calculation_explorer()
    part_colours = {a.arrow_patch.get_edgecolor() for a in e.vectors.arrows}
    from matplotlib.colors import to_rgba

    assert to_rgba(palette.ACCENT) not in part_colours


def test_titles_name_the_current_setting_so_the_preview_says_what_it_shows():
    e = widgets.query_weights_explorer()
    assert "q = [2.0, 0.0]" in e.bars.ax.get_title()
    e.set(q1=0.0, q2=2.0)
    assert "q = [0.0, 2.0]" in e.bars.ax.get_title()
    e = widgets.qkv_explorer()
    assert "[0.0, 0.0, 0.0, 1.0]（申请）" in e.panel.ax.get_title()
    e.actions["token"].value = "假"
    assert "[2.0, 0.0, 0.0, 0.0]（假）" in e.panel.ax.get_title()
    e.set(x0=0.5)
    assert e.panel.ax.get_title().endswith("[0.5, 0.0, 0.0, 0.0]")  # no token has this input


def test_a_short_arrow_gets_a_head_no_longer_than_half_of_it():
    """03's two 0.043 parts: a full-size head would reach back past their start (below zero)."""
    e = widgets.hand_calculation_explorer()
    ax = e.vectors.ax
    starts, ends = helpers.render.panels.arrow_points(np.vstack([e.state.parts, e.state.output]), chain=True)
    for arrow, start, end in zip(e.vectors.arrows, starts, ends):
        length_pt = np.hypot(*(ax.transData.transform(end) - ax.transData.transform(start))) * 72 / ax.figure.dpi
        head_pt = 0.4 * arrow.arrowprops["mutation_scale"]
        assert head_pt <= max(length_pt / 2, 0.05) + 1e-9
        if length_pt > 20:
            assert arrow.arrowprops["mutation_scale"] == helpers.render.panels.HEAD_SCALE  # long arrows keep full heads


def test_naive_mode_shows_the_same_numbers():
    fast, naive = widgets.query_weights_explorer(), widgets.query_weights_explorer(naive=True)
    for e in (fast, naive):
        e.set(q1=-1.0, q2=1.5)
    np.testing.assert_array_equal(fast.state["weights"], naive.state["weights"])
    assert fast.readout.value == naive.readout.value
    assert naive.fig is not fast.fig


def test_state_is_cached_per_control_values():
    e = widgets.query_weights_explorer()
    e.set(q1=1.0)
    first = e.state
    e.set(q1=1.5)
    e.set(q1=1.0)
    assert e.state is first


# ---- 01_weighted_average -----------------------------------------------------------------------
@pytest.mark.parametrize("control", ["w0", "w1", "w2", "w3"])
def test_weighted_average_explorer_each_control(control):
    e = widgets.weighted_average_explorer()
    e.controls[control].value = 1.0
    raw = np.array([e.values[f"w{i}"] for i in range(4)])
    expected_w = raw / raw.sum()
    np.testing.assert_allclose(e.state["weights"], expected_w)
    np.testing.assert_allclose(e.state["vector"], expected_w @ example.X)
    shown = shown_numbers(e.readout.value)
    assert shown[0] == 1.0  # the sum after renormalising
    assert shown[1:5] == [round(x, 3) for x in expected_w]
    assert shown[5:] == [round(x, 3) for x in expected_w @ example.X]
    np.testing.assert_allclose([b.get_height() for b in e.vector_bars.bars], expected_w @ example.X)


def test_weighted_average_explorer_all_zero_gives_equal_weights():
    e = widgets.weighted_average_explorer()
    e.set(w0=0.0, w1=0.0, w2=0.0, w3=0.0)
    np.testing.assert_allclose(e.state["weights"], 0.25)


# ---- 02_qkv ----------------------------------------------------------------------------------
@pytest.mark.parametrize("control, value", [("x0", 2.0), ("x1", -1.0), ("x2", 1.5), ("x3", 0.0)])
def test_qkv_explorer_each_feature(control, value):
    e = widgets.qkv_explorer()
    e.controls[control].value = value
    x = np.array([e.values[f"x{i}"] for i in range(4)])
    for name, w in (("q", example.W_Q), ("k", example.W_K), ("v", example.W_V)):
        np.testing.assert_allclose(e.state[name], x @ w)
    import re

    shown = re.search(r'class="k">k = \[([^\]]+)\]', e.readout.value).group(1)
    assert [float(s) for s in shown.split(",")] == [round(c, 2) for c in x @ example.W_K]


def test_qkv_explorer_token_picker_loads_rows_of_x():
    e = widgets.qkv_explorer()
    for token in example.TOKENS:
        e.actions["token"].value = token
        np.testing.assert_array_equal(e.state["x"], example.X[example.query_index(token)])
        np.testing.assert_array_equal(e.state["q"], example.running_qkv().q[example.query_index(token)])


# ---- 03_hand_calculation -----------------------------------------------------------------------
def reference_row(q, k, v):
    scores = k @ q / np.sqrt(2)
    w = np.exp(scores) / np.exp(scores).sum()
    return w, w @ v


def test_hand_explorer_q_sliders():
    e = widgets.hand_calculation_explorer()
    qkv = example.running_qkv()
    e.controls["q1"].value = 1.0
    e.controls["q2"].value = 0.5
    w, out = reference_row(np.array([1.0, 0.5]), qkv.k, qkv.v)
    np.testing.assert_allclose(e.state.weights, w)
    np.testing.assert_allclose(e.state.output, out)
    assert f"假 {w[1]:.3f}" in e.readout.value
    assert f"[{out[0]:.3f}, {out[1]:.3f}]" in e.readout.value


@pytest.mark.parametrize("token", ["年", "怎么", "申请"])
def test_hand_explorer_k_and_v_of_any_token(token):
    e = widgets.hand_calculation_explorer()
    qkv = example.running_qkv()
    e.actions["token"].value = token
    i = example.query_index(token)
    assert (e.values["k1"], e.values["k2"]) == tuple(qkv.k[i])
    e.controls["k1"].value = 3.0
    e.controls["v2"].value = -2.0
    k, v = qkv.k.copy(), qkv.v.copy()
    k[i, 0] = 3.0
    v[i, 1] = -2.0
    w, out = reference_row(qkv.q[3], k, v)
    np.testing.assert_allclose(e.state.weights, w)
    np.testing.assert_allclose(e.state.output, out)
    np.testing.assert_allclose(e.state.dots, k @ qkv.q[3])
    # switching token keeps the edit; reset restores the article's numbers
    e.actions["token"].value = "假"
    np.testing.assert_allclose(e.state.weights, w)
    e.actions["reset"].click()
    assert [round(x, 3) for x in e.state.weights] == [0.179, 0.735, 0.043, 0.043]
    assert [round(x, 3) for x in e.state.output] == [1.648, 0.087]


def test_hand_explorer_figure_follows_state():
    e = widgets.hand_calculation_explorer()
    e.set(q1=-1.0, q2=2.0)
    np.testing.assert_allclose([b.get_height() for b in e.bars.bars], e.state.weights)
    tip = e.vectors.arrows[-1].xy
    np.testing.assert_allclose(tip, e.state.output)


# ---- 04_sqrt_d ------------------------------------------------------------------------------
def test_sqrt_d_explorer_each_control():
    from helpers.attention import softmax

    e = widgets.sqrt_d_explorer()
    pool = e.pool
    for values in ({"d": 1024}, {"n": 1000}, {"scaled": False}, {"d": 2, "n": 2, "scaled": True}):
        e.set(**values)
        d, n, scaled = e.values["d"], e.values["n"], e.values["scaled"]
        scores = pool.scores(n, d) / (np.sqrt(d) if scaled else 1.0)
        expected = softmax(scores).max(axis=-1).mean()
        assert e.state["mean_max"] == pytest.approx(expected, rel=1e-12)
        assert e.state["score_std"] == pytest.approx(np.std(scores), rel=1e-12)
        assert f'class="maxw">{expected:.3f}' in e.readout.value
        top = np.sort(softmax(scores)[0])[::-1][:10]
        np.testing.assert_allclose([b.get_height() for b in e.top_bars][: len(top)], top)


def test_sqrt_d_explorer_title_and_histogram_follow_the_switch():
    e = widgets.sqrt_d_explorer()
    assert e.settings.get_text() == "d = 128 · n = 5 · 除以 √d：分数 = q·k/√d"
    # the axis is ±4√d in both modes: scaled scores (std 1) fill ±4, i.e. ±1/√d of it
    assert np.abs(e.state["edges"]).max() == pytest.approx(1 / np.sqrt(128))
    e.set(scaled=False)
    assert e.settings.get_text() == "d = 128 · n = 5 · 不缩放：分数 = 原始分数 q·k"
    assert np.abs(e.state["edges"]).max() == pytest.approx(1.0)
    assert [t.get_text() for t in e.ax_hist.get_xticklabels()] == ["−4√d", "−2√d", "0", "2√d", "4√d"]


def test_sqrt_d_explorer_unscaled_collapses():
    e = widgets.sqrt_d_explorer()
    e.set(d=1024, n=5, scaled=False)
    assert e.state["mean_max"] > 0.9
    e.set(scaled=True)
    assert e.state["mean_max"] < 0.6
    assert e.state["score_std"] == pytest.approx(1.0, abs=0.15)


# ---- 05_causal_mask -----------------------------------------------------------------------
def test_causal_explorer_each_control():
    e = widgets.causal_mask_explorer()
    qkv = example.running_qkv()
    # mask off: the 假 row puts 0.578 on 怎么
    e.set(causal=False, row=1)
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    np.testing.assert_allclose(e.state["weights"], w)
    assert "怎么 0.578" in e.readout.value
    # mask on: 怎么's row
    e.set(causal=True, row=2)
    assert "年 0.284 · 假 0.576 · 怎么 0.140" in e.readout.value
    # append tokens: with the mask earlier outputs do not change; without they do
    e.controls["extra"].value = 4
    assert len(e.state["tokens"]) == 8 and e.state["change"] == 0.0
    assert 'class="change">0.000' in e.readout.value
    e.controls["causal"].value = False
    tokens, qkv8 = example.extended_qkv(4)
    before, _ = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    after, _ = scaled_dot_product_attention(qkv8.q, qkv8.k, qkv8.v)
    change = np.abs(after[:4] - before).max()
    assert e.state["change"] == pytest.approx(change) and change > 0.05
    # the highlighted row follows the slider; shrinking the sequence clamps the slider to it
    e.set(row=7)
    e.set(extra=0)
    assert e.controls["row"].max == 3 and e.state["row"] == 3
    assert e.heat.row_box.get_y() == pytest.approx(2.5)
    with pytest.raises(ValueError, match="row"):  # a row past the sequence is refused, not shown as another
        e.set(row=7)


# ---- 06_attention_layer --------------------------------------------------------------------
def test_layer_explorer_each_control():
    from helpers.explorers.attention_layer import HEAD_DIM, _inputs, _weights
    from helpers.layer import LayerShape, attention_layer

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
    from helpers.explorers.attention_layer import ASPECT, columns_for
    from helpers.figures.attention_layer import head_mosaic

    tiles = head_mosaic(attn, cols=columns_for(8, 12))
    shown = np.ma.filled(np.ma.asarray(e.mosaic.get_array(), dtype=float), np.nan).reshape(tiles.shape)
    np.testing.assert_array_equal(shown, tiles)
    # the tiles fill the box's width (4 × 2 tiles in a 2 : 1 box) and stay inside it
    layout = e.state["layout"]
    assert (layout.cols, layout.rows) == (4, 2) and layout.cols * layout.unit == pytest.approx(ASPECT)
    corners = e.mosaic.get_coordinates().reshape(-1, 2)
    inside = e.mosaic.get_transform() - e.ax.transData  # mesh → data coordinates
    data = inside.transform(corners)
    assert data[:, 0].min() >= -1e-9 and data[:, 0].max() <= ASPECT + 1e-9
    assert data[:, 1].min() >= -1e-9 and data[:, 1].max() <= 1 + 1e-9
    # settings in the title, heads named per row; MQA: one KV group, no separator
    assert e.settings.get_text() == "查询头 8 · KV 头 1（MQA）· n = 12 · RoPE 关"
    assert [t.get_text() for t in e.row_texts if t.get_visible()] == ["头 0–3", "头 4–7"]
    assert len(e.lines.get_segments()) == 0
    e.controls["kv"].value = 2  # 2 groups of 4 heads = the two rows: one line between them per column
    assert len(e.lines.get_segments()) == 4
    e.controls["rope"].value = True
    assert not np.allclose(e.state["attn"], attn)


# ---- 07_cost_of_length ----------------------------------------------------------------------
def test_cost_explorer_each_control():
    from helpers import config, cost

    e = widgets.cost_explorer()
    assert "4.3</span> GFLOPs" in e.readout.value and "14%" in e.readout.value
    e.controls["n"].value = 131072
    assert "68.7</span>" in e.readout.value and "2.3×" in e.readout.value and "16 GiB" in e.readout.value
    e.controls["model"].value = "Llama-3.2-1B"
    cfg = config.preset("Llama-3.2-1B")
    assert e.state["attn"] == cost.attention_flops_per_token(cfg, 131072)
    assert f"{cost.weight_flops_per_token(cfg) / 1e9:.1f} GFLOPs/token" in e.readout.value
    e.controls["dtype"].value = "fp32"
    assert e.state["cache"] == cost.kv_cache_bytes(cfg, 131072, dtype="fp32")
    e.controls["batch"].value = 4
    assert e.state["table"] == 4 * cfg.num_heads * 131072 ** 2 * 4
    np.testing.assert_allclose(e.cache_line.get_ydata()[-1], 4 * 2 ** 20 * cost.kv_cache_bytes_per_token(cfg, dtype="fp32"))
    assert list(e.markers[0].get_xdata()) == [131072, 131072]


def test_online_softmax_explorer_block_control():
    from helpers import softmax

    e = widgets.online_softmax_explorer()
    for block in (1, 5, 16):
        e.controls["block"].value = block
        assert len(e.state["steps"]) == -(-16 // block)
        rng = np.random.default_rng(7)
        scores = rng.standard_normal(16) * 2.0
        values = rng.standard_normal((16, 2))
        np.testing.assert_allclose(e.state["steps"][-1].output, softmax(scores) @ values, atol=1e-12)
        assert e.state["steps"][0].running_max == scores[:block].max()
        assert "1e-12：是" in e.readout.value


# ---- 08_reading_attention ---------------------------------------------------------------------
def test_sink_explorer_each_control():
    from helpers import reading

    e = widgets.sink_explorer()
    for values in ({"strength": 0.0}, {"window": 3}, {"strength": 8.0, "window": 12}):
        e.set(**values)
        strength, window = e.values["strength"], e.values["window"]
        seq = reading.sink_sequence(24, strength=strength)
        only = reading.eviction_change(seq, window, keep_first=0)
        np.testing.assert_allclose(e.state["only"], only)
        assert f"class='only'>{only[window:].mean():.3f}" in e.readout.value
        np.testing.assert_allclose(e.panels.only_line.get_ydata(), only)
    assert e.state["first_col"] > 0.95


def test_influence_explorer_control():
    from helpers import reading

    e = widgets.influence_explorer()
    assert "by-influence'>4 > 0" in e.readout.value
    e.controls["value_scale"].value = 3.0
    ex = reading.weight_vs_influence_example(3.0)
    np.testing.assert_allclose([b.get_height() for b in e.panels.influence_bars.bars], ex["influence"])
    assert "by-influence'>0 >" in e.readout.value


def test_dilution_explorer_each_control():
    from helpers import reading

    e = widgets.dilution_explorer()
    e.controls["n"].value = 131072
    e.controls["delta"].value = 10.0
    expected = float(reading.dilution_weight(10.0, 131072, sigma=0.5))
    assert f"class='closed'>{expected:.3f}" in e.readout.value
    assert e.state["simulated"] == pytest.approx(expected, abs=0.02)
    assert e.point.get_xdata()[0] == 131072


# ---- 09_real_model -----------------------------------------------------------------------------
def test_real_attention_explorer_each_control(needs_model):
    from helpers import real_model, texts

    e = widgets.real_attention_explorer()
    model = real_model.load_model()
    ids = real_model.encode(model, texts.HEATMAP_TEXT)
    weights = real_model.forward(model, ids).weights
    e.controls["layer"].value = 20
    e.controls["head"].value = 7
    np.testing.assert_allclose(e.state["weights"], weights[20][7])
    assert e.state["kv_head"] == 2
    assert f"class='first'>{weights[20][7][4:, 0].mean():.3f}" in e.readout.value
    np.testing.assert_allclose(e.heat.get_array(), weights[20][7])
