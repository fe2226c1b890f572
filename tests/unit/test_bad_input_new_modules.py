"""Bad input to the modules of notebooks 11–12 (helpers.circuit, patching, nulls, head_scan, heads,
logit_attribution), to display tables and to the exercise checkers: one named test per case a new
maintainer met, each answered as the older modules answer — a ValueError/TypeError naming the
argument as the learner wrote it, or a finite result inside its documented range. The CLI's cases
are in tests/unit/test_cli.py; the generated walk over every public function is
tests/series/test_api_fuzz.py."""
import contextlib
import io
import time

import numpy as np
import pytest
from tiny_model import tiny_model

import helpers
from helpers import circuit, real_model
from helpers.circuit import experiments, sweep
from helpers.circuit import trainer as circuit_trainer
from helpers.display import table, text_table
from helpers.heads import attribution as logit_attribution
from helpers.heads import patching
from helpers.heads import scan as head_scan
from helpers.heads import stats as nulls
from helpers.render import validation

CONFIG = circuit.Config(vocab=8, length=8, d_model=8, heads=2, layers=2)
TASK = circuit.Task(vocab=8, length=8, min_repeat=2, max_repeat=3)
IDS = np.array([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]])


@pytest.fixture(scope="module")
def small():
    model = circuit.init_model(CONFIG, 0)
    return model, circuit.sequences(4, 0, TASK)


@pytest.fixture(scope="module")
def clean():
    model = tiny_model()
    run = real_model.forward(model, IDS, keep_inputs=True)
    return model, run.layer_inputs, run.final_residual


# ---- results that were NaN, infinite or out of range ---------------------------------------------
def test_circuit_forward_with_huge_parameters_is_an_error_not_a_nan_loss(small):
    model, batch = small
    huge = model.copy()
    for value in huge.params.values():
        value[:] = 1e200
    with pytest.raises(ValueError, match=r"^model's parameters are too large"):
        circuit.forward(huge, batch.tokens)
    with pytest.raises(ValueError, match=r"^model's parameters are too large"):
        circuit.loss_and_grads(huge, batch.tokens)


def test_circuit_training_with_a_diverging_learning_rate_names_lr():
    with pytest.raises(ValueError, match=r"^lr = 1e\+150 is too large"):
        circuit_trainer.train(CONFIG, TASK, steps=5, lr=1e150, batch_size=4, eval_every=5)


def test_spread_of_values_near_the_float64_limit_is_finite():
    s = nulls.spread([1e308, 1e308])
    assert all(np.isfinite(s[k]) for k in ("mean", "low", "high", "min", "max"))
    assert s["mean"] == s["low"] == s["high"] == 1e308
    assert "nan" not in nulls.spread_text([1e308, -1e308]).lower()


def test_direct_path_losses_on_an_overflowing_residual_is_an_error_not_log_vocab(clean):
    model, layer_inputs, final = clean
    with pytest.raises(ValueError, match=r"^final_residual too large"):
        logit_attribution.direct_path_losses(model, IDS, layer_inputs, np.full_like(final, 1e300), (0, 0), [1, 2])
    with pytest.raises(ValueError, match=r"^final_residual too large"):
        logit_attribution.head_logit_attribution(model, IDS, layer_inputs, np.full_like(final, 1e300), [1])


def test_pattern_change_refuses_rows_that_are_not_weights_and_stays_in_0_1():
    with pytest.raises(ValueError, match=r"^b must be attention patterns"):
        patching.pattern_change(np.eye(3), np.full((3, 3), 10 / 3))   # a distance of 5.0 otherwise
    with pytest.raises(ValueError, match=r"^a must be attention patterns"):
        patching.pattern_change(-np.eye(3), np.eye(3))
    disjoint = patching.pattern_change(np.eye(3), np.roll(np.eye(3), 1, axis=1).astype(np.float32))
    assert disjoint == 1.0


