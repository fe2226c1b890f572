"""The explorer pattern behind every live control in the series.

An :class:`Explorer` builds its controls and its figure once. When a control changes it
recomputes only the state (memoised per combination of control values), updates the existing
artists in place and re-renders one small PNG into an ``ipywidgets.Image``. Its update path runs
without a frontend: set ``explorer.controls[name].value`` (or call :meth:`Explorer.set`) and
read ``explorer.state`` / ``explorer.readout.value`` back, which is what the widget tests and
``make bench`` do. Only APIs shared by ipywidgets 7.7 (Colab) and 8 are used.

``naive=True`` builds a new figure on every move instead; it exists so the benchmark can
compare the two ways in one run.

Bad values never reach a subclass's ``compute``: :meth:`Explorer.set` refuses a value outside a
control's range or options with a ``ValueError`` naming the control, and a NaN typed into a
float control directly (``FloatSlider`` lets NaN through) is put back to the previous value, so
an explorer never shows NaN. Calling ``compute`` directly goes through the same check: this base
class wraps every subclass's ``compute`` (``__init_subclass__``) so that each argument that carries
a control's value is checked against everything that control can show (its range or options when
the explorer was made, or :meth:`Explorer.web_universe`), and a subclass's ``draw``, ``describe`` and
``web_view`` so that a state that is not one of this explorer's (``None``, another explorer's) is a
``TypeError`` saying which state was expected. Every such message names the control as the learner
sees it (``rank must be <= 5, got 507 (rank is the slider “名次” of HeadsExplorer, 1…5)``). A
subclass's ``describe`` is also made to write no number as a negative zero (``-0.000`` → ``0.000``):
whether a sum that cancels keeps a minus sign depends on the order of its additions (numpy's, the
book page's JavaScript), not on anything the reader changed.

Every explorer has a ``恢复默认`` button (:attr:`Explorer.reset_button`, from this base class): it
puts every control and every action widget that holds a value (a picker) back where they were when
the explorer was made, calls :meth:`Explorer.restore_state` for anything else a subclass keeps, and
redraws once; the initial state is still memoised, so the press costs no recomputation.

Displaying an explorer (the last line of a widget cell) sends one raw MIME bundle: the widget view,
a static PNG of the initial figure with a one-line hint drawn into it, and the hint as text. A
running kernel's frontend (trusted output) renders the live widget; an unrun notebook in
JupyterLab (untrusted: only "safe" renderers, so the PNG wins), GitHub and nbviewer (no widget
state) show the picture. ``tools/notebooks/execute.py`` stores only the picture and the text.
"""
from __future__ import annotations

import contextlib
import functools
import html
import inspect
import io
import math
import re

import ipywidgets as widgets
import numpy as np
from IPython.display import display
from PIL import Image
from traitlets import TraitError

from .format import unsigned_zeros, wrap_text
from .memo import ByteLRU
from .palette import BAND_GREY, TEXT_GREY
from .png import DPI, display_width, figure_png, new_figure, rgba_png
from .text_stamps import TextStamps
from .threads import one_blas_thread
from .validation import as_real_array, boolean, choice, finite_scalar, integer
from .validation import text as check_text

#: the label of the button that puts every control back to its initial value
RESET_LABEL = "恢复默认"
#: what an explorer's output says before the cell runs (text/plain, and drawn on its picture)
STATIC_HINT = "静态预览 · 运行本单元格后可拖动控件"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: a subclass's methods that take a state (what its ``compute`` returns): each checks it first
STATE_METHODS = ("draw", "describe", "web_view")
#: what a message calls each kind of control (the first that matches)
CONTROL_WORDS = (((widgets.Text, widgets.Textarea), "text box"), (widgets.Checkbox, "checkbox"),
                 (widgets.ToggleButtons, "button group"), (widgets.RadioButtons, "button group"),
                 (widgets.Dropdown, "menu"), (widgets.Select, "list"),
                 ((widgets.IntSlider, widgets.FloatSlider, widgets.SelectionSlider), "slider"))


