"""The Explore view: sweeps and rank studies of the dashboard's query, off the page's thread."""

import csv
import io
import json
import threading
import time

import numpy as np
import pytest

import engine
from engine.studies import experiments
from viz.explore import NO_RANK, PENDING, Explorer, ExploreView
from viz.study import CPU_NOTICE


@pytest.fixture
def explorer(session):
    e = Explorer(session, deltas="x0.5,auto,x2", batches="1,8", repeat=1)
    yield e
    e.cancel()
    e.wait()


@pytest.fixture
def gate(monkeypatch):
    """Each search of a study waits for a release of this semaphore (and says it started)."""
    release, started = threading.Semaphore(0), threading.Semaphore(0)
    search = experiments.sssp

    def gated(*args, **kwargs):
        started.release()
        assert release.acquire(timeout=30), "the test never let the search run"
        return search(*args, **kwargs)

    monkeypatch.setattr(experiments, "sssp", gated)
    return release, started


def _poll_until(explorer, predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, explorer.status
        explorer.poll()
        time.sleep(0.01)


def test_heatmap_fills_cell_by_cell_while_the_page_stays_free(explorer, gate):
    release, started = gate
    view = ExploreView(explorer)
    session = explorer.session
    assert explorer.start("sweep") and explorer.running
    assert view._cells.data["text"] == ["…"] * 6  # 3 Δ × 2 batches, none done
    release.release(2)
    _poll_until(explorer, lambda: len(explorer.rows) == 2)
    assert view._cells.data["text"].count("…") == 4
    assert view._cells.data["fill"].count(PENDING) == 4
    assert "2 of 6 searches" in explorer.status and not view.cancel.disabled
    for _ in range(3):  # the third search waits on the thread ...
        assert started.acquire(timeout=10)
    frame = session.frame
    session.step(3)  # ... while the session answers at once
    assert session.frame == min(frame + 3, session.n_frames - 1)
    explorer.cancel()
    release.release(10)
    explorer.wait()
    assert not explorer.running and explorer.study.outcome == "cancelled"
    assert len(explorer.rows) == 3  # the search under way finishes; no other starts
    assert "cancelled: 3 of 6" in explorer.status and view.cancel.disabled


def test_a_sweep_is_exact_and_its_best_cell_marked(explorer):
    view = ExploreView(explorer)
    assert explorer.start("sweep")
    explorer.wait()
    rows = explorer.rows
    assert len(rows) == 6 and all(r["exact"] == "True" for r in rows)
    assert "finished: 6 of 6 searches" in explorer.status and "every distance exact" in (
        explorer.status
    )
    assert PENDING not in view._cells.data["fill"] and "…" not in view._cells.data["text"]
    cells = explorer.cells()
    fastest = min(cells, key=lambda k: cells[k]["time_ms"])
    assert view._best.data["batch"] == [str(fastest[1])]
    assert view._best.data["delta"][0].startswith(fastest[0])
    ids = explorer.session.loaded.graph.node_ids
    assert {r["source"] for r in rows} == {str(ids[explorer.session.source])}
    assert {r["target"] for r in rows} == {str(ids[explorer.session.target])}
    explorer.metric = "time_ms"
    assert all(t.endswith(" ms") for t in view._cells.data["text"])
    assert view._best.data["batch"] == [str(fastest[1])]
    explorer.metric = "efficiency"  # issue 52: "fastest" is outlined only over speeds
    assert view._best.data["batch"] == []
    on_cpu = explorer.study.backend == "cpu" or not engine.gpu_available()
    assert (CPU_NOTICE in explorer.status) == on_cpu


def test_a_click_loads_the_cell_into_search_a_and_shift_into_b(explorer):
    view = ExploreView(explorer)
    session = explorer.session
    assert explorer.start("sweep")
    explorer.wait()
    auto = session.loaded.graph.auto_delta()

    class Tap:  # what Bokeh's Tap event carries: the cell's centre on the factor axes
        x, y, modifiers = 1.5, 2.5, {}  # batch 8, Δ x2

    view._on_tap(Tap)
    a = session.runs[0]
    assert a.settings.delta == 2 * auto and a.settings.batch_size == 8
    assert a.result.recording is not None and not session.compare
    Tap.x, Tap.y, Tap.modifiers = 0.5, 1.5, {"shift": True}  # batch 1, auto Δ, side B
    view._on_tap(Tap)
    assert session.compare and len(session.runs) == 2
    assert session.runs[0] is a
    assert session.runs[1].settings.delta == "auto" and session.runs[1].settings.batch_size == 1
    # both stop once the target settles: every node as near as the target is exact in both
    exact = experiments.dijkstra_reference(session.loaded.graph, session.source).distances
    near = exact <= exact[session.target]
    for run in session.runs:
        np.testing.assert_array_equal(run.result.distances[near], exact[near])


def test_rank_mode_sets_the_target_and_studies_every_rank(explorer):
    session = explorer.session
    view = ExploreView(explorer)
    graph = session.loaded.graph
    reference = experiments.dijkstra_reference(graph, session.source)
    assert explorer.set_rank(6)
    assert session.target == reference.order[2**6] and explorer.rank == 6
    assert view.rank.value == 6 and view._span.visible and view._span.location == 6
    assert explorer.start("ranks")
    explorer.wait()
    rows = explorer.rows
    reached = reference.order.size - 1
    ranks = range(reached.bit_length())
    assert {int(r["rank"]) for r in rows} == set(ranks)
    assert len(rows) == len(ranks) * 3  # 3 Δ at the first batch size
    assert {r["batch"] for r in rows} == {"1"} and all(r["exact"] == "True" for r in rows)
    for r in rows:
        assert int(r["target"]) == graph.node_ids[reference.order[2 ** int(r["rank"])]]
    assert len(view._lines.data["xs"]) == 3 and view._lines.data["xs"][0] == list(ranks)
    assert view._ranks.visible and not view._heat.visible
    assert explorer.set_rank(2)  # a new target keeps the source's rank study
    assert explorer.study is not None and view._span.location == 2
    view.rank.value = 3  # the menu sets the target too
    assert session.target == reference.order[8]


def test_ranks_are_found_only_once_explore_opens(explorer, monkeypatch):
    """A new graph or query does not wait for the Dijkstra search that finds the target's
    rank while Explore is closed; opening it, or a sweep, finds it."""
    session = explorer.session
    searched = []
    find = experiments.dijkstra_reference
    monkeypatch.setattr(
        experiments, "dijkstra_reference", lambda *a, **k: searched.append(a) or find(*a, **k)
    )
    target = find(session.loaded.graph, session.source).order[2**5]
    assert session.set_query(target=target)
    assert searched == [] and explorer.rank is None
    assert explorer.start("sweep")  # a sweep's rows say the target's rank
    explorer.wait()
    assert explorer.rank == 5 and {str(r["rank"]) for r in explorer.rows} == {"5"}
    assert session.set_query(target=find(session.loaded.graph, session.source).order[2**3])
    assert explorer.rank == 3  # followed from then on
    view = ExploreView(explorer)
    assert view.rank.value == 3


def test_a_new_query_drops_the_sweep_of_the_old_one(explorer):
    session = explorer.session
    view = ExploreView(explorer)
    assert explorer.set_rank(4) and view.rank.value == 4
    assert explorer.start("sweep")
    explorer.wait()
    assert session.set_query(target=None)
    assert explorer.study is None and explorer.rows == []
    assert "query changed" in explorer.status
    assert explorer.rank is None and view.rank.value == NO_RANK


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("deltas", "0", "Δ list: Δ must be ≥ 1"),
        ("deltas", " , ", "Δ list needs a comma-separated list"),
        ("deltas", "fast", "'fast' is not an integer"),
        ("batches", "8,0", "Batch list needs comma-separated integers ≥ 1"),
    ],
)
def test_bad_lists_are_one_line_and_keep_the_study(explorer, field, value, message):
    assert explorer.start("sweep")
    explorer.wait()
    study, rows = explorer.study, explorer.rows
    setattr(explorer, field, value)
    assert not explorer.start("sweep")
    assert message in explorer.session.error and "\n" not in explorer.session.error
    assert explorer.study is study and explorer.rows == rows


