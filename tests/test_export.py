"""Exports of a recorded search (engine.media.export, engine.media.render; `frontier animate`
/ `frame`)."""

import csv
import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import engine
from engine.adaptive import AdaptiveDelta
from engine.media import export, replay
from engine.media.render import BAND, COLORS, MapPainter, default_size
from engine.recording import FAR, FRAME_FIELDS, NEAR

HELSINKI_SOURCE, HELSINKI_TARGET = 25291537, 6388100055


@pytest.fixture(scope="module")
def run():
    g = engine.load_graph("helsinki")
    return engine.sssp(
        g, g.index_of(HELSINKI_SOURCE), target=g.index_of(HELSINKI_TARGET), record=True,
        method="delta_stepping",
    )  # fmt: skip


def _index(name: str) -> int:
    return list(COLORS).index(name)


def _near_any(painter, chosen) -> np.ndarray:
    """Nodes within a dot's reach of a ``chosen`` node (their pixels may be covered)."""
    from scipy.spatial import cKDTree

    points = np.column_stack([painter.px, painter.py])
    tree = cKDTree(points[chosen])
    return tree.query(points, distance_upper_bound=3)[0] < 3


def test_each_node_shows_its_state_in_every_frame(run):
    painter = MapPainter(run.graph, (640, 800))
    overlays = [_index(n) for n in ("source", "target", "text", "muted")]  # route, marks, words
    for frame in (0, len(run.recording) // 2, len(run.recording) - 1):
        pixels = np.asarray(painter.frame(run, frame))
        states = run.recording.states(frame)
        centre = pixels[painter.py, painter.px]
        free = ~np.isin(centre, overlays)
        assert free.mean() > 0.9
        # painted settled, far, near in turn: nothing covers a near node's centre, and a
        # settled one's covers no far or near node (issue 52: settled hid the frontier)
        assert np.all(centre[free & (states == NEAR)] == _index("near"))
        assert np.all(centre[free & (states == FAR)] != _index("road"))
        assert np.all(centre[free & (states == FAR)] != _index("settled"))
        reached = np.isin(centre, [_index(n) for n in ("far", "near", "settled")])
        alone = free & (states == 0) & ~_near_any(painter, states > 0)
        assert not reached[alone].any()
    first = np.asarray(painter.frame(run, 0))[BAND:]  # below the caption and its legend
    assert not np.isin(first, [_index("settled"), _index("far")]).any()  # the source alone


@pytest.mark.parametrize("size", [None, (480, 640), (200, 200)])
def test_states_paint_as_each_states_squares_in_turn(run, size):
    """`MapPainter._paint_states` paints what painting each state's squares in turn paints
    (`_paint_nodes`, settled then far then near), pixel for pixel, for any states."""
    from engine.media.render import _STATES

    painter = MapPainter(run.graph, size)
    rng = np.random.default_rng(3)
    for states in (rng.integers(0, 4, run.graph.n_nodes).astype(np.uint8),
                   run.recording.states(len(run.recording) // 2)):  # fmt: skip
        fast, slow = painter._base.copy(), painter._base.copy()
        painter._paint_states(fast, states)
        for code, colour in _STATES:
            painter._paint_nodes(slow, np.flatnonzero(states == code), colour, painter.dot)
        np.testing.assert_array_equal(fast, slow)
    painter.dot = 3  # small graphs' squares
    fast, slow = painter._base.copy(), painter._base.copy()
    painter._paint_states(fast, states)
    for code, colour in _STATES:
        painter._paint_nodes(slow, np.flatnonzero(states == code), colour, 3)
    np.testing.assert_array_equal(fast, slow)


def test_gif_has_every_frame_and_matches_the_painter(run, tmp_path):
    out = export.export(run, tmp_path / "run.gif", size=(480, 640))
    painter = MapPainter(run.graph, (480, 640))
    with Image.open(out) as gif:
        assert gif.n_frames == len(run.recording)
        for k in (0, gif.n_frames - 1):
            gif.seek(k)
            drawn = np.asarray(gif.convert("RGB"))
            expected = np.asarray(painter.frame(run, k).convert("RGB"))
            np.testing.assert_array_equal(drawn, expected)


def test_mp4_has_the_chosen_frames(run, tmp_path):
    import imageio_ffmpeg

    seen = []
    out = export.export(run, tmp_path / "run.mp4", frames="5:24", fps=20, progress=seen.append)
    reader = imageio_ffmpeg.read_frames(str(out))
    meta = next(reader)
    frames = sum(1 for _ in reader)
    assert frames == 20 and seen == list(range(1, 21))
    assert meta["fps"] == 20 and meta["size"] == default_size(run.graph)


def test_most_frames_are_spread_evenly_first_and_last_kept():
    assert export.spread(range(10), None) == range(10)
    assert export.spread(range(10), 10) == range(10)
    assert export.spread(range(10), 4) == [0, 3, 6, 9]
    assert export.spread(range(5, 105), 3) == [5, 55, 104]
    with pytest.raises(engine.ParameterError, match="at least 2 frames"):
        export.spread(range(10), 1)


def test_png_and_frame_table(run, tmp_path):
    png = export.export(run, tmp_path / "f.png", frame=7)
    with Image.open(png) as picture:
        assert picture.format == "PNG" and picture.size == default_size(run.graph)
    table = export.export(run, tmp_path / "t.csv")
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    assert len(rows) == len(run.recording) and tuple(rows[0]) == export.TABLE
    for row, snap in zip(rows, run.recording, strict=True):
        assert int(row["settled"]) == snap.settled and int(row["near"]) == snap.near
        assert int(row["threshold"]) == snap.threshold
    assert rows[-1]["settled"] == str(run.recording.snapshot(len(rows) - 1).settled)
    assert any(r["buckets"] for r in rows)  # Δ-stepping's buckets, as index:size


def test_replay_reopens_to_identical_frames(run, tmp_path):
    path = export.export(run, tmp_path / "run.frontier.npz", source={"spec": "helsinki"})
    back, source = replay.load(path)
    assert source == {"spec": "helsinki"}
    np.testing.assert_array_equal(back.recording.frames, run.recording.frames)
    np.testing.assert_array_equal(back.recording.buckets, run.recording.buckets)
    np.testing.assert_array_equal(back.distances, run.distances)
    for frame in range(len(run.recording)):
        np.testing.assert_array_equal(back.recording.states(frame), run.recording.states(frame))
    assert back.counters == run.counters and back.delta == run.delta
    assert back.path_to(back.target) == run.path_to(run.target)
    assert back.graph.name == run.graph.name
    np.testing.assert_array_equal(back.graph.node_ids, run.graph.node_ids)


@pytest.mark.parametrize("method", ["near_far_async", "near_far_core", "phast"])
def test_a_recording_by_phase_exports_and_reopens(method, tmp_path):
    """Issue 54: the fastest methods' recordings go to a GIF a frame a phase (and a sweep
    step), and a replay reopens them by phase, the sweep where it began."""
    g = engine.load_graph("helsinki")
    r = engine.sssp(g, g.index_of(HELSINKI_SOURCE), method=method, record=True)
    gif = export.export(r, tmp_path / "run.gif")
    assert Image.open(gif).n_frames == len(r.recording)
    back, _ = replay.load(export.export(r, tmp_path / "run.frontier.npz"))
    rec = back.recording
    assert rec.by_phase and rec.sweep_from == r.recording.sweep_from
    assert (rec.sweep_from is not None) == engine.METHODS[method].contracted
    np.testing.assert_array_equal(rec.frames, r.recording.frames)
    np.testing.assert_array_equal(rec.stamps, r.recording.stamps)


def test_an_adaptive_replay_keeps_its_rule_and_an_older_layout_still_opens(tmp_path):
    g = engine.load_graph("helsinki")
    rule = AdaptiveDelta(100, 10**6, 5000, phase_cost=300)
    r = engine.sssp(g, 3, method="delta_stepping", delta=rule, record=True)
    back, _ = replay.load(export.export(r, tmp_path / "a.frontier.npz"))
    assert back.adaptive == rule
    np.testing.assert_array_equal(back.recording.column("delta"), r.recording.column("delta"))
    fixed = engine.sssp(g, 3, delta=5000, record=True)
    path = export.export(fixed, tmp_path / "f.frontier.npz")
    with np.load(path) as z:
        arrays = dict(z)
    old = len(FRAME_FIELDS) - 3  # layout 1 had no Δ, entries or waste per frame
    arrays["frames"] = arrays["frames"][:, :old]
    arrays["run"] = np.array(str(arrays["run"]).replace(replay.FORMAT, replay.FORMAT_1))
    np.savez_compressed(path, **arrays)
    back, _ = replay.load(path)
    assert back.adaptive is None
    assert set(back.recording.column("delta").tolist()) == {5000}
    np.testing.assert_array_equal(back.recording.frames[:, :old], fixed.recording.frames[:, :old])


def test_bad_replays_are_one_line(run, tmp_path):
    junk = tmp_path / "junk.frontier.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(replay.ReplayError, match="not a readable Frontier replay"):
        replay.load(junk)
    good = export.export(run, tmp_path / "good.frontier.npz")
    cut = tmp_path / "cut.frontier.npz"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(replay.ReplayError, match="not a readable"):
        replay.load(cut)
    other = tmp_path / "other.frontier.npz"
    with np.load(good) as z:
        arrays = dict(z)
    arrays["run"] = np.array(str(arrays["run"]).replace(replay.FORMAT, "frontier-replay/0"))
    np.savez(other, **arrays)
    with pytest.raises(replay.ReplayError, match="another Frontier version"):
        replay.load(other)
    arrays = {k: v for k, v in arrays.items() if k != "run"}
    np.savez(other, **arrays)
    with pytest.raises(replay.ReplayError, match="is not a Frontier replay"):
        replay.load(other)
    with pytest.raises(replay.ReplayError, match="does not exist"):
        replay.load(tmp_path / "missing.frontier.npz")


def _edited(good, path, *, run=None, **arrays):
    """A copy of the replay ``good`` at ``path`` with ``run`` changes to its record (a whole
    new record if not a dict) and other arrays replaced."""
    with np.load(good) as z:
        data = dict(z)
    record = json.loads(str(data["run"]))
    record = record | run if isinstance(run, dict) else (record if run is None else run)
    data |= arrays | {"run": np.array(json.dumps(record))}
    np.savez(path, **data)
    return path


@pytest.mark.parametrize(
    ("run_edit", "arrays", "message"),
    [
        ([1, 2], {}, "its run is no record"),
        ({"counters": {"iterations": 3, "warp": 1}}, {}, "counters ['warp']"),
        ({"method": "astar"}, {}, "'astar' is not a recordable method"),
        ({"method": "dijkstra"}, {}, "not a recordable method"),
        ({"sweep_from": 3}, {}, "its sweep_from is 3"),
        ({"source": 10**9}, {}, "its source 1000000000 is not a node"),
        ({"source": -7}, {}, "its source -7 is not a node"),
        ({"target": "x"}, {}, "its target is 'x'"),
        ({"batch_size": True}, {}, "its batch_size is True"),
        ({}, {"relax_log": "negative"}, "its arrays do not fit its graph"),
    ],
)
def test_crafted_replays_are_one_line(run, tmp_path, run_edit, arrays, message):
    """Issue 50: crafted run records gave TypeError, AttributeError, KeyError and
    IndexError tracebacks, and a source of -7 was drawn as another node."""
    good = export.export(run, tmp_path / "good.frontier.npz")
    if arrays.get("relax_log") == "negative":
        with np.load(good) as z:
            arrays = {"relax_log": -np.ones_like(z["relax_log"])}
    bad = _edited(good, tmp_path / "bad.frontier.npz", run=run_edit, **arrays)
    with pytest.raises(replay.ReplayError, match=re.escape(message)):
        replay.load(bad)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (dict(path="x.webm"), "unknown format; the file name must end in one of"),
        (dict(path="x.gif", frames="3:1"), "outside the run"),
        (dict(path="x.gif", frames="0:9999"), "outside the run"),
        (dict(path="x.gif", frames="a-b"), "--frames must look like A:B"),
        (dict(path="x.png", frame=10_000), "--frame 10000 is outside the run"),
        (dict(path="x.gif", fps=0), "--fps must be 1–60"),
    ],
)
def test_bad_export_options_are_one_line(run, tmp_path, call, message):
    call = dict(call)
    path = tmp_path / call.pop("path")
    with pytest.raises(engine.FrontierError, match=message):
        export.export(run, path, **call)
    assert not path.exists() and not list(tmp_path.glob(".*.tmp"))


def test_a_failed_export_keeps_the_previous_file(run, tmp_path, monkeypatch):
    out = export.export(run, tmp_path / "run.gif", frames="0:3")
    before = out.read_bytes()
    drawn, original = [], MapPainter.frame

    def broken(self, result, frame):
        drawn.append(frame)
        if len(drawn) > 2:
            raise OSError("disk full")
        return original(self, result, frame)

    monkeypatch.setattr(MapPainter, "frame", broken)
    with pytest.raises(OSError, match="disk full"):
        export.export(run, out)
    assert out.read_bytes() == before and not list(tmp_path.glob(".*.tmp"))


def test_graphs_without_coordinates_have_no_map(tmp_path):
    from .graphs import grid_graph

    g = grid_graph(4, 4)
    r = engine.sssp(g, 0, record=True)
    with pytest.raises(engine.ParameterError, match="has no coordinates"):
        export.export(r, tmp_path / "x.gif")
    assert export.export(r, tmp_path / "x.csv").is_file()  # the frame table needs no map


def _cli(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args], capture_output=True, text=True,
        timeout=300, cwd=cwd, env=dict(os.environ),
    )  # fmt: skip


