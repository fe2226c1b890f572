"""``06_attention_layer``: RoPE's rotation picture, Llama-3.1's RoPE wavelengths, and the heads' weights
as tiles — :class:`TileLayout` decides where each head's tile goes (once, for the explorer's
:class:`MosaicPanel` and for the static :func:`heads_grid_figure`)."""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.transforms import Affine2D, offset_copy

from ..layer import rope_wavelengths
from ..render.memo import ByteLRU
from ..render.palette import ACCENT, MUTED, REFERENCE, TEXT_GREY
from ..render.panels import ceil_div, matrix_mesh
from ..render.png import new_figure
from ..render.validation import as_real_array, finite_scalar, nonneg_int, positive_int


def rope_rotation_figure(vector, positions, theta_step):
    """``06_attention_layer``: one 2-D pair of q rotated by position · θ (RoPE's picture)."""
    fig = new_figure(3.8, 3.8)
    ax = fig.add_subplot()
    v = np.asarray(vector, dtype=float)

    cmap = matplotlib.colormaps["viridis"]
    for i, p in enumerate(positions):
        a = p * theta_step
        rotated = np.array([v[0] * np.cos(a) - v[1] * np.sin(a), v[0] * np.sin(a) + v[1] * np.cos(a)])
        color = cmap(i / max(1, len(positions) - 1))
        ax.annotate("", xy=rotated, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=color, lw=1.8))
        ax.text(*(rotated * 1.12), f"m={p}", fontsize=9, ha="center", va="center", color=color)
    lim = 1.35 * float(np.hypot(*v))
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.axhline(0, color=REFERENCE, lw=0.8)
    ax.axvline(0, color=REFERENCE, lw=0.8)
    ax.set_title("同一对分量在位置 m 处转过 m·θ")
    ax.set_xlabel("第 1 个分量")
    ax.set_ylabel("第 2 个分量")
    return fig


