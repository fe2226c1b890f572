"""Walk the whole public ``helpers`` API with generated bad input, so every
mistake a learner can make ends in one sentence naming the argument, never a traceback.

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
from fakes import exercise_context
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
    "helpers.real_model.load.load_model": "reads the 1.2 GB model wheel from disk (seconds); its `path` checks are "
                                     "regression tests in tests/unit/test_validation.py",
    "helpers.real_model.model.find_gguf": "takes no argument; looks up the installed model wheel",
    "helpers.widgets.real_attention_explorer": "loads the 135M model; its `text` check runs before the load "
                                               "and is a regression test in tests/notebooks/test_real_model.py",
    "helpers.widgets.sentence_explorer": "loads the 135M model; its `text` check runs before the load and is a "
                                         "regression test in tests/notebooks/test_real_model.py; the text box's "
                                         "text goes through sentence_view, walked with the tiny model",
    "helpers.widgets.heads_explorer": "loads the 135M model and runs every single-head ablation of 11 (minutes "
                                      "on the first call); its kwargs go through the Explorer checks walked "
                                      "in learning_explorer and the other explorers",
    "helpers.widgets.sender_explorer": "loads the 135M model and its study of the repeated sequences; its kwargs "
                                       "go through the Explorer checks walked in learning_explorer and the other "
                                       "explorers",
    "helpers.heads.experiment.study": "loads the 135M model (like load_model) and runs it on the repeated sequences; "
                           "its `length`/`seeds` checks run before the load; HeadStudy, which it builds, "
                           "is walked with the tiny model",
    "helpers.circuit.history.record": "trains notebook 11's run with checkpoints (a minute of CPU); called only by "
                                      "tools/data/circuit_data.py; its `steps` check is in tests/notebooks/test_learning_a_circuit.py",
    "helpers.circuit.sweep.run_variant": "trains one run of the sweep (at least 200 steps of notebook 11's model, "
                                         "tens of seconds a call); its variant/seed/steps checks come first and are "
                                         "regression tests in tests/unit/test_bad_input_new_modules.py",
    "helpers.real_model.one_head.residual_stream": "takes the caller's argument name first (like "
                                                   "helpers.render.validation) and names that in every message; walked "
                                                   "through head_attention's x_q/x_k/x_v and forward's Patch streams",
    "helpers.real_model.one_head.head_output": "takes the caller's argument name first (like helpers.render.validation) "
                                               "and names that in every message; walked through forward's Replace(z)",
    **{name: "array plumbing of the training loops of helpers.circuit and helpers.linear_attention (public so "
             "both units share it, which the layout rule asks): called several times a layer every step, unchecked "
             "like the loop's softmax; their arguments are checked where forward and backward are entered, which "
             "are walked" for name in ("helpers.circuit.model.head_projection", "helpers.circuit.model.merge_heads",
                                       "helpers.circuit.backprop.split_heads",
                                       "helpers.circuit.backprop.flatten_positions",
                                       "helpers.circuit.backprop.gradients",
                                       "helpers.circuit.backprop.softmax_scores_backward")},
    "helpers.display.show": "displays a figure in the notebook (IPython display); `fig` is checked by the same "
                            "code as figure_png, which is walked",
}


#: whole modules exempt, with the reason
EXEMPT_MODULES = {
    "helpers.cli": "the attention-lab command: its arguments come from argparse as strings and it writes "
                   "files; walked through its entry point by test_the_command_answers_any_arguments_in_one_sentence "
                   "below (one sentence and an exit status, not ValueError), and tested in tests/unit/test_cli.py "
                   "and (installed from the wheel) tests/series/test_wheel_notebooks.py",
    "helpers.render.validation": "its checks take the caller's argument name as their first parameter and "
                                 "name that in every message; tested directly in tests/unit/test_validation.py",
    "helpers.exercises": "every notebook's exercises (helpers.exercises.<notebook>): checkers answer any typed "
                         "answer with a Chinese hint and never raise; that contract (not ValueError) is tested with "
                         "correct, wrong, near-boundary and malformed answers in tests/series/test_exercises.py, and check() "
                         "is walked with generated keys and answers by test_check_answers_any_answer_with_a_short_sentence "
                         "below. NOTE: the data functions of 10's module (softmax_backward, "
                         "kind_only_weights, slowdown_by_d) do not yet validate their arguments",
    "helpers.grading": "the grading wing behind helpers.exercises. The code checker runs a learner's function and "
                       "answers whatever it does with a Chinese message, never raising (not ValueError by design): "
                       "tests/unit/test_code_check.py, tests/series/test_code_exercises.py and "
                       "tests/series/test_grader_mutations.py; the answer vocabulary raises its own Malformed (a "
                       "Chinese hint) on unreadable answers by design, and judge() never raises: "
                       "tests/unit/test_answers.py. The record of originals (taken at import helpers) is walked "
                       "anyway (WALKED_ANYWAY)",
    "helpers.plots": "figure builders: they draw helpers' own validated results on matplotlib axes; "
                     "the numbers they print go through display.fmt, which is walked",
    "helpers.figures": "per-notebook figure builders (helpers.figures.<notebook>), gathered by helpers.plots: "
                       "same reason as helpers.plots",
    "helpers.render.panels": "the generic panels behind helpers.plots (same reason): they draw helpers' own "
                             "validated results",
}


#: walked although their module is exempt: 06's tile geometry and the grid's ceil_div (validated
#: arithmetic, not drawing), and the record of originals that ``import helpers`` takes
WALKED_ANYWAY = ("helpers.figures.attention_layer.columns_for", "helpers.figures.attention_layer.divisors",
                 "helpers.figures.attention_layer.TileLayout", "helpers.render.panels.ceil_div",
                 "helpers.grading.originals.record", "helpers.grading.originals.public_function",
                 # notebook 11's TrainingRun checks its fields (10's, of the same name, is a record)
                 "helpers.circuit.trainer.TrainingRun")
#: result records: built by helpers from validated input and only read by a learner
RECORDS = {"HandRow", "OnlineStep", "SentenceResult", "ForwardResult", "Block", "Model",
           "Sentences", "Forward", "TrainingRun", "Cache", "HeadScores", "History", "SentenceView", "NextToken",
           # the intervention words hold what the learner hands a forward pass, which checks their
           # arrays against its model (walked through helpers.circuit.model.run's interventions)
           "Zero", "Mean", "Replace", "Patch",
           # the head as a forward pass runs it, built by that pass from its checked arguments
           "HeadHook"}


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
        "delta": [2.0], "sigma": [0.5], "strength": [3.0], "value_scale": [0.5], "step": [0.5, 100, 0],
        "config": [config.LLAMA_3_1_8B], "shape": [shape], "model": [model], "ids": [[1, 2, 3]],
        "seq": [reading.sink_sequence(6, 4)], "cache": [layer.LayerCache()], "caches": [None],
        "positions": [[0, 1, 2, 3]], "theta": [10000.0], "rope_theta": [10000.0], "head_dim": [4],
        "n_rep": [2], "token": ["申请"], "tokens": [example.TOKENS], "dtype": ["bf16", np.float32],
        "name": ["Llama-3.1-8B"], "fig": [fig], "canvas": [fig.canvas], "text": ["hello"], "ns": [[8, 16]],
        "seconds": [[0.1, 0.4]], "factors": [[1.0, 2.0]], "result": [real_model.forward(model, [1, 2, 3],
                                                                                          keep_inputs=True)],
        "layer": [1], "n_heads": [2], "weight": [rng.standard_normal((8, 8)), np.ones(8)], "eps": [1e-5],
        "fn": [lambda: None], "causal": [True, False], "scaled": [True, False],
        "trace": [[("x", (4, 8))]], "headers": [["a", "b"]], "rows": [[[1.0, "x"]], [0, 1]], "digits": [2],
        "n_bytes": [2048], "width": [3.0, 10], "height": [2.0], "description": ["q[0]"],
        "kv_heads": [1], "batch": [2], "k_top": [3], "max_new_tokens": [2], "hidden_size": [8],
        # notebooks 11–12's methods
        "score": ["induction", "previous"], "kind": ["zero", "mean"], "copy": ["second"], "heads": [[(0, 1)], 2],
        "head": [(0, 1)], "sender": [(0, 1)], "receiver": [(1, 0)], "removed": [(0, 1)], "row": [0],
        "share": [0.5], "draws": [1], "ks": [(1,)], "exclude_top": [1], "ranks": [1],
        "into": ["k"], "draw": [0],
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


def _circuit_and_heads():
    """Small valid objects of notebooks 11–12's modules (a 2-layer circuit model on 8 tokens, a
    study of the tiny real model), shared by the baselines and the method walks below."""
    from helpers import circuit, heads, real_model
    from helpers.circuit import history, sweep, trainer
    from helpers.heads import scan as head_scan

    config = circuit.Config(vocab=8, length=8, d_model=8, heads=2, layers=2)
    task = circuit.Task(vocab=8, length=8, min_repeat=2, max_repeat=3)
    model = circuit.init_model(config, 0)
    batch = circuit.sequences(4, 0, task)
    cache = circuit.forward(model, batch.tokens)
    small_run = trainer.train(config, task, steps=200, batch_size=4, eval_every=100, checkpoints=(200,))  # drop(): 200-step window
    summary = sweep.table("two_layers")[0]
    tiny = VALID["model"][0]
    ids = np.array([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]])
    clean = real_model.forward(tiny, ids, keep_inputs=True)
    study = heads.HeadStudy(tiny, length=4, seeds=(0, 1), pool=range(256))
    return dict(config=config, task=task, model=model, batch=batch, cache=cache, run=small_run, summary=summary,
                scores=circuit.experiments.ablate(model, batch, []), history=history.load(), tiny=tiny, ids=ids,
                clean=clean, study=study, scan=head_scan.load_scan(), senders=heads.load_senders(),
                tiny_senders=heads.Senders(heads.senders.compute({"study": study, "fresh": study, "long": study},
                                                                 receiver=(1, 0))))


NEW = _circuit_and_heads()

BAD = _bad_values()


def _small_sqrt_d_rows():
    from helpers import training

    return training.sqrt_d_experiment((2,), target=0.3, steps=3, init_seeds=(0,))


SMALL_SQRT_D_ROWS = _small_sqrt_d_rows()


#: parameters whose *default* (None) runs a notebook's whole computation: the walk passes the
#: baseline's value instead of None there (None → the full √d experiment, 24 training runs)
EXPENSIVE_DEFAULTS = {"helpers.training.experiment.sqrt_d_pairs": "rows"}

#: parameters that set the work, with the largest valid value the walk lets through (a generated
#: `steps=15000` is allowed by train's guard but is minutes of CPU): larger valid integers are
#: replaced by the baseline's value; invalid ones still reach the checks
CAPPED = {"helpers.circuit.trainer.train": {"steps": 5, "batch_size": 8},
          "helpers.circuit.task.sequences": {"n": 64},
          "helpers.circuit.task.positional_ceiling": {"samples": 1000},
          "helpers.circuit.backprop.gradient_check": {"n_sequences": 2},
          "helpers.heads.scan.compute": {"draws": 2},
          "helpers.heads.stats.spread": {"resamples": 5000},
          "helpers.heads.experiment.HeadStudy": {"length": 6}}


def _baselines():
    """A consistent valid call for functions whose arguments must fit together (shapes, models);
    the walk then makes one argument bad at a time. Optional: a function not listed here is still
    walked with the per-name values above."""
    from helpers import example, layer, readable_tokens, training
    from helpers.render import web

    rng = np.random.default_rng(2)
    spelling = readable_tokens.spell(["å¹", "´", "Ġa"])
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
        "helpers.render.controls.weights_template": dict(tokens=example.TOKENS, field="weights"),
        "helpers.render.format.fill": dict(template="和 = {x:.3f}；{v:.1f}；{t}", values={"x": 0.5, "v": [1.0], "t": "年"}),
        "helpers.render.web.check_view": dict(view={"title": "", "panels": [web.bars(["a"], [0.5])]}),
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
        "helpers.real_model.experiments.first_position_weight": dict(weights=[np.full((2, 5, 5), 0.2)] * 2),
        "helpers.readable_tokens.Spelling": dict(pieces=["å¹", "´", "Ġa"]),
        "helpers.readable_tokens.spell": dict(pieces=["å¹", "´", "Ġa"]),
        "helpers.readable_tokens.piece_bytes": dict(piece="å¹"),
        "helpers.readable_tokens.visible": dict(text=" a\n", keep_space=True),
        "helpers.readable_tokens.group_attention": dict(weights=np.full((3, 3), 1 / 3), spelling=spelling),
        "helpers.readable_tokens.within_run_weight": dict(weights=np.full((3, 3), 1 / 3), spelling=spelling),
        "helpers.real_model.forward_pass.forward": dict(model=model, ids=[1, 2, 3], mask=np.zeros((3, 3))),
        "helpers.real_model.generation.generate": dict(model=model, ids=[1, 2], max_new_tokens=2),
        "helpers.real_model.generation.next_token_top": dict(model=model, ids=[1, 2], k=3),
        "helpers.real_model.generation.perplexity": dict(model=model, ids=[1, 2, 3]),
        "helpers.real_model.experiments.perplexity_with_wrong_rope": dict(model=model, ids=[1, 2, 3]),
        "helpers.real_model.experiments.head_values": dict(model=model, result=VALID["result"][0], layer=1),
        "helpers.real_model.block.rms_norm": dict(x=rng.standard_normal((3, 8)), weight=np.ones(8), eps=1e-5),
        "helpers.real_model.load.unpermute_qk": dict(weight=f32, n_heads=2),
        "helpers.real_model.experiments.permute_qk": dict(weight=f32, n_heads=2),
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
        "helpers.real_model.tokenizer.decode": dict(model=model, ids=[1, 2]),
        "helpers.real_model.tokenizer.token_strings": dict(model=model, ids=[1, 2]),
        "helpers.real_model.tokenizer.encode": dict(model=model, text="hi"),
        # training: small sizes, few steps, and a low accuracy target that ends a run early, so
        # a generated `steps` or `d` never retrains the notebook's runs for every example
        "helpers.training.trainer.train": dict(d=2, steps=3, stop_at=0.3, checkpoints=(), test_every=None),
        "helpers.training.model.init_params": dict(d=2, seed=0),
        "helpers.training.backprop.gradient_check": dict(d=2, n_sentences=2, seed=0),
        "helpers.training.experiment.sqrt_d_experiment": dict(dims=(2,), target=0.3, steps=3, init_seeds=(0,)),
        "helpers.training.experiment.sqrt_d_pairs": dict(rows=SMALL_SQRT_D_ROWS),
        "helpers.training.task.encode": dict(sentences=[training.EXAMPLES[0]], seed=0),
        "helpers.training.task.dataset": dict(split="test", seed=training.SEED),
        **_new_baselines(),
    }


def _new_baselines():
    """Valid calls of every public function of notebooks 11–12's modules (helpers.circuit, patching,
    nulls, head_scan, heads, logit_attribution) and of the display tables."""
    import dataclasses as dc

    n = NEW
    weights = np.stack(n["cache"].weights, axis=1).reshape(4, -1, 8, 8)
    tiny, ids, clean = n["tiny"], n["ids"], n["clean"]
    real = dict(model=tiny, ids=ids, layer_inputs=clean.layer_inputs, final_residual=clean.final_residual)
    study = n["study"]
    return {
        "helpers.circuit.backprop.backward": dict(model=n["model"], cache=n["cache"]),
        "helpers.circuit.backprop.gradient_check": dict(n_sequences=1, seed=0),
        "helpers.circuit.backprop.loss_and_grads": dict(model=n["model"], tokens=n["batch"].tokens),
        "helpers.circuit.backprop.numerical_gradient": dict(model=n["model"], tokens=n["batch"].tokens[:1]),
        "helpers.circuit.history.shown_index": dict(batch=None),
        "helpers.circuit.experiments.ablate": dict(model=n["model"], batch=n["batch"], heads=[(0, 1)]),
        "helpers.circuit.experiments.mean_ablate": dict(model=n["model"], batch=n["batch"], heads=[(0, 1)]),
        "helpers.circuit.experiments.patch": dict(model=n["model"], batch=n["batch"], head=(0, 1), into="k"),
        "helpers.circuit.experiments.composition_effects": dict(model=n["model"], batch=n["batch"], head=(0, 1)),
        "helpers.circuit.experiments.ablation_effects": dict(model=n["model"], batch=n["batch"]),
        "helpers.circuit.model.Config": dict(vocab=8, length=8, d_model=8, heads=2, layers=2),
        "helpers.circuit.model.forward": dict(model=n["model"], tokens=n["batch"].tokens),
        "helpers.circuit.model.run": dict(model=n["model"], tokens=n["batch"].tokens),
        "helpers.circuit.model.init_model": dict(config=n["config"], seed=0),
        "helpers.circuit.scores.induction_score": dict(weights=weights, batch=n["batch"]),
        "helpers.circuit.scores.duplicate_token_score": dict(weights=weights, batch=n["batch"]),
        "helpers.circuit.scores.repeat_losses": dict(cache=n["cache"], batch=n["batch"]),
        "helpers.circuit.scores.scores_of": dict(cache=n["cache"], batch=n["batch"]),
        "helpers.circuit.scores.head_scores": dict(model=n["model"], batch=n["batch"]),
        "helpers.circuit.scores.scores_with": dict(model=n["model"], batch=n["batch"], interventions=None),
        "helpers.circuit.sweep.Summary": {f.name: getattr(n["summary"], f.name) for f in dc.fields(n["summary"])},
        "helpers.circuit.sweep.summarize": dict(variant="two_layers", seed=0, run=n["run"]),
        "helpers.circuit.sweep.table": dict(variant="two_layers"),
        "helpers.circuit.task.Task": dict(vocab=8, length=8, min_repeat=2, max_repeat=3),
        "helpers.circuit.task.Batch": {name: getattr(n["batch"], name)
                                       for name in ("task", "tokens", "first", "second", "repeat")},
        "helpers.circuit.task.sequences": dict(n=4, seed=0, task=n["task"]),
        "helpers.circuit.task.positional_ceiling": dict(task=n["task"], samples=100),
        "helpers.circuit.trainer.TrainingRun": dict(config=n["config"], task=n["task"], lr=1e-3, seed=0, batch_size=4),
        "helpers.circuit.trainer.eval_batch": dict(task=n["task"]),
        "helpers.circuit.trainer.steepest_drop": dict(steps=[0, 25, 50, 75], loss=[3.0, 2.5, 1.0, 0.9], window=25),
        "helpers.circuit.trainer.train": dict(config=n["config"], task=n["task"], steps=3, batch_size=4, eval_every=1),
        "helpers.display.show_table": dict(headers=["a", "b"], rows=[[1.0, "x"]]),
        "helpers.render.table.table": dict(headers=["a", "b"], rows=[[1.0, [0.5, 2.0]]]),
        "helpers.render.table.Table": dict(headers=("a",), rows=(("1",),), align=("right",)),
        "helpers.heads.scan.Scan": dict(arrays=n["scan"].arrays),
        "helpers.heads.report.set_table": dict(scan=n["scan"]),
        "helpers.heads.report.random_set_lines": dict(scan=n["scan"]),
        "helpers.heads.report.set_side_lines": dict(scan=n["scan"]),
        "helpers.heads.report.score_rank": dict(study=study, name="induction", head=(0, 1)),
        "helpers.heads.report.leader_table": dict(study=study, scan=n["scan"], leaders=[(0, 1)]),
        "helpers.heads.report.composition_rows": dict(study=study, patched=study.composition((0, 1), (1, 0))),
        "helpers.heads.report.direct_shares": dict(study=study),
        "helpers.heads.report.attribution_table": dict(study=study, heads=[(0, 1)]),
        "helpers.heads.report.attribution_lines": dict(study=study, head=(0, 1), top=2),
        "helpers.heads.report.direct_path_change": dict(study=study, head=(0, 1)),
        "helpers.heads.report.logit_shift_lines": dict(study=study, head=(0, 1), top=2),
        "helpers.reading.attention_patterns": dict(weights=np.eye(3), n_min=2),
        "helpers.attention.target_loss": dict(logits=np.zeros((2, 3)), targets=np.array([0, 2])),
        "helpers.heads.scan.compute": dict(study=study, ks=(1,), draw_ks=(2,), draws=1, kinds=("zero",),
                                          draw_kinds=("zero",)),
        "helpers.heads.scan.load_scan": dict(path=None),
        "helpers.heads.senders.Senders": dict(arrays=n["senders"].arrays),
        "helpers.heads.senders.load_senders": dict(path=None),
        "helpers.heads.senders.compute": dict(studies={"study": study, "fresh": study, "long": study},
                                              receiver=(1, 0)),
        "helpers.heads.senders.recompute": dict(study=study, sender=(0, 1), receiver=(1, 0)),
        "helpers.heads.senders.screen_scores": dict(study=study, receiver=(1, 0)),
        "helpers.heads.senders.between_change": dict(study=study, sender=(0, 1), receiver=(1, 0)),
        "helpers.heads.senders.same_size_directions": dict(study=study, sender=(0, 1), receiver=(1, 0), draws=2),
        "helpers.heads.senders.direction_controls": dict(study=study, receiver=(1, 0)),
        "helpers.heads.senders.removal_view": dict(study=study, stored=n["tiny_senders"], sender=(0, 1)),
        "helpers.heads.scan.random_set": dict(k=2, draw=0, shape=(30, 9)),
        "helpers.heads.scan.recompute": dict(study=study, entry=("single", "zero", [(0, 1)])),
        "helpers.heads.scan.tracked_heads": dict(study=study),
        "helpers.heads.experiment.HeadStudy": dict(model=tiny, length=4, seeds=(0, 1), pool=range(256)),
        "helpers.heads.scores.all_scores": dict(weights=study.weights, length=4),
        "helpers.heads.sequences.copy_losses": dict(losses=study.losses, length=4),
        "helpers.heads.scores.induction_score": dict(weights=study.weights, length=4),
        "helpers.heads.scores.duplicate_token_score": dict(weights=study.weights, length=4),
        "helpers.reading.previous_token_score": dict(weights=study.weights),
        "helpers.reading.sink_score": dict(weights=study.weights),
        "helpers.heads.experiment.output_constancy": dict(outputs=study.reference_outputs()),
        "helpers.heads.scores.random_heads": dict(k=2, seed=0, shape=(2, 2)),
        "helpers.heads.sequences.repeated_sequence": dict(pool=np.arange(10, 100), length=4, seed=0),
        "helpers.heads.sequences.unrepeated_sequence": dict(pool=np.arange(10, 100), length=4, seed=0),
        "helpers.heads.scores.top_heads": dict(score=np.ones((2, 2)), k=2),
        "helpers.heads.sequences.word_pool": dict(tokens=["Ġword", "a"]),
        "helpers.heads.attribution.centred_unembedding": dict(model=tiny, tokens=[1, 2]),
        "helpers.heads.attribution.frozen_scale": dict(model=tiny, final_residual=clean.final_residual),
        "helpers.heads.attribution.head_logit_attribution": dict(**real, positions=[1, 2]),
        "helpers.heads.attribution.direct_path_losses": dict(**real, head=(0, 1), positions=[1, 2]),
        "helpers.heads.attribution.direct_logit_shift": dict(**real, head=(0, 1), positions=[1, 2]),
        "helpers.heads.stats.percentile": dict(value=0.5, null=[0.1, 0.9]),
        "helpers.heads.stats.rank_correlation": dict(x=[1.0, 2.0, 3.0], y=[3.0, 1.0, 2.0]),
        "helpers.heads.stats.ranks": dict(values=[1.0, 2.0, 2.0]),
        "helpers.heads.stats.spread": dict(values=[1.0, 2.0, 3.0], resamples=100),
        "helpers.heads.stats.spread_text": dict(values=[1.0, 2.0], null=[0.5, 3.0]),
        "helpers.heads.patching.composition": dict(model=tiny, ids=ids, layer_inputs=clean.layer_inputs, sender=(0, 1),
                                             receiver=(1, 0)),
        "helpers.heads.patching.sender_screen": dict(model=tiny, layer_inputs=clean.layer_inputs, receiver=(1, 0)),
        "helpers.heads.patching.composition_screen": dict(model=tiny, layer_inputs=clean.layer_inputs, sender=(0, 1)),
        "helpers.heads.patching.receiver_pattern": dict(model=tiny, layer_inputs=clean.layer_inputs, sender=(0, 1),
                                                  receiver=(1, 0)),
        "helpers.real_model.one_head.head_write": dict(model=tiny, layer=0, head=1, z=np.ones((6, 4))),
        "helpers.heads.patching.pattern_change": dict(a=np.eye(4), b=np.full((4, 4), 0.25)),
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
                     "helpers.real_model.forward_pass.forward", "helpers.widgets.qkv_explorer", "helpers.config.ModelConfig",
                     "helpers.render.format.fmt", "helpers.tiled.growth_exponent", "helpers.figures.attention_layer.divisors"):
        assert expected in CALLABLES, expected
    assert len(CALLABLES) * EXAMPLES >= 1000, f"only {len(CALLABLES)} callables × {EXAMPLES} examples"


@pytest.mark.parametrize("qualname", list(BASELINES))
def test_baseline_calls_are_valid_and_finite(qualname):
    """The valid calls the walk starts from really are valid (so one bad argument is what fails)."""
    assert qualname in CALLABLES, f"{qualname} is not a walked callable"
    assert_finite(CALLABLES[qualname](**BASELINES[qualname]), qualname)


def _cap(qualname, fn, args, kwargs):
    """Replace valid but expensive sizes (see :data:`CAPPED`) by the baseline's, in place."""
    params = [p.name for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    for name, cap in CAPPED.get(qualname, {}).items():
        i = params.index(name)
        value = args[i] if i < len(args) else kwargs.get(name)
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value > cap:
            if i < len(args):
                args[i] = BASELINES[qualname].get(name, cap)
            else:
                kwargs[name] = BASELINES[qualname].get(name, cap)


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
    _cap(qualname, fn, args, kwargs)
    CASES[call_and_check(qualname, fn, args, kwargs, names)] += 1
    WALKED.add(qualname)


#: public methods of notebooks 11–12's classes, on the small objects of :data:`NEW`
_NEW_METHODS = [
    (NEW["scores"], ("best",)),
    (NEW["batch"], ("subset", "most_repeated", "marked")),
    (NEW["cache"], ("head_outputs",)),
    (NEW["model"], ("copy",)),
    (NEW["run"], ("curve", "drop", "at")),
    (NEW["summary"], ("value_at", "window", "share_of_top", "reaches")),
    (NEW["history"], ("index",)),
    (NEW["senders"], ("clean", "scores", "ranked", "directions")),
    (NEW["scan"], ("copy_index", "single_change", "set_change", "draw_change", "null", "score_after", "draw_set")),
    (NEW["study"], ("top", "replacements", "intervene", "ablate", "composition", "second_copy_loss_without")),
]


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
        # compute and the methods that take a state: the explorer base class checks them for every explorer
        "WeightedAverageExplorer.compute": lambda: widgets.weighted_average_explorer().compute,
        "HandCalculationExplorer.compute": lambda: widgets.hand_calculation_explorer().compute,
        "CostExplorer.compute": lambda: widgets.cost_explorer().compute,
        "QueryWeightsExplorer.web_view": lambda: widgets.query_weights_explorer().web_view,
        "CostExplorer.describe": lambda: widgets.cost_explorer().describe,
        **{f"{type(obj).__name__}.{name}": (lambda obj=obj, name=name: getattr(obj, name))
           for obj, names in _NEW_METHODS for name in names},
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
    method = _method(qualname) if "Explorer." in qualname else METHODS[qualname]()
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


# ---- the exercise checkers: check() answers any answer with a sentence ---------------------------
def _check_contexts():
    """The context each exercise's solve reads in its notebook (the tiny model's stand-ins)."""
    from helpers import real_model
    from helpers.exercises import previous_token_ranking

    short = real_model.forward(NEW["tiny"], [1, 2, 3, 4, 5, 6]).weights
    return {"09-1": dict(short=short, ranked=previous_token_ranking(short)), "09-3": exercise_context("09-3"),
            **{key: dict(study=NEW["study"]) for key in ("12-1", "13-2")}}


#: exercises whose solve needs more than the stand-in context gives (left out of the walk; their
#: malformed answers are tests in tests/series/test_exercises.py)
TOO_SMALL = {"13-1": "its solve compares the top 5 heads of a score; the tiny model has 4",
             "13-4": "its solve screens head 20.6's senders; the tiny model has 2 layers"}


CHECK_CONTEXTS = _check_contexts()

answers = st.one_of(st.sampled_from(BAD), generated, st.text(max_size=30),
                    st.sampled_from(["x" * 100_000, "1" + "倍" * 50_000, "2.5" + "q" * 10_000, ["a"] * 10_000,
                                     "是", "0.5", "[0.5, 0.5]", "第 3 层", "归纳头", None]))


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_check_answers_any_answer_with_a_short_sentence(data):
    """check(key, answer): prints a verdict or a Chinese hint of a few hundred characters at most
    (an unreadable answer is previewed in ≤ 200 characters, never echoed) and returns True, False or
    None (as the ``ok`` of the Verdict it returns) — whatever the answer, and whatever the key."""
    import contextlib
    import io

    from helpers import exercises

    key = data.draw(st.one_of(st.sampled_from(sorted(set(exercises.EXERCISES) - set(TOO_SMALL))), st.sampled_from(BAD),
                              st.sampled_from(["99-1", "k" * 100_000])), label="key")
    answer = data.draw(answers, label="answer")
    context = CHECK_CONTEXTS.get(key, {}) if isinstance(key, str) else {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        verdict = exercises.check(key, answer, **context)
    assert isinstance(verdict, exercises.Verdict) and verdict.ok in (True, False, None)
    text = out.getvalue()
    assert text.strip() and len(text) < 2000, (len(text), text[:300])
    if verdict.ok is None and answer is not None:   # an unreadable answer: its hint stays short
        assert len(text) < 400, text[:300]


# ---- the attention-lab command: one sentence, never a traceback ------------------------------------
CLI_FOLDERS = ["", " ", ".", "sub/dir", "a" * 300, "名" * 90, "/".join(["b" * 200] * 25), "a\0b", "~", "-x",
               "new", "file.txt", "copy", "--force", "--help"]
CLI_RECORDS = [None, '{"files": []}', '{"files": {"00_index.ipynb": 1}}', "{broken", "[]", b"\xff\xfe",
               '{"files": {}}', '{"files": null}']


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_command_answers_any_arguments_in_one_sentence(data, tmp_path_factory, monkeypatch, capsys):
    """``attention-lab`` with generated arguments and a stray or broken record: exit status 0, or 1/2
    with exactly one line on stderr; never a traceback; a refusal (2) writes nothing."""
    from pathlib import Path

    from helpers import cli

    home = tmp_path_factory.mktemp("cli")
    monkeypatch.chdir(home)
    monkeypatch.setattr(cli.os, "execv", lambda *a: (_ for _ in ()).throw(SystemExit(0)))  # never start JupyterLab
    (home / "file.txt").write_text("not a folder", encoding="utf-8")
    (home / "copy").mkdir()
    record = data.draw(st.sampled_from(CLI_RECORDS), label="record")
    if record is not None:
        path = home / "copy" / cli.RECORD
        path.write_bytes(record if isinstance(record, bytes) else record.encode())
    argv = [data.draw(st.sampled_from(["notebooks", "lab", "bogus", "--version"]), label="command")]
    argv += data.draw(st.lists(st.one_of(st.sampled_from(CLI_FOLDERS), st.text(max_size=8)), max_size=2), label="args")
    before = {str(p): p.stat().st_size for p in home.rglob("*")}
    try:
        status = cli.main(argv)
    except SystemExit as done:   # --help / --version print and exit 0, as argparse does
        assert done.code in (0, None)
        return
    err = capsys.readouterr().err
    assert status in (0, 1, 2)
    if status:
        assert err.count("\n") == 1 and err.startswith("attention-lab: ") and len(err) < 600, err
    if status == 2:
        assert {str(p): p.stat().st_size for p in Path(home).rglob("*")} == before, argv
