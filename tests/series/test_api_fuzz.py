"""Walk the whole public ``helpers`` API with generated bad input (issue 16).

Every public callable is found automatically: the names in ``helpers.__all__`` plus every
public function and class defined in each ``helpers`` module (``helpers.explorers.*`` too), so a
new public function is covered without editing this file. Each is called with arguments drawn
from a pool of every class of bad input — NaN/inf, empty, wrong rank, wrong type, lists and
tuples, negative/zero/huge sizes, non-integers where a count goes, booleans — mixed with a few
valid values (so calls also get past the first check). The property:

- the call raises ``ValueError`` or ``TypeError`` whose message names one of the arguments
  of the function (or a keyword the caller passed), or
- it returns a result holding no NaN and no ``+inf`` (``-inf`` is allowed in arrays: it is
  the masked entry of an additive mask), and no text showing "nan"/"inf";
- never another exception type, never a warning (pytest turns warnings into errors here).

Exemptions are listed explicitly below, each with its reason.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tiny_model import tiny_model

import helpers
from helpers.render.explorer import Explorer

pytestmark = pytest.mark.slow  # a fuzz walk: minutes on 2 cores

#: examples per callable; with ~100 callables this is well over the 1,000 cases the issue asks for
EXAMPLES = 14


#: callables exempt from the walk, by qualified name, with the reason
EXEMPT = {
    "helpers.real_model.load_model": "reads the 1.2 GB model wheel from disk (seconds); its `path` checks are "
                                     "regression tests in tests/unit/test_validation.py",
    "helpers.real_model.find_gguf": "takes no argument; looks up the installed model wheel",
    "helpers.widgets.real_attention_explorer": "loads the 135M model; its `text` check runs before the load "
                                               "and is a regression test in tests/notebooks/test_real_model.py",
    "helpers.widgets.heads_explorer": "loads the 135M model and runs every single-head ablation of 11 (minutes "
                                      "on the first call); its kwargs go through the Explorer checks walked "
                                      "in learning_explorer and the other explorers",
    "helpers.heads.study": "loads the 135M model (like load_model) and runs it on the repeated sequences; "
                           "its `length`/`seeds` checks run before the load; HeadStudy, which it builds, "
                           "is walked with the tiny model",
    "helpers.circuit.history.record": "trains notebook 11's run with checkpoints (a minute of CPU); called only by "
                                      "tools/make_circuit_data.py; its `steps` check is in tests/notebooks/test_learning_a_circuit.py",
    "helpers.display.show": "displays a figure in the notebook (IPython display); `fig` is checked by the same "
                            "code as figure_png, which is walked",
}


#: whole modules exempt, with the reason
EXEMPT_MODULES = {
    "helpers.cli": "the attention-lab command: its arguments come from argparse as strings and it writes "
                   "files, so it is not fuzzed; bad input is one sentence and an exit status, tested in "
                   "tests/unit/test_cli.py and (installed from the wheel)"
                   " tests/series/test_wheel_notebooks.py",
    "helpers.render.validation": "its checks take the caller's argument name as their first parameter and "
                                 "name that in every message; tested directly in tests/unit/test_validation.py",
    "helpers.exercises": "every notebook's exercises (helpers.exercises.<notebook>): checkers answer any typed "
                         "answer with a Chinese hint and never raise; that contract (not ValueError) is tested with "
                         "correct, wrong, near-boundary and malformed answers in tests/series/test_exercises.py. NOTE: the data functions of 10's module (softmax_backward, "
                         "kind_only_weights, slowdown_by_d) do not yet validate their arguments",
    "helpers.render.code_check": "the engine behind helpers.exercises.check_code: it runs a learner's function and "
                                 "answers whatever it does with a Chinese message, never raising (not ValueError by "
                                 "design); tests/unit/test_code_check.py and tests/series/test_code_exercises.py",
    "helpers.render.answers": "the checker vocabulary behind helpers.exercises: unreadable answers raise its "
                              "own Malformed (a Chinese hint) by design, and judge() never raises; tests/unit/test_answers.py",
    "helpers.plots": "figure builders: they draw helpers' own validated results on matplotlib axes; "
                     "the numbers they print go through display.fmt, which is walked",
    "helpers.figures": "per-notebook figure builders (helpers.figures.<notebook>), gathered by helpers.plots: "
                       "same reason as helpers.plots",
    "helpers.render.panels": "the generic panels behind helpers.plots (same reason): they draw helpers' own "
                             "validated results",
}


#: walked although their module is exempt: 06's tile geometry (validated arithmetic, not drawing)
WALKED_ANYWAY = ("helpers.figures.attention_layer.columns_for", "helpers.figures.attention_layer.divisors",
                 "helpers.figures.attention_layer.TileLayout")
#: result records: built by helpers from validated input and only read by a learner
RECORDS = {"HandRow", "OnlineStep", "SentenceResult", "ForwardResult", "Block", "Model",
           "Sentences", "Forward", "TrainingRun", "Cache", "HeadScores", "History"}


def _modules():
    """Every module of the package, subpackages included (a package's ``__init__`` too)."""
    names = [m.name for m in pkgutil.walk_packages(helpers.__path__, prefix="helpers.")]
    return sorted(name for name in names if not any(name == e or name.startswith(e + ".") for e in EXEMPT_MODULES))


def _public_callables():
    found = {}
    for name in helpers.__all__:
        obj = getattr(helpers, name)
        if callable(obj) and not inspect.ismodule(obj):
            found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    for module_name in _modules():
        if module_name in EXEMPT_MODULES:
            continue
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if name.startswith("_") or not callable(obj) or getattr(obj, "__module__", None) != module_name:
                continue
            if inspect.isclass(obj) and (issubclass(obj, (BaseException, Explorer)) or name in RECORDS):
                continue  # exceptions; explorers (entered through helpers.widgets); result records
            found[f"{module_name}.{name}"] = obj
    for qualname in WALKED_ANYWAY:
        module_name, _, name = qualname.rpartition(".")
        found[qualname] = getattr(importlib.import_module(module_name), name)
    return {k: v for k, v in sorted(found.items()) if k not in EXEMPT}


CALLABLES = _public_callables()


def _valid_values():
    """A few valid values per parameter name, so generated calls also reach the deeper checks."""
    from helpers import config, example, layer, reading, real_model
    from helpers.display import new_figure

    rng = np.random.default_rng(1)
    model = tiny_model()
    fig = new_figure(2, 2)
    fig.canvas.draw()
    shape = layer.LayerShape(8, 2, 1, 4)
    w6 = np.array([0.3, 0.25, 0.2, 0.1, 0.1, 0.05])
    return {
        "q": [rng.standard_normal((4, 2)), rng.standard_normal((2, 4, 2))],
        "k": [rng.standard_normal((4, 2)), rng.standard_normal((2, 4, 2))],
        "v": [rng.standard_normal((4, 2)), rng.standard_normal((2, 4, 2))],
        "x": [rng.standard_normal((4, 4)), rng.standard_normal((4, 8)), rng.standard_normal((4, 2, 4)), [1.0, 2.0]],
        "q_row": [[0.5, 1.0]], "k_row": [[1.0, 0.0]], "v_row": [[0.0, 1.0]],
        "scores": [rng.standard_normal(6)], "values": [rng.standard_normal((6, 2))],
        "weights": [w6, layer.random_layer(shape), [np.full((2, 5, 5), 0.2)]],
        "seed": [0, 7], "repeats": [1], "value": [0.5], "css_class": ["w"], "skip": [1], "sink": [1],
        "hidden": [8], "num_heads": [2], "num_kv_heads": [1], "d_k": [2], "d_v": [2], "axis": [-1],
        "raw": [[1.0, 2.0, 3.0, 4.0]], "vectors": [example.X], "fixed": [[1, 1, 0, 0]],
        "n": [1, 4, 8], "d": [2, 4], "trials": [5], "block": [2], "window": [2], "keep_first": [1],
        "n_queries": [3], "n_keys": [4], "n_before": [2], "n_extra": [2], "n_samples": [50], "n_max": [20],
        "delta": [2.0], "sigma": [0.5], "strength": [3.0], "value_scale": [0.5], "step": [0.5],
        "config": [config.LLAMA_3_1_8B], "shape": [shape], "model": [model], "ids": [[1, 2, 3]],
        "seq": [reading.sink_sequence(6, 4)], "cache": [layer.LayerCache()], "caches": [None],
        "positions": [[0, 1, 2, 3]], "theta": [10000.0], "rope_theta": [10000.0], "head_dim": [4],
        "n_rep": [2], "token": ["申请"], "tokens": [example.TOKENS], "dtype": ["bf16", np.float32],
        "name": ["Llama-3.1-8B"], "fig": [fig], "canvas": [fig.canvas], "text": ["hello"], "ns": [[8, 16]],
        "seconds": [[0.1, 0.4]], "factors": [[1.0, 2.0]], "result": [real_model.forward(model, [1, 2, 3],
                                                                                          keep_inputs=True)],
        "layer": [1], "n_heads": [2], "weight": [rng.standard_normal((8, 8)), np.ones(8)], "eps": [1e-5],
        "fn": [lambda: None], "causal": [True, False], "scaled": [True, False],
        "trace": [[("x", (4, 8))]], "headers": [["a", "b"]], "rows": [[[1.0, "x"]]], "digits": [2],
        "n_bytes": [2048], "width": [3.0, 10], "height": [2.0], "description": ["q[0]"],
        "kv_heads": [1], "batch": [2], "k_top": [3], "max_new_tokens": [2], "hidden_size": [8],
    }


def _bad_values():
    nan, inf = float("nan"), float("inf")
    return [
        # NaN / inf
        nan, inf, -inf, np.array([1.0, nan]), [[1.0, inf], [0.0, 1.0]], np.full((2, 2), -inf),
        # empty
        [], (), np.zeros((0,)), np.zeros((0, 2)), np.zeros((2, 0)), "", {},
        # wrong rank
        1.5, np.ones(3), np.ones((2, 2)), np.ones((2, 3, 2)), np.ones((1, 1, 1, 1)),
        # wrong type
        None, "abc", object(), {"a": 1}, b"x", 1 + 2j, {1, 2}, print,
        # lists and tuples (valid-looking and ragged)
        [1.0, 2.0], [[1.0, 0.5], [0.2, 0.3]], ((1, 2), (3, 4)), [[1, 2], [3]], ["a", "b"],
        # negative / zero / huge sizes
        -1, 0, 10 ** 12, 2 ** 63, 10 ** 400, -(10 ** 9),
        # non-integers where counts go
        2.5, 0.5, np.float64(3.0), 1e-300,
        # booleans
        True, False, np.bool_(True), np.array([True, False]), [[True, False], [False, True]],
        # huge magnitudes
        1e308, -1e308, np.full((2, 2), 1e200), np.full((4, 2), 1e155),
    ]


VALID = _valid_values()

BAD = _bad_values()


def _small_sqrt_d_rows():
    from helpers import training

    return training.sqrt_d_experiment((2,), target=0.3, steps=3, init_seeds=(0,))


SMALL_SQRT_D_ROWS = _small_sqrt_d_rows()


#: parameters whose *default* (None) runs a notebook's whole computation: the walk passes the
#: baseline's value instead of None there (None → the full √d experiment, 24 training runs)
EXPENSIVE_DEFAULTS = {"helpers.training.experiment.sqrt_d_pairs": "rows"}


def _baselines():
    """A consistent valid call for functions whose arguments must fit together (shapes, models);
    the walk then makes one argument bad at a time. Optional: a function not listed here is still
    walked with the per-name values above."""
    from helpers import example, layer, training

    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((3, 4, 2))
    shape = layer.LayerShape(8, 2, 1, 4)
    lw = VALID["weights"][1]
    model = VALID["model"][0]
    w6 = VALID["weights"][0]
    v6 = rng.standard_normal((6, 2))
    f32 = np.ones((8, 8), np.float32)
    return {
        "helpers.attention.attention_scores": dict(q=q, k=k),
        "helpers.attention.scaled_dot_product_attention": dict(q=q, k=k, v=v, mask=[[True] * 4] * 4),
        "helpers.config.ModelConfig": dict(name="m", hidden_size=8, num_layers=1, num_heads=2, num_kv_heads=1,
                                           head_dim=4, intermediate_size=16, vocab_size=10, rope_theta=1e4,
                                           tie_word_embeddings=True, source="s"),
        "helpers.example.QKV": dict(q=q, k=k, v=v),
        "helpers.example.hand_row": dict(q=q[0], k=k, v=v),
        "helpers.example.project": dict(x=example.X, weight=example.W_Q),
        "helpers.render.controls.weights_html": dict(tokens=example.TOKENS, weights=[0.1, 0.2, 0.3, 0.4]),
        "helpers.kv_cache.decode_with_cache": dict(q=q, k=k, v=v),
        "helpers.kv_cache.earlier_output_change": dict(q=q, k=k, v=v, n_before=2, causal=True),
        "helpers.layer.LayerWeights": dict(w_q=f32, w_k=f32[:, :4], w_v=f32[:, :4], w_o=f32),
        "helpers.layer.attention_layer": dict(x=rng.standard_normal((4, 8)), weights=lw, shape=shape,
                                              rope_theta=1e4, mask=np.tril(np.ones((4, 4), bool))),
        "helpers.layer.expand_gqa_to_mha": dict(weights=lw, shape=shape),
        "helpers.layer.random_layer": dict(shape=shape),
        "helpers.layer.repeat_kv": dict(x=rng.standard_normal((4, 1, 4)), n_rep=2),
        "helpers.layer.apply_rope": dict(x=rng.standard_normal((4, 2, 4)), positions=[0, 1, 2, 3], theta=1e4),
        "helpers.reading.SinkSequence": dict(q=q, k=k, v=v),
        "helpers.reading.same_output_weights": dict(weights=w6, values=v6),
        "helpers.reading.ablation_influence": dict(weights=w6, values=v6),
        "helpers.reading.ablation_influence_analytic": dict(weights=w6, values=v6),
        "helpers.real_model.first_position_weight": dict(weights=[np.full((2, 5, 5), 0.2)] * 2),
        "helpers.real_model.forward": dict(model=model, ids=[1, 2, 3], mask=np.zeros((3, 3))),
        "helpers.real_model.generate": dict(model=model, ids=[1, 2], max_new_tokens=2),
        "helpers.real_model.next_token_top": dict(model=model, ids=[1, 2], k=3),
        "helpers.real_model.perplexity": dict(model=model, ids=[1, 2, 3]),
        "helpers.real_model.perplexity_with_wrong_rope": dict(model=model, ids=[1, 2, 3]),
        "helpers.real_model.head_values": dict(model=model, result=VALID["result"][0], layer=1),
        "helpers.real_model.rms_norm": dict(x=rng.standard_normal((3, 8)), weight=np.ones(8), eps=1e-5),
        "helpers.real_model.unpermute_qk": dict(weight=f32, n_heads=2),
        "helpers.real_model.permute_qk": dict(weight=f32, n_heads=2),
        "helpers.scaling.jacobian_norms": dict(weights=[w6, w6]),
        "helpers.scaling.softmax_jacobian": dict(weights=w6),
        "helpers.scaling.mean_max_weight": dict(n=4, d=2, scaled=True, trials=20),
        "helpers.scaling.standard_scores": dict(n=5),
        "helpers.tiled.naive_attention": dict(q=q, k=k, v=v),
        "helpers.tiled.tiled_attention": dict(q=q, k=k, v=v, block=3, causal=True),
        "helpers.tiled.online_softmax_steps": dict(scores=w6, values=v6, block=4),
        "helpers.weighting.content_weights": dict(x=example.X, query_position=-1),
        "helpers.weighting.weighted_average": dict(vectors=example.X, weights=[0.25] * 4),
        "helpers.tiled.time_naive_vs_tiled": dict(ns=[8, 16], d=4, block=4, repeats=1),
        "helpers.real_model.decode": dict(model=model, ids=[1, 2]),
        "helpers.real_model.token_strings": dict(model=model, ids=[1, 2]),
        "helpers.real_model.encode": dict(model=model, text="hi"),
        # training: small sizes, few steps, and a low accuracy target that ends a run early, so
        # a generated `steps` or `d` never retrains the notebook's runs for every example
        "helpers.training.trainer.train": dict(d=2, steps=3, stop_at=0.3, checkpoints=(), test_every=None),
        "helpers.training.model.init_params": dict(d=2, seed=0),
        "helpers.training.model.gradient_check": dict(d=2, n_sentences=2, seed=0),
        "helpers.training.experiment.sqrt_d_experiment": dict(dims=(2,), target=0.3, steps=3, init_seeds=(0,)),
        "helpers.training.experiment.sqrt_d_pairs": dict(rows=SMALL_SQRT_D_ROWS),
        "helpers.training.task.encode": dict(sentences=[training.EXAMPLES[0]], seed=0),
        "helpers.training.task.dataset": dict(split="test", seed=training.SEED),
    }


BASELINES = _baselines()

generated_arrays = hnp.arrays(
    np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    elements=st.floats(allow_nan=True, allow_infinity=True, width=64))

generated = st.one_of(
    st.sampled_from(BAD), st.integers(-(2 ** 70), 2 ** 70), st.floats(), generated_arrays,
    st.lists(st.floats(-1e3, 1e3), max_size=5), st.text(max_size=4), st.booleans())


def _value_strategy(param_name):
    options = [generated, st.sampled_from(BAD)]
    if param_name in VALID:
        options.append(st.sampled_from(VALID[param_name]))
    return st.one_of(*options)


def _draw_call(data, fn, baseline=None):
    """Positional/keyword arguments for one call; returns (args, kwargs, names the message may cite)."""
    baseline = baseline or {}
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.name != "self" and p.kind is not p.VAR_POSITIONAL]
    # mostly one bad argument among valid ones (reaches every check), sometimes all drawn at random
    # None: all drawn at random; i: only argument i bad, the rest valid; -1: all valid (where known)
    bad_one = data.draw(st.sampled_from([None, -1, *range(len(params))]), label="bad argument")
    args, kwargs = [], {}
    names = {p.name for p in sig.parameters.values()}
    for i, p in enumerate(params):
        if p.kind is p.VAR_KEYWORD:
            # at least one keyword: a call with none builds a whole explorer, which tests/series/test_explorers.py covers
            for _ in range(data.draw(st.integers(1, 2), label="n_kwargs")):
                key = data.draw(st.sampled_from(["bogus_option", "naive", "text", "value"]), label="kw")
                kwargs[key] = data.draw(_value_strategy(key), label=key)
                names.add(key)
            continue
        has_default = p.default is not p.empty
        if bad_one is not None and i != bad_one and p.name in baseline:
            value = baseline[p.name]
        elif bad_one is None or i == bad_one:
            value = data.draw(_value_strategy(p.name), label=p.name)
        elif has_default and (bad_one >= 0 or data.draw(st.booleans(), label=f"default {p.name}")):
            continue  # keep the default
        elif bad_one >= 0 and p.name in VALID:
            value = data.draw(st.sampled_from(VALID[p.name]), label=p.name)
        else:
            value = data.draw(_value_strategy(p.name), label=p.name)
        if p.kind is p.KEYWORD_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and has_default):
            kwargs[p.name] = value
        else:
            args.append(value)
    return args, kwargs, names


