"""The dashboard's views render the state: one column per frame, readouts, cards, controls."""

import asyncio
import itertools
import time

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document

from viz import state
from viz.cards import Legend, StatsCard
from viz.charts import ChartsView, Readouts
from viz.citymap import MapView
from viz.controls import GraphControls, Pacer, Player, RunControls
from viz.narration import Caption
from viz.state import GraphChoice


def test_map_replaces_the_state_column_per_frame(session):
    view = MapView(session)
    run = session.runs[0]
    nodes = view._nodes
    columns = dict(nodes.data)
    for frame in (0, 7, run.n_frames - 1):
        session.seek(frame)
        np.testing.assert_array_equal(nodes.data["state"], run.states(frame))
        assert view._route_line.visible == run.route_visible(frame)
    assert nodes.data["x"] is columns["x"] and nodes.data["y"] is columns["y"]
    assert len(view._marks.data["x"]) == 2  # source and target
    assert len(view._route.data["x"]) == run.route.size
    ring = view._ring.data
    geo = session.loaded.geometry
    assert ring["outer"][0] == pytest.approx(run.readout(run.n_frames - 1)["hi"] * geo.scale)


def test_map_ring_follows_the_band_and_is_sent_only_when_it_changes(session):
    view = MapView(session)
    run = session.runs[0]
    geo = session.loaded.geometry
    doc = Document()  # in a document, every assignment is sent, equal or not
    doc.add_root(pn.Column(view).get_root(doc))
    sent = []
    doc.on_change(lambda e: sent.append(e) if getattr(e, "model", None) is view._ring else None)
    shown = []
    for frame in range(run.n_frames):
        session.seek(frame)
        outer = run.readout(frame)["hi"] * geo.scale
        outer = 0.0 if outer > 2 * geo.extent else outer  # the last phase: no ring
        assert view._ring.data["outer"][0] == pytest.approx(outer)
        shown.append(view._ring.data["outer"][0])
    changes = sum(a != b for a, b in itertools.pairwise(shown))
    assert 0 < changes <= len(sent) <= changes + 1 < run.n_frames // 2


def test_map_shows_no_threshold_ring_during_the_sweep(session):
    """near_far_core's sweep has no threshold; the ring of its search's last phase stayed on
    the map through it (1.87 km on Helsinki) while the caption said "no threshold"."""
    session.configs[0].method = "near_far_core"
    view, run = MapView(session), session.runs[0]
    rec = run.result.recording
    assert rec.sweep_from is not None and run.sweeping(rec.sweep_from)
    assert not run.sweeping(rec.sweep_from - 1)
    shown = []
    for frame in range(rec.sweep_from):
        session.seek(frame)
        shown.append(view._ring.data["outer"][0])
    assert max(shown) > 0  # the search's bands are ringed
    for frame in range(rec.sweep_from, run.n_frames):
        session.seek(frame)
        assert view._ring.data["outer"][0] == 0.0


def test_map_follows_a_new_graph_and_clicks(session, tmp_path):
    view = MapView(session)
    first = view._pane.object
    assert session.load_graph(GraphChoice(network="walk"))
    assert view._pane.object is not first
    assert len(view._nodes.data["x"]) == session.loaded.graph.n_nodes
    geo = session.loaded.geometry

    class Tap:  # what Bokeh's Tap event carries
        x, y, modifiers = geo.x[9], geo.y[9], {"shift": True}

    view._on_tap(Tap)
    assert session.target == 9


def test_the_map_credits_openstreetmap_only_for_its_data(session, tmp_path, monkeypatch):
    # as the exports do (engine.media.render.osm_data): not under a synthetic city
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path))
    view = MapView(session)
    assert view._note.visible and "OpenStreetMap" in view._note.object
    assert session.load_graph(GraphChoice("city:3000"))
    assert session.loaded.geometry is not None and not view._note.visible
    assert session.load_graph(GraphChoice())
    assert view._note.visible


