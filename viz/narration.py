"""Plain-words captions of a run's frames, for the narrated step mode.

Each caption says what the iteration leading to the frame did, read from the recording:
how many near nodes relaxed their arcs, how many nodes were reached or went to the far pile,
and, when the near set emptied, how the phase ended (the threshold's rise, the nodes that
left the far pile, the nodes settled). Distances are in the graph's units (km, minutes).
"""

from __future__ import annotations

import html
import time

import numpy as np
import panel as pn

import engine
from engine.graphs.csr import unique

from . import style
from ._page import held
from .charts import TextPane
from .geometry import Geometry
from .runs import Run
from .runview import RunView
from .state import METHOD_LABELS
from .style import counted


def caption(run: Run, frame: int) -> str:
    """What happened between ``frame - 1`` and ``frame`` (or the run in a line, for a
    search without frames)."""
    result = run.result
    rec = result.recording
    kind = result.graph.weight_kind
    if rec is None:
        c = result.counters
        return (
            f"SciPy's Dijkstra settles one node at a time in distance order: "
            f"{counted(c.edges_relaxed, 'arc')} relaxed, no iterations to show."
        )
    frame = min(max(frame, 0), len(rec) - 1)
    now = rec.snapshot(frame)
    if frame == 0:
        each = (
            "Each step is a whole phase: this search has no iterations to show."
            if rec.by_phase
            else "Each step relaxes the arcs of the near nodes."
        )
        if _phast(result):
            each = (
                "PHAST contracted the city's nodes into a hierarchy of levels before "
                "searching, its dense top kept as a small core: it searches up the hierarchy "
                "and through the core, then one sweep down gives every other node its distance."
            )
        return (
            "The search starts: the source is the only near node (distance 0); every other "
            f"node is unreached. {each}"
        )
    before = rec.snapshot(frame - 1)
    if rec.by_phase:
        return _phase_caption(run, frame, now, before)
    frames = rec.frames
    cols = engine.recording.FRAME_FIELDS
    reached = int(frames[frame, cols.index("reached")] - frames[frame - 1, cols.index("reached")])
    neared = int(frames[frame, cols.index("neared")] - frames[frame - 1, cols.index("neared")])
    settled = now.settled - before.settled
    arcs = now.edges_relaxed - before.edges_relaxed
    method = result.method
    delta_stepping = engine.METHODS[method].light_heavy
    what = "light arcs (≤ Δ)" if delta_stepping else "arcs"
    parts = [
        f"Iteration {now.iteration:,}: {counted(now.frontier, 'near node')} relaxed "
        f"{'its' if now.frontier == 1 else 'their'} {what} ({counted(arcs, 'arc')}); "
        f"{counted(reached, 'node')} reached for the first time."
    ]
    if now.phase > before.phase and result.delta is not None:
        rise = style.weight_text(now.threshold, kind)
        if delta_stepping:
            band = (
                f"Bucket {before.settled_below // before.delta:,}"
                if result.adaptive is None
                else "The band"
            )
            parts.append(
                f"{band} is empty of light work, so its heavy arcs are relaxed once and phase "
                f"{before.phase:,} ends."
            )
        else:
            parts.append(f"The near set is empty, so phase {before.phase:,} ends.")
            if engine.METHODS[method].bucketed:
                parts.append("The next bucket is taken from the sorted far nodes.")
        if result.adaptive is None:
            rise = f"{now.threshold / result.delta:,.4g}·Δ = {rise}"
        else:
            parts.append(_adapted(before, now, kind))
        parts.append(
            f"The threshold rises to {rise}; {counted(neared, 'node')} left the far pile for "
            f"the near set, and {counted(settled, 'node')} {'is' if settled == 1 else 'are'} "
            "now settled."
        )
    elif result.delta is None:
        parts.append(f"Bellman-Ford has no threshold: {counted(now.near, 'node')} will relax next.")
    else:
        hi = style.weight_text(now.threshold, kind)
        parts.append(
            f"{counted(neared, 'node')} joined the near set; {counted(now.far, 'node')} "
            f"{'waits' if now.far == 1 else 'wait'} in the far pile, beyond the threshold {hi}."
        )
    target = result.target
    if target is not None and rec.settled_at[target] == frame:
        d = style.weight_text(int(result.distances[target]), kind)
        parts.append(f"The target is settled at {d}: the search stops and the route is drawn.")
    elif frame == len(rec) - 1:
        parts.append(
            f"Done: {counted(now.settled, 'node')} settled in {counted(now.phase, 'phase')}; "
            "every distance is final."
        )
    return " ".join(parts)