def test_a_table_cell_holding_nan_is_a_clear_error_naming_the_cell():
    for build in (table, text_table):
        with pytest.raises(ValueError, match=r"^rows\[0\]\[1\] holds NaN or inf"):
            build(["a", "b"], [["x", [1.0, float("nan")]]])
        with pytest.raises(ValueError, match=r"^rows\[1\]\[0\] holds NaN or inf"):
            build(["a"], [[(1, 2)], [(0.5, (float("inf"),))]])
    assert "[1.0, 2.0]" in table(["a"], [[[1.0, 2.0]]]).text   # finite lists are shown as before


# ---- bare IndexError / AttributeError ------------------------------------------------------------
def test_head_scores_best_names_score_and_layer(small):
    model, batch = small
    scores = experiments.ablate(model, batch, [])
    with pytest.raises(ValueError, match=r"^score must be one of \['previous', 'induction', 'duplicate'\]"):
        scores.best("nope", 0)
    with pytest.raises(ValueError, match=r"^layer must be <= 1, got 5"):
        scores.best("induction", 5)
    with pytest.raises(TypeError, match=r"^layer must be an integer"):
        scores.best("induction", 0.5)


def test_scan_draw_set_names_draw():
    scan = head_scan.load_scan()
    last = scan.draw_heads.shape[1] - 1
    with pytest.raises(ValueError, match=rf"^draw must be <= {last}, got 40"):
        scan.draw_set(2, 40)
    assert len(scan.draw_set(2, last)) == 2


def test_batch_subset_names_rows(small):
    _, batch = small
    with pytest.raises(ValueError, match=r"^rows must be a position in -4…3, got 20"):
        batch.subset([20])
    with pytest.raises(ValueError, match=r"^rows must pick at least one"):
        batch.subset(slice(9, 12))
    assert len(batch.subset([0, -1])) == 2 and len(batch.subset(slice(1, 3))) == 2


def test_head_scan_load_of_a_file_that_is_not_a_scan_names_the_path(tmp_path):
    for name, data in (("scan.npz", b"hello, not an npz"), ("one.npy", None)):
        path = tmp_path / name
        if data is None:
            np.save(path, np.zeros(3))
        else:
            path.write_bytes(data)
        with pytest.raises(ValueError, match=r"^path must be a head scan \.npz") as caught:
            head_scan.load_scan(path)
        assert str(path) in str(caught.value) and "pickle" not in str(caught.value)


def test_the_stored_scans_loaders_name_the_file_what_they_expected_and_what_they_found(tmp_path):
    """Another .npz (no format entry), each stored file given to the other's loader (another format),
    the sender screen's format without its entries, a format entry that is not one integer: each names the path, the file it expected and what it holds."""
    from helpers import heads

    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(3), b=np.ones(2))
    lacking = tmp_path / "lacking.npz"  # the sender screen's format, none of its entries
    np.savez(lacking, format=np.array(heads.senders.FORMAT), a=np.zeros(2))
    text = tmp_path / "text-format.npz"
    np.savez(text, format=np.array(["1"]))
    cases = [
        (heads.load_scan, other, r"head scan \.npz.* in format 1, got '.*other\.npz', which holds no format entry "
                                 r"\(its entries: 'a', 'b'\)"),
        (heads.load_senders, other, r"sender screen \.npz.* in format 2, got '.*other\.npz', which holds no format entry"),
        (heads.load_scan, heads.SENDERS_PATH, r"head scan \.npz.* in format 1, got '.*sender_screen\.npz', which "
                                              r"holds format 2"),
        (heads.load_senders, heads.SCAN_PATH, r"sender screen \.npz.* in format 2, got '.*head_scan\.npz', which "
                                              r"holds format 1"),
        (heads.load_senders, lacking, r"sender screen \.npz.*, got '.*lacking\.npz', which lacks 'receiver', "
                                      r"'kinds', 'study_clean', 'study_k_zero', 'study_k_zero_directions' "
                                      r"\(its entries: 'a', 'format'\)"),
        (heads.load_scan, text, r"head scan \.npz.*, got '.*text-format\.npz', which holds a format entry that is not "
                                r"one integer \(<U1 of shape \(1,\)\)"),
    ]
    for load, path, message in cases:
        with pytest.raises(ValueError, match=rf"^path must be a {message}") as caught:
            load(path)
        assert "KeyError" not in str(caught.value) and str(path) in str(caught.value)