def test_readouts_and_charts_follow_the_frame(session):
    readouts, charts = Readouts(session), ChartsView(session)
    run = session.runs[0]
    session.seek(12)
    values = run.readout(12)
    assert f'class="frontier-iteration">{values["iteration"]}<' in readouts._layout.object
    assert f'class="frontier-near-count">{values["near"]}<' in readouts._layout.object
    assert all(c.location == 12 for fig, c in charts._cursors if fig.visible)
    assert list(charts._series.data["near"]) == list(run.chart_columns()["near"])
    assert not charts._buckets.visible
    session.configs[0].method = "delta_stepping"
    assert charts._buckets.visible
    session.seek(5)
    np.testing.assert_array_equal(charts._bins.data["size"], session.runs[0].buckets(5))
    rec = session.runs[0].result.recording
    used = np.flatnonzero(rec.buckets[:, :-1].any(axis=0)).max()
    assert charts._buckets.x_range.end == used + 1.5  # zoomed to the buckets in use
    assert charts._bins.data["k"][-1] == used + 1  # the rest bar right after them
    np.testing.assert_array_equal(charts._grid.data["image"][0], rec.bucket_matrix().T)
    assert charts._life.visible
    session.configs[0].method = "bucketing"
    assert charts._buckets.visible and session.runs[0].buckets(5) is not None


def test_controls_show_the_delta_that_ran(session):
    controls = RunControls(session, session.configs[0])
    assert session.configs[0].auto_delta
    assert controls.delta.value == session.runs[0].result.delta == session.loaded.graph.auto_delta()


def test_stats_card_compares_with_dijkstra(session):
    card = StatsCard(session)
    run = session.runs[0]
    text = card._layout.object
    assert f"{run.result.counters.iterations:,} in" in text
    assert f"Dijkstra: {run.reference.edges_relaxed:,}" in text
    assert "1.36 km" in text and "min" in text  # route length and travel time


def test_stats_and_charts_of_a_graph_too_large_to_time_scipy_on(session, monkeypatch):
    monkeypatch.setattr(state, "REFERENCE_MAX_NODES", 100)
    card, charts = StatsCard(session), ChartsView(session)
    assert session.set_query(source=session.source + 1, target=None)  # a query not yet timed
    reference = session.runs[0].reference
    assert reference.elapsed_s is None and reference.edges_relaxed is not None
    assert "not timed on graphs of over 100 nodes" in card._layout.object
    assert f"Dijkstra: {reference.edges_relaxed:,}" in card._layout.object
    assert charts._dijkstra.visible and charts._dijkstra.location == reference.edges_relaxed


def test_run_controls_drive_the_config(session):
    config = session.configs[0]
    controls = RunControls(session, config)
    controls.delta_slider.value = 10.0  # 2^10
    assert (config.auto_delta, config.delta) == (False, 1024)
    assert session.runs[0].result.delta == 1024
    controls.delta.value = 0  # refused: the widgets go back with the config
    assert "delta must be" in session.error
    assert controls.delta.value == 1024 and session.runs[0].result.delta == 1024
    controls.method.value = "bellman_ford"
    assert controls.delta_slider.disabled and session.runs[0].result.delta is None


@pytest.mark.parametrize("index", [-1, 99])
def test_a_crafted_slider_index_is_refused(session, index, caplog):
    """The browser sends a slider's index; one outside the options changes nothing."""
    config = session.configs[0]
    controls = RunControls(session, config)
    before = (controls.batch.value, config.batch_size, session.runs[0])
    controls.batch._slider.value = index
    assert (controls.batch.value, config.batch_size, session.runs[0]) == before
    assert "refused" in caplog.text
    controls.batch._slider.value = 0  # a real index still works
    assert config.batch_size == controls.batch.values[0]


