"""Lessons: short guided scenarios, each a few steps tied to settings and frames, for a teacher
in front of a class (issue 20). They run on the city on screen (a shared city opened by
``?graph=...&lesson=NAME``, say) and on the embedded Helsinki when the graph on screen has no
coordinates to draw.

A `Step` sets search A (and B, when it compares), the map's layer and the player's frame in
one `Session.configure`, then says in words what the class sees, with the numbers of the
runs it just made. Its Δ is relative to the graph (a 32nd or 64 times the auto Δ, the median
arc's weight), so each step shows its difference on any city: tests/test_viz_lessons.py
checks that A and B differ by 15 % in a number the page shows, on the embedded and shared
cities. `Lessons` holds which lesson and step are open; `LessonView` renders it:
a menu, the step's text, Back and Next. ``?lesson=NAME`` opens one from a link.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import panel as pn
import param
from panel.viewable import Viewer

import engine.contraction
from engine import CSRGraph

from . import style
from ._page import from_page, held
from .charts import TextPane
from .state import DashboardError, GraphChoice, RunConfig, Session
from .style import counted

#: A step's frame that means "the run's last one" (clamped to the runs' length).
LAST = 10**9


#: A step's Δ as a function of the graph, so that each lesson shows its difference on any
#: city, whatever its size and unit (a fixed 1,000 was 10 m on Helsinki and a whole city on a
#: graph in kilometres): a 32nd of the auto Δ, 64 times it, or the median arc's weight (half
#: the arcs are then heavy, which is what Δ-stepping treats apart).
DeltaOf = Callable[[CSRGraph], int]


def tiny_delta(graph: CSRGraph) -> int:
    return max(1, graph.auto_delta() // 32)


def huge_delta(graph: CSRGraph) -> int:
    return min(graph.auto_delta() * 64, graph.max_delta())


def median_arc(graph: CSRGraph) -> int:
    return max(1, int(np.median(graph.weights))) if graph.n_arcs else 1


@dataclasses.dataclass(frozen=True)
class Step:
    """One step: the settings of searches A and B (None: B is off; a ``"delta"`` may be a
    `DeltaOf`), the frame to show (or a function of the session choosing it once the runs
    are made), the map's layer, what to say, and the two numbers the step sets side by side
    (``contrast``; None where the step introduces or shows that something stays the same)."""

    a: dict
    b: dict | None
    frame: int | Callable[[Session], int]
    say: Callable[[Session], str]
    layer: str = "states"
    contrast: Callable[[Session], tuple[int, int]] | None = None

    def configs(self, graph: CSRGraph) -> list[dict]:
        """The values of A and B on ``graph`` (B's are empty when B is off)."""
        return [_values(self.a, graph), _values(self.b or {}, graph)]


def _values(config: dict, graph: CSRGraph) -> dict:
    delta = config.get("delta")
    if callable(delta):
        return {**config, **RunConfig.delta_values(delta(graph))}
    return config


@dataclasses.dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    steps: tuple[Step, ...]


def _runs(s: Session):
    a = s.runs[0]
    b = s.runs[1] if len(s.runs) > 1 else None
    return a, b


def _w(s: Session, value: int) -> str:
    """A Δ in the words of the graph's weights (``10 m`` on lengths in centimetres)."""
    return style.weight_text(value, s.loaded.graph.weight_kind)


def _c(run) -> str:
    c = run.result.counters
    return (
        f"{counted(c.iterations, 'iteration')} in {counted(c.phases, 'phase')}, "
        f"{counted(c.edges_relaxed, 'arc')} relaxed"
    )


def _dijkstra_arcs(run) -> str:
    """The arcs Dijkstra relaxes on the run's query, or what it relaxes where that is not
    counted (`viz.runs.Reference`)."""
    n = run.reference.edges_relaxed
    return "each settled node's arcs once" if n is None else f"{n:,}"


def _far(run, frame: int | None = None) -> int:
    """The far set at ``frame``, or its largest over the run (the charts' far series)."""
    far = run.chart_columns()["far"]
    return int(far[run.clamp(frame)] if frame is not None else far.max())


def _widest_gap(s: Session) -> int:
    """The frame where A's and B's far sets differ most (the first such)."""
    a, b = (run.chart_columns()["far"] for run in _runs(s))
    n = min(a.size, b.size)
    return int(np.argmax(np.abs(a[:n] - b[:n])))


_AUTO = {"method": "near_far", "batch_size": 64, **RunConfig.delta_values("auto")}
_TINY = {**_AUTO, "delta": tiny_delta}
_HUGE = {**_AUTO, "delta": huge_delta}
_MEDIAN = {**_AUTO, "delta": median_arc}


_ASYNC = {**_AUTO, "method": "near_far_async"}
_CORE = {**_AUTO, "method": "near_far_core"}


def _frames(s: Session) -> tuple[int, int]:
    return tuple(run.n_frames for run in _runs(s))


def _core_done(s: Session) -> int:
    """B's last frame of its core search, before the sweep."""
    return s.runs[1].result.recording.sweep_from - 1


def _core(s: Session) -> tuple[int, int]:
    """The city's nodes and those of its contraction core."""
    graph = s.loaded.graph
    return graph.n_nodes, int((engine.contraction.of(graph).round_of < 0).sum())


def _swept(s: Session) -> tuple[int, int]:
    """The nodes B's core search settled, and those its sweep settled."""
    settled = s.runs[1].chart_columns()["settled"]
    return int(settled[_core_done(s)]), int(settled[-1] - settled[_core_done(s)])


def _phases(s: Session) -> tuple[int, int]:
    return tuple(run.result.counters.phases for run in _runs(s))


def _arcs(s: Session) -> tuple[int, int]:
    return tuple(run.result.counters.edges_relaxed for run in _runs(s))


LESSONS: dict[str, Lesson] = {
    lesson.name: lesson
    for lesson in (
        Lesson(
            "delta-small",
            "Δ too small: almost Dijkstra",
            (
                Step(_TINY, None, 0, lambda s: (
                    f"Near-Far with a tiny Δ ({_w(s, s.runs[0].result.delta)}, a 32nd of the "
                    "auto Δ): each band holds only the few nodes a step further than the last. "
                    "Press Play and watch the thin frontier.")),
                Step(_TINY, None, LAST, lambda s: (
                    f"Done: {_c(s.runs[0])}. Almost every node was relaxed once, as Dijkstra "
                    "does, but one band at a time: many phases, little parallel work.")),
                Step(_TINY, _AUTO, LAST, lambda s: (
                    f"Beside it (B) the auto Δ ({_w(s, _runs(s)[1].result.delta)}): "
                    f"{_c(_runs(s)[1])}. Fewer phases for a few more arcs: that is the trade Δ "
                    "makes."), contrast=_phases),
            ),
        ),
        Lesson(
            "delta-large",
            "Δ too large: wasted work",
            (
                Step(_HUGE, None, 0, lambda s: (
                    f"Near-Far with a huge Δ ({_w(s, s.runs[0].result.delta)}, 64 times the "
                    "auto Δ): most of the city fits in one band, so every reached node is near "
                    "at once and relaxed again and again.")),
                Step(_HUGE, None, LAST, lambda s: (
                    f"Done: {_c(s.runs[0])}, against {_dijkstra_arcs(s.runs[0])} "
                    "for Dijkstra. The map now counts how often each node's arcs were relaxed: "
                    "every colour beyond the first is wasted work."), layer="work",
                    contrast=lambda s: (s.runs[0].result.counters.edges_relaxed,
                                        s.runs[0].reference.edges_relaxed)),
                Step(_HUGE, _AUTO, LAST, lambda s: (
                    f"Beside it (B) the auto Δ: {_c(_runs(s)[1])}. More phases, far less "
                    "waste."), layer="work", contrast=_arcs),
            ),
        ),
        Lesson(
            "near-far-vs-delta-stepping",
            "Near-Far against Δ-stepping",
            (
                Step(_MEDIAN, {**_MEDIAN, "method": "delta_stepping"}, _widest_gap, lambda s: (
                    f"A: Near-Far. B: Δ-stepping, both with Δ = {_w(s, s.runs[0].result.delta)}, "
                    "the median arc's weight, so half the arcs are heavy (longer than Δ). "
                    "Δ-stepping relaxes a bucket's light arcs while the bucket lasts and its "
                    "heavy arcs once, when it is done. Here, at iteration "
                    f"{s.runs[0].readout(s.frame)['iteration']:,}, A's far set holds "
                    f"{counted(_far(s.runs[0], s.frame), 'node')} and B's "
                    f"{counted(_far(s.runs[1], s.frame), 'node')}: B has not relaxed its heavy "
                    "arcs yet."),
                    contrast=lambda s: (_far(s.runs[0], s.frame), _far(s.runs[1], s.frame))),
                Step(_MEDIAN, {**_MEDIAN, "method": "delta_stepping"}, LAST, lambda s: (
                    f"A: {_c(_runs(s)[0])}. B: {_c(_runs(s)[1])}. The same distances and the "
                    f"same near sets, but B's far set peaked at {_far(s.runs[1]):,} nodes "
                    f"against A's {_far(s.runs[0]):,}: a far node waits on a pile that a GPU "
                    "must scan or sort."),
                    contrast=lambda s: (_far(s.runs[0]), _far(s.runs[1]))),
                Step(_MEDIAN, {**_MEDIAN, "method": "bucketing"}, LAST, lambda s: (
                    f"B is now Davidson's bucketing: {_c(_runs(s)[1])}, with "
                    f"{counted(_runs(s)[1].result.counters.bucket_sorts, 'sort')} of its far "
                    "nodes into buckets of width Δ. Near-Far keeps one far pile and scans it "
                    "at every phase end; bucketing keeps them sorted, so a phase takes the "
                    "next bucket."),
                    contrast=lambda s: tuple(r.result.counters.bucket_sorts for r in s.runs)),
            ),
        ),
        Lesson(
            "fastest",
            "The fastest methods: no barrier, then a core",
            (
                Step(_AUTO, _ASYNC, LAST, lambda s: (
                    f"A: Near-Far, {_c(_runs(s)[0])}: every iteration ends at a barrier, where "
                    "the whole GPU waits for its slowest block. B: the asynchronous Near-Far, "
                    f"the same {counted(_runs(s)[1].result.counters.phases, 'phase')}, but "
                    "inside a phase each GPU block relaxes near nodes from its own work ring as "
                    "soon as they are reached, with no barrier. It has no iterations: it is "
                    f"recorded a frame per phase, {s.runs[1].n_frames:,} frames against A's "
                    f"{s.runs[0].n_frames:,}."), contrast=_frames),
                Step(_ASYNC, _CORE, _core_done, lambda s: (
                    "B: Near-Far on the contraction core. Before searching, it contracted the "
                    "nodes of few neighbours, adding a shortcut between two neighbours where no "
                    f"other path was as short, until {_core(s)[1]:,} of the city's "
                    f"{_core(s)[0]:,} nodes were left: the core. Here its search of the core is "
                    "done; the contracted nodes wait, unreached, for the sweep."),
                    contrast=_core),
                Step(_ASYNC, _CORE, LAST, lambda s: (
                    f"The sweep: {counted(s.runs[1].n_frames - 2 - _core_done(s), 'step')}, "
                    "the last contracted first, each giving one round's nodes their distance "
                    "from the neighbours they had when contracted: no queue, no threshold, "
                    f"each node read once. The search settled {_swept(s)[0]:,} nodes, the "
                    f"sweep {_swept(s)[1]:,}. B: {_c(_runs(s)[1])}; A: {_c(_runs(s)[0])}."),
                    contrast=_swept),
            ),
        ),
        Lesson(
            "batch-size",
            "Batch size changes speed, never answers",
            (
                Step({**_AUTO, "batch_size": 1}, {**_AUTO, "batch_size": 512}, 0, lambda s: (
                    "A checks after every iteration whether the near set is empty (batch 1); "
                    "B queues 512 iterations on the GPU between checks.")),
                Step({**_AUTO, "batch_size": 1}, {**_AUTO, "batch_size": 512}, 10, lambda s: (
                    f"Iteration {s.runs[0].readout(s.frame)['iteration']:,} of both: the same "
                    f"near set ({_runs(s)[0].readout(s.frame)['near']:,} and "
                    f"{_runs(s)[1].readout(s.frame)['near']:,} nodes) and the same map. The "
                    "batch decides only when the host looks.")),
                Step({**_AUTO, "batch_size": 1}, {**_AUTO, "batch_size": 512}, LAST, lambda s: (
                    f"Host checks: A {_runs(s)[0].result.counters.host_syncs:,}, B "
                    f"{_runs(s)[1].result.counters.host_syncs:,}. Frames, iterations and "
                    "every distance are the same: only the waiting on the host changed."),
                    contrast=lambda s: tuple(r.result.counters.host_syncs for r in s.runs)),
            ),
        ),
    )
}  # fmt: skip


class Lessons(param.Parameterized):
    """Which lesson is open and at which step, on one `Session`."""

    lesson = param.String(default="", doc="The open lesson's name; empty: none")
    step = param.Integer(default=0)
    text = param.String(default="", doc="What the open step says")

    def __init__(self, session: Session, **params):
        super().__init__(**params)
        self.session = session

    def open(self, name: str) -> bool:
        """Open lesson ``name`` at its first step, on the city on screen, or on the embedded
        one (with a notice) when the graph on screen has no coordinates."""
        if name not in LESSONS:
            msg = f"there is no lesson {name!r}; the lessons are {', '.join(LESSONS)}"
            return self.session.fail(DashboardError(msg))
        s = self.session
        if s.loaded.geometry is None:
            shown = s.loaded.graph.name
            if not s.load_graph(GraphChoice()):
                return False
            s.tell(f"{shown} has no coordinates to draw: the lesson opens on the embedded city")
        return self._show(name, 0)

    def close(self) -> None:
        self.param.update(lesson="", step=0, text="")

    def go(self, by: int) -> bool:
        """Move ``by`` steps (within the lesson)."""
        if not self.lesson:
            return False
        last = len(LESSONS[self.lesson].steps) - 1
        return self._show(self.lesson, min(max(self.step + by, 0), last))

    def _show(self, name: str, k: int) -> bool:
        step = LESSONS[name].steps[k]
        s = self.session
        s.pause()
        frame = step.frame if isinstance(step.frame, int) else 0
        if not s.configure(configs=step.configs(s.loaded.graph), compare=step.b is not None,
                           source=s.source, target=s.target, frame=frame):  # fmt: skip
            return False
        if callable(step.frame):
            s.seek(step.frame(s))
        s.layer = step.layer
        self.param.update(lesson=name, step=k, text=step.say(s))
        return True


class LessonView(Viewer):
    """The Lessons menu, the open step's text, and Back, Next and Close."""

    def __init__(self, lessons: Lessons, **params):
        super().__init__(**params)
        self.lessons = lessons
        options = {"Lessons…": ""} | {lesson.title: lesson.name for lesson in LESSONS.values()}
        self.menu = pn.widgets.Select(label="Lesson", options=options, value="", width=320)
        self.back = pn.widgets.Button(label="Back", width=80)
        self.next = pn.widgets.Button(label="Next", width=80, color="primary")
        self.close = pn.widgets.Button(label="Close", width=80)
        self.text = TextPane("", sizing_mode="stretch_width")
        self.menu.param.watch(from_page(self._chose), "value")
        self.back.on_click(held(lambda: lessons.go(-1)))
        self.next.on_click(held(lambda: lessons.go(1)))
        self.close.on_click(held(lessons.close))
        lessons.param.watch(self._render, ["lesson", "step", "text"])
        self._render()

    def _chose(self, event) -> None:
        if event.new and event.new != self.lessons.lesson:
            self.lessons.open(event.new)

    def _render(self, *_events) -> None:
        ls = self.lessons
        on = bool(ls.lesson)
        for w in (self.back, self.next, self.close, self.text):
            w.visible = on
        self.menu.value = ls.lesson
        if on:
            n = len(LESSONS[ls.lesson].steps)
            self.back.disabled, self.next.disabled = ls.step == 0, ls.step == n - 1
            self.text.object = (
                f'<div class="frontier-lesson-text"><b>Step {ls.step + 1} of {n}.</b> '
                f"{ls.text}</div>"
            )

    def menu_panel(self) -> pn.viewable.Viewable:
        """The Lessons menu, for the settings drawer."""
        return self.menu

    def __panel__(self):
        """The open step: its text beside Back, Next and Close (nothing while none is)."""
        return pn.Row(
            self.text,
            pn.Row(self.back, self.next, self.close, sizing_mode=None),
            css_classes=["frontier-lesson"],
            sizing_mode="stretch_width",
        )