NAN_TEXT = re.compile(r"(?<![\w-])(nan|[+-]?inf)(?![\w-])", re.IGNORECASE)


def assert_finite(obj, where="result", depth=0):
    """No NaN, no +inf anywhere in a result (``-inf`` allowed in arrays: masked entries)."""
    if depth > 5 or obj is None or isinstance(obj, (bool, bytes, np.bool_)):
        return
    if isinstance(obj, str):
        assert not NAN_TEXT.search(obj), f"{where} shows NaN/inf: {obj[:200]!r}"
    elif isinstance(obj, (int, np.integer)):
        return
    elif isinstance(obj, (float, np.floating)):
        assert np.isfinite(obj), f"{where} is {obj!r}"
    elif isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc":
            assert not np.isnan(obj).any() and not np.isposinf(obj).any(), f"{where} holds NaN/+inf"
        elif obj.dtype.kind == "O":
            for i, item in enumerate(obj.ravel()[:50]):
                assert_finite(item, f"{where}[{i}]", depth + 1)
    elif isinstance(obj, Explorer):
        assert_finite(obj.state, f"{where}.state", depth + 1)
        assert_finite(obj.readout.value, f"{where}.readout", depth + 1)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for field in dataclasses.fields(obj):
            if field.name != "tokenizer":
                assert_finite(getattr(obj, field.name), f"{where}.{field.name}", depth + 1)
    elif isinstance(obj, dict):
        for key, value in list(obj.items())[:200]:
            assert_finite(value, f"{where}[{key!r}]", depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj[:200]):
            assert_finite(item, f"{where}[{i}]", depth + 1)