def test_cli_animate_and_frame(tmp_path):
    done = _cli("animate", "helsinki", "--source", str(HELSINKI_SOURCE), "--out", "h.gif",
                cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "frame/s" in done.stderr  # the progress bar
    with Image.open(tmp_path / "h.gif") as gif:
        g = engine.load_graph("helsinki")
        r = engine.sssp(g, g.index_of(HELSINKI_SOURCE), record=True)
        assert gif.n_frames == len(r.recording)
    done = _cli("animate", "helsinki", "--out", "h.frontier.npz", "--method", "bellman_ford",
                cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = _cli("frame", "h.frontier.npz", "--out", "h.png", "--frame", "2", "--size", "400x300",
                cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Image.open(tmp_path / "h.png") as picture:
        assert picture.size == (400, 300)
    # issue 50: a replay draws its recorded search; search options are refused, not ignored
    done = _cli("frame", "h.frontier.npz", "--out", "o.png", "--method", "bucketing",
                "--source", "3", "--delta", "5", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2 and not (tmp_path / "o.png").exists()
    assert "--source, --method, --delta cannot change a replay" in done.stderr
    for args, needle in (
        (("frame", "helsinki", "--out", "x.gif"), "must end in .png"),
        (("animate", "helsinki", "--out", "x.png"), "frontier frame draws PNGs"),
        (("animate", "helsinki", "--out", "nowhere/x.gif"), "does not exist"),
        (("animate", "h.png", "--out", "x.gif"), "not a graph file"),
        (("animate", "helsinki", "--out", "x.gif", "--size", "9x9"), "--size must be"),
    ):
        done = _cli(*args, cwd=tmp_path)
        assert done.returncode == 2 and needle in done.stderr, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