def test_graph_controls_reload_and_refuse(session, tmp_path):
    controls = GraphControls(session)
    controls.network.value = "walk"
    assert session.loaded.choice.network == "walk"
    controls.source.value = "path"
    controls.text.value = str(tmp_path / "nowhere.osm")
    asyncio.run(controls._load())
    assert "only files under" in session.error
    assert session.loaded.choice.network == "walk" and controls.network.value == "walk"
    assert not controls.load.loading
    controls.source.value = "upload"
    asyncio.run(controls._load())
    assert session.error == "choose a file to upload first"
    controls.source.value = "helsinki"
    controls.network.value = "drive"
    asyncio.run(controls._load())
    assert session.loaded.choice == GraphChoice(network="drive") and not controls.load.loading


def test_player_buttons(session):
    player = Player(session)
    session.pause()
    player.play.clicks += 1
    assert session.playing and player.play.label == "Pause"
    player.play.clicks += 1
    assert not session.playing and player.play.label == "Play"
    player.forward.clicks += 1
    assert session.frame == 1 and player.scrub.value == 1
    player.scrub.trigger("value_throttled", 1, 9)  # what a browser's slider release sends
    assert session.frame == 9
    player.scrub.trigger("value_throttled", 9, 10**9)  # a crafted value is clamped
    assert session.frame == session.n_frames - 1 == player.scrub.value


def test_the_player_waits_for_a_page_that_falls_behind(session, monkeypatch):
    """Playback sends no frame while the page has `Pacer.AHEAD` unapplied ones (the CI
    failure of 2026-11-23: a Pause click waited behind seconds of queued 200k-node map
    images), and a page silent for `Pacer.PATIENCE_S` is not waited for."""
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    player = Player(session)
    pacer = player.pacer
    pacer._paced = True  # as in a served page
    session.pause()
    session.seek(0)
    session.play()

    def tick(ack=None) -> bool:
        if ack is not None:
            pacer.applied = ack  # what the page sets once it applied frame `ack`
        clock[0] += step
        frame = session.frame
        player._tick()
        return session.frame != frame

    ahead, step = Pacer.AHEAD, 0.5  # each tick a frame or more later by the wall clock
    monkeypatch.setattr(Pacer, "PATIENCE_S", 40 * step)  # waits long past `AHEAD` ticks
    assert [tick() for _ in range(ahead + 2)] == [True] * ahead + [False] * 2
    # the page has applied the first frame: one more goes
    assert [tick(ack=1), tick()] == [True, False]
    silent = 0
    while not tick():
        silent += 1
    waited = (silent + 3) * step  # from the page's last reply to the tick that moved
    assert Pacer.PATIENCE_S < waited <= Pacer.PATIENCE_S + step
    assert pacer.sent == ahead + 2


def test_a_frame_sets_few_properties(session):
    """Each frame changes a handful of Bokeh properties (decisions/0013, load): the map's
    state column, the readout text, the slider and the two chart cursors."""
    import collections

    from bokeh.core.has_props import HasProps
    from bokeh.document import Document

    views = [Player(session), Readouts(session, 0), MapView(session, 0), ChartsView(session, 0)]
    pn.Column(*views).get_root(Document())
    counts = collections.Counter()
    original = HasProps.__setattr__

    def spy(model, name, value):
        if not name.startswith("_"):
            counts[name] += 1
        original(model, name, value)

    HasProps.__setattr__ = spy
    try:
        for frame in range(1, 21):
            session.seek(frame)
    finally:
        HasProps.__setattr__ = original
    assert sum(counts.values()) <= 20 * 7, counts


