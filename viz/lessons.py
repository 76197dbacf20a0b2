"""Lessons: short guided scenarios, each a few steps tied to settings and frames, for a teacher
in front of a class (issue 20). They run on the city on screen (a shared city opened by
``?graph=...&lesson=NAME``, say) and on the embedded Helsinki when the graph on screen has no
coordinates to draw.

A `Step` sets search A (and B, when it compares), the map's layer and the player's frame in
one `Session.configure`, then says in words what the class sees, with the numbers of the
runs it just made. `Lessons` holds which lesson and step are open; `LessonView` renders it:
a menu, the step's text, Back and Next. ``?lesson=NAME`` opens one from a link.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import panel as pn
import param
from panel.viewable import Viewer

from . import style
from ._page import from_page, held
from .charts import TextPane
from .state import DashboardError, GraphChoice, RunConfig, Session
from .style import counted

#: A step's frame that means "the run's last one" (clamped to the runs' length).
LAST = 10**9


@dataclasses.dataclass(frozen=True)
class Step:
    """One step: the settings of searches A and B (None: B is off), the frame to show, the
    map's layer, and what to say (a function of the session, once its runs are made)."""

    a: dict
    b: dict | None
    frame: int
    say: Callable[[Session], str]
    layer: str = "states"


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


_AUTO = {"method": "near_far", "batch_size": 64, **RunConfig.delta_values("auto")}


def _fixed(delta: int) -> dict:
    return {**_AUTO, **RunConfig.delta_values(delta)}


LESSONS: dict[str, Lesson] = {
    lesson.name: lesson
    for lesson in (
        Lesson(
            "delta-small",
            "Δ too small: almost Dijkstra",
            (
                Step(_fixed(1_000), None, 0, lambda s: (
                    f"Near-Far with a tiny Δ ({_w(s, 1_000)}): each band holds only the few "
                    "nodes a step further than the last. Press Play and watch the thin "
                    "frontier.")),
                Step(_fixed(1_000), None, LAST, lambda s: (
                    f"Done: {_c(s.runs[0])}. Almost every node was relaxed once, as Dijkstra "
                    "does, but one band at a time: many phases, little parallel work.")),
                Step(_fixed(1_000), _AUTO, LAST, lambda s: (
                    f"Beside it (B) the auto Δ: {_c(_runs(s)[1])}. Fewer phases for a few "
                    "more arcs: that is the trade Δ makes.")),
            ),
        ),
        Lesson(
            "delta-large",
            "Δ too large: wasted work",
            (
                Step(_fixed(2_000_000), None, 0, lambda s: (
                    f"Near-Far with a huge Δ ({_w(s, 2_000_000)}): most of the city fits in one "
                    "band, so every reached node is near at once and relaxed again and "
                    "again.")),
                Step(_fixed(2_000_000), None, LAST, lambda s: (
                    f"Done: {_c(s.runs[0])}, against {s.runs[0].reference.edges_relaxed:,} "
                    "for Dijkstra. The map now counts how often each node's arcs were relaxed: "
                    "every colour beyond the first is wasted work."), layer="work"),
                Step(_fixed(2_000_000), _AUTO, LAST, lambda s: (
                    f"Beside it (B) the auto Δ: {_c(_runs(s)[1])}. More phases, far less "
                    "waste."), layer="work"),
            ),
        ),
        Lesson(
            "near-far-vs-delta-stepping",
            "Near-Far against Δ-stepping",
            (
                Step(_AUTO, {**_AUTO, "method": "delta_stepping"}, 0, lambda s: (
                    "A: Near-Far. B: Δ-stepping, same Δ. Δ-stepping relaxes only light arcs "
                    "(weight ≤ Δ) inside a bucket and its heavy arcs once, when the bucket is "
                    "done. Press Play: both settle the same nodes in the same order of bands.")),
                Step(_AUTO, {**_AUTO, "method": "delta_stepping"}, LAST, lambda s: (
                    f"A: {_c(_runs(s)[0])}. B: {_c(_runs(s)[1])}. The same distances; the "
                    "difference is which arcs each relaxes, and when.")),
                Step(_AUTO, {**_AUTO, "method": "bucketing"}, LAST, lambda s: (
                    f"B is now Davidson's bucketing: {_c(_runs(s)[1])}, with "
                    f"{counted(_runs(s)[1].result.counters.bucket_sorts, 'sort')} of its far "
                    "nodes into "
                    "buckets of width Δ. Near-Far keeps one far pile and scans it at every "
                    "phase end; bucketing keeps them sorted, so a phase takes the next bucket.")),
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
                    "Iteration 10 of both: the same near set "
                    f"({_runs(s)[0].readout(10)['near']:,} and {_runs(s)[1].readout(10)['near']:,}"
                    " nodes) and the same map. The batch decides only when the host looks.")),
                Step({**_AUTO, "batch_size": 1}, {**_AUTO, "batch_size": 512}, LAST, lambda s: (
                    f"Host checks: A {_runs(s)[0].result.counters.host_syncs:,}, B "
                    f"{_runs(s)[1].result.counters.host_syncs:,}. Frames, iterations and "
                    "every distance are the same: only the waiting on the host changed.")),
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
        configs = [step.a, step.b or {}]
        if not s.configure(configs=configs, compare=step.b is not None, source=s.source,
                           target=s.target, frame=step.frame):  # fmt: skip
            return False
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
