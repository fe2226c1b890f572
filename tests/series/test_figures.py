"""Every figure a reader sees passes the figure check (``tests/support/figure_check.py``).

- static figures: each notebook's code runs here (widget cells left out) and every figure it
  hands to ``helpers.display.show`` is checked, so the figures are built exactly as the notebook
  builds them; every figure builder in ``helpers.plots`` must be used by a notebook;
- explorers: every explorer at its defaults, at both ends of every control, and with all
  controls at their low or high ends together;
- the check itself fails on each kind of defect it is meant to find.
"""
import re

import pytest
from explorer_checks import explorer_states, factory_params
from figure_check import explorer_draw, figure_problems
from notebook_figures import notebook_figures
from paths import ROOT

import helpers
from helpers import plots, widgets
from tools.series import NOTEBOOKS, REAL_MODEL


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.model) if n in REAL_MODEL else n for n in NOTEBOOKS])
def test_static_figures_of_each_notebook_pass_the_check(name):
    figures = notebook_figures(name)
    problems = [f"figure {i + 1}: {p}" for i, fig in enumerate(figures) for p in figure_problems(fig)]
    assert problems == []


BUILDERS = {name for name in plots.__all__
            if callable(getattr(plots, name)) and not isinstance(getattr(plots, name), type)
            and name != "head_mosaic"}


def test_every_figure_builder_is_used_by_a_notebook():
    """So the notebook runs above check every builder with the arguments readers see."""
    text = "".join((ROOT / "notebook_sources" / f"{n}.md").read_text(encoding="utf-8") for n in NOTEBOOKS)
    used = set(re.findall(r"helpers\.plots\.(\w+)\(", text))
    assert BUILDERS - used == set(), "figure builders no notebook shows"


@pytest.mark.slow
@pytest.mark.parametrize("name", factory_params())
def test_explorer_figure_passes_the_check_in_every_state(name):
    explorer = widgets.all_factories()[name]()
    defaults = dict(explorer.values)
    problems = []
    for label, values in explorer_states(explorer):
        explorer.set(**defaults)
        explorer.set(**values)  # after the defaults: a control may narrow another's options (06)
        problems += [f"{label}: {p}" for p in figure_problems(explorer.fig, draw=explorer_draw(explorer))]
    assert problems == []


def small_figure():
    fig = helpers.display.new_figure(3.0, 2.4)
    ax = fig.add_subplot()
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return fig, ax


def test_a_clean_figure_passes():
    fig, ax = small_figure()
    ax.bar([0, 1], [0.4, 0.8], color=helpers.render.palette.BASE)
    ax.set_ylim(0, 1)
    assert figure_problems(fig) == []


def test_legend_entries_told_apart_by_line_style_need_no_colour_distance():
    fig, ax = small_figure()
    ax.plot([0, 1], [0.2, 0.3], color=helpers.render.palette.PINK, label="q")
    ax.plot([0, 1], [0.6, 0.7], "--", color=helpers.render.palette.GREEN, label="k")
    ax.legend(loc="lower right")
    assert figure_problems(fig) == []


@pytest.mark.parametrize("defect, expected", [
    (lambda ax: (ax.bar([0, 1], [0.4, 1.6]), ax.set_ylim(0, 1)), "extends past the axes limits"),
    (lambda ax: ax.plot([0, 1], [0, 5]) and ax.set_ylim(0, 1), "outside the axes limits"),
    (lambda ax: ax.annotate("", xy=(8, 8), xytext=(0, 0), arrowprops={"arrowstyle": "->"})
     and ax.set_xlim(-4, 4) and ax.set_ylim(-4, 4), "arrow ends outside"),
    (lambda ax: (ax.text(0.5, 0.5, "w·v(年)"), ax.text(0.52, 0.5, "w·v(假)")), "overlap"),
    (lambda ax: ax.legend(handles=ax.plot([0, 1], [0, 1], label="tiny"), fontsize=7), "pt at the displayed size"),
    (lambda ax: ax.figure.text(0.9, 0.5, "a long label leaving the picture"), "leaves the figure"),
    (lambda ax: ax.set_xlabel(""), "x axis"),
    (lambda ax: (ax.bar([0], [1], color=helpers.render.palette.GREEN), ax.set_title("分数（灰）")), "names 灰"),
    (lambda ax: (ax.plot([0, 0.4, 0.42, 1], [0, 0, 1, 1], label="a line with a jump"), ax.legend(loc="upper left")),
     "runs through the legend text"),
    (lambda ax: (ax.plot([0, 1], [0.2, 0.3], color=helpers.render.palette.PINK, label="q"),
                 ax.plot([0, 1], [0.6, 0.7], color=helpers.render.palette.GREEN, label="k"),
                 ax.legend(loc="lower right")), "differ only by colour, ΔE00 4.9 < 10 under deuteranopia"),
])
def test_the_check_finds_each_kind_of_defect(defect, expected):
    fig, ax = small_figure()
    defect(ax)
    problems = figure_problems(fig)
    assert any(expected in p for p in problems), problems


def test_the_check_reads_explorers_animated_artists():
    """Animated artists are not drawn by canvas.draw(): the explorer's own render must be used."""
    explorer = widgets.query_weights_explorer()
    explorer.bars.bars[0].set_height(1.5)  # past ylim (0, 1): only visible through the render
    assert any("extends past" in p for p in figure_problems(explorer.fig, draw=explorer_draw(explorer)))


def test_the_check_finds_glyphs_cut_at_the_top_edge():
    """03's heatmaps under plain constrained layout: on the first draw the titles end 1.3 px past
    the top (inside the text tolerance) and their glyph tops are cut; the ink check sees it."""
    qkv = helpers.example.running_qkv()
    _, weights = helpers.scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    scores = helpers.attention.attention_scores(qkv.q, qkv.k)

    def build():
        return plots.heatmaps([scores, weights], ["分数 QKᵀ/√2", "权重 softmax(·)"], helpers.example.TOKENS,
                              helpers.example.TOKENS, vmin=None, vmax=None, highlight_row=3)

    fig = build()
    fig.set_layout_engine("constrained")  # the layout heatmaps used before
    assert any("ink on the top edge" in p for p in figure_problems(fig))
    assert figure_problems(build()) == []
