"""Loading a graph on a worker thread, its stage on the page after a second, and Cancel.

A `Loader` per page runs `state.load` (read, parse, CSR, cache, map) on a worker thread, so
the page stays live (the player keeps playing). A clock on the page copies the stage the
worker is in to ``stage`` (a worker thread never touches the page's models). `LoadProgress`
shows it once a load has taken `SHOW_AFTER_S`, with a Cancel button: the previous graph stays
on show at once, and the worker stops at the start of its next stage (so does the linked
graph's early load, below).

A page opened by a link to another graph starts loading it as the page is made (`prefetch`),
while the browser sets the page up, and makes the searches the link asks for: the page's own
load then waits for that one and finds the graph loaded and searched. One load of a graph
runs at a time on a server (`_one_at_a_time`).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import panel as pn
import param
from panel.viewable import Viewer

from . import state
from ._page import every, held, soon
from .state import DashboardError, GraphChoice, Session

#: A load shows its progress once it has taken this long.
SHOW_AFTER_S = 1.0


class LoadCancelled(DashboardError):
    """The person at the page cancelled a load."""


class _Job:
    """One load on a worker thread: what it loads, the stage it is in, whether to stop."""

    def __init__(self, choice: GraphChoice):
        self.choice = choice
        self.stage = "starting"
        self.started = time.monotonic()
        self.cancelled = threading.Event()
        self.thread: threading.Thread | None = None  # a prefetch's own thread
        self.ahead: _Job | None = None  # the load of the same graph this one waits for
        self.made: Session | None = None  # a prefetch's session, made after its load

    @property
    def shown(self) -> str:
        """The stage to show: this load's, or, while it waits for another load of the same
        graph (a link's early load), that one's."""
        ahead = self.ahead
        return self.stage if ahead is None else ahead.stage

    def run(self) -> None:
        def report(stage: str) -> None:
            if self.cancelled.is_set():
                raise LoadCancelled("cancelled")
            self.stage = stage

        with state.reporting(report), _one_at_a_time(self):
            state.load(self.choice)


#: The graphs being loaded, each with its lock, the loads that hold or wait for it, and the
#: load that holds it.
_loading: dict[str, list] = {}
_loading_guard = threading.Lock()


@contextlib.contextmanager
def _one_at_a_time(job: _Job):
    """Hold ``job``'s graph's load lock: a second load of the same graph waits for the first
    (showing its stage), then finds it in `state.load`'s cache, instead of reading it again
    beside it."""
    key = repr(job.choice)
    with _loading_guard:
        entry = _loading.setdefault(key, [threading.Lock(), 0, None])
        entry[1] += 1
        job.ahead = entry[2]
    try:
        with entry[0]:
            job.ahead, entry[2] = None, job
            yield
    finally:
        with _loading_guard:
            if entry[2] is job:
                entry[2] = None
            entry[1] -= 1
            if entry[1] == 0:
                del _loading[key]


def prefetch(choice: GraphChoice, *, then: Callable[[], Session | None] | None = None) -> _Job:
    """Start loading ``choice`` on a daemon thread now (the job's ``thread``), then call
    ``then()`` there, its session kept as the job's ``made``: a page opened by a link loads
    its graph while the browser sets the page up (3.3 of a 1M-node city's 10 s to its first
    picture went by before the page asked for it, decisions/0086), and makes the link's
    searches (`viz.links.searched_early`, decision 0099). What goes wrong is left for the
    page's own load to say: it loads the graph again, and reports. The page's `Loader`
    cancels this job with its own (``Loader(prefetched=...)``), and adopts its searches."""
    job = _Job(choice)

    def run() -> None:
        with contextlib.suppress(Exception):
            job.run()
            if then is not None and not job.cancelled.is_set():
                job.stage = "searching"
                job.made = then()

    job.thread = threading.Thread(target=run, name="frontier-prefetch", daemon=True)
    job.thread.start()
    return job


def describe(choice: GraphChoice) -> str:
    """A load's name for people: the file's name, the place, or the embedded city."""
    if choice.spec.startswith("place:"):
        return choice.spec[len("place:") :]
    return Path(choice.spec).name


class Loader(param.Parameterized):
    """The page's graph loads: one at a time, each replacing the one before."""

    busy = param.Boolean(default=False, doc="A load is in progress")
    label = param.String(default="", doc="What is loading")
    stage = param.String(default="", doc="The stage the load is in")
    elapsed = param.Number(default=0.0, doc="Seconds since the load began")

    def __init__(self, session: Session, *, prefetched: _Job | None = None, **params):
        super().__init__(**params)
        self.session = session
        self._job: _Job | None = None
        #: the load of the page's linked graph, started as the page was made (`prefetch`)
        self._prefetched = prefetched
        self._stop_clock: Callable[[], None] | None = None

    async def load(self, choice: GraphChoice, then: Callable[[], object]) -> bool:
        """Load ``choice`` on a worker thread (`state.load` caches it for the session), then
        run ``then()`` on the page. False when the load failed (the session's error says
        why) or was cancelled; the previous graph stays either way. The linked graph's early
        load (`prefetch`) is waited for, and the searches it made become the session's."""
        if self._job is not None:
            self._drop(self._job)  # a new load replaces the one in progress
        self._stop_prefetch(unless=choice)
        early = self._prefetched
        job = _Job(choice)
        self._job = job
        self.param.update(busy=True, label=describe(choice), stage=job.shown, elapsed=0.0)
        self._stop_clock = every(200, self._tick)
        try:
            await asyncio.to_thread(job.run)
        except Exception as exc:
            if not job.cancelled.is_set():
                self._drop(job)
                soon(partial(self.session.fail, exc))
            return False
        if early is not None and early.thread is not None:
            job.stage = "searching"
            await asyncio.to_thread(early.thread.join)  # the link's searches, made early
        if job.cancelled.is_set():
            return False

        def finish() -> None:
            try:
                self.stage = "searching"
                if early is not None and early.made is not None:
                    self.session.adopt(early.made)
                    self._prefetched = early.made = None
                then()
            finally:
                self._drop(job)

        soon(finish)
        return True

    def cancel(self) -> None:
        """Stop the load in progress: the page shows the previous graph at once."""
        job = self._job
        if job is None:
            return
        self._drop(job)
        self._stop_prefetch()
        msg = f"loading {describe(job.choice)} was cancelled; the previous graph is kept"
        self.session.fail(LoadCancelled(msg))

    def _stop_prefetch(self, *, unless: GraphChoice | None = None) -> None:
        """Stop loading the linked graph (at the start of its next stage), unless it is
        ``unless``: cancelled, or replaced by another graph, it would go on taking the
        server's memory and a core for nobody (a minute and 10 GB for a 16M-node city)."""
        early = self._prefetched
        if early is not None and early.choice != unless:
            early.cancelled.set()
            self._prefetched = None

    def _drop(self, job: _Job) -> None:
        job.cancelled.set()
        if self._job is not job:
            return
        self._job = None
        if self._stop_clock is not None:
            self._stop_clock()
            self._stop_clock = None
        self.param.update(busy=False, stage="", elapsed=0.0)

    def _tick(self) -> None:
        job = self._job
        if job is not None:
            self.param.update(stage=job.shown, elapsed=time.monotonic() - job.started)


class LoadProgress(Viewer):
    """The load in progress, once it has taken `SHOW_AFTER_S`: what, which stage, how long,
    and a Cancel button."""

    def __init__(self, loader: Loader, **params):
        super().__init__(**params)
        self.loader = loader
        self._text = pn.pane.HTML("", margin=(0, 5))
        self._bar = pn.indicators.Progress(value=-1, active=False, sizing_mode="stretch_width")
        self._cancel = pn.widgets.Button(label="Cancel", width=80)
        self._cancel.on_click(held(loader.cancel))
        self._layout = pn.Column(
            self._text,
            pn.Row(self._bar, self._cancel, sizing_mode="stretch_width"),
            visible=False,
            css_classes=["frontier-loading"],
            sizing_mode="stretch_width",
        )
        loader.param.watch(self._render, ["busy", "stage", "elapsed"])

    def _render(self, *_events) -> None:
        loader = self.loader
        shown = loader.busy and loader.elapsed >= SHOW_AFTER_S
        if shown:
            self._text.object = (
                f'<span class="frontier-loading-text">Loading <b>{html.escape(loader.label)}'
                f"</b>: {loader.stage} ({loader.elapsed:.0f} s)</span>"
            )
        if self._layout.visible != shown:
            self._layout.visible = shown
            self._bar.active = shown

    def __panel__(self):
        return self._layout
