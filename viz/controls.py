"""Widgets that change the `Session`: graph, query, search settings and the player."""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable
from functools import partial
from typing import ClassVar

import panel as pn
import param
from bokeh.models import CustomJSTickFormatter, Slider
from panel.viewable import Viewer

import engine

from . import files, state, style
from ._page import every, from_page, held, served
from .loading import Loader
from .state import GraphChoice, RunConfig, Session

log = logging.getLogger(__name__)

#: The Δ slider's range, as powers of two, and its step (a key press: about 3.5 %).
DELTA_LOG2_MAX, DELTA_LOG2_STEP = 31.0, 0.05
#: The handle's value for screen readers: Δ, not its logarithm (within the slider's step).
DELTA_FORMAT = CustomJSTickFormatter(code="return Math.round(2 ** tick).toLocaleString('en-US')")
#: What Δ is counted in, by the graph's weight: OSM lengths in centimetres, travel times in
#: milliseconds, DIMACS/PACE weights in the file's own unit.
DELTA_UNITS = {"length": "cm", "travel_time": "ms"}
#: Batch-size slider stops.
BATCH_STOPS = [2**k for k in range(13)]
_SOURCES = {
    "Helsinki (embedded)": "helsinki",
    "Place name (online)": "place",
    "File path": "path",
    "Upload a file": "upload",
}


def two_way(widget, obj, name: str, *, attr: str = "value") -> None:
    """Keep ``widget.attr`` and ``obj.name`` equal in both directions. Each side copies the
    other's *current* value, so a change that was refused and reverted meanwhile is not
    replayed by a late watcher."""

    def push(_event):
        if getattr(obj, name) != (value := getattr(widget, attr)):
            setattr(obj, name, value)

    def pull(_event):
        if getattr(widget, attr) != (value := getattr(obj, name)):
            setattr(widget, attr, value)

    widget.param.watch(from_page(push), attr)
    obj.param.watch(pull, name)


class StopSlider(pn.widgets.DiscreteSlider):
    """A `DiscreteSlider` that refuses, on the server, an index outside its options.

    The browser sends the slider's index; a crafted message with an index out of range made
    Panel raise in the server log, and -1 picked the last option. Such a message is logged
    in one line and the slider put back where its value is.
    """

    def _sync_value(self, event):
        if event.name in ("value", "value_throttled") and not self._syncing:
            if not 0 <= event.new < len(self.values):
                last = len(self.values) - 1
                log.warning("%s: index %r outside 0..%d refused", self.label, event.new, last)
                self._slider.value = self.values.index(self.value)
                return
        super()._sync_value(event)


def _nearest_stop(value: int, stops: list[int]) -> int:
    return min(stops, key=lambda s: abs(s - value))