def rope_wavelengths_figure(config):
    """``06_attention_layer``: each RoPE pair's wavelength (positions per full turn), plain and
    with the config's ``rope_scaling``, against the pre-training and published context lengths."""
    scaling = config.rope_scaling
    if scaling is None:
        raise ValueError(f"config must have a rope_scaling to compare against, got {config.name} without one")
    plain = rope_wavelengths(config.head_dim, config.rope_theta)
    scaled = rope_wavelengths(config.head_dim, config.rope_theta, scaling)
    pairs = np.arange(len(plain))
    fig = new_figure(6.6, 3.8)
    ax = fig.add_subplot()
    ax.plot(pairs, plain, "o", ms=3.5, color=MUTED, label="基础公式：2π/θᵢ")
    ax.plot(pairs, scaled, "o", ms=3.5, mfc="none", mew=1.1, color=ACCENT, label=f"{scaling.rope_type} 缩放后")
    length = scaling.original_max_position_embeddings
    lines = [(length / scaling.high_freq_factor, ":", f"{length / scaling.high_freq_factor / 1024:.0f}K：波长更短的不变"),
             (length / scaling.low_freq_factor, "--", f"预训练长度 {length / 1024:.0f}K：波长更长的 ×{scaling.factor:g}")]
    if config.max_position_embeddings is not None:
        lines.append((config.max_position_embeddings, "-.", f"扩展后的上下文 {config.max_position_embeddings / 1024:.0f}K"))
    for value, style, text in lines:
        ax.axhline(value, color=REFERENCE, ls=style, lw=1)
        ax.text(0.5, value * 1.25, text, fontsize=9, color=TEXT_GREY, va="bottom")
    ax.set_yscale("log")
    ax.set_xlim(-1, len(plain))
    ax.set_xlabel(f"第 i 对（共 {len(plain)} 对，i 越大转得越慢）")
    ax.set_ylabel("波长：转一整圈的位置（token）")
    ax.set_title(f"{config.name}：每对分量的波长，缩放前后")
    ax.legend(loc="lower right", fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


ASPECT = 2  # width : height of the box the tiles are laid out in
#: the most rows of tiles any head count takes (32 heads: 4 rows of 8), i.e. the row labels kept
MAX_ROWS = 4


def columns_for(heads: int, n: int, aspect: int = ASPECT) -> int:
    """Tiles per row that make ``heads`` tiles of ``n × n`` cells as large as an ``aspect`` : 1 box
    allows, among the divisors of ``heads`` (full rows, so a KV group's tiles line up); on a tie,
    the wider layout."""
    heads, n = positive_int("heads", heads, maximum=4096), positive_int("n", n, maximum=4096)
    aspect = finite_scalar("aspect", aspect, low=0.0, low_open=True, high=100.0)

    def tile_size(cols):
        rows = ceil_div(heads, cols)
        return min(aspect / (cols * (n + 1)), 1 / (rows * (n + 1)))
    return max((c for c in range(1, heads + 1) if heads % c == 0), key=lambda c: (round(tile_size(c), 12), c))


class TileLayout:
    """Where the tiles of ``heads`` heads of ``n`` tokens go in the ``aspect`` × 1 box (data units):
    ``unit`` is one tile plus its gap, centred; ``group`` heads share one KV head. The figure's box
    is ``ASPECT`` × 1; the book's page lays a phone's narrow column out in a taller box."""

    def __init__(self, heads: int, kv: int, n: int, aspect: float = ASPECT):
        self.cols = columns_for(heads, n, aspect)  # checks heads, n and aspect
        kv = positive_int("kv", kv, maximum=heads)
        if heads % kv:
            raise ValueError(f"kv must divide heads={heads}; choose one of {divisors(heads)}, got {kv}")
        self.heads, self.kv, self.n = heads, kv, n
        self.rows = ceil_div(heads, self.cols)
        self.group = heads // kv
        self.unit = min(aspect / self.cols, 1.0 / self.rows)
        self.x0 = (aspect - self.cols * self.unit) / 2
        self.y0 = (1.0 - self.rows * self.unit) / 2
        self.cell = self.unit / (n + 1)  # one token's cell; one cell of gap between tiles

    def mosaic(self, attn) -> np.ndarray:
        """``attn`` (``heads × n × n``) as one array of tiles in this layout's rows and columns."""
        return head_mosaic(attn, cols=self.cols)

    def mesh_transform(self):
        """Mesh coordinates (cell j centred on j) → data: the mosaic fills the layout's tiles."""
        return Affine2D().scale(self.cell).translate(self.x0 + self.cell, self.y0 + self.cell)

    def separators(self) -> list:
        """Segments in the gaps between neighbouring tiles whose heads use different KV heads."""
        u, x0, y0, segments = self.unit, self.x0, self.y0, []
        for h in range(self.heads):
            r, c = divmod(h, self.cols)
            right, below = h + 1, h + self.cols
            if c + 1 < self.cols and right < self.heads and right // self.group != h // self.group:
                x = x0 + (c + 1) * u
                segments.append([(x, y0 + r * u), (x, y0 + (r + 1) * u)])
            if below < self.heads and below // self.group != h // self.group:
                y = y0 + (r + 1) * u
                segments.append([(x0 + c * u, y), (x0 + (c + 1) * u, y)])
        return segments

    def row_labels(self) -> list:
        """``(y, text)`` per row of tiles: the heads in it (``头 8–15``)."""
        labels = []
        for r in range(self.rows):
            first, last = r * self.cols, min(self.heads, (r + 1) * self.cols) - 1
            labels.append((self.y0 + (r + 0.5) * self.unit, f"头 {first}" if first == last else f"头 {first}–{last}"))
        return labels

    def title(self, rope: bool) -> str:
        """The settings (short: a long text costs milliseconds on every move)."""
        kind = "MHA" if self.group == 1 else ("MQA" if self.kv == 1 else "GQA")
        return f"查询头 {self.heads} · KV 头 {self.kv}（{kind}）· n = {self.n} · RoPE {'开' if rope else '关'}"


def divisors(n: int) -> list:
    """The KV-head counts that divide ``n`` query heads."""
    n = positive_int("n", n, maximum=4096)
    return [k for k in range(1, n + 1) if n % k == 0]

#: bytes of meshes a :class:`MosaicPanel` keeps (one per mosaic shape it has shown), and about how many
#: bytes one cell of a mesh holds (corners, path codes, colours)
MESH_BYTES = 4 * 2 ** 20
MESH_CELL_BYTES = 100  # measured: about 90 after a draw


class MosaicPanel:
    """Every head's weights as one tile, laid out by a :class:`TileLayout` in an ``ASPECT`` × 1 box:
    one vector mesh per mosaic shape (made on first use, then reused: a mesh only as large as the
    tiles draws fastest; at most :data:`MESH_BYTES` of them kept, the least recently shown removed),
    orange lines between tiles whose heads use different KV heads, and each row of tiles named on
    its left. The explorer of ``06_attention_layer`` draws with it; :meth:`update` shows a layer's
    weights in a layout (``on_new_mesh`` / ``on_drop_mesh`` hear of each mesh made / removed, so an
    explorer can animate it / stop)."""

    def __init__(self, ax, cmap, *, on_new_mesh=None, on_drop_mesh=None):
        ax.set_xlim(0, ASPECT)
        ax.set_ylim(1, 0)
        ax.set_aspect("equal")
        ax.axis("off")  # tiles only: no frame, no stray axis lines

        self.ax, self.cmap, self.on_new_mesh, self.on_drop_mesh = ax, cmap, on_new_mesh, on_drop_mesh
        self.meshes = ByteLRU(MESH_BYTES, on_evict=self._drop)
        self.mosaic = None
        self.lines = LineCollection([], colors=ACCENT, linewidths=1.5)
        ax.add_collection(self.lines)
        label_at = offset_copy(ax.transData, fig=ax.figure, x=-5, units="points")  # a fixed gap left of the tiles
        self.row_texts = [ax.text(0, 0, "", transform=label_at, ha="right", va="center", fontsize=9,
                                  clip_on=False) for _ in range(MAX_ROWS)]

    @property
    def artists(self) -> list:
        """The artists every update changes (the meshes are announced through ``on_new_mesh``)."""
        return [self.lines, *self.row_texts]

    def mesh_for(self, shape):
        """The mesh for a mosaic of ``shape`` cells (its gaps transparent)."""
        if shape in self.meshes:
            return self.meshes.get(shape)
        mesh = matrix_mesh(self.ax, np.full(shape, np.nan), cmap=self.cmap)
        self.ax.set_xlim(0, ASPECT)  # matrix_mesh fits the limits to the mesh: back to the tiles' box
        self.ax.set_ylim(1, 0)
        if self.on_new_mesh is not None:
            self.on_new_mesh(mesh)
        # a quad's corners, its path and its colours: about this many bytes per cell
        self.meshes.put(shape, mesh, size=MESH_CELL_BYTES * shape[0] * shape[1])
        return mesh

    def _drop(self, shape, mesh) -> None:
        mesh.remove()
        if self.on_drop_mesh is not None:
            self.on_drop_mesh(mesh)

    def update(self, attn, layout: TileLayout) -> None:
        """Show ``attn`` (``heads × n × n``) in ``layout``."""
        tiles = layout.mosaic(attn)
        self.mosaic = self.mesh_for(tiles.shape)
        for mesh in self.meshes.values():
            mesh.set_visible(mesh is self.mosaic)
        self.mosaic.set_array(np.ma.masked_invalid(tiles))
        self.mosaic.set_transform(layout.mesh_transform() + self.ax.transData)
        self.lines.set_segments(layout.separators())
        labels = layout.row_labels()
        for i, text in enumerate(self.row_texts):
            text.set_visible(i < len(labels))
            if i < len(labels):
                y, label = labels[i]
                text.set_position((layout.x0, y))
                text.set_text(label)


def head_mosaic(attn, cols: int = 8, gap: int = 1) -> np.ndarray:
    """Tile per-head ``(H, n, n)`` weight maps into one array (NaN gaps), so a whole grid of
    heads is a single image: one ``set_data`` per update (``06_attention_layer``, ``09``)."""
    a = as_real_array("attn", attn, ndim=3)
    cols, gap = positive_int("cols", cols, maximum=64), nonneg_int("gap", gap, maximum=16)
    heads, n, m = a.shape
    rows = ceil_div(heads, cols)
    out = np.full((rows * (n + gap) - gap, cols * (m + gap) - gap), np.nan)
    for h in range(heads):
        r, c = divmod(h, cols)
        out[r * (n + gap): r * (n + gap) + n, c * (m + gap): c * (m + gap) + m] = a[h]
    return out


def heads_grid_figure(attn, *, cols=None, title="", kv_groups=None, width=7.6, xlabel="", ylabel=""):
    """Static grid of per-head heatmaps (one colour scale, a colorbar for the weight);
    ``kv_groups`` labels which KV head each query head uses; ``xlabel``/``ylabel``, if given, say
    once for all tiles what a tile's columns and rows are. ``cols`` (default: the explorer's rule,
    :func:`columns_for`) tiles per row."""
    a = as_real_array("attn", attn, ndim=3)
    cols = columns_for(a.shape[0], a.shape[-1]) if cols is None else positive_int("cols", cols, maximum=64)
    if kv_groups is not None:
        kv_groups = positive_int("kv_groups", kv_groups, maximum=a.shape[0])
    heads = a.shape[0]
    rows = ceil_div(heads, cols)
    fig = new_figure(width, max(1.8, width / cols * rows * 1.05 + 0.7))
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    image = None
    for h, ax in enumerate(axes):
        ax.set_xticks([])
        ax.set_yticks([])
        if h < heads:
            image = ax.imshow(a[h], vmin=0, vmax=1, cmap="viridis")
            label = f"头 {h}" + (f"·KV {h // kv_groups}" if kv_groups else "")
            ax.set_title(label, fontsize=9, pad=2)
        else:
            ax.set_visible(False)
    fig.suptitle(title)
    if xlabel:
        fig.supxlabel(xlabel, fontsize=10)
    if ylabel:
        fig.supylabel(ylabel, fontsize=10)
    if image is not None:
        fig.colorbar(image, ax=list(axes), fraction=0.02, pad=0.01).set_label("权重")
    return fig
