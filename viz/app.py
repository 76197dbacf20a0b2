"""The Frontier dashboard: ``panel serve viz/app.py``.

Composes the views of one `Session` per browser session; all logic lives in `viz.state`.
"""

import html

import panel as pn
from bokeh.models import DataRange1d

import engine
from viz._page import freeze_while_open, no_delay, page_scripts, soon
from viz.access import Accessible, PhoneViewport
from viz.cards import NOTES, Differences, Legend, RunTitle, StatsCard
from viz.charts import ChartsView, Readouts
from viz.citymap import MapView
from viz.controls import GraphControls, Player, QueryControls, RunControls
from viz.explore import Explorer, ExploreView
from viz.lessons import Lessons, LessonView
from viz.links import LinkKeeper, lesson_of, open_link, tolerate_any_query
from viz.loading import Loader, LoadProgress
from viz.narration import Caption, Describe
from viz.quiz import Quiz, QuizView
from viz.state import GraphChoice, Session
from viz.takeaway import TakeawayView

pn.extension("filedropper", notifications=True, sizing_mode="stretch_width")
tolerate_any_query()  # before the page's location is made from its link

session = Session()
session.load_graph(GraphChoice())


def notify(kind: str):
    """A watcher that shows a session's message as a notification of ``kind``. Notifications
    are drawn as HTML and the messages quote what users typed, linked or uploaded: the text
    is escaped, so it shows literally and never runs as markup or script."""
    return lambda e: getattr(pn.state.notifications, kind)(html.escape(e.new), duration=8000)


session.param.watch(notify("error"), "error")
session.param.watch(notify("info"), "notice")
explorer = Explorer(session)
lessons = Lessons(session)
quiz = Quiz(session)  # predict the next step: questions checked against the recording
loader = Loader(session)  # graph loads run on a worker thread, with progress and Cancel


frames = DataRange1d()  # the charts of both runs share their iteration axis ...
counts = {"sets": DataRange1d(), "edges": DataRange1d()}  # ... and their counts' axes
# Presentation mode (a projector) keeps the map, the player and the caption.
shown = session.param.present.rx.not_()


def slot(k: int) -> pn.Column:
    """Map, readouts, stats and charts of run ``k``."""
    return pn.Column(
        RunTitle(session, k),
        pn.Column(Readouts(session, k), visible=shown),
        MapView(session, k),
        pn.Column(
            StatsCard(session, k),
            ChartsView(session, k, x_range=frames, y_ranges=counts),
            visible=shown,
        ),
        visible=True if k == 0 else pn.bind(lambda c, p: c and not p, session.param.compare,
                                            session.param.present),
        sizing_mode="stretch_width",
    )  # fmt: skip


backend_note = pn.pane.Alert(
    "No CUDA GPU on this server: searches run on the NumPy twin of the GPU kernels "
    "(same answers, same frames).",
    alert_type="warning",
    visible=not engine.gpu_available(),
    stylesheets=[":host, p { color: #3d2e00 !important; }"],  # contrast ≥ 4.5 on its yellow
)
compare = pn.widgets.Switch.from_param(
    session.param.compare,
    label="Compare with search B, side by side",
    css_classes=["frontier-compare"],
)
busy = pn.indicators.LoadingSpinner(
    value=False, size=22, css_classes=["frontier-busy"], margin=(22, 0, 0, 10)
)
pn.state.sync_busy(busy)  # spins while the server works on this page (a long search)
sidebar = pn.Column(
    pn.Row("## Frontier", busy),
    GraphControls(session, loader),
    QueryControls(session),
    "### Search A",
    RunControls(session, session.configs[0]),
    compare,
    pn.Column(
        "### Search B", RunControls(session, session.configs[1]), visible=session.param.compare
    ),
    backend_note,
    TakeawayView(session),
    width=330,
    sizing_mode=None,
    css_classes=["frontier-settings"],
    visible=shown,
)
main = pn.Column(
    Accessible(width=0, height=0, margin=0),
    PhoneViewport(width=0, height=0, margin=0),
    LoadProgress(loader),
    Player(session),
    pn.Column(LessonView(lessons), visible=shown),
    Legend(session),  # in presentation mode too: a class needs to know what the colours say
    Caption(session),
    pn.Column(QuizView(quiz), Describe(session), visible=shown),
    pn.Card(
        pn.pane.Markdown(NOTES),
        title="What am I looking at?",
        collapsed=True,
        css_classes=["frontier-help"],
        sizing_mode="stretch_width",
        visible=shown,
    ),
    Differences(session),
    pn.Row(slot(0), slot(1), sizing_mode="stretch_width"),
    pn.Card(
        ExploreView(explorer),
        title="Explore: Δ × batch sweeps and Dijkstra ranks of this query",
        css_classes=["frontier-explore"],
        sizing_mode="stretch_width",
        visible=shown,
    ),
    sizing_mode="stretch_width",
)
link = {k: v for k, v in (pn.state.session_args or {}).items() if not k.startswith("bokeh")}


async def start() -> None:
    """Open what the page's link says (if anything; a new graph loads with its progress
    shown), then keep the link up to date; a link to a frame opens paused there, a link to
    a lesson at its first step, any other page starts playing."""
    no_delay()
    lesson = lesson_of(link)

    def settle() -> None:
        freeze_while_open()  # before playing: no long pauses of the garbage collector then
        LinkKeeper(session).update()
        if lesson is not None:
            lessons.open(lesson)
        elif "frame" not in link:
            session.play()

    await open_link(session, loader, link)
    soon(settle)  # after the link's changes, which wait for the page's next tick too


pn.state.onload(start)
page_scripts()
# Main first, shown on the right of the settings; on a phone it wraps above them.
main.styles = {"flex": "1 1 360px"}
pn.FlexBox(
    main, sidebar, flex_direction="row-reverse", flex_wrap="wrap", sizing_mode="stretch_width"
).servable(title="Frontier")