class RunControls(Viewer):
    """Method, Δ (log slider, exact value, auto, adaptive), batch size and backend of one
    `RunConfig`."""

    def __init__(self, session: Session, config: RunConfig, **params):
        super().__init__(**params)
        self.session, self.config = session, config
        labels = {label: key for key, label in state.METHOD_LABELS.items()}
        self.method = pn.widgets.Select(label="Algorithm", options=labels, value=config.method)
        self.auto = pn.widgets.Toggle(label="auto Δ", value=config.auto_delta, color="light")
        self.adaptive = pn.widgets.Toggle(
            label="adaptive Δ (chosen at each phase end)",
            value=config.adaptive_delta,
            color="light",
            css_classes=["frontier-adaptive"],
        )
        self.delta_slider = pn.widgets.FloatSlider(
            label="Δ (log scale)",
            start=0.0,
            end=DELTA_LOG2_MAX,
            step=DELTA_LOG2_STEP,
            value=math.log2(config.delta),
            show_value=False,  # the handle stops on a grid: the box beside says Δ exactly
            format=DELTA_FORMAT,
            css_classes=["frontier-delta-slider"],
        )
        self.delta = pn.widgets.IntInput(
            label="Δ exact", value=config.delta, width=120, css_classes=["frontier-delta"]
        )
        self.batch = StopSlider(
            label="Batch size (iterations per host check)",
            options=BATCH_STOPS,
            value=_nearest_stop(config.batch_size, BATCH_STOPS),
            css_classes=["frontier-batch-slider"],
        )
        self.backend = pn.widgets.Select(
            label="Backend", options=list(engine.methods.BACKENDS), value=config.backend
        )
        two_way(self.method, config, "method")
        two_way(self.auto, config, "auto_delta")
        two_way(self.adaptive, config, "adaptive_delta")
        two_way(self.backend, config, "backend")
        self._syncing = False
        self.delta_slider.param.watch(from_page(self._slid_delta), "value")
        self.delta.param.watch(from_page(self._chose_delta), "value")
        self.batch.param.watch(from_page(self._batched), "value")
        config.param.watch(
            self._sync, ["delta", "batch_size", "auto_delta", "adaptive_delta", "method"]
        )
        session.param.watch(self._sync, "runs")
        self._sync()

    def _chose_delta(self, event) -> None:
        if not self._syncing:
            self.config.param.update(delta=event.new, auto_delta=False, adaptive_delta=False)

    def _slid_delta(self, event) -> None:
        """Δ = 2^value, whole; a value from outside the slider's range is brought into it."""
        if not self._syncing and event.new is not None and math.isfinite(event.new):
            exponent = min(max(event.new, 0.0), DELTA_LOG2_MAX)
            delta = round(2**exponent)
            self.config.param.update(delta=delta, auto_delta=False, adaptive_delta=False)

    def _batched(self, event) -> None:
        if not self._syncing:
            self.config.batch_size = event.new

    def _sync(self, *_events) -> None:
        c = self.config
        runs = self.session.runs
        index = self.session.configs.index(c)
        ran = runs[index].result.delta if index < len(runs) else None
        chosen = c.auto_delta or c.adaptive_delta
        shown = ran if chosen and ran is not None else c.delta  # the (first) Δ that ran
        self._syncing = True  # moving the sliders to match is not a user's choice
        try:
            self.delta.value = shown
            self.delta_slider.value = math.log2(max(shown, 1))  # the box beside says it exactly
            self.batch.value = _nearest_stop(c.batch_size, BATCH_STOPS)
        finally:
            self._syncing = False
        uses_delta = engine.METHODS[c.method].uses_delta
        for w in (self.auto, self.adaptive, self.delta_slider, self.delta):
            w.disabled = not uses_delta
        self.batch.disabled = not engine.METHODS[c.method].iterative
        if self.session.loaded is not None:
            graph = self.session.loaded.graph
            self.auto.label = f"auto Δ = {graph.auto_delta():,}"
            unit = DELTA_UNITS.get(graph.weight_kind, "the file's weight unit")
            self.delta.label = f"Δ exact, in {unit}"

    def bar(self, *more) -> pn.viewable.Viewable:
        """The main view's row: the algorithm, Δ (slider and exact), the batch size, and
        ``more`` after them."""
        for w, width in ((self.method, 270), (self.delta_slider, 280), (self.batch, 260)):
            w.param.update(width=width, sizing_mode="fixed")
        self.delta.sizing_mode = "fixed"
        return pn.FlexBox(self.method, self.delta_slider, self.delta, self.batch, *more,
                          align_items="flex-end", flex_wrap="wrap", sizing_mode="stretch_width",
                          stylesheets=[style.ONE_ROW_CSS])  # fmt: skip

    def details(self) -> pn.viewable.Viewable:
        """The rest, for the settings drawer: auto or adaptive Δ, and the backend."""
        return pn.Column(self.auto, self.adaptive, self.backend, sizing_mode="stretch_width")

    def __panel__(self):
        return pn.Column(
            self.method,
            pn.Row(self.auto, self.delta),
            self.adaptive,
            self.delta_slider,
            self.batch,
            self.backend,
            sizing_mode="stretch_width",
        )