def test_the_circuit_sweep_loader_names_the_file_once(tmp_path):
    with pytest.raises(ValueError, match=r"^path must be a circuit sweep \.npz written by save\(\), got '.*head_scan\.npz', "
                                         r"which lacks 'meta' \(its entries: ") as caught:
        sweep.load(head_scan.SCAN_PATH)
    assert str(caught.value).count("path must be") == 1


# ---- numpy's or Python's own messages ------------------------------------------------------------
def test_composition_with_a_wrong_shaped_replacement_names_replacement(clean):
    model, layer_inputs, _ = clean
    bad = np.zeros((5, 3))
    for call in (lambda: patching.composition(model, IDS, layer_inputs, (0, 0), (1, 0), replacement=bad),
                 lambda: patching.receiver_pattern(model, layer_inputs, (0, 0), (1, 0), replacement=bad),
                 lambda: patching.composition_screen(model, layer_inputs, (0, 0), replacement=bad)):
        with pytest.raises(ValueError, match=r"^replacement must have shape \(6, 4\) or \(2, 6, 4\)"):
            call()


def test_run_variant_names_its_own_arguments_before_training():
    with pytest.raises(ValueError, match=r"^steps must be >= 200, got 2"):   # the summary's window needs 200 steps
        sweep.run_variant("two_layers", 0, steps=2)
    with pytest.raises(TypeError, match=r"^seed must be an integer"):
        sweep.run_variant("two_layers", 0.5, steps=200)


def test_circuit_train_checkpoints_must_be_a_list():
    with pytest.raises(TypeError, match=r"^checkpoints must be a list of steps, got int 5"):
        circuit_trainer.train(CONFIG, TASK, steps=2, checkpoints=5)


def test_random_set_shape_must_be_a_layers_heads_pair():
    with pytest.raises(TypeError, match=r"^shape must be a \(layers, heads\) pair, got tuple \(30,\)"):
        head_scan.random_set(2, 0, (30,))
    with pytest.raises(TypeError, match=r"^seed must be an integer"):
        helpers.heads.random_heads(2, 0.5, (30, 9))


# ---- the wrong argument named --------------------------------------------------------------------
def test_ablate_and_mean_ablate_name_heads_not_ablate_or_average(small):
    model, batch = small
    with pytest.raises(ValueError, match=r"^heads: layer index 9"):
        experiments.ablate(model, batch, [(9, 0)])
    with pytest.raises(ValueError, match=r"^heads: layer index 9"):
        experiments.mean_ablate(model, batch, [(9, 0)])
    with pytest.raises(ValueError, match=r"^into must be one of \['q', 'k', 'v'\]"):
        experiments.patch(model, batch, (0, 1), "x")


def test_composition_names_loss_positions_not_logits_at(clean):
    model, layer_inputs, _ = clean
    with pytest.raises(ValueError, match=r"^loss_positions must be a position in -5…4, got 99"):
        patching.composition(model, IDS, layer_inputs, (0, 0), (1, 0), loss_positions=[99])
    with pytest.raises(ValueError, match=r"^loss_positions must be a position in -5…4, got 5"):
        patching.composition(model, IDS, layer_inputs, (0, 0), (1, 0), loss_positions=[5])   # predicts nothing


def test_logit_attribution_names_layer_inputs_not_x_q(clean):
    model, _, final = clean
    bad = [np.zeros((2, 6, 3))] * 2
    with pytest.raises(ValueError, match=r"^layer_inputs\[0\] must be a residual stream of shape \(2, 6, 8\)"):
        logit_attribution.head_logit_attribution(model, IDS, bad, final, [1])
    with pytest.raises(ValueError, match=r"^layer_inputs\[0\] must be a residual stream"):
        logit_attribution.direct_path_losses(model, IDS, bad, final, (0, 0), [1])


