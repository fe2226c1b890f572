"""Attention Lab helpers: the code behind the notebooks (``import helpers``).

The top level holds the ideas the notebooks teach, in the series' order: a lesson imports the
plumbing and what its own or an earlier notebook teaches, never a later one (the first eight, one
head step by step, share theirs; ``tools/checks/layout.py`` checks it). Each module's docstring names its
notebooks:

- one attention head, step by step (01–08): ``helpers.example`` (the running example),
  ``helpers.weighting``, ``helpers.attention``, ``helpers.scaling``, ``helpers.kv_cache``,
  ``helpers.formula``, ``helpers.config``, ``helpers.layer``, ``helpers.cost``, ``helpers.tiled``,
  ``helpers.reading``;
- a real model (09): ``helpers.real_model`` (a package: model, load, tokenizer, block, one_head,
  forward_pass, generation, experiments, sentence), ``helpers.readable_tokens``, ``helpers.texts``;
- learning (10, 11): ``helpers.gradcheck``, ``helpers.training`` (a package: task, model, backprop,
  optim, trainer, readouts, experiment), ``helpers.circuit`` (a package: task, model, backprop, trainer,
  experiments, scores, history, sweep), ``helpers.interventions`` (what an experiment does to a head:
  11's words, which 12 uses on the real model too);
- what a real model's heads do (12): ``helpers.heads`` (a package: scores, sequences, experiment,
  patching, attribution, stats, scan, senders, report);
- after Llama-3.1 (14, 15): ``helpers.smaller_cache`` (a package: latent, streaming, sink_logit),
  ``helpers.linear_attention`` (a package: forms, model, recall, ledger).

The faces the notebooks call:

- :mod:`helpers.display`   showing figures and numbers (``show``, ``fmt_vec``, ``text_table`` …)
- :mod:`helpers.plots`     every figure builder of the series under one name
- :mod:`helpers.widgets`   one-line entry points for every live explorer
- :mod:`helpers.exercises` ``check("NN-i", answer)``, ``check_code``, ``reference``, ``closing_quiz``
- :mod:`helpers.cli`       the ``attention-lab`` command (the face a shell calls)

Each notebook's own pieces live in ``helpers/figures/<slug>.py``, ``helpers/explorers/<slug>.py`` and
``helpers/exercises/<slug>.py``. What no notebook teaches lives in two wings: :mod:`helpers.render`
(argument checks, number formatting, PNGs, palette, style, fonts, panels, the explorer pattern) and
:mod:`helpers.grading` (reading typed answers, checking the functions a learner writes). These maps
are checked against the tree (``tests/series/test_module_maps.py``).
Core modules are numpy-only and import fast; plotting, widgets and the real model load on first use.
Bad input is a ``ValueError``/``TypeError`` naming the argument, never a silent NaN
(:mod:`helpers.render.validation`).
"""
from __future__ import annotations

import importlib
import importlib.util

from . import attention, config, example, layer
from .attention import causal_mask, scaled_dot_product_attention, softmax
from .config import LLAMA_3_1_8B, PRESETS
from .grading import originals as _originals

# the graders' record of numpy's and these modules' functions, taken now: a learner's experiment
# (``np.exp = …``, ``helpers.layer.apply_rope = …``) before the exercises first load cannot change
# what their references compute with
_originals.record(__name__, attention.__name__, config.__name__, example.__name__, layer.__name__)

__version__ = "0.1.0"


def __getattr__(name):
    """Load submodules (plots, widgets, the real model, …) on first use: ``import helpers`` stays fast."""
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        # recorded before the learner's code can reach it: a later reassignment is the learner's
        _originals.remember_originals()
        return module
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")


def setup() -> None:
    """Prepare a notebook: register the bundled Chinese font for matplotlib and apply the series'
    figure style (every notebook's setup cell calls this; see ``00_index``). Prints nothing."""
    from .render import style
    from .render.fonts import register_cjk_font

    register_cjk_font()
    style.apply()


__all__ = ["attention", "config", "example", "softmax", "causal_mask",
           "scaled_dot_product_attention", "LLAMA_3_1_8B", "PRESETS", "setup"]