def test_the_wasted_work_layer_colours_relax_counts(session):
    view, legend = MapView(session), Legend(session)
    run = session.runs[0]
    session.seek(40)
    states = view._nodes.data["state"]
    legend.layer.value = "work"
    assert session.layer == "work" and view._dots.glyph.fill_color["field"] == "work"
    counts = run.result.recording.relax_counts(40)
    np.testing.assert_array_equal(view._nodes.data["work"], np.minimum(counts, 4))
    assert "wasted work" in legend.text.object
    session.seek(41)  # in this layer only the work column changes per frame
    assert view._nodes.data["state"] is states
    np.testing.assert_array_equal(view._nodes.data["work"], run.work(41))
    legend.layer.value = "states"
    assert view._dots.glyph.fill_color["field"] == "state"
    np.testing.assert_array_equal(view._nodes.data["state"], run.states(41))


def test_an_adaptive_delta_is_a_toggle_a_readout_and_a_chart(session):
    config = session.configs[0]
    controls, readouts, charts = (
        RunControls(session, config),
        Readouts(session),
        ChartsView(session),
    )
    assert not charts._delta.visible and "frontier-delta-now" not in readouts._layout.object
    controls.adaptive.value = True
    run = session.runs[0]
    assert config.adaptive_delta and run.settings.delta == "adaptive" and run.result.adaptive
    assert charts._delta.visible
    deltas = run.result.recording.column("delta")
    np.testing.assert_array_equal(charts._series.data["delta"], deltas)
    assert len(set(deltas.tolist())) > 1  # it moved on the city
    session.seek(len(deltas) - 1)
    assert 'class="frontier-delta-now">' in readouts._layout.object
    assert "adaptive" in StatsCard(session)._layout.object
    controls.delta_slider.value = 10.0  # Δ 2^10 = 1024: a chosen Δ turns both automatics off
    assert (config.adaptive_delta, config.auto_delta) == (False, False)
    assert session.runs[0].result.delta == 1024 and not charts._delta.visible


def test_presentation_mode_plays_in_a_loop_in_large_type_and_esc_leaves(session):
    player, caption, legend = Player(session), Caption(session), Legend(session)
    session.pause()
    session.loop = False
    player.present.clicks += 1
    assert session.present and session.playing and session.loop
    assert player.present.label == "Leave (Esc)"
    assert "font-size:24px" in caption._layout.object and player.play.stylesheets
    assert legend.text.styles == {"font-size": "20px"}  # read from the back of a room
    player.key("Escape")
    assert not session.present and session.playing  # leaving does not stop the show
    assert player.present.label == "Present" and "font-size" not in caption._layout.object
    assert not legend.text.styles


def test_counts_of_one_are_singular(session):
    """Issue 52: "83 iterations in 1 phases", "with 1 sorts"."""
    from viz.cards import stats_html
    from viz.style import counted

    assert (counted(1, "phase"), counted(2, "phase")) == ("1 phase", "2 phases")
    session.configs[0].method = "bellman_ford"  # one phase: Δ is infinite
    run = session.runs[0]
    assert run.result.counters.phases == 1
    assert " in 1 phase<" in stats_html(run) and "1 phases" not in stats_html(run)


def test_bucket_and_delta_charts_read_as_numbers(session):
    """Issue 52: "Buckets now" drew an empty axis from -1 to 1 where no bucket held a node,
    and the adaptive-Δ chart ticked 107647.5."""
    from bokeh.models import BasicTicker

    charts = ChartsView(session)
    session.configs[0].method = "delta_stepping"
    rec = session.runs[0].result.recording
    assert charts._buckets.y_range.start == 0
    assert charts._buckets.y_range.end == rec.buckets.max()  # one scale for the whole run
    run = session.runs[0]
    shown = []
    for frame in range(run.n_frames):
        session.seek(frame)
        assert charts._no_bucket.visible == (not run.buckets(frame).any()), frame
        shown.append(charts._no_bucket.visible)
    assert not all(shown)
    session.set_query(target=None)  # a whole search: at its end no node waits
    session.seek(session.runs[0].n_frames - 1)
    assert charts._no_bucket.visible
    ticker = charts._delta.yaxis[0].ticker
    assert isinstance(ticker, BasicTicker) and ticker.min_interval == 1