def _phase_caption(run: Run, frame: int, now, before) -> str:
    """What a phase's end, or a step of the sweep, did (a search recorded by phase)."""
    result = run.result
    rec = result.recording
    kind = result.graph.weight_kind
    arcs = now.edges_relaxed - before.edges_relaxed
    phast = _phast(result)
    if rec.sweep_from is not None and frame >= rec.sweep_from:
        steps = len(rec) - 1 - rec.sweep_from
        step = frame - rec.sweep_from
        if step == steps:
            where = (
                "up the hierarchy and through its core, and one pass down it"
                if phast
                else "on the core and one pass over the rest"
            )
            return (
                f"Done: the sweep gave every contracted node its distance; "
                f"{counted(now.settled, 'node')} settled, in "
                f"{counted(result.counters.phases, 'phase')} {where}."
            )
        which = (
            f"level {steps - step:,} (the top level goes first)"
            if phast
            else f"round {steps - step:,} (the last contracted go first)"
        )
        return (
            f"Sweep step {step + 1:,} of {steps:,}: the {counted(now.frontier, 'node')} "
            f"contracted in {which} {'takes its' if now.frontier == 1 else 'take their'} "
            f"distance from the neighbours {'it' if now.frontier == 1 else 'they'} had then, "
            f"over {counted(arcs, 'arc')} down: no queue and no threshold, each node read "
            "once. The nodes it found in the previous step are settled."
        )
    if phast:
        return _climb_caption(result, frame, now, arcs)
    where = "the core's" if result.method == "near_far_core" else "the"
    how = (
        "the GPU's blocks relaxed them from their own work rings, each as soon as it was "
        "reached, with no barrier between one relaxation and the next"
        if result.backend == "gpu"
        else "on the CPU its synchronous twin ran the same phase in iterations"
    )
    settled = now.settled - before.settled
    parts = [
        f"Phase {frame:,} ends: {counted(now.frontier, 'near node')} relaxed their arcs "
        f"({counted(arcs, 'arc')}); {how}. {counted(settled, 'node')} of {where} band "
        f"{'is' if settled == 1 else 'are'} settled."
    ]
    if frame == len(rec) - 1 or (rec.sweep_from is not None and frame == rec.sweep_from - 1):
        target = result.target
        if target is not None and rec.settled_at[target] == frame:
            d = style.weight_text(int(result.distances[target]), kind)
            then = "the core's search stops; the sweep follows" if rec.sweep_from else "it stops"
            parts.append(f"The target is settled at {d}: {then}.")
        elif rec.sweep_from is not None:
            parts.append(
                "The core is done; the contracted nodes wait for the sweep, which gives "
                "each its distance from the nodes it was contracted between."
            )
        else:
            parts.append(
                f"Done: {counted(now.settled, 'node')} settled in "
                f"{counted(now.phase, 'phase')}; every distance is final."
            )
    else:
        hi = style.weight_text(now.threshold, kind)
        parts.append(
            f"The threshold rises to {hi}: {counted(now.near, 'node')} already reached below "
            f"it {'is' if now.near == 1 else 'are'} near, {counted(now.far, 'node')} "
            f"{'waits' if now.far == 1 else 'wait'} in the far pile."
        )
    return " ".join(parts)


def _phast(result) -> bool:
    """Whether ``result`` is PHAST's: a search up its hierarchy, then a sweep down it."""
    return engine.METHODS[result.method].contraction == "hierarchy"