# ---- size guards -------------------------------------------------------------------------------
def test_spread_refuses_more_resamples_than_it_can_draw_quickly_and_says_why():
    start = time.process_time()  # CPU time: refused before drawing, however busy the machine
    with pytest.raises(ValueError, match=r"^resamples × len\(values\) must be at most 10,000,000 \(every resample"):
        nulls.spread(np.ones(100), resamples=1_000_000)   # 10⁸ draws: 15 s and ~1.6 GB
    assert time.process_time() - start < 1.0
    assert nulls.spread(np.ones(100), resamples=100_000)["n"] == 100   # the limit itself is allowed


def test_sizes_that_set_the_work_are_refused_with_the_limit_and_the_reason(small):
    with pytest.raises(ValueError, match=r"^steps × batch_size must be at most 1,280,000 \(each sequence"):
        circuit_trainer.train(CONFIG, TASK, steps=20_000, batch_size=4096)
    with pytest.raises(ValueError, match=r"^len\(seeds\) must be at most 64 \(every sequence"):
        helpers.heads.study(16, range(1000))
    with pytest.raises(ValueError, match=r"^len\(seeds\) × \(2·length \+ 1\)² must be at most 500,000 \(the study"):
        helpers.heads.study(128, range(12))
    study = helpers.heads.HeadStudy(tiny_model(), length=4, seeds=(0, 1), pool=range(256))
    with pytest.raises(ValueError, match=r"^draws must be at most 1,000 \(every random set"):
        head_scan.compute(study, draws=10_000)
    with pytest.raises(ValueError, match=r"^shape must be at most 1,000,000 \(the heads are listed"):
        helpers.heads.random_heads(2, 0, (10**4, 10**4))


# ---- check(): an unreadable answer is previewed, never echoed ------------------------------------
def _printed(key, answer) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert helpers.exercises.check(key, answer).ok is None
    return out.getvalue()


@pytest.mark.parametrize("key, answer, shown", [
    ("02-3", "x" * 1_000_000, "answer"),          # a choice
    ("05-1", "1" + "x" * 1_000_000, "answer"),    # a number with an unreadable unit
    ("k" * 1_000_000, "1", "key"),                # an unknown exercise key
    (["a"] * 100_000, "1", "key"),                # a key that is not text
    ("02-1", "y" * 500_000, None)])               # several numbers: the hint counts them, quotes nothing
def test_check_shows_a_short_preview_of_an_answer_it_cannot_read(key, answer, shown):
    text = _printed(key, answer)
    assert len(text) < 300, len(text)
    if shown:
        value = key if shown == "key" else answer
        preview = validation.short_preview(value, limit=80)
        assert preview in text and type(value).__name__ in preview and f"{len(value):,}" in preview


@pytest.mark.parametrize("call", [helpers.exercises.check_code, helpers.exercises.solution])
def test_code_exercise_keys_are_previewed_too(call):
    for key in ("k" * 1_000_000, ["a"] * 100_000):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            call(key, lambda x: x) if call is helpers.exercises.check_code else call(key)
        text = out.getvalue()
        assert len(text) < 300 and validation.short_preview(key, limit=80) in text, text[:300]


def test_short_preview_keeps_short_values_and_cuts_long_ones_with_type_and_length():
    assert validation.short_preview("abc") == "'abc'"
    long = validation.short_preview("é" * 10_000)
    assert long.startswith("str of 10,000 characters: 'éé") and long.endswith("…") and len(long) <= 200
    assert validation.short_preview(list(range(1000))).startswith("list of 1,000 entries: [0, 1, 2")


def test_the_composition_screen_reads_every_later_layer_once_its_inputs_are_checked():
    """A model with more than two layers after the sender: every later layer's stream is read."""
    model = tiny_model()
    ids = np.array([[1, 2, 3, 4, 5, 6]])
    run = real_model.forward(model, ids, keep_inputs=True)
    three = [run.layer_inputs[0], run.layer_inputs[1], run.layer_inputs[1]]
    deep = type(model).__new__(type(model))
    deep.__dict__.update(model.__dict__)
    deep.blocks = [model.blocks[0], model.blocks[1], model.blocks[1]]
    deep.config = type(model.config)(**{**model.config.__dict__, "num_layers": 3})
    screen = patching.composition_screen(deep, three, (0, 1))
    assert screen["pattern"].shape == (3, 2, 3) and np.isfinite(screen["pattern"]).all()
