"""helpers.formula: the symbol rows of the formula, with shapes from a config."""


def test_formula_rows_take_shapes_from_the_config_and_the_toy_arrays():
    from helpers import config, formula

    for cfg in (config.LLAMA_3_1_8B, config.SMOLLM2_135M):
        rows = {r[0]: r for r in formula.symbol_rows(cfg)}
        assert list(rows) == ["Q", "K", "Kᵀ", "QKᵀ", "√d", "掩码", "softmax(·)", "V", "softmax(·)·V"]
        assert rows["Q"][2] == "[4, 2]" and rows["Kᵀ"][2] == "[2, 4]" and rows["掩码"][2] == "[4, 4]"
        assert rows["Q"][3].startswith(f"[n, {cfg.head_dim}]") and f"共 {cfg.num_heads} 个头" in rows["Q"][3]
        assert rows["√d"][3] == f"√{cfg.head_dim} ≈ {cfg.head_dim ** 0.5:.3f}"
        assert f"[n, {cfg.num_heads * cfg.head_dim}]" in rows["softmax(·)·V"][3]