class GraphControls(Viewer):
    """Which graph: the embedded city, a place, a typed path or an upload; network; weight."""

    def __init__(self, session: Session, loader: Loader | None = None, **params):
        super().__init__(**params)
        self.session = session
        self.loader = loader or Loader(session)
        choice = session.loaded.choice if session.loaded else GraphChoice()
        self.source = pn.widgets.Select(label="Graph", options=_SOURCES, value="helsinki")
        self.text = pn.widgets.TextInput(label="Place or path", placeholder="Helsinki, Finland")
        self.upload = pn.widgets.FileDropper(
            max_file_size=f"{files.MAX_UPLOAD_MB}MB", multiple=False
        )
        # DIMACS/PACE: node coordinates from a second file (default: GRAPH's stem + .co).
        self.coords = pn.widgets.TextInput(
            label="Coordinates (.co), if not beside the graph",
            placeholder="data/city.co",
            css_classes=["frontier-coords"],
        )
        self.coords_upload = pn.widgets.FileDropper(
            max_file_size=f"{files.MAX_UPLOAD_MB}MB", multiple=False
        )
        # The droppers are on the page only while an upload is chosen: FilePond, which draws
        # them, reads its elements' layout on every animation frame while one exists, hidden
        # or not, which slowed a playing map's frames (decisions/0039, issue 19).
        self.uploads = pn.Column(sizing_mode="stretch_width", margin=0)
        self.network = pn.widgets.Select(
            label="Network", options=list(state.NETWORKS), value=choice.network
        )
        self.weight = pn.widgets.Select(
            label="Weight", options=list(state.WEIGHTS), value=choice.weight
        )
        self.weights = pn.widgets.Select(
            label="DIMACS/PACE weights", options=list(state.DIMACS_WEIGHTS), value=choice.weights
        )
        self.load = pn.widgets.Button(label="Load graph", color="primary")
        self.source.param.watch(self._kind_changed, "value")
        self.load.on_click(self._load)
        self.loader.param.watch(lambda e: setattr(self.load, "loading", e.new), "busy")
        for w in (self.network, self.weight, self.weights):
            w.param.watch(from_page(self._reload), "value")
        session.param.watch(self._sync, ["loaded", "error"])
        session.param.watch(self._show_loaded, "loaded")
        self._kind_changed()
        self._show_loaded()

    def _options(self) -> dict:
        return dict(
            network=self.network.value, weight=self.weight.value, weights=self.weights.value
        )

    def _kind_changed(self, *_events) -> None:
        kind = self.source.value
        self.text.visible = kind in ("place", "path")
        self.text.placeholder = "Helsinki, Finland" if kind == "place" else "data/city.osm.pbf"
        self.uploads.objects = [self.upload, self.coords_upload] if kind == "upload" else []
        self.coords.visible = kind == "path"

    def _choice(self) -> GraphChoice:
        """What the controls ask to load (a typed path is checked, an upload stored)."""
        kind, options = self.source.value, self._options()
        if kind == "helsinki":
            return GraphChoice("helsinki", **options)
        if kind == "place":
            return GraphChoice(f"place:{self.text.value.strip()}", **options)
        if kind == "path":
            coords = files.checked_path(self.coords.value) if self.coords.value.strip() else ""
            return GraphChoice(files.checked_path(self.text.value), **options, coords=coords)
        if not self.upload.value:
            raise state.DashboardError("choose a file to upload first")
        coords = _stored(self.coords_upload.value) if self.coords_upload.value else ""
        return GraphChoice(_stored(self.upload.value), **options, coords=coords)

    async def _load(self, *_events) -> None:
        """Load on a worker thread (a download or a large file takes a while): the button
        spins, the page stays live and shows the load's progress; then show the graph."""
        try:
            choice = self._choice()
        except Exception as exc:
            self.session.fail(exc)
            return
        await self.loader.load(choice, partial(self.session.load_graph, choice))

    def _reload(self, *_events) -> None:
        current = self.session.loaded.choice
        choice = dataclasses.replace(current, **self._options())
        if choice != current:
            self.session.load_graph(choice)

    def _sync(self, *_events) -> None:
        choice = self.session.loaded.choice
        self.network.value, self.weight.value = choice.network, choice.weight
        self.weights.value = choice.weights

    def _show_loaded(self, *_events) -> None:
        """Show how the graph on screen was opened, however it was (a link, a lesson, a
        replay, an upload: a stored file, shown by its path), so Load graph reloads it; show
        only the options that apply to it."""
        loaded = self.session.loaded
        if loaded is None:
            return
        spec = loaded.choice.spec
        if spec == "helsinki":
            self.source.value = "helsinki"
        elif spec.startswith("place:"):
            self.source.value, self.text.value = "place", spec.removeprefix("place:")
        else:
            self.source.value, self.text.value = "path", spec
            self.coords.value = loaded.choice.coords
        osm = loaded.graph.weight_kind in state.WEIGHTS  # OSM weights: length or travel time
        self.network.visible = self.weight.visible = osm
        self.weights.visible = not osm

    def __panel__(self):
        return pn.Column(
            self.source,
            self.text,
            self.coords,
            self.uploads,
            self.network,
            self.weight,
            self.weights,
            self.load,
            sizing_mode="stretch_width",
        )


def _stored(dropped: dict) -> str:
    """The path where a `FileDropper`'s file is stored (under the cache, named by content)."""
    (name, data), *_ = dropped.items()
    return files.save_upload(name, data.encode() if isinstance(data, str) else data)


