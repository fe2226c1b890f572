"""Attention Lab helpers: the code behind the notebooks (``import helpers``).

Core modules are numpy-only and import fast; plotting, widgets and the real model load on
first use. Each function's docstring names the notebook that teaches it.

- :mod:`helpers.attention`  softmax, scaled dot-product attention, causal mask
- :mod:`helpers.example`    the article's running example (年 假 怎么 申请)
- :mod:`helpers.config`     published model configs and counts derived from them
- :mod:`helpers.display`    figure/number display used by every notebook
- :mod:`helpers.plots`      plot builders shared by static figures and explorers
- :mod:`helpers.render.explorer`   the explorer pattern; :mod:`helpers.widgets` its entry points
- :mod:`helpers.render.validation` the argument checks every public function starts with: bad input
  is a ``ValueError``/``TypeError`` naming the argument, never a silent NaN
"""
from __future__ import annotations

import importlib
import importlib.util

from . import attention, config, example
from .attention import causal_mask, scaled_dot_product_attention, softmax
from .config import LLAMA_3_1_8B, PRESETS
from .render import validation

__version__ = "0.1.0"

def __getattr__(name):
    """Load submodules (plots, widgets, the real model, …) on first use: ``import helpers`` stays fast."""
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")


def setup() -> None:
    """Prepare a notebook: register the bundled Chinese font for matplotlib and apply the series'
    figure style (every notebook's setup cell calls this; see ``00_index``). Prints nothing."""
    from .render import style
    from .render.fonts import register_cjk_font

    register_cjk_font()
    style.apply()


__all__ = ["attention", "config", "example", "validation", "softmax", "causal_mask",
           "scaled_dot_product_attention", "LLAMA_3_1_8B", "PRESETS", "setup"]