def _climb_caption(result, frame: int, now, arcs: int) -> str:
    """PHAST's search up its hierarchy (and through the small core on top), in one band."""
    parts = [
        f"The search up ends: {counted(now.frontier, 'node')} relaxed their arcs up "
        f"({counted(arcs, 'arc')}) in one band, no threshold; "
        f"{counted(result.graph.n_nodes - now.unreached, 'node')} reached, the core's final, "
        "each climbed node's an upper bound the sweep may still lower."
    ]
    if frame == result.recording.sweep_from - 1:
        parts.append(
            "The sweep now takes the levels from the top down, each node's distance the "
            "least over its arcs from the levels above."
        )
    return " ".join(parts)


def events(run: Run) -> np.ndarray:
    """The frames at which something happens that a class should hear of: the start, each
    phase's end, the target settling, the start of a sweep and the end (sorted; ``[0]`` for
    a search without frames)."""
    rec = run.result.recording
    if rec is None:
        return np.zeros(1, dtype=np.int64)
    phases = rec.frames[:, engine.recording.FRAME_FIELDS.index("phase")]
    marks = [np.zeros(1, dtype=np.int64), np.flatnonzero(np.diff(phases)) + 1, [len(rec) - 1]]
    if rec.by_phase:  # every frame of the search ends a phase; the sweep's start
        marks.append(np.arange(len(rec) if rec.sweep_from is None else rec.sweep_from + 1))
    target = run.result.target
    if target is not None and rec.settled_at[target] >= 0:
        marks.append([rec.settled_at[target]])
    return unique(np.concatenate(marks)).astype(np.int64)


def last_event(run: Run, frame: int) -> int:
    """The latest of `events` at or before ``frame``."""
    marks = events(run)
    return int(marks[np.searchsorted(marks, frame, side="right") - 1])


def _adapted(before, now, kind: str) -> str:
    """How the adaptive Δ answered the phase that just ended (`engine.adaptive`)."""
    was, new = style.weight_text(before.delta, kind), style.weight_text(now.delta, kind)
    waste = counted(now.last_waste, "re-improvement")
    if now.delta > before.delta:
        return f"It wasted little ({waste}), so the adaptive Δ widens from {was} to {new}."
    if now.delta < before.delta:
        return f"It wasted work ({waste}), so the adaptive Δ narrows from {was} to {new}."
    return f"The adaptive Δ stays {new} ({waste} in that phase)."


_COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south",
            "south-east")  # fmt: skip


def describe(run: Run, frame: int, geometry: Geometry | None) -> str:
    """The whole picture at ``frame`` in words, for someone who cannot see the map: where
    the search stands, how many nodes are in each state, and (with coordinates) which way
    the frontier lies from the source and how far it has spread."""
    result = run.result
    graph = result.graph
    states = run.states(frame)
    counts = np.bincount(states, minlength=4)
    values = run.readout(frame)
    kind = graph.weight_kind
    parts = [
        f"Frame {frame:,} of {run.n_frames - 1:,}, {METHOD_LABELS[result.method]}, "
        f"phase {values['phase']:,}.",
        f"Of {graph.n_nodes:,} nodes, {counts[engine.recording.SETTLED]:,} are settled, "
        f"{counts[engine.recording.NEAR]:,} near and {counts[engine.recording.FAR]:,} far; "
        f"{counts[engine.recording.UNREACHED]:,} are not reached yet.",
    ]
    if result.delta is not None and values["hi"]:
        parts.append(
            f"Every node closer than {style.weight_text(values['lo'], kind)} is final; the "
            f"threshold is {style.weight_text(values['hi'], kind)}."
        )
    active = np.flatnonzero(states == engine.recording.NEAR)
    active = active[active != result.source]
    if geometry is not None and active.size:
        dx = float(geometry.x[active].mean() - geometry.x[result.source])
        dy = float(geometry.y[active].mean() - geometry.y[result.source])
        heading = _COMPASS[round(np.degrees(np.arctan2(dy, dx)) / 45) % 8]
        reach = np.hypot(geometry.x[active] - geometry.x[result.source],
                         geometry.y[active] - geometry.y[result.source]).max()  # fmt: skip
        reach *= np.cos(np.radians(graph.lat[result.source]))  # Web Mercator's stretch
        parts.append(
            f"The near nodes lie mostly {heading} of the source, up to {reach / 1000:,.1f} km "
            "from it as the crow flies."
        )
    target = result.target
    if target is not None:
        state = ("unreached", "far", "near", "settled")[int(states[target])]
        parts.append(f"The target is {state}.")
    return " ".join(parts)