class QueryControls(Viewer):
    """What a click on the map sets, and clearing the target."""

    def __init__(self, session: Session, **params):
        super().__init__(**params)
        self.session = session
        self.mode = pn.widgets.RadioButtonGroup(
            name="Click sets",
            options={"Click sets source": "source", "Click sets target": "target"},
            value=session.click_sets,
            button_type="light",
        )
        two_way(self.mode, session, "click_sets")
        self.clear = pn.widgets.Button(label="Clear target (full search)", color="light")
        self.clear.on_click(held(lambda: session.set_query(target=None)))
        self.help = pn.pane.HTML(
            "<small>Click the map for the nearest node; shift-click sets the target.</small>"
        )

    def __panel__(self):
        return pn.Column(self.mode, self.help, self.clear, sizing_mode="stretch_width")


class Keys(pn.custom.JSComponent):
    """The page's keyboard shortcuts: each press of space, ←, →, Home or Esc outside a text
    box or a menu is sent to ``on_key`` as a message (messages, unlike a property, are never
    merged when keys come fast). On a focused button space is the button's own click, so a
    keyboard-only user can Tab to Play, press space, and step with the arrows from there."""

    _esm = """
    export function render({ model }) {
      const handler = (e) => {
        const origin = e.composedPath()[0];
        const tag = ((origin && origin.tagName) || "").toLowerCase();
        if (["input", "textarea", "select"].includes(tag)) return;
        if (origin && origin.isContentEditable) return;
        if (tag === "button" && e.key === " ") return;  // the button clicks itself
        if ([" ", "ArrowLeft", "ArrowRight", "Home", "Escape"].includes(e.key)) {
          e.preventDefault();
          model.send_msg(e.key);
        }
      };
      document.addEventListener("keydown", handler);
      model.on("remove", () => document.removeEventListener("keydown", handler));
      return document.createElement("span");
    }
    """

    def __init__(self, on_key: Callable[[str], None], **params):
        super().__init__(**params)
        self._on_key = on_key

    def _handle_msg(self, msg) -> None:
        self._on_key(str(msg))


class Pacer(pn.custom.JSComponent):
    """Flow control for playback. The server numbers each frame it sends (``sent``, changed
    last in the frame's batch of changes); the page copies the number to ``applied`` once it
    has applied that batch. The player sends no new frame while the page is `AHEAD` frames
    behind, so a browser slower than the server skips frames instead of queueing them on
    the socket, where a Pause click would wait behind seconds of frames.

    The reply is a property, not a message: Panel handles a message's event outside the
    document lock, together with any widget change still pending."""

    sent = param.Integer(default=0)
    applied = param.Integer(default=0)

    #: The page's reply is no work of the server's: Panel's busy indicator (the spinner)
    #: flipped on and off at every frame, two more messages a frame (decisions/0039, issue 19).
    _busy__ignore: ClassVar[list[str]] = ["applied"]

    #: Frames sent and not yet applied by the page, at most. Two held the 1M-node city to
    #: ≈ 21 painted frames/s on a 16-core machine, four let it reach ≈ 27 (the frames'
    #: trips overlap more); a Pause still lands within four frames (decisions/0040, issue 19).
    AHEAD = 4
    #: A page silent this long is not waited for (a lost reply never stops playback).
    PATIENCE_S = 2.0

    _esm = """
    export function render({ model }) {
      model.on("sent", () => { model.applied = model.sent; });
      return document.createElement("span");
    }
    """

    def __init__(self, **params):
        super().__init__(**params)
        self._paced = served() is not None  # without a page there is nothing to wait for
        self._heard = time.monotonic()
        self.param.watch(self._on_applied, "applied")

    def ready(self) -> bool:
        """Whether the page is close enough behind for another frame."""
        if not self._paced or self.sent - self.applied < self.AHEAD:
            return True
        return time.monotonic() - self._heard > self.PATIENCE_S

    def mark(self) -> None:
        """Number a frame whose changes were just made."""
        if self._paced:
            if self.sent == self.applied:
                self._heard = time.monotonic()  # the wait starts now, not at the last reply
            self.sent += 1

    def _on_applied(self, _event) -> None:
        self._heard = time.monotonic()


