"""``13_induction_circuit``: its exercises (on a fake study and on the notebook's cached one) and
the claims of its patching and direct-attribution sections."""
import numpy as np
import pytest
from blas import assert_blas_close
from explorer_checks import shown_numbers
from fakes import FakeStudy

from helpers import exercises as ex
from helpers import heads, real_model
from helpers.exercises import induction_circuit as exercises
from tools.series import NOTEBOOKS


@pytest.fixture
def study(heads_study):
    """The notebook's cached head study (``heads_study`` in the root conftest, on the one SmolLM2)."""
    return heads_study


def test_the_notebook_is_listed_and_its_exercises_carry_its_number():
    assert "13_induction_circuit" in NOTEBOOKS
    assert all(key.startswith("13-") for key in exercises.EXERCISES), sorted(exercises.EXERCISES)
    assert all(key.startswith("13-") for key in exercises.CODE_EXERCISES), sorted(exercises.CODE_EXERCISES)


def test_earlier_head_names_previous_token_heads_and_shows_their_ablations(capsys):
    study = FakeStudy(induction_layer=2)
    for right in ("前一个 token 头", "“前一个token头”", "previous-token", "Previous Token", "上一个 token 头",
                  "previous-token head", "prev-token head", "前一个 token", "上一个token的头"):
        assert ex.check("13-2", right, study=study).ok is True, right
    assert ex.check("13-2", "汇聚头", study=study).ok is False
    assert ex.check("13-2", "ｉｎｄｕｃｔｉｏｎ", study=study).ok is False  # full-width: read, then judged
    out = capsys.readouterr().out
    assert "第 2 层（第 1 个头）" in out and "第 1 层第 0 个头" in out and "1.250 → 3.250" in out
    assert "归纳分数 0.900 → 0.450" in out  # the evidence: the induction head's own score drops
    assert [[(1, 0)]] == study.ablated[:1]  # only heads below the induction head are ablated
    assert all(layer < 2 for heads_ in study.ablated for layer, _ in heads_)
    for bad in ("注意力头", 3, float("nan"), {"head": "previous"}, ["前一个 token 头"]):
        assert ex.check("13-2", bad, study=study).ok is None, bad


def test_later_head_is_the_layer_above_the_induction_head_and_its_ablation_is_shown(capsys):
    study = FakeStudy(induction_layer=2)  # previous-token heads at layers 1 (first) and 3 (second)
    for right in (3, 3.0, "3", "第3层", "“第 3 层”", "３", "3层"):
        assert ex.check("13-1", right, study=study).ok is True, right
    for wrong in (1, 2, "第1层", 0):
        assert ex.check("13-1", wrong, study=study).ok is False, wrong
    out = capsys.readouterr().out
    assert "答案是 3 层" in out and "第 3 层第 2 个头" in out and "0.900 → 0.900" in out  # computed, unchanged
    assert study.ablated[-1] == [(3, 2)]
    for near in (2.6, 3.4, "3.4", 2.999):  # would round to 3, but a layer is a whole number
        assert ex.check("13-1", near, study=study).ok is None, near
    assert "整数" in capsys.readouterr().out
    for bad in (-1, float("nan"), float("inf"), 10**400, {"layer": 3}, [3], "三层", "3 parsecs", True):
        assert ex.check("13-1", bad, study=study).ok is None, bad
    late = FakeStudy(induction_layer=0)  # now the layer-1 head is the first one above it
    assert ex.check("13-1", 1, study=late).ok is True


def test_exercises_read_the_notebooks_cached_study(study, capsys):
    """13-1 and 13-2 without context use the same cached study as the notebook (no second run)."""
    from helpers import exercises

    layer, head = study.top("induction", 1)[0]
    assert exercises.check("13-2", "前一个 token 头").ok is True and exercises.check("13-2", "汇聚头").ok is False
    later = next(h for h in study.top("previous", 5) if h[0] > layer)  # a head after the induction head
    assert exercises.check("13-1", later[0]).ok is True and exercises.check("13-1", f"第{later[0]}层").ok is True
    assert exercises.check("13-1", layer).ok is False
    assert exercises.check("13-1", later[0] + 0.4).ok is None  # a layer is a whole number: a hint, not a verdict
    out = capsys.readouterr().out
    before = study.scores["induction"][layer, head]
    assert f"第 {later[0]} 层第 {later[1]} 个头" in out and f"{before:.3f} → {before:.3f}" in out  # really unchanged
    assert heads.study() is study


