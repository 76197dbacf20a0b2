"""The Frontier dashboard: ``panel serve viz/app.py``.

`create_app` composes the views of one `Session` (all logic lives in `viz.state` and the
views' modules); served, the page also opens what its link says and keeps the link up to
date.

The map is the picture: under one row of player and one of search settings (the algorithm,
Δ, the batch size, the comparison) it takes the width of the page and the height of the
screen, with the legend, the caption and the current numbers right over it. Everything else
(the graph, the backend, search B, playback, the map's layer, lessons, questions,
take-away) is in the settings drawer, one click away; the charts, the stats and Explore
come below the map.
"""

import html
from collections.abc import Callable
from functools import partial

import panel as pn
from bokeh.core.validation import silence
from bokeh.core.validation.warnings import FIXED_SIZING_MODE
from bokeh.models import DataRange1d

import engine
from viz._page import (
    fill_later,
    fill_when,
    freeze_while_open,
    no_delay,
    page_scripts,
    quiet_closed_pages,
    served,
    soon,
)
from viz.access import Accessible, PhoneViewport
from viz.cards import NOTES, Differences, Legend, RunTitle, StatsCard
from viz.charts import ChartsView, Readouts
from viz.citymap import MapView
from viz.controls import GraphControls, Player, QueryControls, RunControls
from viz.explore import Explorer, ExploreView
from viz.lessons import Lessons, LessonView
from viz.links import (
    LinkKeeper,
    lesson_of,
    linked_graph,
    open_link,
    searched_early,
    tolerate_any_query,
)
from viz.loading import Loader, LoadProgress, prefetch
from viz.narration import Caption, Describe
from viz.quiz import Quiz, QuizView
from viz.state import GraphChoice, Session
from viz.takeaway import TakeawayView

pn.extension("filedropper", notifications=True, sizing_mode="stretch_width")
# The player's buttons and the search bar's widgets have a fixed width and their content's
# height, on purpose; Bokeh's check of "fixed" wants both, and wrote 13 lines of warning
# (W-1005) into the server's log for every page opened.
silence(FIXED_SIZING_MODE, True)
tolerate_any_query()  # before the page's location is made from its link


def notify(kind: str):
    """A watcher that shows a session's message as a notification of ``kind``. Notifications
    are drawn as HTML and the messages quote what users typed, linked or uploaded: the text
    is escaped, so it shows literally and never runs as markup or script."""
    return lambda e: getattr(pn.state.notifications, kind)(html.escape(e.new), duration=8000)


