"""``09_real_model``: layer and head sliders over SmolLM2's real attention weights; a text box that
runs the learner's own sentence through it (:class:`SentenceExplorer`)."""
from __future__ import annotations

from functools import cached_property

import numpy as np

from ..figures.real_model import attention_map, head_grid_rgba
from ..render import web
from ..render.explorer import Explorer
from ..render.format import fmt
from ..render.panels import future_masked, masked_viridis, matrix_mesh


class RealAttentionExplorer(Explorer):
    """Layer and head sliders → SmolLM2-135M's attention weights on a fixed text (loads the model),
    shown on the characters and words the pieces spell (:mod:`helpers.readable_tokens`: for English
    text one piece is one word and the map is unchanged; Chinese pieces are merged into characters)."""

    figsize = (5.4, 5.0)

    def __init__(self, text: str | None = None, **kwargs):
        from .. import readable_tokens, real_model, texts
        from ..render.validation import text as check_text

        if text is not None:
            check_text("text", text)
        self.model = real_model.load_model()
        self.ids = real_model.encode(self.model, text or texts.HEATMAP_TEXT)
        self.spelling = readable_tokens.spell_ids(self.model, self.ids)
        self.labels = self.spelling.labels()
        super().__init__(**kwargs)

    @cached_property
    def weights(self):
        from .. import readable_tokens, real_model

        return [readable_tokens.group_attention(w, self.spelling) for w in real_model.forward(self.model, self.ids).weights]

    def make_controls(self):
        import ipywidgets as widgets

        cfg = self.model.config
        return {"layer": widgets.IntSlider(value=cfg.num_layers // 2, min=0, max=cfg.num_layers - 1, description="层"),
                "head": widgets.IntSlider(value=0, min=0, max=cfg.num_heads - 1, description="头")}

    def compute(self, layer, head):
        w = self.weights[layer][head]
        group = self.model.config.num_heads // self.model.config.num_kv_heads
        return {"layer": layer, "head": head, "weights": w, "kv_head": head // group,
                "first": float(w[4:, 0].mean()) if len(w) > 4 else float(w[:, 0].mean())}

    def build(self, fig):
        ax = fig.add_subplot()
        n = len(self.labels)
        self.heat = attention_map(ax, np.zeros((n, n)), self.labels, title=self.title_text(29, 8, 2))
        fig.colorbar(self.heat, ax=ax, fraction=0.04, pad=0.02).set_label("权重")
        fig.get_layout_engine().set(w_pad=0.08)  # inches: matplotlib 3.10 put the y label on the edge
        self.animate(self.heat, ax.title)  # the title names the layer and head shown (the preview too)

    @staticmethod
    def title_text(layer, head, kv_head) -> str:
        return f"SmolLM2-135M · 层 {layer} · 头 {head}（KV 头 {kv_head}；都从 0 数）"

    def draw(self, s):
        self.heat.set_array(future_masked(s["weights"]))
        self.heat.axes.title.set_text(self.title_text(s["layer"], s["head"], s["kv_head"]))

    def describe(self, s):
        return (f"层 <span class='layer'>{s['layer']}</span>、查询头 {s['head']}（用 KV 头 {s['kv_head']}；都从 0 数）· "
                f"第 5 个 token 起的查询平均放在第 1 个 token 上的权重 <span class='first'>{fmt(s['first'])}</span>")

    def web_view(self, s):
        w = future_masked(s["weights"])
        return {"title": self.title_text(s["layer"], s["head"], s["kv_head"]),
                "panels": [web.heatmap(w, self.labels, self.labels, xlabel="键（被看的 token）",
                                       ylabel="查询（正在读的 token）", colorbar="权重")]}


class SentenceExplorer(Explorer):
    """A text box and layer / head sliders → SmolLM2-135M on the learner's own text, everything
    :func:`helpers.real_model.sentence_view` computes: the grid of all heads' maps (one colour
    scale), the chosen head enlarged over the characters, its two scores and where they rank, the
    leading heads of each score and the five likeliest next tokens (loads the model).

    The text box updates on Enter or when it loses focus (``continuous_update=False``): one forward
    pass of up to 64 tokens takes about 0.2–0.4 s, more than the time between two keys. Each text's
    view is computed once and kept (at most :attr:`view_bytes`); moving the sliders only reads it.
    A text the view refuses (empty, too long, a control character) shows its sentence in the
    readout and an empty picture."""

    figsize = (8.4, 7.8)
    preview_readout = True  # the prose points at the numbers the readout holds
    #: bytes of views (every head's maps, per text) to keep: a 64-token text holds about 9 MB, the
    #: article's sentence 0.5 MB
    view_bytes = 6 * 2 ** 20
    #: states and their pictures (~0.2 MB each: a large figure)
    memo_bytes = 4 * 2 ** 20
    #: one background per text shown (the grid, the axes' labels and the next-token bars): ~10 MB each
    background_bytes = 12 * 2 ** 20
    #: heads listed per score in the readout
    leaders = 5
    #: a label longer than this is cut on the enlarged map's axes (the readout shows it whole)
    label_chars = 8
    #: the most labels along one side of the enlarged map (a longer text labels every k-th token)
    max_labels = 22

    def __init__(self, text: str | None = None, **kwargs):
        from .. import real_model, texts
        from ..real_model import sentence
        from ..render.memo import ByteLRU

        if text is not None:
            sentence.check_text_type(text)  # the sentence sentence_view gives, before the model loads
        self.text = texts.CHINESE_PROMPT if text is None else text
        self.model = real_model.load_model()
        self._views = ByteLRU(self.view_bytes)
        self._shown = None  # the text whose grid, labels and bars the figure holds now (build resets it)
        super().__init__(**kwargs)

    def view_of(self, text: str):
        """The :class:`~helpers.real_model.SentenceView` of ``text`` (computed once while it stays
        within :attr:`view_bytes`), or the sentence saying why ``text`` has none."""
        from .. import real_model

        try:
            return self._views.get(text)
        except KeyError:
            pass
        try:
            view = real_model.sentence_view(self.model, text)
        except (TypeError, ValueError) as exc:
            view = str(exc)
        self._views.put(text, view)
        return view

    def cache_bytes(self) -> dict:
        """The base class's caches and the views kept (:attr:`view_bytes`)."""
        return {**super().cache_bytes(), "views": self._views.nbytes}

    def first_head(self) -> tuple:
        """``(layer, head)`` shown first: the initial text's highest previous-token score (0, 0 when
        the text is too short to have one)."""
        view = self.view_of(self.text)
        if isinstance(view, str) or "previous" not in view.ranking:
            return 0, 0
        layer, head = view.ranking["previous"][0]
        return int(layer), int(head)

    def make_controls(self):
        import ipywidgets as widgets

        cfg = self.model.config
        layer, head = self.first_head()
        return {"text": widgets.Text(value=self.text, description="句子", placeholder="输入一句话，按回车",
                                     continuous_update=False, layout=widgets.Layout(width="30em")),
                "layer": widgets.IntSlider(value=layer, min=0, max=cfg.num_layers - 1, description="层"),
                "head": widgets.IntSlider(value=head, min=0, max=cfg.num_heads - 1, description="头")}

    def compute(self, text, layer, head):
        from ..real_model import sentence

        view = self.view_of(text)
        group = self.model.config.num_heads // self.model.config.num_kv_heads
        state = {"text": text, "layer": layer, "head": head, "kv_head": head // group, "error": None, "map": None,
                 "labels": (), "n": 0, "scores": {}, "ranks": {}, "leaders": {}, "top": (),
                 "missing": {name: sentence.MIN_TOKENS[name] for name in sentence.SCORES}}
        if isinstance(view, str):
            return {**state, "error": view}
        pairs = {name: [(int(a), int(b)) for a, b in order[:self.leaders]] for name, order in view.ranking.items()}
        return {**state, "map": view.maps[layer, head], "labels": tuple(view.labels), "n": len(view.ids),
                "scores": {name: float(s[layer, head]) for name, s in view.scores.items()},
                "ranks": {name: view.rank(name, layer, head) for name in view.scores},
                "leaders": {name: [(a, b, float(view.scores[name][a, b])) for a, b in heads]
                            for name, heads in pairs.items()},
                "top": view.top, "missing": {name: k for name, k in state["missing"].items() if name not in view.scores}}

    def layout_children(self) -> list:
        """The text box and 恢复默认 on one row, the two sliders on the next, then the readout and the picture."""
        import ipywidgets as widgets

        wrap = widgets.Layout(flex_flow="row wrap")
        return [widgets.HBox([self.controls["text"], self.reset_button], layout=wrap),
                widgets.HBox([self.controls["layer"], self.controls["head"]], layout=wrap), self.readout, self.image]

    # ---- the picture: the grid (top), the enlarged head (bottom left), the next tokens (bottom right)
    def build(self, fig):
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize
        from matplotlib.patches import Rectangle

        from ..render.palette import ACCENT

        fig.set_layout_engine("none")  # fixed places: the labels change with every text
        width, height = self.figsize
        cfg = self.model.config
        layers, heads = cfg.num_layers, cfg.num_heads

        def place(left, bottom, w, h):  # inches → figure fraction
            return fig.add_axes((left / width, bottom / height, w / width, h / height))

        grid_w = 7.5
        self.grid_ax = place(0.55, 5.15, grid_w, grid_w * heads / layers)
        self.grid = self.grid_ax.imshow(np.full((1, 1, 4), 255, np.uint8), extent=(-0.5, layers - 0.5, heads - 0.5, -0.5),
                                        interpolation="antialiased", aspect="auto")
        self.grid_ax.set_xticks(range(layers), [str(i) if i % 5 == 0 or i == layers - 1 else "" for i in range(layers)])
        self.grid_ax.set_yticks(range(heads))
        self.grid_ax.tick_params(length=2, labelsize=9)
        self.grid_ax.set_xlabel("层（0 = 最靠近输入）", fontsize=9, labelpad=2)
        self.grid_ax.set_ylabel("头", fontsize=9)
        self.box = Rectangle((-0.5, -0.5), 1, 1, fill=False, edgecolor=ACCENT, lw=1.8)
        self.grid_ax.add_patch(self.box)

        self.map_ax = place(1.2, 1.2, 3.2, 3.2)
        self.heat = matrix_mesh(self.map_ax, np.full((1, 1), np.nan), cmap=masked_viridis())
        self.map_ax.set_xlabel("键（被看的字或词）")
        self.map_ax.set_ylabel("查询（正在读的字或词）")
        colorbar = fig.colorbar(ScalarMappable(Normalize(0, 1), masked_viridis()), cax=place(4.52, 1.2, 0.12, 3.2))
        colorbar.set_label("权重（上面的每一格同一色标）")

        self.top_ax = place(6.4, 1.9, 1.7, 2.3)
        self.animate(self.heat, self.box, self.map_ax.title)
        self._shown = None  # a new figure holds no text yet

    def _show_text(self, s) -> None:
        """Put the grid, the axes' labels and the next-token bars of ``s``'s text in place (static
        until the text changes: drawn into the background)."""
        from ..render.palette import ACCENT, BASE, BLACK

        view = None if s["error"] is not None else self.view_of(s["text"])
        if view is None:
            self.grid.set_data(np.full((1, 1, 4), 255, np.uint8))  # white
            self.grid_ax.set_title("没有结果：见上面的说明", fontsize=10, color=ACCENT)
        else:
            self.grid.set_data(head_grid_rgba(view.maps))
            self.grid_ax.set_title(f"全部 {view.maps.shape[0] * view.maps.shape[1]} 个头，每格一个头的注意力图"
                                   "（同一色标；橙框：下面放大的那个头）", fontsize=10, color=BLACK)
        labels = [self.cut(x) for x in s["labels"]]
        m = max(len(labels), 1)
        self.heat.remove()
        self.forget(self.heat)
        self.heat = matrix_mesh(self.map_ax, np.full((m, m), np.nan), cmap=masked_viridis())
        self.animate(self.heat)
        every = -(-m // self.max_labels)  # a label on every k-th row and column: 9-pt labels never touch
        ticks, shown = range(0, len(labels), every), labels[::every]
        upright = all(len(x) <= 2 for x in labels)  # characters stand upright; words turn
        self.map_ax.set_xticks(ticks, shown, rotation=0 if upright else 90, fontsize=9)
        self.map_ax.set_yticks(ticks, shown, fontsize=9)

        ax = self.top_ax
        ax.cla()
        ax.set_title("下一个 token（前 5 名）", fontsize=10)
        ax.set_xlabel("概率")
        ax.set_ylabel("候选 token")
        ax.set_xlim(0, 1)
        ax.spines[["top", "right"]].set_visible(False)
        top = s["top"]
        ax.set_yticks(range(len(top)), [self.cut(t.label) for t in top], fontsize=9)
        ax.set_ylim(len(top) - 0.5 if top else 0.5, -0.5)
        for i, t in enumerate(top):
            ax.barh(i, t.probability, color=ACCENT if i == 0 else BASE, height=0.6)
            ax.text(t.probability + 0.03, i, fmt(t.probability), va="center", fontsize=9)

    def cut(self, label: str) -> str:
        """``label`` as an axis shows it: at most :attr:`label_chars` characters (the readout has it whole)."""
        return label if len(label) <= self.label_chars else label[:self.label_chars - 1] + "…"

    def draw(self, s):
        key = s["text"] if s["error"] is None else ""
        if key != self._shown:
            self._shown = key
            self._show_text(s)
            self.invalidate_background(key=key)
        if s["error"] is None:
            self.heat.set_array(future_masked(s["map"]))
            self.box.set_xy((s["layer"] - 0.5, s["head"] - 0.5))
        self.box.set_visible(s["error"] is None)
        self.map_ax.title.set_text(self.title_text(s))

    @staticmethod
    def title_text(s) -> str:
        """The enlarged head's title: which head of which layer (and its KV head)."""
        if s["error"] is not None:
            return "（没有结果）"
        return f"{SentenceExplorer.head_name(s['layer'], s['head'])}（KV 头 {s['kv_head']}；都从 0 数）"

    @staticmethod
    def head_name(layer: int, head: int) -> str:
        """A head as the series writes it in titles and on the book's page (``层 16 · 头 0``)."""
        return f"层 {layer} · 头 {head}"

    def describe(self, s):
        import html

        from ..real_model import sentence

        if s["error"] is not None:
            return f"<span class='error'>{html.escape(s['error'])}</span>"
        words = " · ".join(html.escape(x) for x in s["labels"])
        lines = [f"“{html.escape(s['text'])}”：{s['n']} 个 token，读作 {len(s['labels'])} 个字或词：{words}"]
        parts = [f"{sentence.SCORE_LABELS[name]} <span class='{name}'>{fmt(value)}</span>"
                 f"（{self.model.config.num_layers * self.model.config.num_heads} 个头里第 {s['ranks'][name]}）"
                 for name, value in s["scores"].items()]
        parts += [f"{sentence.SCORE_LABELS[name]}要至少 {k} 个 token" for name, k in s["missing"].items()]
        lines.append(f"{self.head_name(s['layer'], s['head'])}（KV 头 {s['kv_head']}）：" + " · ".join(parts))
        for name, heads in s["leaders"].items():
            lines.append(f"{sentence.SCORE_LABELS[name]}最高：" + "；".join(
                f"{self.head_name(a, b)}（{fmt(score)}）" for a, b, score in heads))
        lines.append("下一个 token：" + " · ".join(f"<span class='next{i}'>{html.escape(t.label)}</span> "
                                                 f"{fmt(t.probability)}" for i, t in enumerate(s["top"])))
        return "<br>".join(lines)
