"""What an explorer's output holds, and why stored outputs are byte-stable (tools/notebooks/execute.py)."""

import nbformat
import pytest
from paths import ROOT

from helpers import display, widgets
from helpers.render.explorer import STATIC_HINT, WIDGET_VIEW
from tools.notebooks import execute as execute_notebooks
from tools.series import NOTEBOOKS


def test_explorer_bundle_has_live_widget_picture_and_hint():
    explorer = widgets.query_weights_explorer()
    data, metadata = explorer.mime_bundle()
    assert set(data) == {WIDGET_VIEW, "image/png", "text/plain"}
    assert data[WIDGET_VIEW]["model_id"] == explorer.widget.model_id
    assert data["text/plain"] == STATIC_HINT and "VBox" not in data["text/plain"]
    width, height = display.png_size(data["image/png"])
    fig_width, fig_height = display.png_size(explorer.png)
    assert width == fig_width and height > fig_height  # the figure under a band with the hint
    assert metadata["image/png"]["width"] == width // 2  # shown at half its pixel width: 2x density


def test_live_image_widget_is_shown_at_half_its_pixel_width():
    explorer = widgets.dilution_explorer()
    assert explorer.image.layout.width == f"{display.png_size(explorer.png)[0] // 2}px"


def test_static_figures_are_shown_at_half_their_pixel_width_and_png_bytes_are_stable():
    fig = display.new_figure(3.0, 2.0)
    fig.add_subplot().plot([0, 1], [0, 1])
    first, second = display.figure_png(fig), display.figure_png(fig)
    assert first == second and b"Software" not in first and b"matplotlib" not in first.lower()
    assert display.display_width(first) == display.png_size(first)[0] // 2 == 3 * display.DPI


def notebook_with(outputs, source="helpers.widgets.dilution_explorer()"):
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    nb.cells.append(cell)
    return nb


def test_stabilise_drops_widget_views_and_widget_state():
    out = {"output_type": "display_data", "metadata": {"image/png": {"width": 10}},
           "data": {WIDGET_VIEW: {"model_id": "abc", "version_major": 2, "version_minor": 0},
                    "image/png": "iVBOR", "text/plain": STATIC_HINT}}
    nb = execute_notebooks.stabilise(notebook_with([out]))
    assert "widgets" not in nb.metadata
    assert set(nb.cells[0].outputs[0]["data"]) == {"image/png", "text/plain"}


@pytest.mark.parametrize("new_text, kept", [("n = 512: 3.1 ms\n", True), ("n = 512: 3.1 ms, peak 4 MiB\n", False)])
def test_timing_cells_keep_their_outputs_unless_their_shape_changes(new_text, kept):
    source = "# NBVAL_IGNORE_OUTPUT\n# timing: machine-dependent\nprint(t)"
    old = [nbformat.v4.new_output("stream", name="stdout", text="n = 512: 2.7 ms\n")]
    nb = notebook_with([{"output_type": "stream", "name": "stdout", "text": new_text}], source)
    execute_notebooks.stabilise(nb, {source: old})
    assert (nb.cells[0].outputs == old) is kept


def test_printed_pieces_are_joined_whatever_the_kernel_split():
    pieces = [{"output_type": "stream", "name": "stdout", "text": t} for t in ("a\n", "b\n")]
    nb = execute_notebooks.stabilise(notebook_with(pieces, "print('a'); print('b')"))
    assert [o["text"] for o in nb.cells[0].outputs] == ["a\nb\n"]


def test_committed_notebooks_store_pictures_not_widget_state():
    for name in NOTEBOOKS:
        nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
        assert "widgets" not in nb.metadata, name
        for cell in nb.cells:
            if cell.cell_type == "code" and "helpers.widgets." in cell.source:
                assert len(cell.outputs) == 1, (name, cell.source)
                data = cell.outputs[0]["data"]
                assert set(data) == {"image/png", "text/plain"} and data["text/plain"] == STATIC_HINT, name