def create_app(session: Session | None = None) -> pn.viewable.Viewable:
    """The whole page for ``session`` (a new one on the embedded city by default); when
    served, it opens what the page's link says once the page has loaded."""
    early = None
    if served() is not None:
        linked = linked_graph(_link())
        if linked is not None and linked != GraphChoice():
            # loaded and searched while the page is made and the browser sets it up
            early = prefetch(linked, then=partial(searched_early, _link()))
    if session is None:
        session = Session()
        session.load_graph(GraphChoice())
    if pn.state.notifications is not None:
        session.param.watch(notify("error"), "error")
        session.param.watch(notify("info"), "notice")
    explorer = Explorer(session)
    lessons = Lessons(session)
    quiz = Quiz(session)  # predict the next step: questions checked against the recording
    loader = Loader(session, prefetched=early)  # loads on a worker thread, progress and Cancel
    player, legend = Player(session), Legend(session)
    runs = [RunControls(session, config) for config in session.configs]
    lesson_view = LessonView(lessons)
    # Presentation mode (a projector) keeps the map, the player, the legend and the caption.
    shown = session.param.present.rx.not_()
    frames = DataRange1d()  # the charts of both runs share their iteration axis ...
    counts = {"sets": DataRange1d(), "edges": DataRange1d()}  # ... and their counts' axes

    def slot(k: int) -> pn.Column:
        """Title, readouts and map of run ``k``; its stats and charts come below the maps.
        Search B's are made as the comparison first opens."""
        made = lambda: pn.Column(  # noqa: E731
            RunTitle(session, k),
            pn.Column(Readouts(session, k), visible=shown),
            MapView(session, k),
            sizing_mode="stretch_width",
        )
        if k == 0:
            return made()
        visible = pn.bind(lambda c, p: c and not p, session.param.compare, session.param.present)
        box = pn.Column(visible=visible, sizing_mode="stretch_width")
        return fill_when(box, made, session, "compare")

    first_charts = pn.Column(sizing_mode="stretch_width")  # A's, once the link is open
    fill_charts = fill_later(
        first_charts, lambda: ChartsView(session, 0, x_range=frames, y_ranges=counts)
    )

    def numbers(k: int) -> pn.Column:
        """Stats and charts of run ``k``; A's charts come once the page's link is open,
        after its first picture."""
        made = lambda: pn.Column(  # noqa: E731
            StatsCard(session, k),
            first_charts if k == 0 else ChartsView(session, k, x_range=frames, y_ranges=counts),
            sizing_mode="stretch_width",
        )
        if k == 0:
            return made()
        box = pn.Column(visible=session.param.compare, sizing_mode="stretch_width")
        return fill_when(box, made, session, "compare")

    # Explore is a click away: its sweeps' form and figures are made as it first opens.
    explore = pn.Card(
        title="Explore: Δ × batch sweeps and Dijkstra ranks of this query",
        collapsed=True,
        css_classes=["frontier-explore"],
        sizing_mode="stretch_width",
        visible=shown,
    )
    fill_when(explore, lambda: ExploreView(explorer), explore, "collapsed", False)
    compare = pn.widgets.Switch.from_param(
        session.param.compare,
        label="Compare with B",
        css_classes=["frontier-compare"],
        width=150,
        sizing_mode="fixed",
        margin=(0, 10, 12, 10),
    )
    settings = pn.widgets.Toggle(
        label="Settings",
        value=False,
        width=110,
        sizing_mode="fixed",
        css_classes=["frontier-settings-toggle"],
    )
    busy = pn.indicators.LoadingSpinner(
        value=False, size=22, css_classes=["frontier-busy"], margin=(8, 0, 0, 10)
    )
    if served() is not None:
        pn.state.sync_busy(busy)  # spins while the server works on this page (a long search)
    backend_note = pn.pane.Alert(
        "No CUDA GPU on this server: searches run on the NumPy twin of the GPU kernels "
        "(same answers, same frames).",
        alert_type="warning",
        visible=not engine.gpu_available(),
        stylesheets=[":host, p { color: #3d2e00 !important; }"],  # contrast ≥ 4.5 on yellow
    )
    drawer = fill_when(
        pn.Column(
            width=340,
            sizing_mode=None,
            css_classes=["frontier-settings"],
            visible=pn.bind(lambda s, p: s and not p, settings.param.value, session.param.present),
        ),
        lambda: pn.Column(
            "### Graph",
            GraphControls(session, loader),
            QueryControls(session),
            "### Search A",
            runs[0].details(),
            backend_note,
            pn.Column("### Search B", runs[1], visible=session.param.compare),
            "### Playback and map",
            player.options(),
            legend.switch(),
            "### Teach",
            lesson_view.menu_panel(),
            QuizView(quiz),
            Describe(session),
            "### Take away",
            TakeawayView(session),
            width=340,
            sizing_mode=None,
        ),
        settings,
        "value",  # made as it first opens
    )
    search_bar = pn.Column(runs[0].bar(compare), visible=shown, sizing_mode="stretch_width")
    top = pn.FlexBox(
        pn.pane.HTML("<b style='font-size:20px'>Frontier</b>", sizing_mode=None, width=100),
        busy,
        settings,
        align_items="center",
        visible=shown,
        sizing_mode="stretch_width",
    )
    main = pn.Column(
        Accessible(width=0, height=0, margin=0),
        PhoneViewport(width=0, height=0, margin=0),
        top,
        LoadProgress(loader),
        player,
        search_bar,
        lesson_view,
        legend,
        Caption(session),
        Differences(session),
        pn.Row(slot(0), slot(1), sizing_mode="stretch_width"),
        pn.Row(numbers(0), numbers(1), sizing_mode="stretch_width", visible=shown),
        pn.Card(
            pn.pane.Markdown(NOTES),
            title="What am I looking at?",
            collapsed=True,
            css_classes=["frontier-help"],
            sizing_mode="stretch_width",
            visible=shown,
        ),
        explore,
        sizing_mode="stretch_width",
        styles={"flex": "1 1 360px"},
    )
    if served() is not None:
        _when_loaded(session, loader, lessons, fill_charts)
        page_scripts()
        quiet_closed_pages()
    # The map's column first, the drawer on its right; on a phone the drawer wraps below.
    return pn.FlexBox(main, drawer, flex_wrap="wrap", sizing_mode="stretch_width")


def _link() -> dict:
    """The page's query-string values (Bokeh's own left out)."""
    return {k: v for k, v in (pn.state.session_args or {}).items() if not k.startswith("bokeh")}


def _when_loaded(
    session: Session, loader: Loader, lessons: Lessons, fill_charts: Callable[[], None]
) -> None:
    """Open what the page's link says (if anything; a new graph loads with its progress
    shown), then make search A's charts and keep the link up to date; a link to a frame
    opens paused there, a link to a lesson at its first step, any other page starts
    playing."""
    link = _link()

    async def start() -> None:
        no_delay()
        lesson = lesson_of(link)

        def settle() -> None:
            fill_charts()  # after the first picture, of the graph the link names
            freeze_while_open()  # before playing: no long pauses of the garbage collector
            LinkKeeper(session).update()
            if lesson is not None:
                lessons.open(lesson)
            elif "frame" not in link:
                session.play()

        await open_link(session, loader, link)
        soon(settle)  # after the link's changes, which wait for the page's next tick too

    pn.state.onload(start)


if served() is not None:
    create_app().servable(title="Frontier")
