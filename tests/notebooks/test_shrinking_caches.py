"""``14_shrinking_caches``: its three explorers driven control by control, its figures' numbers, its
predictions' answers, and the stored SmolLM2 runs — one sampled run recomputed against the file."""
import numpy as np
import pytest

from helpers import exercises, texts, widgets
from helpers.exercises import shrinking_caches
from helpers.figures import shrinking_caches as figures
from helpers.smaller_cache import latent, streaming
from tools.series import NOTEBOOKS


def test_the_notebook_is_listed_and_its_exercises_carry_its_number():
    assert "14_shrinking_caches" in NOTEBOOKS
    assert all(key.startswith("14-") for key in shrinking_caches.EXERCISES), sorted(shrinking_caches.EXERCISES)
    assert set(shrinking_caches.CODE_EXERCISES) == {"14-4", "14-5"}


def test_latent_cache_explorer_each_control():
    e = widgets.latent_cache_explorer()
    assert e.state["expanded"] == 40960 and e.state["small"] == 576
    assert "40,960" in e.readout.value and "576" in e.readout.value and "71.1" in e.readout.value
    e.controls["heads"].value = 16
    assert e.state["expanded"] == 16 * 320 and e.state["small"] == 576   # the latent does not depend on the heads
    e.controls["latent"].value = 1024
    assert e.state["small"] == 1024 + 64 and e.state["query"] == 1088
    e.controls["rope"].value = 128
    assert e.state["key_width"] == 256 and e.state["expanded"] == 16 * (256 + 128)
    assert e.bars[1].get_x() + e.bars[1].get_width() == 1024 + 128   # the bar ends at the value (log axis)


def test_streaming_explorer_each_control():
    e = widgets.streaming_explorer()
    stored = streaming.load()
    assert e.state["ppl"] == pytest.approx(stored.perplexity(32, 4, "cache"))
    assert f"{stored.perplexity(32, 4, 'cache'):.2f}" in e.readout.value
    e.controls["positions"].value = "text"
    assert e.state["ppl"] == pytest.approx(stored.perplexity(32, 4, "text"))
    e.controls["sinks"].value = 0
    assert e.state["ppl"] == pytest.approx(stored.perplexity(32)) and "按" not in e.readout.value
    assert e.state["alone_ppl"] == pytest.approx(stored.perplexity(32))
    assert list(e.marker.get_xdata()) == [32, 32]
    x, y = figures.smoothed(stored.of(32))
    np.testing.assert_allclose(e.line.get_ydata(), y)


def test_sink_logit_explorer_each_control():
    e = widgets.sink_logit_explorer()
    for sink in (-4.0, 0.0, 2.0, 8.0):
        e.controls["sink"].value = sink
        row = figures.sink_row(sink)
        np.testing.assert_allclose(row["with_sink"], row["plain"] * row["factor"], atol=1e-15)
        assert e.state["top"] == int(np.argmax(figures.SINK_ROW))   # the sink never moves the largest weight
        assert f"{row['factor']:.3f}" in e.readout.value


def test_cache_widths_are_the_lessons_numbers():
    widths = dict((label.split("（")[0], v) for label, v in figures.cache_widths())
    assert widths == {"展开成每头 K、V": 40960, "Llama-3.1-8B 的 GQA": 2048, "MLA 的潜在向量": 576}


def test_predictions_are_answered_from_computation(capsys):
    assert exercises.check("14-1", 1).ok is True and exercises.check("14-1", 8).ok is False
    assert exercises.check("14-2", "否").ok is True
    out = capsys.readouterr().out
    assert "第 0 层 < 1e-10" in out
    assert exercises.check("14-3", "不会").ok is True and exercises.check("14-3", "会").ok is False


def test_the_code_exercises_inputs_match_their_labels():
    for label, n, heads, nope, rope, r, dv, seed in shrinking_caches.MLA_SPECS:
        q_nope, q_pe, c_kv, k_pe, w_uk, w_uv = shrinking_caches.mla_inputs(n, heads, nope, rope, r, dv, seed)
        assert q_nope.shape == (n, heads, nope) and c_kv.shape == (n, r) and w_uv.shape == (heads, dv, r), label
    for label, kept, heads, d, theta, seed in shrinking_caches.STREAM_SPECS:
        q, k, v, positions, _ = shrinking_caches.stream_inputs(kept, heads, d, theta, seed)
        assert q.shape == (heads, d) and k.shape == (len(kept), heads, d) and list(positions) == list(kept), label


def test_the_mla_reference_is_the_lessons_absorbed_layer():
    shape = latent.SMALL
    w = latent.random_mla(shape, seed=2)
    x = np.random.default_rng(3).standard_normal((5, shape.hidden))
    p = latent.project(x, w, shape)
    out, q_latent = shrinking_caches.CODE_EXERCISES["14-4"].reference(p.q_nope, p.q_pe, p.c_kv, p.k_pe,
                                                                       *w.up_projections(shape))
    naive, _ = latent.mla_naive(x, w, shape)
    # float64 sums of a few hundred products: the two orders differ by rounding only
    assert np.abs(out.reshape(5, -1) @ w.w_o - naive).max() < 1e-10
    assert q_latent.shape == (5, shape.num_heads, shape.kv_lora_rank)


@pytest.mark.model
@pytest.mark.slow
def test_a_sampled_stored_run_is_recomputed():
    """The first 160 tokens of two stored runs, recomputed now: a causal model's first 160 losses
    depend only on the first 160 tokens, so they must be the file's. The MLP runs in float32 and the
    products are shaped differently (160 rows, not 1,016), so the two agree to float32 rounding through
    30 layers, not bit for bit: 2e-3 nats is ~10× what was seen between kernels, and a thousand times
    smaller than the gaps the notebook reads (tenths of a nat)."""
    from helpers import real_model

    stored = streaming.load()
    model = real_model.load_model()
    ids = stored.ids[:160]
    assert list(stored.ids) == list(real_model.encode(model, texts.STREAM_TEXT))
    for variant in ((32, 4, "cache"), (32, 4, "text")):
        again = streaming.token_losses(model, ids, *variant)
        assert np.abs(again - stored.of(*variant)[:159]).max() < 2e-3, variant