class Player(Viewer):
    """Play, pause, step, scrub, speed and loop; one frame is one iteration.

    A server-side clock moves the frame to where the wall clock says (`Session.tick`), so a
    slow browser or server skips frames instead of queueing them.
    """

    def __init__(self, session: Session, **params):
        super().__init__(**params)
        self.session = session
        self.play = pn.widgets.Button(
            label="Play", color="primary", width=100, css_classes=["frontier-play"]
        )
        self.back = pn.widgets.Button(label="Back", width=70)
        self.forward = pn.widgets.Button(label="Step", width=70)
        self.first = pn.widgets.Button(label="First", width=60)
        # A Bokeh slider, not a Panel widget: Panel rebuilt the widget's style sheets with
        # every frame's value, half a frame's server time (decisions/0013, load).
        self.scrub = Slider(title="Frame", start=0, end=1, value=0, step=1)
        self.scrub.sizing_mode = "stretch_width"
        self.fps = pn.widgets.Select(
            label="",
            options={f"{f} fps": f for f in state.FPS_CHOICES},
            value=session.fps,
            width=90,
            css_classes=["frontier-fps"],
        )
        self.loop = pn.widgets.Checkbox(
            label="loop", value=session.loop, width=60, css_classes=["frontier-loop"]
        )
        self.present = pn.widgets.Button(
            label="Present", width=150, css_classes=["frontier-present-button"]
        )
        self.present.on_click(held(lambda: session.presenting(not session.present)))
        two_way(self.fps, session, "fps")
        two_way(self.loop, session, "loop")
        self.play.on_click(held(self._toggle))
        self.back.on_click(held(lambda: session.step(-1)))
        self.forward.on_click(held(lambda: session.step(1)))
        self.first.on_click(held(lambda: session.step(-session.frame)))
        self.scrub.on_change("value_throttled", self._scrubbed)
        self.keys = Keys(self.key, width=0, height=0, margin=0)
        self.pacer = Pacer(width=0, height=0, margin=0)
        session.param.watch(self._on_frame, ["frame", "runs"])
        session.param.watch(self._on_playing, ["playing", "fps"])
        session.param.watch(self._on_present, "present")
        self._clock = None  # a closed page's document removes it with its other callbacks
        self._on_frame()

    def _toggle(self) -> None:
        if self.session.playing:
            self.session.pause()
        else:
            self.session.play()

    def key(self, key: str) -> None:
        """Space plays or pauses, ← and → step, Home goes to the first frame, Esc leaves
        presentation mode."""
        s = self.session
        actions = {
            " ": self._toggle,
            "ArrowLeft": lambda: s.step(-1),
            "ArrowRight": lambda: s.step(1),
            "Home": lambda: s.step(-s.frame),
            "Escape": lambda: s.presenting(False),
        }
        if key in actions:
            held(actions[key])()

    def _on_present(self, *_events) -> None:
        on = self.session.present
        self.present.label = "Leave (Esc)" if on else "Present"
        for widget in (self.first, self.back, self.play, self.forward, self.fps, self.loop,
                       self.present):  # fmt: skip
            widget.stylesheets = [style.PRESENT_CSS] if on else []
        self.fps.width, self.loop.width = (130, 100) if on else (90, 60)  # room for the type

    def _scrubbed(self, _attr, _old, new) -> None:
        if new != self.session.frame:
            self.session.seek(new)  # clamped to the run's frames

    def _on_frame(self, *_events) -> None:
        end = max(self.session.n_frames - 1, 1)
        self.scrub.update(end=end, value=min(self.session.frame, end))

    def _on_playing(self, *_events) -> None:
        s = self.session
        self.play.label = "Pause" if s.playing else "Play"
        if self._clock is not None:
            self._clock()
            self._clock = None
        if s.playing:
            # Two ticks a frame: a tick that comes late still lands within its frame.
            self._clock = every(500 // s.fps, held(self._tick))

    def _tick(self) -> None:
        """Move to the wall clock's frame when the page has caught up (`Pacer`)."""
        if self.pacer.ready():
            frame = self.session.frame
            self.session.tick()
            if self.session.frame != frame:
                self.pacer.mark()

    def options(self) -> pn.viewable.Viewable:
        """Speed and loop, for the settings drawer."""
        return pn.Row(self.fps, self.loop, align="center")

    def __panel__(self):
        for widget in (self.first, self.back, self.play, self.forward, self.present):
            widget.sizing_mode = "fixed"
        return pn.FlexBox(  # one row; wraps on a phone: buttons, then the slider
            self.first,
            self.back,
            self.play,
            self.forward,
            pn.pane.Bokeh(
                self.scrub, sizing_mode="stretch_width", min_width=200, styles={"flex": "1 1 200px"}
            ),
            self.present,
            self.keys,
            self.pacer,
            flex_wrap="wrap",
            align_items="center",
            sizing_mode="stretch_width",
            stylesheets=[style.ONE_ROW_CSS],
        )
