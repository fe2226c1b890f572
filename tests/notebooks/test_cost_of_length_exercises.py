"""``07_cost_of_length``'s exercises: the learner writes the formula from a config's fields; the
number that expression gives is checked against helpers.cost, and the working shows the formula."""
from helpers import config, exercises

ONE_B, BIG = config.preset("Llama-3.2-1B"), config.preset("Llama-3.1-70B")


def test_kv_cache_of_1b_from_the_learners_own_expression(capsys):
    answer = 2 * ONE_B.num_layers * ONE_B.num_kv_heads * ONE_B.head_dim * 2 / 1024
    assert answer == 32
    assert exercises.check("07-1", answer) is True
    assert exercises.check("07-1", "32 KiB") is True
    assert exercises.check("07-1", answer * 2) is False  # 4 bytes a number (fp32) is not the BF16 answer
    assert "2 × 16 × 8 × 64 × 2" in capsys.readouterr().out


def test_decode_crossover_of_70b_from_the_learners_own_expression(capsys):
    answer = BIG.matmul_params() * 2 / (2 * BIG.num_layers * BIG.num_kv_heads * BIG.head_dim * 2)
    assert exercises.check("07-2", answer) is True
    assert exercises.check("07-2", 424000) is True
    assert answer > BIG.max_position_embeddings  # the working's point: beyond its context
    # the FLOPs crossover (the old exercise's answer) is a different number: not accepted
    per_token_flops = BIG.matmul_params() / (2 * BIG.q_dim * BIG.num_layers)
    assert exercises.check("07-2", per_token_flops) is False
    out = capsys.readouterr().out
    assert "69,503,033,344" in out and "131,072" in out