def test_a_rank_beyond_the_graph_is_refused(explorer):
    target = explorer.session.target
    assert not explorer.set_rank(40)
    assert "rank 2^40 is beyond this graph" in explorer.session.error
    assert explorer.session.target == target


def test_a_study_that_fails_is_reported(explorer, monkeypatch):
    def broken(*_args, **_kwargs):
        raise engine.ParameterError("the device went away")

    monkeypatch.setattr(experiments, "sssp", broken)
    assert explorer.start("sweep")
    explorer.wait()
    assert explorer.study.outcome == "failed" and not explorer.running
    assert explorer.session.error == "the device went away"


def test_downloads_are_what_is_shown(explorer):
    view = ExploreView(explorer)
    assert all(w.disabled for w in view.downloads)
    assert explorer.start("sweep")
    explorer.wait()
    assert not any(w.disabled for w in view.downloads)
    assert [w.filename for w in view.downloads] == [
        f"frontier-sweep-helsinki-all.{ext}" for ext in ("csv", "json", "png")
    ]
    rows = list(csv.DictReader(io.StringIO(explorer.csv_file().getvalue())))
    assert rows == explorer.rows and tuple(rows[0]) == experiments.COLUMNS
    meta = json.loads(explorer.json_file().getvalue())
    graph = explorer.session.loaded.graph
    assert meta["graph"] == graph.name and meta["nodes"] == graph.n_nodes
    assert meta["source"] == int(graph.node_ids[explorer.session.source])
    assert meta["delta_specs"] == ["x0.5", "auto", "x2"] and meta["batches"] == [1, 8]
    assert meta["outcome"] == "finished" and meta["searches"] == 6 and meta["device"]
    assert explorer.png_file().getvalue().startswith(b"\x89PNG")
    assert explorer.start("ranks")
    explorer.wait()
    assert view.downloads[2].filename == "frontier-ranks-helsinki-all.png"
    assert explorer.png_file().getvalue().startswith(b"\x89PNG")


