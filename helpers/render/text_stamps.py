"""Text drawn once, stamped many times: the explorers' fast path for redrawn labels.

An explorer redraws its changing text (weights on bars, numbers in heatmap cells) on every move.
matplotlib lays out and rasterises each string from the font every time it is drawn, which at 2×
density costs about 1–2 ms per short string — most of a move in a heatmap with numbers in its
cells. The same few strings come back again and again ("0.735", "−∞", a token), so
:class:`TextStamps` rasterises a string once (in black on white, with the text's font, size,
rotation and alignment) and afterwards blends that coverage mask in the text's colour straight into
the canvas's pixels. Matplotlib's Agg renderer also places text bitmaps on whole pixels, so a stamp
lands where a drawn text would (``tests/unit/test_text_stamps.py`` compares the two).

Text this cannot reproduce exactly (a background box, path effects, a clip path) is drawn the
normal way. Used by :meth:`helpers.render.explorer.Explorer.render`; taught nowhere (plumbing).
"""
from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform

from .memo import ByteLRU
from .palette import BLACK, WHITE
from .validation import finite_scalar, positive_int

#: a scratch canvas this size (pixels) must hold the string; longer text is drawn normally (a
#: small canvas keeps a first sighting cheap: clearing and scanning it costs well under 1 ms)
SCRATCH = (640, 128)
#: bytes of masks one figure keeps (one byte per pixel: a number in a cell is a few hundred bytes,
#: a long title at 2× some tens of kilobytes); the least recently stamped go first
MAX_BYTES = 4 * 2 ** 20


class TextStamps:
    """A per-figure cache of rasterised strings; :meth:`draw` stamps a ``Text`` artist."""

    def __init__(self, dpi: float, max_bytes: int = MAX_BYTES):

        self.dpi = finite_scalar("dpi", dpi, low=10.0, high=1200.0)
        self._masks = ByteLRU(positive_int("max_bytes", max_bytes, maximum=2 ** 34))
        self._scratch = Figure(figsize=(SCRATCH[0] / self.dpi, SCRATCH[1] / self.dpi), dpi=self.dpi)
        self._scratch.patch.set_facecolor(WHITE)
        FigureCanvasAgg(self._scratch)
        self._scratch.canvas.draw()
        self._blank = self._scratch.canvas.copy_from_bbox(self._scratch.bbox)
        self._probe = self._scratch.text(0, 0, "")

    @staticmethod
    def can_stamp(text) -> bool:
        """Whether ``text`` is a plain ``Text`` a stamp reproduces (else it is drawn normally)."""
        return (type(text) is Text and text.get_bbox_patch() is None and not text.get_path_effects()
                and not text.get_usetex() and not (text.get_clip_on() and text.get_clip_path() is not None))

    def _key(self, text) -> tuple:
        return (text.get_text(), text.get_fontproperties(), float(text.get_rotation()), text.get_ha(),
                text.get_va(), text.get_rotation_mode(), getattr(text, "_linespacing", None),
                getattr(text, "_multialignment", None))

    @property
    def nbytes(self) -> int:
        """Bytes the kept masks hold (at most ``max_bytes``, see :data:`MAX_BYTES`)."""
        return self._masks.nbytes

    def _mask(self, text):
        """``(red, dx, dy)``: the string drawn in black on white, as the red channel of its bounding
        box (uint8: the coverage is ``1 − red/255``), and the offset (pixels, y down) of its top-left
        corner from the anchor pixel; ``None`` when it does not fit the scratch."""
        key = self._key(text)
        if key in self._masks:
            return self._masks.get(key)

        canvas = self._scratch.canvas
        canvas.restore_region(self._blank)
        probe = self._probe
        probe.update_from(text)
        probe.set_text(text.get_text())
        probe.set_fontproperties(text.get_fontproperties())
        probe.set_rotation(text.get_rotation())
        probe.set_rotation_mode(text.get_rotation_mode())
        probe.set_ha(text.get_ha())
        probe.set_va(text.get_va())
        probe.set_color(BLACK)
        probe.set_alpha(None)
        probe.set_transform(IdentityTransform())  # update_from copied the source's transform and clipping
        probe.set_clip_on(False)
        probe.set_visible(True)
        ax, ay = SCRATCH[0] // 2, SCRATCH[1] // 2
        probe.set_position((ax, ay))
        extent = probe.get_window_extent(canvas.get_renderer())
        self._scratch.draw_artist(probe)
        red = np.asarray(canvas.buffer_rgba())[..., 0]
        rows, cols = np.nonzero((red < 255).any(axis=1))[0], np.nonzero((red < 255).any(axis=0))[0]
        if rows.size == 0:
            entry = (np.zeros((0, 0), dtype=np.uint8), 0, 0)
        elif not (2 < extent.x0 and extent.x1 < SCRATCH[0] - 2 and 2 < extent.y0 and extent.y1 < SCRATCH[1] - 2):
            entry = None  # does not fit the scratch: it may be cut, so draw it the normal way
        else:
            top, left = rows[0], cols[0]
            crop = red[top:rows[-1] + 1, left:cols[-1] + 1].copy()  # 1 byte per pixel, not 8 (float)
            entry = (crop, int(left - ax), int(top - (SCRATCH[1] - ay)))
        self._masks.put(key, entry, size=(0 if entry is None else entry[0].nbytes) + 200)
        return entry

    def draw(self, text, canvas) -> bool:
        """Stamp ``text`` into ``canvas``'s pixels; ``False`` when it must be drawn normally."""
        if not self.can_stamp(text):
            return False
        if not text.get_visible() or not text.get_text():
            return True
        entry = self._mask(text)
        if entry is None:
            return False
        red, dx, dy = entry
        if red.size == 0:
            return True

        pixels = np.asarray(canvas.buffer_rgba())
        height, width = pixels.shape[:2]
        x, y = text.get_transform().transform(text.get_unitless_position())
        if not np.isfinite([x, y]).all():
            return True
        left, top = int(round(x)) + dx, int(round(height - y)) + dy
        x0, y0, x1, y1 = left, top, left + red.shape[1], top + red.shape[0]
        if text.get_clip_on() and text.get_clip_box() is not None:
            box = text.get_clip_box()
            x0, x1 = max(x0, int(np.floor(box.x0))), min(x1, int(np.ceil(box.x1)))
            y0, y1 = max(y0, int(np.floor(height - box.y1))), min(y1, int(np.ceil(height - box.y0)))
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
        if x0 >= x1 or y0 >= y1:
            return True
        r, g, b, a = to_rgba(text.get_color(), text.get_alpha())
        coverage = 1.0 - red[y0 - top:y1 - top, x0 - left:x1 - left] / 255.0  # as the scratch drew it
        cover = coverage[..., None] * a
        region = pixels[y0:y1, x0:x1, :3]
        colour = np.array([r, g, b]) * 255.0
        region[...] = np.rint(region + (colour - region) * cover).astype(np.uint8)
        return True