class Describe(RunView):
    """A button that puts `describe` of search A's frame in a text region (``role=status``,
    so a screen reader reads it when it appears)."""

    def __init__(self, session, **params):
        super().__init__(session, 0, **params)
        self._button = pn.widgets.Button(
            label="Describe this frame", width=180, css_classes=["frontier-describe"]
        )
        self._text = TextPane("", sizing_mode="stretch_width")
        self._button.on_click(held(self.say))
        self._layout = pn.Row(self._button, self._text, sizing_mode="stretch_width")
        self._follow()

    def say(self) -> None:
        run = self._run
        if run is not None:
            text = html.escape(describe(run, self.session.frame, self.session.loaded.geometry))
            self._text.object = f'<div class="frontier-description" role="status">{text}</div>'

    def _on_frame(self, *_events) -> None:
        if self._text.object:  # a description of another frame would mislead
            self._text.object = ""


#: A screen reader hears the caption at most this often while the search plays.
SPOKEN_EVERY_S = 1.0
#: Kept off screen, not hidden: a screen reader still reads it.
_OFF_SCREEN = (
    "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap"
)


#: The caption keeps at least three lines' height: a caption that wrapped onto one line more
#: or less than the last one resized the page's layout, which the browser then computed
#: again in full (≈ 20 ms each time, at one frame in ten; decisions/0039, issue 19).
CAPTION_HEIGHT = "min-height:4.5em"


class Caption(RunView):
    """The caption of search A's current frame, in an element with a stable CSS class, and
    the same words in an ``aria-live`` region for screen readers: at once for a step, at
    most once a `SPOKEN_EVERY_S` while playing (a new caption every frame would never be
    heard to its end).

    In presentation mode, while the search plays, the caption is that of the last of its
    `events` (a phase's end, the target settling): it changes when something happens, and
    stays long enough to be read from the back of a room."""

    def __init__(self, session, **params):
        super().__init__(session, 0, **params)
        self._layout = TextPane("", margin=(0, 10), sizing_mode="stretch_width")
        self._spoken = TextPane("", margin=0, height=0, sizing_mode="stretch_width")
        self._spoken_at = -SPOKEN_EVERY_S
        # its large type; and a pause shows the frame on screen
        self.session.param.watch(self._on_frame, ["present", "playing"])
        self._follow()

    def _frame_told(self, run: Run) -> int:
        frame = min(self.session.frame, run.n_frames - 1)
        if self.session.present and self.session.playing:
            return last_event(run, frame)
        return frame

    def _on_frame(self, *_events) -> None:
        run = self._run
        if run is not None:
            text = html.escape(caption(run, self._frame_told(run)))
            runs = self.session.runs
            if len(runs) == 2:  # comparing: both searches at this frame
                b = html.escape(caption(runs[1], self._frame_told(runs[1])))
                text = f"<b>A</b>: {text}<br><b>B</b>: {b}"
            size = f"font-size:{style.PRESENT_PX}px;" if self.session.present else ""
            told = f'<div class="frontier-caption" style="{size}{CAPTION_HEIGHT}">{text}</div>'
            if told != self._layout.object:  # a property set costs even when unchanged
                self._layout.object = told
                self._speak(text)

    def _speak(self, text: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if self.session.playing and now - self._spoken_at < SPOKEN_EVERY_S:
            return
        self._spoken_at = now
        self._spoken.object = (
            f'<div class="frontier-live" aria-live="polite" style="{_OFF_SCREEN}">{text}</div>'
        )

    def __panel__(self):
        return pn.Column(self._layout, self._spoken, sizing_mode="stretch_width")