def test_a_comparison_is_labelled_on_one_scale_with_its_differences(session):
    """Issue 52: the maps were not labelled A and B, the charts had their own y-scales,
    nothing said how B differed, and the caption narrated A only."""
    from bokeh.models import DataRange1d

    from viz.cards import Differences, RunTitle

    shared = {"sets": DataRange1d(), "edges": DataRange1d()}
    a, b = ChartsView(session, 0, y_ranges=shared), ChartsView(session, 1, y_ranges=shared)
    assert a._sets.y_range is b._sets.y_range is shared["sets"]
    assert a._edges.y_range is b._edges.y_range is shared["edges"]
    titles = RunTitle(session, 0), RunTitle(session, 1)
    differences, words = Differences(session), Caption(session)
    session.configs[1].param.update(method="bellman_ford")
    session.compare = True
    assert "<b>A</b> · Near-Far" in titles[0]._layout.object
    assert "<b>B</b> · Bellman-Ford" in titles[1]._layout.object
    ra, rb = session.runs
    line = differences._layout.object
    assert f"iterations {rb.result.counters.iterations:,} vs {ra.result.counters.iterations:,}" in (
        line
    )
    assert "arcs relaxed" in line and "search time" in line
    session.seek(1)
    assert "<b>A</b>: Iteration 1" in words._layout.object and "<b>B</b>:" in words._layout.object
    session.compare = False
    assert "<b>B</b>" not in words._layout.object


def test_the_delta_slider_shows_the_exact_delta_that_ran_with_its_unit(session):
    """Issue 52: the slider snapped to powers of two (32768 shown for 26,912; 4096 after
    typing 5000), and nothing said what Δ is counted in."""
    import math

    config = session.configs[0]
    controls = RunControls(session, config)
    auto = session.runs[0].result.delta
    assert round(2**controls.delta_slider.value) == auto  # auto Δ: the one that ran
    controls.delta.value = 5000
    assert round(2**controls.delta_slider.value) == 5000 == session.runs[0].result.delta
    assert controls.delta.value == 5000 and not controls.delta_slider.show_value
    controls.delta_slider.value = math.log2(5000) + 0.05  # one key to the right
    assert session.runs[0].result.delta == round(5000 * 2**0.05) == controls.delta.value
    controls.delta_slider.value = 1e9  # a crafted value: brought into the range
    assert session.runs[0].result.delta == min(2**31, session.loaded.graph.max_delta())
    assert controls.delta.label == "Δ exact, in cm"
    assert session.load_graph(GraphChoice(weight="travel_time"))
    assert controls.delta.label == "Δ exact, in ms"


def test_near_and_far_dots_are_drawn_over_settled_ones(session):
    """Issue 52: settled must not hide what is near and far. Bokeh draws one glyph's points
    in index order, so the map draws the nodes twice, the second time only those that must
    stay seen (near and far; in the work layer, relaxed twice or more), on top."""
    from bokeh.models import GlyphRenderer

    from viz import style

    view, legend = MapView(session), Legend(session)
    dots = [r for r in view._pane.object.renderers
            if isinstance(r, GlyphRenderer) and r.data_source is view._nodes]  # fmt: skip
    assert dots == [view._dots, view._top]  # the top one is drawn last

    def shown(renderer) -> dict:
        fill = renderer.glyph.fill_color
        palette = fill["transform"].palette
        return {k: c for k, c in enumerate(palette) if c != style.CLEAR}, fill["field"]

    assert shown(view._dots) == ({1: style.FAR, 2: style.NEAR, 3: style.SETTLED}, "state")
    assert shown(view._top) == ({1: style.FAR, 2: style.NEAR}, "state")
    legend.layer.value = "work"
    wasted = {k: c for k, c in enumerate(style.WORK_COLORS) if k >= 2}
    assert shown(view._top) == (wasted, "work") and len(wasted) == 3