def test_the_residual_gap_is_mostly_position_and_18_6_acts_through_later_layers(study):
    """The prose of 12's ablation and DLA sections: with no repetition the second copy's positions
    already cost ~2 nats less than the first copy (a position effect), the second copy without the
    top-8 induction heads is within 1.5 nats of that control; cutting only 18.6's direct path does
    not raise the loss although ablating 18.6 does."""
    from helpers.heads import attribution as logit_attribution
    from helpers.heads import scan as head_scan

    scan, t = head_scan.load_scan(), study.length
    first, second = heads.copy_losses(study.losses, t)
    control = study.unrepeated_losses().mean(axis=-1)
    assert 1.5 < first.mean() - control.mean() < 2.5
    gaps = [control.mean() - (second + scan.set_change("induction", 8, kind)).mean() for kind in heads.ABLATIONS]
    assert all(0.2 < g < 1.6 for g in gaps) and min(gaps) == gaps[0]  # zero-ablation the closest
    receiver = study.top("induction", 1)[0]
    rows = study.loss_positions[t - 1:]
    direct = logit_attribution.direct_path_losses(study.model, study.batch, study.layer_inputs,
                                                  study.final_residual, receiver, rows) - study.losses[:, rows]
    assert direct.shape == (len(study.seeds), t - 1) and direct.mean() < 0.0
    assert scan.single_change("zero")[receiver].mean() > 1.5


def test_the_second_sender_exercise_screens_20_6(study, capsys):
    """13-4: besides 16.0, 20.6's keys need 19.3 most (the screen run at check time on the cached
    study); a head is read as "19.3", 19.3, (19, 3) or "第19层第3个头"; 16.0 itself is wrong."""
    for right in ("19.3", 19.3, (19, 3), "第19层第3个头", " 19.3 "):
        assert ex.check("13-4", right, study=study).ok is True, right
    assert "19.3" in capsys.readouterr().out
    for wrong in ("16.0", "17.8", (20, 6)):
        assert ex.check("13-4", wrong, study=study).ok is False, wrong
    for bad in ("abc", [1, 2, 3], True, "19", float("nan")):
        assert ex.check("13-4", bad, study=study).ok is None, bad


def test_17_8_is_made_up_for_by_layer_17s_mlp(study):
    """13's compensation paragraph: keys-only removal of 17.8's direct write leaves 18.6 at ~0.25;
    adding layer 17's MLP response (the whole-model run's stream) brings it back above 0.6, and that
    response is not 17.8's write put back (its component along the write is under 0.1)."""
    moved = heads.between_change(study, (17, 8), (18, 6))
    assert moved["direct_score"].mean() < 0.3 < 0.6 < moved["total_score"].mean()
    assert abs(moved["share"].mean()) < 0.1 and 0.5 < moved["ratio"].mean() < 0.9


def test_sender_explorer_shows_the_stored_screen_and_the_recomputed_pattern(study):
    """Every control moved: the readout's score, clean score, rank and control range are the stored
    screen's (three decimals), the pattern is 18.6's on the first sequence with the sender removed
    from that input (recomputed one sender at a time), and the values route changes nothing."""
    from helpers import widgets
    from helpers.render.format import fmt

    e = widgets.sender_explorer()
    stored = heads.load_senders()
    options = list(e.controls["sender"].options)
    assert options[:2] == ["16.0", "17.8"] and len(options) == 162 == len(set(options))
    first = [x[:1] for x in study.layer_inputs]
    clean = stored.clean().mean()
    clean_pattern = real_model.head_attention(study.model, 18, 6, first[18]).weights[0]
    for name in ("16.0", "17.8", options[2], options[-1]):
        head = tuple(int(v) for v in name.split("."))
        for route in ("q", "k", "v"):
            for kind in ("zero", "mean"):
                e.set(sender=name, route=route, removal=kind)
                s = e.state
                replacement = None if kind == "zero" else study.replacements([head], "mean")[head]
                want = heads.receiver_pattern(study.model, first, head, (18, 6), inputs=(route,),
                                              replacement=replacement)[0]
                np.testing.assert_array_equal(s["pattern"], want)
                readout = e.readout.value
                assert f"去掉 {name} 的直接写入（{heads.ABLATION_LABELS[kind]}）" in readout
                if route == "v":  # values do not enter the weights: the clean pattern, bit for bit
                    np.testing.assert_array_equal(s["pattern"], clean_pattern)
                    assert shown_numbers(readout)[-2:] == [round(clean, 3)] * 2
                    continue
                mean = stored.scores(route, kind).mean(axis=-1)
                draws = stored.directions(route, kind)[head]
                rank = int((mean < mean[head]).sum()) + 1
                assert f"<span class='score'>{fmt(mean[head])}</span>" in readout
                assert f"<span class='rank'>{rank}</span>" in readout
                assert f"<span class='control'>{fmt(draws.min())}–{fmt(draws.max())}</span>" in readout
                assert f"<span class='clean'>{fmt(clean)}</span>" in readout
    e.set(sender="17.8", route="k", removal="zero")
    assert "<span class='rank'>2</span>" in e.readout.value  # the notebook's second sender
    assert e.pattern.title.get_text().startswith("18.6 的模式：键里去掉 17.8（置零）")


