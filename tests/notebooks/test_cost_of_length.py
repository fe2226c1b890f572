"""``07_cost_of_length``: the cost explorer, the online-softmax explorer, and the exercises (the learner
writes the formula from a config's fields; the number that expression gives is checked against
helpers.cost, and the working shows the formula)."""
import numpy as np

from helpers import config, cost, exercises, softmax, widgets


def test_cost_explorer_each_control():
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
    e = widgets.online_softmax_explorer()
    for block in (1, 5, 16):
        e.controls["block"].value = block
        assert len(e.state["steps"]) == -(-16 // block)
        rng = np.random.default_rng(7)
        scores = rng.standard_normal(16) * 2.0
        values = rng.standard_normal((16, 2))
        np.testing.assert_allclose(e.state["steps"][-1].output, softmax(scores) @ values, atol=1e-12)
        assert e.state["steps"][0].running_max == scores[:block].max()
        assert "与一次性 softmax 的最大差 &lt; 1e-12：是" in e.readout.value  # the bound, not the CPU's digits
        assert "e-" not in e.readout.value.replace("1e-12", "")

ONE_B, BIG = config.preset("Llama-3.2-1B"), config.preset("Llama-3.1-70B")


def test_kv_cache_of_1b_from_the_learners_own_expression(capsys):
    answer = 2 * ONE_B.num_layers * ONE_B.num_kv_heads * ONE_B.head_dim * 2 / 1024
    assert answer == 32
    assert exercises.check("07-1", answer).ok is True
    assert exercises.check("07-1", "32 KiB").ok is True
    assert exercises.check("07-1", answer * 2).ok is False  # 4 bytes a number (fp32) is not the BF16 answer
    assert "2 × 16 × 8 × 64 × 2" in capsys.readouterr().out


def test_decode_crossover_of_70b_from_the_learners_own_expression(capsys):
    answer = BIG.matmul_params() * 2 / (2 * BIG.num_layers * BIG.num_kv_heads * BIG.head_dim * 2)
    assert exercises.check("07-2", answer).ok is True
    assert exercises.check("07-2", 424000).ok is True
    assert answer > BIG.max_position_embeddings  # the working's point: beyond its context
    # the FLOPs crossover (the old exercise's answer) is a different number: not accepted
    per_token_flops = BIG.matmul_params() / (2 * BIG.q_dim * BIG.num_layers)
    assert exercises.check("07-2", per_token_flops).ok is False
    out = capsys.readouterr().out
    assert "69,503,033,344" in out and "131,072" in out