def test_an_adaptive_row_opens_in_the_player_with_default_bounds_only(explorer):
    view = ExploreView(explorer)
    session = explorer.session
    explorer.deltas = "auto,adaptive,adaptive:5-500"
    assert explorer.start("sweep")
    explorer.wait()
    explorer.poll()
    assert all(row["exact"] for row in explorer.rows)

    class Tap:  # batch 1, the adaptive row
        x, y, modifiers = 0.5, 1.5, {}

    view._on_tap(Tap)
    assert session.runs[0].settings.delta == "adaptive" and session.configs[0].adaptive_delta
    before = session.runs[0]
    Tap.y = 2.5  # adaptive:5-500: not a setting of the player
    view._on_tap(Tap)
    assert "adaptive:5-500 opens only from the CLI" in session.error
    assert session.runs[0] is before


def test_the_time_left_leaves_out_the_first_search(explorer, gate):
    """Issue 52: the first search compiles and warms up; an estimate from it alone said
    "51 s left" for a 12 s sweep. None is given until a second search has ended."""
    release, _ = gate
    assert explorer.start("sweep")
    release.release()
    _poll_until(explorer, lambda: len(explorer.rows) == 1)
    assert "left" not in explorer.status
    release.release()
    _poll_until(explorer, lambda: len(explorer.rows) == 2)
    assert "s left" in explorer.status and "2 of 6" in explorer.status
    explorer.cancel()
    release.release(10)


def test_cells_show_their_spread_a_colour_bar_and_what_is_told_apart(session):
    """Issue 52: each cell shows its median and the range of its searches, a colour bar
    gives the scale, and the fastest cell says how many others its range overlaps."""
    e = Explorer(session, deltas="x0.5,auto", batches="1,8", repeat=3)
    view = ExploreView(e)
    assert e.start("sweep")
    e.wait()
    cells = e.cells()
    assert all(cell["n"] == 3 for cell in cells.values())
    texts = view._cells.data["text"]
    for text, cell in zip(texts, (cells[k] for k in _grid_keys(e)), strict=True):
        lo, hi = f"{cell['speedup_lo']:.2f}×", f"{cell['speedup_hi']:.2f}×"
        expected = f"{cell['speedup']:.2f}×" + ("" if lo == hi else f"\n{lo}–{hi}")
        assert text == expected
    speedups = [cell["speedup"] for cell in cells.values()]
    scale = view._bar.color_mapper
    assert scale.low == pytest.approx(min(speedups)) and scale.high >= max(speedups) * 0.999
    assert view._bar.title == "speed-up over Dijkstra (×)"
    assert scale.palette[-1] == "#FDE724"  # the better end (higher) bright
    e.metric = "time_ms"
    assert view._bar.title == "median time (ms)" and scale.palette[0] == "#FDE724"
    fastest = min(cells, key=lambda k: cells[k]["time_ms"])
    words = view.verdict.object
    assert f"batch {fastest[1]}" in words and "Fastest:" in words
    c = cells[fastest]
    ties = sum(k != fastest and cells[k]["time_ms_lo"] <= c["time_ms_hi"] for k in cells)
    if ties:
        assert f"{ties} other cell" in words and "more searches per cell" in words
    else:
        assert "no other cell's range overlaps it" in words


def _grid_keys(e):
    return [(spec, b) for spec, _ in e.study.deltas for b in e.study.batches]


def test_the_fastest_cell_says_which_cells_it_is_not_told_apart_from():
    from types import SimpleNamespace

    from viz.explore import fastest_words

    study = SimpleNamespace(deltas=[("auto", 50), ("x2", 100)], batches=[1, 8])

    def cell(median, lo, hi):
        return dict(time_ms=median, time_ms_lo=lo, time_ms_hi=hi, n=3)

    cells = {("auto", 1): cell(2.0, 1.5, 3.0), ("auto", 8): cell(2.5, 2.9, 4.0),
             ("x2", 1): cell(5.0, 4.0, 6.0), ("x2", 8): cell(2.2, 2.1, 2.3)}  # fmt: skip
    words = fastest_words(study, cells, lambda spec, d: f"{spec} = {d}")
    assert "Δ auto = 50, batch 1, 2 ms (1.5 ms–3 ms)" in words
    assert "2 other cells overlap its range" in words  # (auto, 8) and (x2, 8); not (x2, 1)
    cells[("auto", 1)] = cell(2.0, 1.9, 2.05)
    words = fastest_words(study, cells, lambda spec, d: f"{spec} = {d}")
    assert "no other cell's range overlaps it" in words