def call_and_check(qualname, fn, args, kwargs, names):
    try:
        result = fn(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        cited = [n for n in names if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", message)]
        assert cited, (f"{qualname}: {type(exc).__name__} names none of its arguments {sorted(names)}: "
                       f"{message!r}")
        return "raised"
    assert_finite(result, f"{qualname}(...)")
    return "returned"


def test_the_walk_finds_the_public_api():
    """The enumeration really sees the API (and so will see a new function)."""
    for expected in ("helpers.attention.softmax", "helpers.layer.attention_layer", "helpers.reading.dilution_weight",
                     "helpers.real_model.forward", "helpers.widgets.qkv_explorer", "helpers.config.ModelConfig",
                     "helpers.render.format.fmt", "helpers.tiled.growth_exponent", "helpers.figures.attention_layer.divisors"):
        assert expected in CALLABLES, expected
    assert len(CALLABLES) * EXAMPLES >= 1000, f"only {len(CALLABLES)} callables × {EXAMPLES} examples"


@pytest.mark.parametrize("qualname", list(BASELINES))
def test_baseline_calls_are_valid_and_finite(qualname):
    """The valid calls the walk starts from really are valid (so one bad argument is what fails)."""
    assert qualname in CALLABLES, f"{qualname} is not a walked callable"
    assert_finite(CALLABLES[qualname](**BASELINES[qualname]), qualname)


CASES = {"raised": 0, "returned": 0}

WALKED = set()


@pytest.mark.parametrize("qualname", list(CALLABLES))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(data=st.data())
def test_bad_input_gives_a_named_error_or_a_finite_result(qualname, data):
    fn = CALLABLES[qualname]
    args, kwargs, names = _draw_call(data, fn, BASELINES.get(qualname))
    if qualname in EXPENSIVE_DEFAULTS:
        param = EXPENSIVE_DEFAULTS[qualname]
        if kwargs.get(param) is None and not args:
            kwargs[param] = BASELINES[qualname][param]
    CASES[call_and_check(qualname, fn, args, kwargs, names)] += 1
    WALKED.add(qualname)


#: public methods of public classes, on small instances (methods are not found by the walk above)
def _methods():
    from helpers import kv_cache, layer, scaling, widgets

    return {
        "KVCache.step": lambda: kv_cache.KVCache(2, 2).step,
        "LayerCache.append": lambda: layer.LayerCache().append,
        "LayerWeights.check": lambda: VALID["weights"][1].check,
        "ScorePool.scores": lambda: scaling.ScorePool(n_max=20, trials=4).scores,
        "QueryWeightsExplorer.set": lambda: widgets.query_weights_explorer().set,
        "CostExplorer.set": lambda: widgets.cost_explorer().set,
    }


METHODS = _methods()

_INSTANCES = {}


def _method(qualname):
    """The bound method on one instance per test session (explorers take a while to build)."""
    if qualname not in _INSTANCES:
        _INSTANCES[qualname] = METHODS[qualname]()
    return _INSTANCES[qualname]


@pytest.mark.parametrize("qualname", list(METHODS))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_methods_give_a_named_error_or_a_finite_result(qualname, data):
    method = _method(qualname) if qualname.endswith(".set") else METHODS[qualname]()
    args, kwargs, names = _draw_call(data, method)
    if qualname.endswith(".set"):  # **values: the explorer's own controls are the names to cite
        explorer = method.__self__
        for key in list(kwargs):
            kwargs.pop(key)
        control = data.draw(st.sampled_from([*explorer.controls, "bogus_option"]), label="control")
        kwargs[control] = data.draw(_value_strategy(control), label="value")
        names = {control}
    call_and_check(qualname, method, args, kwargs, names)
    if qualname.endswith(".set"):
        assert_finite(method.__self__, qualname)


def test_the_walk_ran_at_least_1000_cases():
    """Runs after the walk above (pytest keeps file order): counts the calls actually made."""
    if WALKED != set(CALLABLES):
        pytest.skip("only part of the walk ran (a -k selection)")
    total = CASES["raised"] + CASES["returned"]
    assert total >= 1000, CASES
    assert CASES["returned"] >= 100, CASES  # the walk also gets past the checks, not only into them