def test_the_stored_control_is_the_notebooks_own_call(study):
    """The stored random directions of 17.8 and 16.0 (keys, zeroed) are what the notebook computes
    live with the same draws, seed and space (a recompute: the BLAS tolerance of the stored file)."""
    from helpers.heads import senders

    stored = heads.load_senders()
    for head in ((17, 8), (16, 0)):
        live = heads.same_size_directions(study, head, (18, 6), draws=senders.CONTROL_DRAWS,
                                          seed=senders.CONTROL_SEED, within=senders.CONTROL_WITHIN)
        np.testing.assert_allclose(live, stored.directions("k", "zero")[head], rtol=0,
                                   atol=senders.RECOMPUTE_TOLERANCE)


def test_18_6s_direct_write_lowers_the_target_less_than_the_vocabulary_and_more_than_the_likely_tokens(study):
    """13's closing of the direct-path question: the raw target logit falls (−0.28), the vocabulary
    mean falls more (−0.42, hence the centred +0.14), the probability-weighted mean falls less
    (−0.17), so the first-order loss change is positive, as cutting the path lowers the loss; the
    tokens raised most are punctuation ("-" first)."""
    rows = study.loss_positions[study.length - 1:]
    shift = heads.direct_logit_shift(study.model, study.batch, study.layer_inputs, study.final_residual,
                                     (18, 6), rows)
    target, mean, expected = (shift[k].mean() for k in ("target", "mean", "expected"))
    assert mean < target < expected < 0 < expected - target
    centred = study.logit_attribution()[:, 18, 6, study.length - 1:]
    # the same share through a float32 product with the whole vocabulary vs a float64 one with the
    # centred row: one float32 reduction over the hidden size apart
    assert_blas_close(shift["target"] - shift["mean"], centred, dtype=np.float32,
                      reduction_size=study.model.config.hidden_size)
    lines = heads.logit_shift_lines(study, (18, 6))
    assert "−0.28" not in lines[1] and "-0.28" in lines[1] and "-0.42" in lines[1] and "+0.14" in lines[1]
    assert "“-” +0.60" in lines[3]


def test_the_sender_panel_keeps_the_edge_senders_whole_and_labels_the_last_layer():
    """The first and last senders' dots sit inside the sender axis with a margin, a score of 0 sits
    above the score axis's lower end, and the last layer (just below the receiver) is labelled, in
    the still (matplotlib) and the live page's panel alike (both read screen_layout)."""
    import matplotlib.pyplot as plt

    from helpers.figures import induction_circuit as figure

    screen = np.full((18, 9), 0.7)
    screen[17, 8] = 0.0
    where = figure.screen_layout(screen, (17, 8), np.array([0.6, 0.7]))
    low, high = where["xlim"]
    assert low < -1 and high > where["count"], where["xlim"]   # more than one sender's width each side
    assert figure.SCORE_RANGE[0] < 0 == where["chosen"][1]
    assert where["ticks"][-1] == (17 * 9, "17") and [t for _, t in where["ticks"]][:2] == ["1", "3"]
    fig, ax = plt.subplots()
    figure.ScreenPanel(ax, 18, 9)
    assert ax.get_xlim() == pytest.approx(where["xlim"]) and ax.get_ylim() == pytest.approx(figure.SCORE_RANGE)
    assert [t.get_text() for t in ax.get_xticklabels()] == [t for _, t in where["ticks"]]
    plt.close(fig)