def _with_note(exc: Exception, note: str) -> Exception:
    """``exc`` again, its message followed by `` (note)``."""
    return type(exc)(f"{exc} ({note})")


def _checking_compute(compute):
    """``compute`` checking its arguments first (:meth:`Explorer.check_compute_args`)."""
    signature = inspect.signature(compute)

    @functools.wraps(compute)
    def checked(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{type(self).__name__}.compute{signature}: {exc}") from None
        values = {}
        for i, (name, value) in enumerate(bound.arguments.items()):
            if i == 0:
                continue  # self
            if signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                values.update(value)
            else:
                values[name] = value
        self.check_compute_args(values)
        return compute(self, *args, **kwargs)

    return checked


def _checking_state(method):
    """``method`` (one of :data:`STATE_METHODS`) checking its state first (:meth:`Explorer.check_state`)."""
    first = list(inspect.signature(method).parameters)[1:2]

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        if args or (first and first[0] in kwargs):
            self.check_state(args[0] if args else kwargs[first[0]], method.__name__, first[0])
        return method(self, *args, **kwargs)

    return checked


def _unsigned_readout(describe):
    """``describe`` whose readout writes no number as a negative zero (:func:`~helpers.render.format.unsigned_zeros`):
    the sign of a sum that cancels to 0 depends on the order of its additions, not on the lesson."""
    @functools.wraps(describe)
    def readout(self, *args, **kwargs):
        return unsigned_zeros(describe(self, *args, **kwargs))

    return readout


def _state_kind(state) -> str:
    """``None``, ``a dict with keys 'a', 'b'``, ``a HandRow``: what a state is, for a message."""
    if state is None:
        return "None"
    if isinstance(state, dict):
        keys = sorted(map(str, state))
        shown = ", ".join(repr(k) for k in keys[:8]) + (", …" if len(keys) > 8 else "")
        return f"a dict with keys {shown}" if keys else "an empty dict"
    return f"a {type(state).__name__}"


class Explorer:
    """Base class: subclasses define ``make_controls``, ``compute``, ``build`` and ``draw``."""

    #: figure size in inches
    figsize = (6.0, 2.8)
    #: bytes of computed states and their PNGs to remember (least recently shown go first)
    memo_bytes = 8 * 2 ** 20
    #: bytes of background pictures to remember (one per static look, see :meth:`invalidate_background`)
    background_bytes = 32 * 2 ** 20
    #: stamp animated text from :class:`~helpers.render.text_stamps.TextStamps` (False: matplotlib draws
    #: every string, as the figure check in the tests needs to see them)
    text_stamps = True
    #: draw the initial readout (:meth:`describe`) in the static preview too, between the hint and the
    #: picture as in the live layout: for an explorer whose prose points at numbers the readout holds
    preview_readout = False

    #: ``compute``'s arguments that carry several controls' values: ``{argument: (the control of each
    #: entry along its last axis, …)}`` (03's ``q`` is ``(q1, q2)``); an argument named like a
    #: control carries that control's value
    compute_controls: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "compute" in cls.__dict__:
            cls.compute = _checking_compute(cls.__dict__["compute"])
        for name in STATE_METHODS:
            if name in cls.__dict__:
                method = cls.__dict__[name]
                setattr(cls, name, _checking_state(_unsigned_readout(method) if name == "describe" else method))

    def __init__(self, *, naive: bool = False):
        self.naive = boolean("naive", naive)
        self.controls = self.make_controls()
        universe = self.web_universe()
        #: every value each control can show (its range or options now, or its web_universe): what
        #: compute accepts, whatever another control allows at the moment
        self.domains = {name: self._domain(control, universe.get(name)) for name, control in self.controls.items()}
        self.actions = self.make_actions()
        #: the control values the explorer starts with (what 恢复默认 goes back to)
        self.defaults = dict(self.values)
        self._action_defaults = {name: w.value for name, w in self.actions.items()
                                 if hasattr(w, "has_trait") and w.has_trait("value")}
        self.reset_button = widgets.Button(description=RESET_LABEL, tooltip="把每个控件放回初始值",
                                           layout=widgets.Layout(width="auto"))
        self.reset_button.on_click(lambda _button: self.restore_defaults())
        self.readout = widgets.HTML()
        # rendered at RENDER_DPI, shown at DPI: half the PNG's pixel width (set after the first render)
        self.image = widgets.Image(format="png", layout=widgets.Layout(
            width=f"{int(self.figsize[0] * DPI)}px", height="auto"))
        self.renders = 0
        self.state = None
        self.png = b""
        self._cache = ByteLRU(self.memo_bytes)
        self._holds = 0
        self._animated: list = []
        self._background = None
        self._background_key = None
        self._backgrounds = ByteLRU(self.background_bytes)
        self.fig = None
        if not naive:
            self.fig = new_figure(*self.figsize)
            self._stamps = TextStamps(self.fig.dpi)
            self.build(self.fig)
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.widget = widgets.VBox(self.layout_children())
        self.update()
        if not naive:
            self._warm_backgrounds()
            self._warm_pictures()
        self.image.layout.width = f"{display_width(self.png)}px"

    # ---- to implement ---------------------------------------------------------------------
    def make_controls(self) -> dict:
        """Return ``{name: widget}``; each widget's ``value`` feeds :meth:`compute`."""
        raise NotImplementedError

    def make_actions(self) -> dict:
        """Optional extra widgets (buttons, pickers) that act by calling :meth:`set`."""
        return {}

    def compute_args(self) -> dict:
        """Arguments for :meth:`compute`; by default the control values (must be hashable to cache).
        Reads the explorer and changes nothing: it runs on every update, memoised or not."""
        return self.values

    def compute(self, **values):
        """Pure function of the control values; returns the state the figure and text show."""
        raise NotImplementedError

    def build(self, fig) -> None:
        """Create the axes and artists once (store them on ``self``)."""
        raise NotImplementedError

    def draw(self, state) -> None:
        """Update the artists made in :meth:`build` to show ``state``."""
        raise NotImplementedError

    def describe(self, state) -> str:
        """HTML for the readout under the controls (numbers formatted explicitly; a number written as
        ``-0.000`` loses its sign: this base class wraps every subclass's ``describe``)."""
        return ""

    def restore_state(self) -> None:
        """Put back whatever the explorer keeps besides its controls and pickers (03's edited k/v
        rows); called by :meth:`restore_defaults` before the controls are set. Default: nothing."""

    # ---- the book's live page (helpers.render.web, tools/site/live) ---------------------------
    #: how the live page gets a state: ``None`` — every combination of control values is computed
    #: here at build time and stored in the page; otherwise the name of a browser formula (in
    #: ``helpers/render/web/attnlab_live.js``) that recomputes it from the controls, for explorers whose
    #: grid is too large (several continuous sliders); a test holds it to :meth:`compute`.
    web_formula = None
    #: a formula explorer's texts, each written once as a :func:`helpers.render.format.fill` template
    #: (``{"readout": …}``, and any other text its page shows, such as a title): :meth:`describe`
    #: fills them here and the page's formula fills the same templates, carried in its data, in the browser
    web_templates = None

    def web_universe(self) -> dict:
        """``{control name: every value it can take}`` for a control whose range follows another
        (05's query row); the others take their own range or options. Read once when the explorer
        is made: it is also what :meth:`compute` accepts for that control. Default: none."""
        return {}

    def web_view(self, state) -> dict:
        """What the live page draws for ``state``: ``{"title": str, "panels": [...]}`` made with
        :mod:`helpers.render.web`. An explorer without one is shown as its still picture."""
        raise NotImplementedError

    def layout_children(self) -> list:
        row = list(self.actions.values()) + list(self.controls.values()) + [self.reset_button]
        return [widgets.HBox(row, layout=widgets.Layout(flex_flow="row wrap")), self.readout, self.image]

    # ---- machinery --------------------------------------------------------------------------
    @property
    def values(self) -> dict:
        """``{control name: its value}`` now."""
        return {name: control.value for name, control in self.controls.items()}

    @contextlib.contextmanager
    def holding(self):
        """Inside ``with explorer.holding():`` control changes do not update the picture (an observer
        that moves another control, :meth:`set` setting several); whoever holds calls :meth:`update`
        afterwards if the picture must follow. Holds nest."""
        self._holds += 1
        try:
            yield self
        finally:
            self._holds -= 1

    @property
    def held(self) -> bool:
        """Whether someone is inside :meth:`holding` now."""
        return self._holds > 0

    def cache_bytes(self) -> dict:
        """Bytes each per-explorer cache holds now; each is bounded (``memo_bytes``,
        ``background_bytes``, :data:`helpers.render.text_stamps.MAX_BYTES`)."""
        stamps = getattr(self, "_stamps", None)
        return {"memo": self._cache.nbytes, "backgrounds": self._backgrounds.nbytes,
                "stamps": stamps.nbytes if stamps is not None else 0}

    @staticmethod
    def _memo_key(values: dict):
        return tuple(sorted(values.items()))

    def state_for(self, **values):
        """The memoised ``[state, png]`` for a combination of control values (png ``None`` until
        rendered; :meth:`update` fills it in, so returning to a state costs no drawing)."""
        key = self._memo_key(values)
        try:
            return self._cache.get(key)
        except TypeError:  # unhashable control value: no memo
            return [self.compute(**values), None]
        except KeyError:
            entry = [self.compute(**values), None]
            self._cache.put(key, entry)
            return entry

    # ---- rendering: blit the artists that change over a cached background -------------------
    def animate(self, *artists) -> None:
        """Mark artists that :meth:`draw` changes; everything else is drawn once as background."""
        for artist in artists:
            artist.set_animated(True)
            self._animated.append(artist)

    def forget(self, artist) -> None:
        """Stop drawing ``artist`` as animated (an artist a panel has removed from the figure)."""
        if artist in self._animated:
            self._animated.remove(artist)

    def invalidate_background(self, key=None) -> None:
        """Call from :meth:`draw` when something static changed (limits, ticks, labels). ``key``
        names the new static look (say, the sequence length): a look drawn before is restored
        from memory instead of drawn again, and :meth:`background_variants` draws them up front."""
        self._background = None
        self._background_key = key

    def background_variants(self) -> list:
        """Control values (dicts) that between them show every static look :meth:`draw` can
        ask for with a ``key``; each is drawn once when the explorer is made, so that no move
        later waits for a full redraw. Default: none (one look)."""
        return []

    def _draw_background(self) -> None:
        canvas = self.fig.canvas
        key = self._background_key
        if key is not None and key in self._backgrounds:
            self._background = self._backgrounds.get(key)
            return
        canvas.draw()  # lays out and draws everything except the animated artists
        self.fig.set_layout_engine("none")  # freeze the layout: positions no longer move
        self._background = canvas.copy_from_bbox(self.fig.bbox)
        if key is not None:
            width, height = canvas.get_width_height(physical=True)
            self._backgrounds.put(key, self._background, size=4 * width * height)  # RGBA

    def _warm_backgrounds(self) -> None:
        """Draw the background of each of :meth:`background_variants` (not the animated artists)."""
        for values in self.background_variants():
            with one_blas_thread():
                state = self.compute(**{**self.values, **values})
            self.draw(state)
            if self._background is None:
                self._draw_background()
        self.draw(self.state)
        if self._background is None:
            self._draw_background()

    def picture_variants(self) -> list:
        """Control values (dicts, for :meth:`compute_args`) whose pictures are drawn and memoised
        when the explorer is made, so that a first move to one of them only sends a stored PNG.
        Worth it only for an explorer with a few dozen states (a slider over stored checkpoints),
        whose pictures fit in ``memo_bytes``. Default: none."""
        return []

    def _warm_pictures(self) -> None:
        """Render and memoise the picture of each of :meth:`picture_variants`, then put the figure
        back to the shown state."""
        variants = self.picture_variants()
        for values in variants:
            args = {**self.compute_args(), **values}
            with one_blas_thread():
                entry = self.state_for(**args)
            if entry[1] is None:
                self.draw(entry[0])
                entry[1] = self.render()
                self._cache.grow(self._memo_key(args), len(entry[1]))
        if variants:
            self.draw(self.state)

    def render(self) -> bytes:
        """PNG of the figure: the cached background plus the animated artists drawn on top."""
        canvas = self.fig.canvas
        if self._background is None:
            self._draw_background()
        canvas.restore_region(self._background)
        for artist in self._animated:
            if not (self.text_stamps and self._stamps.draw(artist, canvas)):
                self.fig.draw_artist(artist)
        return rgba_png(canvas)

    def update(self) -> None:
        """Recompute (or fetch) the state, update the figure in place, re-render the PNG."""
        args = self.compute_args()
        with one_blas_thread():  # small products: a second thread only waits (helpers.render.threads)
            entry = self.state_for(**args)
        self.state = entry[0]
        if self.naive:  # the way the benchmark compares against: a new figure per move
            self.fig = new_figure(*self.figsize)
            self.build(self.fig)
            self.draw(self.state)
            for artist in self._animated:
                artist.set_animated(False)
            self._animated = []
            self.png = figure_png(self.fig)
        else:
            self.draw(self.state)  # keeps the artists in step even when the picture is memoised
            if entry[1] is None:
                entry[1] = self.render()
                try:
                    self._cache.grow(self._memo_key(args), len(entry[1]))  # the PNG counts too
                except TypeError:  # unhashable: not memoised
                    pass
            self.png = entry[1]
        self.image.value = self.png
        self.readout.value = self.describe(self.state)
        self.renders += 1

    def set(self, **values) -> None:
        """Set several controls at once with a single update (tests, reset buttons); inside
        :meth:`holding` no update (the holder updates)."""
        unknown = set(values) - set(self.controls)
        if unknown:
            raise ValueError(f"unknown control(s) {sorted(unknown)}; this explorer has {list(self.controls)}")
        # ranges are checked up front; options only when their turn comes, because setting an
        # earlier control may change them (06: the KV-head choices follow the number of heads)
        values = {name: value if self._has_options(name) else self.check_value(name, value)
                  for name, value in values.items()}

        error = None
        outer = self.held  # inside someone's holding(): they update afterwards (restore_defaults)
        with self.holding():
            for name, value in values.items():
                try:
                    self.controls[name].value = self.check_value(name, value)
                except (TraitError, ValueError, TypeError) as exc:  # e.g. an option just ruled out
                    options = list(getattr(self.controls[name], "_options_values", ()))
                    error = exc if not isinstance(exc, TraitError) else ValueError(
                        f"{name} cannot be {value!r} here; allowed now: {options} ({self.control_note(name, name)})")
                    break
        if not outer:
            self.update()  # the picture always matches the controls, even after a refused value
        if error is not None:
            raise error

    def restore_defaults(self) -> None:
        """What the 恢复默认 button does: every control and picker back to its initial value (see
        :attr:`defaults`), then one update."""
        with self.holding():
            self.restore_state()
            for name, value in self._action_defaults.items():
                self.actions[name].value = value  # a picker's own observer may call set(): held, no extra draw
        self.set(**self.defaults)

    def _has_options(self, name: str) -> bool:
        return getattr(self.controls[name], "_options_values", None) is not None

    def check_value(self, name: str, value):
        """``value`` if the control ``name`` can show it now; otherwise a ``ValueError``/``TypeError``
        naming the control and its range or options."""
        return self._within(name, value, name, self._domain(self.controls[name]))

    @staticmethod
    def _domain(control, universe=None) -> tuple:
        """What ``control`` can show: ``("options", values)``, ``("bool",)``, ``("int", low, high)``,
        ``("float", low, high)``, ``("text",)`` (a text box: any string; the explorer says what it
        makes of one it cannot show), or ``("any",)`` for a widget of another kind; ``universe`` (every
        value a control whose range follows another can ever take) replaces its range or options."""
        if universe is not None:
            return ("options", tuple(universe))
        options = getattr(control, "_options_values", None)
        if options is not None:
            return ("options", tuple(options))
        if isinstance(control, (widgets.Text, widgets.Textarea)):
            return ("text",)
        if isinstance(control, widgets.Checkbox):
            return ("bool",)
        if isinstance(control, widgets.IntSlider):
            return ("int", control.min, control.max)
        if isinstance(control, widgets.FloatSlider):
            return ("float", control.min, control.max)
        return ("any",)

    def _within(self, name: str, value, control: str, domain: tuple):
        """``value`` if it lies in ``domain``, else the validation error for ``name`` followed by
        :meth:`control_note`."""
        kind = domain[0]
        try:
            if kind == "options":
                return choice(name, value, domain[1])
            if kind == "bool":
                return boolean(name, value)
            if kind == "int":
                return integer(name, value, low=domain[1], high=domain[2])
            if kind == "float":
                return finite_scalar(name, value, low=domain[1], high=domain[2])
            if kind == "text":
                return check_text(name, value)
        except (TypeError, ValueError) as exc:
            raise _with_note(exc, self.control_note(name, control, domain)) from None
        return value

    def control_note(self, name: str, control: str, domain: tuple | None = None) -> str:
        """``rank is the slider “名次” of HeadsExplorer, 1…5``: the control behind ``name`` (a
        control, or an entry of ``compute``'s argument that carries one) as the learner sees it."""
        widget = self.controls[control]
        word = next((w for cls, w in CONTROL_WORDS if isinstance(widget, cls)), "control")
        label = f"“{widget.description}”" if widget.description else control
        domain = self.domains[control] if domain is None else domain
        span = f", {domain[1]:g}…{domain[2]:g}" if domain[0] in ("int", "float") else ""
        verb = "is" if name == control else "is set by"
        return f"{name} {verb} the {word} {label} of {type(self).__name__}{span}"

    def check_compute_args(self, values: dict) -> None:
        """Refuse ``compute`` arguments that no control can give (see :attr:`domains`), naming the
        control (:meth:`control_note`); arguments that carry no control are the subclass's to check."""
        for arg, value in values.items():
            if arg in self.compute_controls:
                self._check_entries(arg, value, tuple(self.compute_controls[arg]))
            elif arg in self.controls:
                self._within(arg, value, arg, self.domains[arg])

    def _check_entries(self, arg: str, value, controls: tuple) -> None:
        """An array argument whose entries along the last axis carry ``controls``' values."""
        try:
            arr = as_real_array(arg, value, allow_nonfinite=True)
            if arr.ndim == 0 or arr.shape[-1] != len(controls):
                raise ValueError(f"{arg} must hold {len(controls)} numbers along its last axis, got shape {arr.shape}")
        except (TypeError, ValueError) as exc:
            sliders = ", ".join(f"“{self.controls[c].description or c}”" for c in controls)
            raise _with_note(exc, f"{arg} is set by the controls {sliders} of {type(self).__name__}") from None
        for column, control in enumerate(controls):
            domain, entries = self.domains[control], arr[..., column]
            if domain[0] == "float" and np.isfinite(entries).all() and domain[1] <= entries.min() <= entries.max() <= domain[2]:
                continue  # the usual case, checked at once
            for index in np.ndindex(entries.shape):  # find the entry to name
                name = arg + "".join(f"[{i}]" for i in (*index, column))
                self._within(name, entries[index].item(), control, domain)

    def check_state(self, state, method: str = "web_view", name: str = "state") -> None:
        """Refuse a ``state`` that is not one of this explorer's (``None``, another explorer's): a
        ``TypeError`` naming the explorer, ``method`` and its argument ``name``, and the state it
        takes. Held to :attr:`state`, the one shown now: the same type and, for a dict, at least its keys."""
        reference = self.state
        if reference is None:  # nothing computed yet: nothing to hold it to
            return
        if isinstance(state, type(reference)) and (not isinstance(reference, dict) or reference.keys() <= state.keys()):
            return
        missing = ""
        if isinstance(reference, dict) and isinstance(state, dict):
            lacks = sorted(map(str, reference.keys() - state.keys()))
            missing = f", lacking {', '.join(map(repr, lacks[:5]))}{', …' if len(lacks) > 5 else ''}"
        raise TypeError(f"{type(self).__name__}.{method}: {name} must be a state of this explorer "
                        f"({_state_kind(reference)}, as its compute() returns; explorer.state is the one shown now), "
                        f"got {_state_kind(state)}{missing}")

    def _on_change(self, change) -> None:
        new = change.get("new") if isinstance(change, dict) else None
        if isinstance(new, float) and math.isnan(new):  # FloatSlider accepts NaN: put the old value back
            change["owner"].value = change["old"]
            return
        if not self.held:
            self.update()

    def preview_png(self) -> bytes:
        """The picture shown before the cell runs: the initial figure (2× density) under a band
        holding :data:`STATIC_HINT`."""
        band = new_figure(self.figsize[0], 0.34)
        band.set_layout_engine("none")
        band.patch.set_facecolor(BAND_GREY)
        band.text(0.5, 0.5, STATIC_HINT, ha="center", va="center", fontsize=10, color=TEXT_GREY)
        body = Image.open(io.BytesIO(self.png))
        bands = [figure_png(band)] + ([self._readout_png()] if self.preview_readout else [])
        bands = [Image.open(io.BytesIO(b)) for b in bands]
        bands = [b.resize((body.width, b.height)) if b.width != body.width else b for b in bands]
        picture = Image.new("RGBA", (body.width, sum(b.height for b in bands) + body.height), "white")
        top = 0
        for part in (*bands, body):
            picture.paste(part, (0, top))
            top += part.height
        buffer = io.BytesIO()
        picture.save(buffer, format="PNG", optimize=True)
        return buffer.getvalue()

    def readout_text(self) -> str:
        """The readout of the current state as plain text (its HTML's tags dropped, ``<br>`` a new
        line), folded to the figure's width in 9-pt text: what the static preview draws."""
        text = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<br\s*/?>", "\n", self.describe(self.state))))
        return wrap_text(text, int(self.figsize[0] * 72 / 4.8))  # a Latin character ≈ 4.8 pt, a CJK one two

    def _readout_png(self) -> bytes:
        """:meth:`readout_text` as a picture as wide as the figure."""
        lines = self.readout_text().split("\n")
        band = new_figure(self.figsize[0], 0.12 + 0.17 * len(lines))
        band.set_layout_engine("none")
        band.text(0.03, 0.5, "\n".join(lines), ha="left", va="center", fontsize=9, linespacing=1.4)
        return figure_png(band)

    def mime_bundle(self) -> tuple:
        """``(data, metadata)`` of the explorer's display: widget view, preview PNG, hint text."""
        png = self.preview_png()
        data = {WIDGET_VIEW: {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id},
                "image/png": png, "text/plain": STATIC_HINT}
        return data, {"image/png": {"width": display_width(png)}}

    def _ipython_display_(self):
        data, metadata = self.mime_bundle()
        display(data, raw=True, metadata=metadata)
