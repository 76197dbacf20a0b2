"""Loads on a worker thread (viz.loading): stages shown, Cancel keeps the previous graph,
links open graphs through it."""

import asyncio
import dataclasses
import threading
import time
from functools import partial

import pytest

import engine
from engine.graphs import synthetic
from viz import loading, state
from viz.controls import GraphControls
from viz.links import apply_query, open_link, query_of, searched_early
from viz.loading import Loader, LoadProgress
from viz.state import GraphChoice, Session


@pytest.fixture
def town(tmp_path, monkeypatch):
    gr, _ = synthetic.write_city(tmp_path / "town", 2_000, seed=5)
    monkeypatch.setenv("FRONTIER_DATA_DIRS", str(tmp_path))
    return gr


def test_a_load_reports_its_stages_then_shows_the_graph(session, town, monkeypatch):
    monkeypatch.setattr(loading, "SHOW_AFTER_S", 0.0)
    loader, seen = Loader(session), []
    view = LoadProgress(loader)
    real = state.load

    def slow(choice):  # each stage lasts long enough for the page's clock to see it
        state._say("reading the file")
        time.sleep(0.5)
        return real(choice)

    monkeypatch.setattr(state, "load", slow)
    loader.param.watch(lambda e: seen.append(e.new), "stage")
    choice = GraphChoice(str(town))
    shown = []
    loader.param.watch(lambda _e: shown.append(view._layout.visible), "elapsed")

    async def go():
        return await loader.load(choice, lambda: session.load_graph(choice))

    assert asyncio.run(go())
    assert session.loaded.choice == choice and session.error == ""
    assert "reading the file" in seen  # the page's clock samples the worker's stage
    assert True in shown and not view._layout.visible and not loader.busy


def test_a_linked_graph_loads_once_while_the_page_is_made(session, town, monkeypatch):
    """Decision 0086: a page opened by a link starts loading its graph at once; the page's
    own load then waits for that one and finds the graph loaded: it is read once. A bad
    link's prefetch fails quietly, and the page's load says what is wrong."""
    state.load.clear()
    reads = []
    real = GraphChoice.load

    def counted(self):
        reads.append(self.spec)
        time.sleep(0.3)  # the page's load comes while this one runs
        return real(self)

    monkeypatch.setattr(GraphChoice, "load", counted)
    choice = GraphChoice(str(town))
    early = loading.prefetch(choice)
    loader = Loader(session)

    async def go(c):
        return await loader.load(c, lambda: session.load_graph(c))

    assert asyncio.run(go(choice))
    early.thread.join(10)
    assert reads == [str(town)] and session.loaded.choice == choice
    assert not loading._loading  # no lock left behind
    missing = GraphChoice(str(town.parent / "missing.gr"))
    loading.prefetch(missing).thread.join(10)
    assert not asyncio.run(go(missing))
    assert "missing.gr" in session.error and session.loaded.choice == choice


