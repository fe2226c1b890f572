"""``12_heads_at_work``: the heads explorer, the exercises (on a fake study and on the
notebook's cached one) and the pattern panel."""

import numpy as np
import pytest
from explorer_checks import shown_numbers
from fakes import FakeStudy

from helpers import exercises as ex
from helpers import heads, widgets


@pytest.fixture
def study(heads_study):
    """The notebook's cached head study (``heads_study`` in the root conftest, on the one SmolLM2)."""
    return heads_study


def test_lower_copy_follows_the_study_and_reads_natural_forms(capsys):
    study = FakeStudy()
    for right in (2, 2.0, "2", "第二遍", "“第二遍”", "２", "Second", " 第 2 遍 "):
        assert ex.check("12-1", right, study=study).ok is True, right
    for wrong in (1, "第一遍", "first"):
        assert ex.check("12-1", wrong, study=study).ok is False, wrong
    assert "答案是 第二遍" in capsys.readouterr().out
    assert ex.check("12-1", 1, study=FakeStudy(first=1.0, second=3.0)).ok is True  # computed, not typed in
    out = capsys.readouterr().out
    assert "第一遍每个 token 的损失 1.000" in out and "第二遍 3.000" in out
    for bad in ("第三遍", 3, 1.5, float("nan"), {"copy": 2}, [1, 2], "", object()):
        assert ex.check("12-1", bad, study=study).ok is None, bad
        assert "⚠" in capsys.readouterr().out


def test_heads_explorer_controls_show_the_studys_numbers_and_the_scans_three_removals(study):
    from helpers.heads import scan as head_scan

    scan = head_scan.load_scan()
    e = widgets.heads_explorer()
    for score in heads.SCORES:
        for rank in range(1, 6):  # the prompt asks for the fifth
            e.set(score=score, rank=rank)
            head = study.top(score, rank)[-1]
            change = [float(scan.single_change(kind).mean(axis=-1)[head]) for kind in heads.ABLATIONS]
            want = [round(study.scores[s][head], 3) for s in heads.SCORES] + [round(c, 3) for c in change]
            assert shown_numbers(e.readout.value) == want
            np.testing.assert_array_equal(e.panel.image.get_array(), study.weights[0][head])
            title = e.panel.title.get_text()  # the static preview says which head; the numbers once, below
            assert title == f"第 {head[0]} 层第 {head[1]} 个头：{heads.SCORE_LABELS[score]}第 {rank} 名（第 1 条序列）"
    e.set(score="induction", rank=2)  # the static preview draws the readout too: the prose points at it
    assert e.preview_readout and shown_numbers(e.readout_text()) == shown_numbers(e.readout.value)
    assert "置零" in e.readout_text() and "重采样" in e.readout_text()
    before = e.renders
    e.controls["rank"].value = 1
    assert e.renders == before + 1 and e.state["head"] == study.top("induction", 1)[0]
    e.set(score="previous", rank=1)  # 11.1: zero-ablation small, the mean ≈ 0 (read from the scan, not rerun)
    assert e.state["head"] == (11, 1) and abs(e.state["mean"]) < 0.1 < e.state["zero"]
    with pytest.raises(ValueError, match=r"^rank must be <= 5, got 507 \(rank is the slider “名次” of HeadsExplorer, 1…5\)$"):
        e.compute(score="induction", rank=507)


def test_null_figure_marks_each_value_with_its_percentile_and_checks_its_panels():
    from helpers.figures.heads_at_work import null_figure

    null = np.arange(100.0)
    fig = null_figure([("t", null, {"a": 49.5, "b": 200.0})], "x（nats）")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["对照（100 个）", "a：+49.50（第 50 百分位）", "b：+200.00（第 100 百分位）"]
    assert ax.get_xlim()[1] > 200.0  # a mark far outside the null stays inside the axes
    assert ax.get_xlabel() == "x（nats）" and ax.get_ylabel() == "个数"
    assert len(null_figure([("a", null, {}), ("b", null, {})], "x").axes) == 2
    with pytest.raises(TypeError, match="panels"):
        null_figure([], "x")
    with pytest.raises(TypeError, match="panel"):
        null_figure([("t", null)], "x")
    with pytest.raises(ValueError, match="marks"):
        null_figure([("t", null, {str(i): float(i) for i in range(5)})], "x")


def test_exercises_read_the_notebooks_cached_study(study):
    """12-1 without context uses the same cached study as the notebook (no second run). The notebook's
    study is asked for here: the session's (``study``) may have left the cache, which keeps two, when a
    test before this one in the same process asked for other sizes."""
    from helpers import exercises

    notebooks = heads.study()
    lower = "第二遍" if notebooks.second_copy_loss < notebooks.first_copy_loss else "第一遍"
    assert exercises.EXERCISES["12-1"].solve()[0] == lower
    assert exercises.check("12-1", 2).ok is (lower == "第二遍")
    assert heads.study() is notebooks


def test_pattern_panel_labels_every_row_and_every_kth_column_and_checks_its_labels():
    from helpers.display import new_figure
    from helpers.figures.heads_at_work import PatternPanel

    labels = ["start"] + [f"t{i}" for i in range(4)] * 2
    ax = new_figure(4, 4).add_subplot()
    panel = PatternPanel(ax, 4, labels=labels, every=2)
    shown = [t.get_text() for t in ax.get_xticklabels()]
    assert shown == ["start", "t1", "t3", "t1", "t3"]  # both copies show the same tokens
    left = [t.get_text() for t in ax.get_yticklabels()]
    right = [t.get_text() for t in panel.right.get_yticklabels()]
    assert left == shown and right == ["t0", "t2", "t0", "t2"]  # every row: even on the left, odd on the right
    assert sorted(list(ax.get_yticks()) + list(panel.right.get_yticks())) == list(range(9))
    one_side = PatternPanel(new_figure(4, 4).add_subplot(), 4, labels=labels, both_sides=False)
    assert one_side.right is None and [t.get_text() for t in one_side.ax.get_yticklabels()] == left
    with pytest.raises(TypeError, match="both_sides"):
        PatternPanel(new_figure(4, 4).add_subplot(), 4, labels=labels, both_sides="no")
    with pytest.raises(ValueError, match="labels"):
        PatternPanel(new_figure(4, 4).add_subplot(), 4, labels=labels[:-1])
    with pytest.raises(ValueError, match="every"):
        PatternPanel(new_figure(4, 4).add_subplot(), 4, labels=labels, every=0)


def test_null_figure_window_zooms_and_counts_what_lies_outside():
    from helpers.figures.heads_at_work import null_figure

    null = np.concatenate([np.linspace(-0.05, 0.2, 100), [1.05, 0.5, -0.4]])
    fig = null_figure([("t", null, {"a": 0.1})], "x", window=(-0.1, 0.3))
    ax = fig.axes[0]
    assert ax.get_xlim() == (-0.1, 0.3)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "另有 2 个\n> +0.30\n最大 +1.05" in texts and "另有 1 个\n< -0.10" in texts
    assert sum(p.get_height() for p in ax.patches if hasattr(p, "get_height") and p.get_width() < 0.1) == 100
    with pytest.raises(ValueError, match="must contain every marked value"):
        null_figure([("t", null, {"a": 0.9})], "x", window=(-0.1, 0.3))
    with pytest.raises(ValueError, match="low < high"):
        null_figure([("t", null, {})], "x", window=(0.3, -0.1))
