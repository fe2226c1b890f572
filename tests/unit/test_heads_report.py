"""helpers.heads.report: notebook 12's tables and summary lines, on the stored scan and the tiny model."""
import numpy as np
import pytest
from tiny_model import tiny_model

from helpers import heads

T = 4


@pytest.fixture(scope="module")
def scan():
    return heads.load_scan()


@pytest.fixture(scope="module")
def study():
    return heads.HeadStudy(tiny_model(), length=T, seeds=(0, 1), pool=range(256))


def test_set_table_has_one_row_per_size_and_kind_with_the_nulls_range(scan):
    headers, rows = heads.set_table(scan)
    assert len(headers) == 5 and len(rows) == len(scan.ks) * len(heads.ABLATIONS)
    k, kind, induction, _, null = rows[0]
    assert (k, kind) == (1, heads.ABLATION_LABELS["zero"])
    assert induction == heads.spread_text(scan.set_change("induction", 1, "zero"), scan.null(1, "zero"))
    assert null.startswith(f"{scan.null(1, 'zero').size} 组：")


def test_random_set_lines_list_every_random_set_that_hurts_more(scan):
    lines = heads.random_set_lines(scan)
    for k in (int(k) for k in scan.draw_ks):
        value, draws = scan.set_change("induction", k).mean(), scan.draw_change(k).mean(axis=-1)
        header = next(line for line in lines if line.startswith(f"k = {k}："))
        assert f"有 {int((draws > value).sum())} 组比前 {k} 个归纳头伤得更重" in header
        assert ("组都含的概率" in header) == (int((draws > value).sum()) > 1)
    assert sum(line.startswith("  第 ") for line in lines) == sum(
        int((scan.draw_change(k).mean(axis=-1) > scan.set_change("induction", k).mean()).sum()) for k in scan.draw_ks)
    side = heads.set_side_lines(scan)
    assert len(side) == 1 + len(heads.ABLATIONS) and side[0].startswith("前一个 token 头，换成均值：16.0 单独 ")


def test_ranks_tables_and_direct_path_on_the_tiny_model(study, scan):
    top = study.top("induction", 1)[0]
    assert heads.score_rank(study, "induction", top) == 1
    headers, rows = heads.leader_table(study, scan, [(1, 1), (0, 0)])
    assert [r[0] for r in rows] == ["1.1", "0.0"]   # the order given, not sorted
    assert len(headers) == len(rows[0]) == 4 + len(heads.report.RANKED_SCORES)
    first, second = heads.direct_shares(study)
    assert first.shape == second.shape == (2, *study.shape)
    _, rows = heads.attribution_table(study, [top])
    assert rows[0][0] == f"{top[0]}.{top[1]}" and rows[0][1] == study.scores["induction"][top]
    lines = heads.attribution_lines(study, top, top=2)
    assert len(lines) == 2 + 2 + 1 and lines[-1].startswith(f"{top[0]}.{top[1]} 的直接贡献")
    change = heads.direct_path_change(study, top)
    assert change.shape == (2, T - 1) and np.isfinite(change).all()
    rows = heads.composition_rows(study, study.composition((0, 1), (1, 0)))
    assert [r[0] for r in rows] == ["只有查询", "只有键", "只有值", "查询、键、值都"]


def test_bad_input_is_named(study, scan):
    with pytest.raises(TypeError, match="scan must be"):
        heads.set_table(study)
    with pytest.raises(TypeError, match="study must be"):
        heads.leader_table(scan, scan, [(0, 0)])
    with pytest.raises(ValueError, match="leaders"):
        heads.leader_table(study, scan, [(9, 0)])
    with pytest.raises(ValueError, match="name must be one of"):
        heads.score_rank(study, "copy", (0, 0))
    with pytest.raises(TypeError, match="patched must be"):
        heads.composition_rows(study, [{"inputs": ("k",)}])


def test_share_parts_multiply_to_the_attributed_share(study):
    top = study.top("induction", 1)[0]
    dla = study.logit_attribution()
    for position in study.loss_positions:
        parts = heads.share_parts(study, top, 1, position)
        assert parts["target"] == int(study.batch[1, position + 1]) and parts["scale"] > 0 < parts["length"]
        # one float64 dot product against another: equal to round-off of a few hundred terms
        assert parts["share"] == pytest.approx(parts["stored"], rel=1e-9, abs=1e-12)
        assert parts["stored"] == dla[1, top[0], top[1], study.loss_positions.index(position)]
    assert heads.share_parts(study, top, 0, 0)["stored"] is None  # the first token predicts nothing counted
    with pytest.raises(ValueError, match="sequence"):
        heads.share_parts(study, top, 2, T + 1)
    with pytest.raises(ValueError, match="position"):
        heads.share_parts(study, top, 0, 2 * T)
    with pytest.raises(TypeError, match="study must be"):
        heads.share_parts(None, top, 0, 1)