def test_a_links_searches_are_made_while_the_page_is_made(session, town, monkeypatch):
    """Decision 0099: the link's early load also makes the searches the link asks for (and
    their SciPy references); the page then shows them without searching again."""
    state.load.clear()
    threads = []
    search = engine.sssp

    def counted(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return search(*args, **kwargs)

    monkeypatch.setattr(engine, "sssp", counted)
    link = {"graph": str(town), "method": "delta_stepping", "batch": "8", "source": "17"}
    choice = GraphChoice(str(town))
    early = loading.prefetch(choice, then=partial(searched_early, link))
    loader = Loader(session, prefetched=early)

    async def go():
        return await loader.load(choice, partial(apply_query, session, link))

    assert asyncio.run(go())
    run = session.runs[0]
    assert session.loaded.choice == choice and session.error == ""
    assert run.settings.method == "delta_stepping" and run.settings.batch_size == 8
    assert session.loaded.graph.node_ids[session.source] == 17
    assert threads and set(threads) == {"frontier-prefetch"}  # none on the page's thread
    assert session.set_query(source=session.source)  # the same query: searched already
    assert set(threads) == {"frontier-prefetch"}


def test_every_stage_of_a_load_is_reported(town):
    stages = []
    with state.reporting(stages.append):
        state.load(GraphChoice(str(town), weights="random:3"))
    assert stages == [
        "reading the file",
        "parsing the arcs",
        "reading the coordinates",
        "building the CSR",
        "writing the cache",
        "preparing the map",
    ]
    stages.clear()
    state.load.clear()
    with state.reporting(stages.append):
        state.load(GraphChoice(str(town), weights="random:3"))
    assert stages == ["reading the cache", "preparing the map"]


def test_cancel_keeps_the_previous_graph_and_stops_the_worker(session, town, monkeypatch):
    before = session.loaded
    reached, go_on, stopped = threading.Event(), threading.Event(), threading.Event()

    def stuck(choice):
        state._say("parsing the arcs")
        reached.set()
        go_on.wait(10)
        try:
            state._say("building the CSR")  # the worker's next stage: it stops here
        except loading.LoadCancelled:
            stopped.set()
            raise
        pytest.fail("the cancelled load went on")

    monkeypatch.setattr(state, "load", stuck)
    loader = Loader(session)
    applied = []

    async def go():
        task = asyncio.ensure_future(loader.load(GraphChoice(str(town)), lambda: applied.append(1)))
        await asyncio.to_thread(reached.wait, 10)
        assert loader.busy
        loader.cancel()
        assert not loader.busy and session.loaded is before
        go_on.set()
        return await task

    assert asyncio.run(go()) is False
    assert stopped.is_set() and not applied
    assert "loading town.gr was cancelled; the previous graph is kept" == session.error
    assert session.loaded is before


def test_cancel_stops_the_linked_graphs_early_load_too(session, town, monkeypatch):
    """A page opened by a link loads its graph twice over: the early load (`prefetch`) and
    the page's own, which waits for it. Cancel stops both at their next stage: the early one
    no longer runs on, for nobody, to the end; while it ran, the page showed its stage, not
    its own load's "starting" (issue 54)."""
    state.load.clear()
    reached, go_on, stages = threading.Event(), threading.Event(), []
    real = state.load

    def slow(choice):
        state._say("parsing the arcs")
        reached.set()
        go_on.wait(10)
        state._say("building the CSR")  # raises once cancelled
        stages.append("built")
        return real(choice)

    monkeypatch.setattr(state, "load", slow)
    choice = GraphChoice(str(town))
    early = loading.prefetch(choice)
    loader = Loader(session, prefetched=early)
    before = session.loaded

    async def go():
        task = asyncio.ensure_future(loader.load(choice, lambda: session.load_graph(choice)))
        await asyncio.to_thread(reached.wait, 10)
        await asyncio.sleep(0.1)  # the page's load waits for the early one ...
        loader._tick()
        assert loader.stage == "parsing the arcs"  # ... and shows the early one's stage
        loader.cancel()
        go_on.set()
        return await task

    assert asyncio.run(go()) is False
    early.thread.join(10)
    assert early.cancelled.is_set() and not early.thread.is_alive()
    assert stages == [] and not loading._loading  # neither went on; no lock left behind
    assert session.loaded is before and "was cancelled" in session.error
    # A load of another graph stops the early load too; of the same graph, it keeps it.
    early = loading.prefetch(choice)
    Loader(session, prefetched=early)._stop_prefetch(unless=choice)
    assert not early.cancelled.is_set()
    Loader(session, prefetched=early)._stop_prefetch(unless=GraphChoice())
    assert early.cancelled.is_set()
    go_on.set()
    early.thread.join(10)


def test_a_failed_load_is_one_line_and_keeps_the_graph(session, tmp_path, monkeypatch):
    bad = tmp_path / "bad.gr"
    bad.write_text("p sp 3 1\na 1 9 4\n")
    monkeypatch.setenv("FRONTIER_DATA_DIRS", str(tmp_path))
    loader, before = Loader(session), session.loaded
    assert not asyncio.run(loader.load(GraphChoice(str(bad)), lambda: None))
    assert "node ids run from 1 to 3" in session.error
    assert session.loaded is before and not loader.busy


def test_a_link_opens_its_graph_through_the_loader(session, town):
    loader = Loader(session)
    node = 7
    args = {"graph": [str(town).encode()], "source": [str(node + 1).encode()]}
    asyncio.run(open_link(session, loader, args))
    assert session.error == ""
    assert session.loaded.choice.spec == str(town) and session.source == node
    asyncio.run(open_link(session, loader, {"graph": [b"/etc/passwd"]}))
    assert "only files under" in session.error and session.loaded.choice.spec == str(town)


def test_coordinates_come_from_a_second_file_typed_uploaded_or_linked(session, town, tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    moved = maps / "town-points.co"
    town.with_suffix(".co").rename(moved)
    controls = GraphControls(session)
    controls.source.value = "path"
    assert controls.coords.visible and not controls.uploads.objects  # no FilePond on the page
    controls.text.value = str(town)
    assert session.load_graph(controls._choice()), session.error
    assert session.loaded.geometry is None  # no .co beside it any more: charts only
    controls.coords.value = str(moved)
    choice = controls._choice()
    assert choice.coords == str(moved.resolve())
    assert session.load_graph(choice), session.error
    assert session.loaded.geometry is not None
    query = query_of(session)
    assert query["coords"] == choice.coords
    other = Session()
    assert other.load_graph(GraphChoice()) and apply_query(other, query), other.error
    assert other.loaded.choice == choice and other.loaded.geometry is not None
    before = session.loaded
    short = maps / "short.co"
    short.write_text("p aux sp co 3\nv 1 8000000 47000000\n")
    assert not session.load_graph(dataclasses.replace(choice, coords=str(short)))
    assert "coordinates for 3 nodes" in session.error and session.loaded is before
    controls.coords.value = "/etc/hosts"
    with pytest.raises(state.DashboardError, match="only files under"):
        controls._choice()
    controls.source.value = "upload"
    assert controls.uploads.objects == [controls.upload, controls.coords_upload]
    assert not controls.coords.visible
    controls.upload.value = {"town.gr": town.read_bytes()}
    controls.coords_upload.value = {"town.co": moved.read_bytes()}
    assert session.load_graph(controls._choice()), session.error
    assert session.loaded.geometry is not None


def test_the_graph_menu_shows_the_graph_on_screen(session, town):
    """Issue 52: after ?graph= the menu still said "Helsinki (embedded)", so Load graph
    reloaded Helsinki; and options that cannot apply were shown."""
    controls = GraphControls(session)
    assert controls.source.value == "helsinki" and not controls.weights.visible
    asyncio.run(open_link(session, Loader(session), {"graph": [str(town).encode()]}))
    assert session.loaded.choice.spec == str(town), session.error
    assert (controls.source.value, controls.text.value) == ("path", str(town))
    assert controls.weights.visible and not controls.network.visible  # DIMACS: no OSM network
    asyncio.run(controls._load())  # Load graph reloads what is on screen
    assert session.loaded.choice.spec == str(town) and not session.error
    assert session.load_graph(GraphChoice(network="drive"))
    assert controls.source.value == "helsinki" and controls.network.visible
